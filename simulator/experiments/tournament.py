"""Games between the ladder's rungs (``balsim skill``, :mod:`simulator.experiments.skill`):
which rungs, their line-ups in balanced seatings, and each rung's place in each game.

A rung is one rated agent: ``random``, a field of the ladder (its seats play the field's
policies in turn), the search player at one budget (a knob set ``search_B``) or a policy by
name.  :data:`RATED` lists the rungs rated by default; a rung the
:class:`~simulator.experiments.field.Ladder` resolves (a learned player) joins by adding its
name there.  Line-ups: free-for-all, a cyclic design of ``p`` rungs at a table; team games,
every pair of rungs, one team each (see :func:`lineups`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulator.core.errors import UserError
from simulator.core.game import SEARCH_POLICY, Game, knob_values
from simulator.core.rng import game_seeds
from simulator.experiments.lab import Design, seated_plan
from simulator.experiments.metrics import Outcomes
from simulator.experiments.strength import has_search
from simulator.run.plan import plan_seating

RANDOM = "random"
SEARCH_RUNGS = "search"  # in a list of rungs: the search player at each budget
RATED = (RANDOM, "scripted", "tuned", "adapted", SEARCH_RUNGS)  # what `skill` rates by default
GROUP_IDS = 1 << 32  # line-up j plays game ids from j * GROUP_IDS


@dataclass(frozen=True)
class Rung:
    """One rated agent: its name and the policies its seats play in turn."""

    name: str
    policies: tuple[str, ...]
    rollouts: int = 0  # a search rung's budget


def search_name(budget: int) -> str:
    return f"{SEARCH_POLICY}_{budget}"


def default_budgets(game: Game, rules: dict) -> tuple[int, ...]:
    """Half, once and twice the search's own rollouts (``[policies.search]``)."""
    policies = game.policy_set(rules)
    rollouts = int(knob_values(rules, policies, game.policy(SEARCH_POLICY, rules))["rollouts"])
    return tuple(sorted({max(1, rollouts // 2), rollouts, 2 * rollouts}))


def ladder_rules(ladder, rules: dict, names, budgets: tuple[int, ...]) -> dict:
    """``rules`` carrying every knob set the rungs ``names`` play: the adapted sets (and the
    search's rollout policy adapted) when an adapted or search rung is rated, and one
    ``search_B`` set per budget."""
    from simulator.experiments.field import ADAPTED, SEARCH, Field

    searching = has_search(ladder.game) and budgets and SEARCH_RUNGS in names
    if searching or ADAPTED in names:
        rules = ladder.players(rules, Field(SEARCH if searching else ADAPTED)).rules
    out = rules
    if searching:
        sets = {
            search_name(b): {
                "base": SEARCH_POLICY,
                "description": f"the search player at {b} rollouts a decision",
                "rollouts": b,
            }
            for b in budgets
        }
        out = {**out, "policies": {**out["policies"], **sets}}
    return out


def check_rungs(game: Game, rules: dict, names) -> None:
    """Every name is a rung or a policy of ``rules`` (a one-line error naming both), before
    any adaptation or game."""
    from simulator.experiments.field import RUNGS, Field, check_policies

    for name in names:
        if name not in (RANDOM, SEARCH_RUNGS, *RUNGS):
            check_policies(game, rules, Field(None, (name,)))
    if len(names) < 2 or len(set(names)) < len(names):
        raise UserError("--rungs needs at least two different rungs or policies")


def resolve_rungs(ladder, rules: dict, names, budgets: tuple[int, ...]) -> list[Rung]:
    """The rungs ``names`` under ``rules`` (from :func:`ladder_rules`), in the order listed:
    ``search`` is one rung per budget, any other name that is not a rung a policy (one agent
    playing it)."""
    from simulator.experiments.field import RUNGS, Field

    out = []
    for name in names:
        if name == SEARCH_RUNGS:
            if has_search(ladder.game):
                out += [Rung(search_name(b), (search_name(b),), b) for b in budgets]
        elif name in RUNGS:
            out.append(Rung(name, tuple(ladder.field_names(rules, Field(name)))))
        else:
            out.append(Rung(name, (name,)))
    return out


def lineups(rungs: list[Rung], n_players: int, teams: bool) -> list[tuple[int, ...]]:
    """Which rungs sit at each line-up's table, by index (see the module docstring)."""
    k = len(rungs)
    if teams:
        return [(i, j) for i in range(k) for j in range(i + 1, k)]
    if n_players > k:
        raise UserError(
            f"skill seats one rung per seat in a free-for-all: {n_players} players need at "
            f"least {n_players} rungs, not {k}"
        )
    windows = [tuple(sorted((j + s) % k for s in range(n_players))) for j in range(k)]
    return list(dict.fromkeys(windows))


def seat_policies(
    rungs: list[Rung], table: tuple[int, ...], n_players: int, teams: bool, turn: int
):
    """(the line-up's policies, the rung of each line-up position): one seat per rung in a
    free-for-all; in team games the first rung's team holds positions 0, 2, ... (the seating
    keeps teams by position parity).  A rung's seats play its policies in turn from ``turn``."""
    owner = [table[pos % 2] for pos in range(n_players)] if teams else list(table)
    count: dict[int, int] = {}
    lineup = []
    for r in owner:
        policies = rungs[r].policies
        lineup.append(policies[(turn + count.get(r, 0)) % len(policies)])
        count[r] = count.get(r, 0) + 1
    return tuple(lineup), owner


def places(outcomes: Outcomes, owner_by_seat: np.ndarray, n_rungs: int) -> np.ndarray:
    """float[n, n_rungs]: each rung's place in each game (its best seat's rank; NaN absent)."""
    n, p = outcomes.score.shape
    score = outcomes.score
    rank = 1 + (score[:, None, :] > score[:, :, None]).sum(axis=2)  # 1 + seats strictly above
    out = np.full((n, n_rungs), np.nan)
    rows = np.arange(n)
    for seat in range(p):
        r = owner_by_seat[:, seat]
        current = out[rows, r]
        out[rows, r] = np.fmin(current, rank[:, seat])
    return out


@dataclass
class Table:
    """One line-up: its design, the rung of each line-up position, its game ids' base."""

    design: Design
    owner: list[int]
    base: int

    def owners(self, rules: dict, game_ids: np.ndarray) -> np.ndarray:
        """int[n, p]: the rung at each seat of each game (the seating the lab plays)."""
        seating = plan_seating(seated_plan(self.design, rules))
        positions = seating.positions(game_seeds(self.design.seed, game_ids), game_ids)
        return np.asarray(self.owner)[positions]
