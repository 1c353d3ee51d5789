"""What every ``balsim ask`` question shares: per-game values, verdicts on them, the decision.

Every level is the mean over games of a per-game value (a win indicator, a gap between
teams, a share of players), so the game is the unit.  Every verdict is one of three
(:mod:`simulator.core.verdicts`): an effect, no effect beyond the margin (TOST), or
inconclusive with the effect the sample could have detected.  A question's answer is a
:class:`Decision` over the verdicts of its variants' values (:func:`decide`): keep the printed
value, change to another, none of those tried balances it, or inconclusive.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import polars as pl

from simulator.analysis import Dataset
from simulator.core.assumed import AssumedKey, assumed_keys, assumed_under, value_at
from simulator.core.game import Game
from simulator.core.rules import lookup
from simulator.core.stats import Z95
from simulator.core.verdicts import ALPHA, EFFECT, NO_EFFECT, WIN_RATE_MARGIN, Verdict, judge_mean
from simulator.experiments.keys import with_values
from simulator.report.page import interval
from simulator.run.runner import Variant

KEEP, CHANGE, NONE, INCONCLUSIVE = "keep", "change", "none", "inconclusive"


@dataclass(frozen=True)
class Sizing:
    """How a question's tests are run: the equivalence ``margin`` and each test's ``alpha``
    (the overall 5% shared by every look and every variant, Bonferroni)."""

    margin: float = WIN_RATE_MARGIN
    alpha: float = ALPHA


ONE_LOOK = Sizing()  # a single test at 5%: an answer read from one dataset


@dataclass(frozen=True)
class Decision:
    """What a question's verdicts decide: ``kind`` is KEEP (the printed value is balanced),
    CHANGE (it is not, and ``variant`` is), NONE (it is not, nor is any other tried) or
    INCONCLUSIVE; ``variant`` names the value kept or changed to."""

    kind: str
    variant: str | None = None

    @property
    def decided(self) -> bool:
        return self.kind != INCONCLUSIVE

    def record(self) -> dict:
        return {"decision": self.kind, "variant": self.variant}


@dataclass
class Answer:
    sentence: str
    numbers: dict  # every number of the sentence, by name (fractions, not percent)
    table: pl.DataFrame  # per variant: the levels the chart draws
    chart: str  # the column of ``table`` to draw against the variants
    decision: Decision = field(default_factory=lambda: Decision(INCONCLUSIVE))
    verdicts: dict[str, Verdict] = field(default_factory=dict)  # the deciding ones, by variant
    sizing: Sizing = field(default_factory=Sizing)
    shown: dict[str, str] = field(default_factory=dict)  # each variant's value in words


@dataclass(frozen=True)
class Recipe:
    name: str
    game: str
    players: int
    games: int  # default budget of games per variant
    summary: str  # one line for --help
    variants: Callable[[Game, dict], list[Variant]]
    answer: Callable[[Dataset, Sizing], Answer]
    subjects: tuple[str, ...] = ()  # the rules it asks about: key prefixes (``"loans"``)

    def assumed(self, game: Game, rules: dict) -> tuple[list[tuple[AssumedKey, object]], int]:
        """The ASSUMED keys under the question's subjects with their values in ``rules``, and
        how many other ASSUMED keys the game has."""
        keys = assumed_keys(game.rules_path)
        found = assumed_under(keys, self.subjects)
        return [(k, value_at(rules, k.key)) for k in found], len(keys) - len(found)


def decide(verdicts: dict[str, Verdict], printed: str, nearest: list[str]) -> Decision:
    """The decision over each variant's verdict on its balance value (see :class:`Decision`):
    ``nearest`` lists the other variants, the nearest to the printed rules first, and a change
    goes to the nearest one shown balanced."""
    base = verdicts[printed]
    if base.kind == NO_EFFECT:
        return Decision(KEEP, printed)
    if base.kind != EFFECT:
        return Decision(INCONCLUSIVE)
    balanced = [n for n in nearest if verdicts[n].kind == NO_EFFECT]
    if balanced:
        return Decision(CHANGE, balanced[0])
    if all(verdicts[n].kind == EFFECT for n in nearest):
        return Decision(NONE)
    return Decision(INCONCLUSIVE)


def closest(values: dict[str, float], printed: str) -> list[str]:
    """The variants other than ``printed``, the nearest value first (the lower on ties)."""
    return sorted(
        (n for n in values if n != printed),
        key=lambda n: (abs(values[n] - values[printed]), values[n]),
    )


def points(x: float) -> str:
    return f"{100 * x:+.1f} points".replace("-", "−")


def verdict_text(v: Verdict, what: str = "") -> str:
    return v.describe(points, what)


def smallest(verdicts: dict[str, Verdict]) -> str:
    """The variant whose estimate lies nearest zero."""
    return min(verdicts, key=lambda n: abs(verdicts[n].estimate))


# ---- per-game values and their intervals ------------------------------------------------------


def values_of(frame: pl.DataFrame, value: str, variant: str) -> np.ndarray:
    x = frame.filter((pl.col("variant") == variant) & pl.col(value).is_not_null())[value]
    return x.cast(pl.Float64).to_numpy()


def mean_ci(
    frame: pl.DataFrame, value: str, variant: str, share: bool = False
) -> tuple[float, float, float]:
    """(mean, low, high) of a per-game ``value`` in one variant: the normal 95% interval of a
    mean over independent games; with ``share`` (a value in [0, 1] by construction) the
    interval is cut to [0, 1], where the true mean lies (a rare event's would reach below 0)."""
    x = values_of(frame, value, variant)
    mean = float(x.mean()) if len(x) else float("nan")
    half = Z95 * float(x.std(ddof=1)) / np.sqrt(len(x)) if len(x) > 1 else float("nan")
    if share:
        return mean, max(mean - half, 0.0), min(mean + half, 1.0)
    return mean, mean - half, mean + half


def verdict_of(frame: pl.DataFrame, value: str, variant: str, sizing: Sizing) -> Verdict:
    """The verdict on a per-game ``value``'s mean in ``variant`` against zero."""
    return judge_mean(values_of(frame, value, variant), sizing.margin, alpha=sizing.alpha)


def change_verdict(
    frame: pl.DataFrame, value: str, base: str, variant: str, sizing: Sizing
) -> Verdict:
    """The verdict on the change of a per-game ``value`` from ``base`` to ``variant``, paired
    game by game."""
    pairs = (
        frame.filter(pl.col("variant") == base)
        .select("game_id", pl.col(value).alias("a"))
        .join(
            frame.filter(pl.col("variant") == variant).select("game_id", pl.col(value).alias("b")),
            on="game_id",
        )
        .drop_nulls()
    )
    d = (pairs["b"].cast(pl.Float64) - pairs["a"].cast(pl.Float64)).to_numpy()
    return judge_mean(d, sizing.margin, alpha=sizing.alpha)


def game_values(ds: Dataset, leader: str | None = None) -> pl.DataFrame:
    """One row per (variant, game): ``fair`` (the average seat's wins), ``seat0_edge`` (the
    starting seat's win minus fair), ``leader_edge`` (the ``leader`` policy's seats' wins minus
    fair) and ``length``."""
    won = pl.col("won").cast(pl.Float64)
    aggs = [
        won.mean().alias("fair"),
        (won.filter(pl.col("seat") == 0).mean() - won.mean()).alias("seat0_edge"),
    ]
    if leader:
        aggs.append(
            (won.filter(pl.col("policy") == leader).mean() - won.mean()).alias("leader_edge")
        )
    players = ds.players.with_columns(pl.col("variant").cast(pl.String))
    games = ds.games.select(
        pl.col("variant").cast(pl.String), "game_id", pl.col("length").cast(pl.Float64)
    )
    return (
        players.group_by("variant", "game_id")
        .agg(aggs)
        .join(games, on=["variant", "game_id"])
        .sort("variant", "game_id")
        .collect()
    )


def leading_policy(ds: Dataset, variant: str) -> str:
    """The policy with the highest win rate in ``variant``."""
    return (
        ds.players.filter(pl.col("variant").cast(pl.String) == variant)
        .group_by("policy")
        .agg(pl.col("won").cast(pl.Float64).mean().alias("rate"))
        .sort("rate", "policy", descending=[True, False])
        .collect()["policy"][0]
    )


def levels(
    frame: pl.DataFrame, values: list[str], variants: list[str], labels: dict
) -> pl.DataFrame:
    """The report's table: per variant, each value's mean and 95% interval."""
    rows = []
    for v in variants:
        row = {"variant": labels.get(v, v)}
        for value in values:
            row[value], row[f"{value}_lo"], row[f"{value}_hi"] = mean_ci(frame, value, v)
        rows.append(row)
    return pl.DataFrame(rows)


def points_ci(lo: float, hi: float) -> str:
    return f"95% CI {100 * lo:+.1f} to {100 * hi:+.1f}".replace("-", "−")


def ci(triple: tuple[float, float, float]) -> str:
    """The interval of a (mean, low, high) rate."""
    return interval(*triple[1:])


def record(
    numbers: dict, name: str, triple: tuple[float, float, float]
) -> tuple[float, float, float]:
    numbers[name], numbers[f"{name}_lo"], numbers[f"{name}_hi"] = triple
    return triple


def record_verdicts(numbers: dict, name: str, verdicts: dict[str, Verdict]) -> None:
    for variant, v in verdicts.items():
        numbers[f"{name}:{variant}"] = v.record()


def variant_names(ds: Dataset) -> list[str]:
    return [v["name"] for v in ds.variants]


def games_per_variant(ds: Dataset) -> int:
    return ds.n_games // max(len(ds.variants), 1)


def field_text(ds: Dataset) -> str:
    """The players the answer was measured with, e.g. 'scripted field: a, b, c, d'."""
    seats = ", ".join(ds.manifest.get("seats") or [])
    name = ds.manifest.get("field")
    return f"{name} field: {seats}" if name else f"seats: {seats}"


def heading(ds: Dataset, title: str, per: str) -> str:
    """'TITLE (4 players, 1,000 games per PER on the same seeds, scripted field: ...)'."""
    return (
        f"{title} ({ds.n_players} players, {games_per_variant(ds):,} games per {per} on the "
        f"same seeds, {field_text(ds)})"
    )


def swept(key: str, values, label: Callable) -> Callable[[Game, dict], list[Variant]]:
    """Variants of one key: the printed value first (named 'printed'), then the others."""
    column = key.rsplit(".", 1)[-1]

    def variants(game: Game, rules: dict) -> list[Variant]:
        printed = lookup(rules, key)
        out = [Variant("printed", rules, {column: printed})]
        for v in values:
            if v != printed:
                out.append(Variant(label(v), with_values(rules, {key: v}), {column: v}))
        return out

    return variants


def swept_values(ds: Dataset, key: str) -> dict[str, float]:
    """Each variant's value of ``key``, from the rules the dataset recorded."""
    return {v["name"]: lookup(v["rules"], key) for v in ds.variants}


def crossing(verdicts: dict[str, Verdict], order: list[str], show: Callable[[str], str]) -> str:
    """'; it changes sign between A (x) and B (y), so the balancing value lies between them'
    for the first two neighbours of ``order`` (variants by value) whose verdicts are effects of
    opposite signs; '' if none are."""
    for a, b in zip(order, order[1:]):
        va, vb = verdicts[a], verdicts[b]
        if va.kind == vb.kind == EFFECT and va.estimate * vb.estimate < 0:
            return (
                f"; it changes sign between {show(a)} ({points(va.estimate)}) and {show(b)} "
                f"({points(vb.estimate)}), so the balancing value lies between them"
            )
    return ""


def decision_text(
    decision: Decision,
    verdicts: dict[str, Verdict],
    printed: str,
    show: Callable[[str], str],
    what: str,
    order: list[str] | None = None,
) -> str:
    """The decision in words, each claim with its verdict: ``show`` names a variant's value
    ("4 coins"), ``what`` the balance value ("the starting team's edge"); ``order`` lists the
    variants by value, for where the balance lies when none tried is balanced."""
    base = verdict_text(verdicts[printed], what)
    if decision.kind == KEEP:
        return f"keep the printed {show(printed)}: it is balanced, {base}"
    if decision.kind == CHANGE:
        return (
            f"change to {show(decision.variant)}, which is balanced: "
            f"{verdict_text(verdicts[decision.variant], what)}; with the printed "
            f"{show(printed)}, {base}"
        )
    best = smallest(verdicts)
    if decision.kind == NONE:
        return (
            f"no value tried is balanced: with the printed {show(printed)}, {base}; "
            f"the nearest to balance, {show(best)}, still has "
            f"{verdict_text(verdicts[best], what)}{crossing(verdicts, order or [], show)}"
        )
    text = f"no decision: with the printed {show(printed)}, {base}"
    if best != printed:
        text += f"; nearest to balance, {show(best)}: {verdict_text(verdicts[best], what)}"
    return text


def budget_text(played: int, budget: int, decided: bool) -> str:
    if decided:
        return f"decided after {played:,} of at most {budget:,} games per variant"
    return f"undecided when the budget of {budget:,} games per variant ran out"
