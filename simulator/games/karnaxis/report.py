"""Karnaxis's own report sections: taxes and brackets, the smart table, loans, ranks, cash over
the years, the characters dealt and kept."""

from __future__ import annotations

import polars as pl

from simulator.analysis import Dataset
from simulator.report.charts import (
    count_bars,
    lines_chart,
    most_title,
    peak_title,
    rate_bars,
    share,
    stacked_bars,
)
from simulator.report.flags import THRESHOLDS, Rules, evidence, past
from simulator.report.page import block, interval, pct


def bracket_axis(df: pl.DataFrame) -> list[str]:
    """Tax-bracket axis labels: income ranges when the table has them."""
    return [str(v) for v in df["income" if "income" in df.columns else "tax_bracket"].to_list()]


LOAN_RATES = {
    "cap_binding": "loan cap reached",
    "borrowed": "borrowed",
    "delinquent": "got a delinquent notice",
}
LOAN_VERBS = {"cap_binding": "reaches the cap", "borrowed": "borrows", "delinquent": "defaults"}


def final_title(df: pl.DataFrame, group: str | None, value: str, time: str, text: str) -> str:
    """'<group> ends with...' for the group with the largest ``value`` at the last ``time``."""
    last = df.filter(pl.col(time) == df[time].max())
    r = last.sort(value, descending=True).row(0, named=True)
    return (f"{r[group]} " if group else "") + text.format(r[value])


def sections(pid: str, ds: Dataset, res: dict) -> str:
    """The Karnaxis sections of dataset ``pid`` (:func:`simulator.report.sections.dataset_section`)
    from its ``karnaxis_*`` analyses."""
    parts = ["<h3>Karnaxis: taxes, loans, ranks</h3>"]
    df = res.get("karnaxis_tax_by_bracket")
    if df is not None:
        v0 = df.filter(pl.col("variant") == df["variant"][0]) if "variant" in df.columns else df
        top = v0.sort("share_of_tax", descending=True).row(0, named=True)
        fig = count_bars(
            bracket_axis(v0),
            [100 * s for s in v0["share_of_tax"].to_list()],
            "tax bracket (yearly income)",
            "% of all tax paid",
            f"Incomes of {top.get('income', top['tax_bracket'])} pay {share(top['share_of_tax'])} "
            f"of all tax, in {share(top['share'])} of player-years",
        )
        parts.append(block(f"{pid}-brackets", "Tax paid per bracket", fig, df))
    df = res.get("karnaxis_tax_by_year")
    if df is not None:
        group = "variant" if "variant" in df.columns and df["variant"].n_unique() > 1 else None
        fig = lines_chart(
            df.with_columns(pl.col("variant").cast(pl.String)) if group else df,
            "year",
            "mean_tax_usd",
            group,
            "year",
            "mean tax paid (USD per player)",
            title=peak_title(df, "year", "mean_tax_usd", "Tax peaks in year {}: ${:,.0f} a player"),
        )
        parts.append(block(f"{pid}-tax-year", "Tax paid per year", fig, df))
    df = res.get("karnaxis_smart_savings")
    if df is not None:
        v0 = df.filter(pl.col("variant") == df["variant"][0]) if "variant" in df.columns else df
        fig = count_bars(
            bracket_axis(v0),
            v0["saving_usd"].to_list(),
            "tax bracket (yearly income)",
            "smart-table saving (USD per year)",
            peak_title(
                v0,
                "income" if "income" in v0.columns else "tax_bracket",
                "saving_usd",
                "The smart table saves most at incomes of {}: ${:,.0f} a year",
            ),
        )
        parts.append(
            block(
                f"{pid}-smart",
                "What the smart table saves",
                fig,
                df,
                "Saving = standard minus smart tax of the bracket; the accountant "
                "costs $10,000 a year.",
            )
        )
    df = res.get("karnaxis_bracket_shares")
    if df is not None and "policy" in df.columns:
        piv = df.sort("tax_bracket")
        if "variant" in piv.columns:
            piv = piv.filter(pl.col("variant") == piv["variant"][0])
        key = "income" if "income" in piv.columns else "tax_bracket"
        brackets = [str(b) for b in piv[key].unique(maintain_order=True).to_list()]
        wide = (
            piv.with_columns(pl.col(key).cast(pl.String))
            .pivot(on=key, index="policy", values="share")
            .fill_null(0.0)
        )
        brackets = [b for b in brackets if b in wide.columns]
        wide = wide.select("policy", *brackets)
        fig = stacked_bars(
            wide["policy"].to_list(),
            {b: [100 * x for x in wide[b].to_list()] for b in brackets},
            "% of player-years",
            "Years spent in each tax bracket, by policy",
        )
        parts.append(
            block(f"{pid}-bracket-shares", "Share of player-years in each bracket", fig, wide)
        )
    df = res.get("karnaxis_loans")
    if df is not None and "policy" in df.columns:
        anchor = f"{pid}-loans"  # the loan flags link here
        rate = next((r for r in ("cap_binding", "borrowed", "delinquent") if r in df.columns), None)
        fig = (
            rate_bars(
                df,
                "policy",
                rate,
                f"{LOAN_RATES[rate]} (% of players)",
                title=most_title(df, "policy", rate, LOAN_VERBS[rate], None),
            )
            if rate
            else None
        )
        parts.append(
            block(
                anchor,
                "Loans: borrowing, cap binding, delinquency, interest",
                fig,
                df,
                "Loan cap reached: the player's peak loans reached the cap.",
            )
        )
    df = res.get("karnaxis_rank_titles")
    if df is not None and "policy" in df.columns:
        wide = df.pivot(on="rank_title", index="policy", values="share").fill_null(0.0)
        titles = [
            t for t in ("Unranked", "Amateur", "Novice", "Expert", "Elite") if t in wide.columns
        ]
        titles += [t for t in wide.columns if t not in titles and t != "policy"]
        fig = stacked_bars(
            wide["policy"].to_list(),
            {t: [100 * x for x in wide[t].to_list()] for t in titles},
            "% of players",
            "Rank titles reached, by policy",
        )
        parts.append(block(f"{pid}-ranks", "Rank titles", fig, wide.select(["policy", *titles])))
    df = res.get("karnaxis_cash_by_year")
    if df is not None:
        chart = df.filter(pl.col("variant") == df["variant"][0]) if "variant" in df.columns else df
        group = "policy" if "policy" in chart.columns else None
        fig = lines_chart(
            chart,
            "year",
            "median",
            group,
            "year",
            "cash (USD), median and quartiles",
            band=("q25", "q75"),
            title=final_title(chart, group, "median", "year", "ends with the most cash: ${:,.0f}"),
        )
        parts.append(block(f"{pid}-cash", "Cash trajectories by year and policy", fig, df))
    return "".join(parts)


