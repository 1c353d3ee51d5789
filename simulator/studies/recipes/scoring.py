"""``balsim ask scoring``: Ekonos cash against holdings, and the presidency edge by scoring.

The balance value is the presidency edge read before the outcome: in a game with a single
most valuable company at mid-game, its president's win minus the average player's.  Read at
the end it would mix the title's edge with the value of the shares that make a president of
the company that scores most (:mod:`simulator.analysis.ekonos`).  In the scripted and tuned
fields every scoring is played with the same knob sets: the policies weigh each option in the
points of the scoring they are given (docs/policies.md), with margins tuned for the printed
one; in the adapted field each scoring is played by knob sets re-tuned under it, so the
players also change how much they ask of a trade when a presidency costs points.
"""

from __future__ import annotations

import json
import math

import polars as pl

from simulator.analysis import Dataset
from simulator.analysis.ekonos import MID, companies, presidency_time
from simulator.core.game import Game
from simulator.experiments.keys import with_values
from simulator.report.page import pct
from simulator.run.runner import Variant
from simulator.studies.recipes.common import (
    ONE_LOOK,
    Answer,
    Sizing,
    ci,
    decide,
    decision_text,
    game_values,
    heading,
    levels,
    mean_ci,
    points,
    record,
    record_verdicts,
    variant_names,
    verdict_of,
)

PRESIDENCY_POINTS = (-10, -20, -30, -40, -50)  # scoring.per_presidency tried
CASH_POINTS = (2, 3)  # scoring.per_mu tried
CHANGES = {  # scoring changes, the mildest first: a presidency costs points, or cash counts more
    **{f"presidency_{v}": {"scoring.per_presidency": v} for v in PRESIDENCY_POINTS},
    **{f"cash_x{v}": {"scoring.per_mu": v} for v in CASH_POINTS},
}


def variants(game: Game, rules: dict) -> list[Variant]:
    out = [Variant("printed", rules, {"change": ""})]
    for name, values in CHANGES.items():
        text = "; ".join(f"{k}={json.dumps(v)}" for k, v in values.items())
        out.append(Variant(name, with_values(rules, values), {"change": text}))
    return out


def describe_change(name: str) -> str:
    return ", ".join(f"{k} = {json.dumps(v)}" for k, v in CHANGES[name].items())


def presidency_values(ds: Dataset) -> pl.DataFrame:
    """One row per (variant, game): ``president_edge`` (in a game with a single most valuable
    company at mid-game, or at the end for a dataset without mid-game columns, its
    president's win minus the average player's; null otherwise or without a president) and
    ``winner_holdings`` (the winners' share of their score in holdings)."""
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
    players = ds.players.with_columns(pl.col("variant").cast(pl.String))
    return (
        players.join(top, on=["variant", "game_id"], how="left")
        .group_by("variant", "game_id")
        .agg(
            (won.filter(presides).mean() - won.mean()).alias("president_edge"),
            (pl.col("holdings_value").cast(pl.Float64) / pl.col("score"))
            .filter(pl.col("won") & (pl.col("score") > 0))
            .mean()
            .alias("winner_holdings"),
        )
        .collect()
    )


def players_text(ds: Dataset) -> str:
    """Whether every scoring was played with the same knob sets or each with its own."""
    sets = [v["rules"].get("policies") for v in ds.variants]
    if all(s == sets[0] for s in sets):
        return "every scoring is played with the same knob sets (no player re-tuned under it)"
    return "each scoring is played with knob sets re-tuned under it (the players adapt)"


def answer(ds: Dataset, sizing: Sizing = ONE_LOOK) -> Answer:
    """Cash against holdings (the winners' share of score in holdings) and the presidency
    edge under each scoring; the decision: keep the printed scoring, or the mildest change
    shown balanced."""
    names = variant_names(ds)
    base = names[0]
    frame = game_values(ds).join(presidency_values(ds), on=["variant", "game_id"])
    verdicts = {n: verdict_of(frame, "president_edge", n, sizing) for n in names}
    decision = decide(verdicts, base, names[1:])
    numbers = {**decision.record()}
    record_verdicts(numbers, "president_edge", verdicts)
    holdings = record(numbers, "winner_holdings:printed", mean_ci(frame, "winner_holdings", base))
    when = "mid-game" if presidency_time(ds.players) == MID else "the end"

    def show(n: str) -> str:
        return "scoring" if n == base else f"scoring with {describe_change(n)}"

    def edge_text(n: str) -> str:
        if math.isfinite(verdicts[n].estimate):
            return f"{describe_change(n)} {points(verdicts[n].estimate)} ({verdicts[n].kind})"
        # the players read the scoring: a presidency that costs points may be one nobody takes
        held = record(numbers, f"winner_holdings:{n}", mean_ci(frame, "winner_holdings", n))
        return (
            f"{describe_change(n)} not measurable, no game has a president of its single most "
            f"valuable company at {when} (winners hold {pct(held[0])} of their score in shares)"
        )

    by_change = "; ".join(edge_text(n) for n in names[1:])
    what = f"the edge of the president at {when} of the single most valuable company"
    penalties = sorted(
        (n for n in names if "scoring.per_presidency" in CHANGES.get(n, {})),
        key=lambda n: -CHANGES[n]["scoring.per_presidency"],
    )
    sentence = (
        f"{heading(ds, 'Ekonos scoring', 'scoring')}; {players_text(ds)}: "
        f"{decision_text(decision, verdicts, base, show, what, [base, *penalties])}. That edge "
        f"by scoring change: "
        f"{by_change}. Winners hold {pct(holdings[0])} of their final score in shares "
        f"({ci(holdings)}) with the printed scoring, so holdings, not cash, win."
    )
    return Answer(
        sentence,
        numbers,
        levels(frame, ["president_edge", "winner_holdings"], names, {}),
        "president_edge",
        decision,
        verdicts,
        sizing,
        {n: show(n) for n in names},
    )
