"""Each game's own sections: Karnaxis taxes, loans and ranks; Karmaggän blood coins, deaths
and spawns; Ekonos score split, company values and presidencies."""

from __future__ import annotations

import polars as pl

from simulator.analysis import Dataset
from simulator.report.charts import (
    box_chart,
    count_bars,
    diff_bars,
    lines_chart,
    most_title,
    rate_bars,
    share,
    stacked_bars,
)
from simulator.report.page import block


def bracket_axis(df: pl.DataFrame) -> list[str]:
    """Tax-bracket axis labels: income ranges when the table has them."""
    return [str(v) for v in df["income" if "income" in df.columns else "tax_bracket"].to_list()]


LOAN_RATES = {
    "cap_binding": "loan cap reached",
    "borrowed": "borrowed",
    "delinquent": "got a delinquent notice",
}
LOAN_VERBS = {"cap_binding": "reaches the cap", "borrowed": "borrows", "delinquent": "defaults"}


def peak_title(df: pl.DataFrame, label: str, value: str, text: str) -> str:
    """``text`` formatted with the label and the value of the row where ``value`` is largest."""
    r = df.sort(value, descending=True).row(0, named=True)
    return text.format(r[label], r[value])


def final_title(df: pl.DataFrame, group: str | None, value: str, time: str, text: str) -> str:
    """'<group> ends with...' for the group with the largest ``value`` at the last ``time``."""
    last = df.filter(pl.col(time) == df[time].max())
    r = last.sort(value, descending=True).row(0, named=True)
    return (f"{r[group]} " if group else "") + text.format(r[value])


def karnaxis_parts(pid: str, ds: Dataset, res: dict) -> str:
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
    df = res.get("karnaxis_dealt")
    if df is not None:
        fig = rate_bars(
            df,
            "character",
            "win_rate_dealt",
            "win rate when dealt (% of players)",
            title=most_title(df, "character", "win_rate_dealt", "wins", None) + " when dealt",
        )
        parts.append(
            block(
                f"{pid}-dealt",
                "Characters dealt and kept",
                fig,
                df,
                "Being dealt a character is chance alone, so the win rate when dealt is free "
                "of the policy's choice; kept when dealt: how often a player dealt the card "
                "keeps it.",
            )
        )
    return "".join(parts)


def karmaggan_parts(pid: str, ds: Dataset, res: dict) -> str:
    parts = ["<h3>Karmaggän: blood coins, deaths, spawns</h3>"]
    df = res.get("karmaggan_blood_coins")
    if df is not None:
        parts.append(block(f"{pid}-blood", "Blood coins at the start and the end", None, df))
    df = res.get("karmaggan_blood_by_round")
    if df is not None:
        group = next((g for g in ("side", "policy", "seat") if g in df.columns), None)
        chart = df.filter(pl.col("variant") == df["variant"][0]) if "variant" in df.columns else df
        if group:
            chart = chart.with_columns(pl.col(group).cast(pl.String))
        fig = lines_chart(
            chart,
            "round",
            "median",
            group,
            "round",
            "blood coins held (median, quartiles)",
            band=("q25", "q75"),
            title="Blood coins held each round" + (f", by {group}" if group else ""),
        )
        parts.append(block(f"{pid}-blood-round", "Blood coins per round", fig, df))
    df = res.get("karmaggan_deaths")
    if df is not None:
        label = next((g for g in ("side", "policy") if g in df.columns), None)
        fig = (
            rate_bars(
                df.with_columns(pl.col(label).cast(pl.String)),
                label,
                "death_rate",
                "% of players who die",
                title=most_title(
                    df.with_columns(pl.col(label).cast(pl.String)),
                    label,
                    "death_rate",
                    "dies",
                    None,
                ),
            )
            if label
            else None
        )
        parts.append(block(f"{pid}-deaths", "Deaths", fig, df))
    df = res.get("karmaggan_death_rounds")
    if df is not None:
        fig = count_bars(
            df["death_round"].to_list(),
            df["n"].to_list(),
            "round of death",
            "deaths",
            peak_title(df, "death_round", "n", "Most deaths come in round {}: {:,}"),
        )
        parts.append(block(f"{pid}-death-rounds", "When players die", fig, df))
    df = res.get("karmaggan_damage")
    if df is not None:
        fig = count_bars(
            df["source"].to_list(),
            df["mean_per_player"].to_list(),
            "source",
            "blood coins lost per player per game",
            peak_title(
                df, "source", "mean_per_player", "{} costs most: {:.2g} coins a player a game"
            ),
        )
        parts.append(block(f"{pid}-damage", "Damage by source", fig, df))
    df = res.get("karmaggan_spawn_turns")
    if df is not None:
        parts.append(block(f"{pid}-spawn", "Turns as spawn and holding the Egg", None, df))
    df = res.get("karmaggan_length_by_start_coins")
    if df is not None:
        fig = box_chart(
            df.with_columns(pl.col("start_blood_coins").cast(pl.String)),
            "start_blood_coins",
            f"game length ({ds.length_unit})",
            f"Games last a median of {df['p50'][0]:g} to {df['p50'][-1]:g} {ds.length_unit}",
        )
        parts.append(
            block(f"{pid}-length-coins", "Game length against starting blood coins", fig, df)
        )
    df = res.get("karmaggan_starting_team_edge")
    if df is not None:
        chart = df.with_columns(
            pl.format("{} players, {} coins", "n_players", "start_coins").alias("label"),
            (100 * pl.col("edge")).alias("mean_diff"),
            (100 * pl.col("edge_lo")).alias("diff_lo"),
            (100 * pl.col("edge_hi")).alias("diff_hi"),
        )
        top = chart.sort(pl.col("mean_diff").abs(), descending=True).row(0, named=True)
        fig = diff_bars(
            chart,
            "label",
            "starting team's win rate minus the other's (points)",
            f"The starting team's edge is largest at {top['label']}: "
            f"{top['mean_diff']:+.1f} points",
        )
        parts.append(
            block(
                f"{pid}-team-coins",
                "The starting team's edge against starting blood coins",
                fig,
                df,
                "The starting team is seat 0's (its label is drawn each game); its "
                "edge is the mean over games of its win minus the other team's, "
                "with a 95% interval over games.",
            )
        )
    return "".join(parts)


