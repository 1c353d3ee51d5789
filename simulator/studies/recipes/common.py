"""What every ``balsim ask`` question shares: the subjects' edges per game, the decision on
them, and the facts around it.

A question names its *subjects* (every policy of the line-up, the starting team, the president
of the most valuable company) and gives, per game, each subject's edge over its fair share
(:class:`Question`.edges: one column per subject, NaN where a game does not measure it), so
the game is the unit.  A field with a strong seat (a learned or search player, a team in team
mode: ``STRONG_SEAT``) wins more by its skill, not by the rules: it is never a subject, and
each subject's fair share is what it leaves to the others (:func:`counted`); the answer gives
its own win rate beside the players (:func:`strong_share`).  :func:`measure` turns the edges
into each value's (folding the replicates of an adapted field,
:func:`simulator.core.decisions.fold_replicates`) and the decision of
:func:`simulator.core.decisions.decide`.  Descriptive numbers (how often a loan
cap binds, where players sit in the tax table) are *facts*: a short sentence each, shown in
the details, with intervals at the answer's level.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
import polars as pl

from simulator.analysis import Dataset
from simulator.core.assumed import AssumedKey, assumed_keys, assumed_under, value_at
from simulator.core.decisions import Decision, Edge, decide, edge_of, replicate_edges
from simulator.core.game import Game
from simulator.core.rules import lookup
from simulator.core.stats import wilson
from simulator.core.verdicts import WIN_RATE_MARGIN, z
from simulator.experiments.field import STRONG_SEAT
from simulator.experiments.keys import with_values
from simulator.run.plan import Variant

PRINTED = "printed"  # the variant of the rules as printed: every question's first
REPLICATE = "replicate"  # the column of an adapted field's replicate (games and players)


@dataclass(frozen=True)
class Sizing:
    """How a question's tests are run: the equivalence ``margin`` (a fraction: 0.02 is two
    points) and the share of the error of the look being judged (``look_alpha``)."""

    margin: float = WIN_RATE_MARGIN
    look_alpha: float = 0.05


@dataclass(frozen=True)
class Fact:
    """One descriptive finding: its sentence and its numbers (fractions, not percent)."""

    text: str
    numbers: dict


@dataclass(frozen=True)
class Question:
    """One of the designer's questions.  ``edges(ds)``: per (variant, game[, replicate]) one
    column per subject; ``facts(ds, decision)``: descriptive findings with intervals at the
    decision's level; ``broken(ds)``: variant -> what it does to the game when it breaks it (a core
    action no longer taken); ``who``: its subjects, in words."""

    name: str
    game: str
    players: int
    games: int  # default budget of games per variant
    summary: str  # one line for --help
    variants: Callable[[Game, dict], list[Variant]]
    edges: Callable[[Dataset], pl.DataFrame]
    facts: Callable[[Dataset, Decision], list[Fact]]
    nearness: Callable[[Dataset], list[str]]  # the other variants, the nearest first
    who: str  # its subjects in a sentence: "every policy", "the starting team"
    what: str  # the rule asked about, e.g. "the loan cap"
    subjects: tuple[str, ...] = ()  # the rules it asks about: key prefixes ("loans")
    broken: Callable[[Dataset], dict[str, str]] = lambda ds: {}
    # what a better strategy could gain against the value decided on: each challenger's games
    # (re-tuned against the leading field) and the search player's held-out games
    challenge_games: int = 6_000
    search_games: int = 60

    def assumed(self, game: Game, rules: dict) -> tuple[list[tuple[AssumedKey, object]], int]:
        """The ASSUMED keys under the question's subjects with their values in ``rules``, and
        how many other ASSUMED keys the game has."""
        keys = assumed_keys(game.rules_path)
        found = assumed_under(keys, self.subjects)
        return [(k, value_at(rules, k.key)) for k in found], len(keys) - len(found)


# ---- variants -------------------------------------------------------------------------------


def setting(key: str, value) -> str:
    """A variant's name: the setting as a user types it (``loans.cap_usd=75000``)."""
    return f"{key}={json.dumps(value).replace(', ', ',')}"


