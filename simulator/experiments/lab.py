"""Play candidates on common game seeds: the shared core of ``tune``, ``fit`` and ``sensitivity``.

A *candidate* is a full set of rules (a rules variant, or the default rules plus a knob set).
:class:`Lab` plays every candidate of a batch on the same game ids, hence the same seeds and
seat orders (common random numbers), in worker processes, and returns each candidate's
:class:`~simulator.experiments.metrics.Outcomes`; the metrics module turns those into estimates.
Which games a batch plays depends only on its game ids, so results do not depend on ``--jobs``
or on the number of a cluster's workers.

Changing rules keys and the range a key may take are in :mod:`simulator.experiments.keys`;
writing the tools' output folders in :mod:`simulator.run.outputs`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulator.core.game import LEARNED_POLICY, SEARCH_POLICY, Game, get_game
from simulator.core.rng import game_seeds
from simulator.core.seating import Seating, team_mode
from simulator.experiments.metrics import GROUP_COLUMNS, Outcomes
from simulator.run.plan import Plan, Variant, seat_policy_ids
from simulator.run.warm import warm_up
from simulator.run.workers import Progress, Workers

HELD_OUT = 1 << 40  # game ids from here on are kept for final, held-out comparisons
# built-ins that are not a scripted field policy
NOT_SCRIPTED = ("random", SEARCH_POLICY, LEARNED_POLICY)
MAX_BLOCK = 24  # batches round up to whole rounds of at most this many seat orders


@dataclass(frozen=True)
class Design:
    """Who plays: the game, the line-up (policy of each seat before seating) and the seed."""

    game: str
    lineup: tuple[str, ...]
    seed: int = 1

    @property
    def n_players(self) -> int:
        return len(self.lineup)

    def block(self, rules: dict) -> int:
        """Games per whole round of seat orders: batches of this many games seat every policy
        equally often (the number of distinct orders, when small; else one per seat)."""
        orders = Seating.of(self.lineup, teams=team_mode([rules])).orders
        return len(orders) if orders is not None and len(orders) <= MAX_BLOCK else self.n_players


def seated_plan(design: Design, rules: dict) -> Plan:
    """A plan seating ``design.lineup`` the way ``balsim run`` does by default, so that
    :func:`simulator.run.plan.seat_policy_ids` gives every game's seat order."""
    return Plan(
        game=design.game,
        n_games=0,
        n_players=design.n_players,
        seats=list(design.lineup),
        seed=design.seed,
        chunk_size=1,
        variants=[Variant("candidate", rules)],
    )


def play_chunk(
    design: Design, rules: dict, params: tuple, game_ids: np.ndarray, extras: bool = True
) -> Outcomes:
    """Play one candidate's games ``game_ids`` (runs in a worker process); ``extras``: with
    the per-game values the flags' metrics read (:func:`flag_values`), which cost about half
    as much again as the games and which win rates and scores do not need."""
    game = get_game(design.game)
    seats = seat_policy_ids(game, seated_plan(design, rules), game_ids)
    raw = game.play(params, game_seeds(design.seed, game_ids), seats)
    return outcomes_from_raw(game, rules, raw, seats, extras)


def _play_task(key, design, rules, game_ids, measure=None, extras=True):
    """One task of a batch, in a worker: the candidate's engine arrays are built here, beside
    its games, so the command's process does not build them one by one while workers wait."""
    params = get_game(design.game).prepare(rules, design.n_players)
    outcomes = play_chunk(design, rules, params, game_ids, extras)
    return key, outcomes.n_games, outcomes if measure is None else measure(outcomes)


def outcomes_from_raw(
    game: Game, rules: dict, raw: dict, seats: np.ndarray, extras: bool = True
) -> Outcomes:
    """The columns the metrics read, from an engine's ``play`` output (``extras``: and the
    flags' values, read with the analysis's polars queries, imported only then)."""
    from simulator.experiments.flag_values import flag_values

    players, games = raw["players"], raw["games"]
    n, p = seats.shape
    groups = {
        "seat": (np.broadcast_to(np.arange(p), (n, p)), tuple(str(s) for s in range(p))),
        "policy": (seats.astype(np.int16), tuple(pol.name for pol in game.policy_set(rules))),
    }
    for name in GROUP_COLUMNS:
        if name in players:
            column = players[name]
            if isinstance(column, tuple):  # (codes, labels) from the rules
                groups[name] = (np.asarray(column[0]), tuple(str(x) for x in column[1]))
            else:
                groups[name] = (np.asarray(column), tuple(str(x) for x in range(p)))
    reasons = games["end_reason"]
    if isinstance(reasons, tuple):
        codes, labels = reasons
    else:
        codes, labels = reasons, game.categories.get("end_reason", ())
    won = np.asarray(players["won"], bool)
    return Outcomes(
        won=won,
        score=np.asarray(players["score"], np.float64),
        length=np.asarray(games["length"], np.float64),
        end_reason=np.asarray(codes, np.int16),
        end_reasons=tuple(labels),
        groups=groups,
        extra=flag_values(game, rules, raw, won) if extras else {},
    )


