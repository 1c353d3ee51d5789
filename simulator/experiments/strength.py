"""Strong players: the strong field, ``balsim skill`` and ``balsim challenge``.

*The strong field* of a game is its tuned knob sets (``[policies.NAME_tuned]`` in the rules,
one per scripted policy that has one, the scripted policy itself otherwise), with one seat of
``search`` when the game has a search player.  The study plays it beside the scripted field so
each balance flag can say whether it holds with strong players.

*Skill* (:func:`skill`): the win rate of ``search`` in one seat (Karmaggän: its team) against
a fixed field at growing rollout budgets, every budget on the same games.  The skill gap is
the win rate at the top budget minus the rate at the lowest, a paired difference on the same
games, and it ends in a verdict (:mod:`simulator.core.verdicts`): an effect (thinking ahead
pays, or misleads), no effect beyond the margin (the curve is flat: more thought buys
nothing, luck dominates or the search adds nothing), or inconclusive with the gap the games
could have seen.  The games are played in looks (an eighth of the budget, then doubling)
until the verdict is decided or the budget ends, each look's test at 5% / looks.
:func:`knob_curve` is the general form (any policy, any knob), over the policy interface only.

*Challenge* (:func:`challenge`): is a policy that wins too often dominant, or only facing a
weak field?  Every other scripted policy is tuned against a field of the incumbent, and
``search`` (when the game has it) plays against the same field.  If no challenger wins
significantly more than its fair share on held-out games, the incumbent is dominant — a real
balance problem; otherwise the finding was an artefact of the field.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simulator.core.errors import UserError
from simulator.core.game import Game
from simulator.core.verdicts import WIN_RATE_MARGIN, Verdict, alpha_per_look, judge, looks
from simulator.experiments.lab import (
    HELD_OUT,
    Design,
    Lab,
    batch_ids,
    is_team_game,
    round_to,
    scripted_field,
)
from simulator.experiments.metrics import Estimate, Outcomes
from simulator.experiments.tune import TuneResult, line_up, percent, tune

SEARCH = "search"
TUNED_SUFFIX = "_tuned"
SKILL_BUDGETS = (1, 4, 16, 64, 256)


def has_search(game: Game) -> bool:
    """Whether the game's engine has a ``search`` player."""
    return any(p.name == SEARCH for p in game.policies)


def require_search(game: Game) -> None:
    if not has_search(game):
        raise UserError(
            f"{game.name} has no '{SEARCH}' policy yet: skill measures a search "
            f"player's win rate by rollout budget"
        )


def strongest_copy(game: Game, rules: dict, policy: str) -> str:
    """``POLICY_tuned`` when the rules define that knob set, else ``policy`` itself."""
    tuned = policy + TUNED_SUFFIX
    return tuned if any(p.name == tuned for p in game.policy_set(rules)) else policy


def tuned_field(game: Game, rules: dict) -> list[str]:
    """The tuned copy of each scripted policy (the policy itself where it has none)."""
    return [strongest_copy(game, rules, p) for p in scripted_field(game)]


def strong_seats(game: Game, rules: dict, n_players: int, search: bool = True) -> list[str] | None:
    """The strong field's line-up at ``n_players``: ``search`` in one seat (its team in team
    mode) when the game has it and ``search`` is set, tuned copies in turn in the others.  None
    when it would hold neither (the strong field would be the scripted one)."""
    field = tuned_field(game, rules)
    searching = search and has_search(game)
    if not searching and field == scripted_field(game):
        return None
    if searching:
        return list(line_up(rules, SEARCH, field, n_players))
    return [field[i % len(field)] for i in range(n_players)]


def fair_share(rules: dict, n_players: int) -> float:
    return 0.5 if is_team_game(rules) else 1.0 / n_players


# ---- skill ---------------------------------------------------------------------------------