def swept(key: str, values) -> Callable[[Game, dict], list[Variant]]:
    """Variants of one key: the printed rules first, then each other value by its setting."""

    def variants(game: Game, rules: dict) -> list[Variant]:
        printed = lookup(rules, key)
        out = [Variant(PRINTED, rules, {"setting": setting(key, printed)})]
        for v in values:
            if v != printed:
                name = setting(key, v)
                out.append(Variant(name, with_values(rules, {key: v}), {"setting": name}))
        return out

    return variants


def settings(ds: Dataset) -> dict[str, str]:
    """Each variant's setting as typed (the printed rules' included)."""
    return {v["name"]: v.get("values", {}).get("setting", v["name"]) for v in ds.variants}


def label(name: str, shown: dict[str, str]) -> str:
    """How a variant is named everywhere: its setting, the printed one marked."""
    text = shown.get(name, name)
    return f"{text} (printed)" if name == PRINTED and "printed" not in text else text


def numeric_nearness(ds: Dataset, key: str) -> list[str]:
    """The variants other than the printed one, the nearest value first (the lower on ties)."""
    values = {v["name"]: lookup(v["rules"], key) for v in ds.variants}
    return sorted(
        (n for n in values if n != PRINTED),
        key=lambda n: (abs(values[n] - values[PRINTED]), values[n]),
    )


def variant_names(ds: Dataset) -> list[str]:
    return [v["name"] for v in ds.variants]


# ---- per-game edges -------------------------------------------------------------------------


def keys_of(ds: Dataset) -> list[str]:
    """The columns a game's row is keyed by: variant, game and, in an adapted field, the
    replicate that played it."""
    return ["variant", "game_id"] + ([REPLICATE] if REPLICATE in ds.columns("players") else [])


def players(ds: Dataset) -> pl.LazyFrame:
    return ds.players.with_columns(pl.col("variant").cast(pl.String))


def strong_seat(ds: Dataset) -> str | None:
    """The policy of the field's strong seat (team), or None for a field without one."""
    name = STRONG_SEAT.get(ds.manifest.get("field"))
    return name if name in (ds.manifest.get("seats") or []) else None


def counted(ds: Dataset) -> pl.Expr:
    """True for the players' rows a balance question counts: every seat but the field's strong
    seat (team).  Its edge is its skill, so counting it would make every value unbalanced;
    among the others a subject's fair share is the average of the seats that are not strong,
    whatever the strong seat wins: ``won - mean(won of the others)`` per game."""
    strong = strong_seat(ds)
    return pl.lit(True) if strong is None else pl.col("policy").cast(pl.String) != strong


def strong_share(ds: Dataset) -> dict | None:
    """The strong seat's (team's) win rate with the printed rules, the game the unit, with its
    Wilson 95% interval and its fair share (its seats' share of the table); None without one."""
    strong = strong_seat(ds)
    if strong is None:
        return None
    own = pl.col("policy").cast(pl.String) == strong
    per_game = (
        players(ds)
        .filter(pl.col("variant") == PRINTED)
        .group_by(keys_of(ds))
        .agg(pl.col("won").filter(own).any().alias("won"), own.mean().alias("share"))
        .collect()
    )
    wins, games = int(per_game["won"].sum()), per_game.height
    low, high = wilson(wins, games)
    return {
        "policy": strong,
        "team": bool((ds.manifest.get("seating") or {}).get("teams")),
        "win_rate": wins / games if games else math.nan,
        "low": float(low),
        "high": float(high),
        "fair_share": float(per_game["share"].mean()),
        "games": games,
    }


def policy_edges(ds: Dataset) -> pl.DataFrame:
    """Per game, each counted policy's wins (the mean over its seats) minus the average
    counted seat's (:func:`counted`): one column per policy of the line-up but a strong seat."""
    keys = keys_of(ds)
    won = pl.col("won").cast(pl.Float64)
    by_policy = (
        players(ds)
        .filter(counted(ds))
        .with_columns((won - won.mean().over(keys)).alias("edge"))
        .group_by(*keys, "policy")
        .agg(pl.col("edge").mean())
        .collect()
    )
    return by_policy.pivot(on="policy", index=keys, values="edge").sort(keys)


