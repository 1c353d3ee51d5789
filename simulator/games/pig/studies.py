"""Pig's own ``balsim ask`` question (the ``studies`` hook): the points the second player
starts with that balance the first seat.

The subject is the first seat: per game, seat 0's win minus the mean seat's (its fair share of
one half), so the margin is in points of a win rate as in every question.  Its answer is known
exactly (:mod:`simulator.games.pig.exact`): with the printed rules and the default line-up
the first seat wins 6.9 points over its share, and a head start of 5 points brings it to -0.7.
"""

from __future__ import annotations

import polars as pl

from simulator.analysis import Dataset
from simulator.core.decisions import Decision
from simulator.studies.recipes.common import (
    PRINTED,
    Fact,
    Question,
    keys_of,
    mean_ci,
    numeric_nearness,
    players,
    record,
    swept,
)
from simulator.studies.recipes.words import interval_text

KEY = "setup.second_player_points"
HEAD_STARTS = (0, 3, 4, 5, 6)
FIRST_SEAT = "the first seat"


def first_seat_edges(ds: Dataset) -> pl.DataFrame:
    """Per game: seat 0's win over its fair share."""
    keys = keys_of(ds)
    won = pl.col("won").cast(pl.Float64)
    return (
        players(ds)
        .group_by(keys)
        .agg((won.filter(pl.col("seat") == 0).mean() - won.mean()).alias(FIRST_SEAT))
        .sort(keys)
        .collect()
    )


def facts(ds: Dataset, decision: Decision) -> list[Fact]:
    level = decision.printed.level
    frame = (
        ds.games.with_columns(pl.col("variant").cast(pl.String))
        .select("variant", "game_id", pl.col("length").cast(pl.Float64))
        .collect()
    )
    numbers: dict = {}
    length = record(numbers, "length:printed", mean_ci(frame, "length", PRINTED, level))
    turns = interval_text(length, level, lambda x: f"{x:.1f}")
    return [Fact(f"Games last {length[0]:.1f} {ds.length_unit} {turns} as printed.", numbers)]


QUESTION = Question(
    "head-start",
    "pig",
    2,
    # enough that a value whose exact edge is -0.71 points (a head start of 5) is shown within
    # the margin in about 19 runs of 20
    24_000,
    "Pig: the points the second player starts with that balance the first seat.",
    swept(KEY, HEAD_STARTS),
    first_seat_edges,
    facts,
    lambda ds: numeric_nearness(ds, KEY),
    FIRST_SEAT,
    "the second player's starting points",
    ("setup",),
    challenge_games=2_000,
    search_games=0,
)
QUESTIONS = (QUESTION,)