@dataclass
class Curve:
    """Win rates of one policy in one seat (team) at several values of one knob."""

    game: str
    policy: str
    knob: str
    lineup: tuple[str, ...]
    values: tuple
    rates: list[Estimate]  # one per value, every value on the same games
    fair_share: float
    verdict: Verdict  # on the gap (see the module docstring)
    budget: int = 0  # the most games a value could have played
    looks: int = 1  # looks played, of ``looks_planned``
    looks_planned: int = 1

    @property
    def gap(self) -> Estimate:
        """Win rate at the last value minus at the first, paired on the same games."""
        return self.rates[-1] - self.rates[0]

    def lines(self) -> list[str]:
        low, high = self.gap.interval
        rows = [
            f"  {self.knob} = {v:<8g} wins {percent(r)}" for v, r in zip(self.values, self.rates)
        ]
        return rows + [
            f"  gap {self.knob} {self.values[-1]:g} vs {self.values[0]:g}: "
            f"{100 * self.gap.value:+.1f} points (95% CI {100 * low:+.1f} to "
            f"{100 * high:+.1f}) on the same {self.gap.n:,} games; fair share "
            f"{self.fair_share:.1%}",
            f"  verdict: {self.verdict.describe(signed_points, 'skill gap')}; "
            f"{self.looks} of {self.looks_planned} looks, at most {self.budget:,} games",
        ]

    def record(self) -> dict:
        return {
            "game": self.game,
            "policy": self.policy,
            "knob": self.knob,
            "lineup": list(self.lineup),
            "fair_share": self.fair_share,
            "points": [{self.knob: v, **r.record()} for v, r in zip(self.values, self.rates)],
            "gap": self.gap.record(),
            "verdict": self.verdict.record(),
            "budget": self.budget,
            "looks": self.looks,
            "looks_planned": self.looks_planned,
        }


def signed_points(x: float) -> str:
    return f"{100 * x:+.1f} points".replace("-", "−")


def with_knob(rules: dict, policy: str, knob: str, value) -> dict:
    """``rules`` with ``[policies.POLICY] KNOB = value`` (the other tables shared)."""
    out = copy.copy(rules)
    out["policies"] = dict(rules.get("policies", {}))
    out["policies"][policy] = {**out["policies"].get(policy, {}), knob: value}
    return out