def ekonos_parts(pid: str, ds: Dataset, res: dict) -> str:
    parts = ["<h3>Ekonos: score components, companies, presidencies</h3>"]
    df = res.get("ekonos_score_split")
    if df is not None:
        fig = stacked_bars(
            df["policy"].to_list(),
            {"cash": df["mean_cash"].to_list(), "holdings": df["mean_holdings"].to_list()},
            "mean final score (M.U.)",
            "Final score from cash and from holdings, by policy",
        )
        parts.append(block(f"{pid}-split", "Score split: cash against holdings", fig, df))
    df = res.get("ekonos_company_values")
    if df is not None:
        fig = count_bars(
            df["name"].to_list(),
            df["mean"].to_list(),
            "company",
            "mean final value (market indicators)",
            peak_title(df, "name", "mean", "{} ends most valuable: {:.3g} on average"),
        )
        parts.append(
            block(
                f"{pid}-companies",
                "Company values at the end",
                fig,
                df,
                "Most valuable: share of games in which the company is (jointly) the most "
                "valuable.",
            )
        )
    df = res.get("ekonos_presidency")
    if df is not None:
        anchor = f"{pid}-presidency"  # the presidency flag links here
        fig = rate_bars(
            df,
            "player",
            "win_rate",
            "win rate (% of player-games)",
            df["fair_share"][0],
            most_title(
                df.with_columns(pl.col("player").str.replace_all("_", " ")),
                "player",
                "win_rate",
                "wins",
                df["fair_share"][0],
            ),
        )
        parts.append(
            block(
                anchor,
                "Presidency advantage: does the president of the most valuable company win?",
                fig,
                df,
                "top president: presides the single most valuable company; "
                "co-top president: presides one of several companies tied for most "
                "valuable (games tied for most valuable), counted apart rather than "
                "crediting the lowest-numbered company.",
            )
        )
    df = res.get("ekonos_presidency_within_policy")
    if df is not None:
        parts.append(
            block(
                f"{pid}-presidency-policy",
                "Presidency with the policy held fixed",
                None,
                df.drop("component"),
                "Strong policies become presidents more often. Win rate within policy: "
                "the win rate within each policy, averaged with the whole field's policy "
                "mix; expected: what players of the same policies win without it; over "
                "expected: as played minus expected; confounded: the two rates lie outside "
                "each other's interval.",
            )
        )
    df = res.get("ekonos_presidencies_held")
    if df is not None:
        fig = rate_bars(
            df.with_columns(pl.col("presidencies").cast(pl.String)),
            "presidencies",
            "win_rate",
            "win rate (% of player-games)",
            title=most_title(
                df.with_columns(pl.format("{} held", "presidencies")),
                "presidencies",
                "win_rate",
                "wins",
                None,
            ),
        )
        parts.append(block(f"{pid}-held", "Win rate by presidencies held at the end", fig, df))
    return "".join(parts)
