"""Ekonos's own report sections: score components, company values, presidencies."""

from __future__ import annotations

import polars as pl

from simulator.analysis import Dataset
from simulator.report.charts import (
    count_bars,
    most_title,
    peak_title,
    rate_bars,
    stacked_bars,
)
from simulator.report.flags import Rules, away, evidence, signed
from simulator.report.page import block, pct


def sections(pid: str, ds: Dataset, res: dict) -> str:
    """The Ekonos sections of dataset ``pid`` (:func:`simulator.report.sections.dataset_section`)
    from its ``ekonos_*`` analyses."""
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


def flag_rules(rules: Rules) -> None:
    """The Ekonos flag (:meth:`simulator.report.flags.Rules.flags`): the president of the single
    most valuable company at mid-game (before the outcome) wins far more than players of the
    same policies who do not preside it (strong policies become presidents more often)."""
    df, strat = (
        rules.res.get("ekonos_presidency"),
        rules.res.get("ekonos_presidency_within_policy"),
    )
    if df is None or strat is None:
        return
    raw = df.filter(pl.col("player") == "top_president")
    top = strat.filter(pl.col("level") == "top_president")
    if raw.is_empty() or top.is_empty():
        return
    r, a = raw.row(0, named=True), top.row(0, named=True)
    effect = away(a["excess"], a["excess_lo"], a["excess_hi"], 0.0)
    if not (a["excess"] > 0 and rules.beyond(effect, "presidency")):
        return
    ev = signed(a["excess"], a["excess_lo"], a["excess_hi"])
    when = r.get("measured_at", "end")
    rules.add(
        "presidency",
        "",
        effect,
        f"the president of the single most valuable company at {when} wins {evidence(r)} "
        f"of games against {pct(a['expected_rate'])} for players of the same policies "
        f"who do not preside it: {ev} ({pct(r['tied_games_share'])} of games have several "
        f"companies tied for most valuable and are counted apart).",
        ev,
        "presidency",
        "Presidency advantage",
        ["deck", "board", "companies"],
        within=("ekonos_presidency_within_policy", "top_president"),
    )