def knob_curve(
    lab: Lab,
    rules: dict,
    policy: str,
    knob: str,
    values: tuple,
    n_players: int,
    n_games: int,
    field_names: list[str],
    seed: int = 1,
    margin: float = WIN_RATE_MARGIN,
) -> Curve:
    """The win rate of ``policy`` (one seat, or its team) against ``field_names`` at each of
    ``values`` of its ``knob``, every value on the same games, in looks of up to ``n_games``
    (the budget, rounded up to whole rounds of seat orders) until the verdict on the gap
    within ``margin`` is decided."""
    game = lab.game
    game.policy(policy, rules)
    if not field_names:
        raise UserError("the field is empty: name its policies with --field")
    lineup = line_up(rules, policy, field_names, n_players)
    design = Design(game.name, lineup, seed)
    candidates = [with_knob(rules, policy, knob, v) for v in values]
    block = design.block(rules)
    budget = round_to(n_games, block)
    sizes = list(dict.fromkeys(round_to(n, block) for n in looks(max(1, budget // 8), budget)))
    alpha = alpha_per_look(len(sizes))
    metric = lab.probe(design, candidates[0]).metric(f"win_rate:policy={policy}")
    played: list[list[Outcomes]] = [[] for _ in candidates]
    start = 0
    for size in sizes:
        ids = np.arange(start, size, dtype=np.int64)
        for games, o in zip(played, lab.play(design, candidates, ids)):
            games.append(o)
        start = size
        rates = [metric.estimate(Outcomes.concat(games)) for games in played]
        gap = rates[-1] - rates[0]
        verdict = judge(gap.value, gap.se, margin, alpha=alpha)
        if verdict.decided:
            break
    return Curve(
        game.name,
        policy,
        knob,
        lineup,
        tuple(values),
        rates,
        fair_share(rules, n_players),
        verdict,
        budget,
        len(played[0]),
        len(sizes),
    )


def skill(
    lab: Lab,
    rules: dict,
    n_players: int,
    n_games: int,
    budgets=SKILL_BUDGETS,
    field_names: list[str] | None = None,
    seed: int = 1,
    margin: float = WIN_RATE_MARGIN,
) -> Curve:
    """The search player's win rate at each rollout budget against a fixed field (default:
    the tuned copies of the scripted policies), in looks of up to ``n_games`` a budget."""
    require_search(lab.game)
    field_names = field_names or tuned_field(lab.game, rules)
    return knob_curve(
        lab,
        rules,
        SEARCH,
        "rollouts",
        tuple(budgets),
        n_players,
        n_games,
        field_names,
        seed,
        margin,
    )


SKILL_TOOL = "skill"  # the "tool" of a skill folder's record


def write_curve(
    curve: Curve, out: Path, command: str, field: str | None = None, charts: Callable | None = None
) -> None:
    """A skill curve's record (``balsim.json``) and what ``charts(folder)`` draws from it (the
    report layer's ``skill.svg`` and ``skill.png``), written into a fresh folder and moved into
    place."""
    from simulator.run.outputs import OUT_MARK, finish_out_dir, new_out_dir

    tmp = new_out_dir(out)
    record = {"tool": SKILL_TOOL, "command": command, "field": field, **curve.record()}
    (tmp / OUT_MARK).write_text(json.dumps(record, indent=1))
    if charts is not None:
        charts(tmp)
    finish_out_dir(tmp, out)


def read_curve(out: Path) -> dict | None:
    """The record of a skill folder written by :func:`write_curve`, or None for any other."""
    from simulator.run.outputs import OUT_MARK

    try:
        record = json.loads((Path(out) / OUT_MARK).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if record.get("tool") == SKILL_TOOL else None


# ---- challenge -----------------------------------------------------------------------------


@dataclass
class Challenger:
    name: str  # the policy that played
    win: Estimate  # its held-out win rate against the incumbent's field
    tuned: TuneResult | None  # the tuning that produced it (None for search)

    def beats(self, fair: float) -> bool:
        """Significantly more than its fair share (Wilson 95% lower bound above it)."""
        return self.win.interval[0] > fair


@dataclass
class Challenge:
    game: str
    incumbent: str
    n_players: int
    fair_share: float
    challengers: list[Challenger]

    @property
    def winners(self) -> list[Challenger]:
        return [c for c in self.challengers if c.beats(self.fair_share)]

    @property
    def dominant(self) -> bool:
        return not self.winners

    def verdict(self) -> str:
        if self.dominant:
            return (
                f"{self.incumbent} is dominant: no challenger wins significantly more than "
                f"its fair share of {self.fair_share:.1%} against it — a real balance problem"
            )
        best = max(self.winners, key=lambda c: c.win.value)
        return (
            f"{self.incumbent} is beatable: {best.name} wins {percent(best.win)} against "
            f"it (fair share {self.fair_share:.1%}) — a flag that {self.incumbent} wins too "
            f"often is an artefact of the field"
        )

    def record(self) -> dict:
        """The challenge as plain numbers (for a ``balsim.json``)."""
        return {
            "game": self.game,
            "incumbent": self.incumbent,
            "n_players": self.n_players,
            "fair_share": self.fair_share,
            "dominant": self.dominant,
            "verdict": self.verdict(),
            "challengers": [
                {
                    "name": c.name,
                    "win": c.win.value,
                    "low": c.win.interval[0],
                    "high": c.win.interval[1],
                    "games": c.win.n,
                    "beats": c.beats(self.fair_share),
                }
                for c in self.challengers
            ],
        }

    def lines(self) -> list[str]:
        return [
            f"  {c.name:<28} {percent(c.win)}"
            + ("  beats its fair share" if c.beats(self.fair_share) else "")
            for c in self.challengers
        ]


def challenge(
    lab: Lab,
    rules: dict,
    incumbent: str,
    n_players: int,
    budget: int,
    search_games: int,
    seed: int = 1,
    start=None,
) -> Challenge:
    """Tune every other scripted policy against a field of ``incumbent`` (``budget`` games
    each, starting from ``start(policy)``: by default its tuned copy where the rules have
    one), and play ``search`` against the same field on ``search_games`` held-out games when
    the game has it."""
    game = lab.game
    own = game.policy_set(rules)[game.policy(incumbent, rules).behaviour].name
    rivals = scripted_field(game, exclude=own)
    if not rivals:
        raise UserError(f"{game.name} has no other scripted policy to challenge {incumbent}")
    challengers = []
    start = start or (lambda rival: strongest_copy(game, rules, rival))
    for rival in rivals:
        result = tune(
            lab, rules, start(rival), n_players, budget, seed, [incumbent], f"{rival}_challenger"
        )
        challengers.append(Challenger(result.name, result.tuned, result))
    if has_search(game):
        design = Design(game.name, line_up(rules, SEARCH, [incumbent], n_players), seed)
        n = round_to(search_games, design.block(rules))
        metric = lab.probe(design, rules).metric(f"win_rate:policy={SEARCH}")
        (out,) = lab.play(design, [rules], batch_ids(0, n, offset=HELD_OUT))
        challengers.append(Challenger(SEARCH, metric.estimate(out), None))
    return Challenge(game.name, incumbent, n_players, fair_share(rules, n_players), challengers)
