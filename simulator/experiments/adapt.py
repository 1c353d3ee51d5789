"""The adapted field: the tuned knob sets re-tuned under the rules being measured.

A rule change changes how good players play, so an answer about it is measured with players
who have adapted to it.  For a rules variant, every scripted policy starts from its tuned knob
set (``[policies.P_tuned]``, its own knobs where it has none) as the knob set ``P_adapted``;
then a few rounds of iterated best response: in each round every policy's knobs are re-tuned
by CMA-ES (:mod:`simulator.experiments.tune`'s jobs, a step of :data:`SIGMA` of each range
around the current knobs) against the others' knobs as they were at the round's start, every
candidate on the same games.  A policy takes its re-tuned knobs only when they win
significantly more than its current ones in the same seat on the same held-out games (the
paired 95% interval above zero): a gain within its noise is no gain.  A variant is done as
soon as a round moves no policy, or after ``Budget.rounds`` rounds.

An adaptation is one random draw, so each variant is adapted :data:`REPLICATES` times with
independent seeds (replicate r: :func:`replicate_seed`), and a dataset of an adapted field
plays game g with replicate g mod R (:mod:`simulator.run.replicates`): the spread between
replicates is there for an answer to count.

Every policy of every variant and replicate tunes at once, one batch of games per CMA-ES
generation (:func:`simulator.experiments.tune.run_jobs`), so two cores or a cluster stay busy;
which games a step plays depends only on the seed, the replicate, the round and the policy,
never on ``--jobs``.

Results are kept as data (:mod:`simulator.experiments.adapt_cache`): shipped in the package
for every variant the four questions and the default study play, else cached; asking again
costs nothing.  A variant adapted for the first time starts from the knobs of the nearest
adapted variant already kept (:func:`simulator.experiments.adapt_cache.nearest`), where one
rarely moves far: its first round then often moves nobody, which ends it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from simulator.core.errors import UserError
from simulator.core.game import Game, get_game, knob_values
from simulator.experiments.adapt_cache import (
    Adaptation,
    cache_key,
    cache_path,
    changed_values,
    flat,
    key_digest,
    lookup,
    nearest,
    shipped_records,
    usable_cache,
    write_entry,
    write_shipped,
)
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
from simulator.run.plan import with_knob_sets

ADAPTED_SUFFIX = "_adapted"
ADAPT_SEED = 1  # the adapted field is a property of the rules, not of a dataset's --seed
# Adaptations per variant: the fewest whose spread can be estimated at all with a spare
# (2 degrees of freedom), at three times one adaptation's cost; the variants an answer plays
# are shipped adapted, so a designer pays it only for rules of their own (docs/ladder.md)
REPLICATES = 3
REPLICATE_SEEDS = 1 << 20  # replicate r adapts with seed + r * this: no tuning shares games
SIGMA = 0.1  # CMA-ES's first step, in units of each knob's range: a tuned set is near a good one
ROUND_IDS = 1 << 32  # game ids of round r start at r * ROUND_IDS (held-out ones past HELD_OUT)


@dataclass(frozen=True)
class Budget:
    """Games one variant's adaptation may play (at most; it stops early once no policy moves)
    and its rounds of best responses."""

    games: int
    rounds: int = 3

    def per_tune(self, n_policies: int) -> int:
        return self.games // (self.rounds * n_policies)


def default_budget(game: str) -> Budget:
    """A variant's adaptation by default: the game's ``Game.adapt_games``, sized so that `balsim
    ask` adapts its 2-10 variants and plays every rung within about three minutes on two
    cores (at most about 25 s of CPU a variant; docs/ladder.md "Cost")."""
    return Budget(get_game(game).adapt_games)


def adapted_name(policy: str) -> str:
    return policy + ADAPTED_SUFFIX


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


def replicate_seed(seed: int, replicate: int) -> int:
    """The seed of one replicate's adaptation: replicate 0 adapts with ``seed`` itself."""
    return seed + replicate * REPLICATE_SEEDS


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


@dataclass(frozen=True)
class Request:
    """One adaptation to compute: the rules, the replicate, and the adaptation (of other
    rules) whose knobs it starts from, if any, with its distance."""

    rules: dict
    replicate: int = 0
    warm: tuple[Adaptation, float] | None = None


