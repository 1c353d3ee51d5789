"""``balsim ask blood-coins``: Karmaggän's starting blood coins — balanced between the teams,
and how long the games last.

The subject is the starting team (seat 0's; its team label is drawn each game, so the label
says nothing): its win rate minus its fair share of one half, per game (the starting team won
minus the other won) / 2, so the margin is in points of a win rate as in every question.  The
facts: game length with the fewest and the most coins, and the starting seat's own edge.
"""

from __future__ import annotations

import polars as pl

from simulator.analysis import Dataset
from simulator.core.decisions import Decision
from simulator.core.rules import lookup
from simulator.studies.recipes.common import (
    PRINTED,
    Fact,
    Question,
    keys_of,
    label,
    mean_ci,
    numeric_nearness,
    players,
    record,
    settings,
    swept,
)
from simulator.studies.recipes.words import interval_text, points

KEY = "setup.blood_coins_4_6"
BLOOD_COINS = (2, 3, 4, 5, 6, 7, 8)
STARTING = "the starting team"


def team_edges(ds: Dataset) -> pl.DataFrame:
    """Per game: the starting team's win over its fair share of one half.

    A field's strong team needs no leaving out here: the subject is a side, not a team of
    players, and balanced seating puts either team's group on the starting seats in exactly
    half of every block of seat orders (:mod:`simulator.core.seating`), so the strong team's
    skill adds as much to the starting side's wins as to the other's and cancels in the
    difference; it only widens the interval, which the games' spread already counts."""
    keys = keys_of(ds)
    won = pl.col("won").cast(pl.Float64)
    side = pl.col("side").cast(pl.String)
    return (
        players(ds)
        .group_by(keys)
        .agg(
            (
                (won.filter(side == "starting").mean() - won.filter(side == "other").mean()) / 2
            ).alias(STARTING)
        )
        .sort(keys)
        .collect()
    )


def facts(ds: Dataset, decision: Decision) -> list[Fact]:
    level = decision.printed.level
    coins = {v["name"]: lookup(v["rules"], KEY) for v in ds.variants}
    few, many = min(coins, key=coins.get), max(coins, key=coins.get)
    shown = settings(ds)
    frame = (
        ds.games.with_columns(pl.col("variant").cast(pl.String))
        .select("variant", "game_id", pl.col("length").cast(pl.Float64))
        .collect()
    )
    seat = (
        players(ds)
        .group_by("variant", "game_id")
        .agg(
            (
                pl.col("won").cast(pl.Float64).filter(pl.col("seat") == 0).mean()
                - pl.col("won").cast(pl.Float64).mean()
            ).alias("seat0")
        )
        .collect()
    )
    numbers: dict = {}
    a = record(numbers, "length:fewest", mean_ci(frame, "length", few, level))
    b = record(numbers, "length:most", mean_ci(frame, "length", many, level))
    s = record(numbers, "seat0_edge:printed", mean_ci(seat, "seat0", PRINTED, level))

    def rounds(t):
        return interval_text(t, level, lambda x: f"{x:.1f}")

    return [
        Fact(
            f"Games last {a[0]:.1f} {ds.length_unit} {rounds(a)} with {label(few, shown)} and "
            f"{b[0]:.1f} {rounds(b)} with {label(many, shown)}.",
            numbers,
        ),
        Fact(
            f"With the printed rules the starting seat itself wins {points(s[0])} over the "
            f"fair share {interval_text(s, level, points)}.",
            {},
        ),
    ]


QUESTION = Question(
    "blood-coins",
    "karmaggan",
    4,
    # three fields within about three minutes on two cores (docs/ladder.md)
    24_000,
    "Karmaggän: the starting blood coins that balance the two teams, and how long games last.",
    swept(KEY, BLOOD_COINS),
    team_edges,
    facts,
    lambda ds: numeric_nearness(ds, KEY),
    "the starting team",
    "the starting blood coins",
    ("setup", "game"),
    challenge_games=3_000,
    search_games=24,
)
