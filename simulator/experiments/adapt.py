"""The adapted field: the tuned knob sets re-tuned under the rules being measured.

A rule change changes how good players play, so an answer about it is measured with players
who have adapted to it.  For a rules variant, every scripted policy starts from its tuned knob
set (``[policies.P_tuned]``, its own knobs where it has none) as the knob set ``P_adapted``;
then a few rounds of iterated best response: in each round every policy's knobs are re-tuned
by CMA-ES (:mod:`simulator.experiments.tune`'s jobs, a step of :data:`SIGMA` of each range
around the current knobs) against the others' knobs as they were at the round's start, every
candidate on the same games.  A policy takes its re-tuned knobs only when they win
significantly more than its current ones in the same seat on the same held-out games (the
paired 95% interval above zero): a gain within its noise is no gain.  A variant is done when a
round moves no policy, or after ``Budget.rounds`` rounds.

Every policy of every variant tunes at once, one batch of games per CMA-ES generation
(:func:`simulator.experiments.tune.run_jobs`), so two cores or a cluster stay busy; which
games a step plays depends only on the seed, the round and the policy, never on ``--jobs``.

Results are cached by game, engine version, a digest of the rules, player count, budget and
seed (:func:`cache_key`), in ``$BALSIM_CACHE_DIR/adapted`` (default ``~/.cache/balsim``, beside
the compiled engines), written atomically; asking again costs nothing.  The package ships the
adaptation of each game's printed rules at 4 players (``simulator/games/GAME/adapted-4p.json``,
written by ``balsim adapt GAME --ship``), used while its key matches.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from simulator.core.errors import UserError
from simulator.core.game import Game, knob_values
from simulator.experiments.lab import Design, Lab, round_to, scripted_field
from simulator.experiments.optimise import population_size
from simulator.experiments.strength import strongest_copy
from simulator.experiments.tune import (
    MIN_GAMES,
    line_up,
    rounded,
    run_jobs,
    tune_job,
)

ADAPTED_SUFFIX = "_adapted"
ALGORITHM = 1  # bump when the adaptation changes: cached knob sets are then played again
FORMAT = 1
ADAPT_SEED = 1  # the adapted field is a property of the rules, not of a dataset's --seed
SIGMA = 0.1  # CMA-ES's first step, in units of each knob's range: a tuned set is near a good one
ROUND_IDS = 1 << 32  # game ids of round r start at r * ROUND_IDS (held-out ones past HELD_OUT)
SHIPPED_PLAYERS = 4


@dataclass(frozen=True)
class Budget:
    """Games one variant's adaptation may play (at most; it stops early once no policy moves)
    and its rounds of best responses."""

    games: int
    rounds: int = 3

    def per_tune(self, n_policies: int) -> int:
        return self.games // (self.rounds * n_policies)


# Sized so that `balsim ask` adapts its 2-10 variants and plays every rung within about three
# minutes on two cores: one variant costs at most about 15 s of CPU (Ekonos: 195,000 games of a
# scoring variant in 14.4 s, one process), 17 s (Karnaxis: 117,000 games of a loan cap) and 25 s
# (Karmaggän, about 2,300 games/s); docs/ladder.md "Cost", measured 2026-12-01.
DEFAULT_BUDGET = {
    "ekonos": Budget(200_000),
    "karnaxis": Budget(120_000),
    "karmaggan": Budget(90_000),
}


def default_budget(game: str) -> Budget:
    return DEFAULT_BUDGET.get(game, Budget(40_000))


def adapted_name(policy: str) -> str:
    return policy + ADAPTED_SUFFIX


@dataclass
class Adaptation:
    """The adapted knob sets of one rules variant, how they were reached and what it cost."""

    key: dict  # what the result depends on (cache_key)
    knob_sets: dict  # P_adapted -> its [policies.P_adapted] table
    start: dict  # P_adapted -> the knobs it started from (the tuned set's)
    rounds: list = field(default_factory=list)  # per round: one record per policy tuned
    games: int = 0  # played by the adaptation
    seconds: float = 0.0  # its share of the wall-clock seconds of the run that played it
    source: str = "played"  # "played", "cache" or "shipped"

    @property
    def moved(self) -> dict:
        """P_adapted -> {knob: (start, adapted)} for the knobs that changed."""
        out = {}
        for name, table in self.knob_sets.items():
            changed = {
                k: (self.start[name][k], v)
                for k, v in table.items()
                if k not in ("base", "description") and v != self.start[name].get(k)
            }
            if changed:
                out[name] = changed
        return out

    def record(self) -> dict:
        out = asdict(self)
        out.pop("source")
        return {"format": FORMAT, **out}

    @classmethod
    def from_record(cls, record: dict, source: str) -> Adaptation:
        fields = {k: record[k] for k in ("key", "knob_sets", "start", "rounds", "games", "seconds")}
        return cls(**fields, source=source)

    def lines(self) -> list[str]:
        """How the knobs moved, one line per knob, and each round's gains."""
        out = []
        for r, round_ in enumerate(self.rounds, 1):
            gains = ", ".join(
                f"{t['policy']} {100 * t['gain']['value']:+.1f} "
                f"({100 * t['gain']['low']:+.1f} to {100 * t['gain']['high']:+.1f})"
                + (" taken" if t["accepted"] else "")
                for t in round_
            )
            out.append(f"  round {r}: win-rate gain in points (95% CI): {gains}")
        for name, knobs in self.moved.items():
            out += [f"  {name:<28} {k:<20} {a:>12g} -> {b:>12g}" for k, (a, b) in knobs.items()]
        if not self.moved:
            out.append("  no knob moved: no re-tuned set won significantly more than the tuned one")
        return out