class Lab:
    """Plays batches of candidates on ``jobs`` worker processes, or on the workers of the dask
    cluster at ``scheduler``, with one progress bar for the whole experiment (``total``
    games).  Use as a context manager; workers are reused across batches."""

    def __init__(
        self,
        game: Game,
        jobs: int = 1,
        progress: bool = False,
        total: int = 0,
        scheduler: str | None = None,
    ):
        self.game = game
        self.workers = Workers(jobs, scheduler)
        self.bar = Progress(max(total, 1), progress)
        self.played = 0

    def __enter__(self):
        self.workers.__enter__()
        self.bar.__enter__()
        return self

    def __exit__(self, *exc):
        self.bar.__exit__(*exc)
        return self.workers.__exit__(*exc)

    def prepare(self, design: Design, rules: dict) -> tuple:
        """Validate a candidate's rules and build its engine arrays (RulesError on bad values)."""
        self.check(design, rules)
        return self.game.prepare(rules, design.n_players)

    def check(self, design: Design, rules: dict) -> None:
        """Refuse a candidate's rules (RulesError) or line-up before any game is played."""
        self.game.validate(rules)
        for name in design.lineup:
            self.game.policy(name, rules)

    def play(self, design: Design, candidates: list[dict], game_ids: np.ndarray) -> list[Outcomes]:
        """Every candidate's outcomes on the same games ``game_ids`` (int64[n])."""
        return self.play_groups([(design, candidates, game_ids)])[0]

    def play_groups(
        self,
        groups: list[tuple[Design, list[dict], np.ndarray]],
        measures: list | None = None,
        checked: bool = False,
        extras: bool = True,
    ) -> list[list]:
        """Several experiments' batches at once, one task list for the workers (so a
        cluster stays busy): for each ``(design, candidates, game_ids)``, every candidate's
        outcomes on that group's games.

        With ``measures`` (per group, None or a picklable function of one candidate's
        Outcomes), each candidate of a measured group plays in one task and the worker returns
        what the function makes of its outcomes instead: the costly part of reading them runs
        on the workers (a sensitivity screen's metrics).  ``checked``: the candidates are
        known valid (knob sets searched within their ranges under rules checked before), so
        they are not checked again here; ``extras``: whether the outcomes carry the flags'
        values (win rates and scores do not need them)."""
        measures = measures or [None] * len(groups)
        if not checked:
            for design, candidates, _ in groups:
                for rules in candidates:
                    self.check(design, rules)
        first = next(((design, cands[0]) for design, cands, _ in groups if cands), None)
        if first is not None:  # compiled here once, not by each worker (docs/cluster.md)
            design, rules = first
            warm_up(self.game, self.game.prepare(rules, design.n_players), design.n_players)
        n_candidates = sum(len(cands) for _, cands, _ in groups)
        tasks, starts, slots = [], [], self.workers.slots
        for g, (design, candidates, game_ids) in enumerate(groups):
            game_ids = np.asarray(game_ids, dtype=np.int64)
            size = (
                max(len(game_ids), 1)  # what measures reads needs all of a candidate's games
                if measures[g]
                else chunk_games(len(game_ids), n_candidates, slots, self.game.chunk_size)
            )
            starts.append(range(0, len(game_ids), size))
            tasks += [
                ((g, c, start), design, rules, game_ids[start : start + size], measures[g], extras)
                for c, rules in enumerate(candidates)
                for start in starts[g]
            ]
        parts: dict = {}
        for key, n_games, result in self.workers.map(_play_task, tasks):
            parts[key] = result
            self.played += n_games
            self.bar.advance(n_games)
        return [
            [
                parts[(g, c, 0)]
                if measures[g]
                else Outcomes.concat([parts[(g, c, start)] for start in starts[g]])
                for c in range(len(candidates))
            ]
            for g, (_, candidates, _) in enumerate(groups)
        ]

    def probe(self, design: Design, rules: dict) -> Outcomes:
        """A few games of ``rules`` in this process, to learn what groups and labels the games
        record before the real work starts.  Not counted as played."""
        ids = np.arange(HELD_OUT - 2 * design.n_players, HELD_OUT, dtype=np.int64)
        return play_chunk(design, rules, self.prepare(design, rules), ids)


def chunk_games(n_games: int, n_candidates: int, jobs: int, largest: int) -> int:
    """Games per task: about four tasks per worker (``jobs``: tasks that run at once) over the
    batch, so that the workers finish
    together even when one candidate's games cost far more than another's (a search seat at
    64 rollouts against one at 1), at most the game's chunk size."""
    per_task = -(-n_games * n_candidates // (4 * max(jobs, 1)))
    return int(max(1, min(n_games, largest, per_task)))


def round_to(n: int, multiple: int) -> int:
    """``n`` rounded up to a multiple: batches of whole rounds of seat orders."""
    return -(-n // multiple) * multiple


def batch_ids(batch: int, size: int, offset: int = 0) -> np.ndarray:
    """Game ids of batch ``batch`` of ``size`` games: consecutive blocks, never reused."""
    return np.arange(offset + batch * size, offset + (batch + 1) * size, dtype=np.int64)


def scripted_field(game: Game, exclude: str | None = None) -> list[str]:
    """The game's scripted built-in policies (not random, search or learned), except
    ``exclude``."""
    return [p.name for p in game.policies if p.name not in NOT_SCRIPTED and p.name != exclude]


def is_team_game(rules: dict) -> bool:
    return rules.get("game", {}).get("mode") == "team"