def edges_of(frame: pl.DataFrame, ds: Dataset) -> dict[str, list[Edge]]:
    """Each variant's subjects' edges (the printed variant first), from per-game columns; an
    adapted field's replicates folded (module doc)."""
    names = variant_names(ds)
    subjects = [c for c in frame.columns if c not in ("variant", "game_id", REPLICATE)]
    out: dict[str, list[Edge]] = {n: [] for n in names}
    for s in subjects:
        values = [column(frame, s, n) for n in names]
        if REPLICATE in frame.columns:
            reps = [column(frame, REPLICATE, n) for n in names]
            found = replicate_edges(s, values, reps)
        else:
            found = [edge_of(s, x) for x in values]
        for n, e in zip(names, found):
            out[n].append(e)
    return out


def column(frame: pl.DataFrame, name: str, variant: str) -> np.ndarray:
    return frame.filter(pl.col("variant") == variant)[name].cast(pl.Float64).to_numpy()


def measure(
    question: Question, ds: Dataset, sizing: Sizing, broken: frozenset[str] = frozenset()
) -> Decision:
    """The question's decision on the dataset's games at one look (``broken``: the variants
    that break the game, never chosen)."""
    edges = edges_of(question.edges(ds), ds)
    return decide(edges, sizing.margin, sizing.look_alpha, question.nearness(ds), broken)


def breaks(question: Question, ds: Dataset) -> dict[str, str]:
    """Variant -> how it breaks the game: the question's own reasons, else the game's."""
    return {**game_breaks(ds), **question.broken(ds)}


# ---- descriptive facts ----------------------------------------------------------------------


def mean_ci(
    frame: pl.DataFrame, value: str, variant: str, level: float, share: bool = False
) -> tuple[float, float, float]:
    """(mean, low, high) of a per-game ``value`` in one variant at two-sided ``level``; with
    ``share`` (a value in [0, 1] by construction) cut to [0, 1], where the true mean lies."""
    x = column(frame, value, variant)
    x = x[np.isfinite(x)]
    mean = float(x.mean()) if len(x) else math.nan
    half = z(0.5 + level / 2) * float(x.std(ddof=1)) / math.sqrt(len(x)) if len(x) > 1 else math.nan
    if share:
        return mean, max(mean - half, 0.0), min(mean + half, 1.0)
    return mean, mean - half, mean + half


def per_game(ds: Dataset, aggs: list[pl.Expr]) -> pl.DataFrame:
    """Per (variant, game): the aggregates of its players' rows."""
    return players(ds).group_by("variant", "game_id").agg(aggs).collect()


def record(numbers: dict, name: str, triple: tuple[float, float, float]) -> tuple:
    numbers[name], numbers[f"{name}_low"], numbers[f"{name}_high"] = triple
    return triple


def field_text(ds: Dataset, strong: dict | None = None) -> str:
    """The players the answer was measured with, e.g. 'tuned field: a, b, c, d', and the
    strong seat's own wins (``strong``: :func:`strong_share`), which are not counted as
    imbalance."""
    seats = ", ".join(ds.manifest.get("seats") or [])
    name = ds.manifest.get("field")
    text = f"{name} field: {seats}" if name else f"seats: {seats}"
    if strong is None:
        return text
    who = f"the {strong['policy']} {'team' if strong['team'] else 'seat'}"
    return (
        f"{text}; {who}'s own wins ({100 * strong['win_rate']:.1f}% with the printed rules "
        f"against a fair share of {100 * strong['fair_share']:.0f}%, its skill) are not counted "
        "as imbalance"
    )


def game_breaks(ds: Dataset) -> dict[str, str]:
    """Variants that break the game whatever the question: most games without a winner, or
    games less than half or more than twice as long as with the printed rules."""
    games = (
        ds.games.with_columns(pl.col("variant").cast(pl.String))
        .group_by("variant")
        .agg(
            (pl.col("winner_seat") < 0).cast(pl.Float64).mean().alias("no_winner"),
            pl.col("length").cast(pl.Float64).mean().alias("length"),
        )
        .collect()
    )
    rows = {r["variant"]: r for r in games.iter_rows(named=True)}
    printed = rows.get(PRINTED)
    out = {}
    for name, r in rows.items():
        if r["no_winner"] > 0.5:
            out[name] = f"nobody wins {100 * r['no_winner']:.0f}% of its games"
        elif (
            printed
            and name != PRINTED
            and not (printed["length"] / 2 <= r["length"] <= 2 * printed["length"])
        ):
            out[name] = (
                f"games last {r['length']:.1f} {ds.length_unit} on average, against "
                f"{printed['length']:.1f} with the printed rules"
            )
    return out