def rules_digest(rules: dict) -> str:
    """A digest of the rules as data (every key, knob sets included)."""
    text = json.dumps(rules, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def cache_key(game: Game, rules: dict, n_players: int, budget: Budget, seed: int) -> dict:
    return {
        "game": game.name,
        "engine_version": game.engine_version,
        "rules_digest": rules_digest(rules),
        "n_players": n_players,
        "budget_games": budget.games,
        "rounds": budget.rounds,
        "seed": seed,
        "algorithm": ALGORITHM,
    }


def cache_dir() -> Path:
    """``$BALSIM_CACHE_DIR/adapted``, else ``adapted`` in the user's balsim cache folder."""
    root = os.environ.get("BALSIM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "balsim"
    )
    return Path(root) / "adapted"


def cache_path(key: dict) -> Path:
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]
    return cache_dir() / key["game"] / f"{key['n_players']}p-{digest}.json"


def shipped_path(game: Game, n_players: int = SHIPPED_PLAYERS) -> Path:
    return game.rules_path.parent / f"adapted-{n_players}p.json"


def read_entry(path: Path, key: dict, source: str) -> Adaptation | None:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if record.get("format") != FORMAT or record.get("key") != key:
        return None
    return Adaptation.from_record(record, source)


def write_entry(path: Path, adaptation: Adaptation) -> None:
    """Write an adaptation's record through a temporary file (never half-written, and two
    processes writing the same entry leave one whole)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
    try:
        tmp.write_text(json.dumps(adaptation.record(), indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def lookup(game: Game, key: dict) -> Adaptation | None:
    """The shipped or cached adaptation for ``key``, if any."""
    shipped = read_entry(shipped_path(game, key["n_players"]), key, "shipped")
    return shipped or read_entry(cache_path(key), key, "cache")


# ---- computing ----------------------------------------------------------------------------


def starting_sets(game: Game, rules: dict) -> tuple[dict, dict]:
    """(P_adapted -> its table, P_adapted -> its knobs): each scripted policy with knobs,
    starting from its tuned set's numbers (its own where it has none)."""
    policies = game.policy_set(rules)
    sets, starts = {}, {}
    for policy in scripted_field(game):
        start = strongest_copy(game, rules, policy)
        knobs = {
            k: float(v)
            for k, v in knob_values(rules, policies, game.policy(start, rules)).items()
            if not isinstance(v, str)
        }
        if not knobs:
            continue  # nothing to adapt
        name = adapted_name(policy)
        sets[name] = {
            "base": policy,
            "description": f"{start} re-tuned under these rules (iterated best response)",
            **knobs,
        }
        starts[name] = dict(knobs)
    return sets, starts


def with_knob_sets(rules: dict, sets: dict) -> dict:
    """``rules`` carrying the knob sets ``sets`` (NAME -> table), replacing any of their names."""
    out = copy.copy(rules)
    out["policies"] = {**rules.get("policies", {}), **copy.deepcopy(sets)}
    return out


def round_seed(seed: int, round_: int, policy: int) -> int:
    """The master seed of one policy's tuning in one round: its own games and CMA-ES stream,
    the same in every variant (common random numbers across variants)."""
    return (seed * 1_000_003 + round_ * 1_009 + policy) % (2**63)


def check_budget(game: Game, rules: dict, n_players: int, budget: Budget) -> None:
    """Refuse a budget too small to tune every policy in every round, before any game."""
    sets, _ = starting_sets(game, rules)
    current = with_knob_sets(rules, sets)
    need = 0  # games per tune: one generation and the held-out check, in whole seat rounds
    for name, table in sets.items():
        dims = sum(1 for k in table if k not in ("base", "description"))
        others = [n for n in sets if n != name]
        block = Design(game.name, line_up(current, name, others, n_players)).block(current)
        need = max(need, (population_size(dims) + 2) * round_to(MIN_GAMES, block))
    if budget.per_tune(len(sets)) < need:
        raise UserError(
            f"--adapt-budget {budget.games:,} is too small to adapt {len(sets)} {game.name} "
            f"policies over {budget.rounds} rounds: give at least "
            f"{need * budget.rounds * len(sets):,} games"
        )


