"""``balsim tune``: search a policy's knobs for the highest win rate against a field.

The tuned policy is a named knob set ``[policies.NAME_tuned]`` with ``base`` = the policy's
built-in behaviour.  It plays one seat against the field (Karmaggän in team mode: its whole
team against a team of the field, since a team wins or loses together); seat orders are the
runner's balanced ones.  CMA-ES (:mod:`simulator.experiments.optimise`) proposes a generation of
knob sets; every candidate of a generation plays the same games (common random numbers), each
generation new ones.  A candidate's worth is its win rate plus :data:`TIE_BREAK` times the
share of opponents it outscores, so knob sets that never win still show which way is better.  The
final knobs are then checked on held-out games: the tuned set and the original knobs in the same
seat on the same seeds, compared game by game.

Search ranges: ``[knob_ranges]`` in the rules (``knob = [low, high]``, integer bounds for an
integer or on/off knob); a knob not listed there is searched over ``value ± max(|value|, 1)``,
kept at or above 0 when its value is.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace

import numpy as np

from simulator.core.errors import UserError
from simulator.core.game import Game, knob_values
from simulator.core.rules import RulesError, toml_value
from simulator.experiments.lab import (
    HELD_OUT,
    Design,
    Lab,
    batch_ids,
    is_team_game,
    round_to,
    scripted_field,
)
from simulator.experiments.metrics import Estimate, Metric, Outcomes, parse_metric
from simulator.experiments.optimise import CmaSearch, Dimension, Generation, population_size

RANGES = "knob_ranges"
HELD_OUT_SHARE = 0.1  # of the budget, for each side of the held-out comparison
GENERATIONS = 12  # aimed for when choosing games per candidate
MIN_GAMES = 100  # per candidate and generation, and per side held out
TIE_BREAK = 0.1  # weight of the share of opponents outscored, beside the win rate


@dataclass
class TuneResult:
    policy: str  # the policy tuned
    name: str  # the knob set written
    base: str  # its built-in behaviour
    description: str
    lineup: tuple[str, ...]
    before: dict  # knob -> original value
    after: dict  # knob -> tuned value
    tuned: Estimate  # held-out win rates and their paired difference
    original: Estimate
    change: Estimate
    fair_share: float
    search_games: int
    games_per_candidate: int
    history: list[Generation] = field(default_factory=list)

    def summary(self) -> str:
        low, high = self.change.interval
        return (
            f"{self.name} wins {percent(self.tuned)} and {self.policy} {percent(self.original)} "
            f"in the same seat on the same {self.tuned.n:,} held-out games: "
            f"{100 * self.change.value:+.1f} points (95% CI {100 * low:+.1f} to "
            f"{100 * high:+.1f}); fair share {self.fair_share:.1%}"
        )

    def knob_lines(self) -> list[str]:
        return [
            f"  {knob:<20} {rounded(self.before[knob]):>12g} -> {rounded(value):>12g}"
            for knob, value in self.after.items()
        ]


def percent(e: Estimate) -> str:
    low, high = e.interval
    return f"{e.value:.1%} (95% CI {low:.1%}–{high:.1%})"


def knob_range(rules: dict, knob: str, value: float) -> tuple[float, float, bool]:
    """``(low, high, integer)`` of a knob's search range (see the module docstring)."""
    given = rules.get(RANGES, {}).get(knob)
    if given is not None:
        if (
            not isinstance(given, list)
            or len(given) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in given)
            or not given[0] < given[1]
        ):
            raise RulesError(f"{RANGES}.{knob}", "expected [low, high] with low < high")
        return float(given[0]), float(given[1]), all(isinstance(v, int) for v in given)
    spread = max(abs(value), 1.0)
    return (max(0.0, value - spread) if value >= 0 else value - spread), value + spread, False


def knob_space(game: Game, rules: dict, policy: str) -> list[Dimension]:
    """The numeric knobs the policy's base lists in ``[policies.BASE]``, with their ranges."""
    values = knob_values(rules, game.policy_set(rules), game.policy(policy, rules))
    space = []
    for knob, value in values.items():
        if isinstance(value, str):
            continue  # names a policy (e.g. a rollout policy), not a number to search
        low, high, integer = knob_range(rules, knob, float(value))
        space.append(Dimension(knob, low, high, float(value), integer))
    if not space:
        raise UserError(f"{game.name} policy '{policy}' has no numeric knobs to tune")
    return space