@dataclass
class Adapting:
    """One adaptation under way: its current knob sets and the rounds so far."""

    request: Request
    sets: dict
    start: dict
    rounds: list = field(default_factory=list)
    done: bool = False

    @classmethod
    def of(cls, game: Game, request: Request) -> Adapting:
        """From the tuned sets, or with the knobs of the adaptation it starts from."""
        sets, start = starting_sets(game, request.rules)
        if request.warm:
            began = request.warm[0].knob_sets
            sets = {name: {**table, **began[name]} for name, table in sets.items()}
        return cls(request, sets, start)

    def jobs(self, lab: Lab, n_players: int, budget: Budget, seed: int) -> list:
        """This round's tunings: every policy against the others' current knobs."""
        current = with_knob_sets(self.request.rules, self.sets)
        names, r = list(self.sets), len(self.rounds)
        seed = replicate_seed(seed, self.request.replicate)
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

    def result(self, key: dict, seconds: float, printed: dict) -> Adaptation:
        warm = self.request.warm
        return Adaptation(
            key,
            self.sets,
            self.start,
            self.rounds,
            sum(t["games"] for round_ in self.rounds for t in round_),
            round(seconds, 3),
            changed_values(printed, self.request.rules),
            {"rules_digest": warm[0].key["rules_digest"], "distance": round(warm[1], 6)}
            if warm
            else None,
        )


def adapt(
    lab: Lab,
    requests: list[Request],
    n_players: int,
    budget: Budget,
    seed: int = ADAPT_SEED,
) -> list[Adaptation]:
    """Compute each requested adaptation (no cache), all in lockstep: each round's tunings of
    every adaptation still moving play as one set of jobs."""
    game = lab.game
    started = time.perf_counter()
    states = [Adapting.of(game, request) for request in requests]
    for _ in range(budget.rounds):
        active = [s for s in states if not s.done]
        if not active:
            break
        jobs = [s.jobs(lab, n_players, budget, seed) for s in active]
        results = iter(run_jobs(lab, [job for group in jobs for job in group], checked=True))
        for s, group in zip(active, jobs):
            s.take([next(results) for _ in group])
    seconds = (time.perf_counter() - started) / max(len(states), 1)
    printed = game.default_rules()
    return [
        s.result(
            cache_key(game, s.request.rules, n_players, budget, seed, s.request.replicate),
            seconds,
            printed,
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
    replicates: int = REPLICATES,
    shipping: bool = False,
) -> list[list[Adaptation]]:
    """The ``replicates`` adaptations of each of ``rules_list``: shipped or cached where
    there is a right one, the others played (all at once, on ``jobs`` workers or the dask
    cluster at ``scheduler``), each from the nearest adaptation kept, and cached.
    ``shipping``: only shipped ones are reused and the others start from the tuned sets
    (what ``--ship`` writes depends on nothing but the rules), and nothing is cached."""
    budget = budget or default_budget(game.name)
    sources = ("shipped",) if shipping else ("shipped", "cache")
    printed_rules = game.default_rules()
    printed = flat(printed_rules)
    found, todo = [], {}  # todo: (rules digest, replicate) -> Request
    for rules in rules_list:
        sets, _ = starting_sets(game, rules)
        row = []
        for r in range(replicates):
            key = cache_key(game, rules, n_players, budget, seed, r)
            hit = lookup(game, key, sets, rules, sources)
            index = (key["rules_digest"], r)
            if hit is None and index not in todo:
                changed = changed_values(printed_rules, rules)
                warm = None if shipping else nearest(game, key, changed, printed, sets, rules)
                todo[index] = Request(rules, r, warm)
            row.append(hit or index)
        found.append(row)
    if todo:
        check_budget(game, next(iter(todo.values())).rules, n_players, budget)
        if not shipping:
            usable_cache(game)
        with Lab(game, jobs, progress, budget.games * len(todo), scheduler) as lab:
            for a in adapt(lab, list(todo.values()), n_players, budget, seed):
                if not shipping:
                    write_entry(cache_path(a.key), a)
                todo[(a.key["rules_digest"], a.replicate)] = a
    return [[todo[x] if isinstance(x, tuple) else x for x in row] for row in found]


def ship(
    game: Game,
    rules_by_players: dict[int, list[dict]],
    budget: Budget | None = None,
    jobs: int = 1,
    progress: bool = False,
    scheduler: str | None = None,
) -> list[Adaptation]:
    """Adapt every rules variant of ``rules_by_players`` (player count -> rules), each
    replicate, from the tuned sets, and write them as the package's shipped adaptations
    (those already shipped under the same key are kept, not played again; the file is
    written after each player count, so a stopped run keeps what it finished)."""
    out: dict[str, Adaptation] = {}
    for n_players, rules_list in sorted(rules_by_players.items()):
        found = adapted(
            game,
            rules_list,
            n_players,
            budget,
            ADAPT_SEED,
            jobs,
            progress,
            scheduler,
            shipping=True,
        )
        out.update({key_digest(a.key): a for row in found for a in row})
        kept = [r for digest, r in shipped_records(game).items() if digest not in out]
        write_shipped(game, [a.record() for a in out.values()] + kept)
    write_shipped(game, [a.record() for a in out.values()])  # only what is played
    return list(out.values())