@dataclass
class Adapting:
    """One variant's adaptation under way: its current knob sets and the rounds so far."""

    rules: dict
    sets: dict
    start: dict
    rounds: list = field(default_factory=list)
    done: bool = False

    def jobs(self, lab: Lab, n_players: int, budget: Budget, seed: int) -> list:
        """This round's tunings: every policy against the others' current knobs."""
        current = with_knob_sets(self.rules, self.sets)
        names, r = list(self.sets), len(self.rounds)
        return [
            tune_job(
                lab,
                current,
                name,
                [n for n in names if n != name],
                n_players,
                budget.per_tune(len(names)),
                round_seed(seed, r, i),
                name,
                self.sets[name]["description"],
                sigma=SIGMA,
                offset=r * ROUND_IDS,
            )
            for i, name in enumerate(names)
        ]

    def take(self, results: list) -> None:
        """Keep each re-tuned set that won significantly more on held-out games; done when
        none did."""
        round_, moved = [], {}
        for name, result in zip(list(self.sets), results):
            accepted = result.change.interval[0] > 0
            if accepted:
                moved[name] = {k: rounded(v) for k, v in result.after.items()}
            round_.append(
                {
                    "policy": name,
                    "gain": result.change.record(),
                    "adapted_win": result.tuned.record(),
                    "current_win": result.original.record(),
                    "accepted": accepted,
                    "games": result.search_games + 2 * result.tuned.n,
                }
            )
        for name, knobs in moved.items():
            self.sets[name] = {**self.sets[name], **knobs}
        self.rounds.append(round_)
        self.done = not moved


def adapt(
    lab: Lab, rules_list: list[dict], n_players: int, budget: Budget, seed: int = ADAPT_SEED
) -> list[Adaptation]:
    """Adapt the field to each of ``rules_list`` (no cache), every variant's rounds in lockstep:
    each round's tunings of every variant still moving play as one set of jobs."""
    game = lab.game
    started = time.perf_counter()
    states = [Adapting(rules, *starting_sets(game, rules)) for rules in rules_list]
    for _ in range(budget.rounds):
        active = [s for s in states if not s.done]
        if not active:
            break
        jobs = [s.jobs(lab, n_players, budget, seed) for s in active]
        results = iter(run_jobs(lab, [job for group in jobs for job in group]))
        for s, group in zip(active, jobs):
            s.take([next(results) for _ in group])
    seconds = (time.perf_counter() - started) / max(len(states), 1)
    return [
        Adaptation(
            cache_key(game, s.rules, n_players, budget, seed),
            s.sets,
            s.start,
            s.rounds,
            sum(t["games"] for round_ in s.rounds for t in round_),
            round(seconds, 3),
        )
        for s in states
    ]


def adapted(
    game: Game,
    rules_list: list[dict],
    n_players: int,
    budget: Budget | None = None,
    seed: int = ADAPT_SEED,
    jobs: int = 1,
    progress: bool = False,
    scheduler: str | None = None,
) -> list[Adaptation]:
    """The adaptation of each of ``rules_list``: shipped or cached where there is one, the
    others played (all at once, on ``jobs`` workers or the dask cluster at ``scheduler``)
    and cached."""
    budget = budget or default_budget(game.name)
    keys = [cache_key(game, rules, n_players, budget, seed) for rules in rules_list]
    found = [lookup(game, key) for key in keys]
    todo = {}  # distinct rules still to adapt, by digest
    for rules, key, hit in zip(rules_list, keys, found):
        if hit is None:
            todo.setdefault(key["rules_digest"], rules)
    if todo:
        check_budget(game, next(iter(todo.values())), n_players, budget)
        with Lab(game, jobs, progress, budget.games * len(todo), scheduler) as lab:
            for a in adapt(lab, list(todo.values()), n_players, budget, seed):
                write_entry(cache_path(a.key), a)
                todo[a.key["rules_digest"]] = a
    return [hit or todo[key["rules_digest"]] for hit, key in zip(found, keys)]


def ship(
    game: Game,
    budget: Budget | None = None,
    jobs: int = 1,
    progress: bool = False,
    scheduler: str | None = None,
):
    """Adapt the printed rules at :data:`SHIPPED_PLAYERS` players and write the package's file."""
    (a,) = adapted(
        game, [game.rules()], SHIPPED_PLAYERS, budget, ADAPT_SEED, jobs, progress, scheduler
    )
    write_entry(shipped_path(game), a)
    return a