def flag_rules(rules: Rules) -> None:
    """The Karnaxis flags (:meth:`simulator.report.flags.Rules.flags`): a policy whose players
    reach the loan cap, or get delinquent notices, at least at the levels of
    :data:`~simulator.report.flags.THRESHOLDS`."""
    df = rules.res.get("karnaxis_loans")
    if df is None or "policy" not in df.columns:
        return
    for rate, kind, what in (
        ("cap_binding", "loan_cap_binding", "the loan cap binds for"),
        ("delinquent", "delinquency_rate", "delinquent payment notices hit"),
    ):
        limit = THRESHOLDS[kind]
        hit = sorted(
            (
                r
                for r in df.iter_rows(named=True)
                if r.get(rate) is not None and r[rate + "_lo"] >= limit
            ),
            key=lambda r: -r[rate + "_lo"],
        )
        if hit:
            names = "; ".join(
                f"{pct(r[rate])} of {r['policy']} players "
                f"({interval(r[rate + '_lo'], r[rate + '_hi'])}, n = {r['n']:,})"
                for r in hit
            )
            top = hit[0]
            rules.add(
                kind,
                "",
                past(top[rate], top[rate + "_lo"], limit),
                f"{what} {names}.",
                evidence(top, rate),
                "loans",
                "Loans",
                ["loans"],
                metric=f"{kind}:policy={top['policy']}",
                on_win_rate=False,
            )  # kinds named as the metrics
