"""``balsim ask scoring``: Ekonos's presidency edge, and the scoring change that removes it.

The subject is the president of the most valuable company, read before the outcome: in a
game with a single most valuable company at mid-game, its president's win minus the average
player's.  Read at the end it would mix the title's edge with the value of the shares that
make a president of the company that scores most (:mod:`simulator.games.ekonos.analysis`).  In
a field with a strong seat (:func:`~simulator.studies.recipes.common.counted`) the president
is measured in the games where the strong seat does not preside, against the average of the
other seats: the strong seat's presidencies would carry its skill.  The
players read the scoring they are given (docs/policies.md); in the adapted field each scoring
is played by knob sets re-tuned under it.  A scoring under which nobody holds shares any more
breaks the game: that is said first, not "not measurable".  The fact: how much of the
winners' score is held in shares.
"""

from __future__ import annotations

import polars as pl

from simulator.analysis import Dataset
from simulator.core.decisions import Decision
from simulator.core.game import Game
from simulator.experiments.keys import with_values
from simulator.games.ekonos.analysis import MID, companies, presidency_time
from simulator.report.page import pct
from simulator.run.plan import Variant
from simulator.studies.recipes.common import (
    PRINTED,
    Fact,
    Question,
    counted,
    keys_of,
    mean_ci,
    players,
    record,
    setting,
    variant_names,
)
from simulator.studies.recipes.words import interval_text

PRESIDENCY_POINTS = (-10, -20, -30, -40, -50)  # scoring.per_presidency tried
CASH_POINTS = (2, 3)  # scoring.per_mu tried
# scoring changes, the mildest first: a presidency costs points, or cash counts more
CHANGES = [("scoring.per_presidency", v) for v in PRESIDENCY_POINTS] + [
    ("scoring.per_mu", v) for v in CASH_POINTS
]
PRESIDENT = "the president"
FEW_SHARES = 0.01  # winners holding less of their score in shares than this: nobody invests


def variants(game: Game, rules: dict) -> list[Variant]:
    out = [Variant(PRINTED, rules, {"setting": "the printed scoring"})]
    for key, value in CHANGES:
        name = setting(key, value)
        out.append(Variant(name, with_values(rules, {key: value}), {"setting": name}))
    return out


def president_frame(ds: Dataset) -> pl.DataFrame:
    """Per game: ``president`` (in a game with a single most valuable company at mid-game, or
    at the end for a dataset without mid-game columns, its president's win minus the average
    counted player's; null otherwise, without a president or when the strong seat presides)
    and ``holdings`` (the winners' share of
    their score held in shares)."""
    at = presidency_time(ds.players)
    ids = companies(ds.games, "value" + at)
    values = [pl.col(f"company{c}_value{at}") for c in ids]
    top = (
        ds.games.with_columns(pl.col("variant").cast(pl.String))
        .with_columns(pl.max_horizontal(values).alias("top_value"))
        .with_columns(
            pl.sum_horizontal([(v == pl.col("top_value")).cast(pl.Int32) for v in values]).alias(
                "n_top"
            ),
            pl.coalesce(
                [pl.when(v == pl.col("top_value")).then(pl.lit(c)) for c, v in zip(ids, values)]
            ).alias("top_company"),
        )
        .filter(pl.col("n_top") == 1)
        .select("variant", "game_id", "top_company")
    )
    won = pl.col("won").cast(pl.Float64)
    presides = pl.lit(False)
    for c in ids:
        presides = presides | ((pl.col("top_company") == c) & pl.col(f"company{c}_president{at}"))
    keys = keys_of(ds)
    others = counted(ds)
    return (
        players(ds)
        .join(top, on=["variant", "game_id"], how="left")
        .group_by(keys)
        .agg(
            (won.filter(presides & others).mean() - won.filter(others).mean()).alias(PRESIDENT),
            (pl.col("holdings_value").cast(pl.Float64) / pl.col("score"))
            .filter(pl.col("won") & (pl.col("score") > 0))
            .mean()
            .alias("holdings"),
        )
        .sort(keys)
        .collect()
    )


def president_edges(ds: Dataset) -> pl.DataFrame:
    return president_frame(ds).drop("holdings")


def holdings(ds: Dataset, level: float) -> dict[str, tuple[float, float, float]]:
    frame = president_frame(ds)
    return {n: mean_ci(frame, "holdings", n, level, True) for n in variant_names(ds)}


def broken(ds: Dataset) -> dict[str, str]:
    """Scorings under which the winners hold (almost) nothing in shares: nobody invests."""
    held = holdings(ds, 0.95)
    return {
        n: f"nobody invests: winners hold {pct(h[0])} of their score in shares"
        for n, h in held.items()
        if n != PRINTED and h[0] < FEW_SHARES
    }


def facts(ds: Dataset, decision: Decision) -> list[Fact]:
    level = decision.printed.level
    when = "mid-game" if presidency_time(ds.players) == MID else "the end"
    held = holdings(ds, level)
    numbers: dict = {}
    printed = record(numbers, "winner_holdings:printed", held[PRINTED])
    return [
        Fact(
            f"The president is that of the single most valuable company at {when}. With the "
            f"printed scoring winners hold {pct(printed[0])} of their final score in shares "
            f"{interval_text(printed, level, pct)}.",
            numbers,
        )
    ]


QUESTION = Question(
    "scoring",
    "ekonos",
    4,
    24_000,
    "Ekonos: the presidency edge, and the scoring change that brings the president of the "
    "most valuable company within the margin of the fair share.",
    variants,
    president_edges,
    facts,
    lambda ds: variant_names(ds)[1:],
    "the president of the most valuable company",
    "the scoring",
    ("scoring", "shares", "companies"),
    broken,
)
