"""Karmaggän's own report sections: blood coins, deaths, damage, spawns, and length and the
starting team's edge by starting blood coins."""

from __future__ import annotations

import polars as pl

from simulator.analysis import Dataset
from simulator.report.charts import (
    box_chart,
    count_bars,
    diff_bars,
    lines_chart,
    most_title,
    peak_title,
    rate_bars,
)
from simulator.report.page import block


def sections(pid: str, ds: Dataset, res: dict) -> str:
    """The Karmaggän sections of dataset ``pid`` (:func:`simulator.report.sections.dataset_section`)
    from its ``karmaggan_*`` analyses."""
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
