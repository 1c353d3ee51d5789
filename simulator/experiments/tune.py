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
from dataclasses import dataclass, field

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
from simulator.experiments.metrics import Estimate
from simulator.experiments.optimise import Dimension, Generation, cma_search, population_size

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
    original = game.policy(policy, rules)
    base = game.policy_set(rules)[original.behaviour].name
    field_names = list(field_names or scripted_field(game, exclude=base))
    if not field_names:
        raise UserError("the field is empty: name its policies with --field")
    for other in field_names:
        game.policy(other, rules)
    name = name or f"{policy}_tuned"
    if name in {p.name for p in game.policies} or name in field_names:
        raise UserError(f"the tuned set needs a new name, not '{name}'")
    space = knob_space(game, rules, policy)
    design = Design(game.name, line_up(rules, name, field_names, n_players), seed)
    generations, per_candidate, held_out = plan_budget(
        budget, len(space), design.block(rules), games_per_candidate
    )
    description = f"{policy} tuned against {', '.join(field_names)} ({n_players} players)"
    candidate = lambda knobs: with_knob_set(rules, name, base, description, knobs)  # noqa: E731
    before = {d.name: d.start for d in space}
    probe = lab.probe(design, candidate(before))
    objective = probe.metric(f"win_rate:policy={name}")
    tie_break = probe.metric(f"outscore:policy={name}")
    batches = iter(range(generations))

    def evaluate(candidates: list[dict]) -> list[float]:
        outcomes = lab.play(
            design, [candidate(c) for c in candidates], batch_ids(next(batches), per_candidate)
        )
        return [
            -objective.estimate(o).value - TIE_BREAK * tie_break.estimate(o).value for o in outcomes
        ]

    after, history = cma_search(space, evaluate, generations, seed)
    after = {knob: rounded(value) for knob, value in after.items()}  # as the overlay writes them
    tuned_out, original_out = lab.play(
        design, [candidate(after), candidate(before)], batch_ids(0, held_out, offset=HELD_OUT)
    )
    tuned, untuned = objective.estimate(tuned_out), objective.estimate(original_out)
    fair = 0.5 if is_team_game(rules) else 1.0 / n_players
    return TuneResult(
        policy,
        name,
        base,
        description,
        design.lineup,
        before,
        after,
        tuned,
        untuned,
        tuned - untuned,
        fair,
        generations * len(history[0].candidates) * per_candidate,
        per_candidate,
        history,
    )


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
