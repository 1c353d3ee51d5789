"""``balsim ask blood-coins``: Karmaggän team balance by starting blood coins.

The balance value is the starting team's edge, per game (the starting team won) minus (the
other won): with the printed count and each other count tried, on the same seeds.  The
starting team is seat 0's (its team label is drawn each game, so the label says nothing).
"""

from __future__ import annotations

import polars as pl

from simulator.analysis import Dataset
from simulator.report.page import pct
from simulator.studies.recipes.common import (
    ONE_LOOK,
    Answer,
    Sizing,
    ci,
    closest,
    decide,
    decision_text,
    game_values,
    heading,
    levels,
    mean_ci,
    points,
    points_ci,
    record,
    record_verdicts,
    swept,
    swept_values,
    variant_names,
    verdict_of,
)

KEY = "setup.blood_coins_4_6"
BLOOD_COINS = (2, 3, 4, 5, 6, 7, 8)
variants = swept(KEY, BLOOD_COINS, lambda v: f"coins_{v}")


def team_values(ds: Dataset) -> pl.DataFrame:
    """Per (variant, game): the game values, the starting and other teams' wins and the
    starting team's edge."""
    won = pl.col("won").cast(pl.Float64)
    players = ds.players.with_columns(
        pl.col("variant").cast(pl.String), pl.col("side").cast(pl.String)
    )
    teams = (
        players.group_by("variant", "game_id")
        .agg(
            won.filter(pl.col("side") == "starting").mean().alias("starting_team"),
            won.filter(pl.col("side") == "other").mean().alias("other_team"),
        )
        .with_columns((pl.col("starting_team") - pl.col("other_team")).alias("starting_team_edge"))
        .collect()
    )
    return game_values(ds).join(teams, on=["variant", "game_id"])


def answer(ds: Dataset, sizing: Sizing = ONE_LOOK) -> Answer:
    names = variant_names(ds)
    coins = swept_values(ds, KEY)
    base = names[0]
    frame = team_values(ds)
    verdicts = {n: verdict_of(frame, "starting_team_edge", n, sizing) for n in names}
    decision = decide(verdicts, base, closest(coins, base))
    numbers = {**decision.record()}
    record_verdicts(numbers, "starting_team_edge", verdicts)
    starting = record(numbers, "starting_team:printed", mean_ci(frame, "starting_team", base))
    other = record(numbers, "other_team:printed", mean_ci(frame, "other_team", base))
    edge = record(numbers, "seat0_edge:printed", mean_ci(frame, "seat0_edge", base))
    order = sorted(names, key=coins.get)
    few, many = order[0], order[-1]
    length_few = record(numbers, "length:fewest", mean_ci(frame, "length", few))
    length_many = record(numbers, "length:most", mean_ci(frame, "length", many))
    others = "; ".join(
        f"{coins[n]} coins {points(verdicts[n].estimate)} ({verdicts[n].kind})" for n in order
    )

    def show(n: str) -> str:
        return f"{coins[n]} coins"

    sentence = (
        f"{heading(ds, 'Karmaggän blood coins', 'count')}: "
        f"{decision_text(decision, verdicts, base, show, 'the starting team edge', order)}. "
        f"The starting team's (seat 0's) edge over the other by count: {others}. With the "
        f"printed {coins[base]} coins the starting team wins {pct(starting[0])} ({ci(starting)}) "
        f"against {pct(other[0])} ({ci(other)}), and the starting seat's edge over the fair "
        f"share is {points(edge[0])} ({points_ci(*edge[1:])}); games last {length_few[0]:.1f} "
        f"rounds (95% CI {length_few[1]:.1f}–{length_few[2]:.1f}) with {coins[few]} coins and "
        f"{length_many[0]:.1f} (95% CI {length_many[1]:.1f}–{length_many[2]:.1f}) with "
        f"{coins[many]}."
    )
    labels = {n: f"{coins[n]} coins" for n in names}
    table = levels(frame, ["starting_team_edge", "seat0_edge", "length"], order, labels)
    shown = {n: show(n) for n in names}
    return Answer(sentence, numbers, table, "starting_team_edge", decision, verdicts, sizing, shown)