def with_knob_set(rules: dict, name: str, base: str, description: str, knobs: dict) -> dict:
    """``rules`` with the knob set ``[policies.NAME]`` (replacing one of that name)."""
    out = copy.copy(rules)
    out["policies"] = dict(rules.get("policies", {}))
    out["policies"][name] = {
        "base": base,
        "description": description,
        **{k: float(v) for k, v in knobs.items()},
    }
    return out


def line_up(rules: dict, name: str, field_names: list[str], n_players: int) -> tuple[str, ...]:
    """The tuned set at line-up position 0 (every even position in team mode: team = seat
    parity), the field cycled over the other positions."""
    team = is_team_game(rules)
    others = iter(field_names * n_players)
    return tuple(
        name if (pos % 2 == 0 if team else pos == 0) else next(others) for pos in range(n_players)
    )


def plan_budget(budget: int, n_dims: int, block: int, per_candidate: int | None):
    """``(generations, games per candidate, held-out games per side)`` within ``budget``;
    batches are whole ``block``s of seat orders."""
    population = population_size(n_dims)
    held_out = round_to(max(MIN_GAMES, int(budget * HELD_OUT_SHARE)), block)
    search = budget - 2 * held_out
    per_candidate = round_to(
        per_candidate or max(MIN_GAMES, search // (population * GENERATIONS)), block
    )
    generations = search // (population * per_candidate)
    if generations < 1:
        need = population * per_candidate + 2 * held_out
        raise UserError(
            f"--budget {budget:,} is too small to tune {n_dims} knobs: give at least {need:,} games"
        )
    return generations, per_candidate, held_out


@dataclass
class TuneJob:
    """One knob set's tuning: who plays, its CMA-ES search and the games each step plays.

    :func:`tune` runs one job; :func:`run_jobs` runs several in lockstep, every job's
    generation in one batch of games (``balsim adapt`` tunes every policy of every rules
    variant at once).  Generation ``g`` plays game ids ``offset + g * per_candidate`` on, the
    held-out check ``HELD_OUT + offset`` on, so jobs with other offsets play other games."""

    policy: str  # the policy tuned, as named
    name: str  # the knob set written
    base: str  # its built-in behaviour
    description: str
    design: Design
    rules: dict  # the rules the candidates are played under
    space: list[Dimension]
    search: CmaSearch
    objective: Metric
    tie_break: Metric
    generations: int
    per_candidate: int
    held_out: int
    offset: int = 0

    @property
    def before(self) -> dict:
        return {d.name: d.start for d in self.space}

    @property
    def after(self) -> dict:
        return {knob: rounded(value) for knob, value in self.search.mean.items()}

    def candidate(self, knobs: dict) -> dict:
        return with_knob_set(self.rules, self.name, self.base, self.description, knobs)

    def generation(self, g: int) -> tuple[Design, list[dict], np.ndarray]:
        """The batch of generation ``g``: its candidates' rules and their games."""
        ids = batch_ids(g, self.per_candidate, offset=self.offset)
        return self.design, [self.candidate(c) for c in self.search.ask()], ids

    def tell(self, outcomes: list[Outcomes]) -> None:
        self.search.tell(
            [
                -self.objective.estimate(o).value - TIE_BREAK * self.tie_break.estimate(o).value
                for o in outcomes
            ]
        )

    def held_out_group(self) -> tuple[Design, list[dict], np.ndarray]:
        """The tuned and the starting knobs in the same seat on the same held-out games."""
        ids = batch_ids(0, self.held_out, offset=HELD_OUT + self.offset)
        return self.design, [self.candidate(self.after), self.candidate(self.before)], ids

    def result(self, held_out: list[Outcomes]) -> TuneResult:
        tuned, untuned = (self.objective.estimate(o) for o in held_out)
        n_players = self.design.n_players
        return TuneResult(
            self.policy,
            self.name,
            self.base,
            self.description,
            self.design.lineup,
            self.before,
            self.after,
            tuned,
            untuned,
            tuned - untuned,
            0.5 if is_team_game(self.rules) else 1.0 / n_players,
            self.generations * self.search.optimiser.population_size * self.per_candidate,
            self.per_candidate,
            self.search.history,
        )


def tune_job(
    lab: Lab,
    rules: dict,
    policy: str,
    field_names: list[str],
    n_players: int,
    budget: int,
    seed: int,
    name: str,
    description: str,
    games_per_candidate: int | None = None,
    start: dict | None = None,
    sigma: float = 0.3,
    offset: int = 0,
) -> TuneJob:
    """A job tuning ``policy``'s knobs (from ``start``, default its own) into the knob set
    ``name``, one seat (its team) against ``field_names``, within ``budget`` games."""
    game = lab.game
    original = game.policy(policy, rules)
    base = game.policy_set(rules)[original.behaviour].name
    space = knob_space(game, rules, policy)
    if start:
        space = [replace(d, start=float(start.get(d.name, d.start))) for d in space]
    design = Design(game.name, line_up(rules, name, field_names, n_players), seed)
    generations, per_candidate, held_out = plan_budget(
        budget, len(space), design.block(rules), games_per_candidate
    )
    job = TuneJob(
        policy,
        name,
        base,
        description,
        design,
        rules,
        space,
        CmaSearch(space, seed, sigma=sigma),
        None,
        None,
        generations,
        per_candidate,
        held_out,
        offset,
    )
    starting = job.candidate(job.before)
    lab.check(design, starting)  # a bad knob or line-up is refused before any game
    # the metrics name one policy: the labels they need are the policy names, not games
    labels = {"policy": tuple(p.name for p in game.policy_set(starting))}
    job.objective = parse_metric(f"win_rate:policy={name}", labels, ())
    job.tie_break = parse_metric(f"outscore:policy={name}", labels, ())
    return job


def run_jobs(lab: Lab, jobs: list[TuneJob], checked: bool = False) -> list[TuneResult]:
    """Run the jobs in lockstep: each generation of every job, then every held-out check,
    as one batch of games.  ``checked``: every candidate is valid by construction (knob sets
    searched within their ``[knob_ranges]`` under rules checked once), so none is checked
    again."""
    for g in range(max((j.generations for j in jobs), default=0)):
        active = [j for j in jobs if g < j.generations]
        batch = lab.play_groups([j.generation(g) for j in active], checked=checked, extras=False)
        for job, outcomes in zip(active, batch):
            job.tell(outcomes)
    held_out = lab.play_groups([j.held_out_group() for j in jobs], checked=checked, extras=False)
    return [job.result(outcomes) for job, outcomes in zip(jobs, held_out)]


def tune(
    lab: Lab,
    rules: dict,
    policy: str,
    n_players: int,
    budget: int,
    seed: int = 1,
    field_names: list[str] | None = None,
    name: str | None = None,
    games_per_candidate: int | None = None,
) -> TuneResult:
    """Tune ``policy``'s knobs against ``field_names`` (default: the other scripted policies)
    with ``budget`` games in all (see :func:`plan_budget`), playing in ``lab``."""
    game = lab.game
    base = game.policy_set(rules)[game.policy(policy, rules).behaviour].name
    field_names = list(field_names or scripted_field(game, exclude=base))
    if not field_names:
        raise UserError("the field is empty: name its policies with --field")
    for other in field_names:
        game.policy(other, rules)
    name = name or f"{policy}_tuned"
    if name in {p.name for p in game.policies} or name in field_names:
        raise UserError(f"the tuned set needs a new name, not '{name}'")
    description = f"{policy} tuned against {', '.join(field_names)} ({n_players} players)"
    job = tune_job(
        lab,
        rules,
        policy,
        field_names,
        n_players,
        budget,
        seed,
        name,
        description,
        games_per_candidate,
    )
    (result,) = run_jobs(lab, [job])
    return result


def overlay(results: list[TuneResult], command: str) -> str:
    """A rules overlay holding each tuned knob set, its evidence in comments."""
    lines = [
        f"# Written by: {command}",
        "# Use with --rules FILE; seat a tuned set by its name, e.g. --seats NAME,...",
        "",
    ]
    for r in results:
        lines += [
            f"# {r.summary()}.",
            f"# Tuned on {r.search_games:,} games ({r.games_per_candidate:,} per candidate, "
            f"{len(r.history)} generations); line-up {', '.join(r.lineup)}.",
            f"[policies.{r.name}]",
            f"base = {toml_value(r.base)}",
            f"description = {toml_value(r.description)}",
        ]
        lines += [
            f"{knob} = {toml_value(rounded(value))}    # was {rounded(r.before[knob]):g}"
            for knob, value in r.after.items()
        ]
        lines.append("")
    return "\n".join(lines)


def rounded(value: float) -> float:
    """Four significant figures: knob values are not that precise."""
    return float(f"{float(value):.4g}")
