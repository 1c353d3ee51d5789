"""``balsim matrix``: the head-to-head win-rate matrix of the ladder's agents, and its
equilibrium (the metagame).

*Agents* are the policies of the fields asked for: the scripted policies, their tuned and
adapted copies, the search player (:mod:`simulator.experiments.field`), or policies by name.
Cell (i, j) is the win rate of agent i in one seat (Karmaggän in team mode: its team) against a
field of agent j in every other seat, in balanced seat orders.  The entrant plays as a copy of
itself named :data:`ENTRANT`, so every cell, the diagonal included, has the same line-up shape
and plays the same games: the same ids, seeds and seat orders.  Two entrants against one
field are therefore compared game by game.

The summary:

* i *dominates* k when against every field i wins significantly more than k (the paired 95%
  interval of the difference above zero in every column); an agent is *dominant* when it
  dominates every other, *dominated* when some agent dominates it;
* the *equilibrium*: the zero-sum form ``A = M - M.T`` (i's rate entering j's field minus j's
  entering i's: who invades whom) is a symmetric zero-sum game of value 0, and its optimal
  mixtures are the linear programme max v subject to ``A.T x >= v``, ``sum x = 1``, ``x >= 0``,
  solved by ``scipy.optimize.linprog`` (HiGHS).  Not nashpy: scipy is already a dependency, the
  programme is solved exactly in polynomial time, whereas nashpy's support enumeration grows
  exponentially with the agents and its Lemke-Howson path finds one equilibrium of the
  general-sum game that depends on its starting label.  Each agent's payoff against the
  mixture (``A x``) is 0 on its support and below 0 off it: how far each is from being played.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simulator.core.game import Game, knob_values
from simulator.experiments.field import ADAPTED, SEARCH, Field, Ladder
from simulator.experiments.lab import Design, Lab, batch_ids, round_to
from simulator.experiments.metrics import Estimate
from simulator.experiments.strength import fair_share
from simulator.experiments.tune import line_up

ENTRANT = "entrant"  # the knob set the row agent plays as
MATRIX_TOOL = "matrix"
SOLVER = "scipy.optimize.linprog (HiGHS) on the zero-sum form M - M.T"


@dataclass
class Agent:
    name: str  # the policy
    field: str  # the field it came from (a rung, or the policies named)


def agents_of(game: Game, ladder: Ladder, rules: dict, fields: list[Field]) -> list[Agent]:
    """Each field's policies (the search rung: the search player), each strategy once: a copy
    that plays exactly as an agent before it (an adapted set whose knobs never moved from the
    tuned ones) is that agent."""
    out: dict[tuple, Agent] = {}
    policies = game.policy_set(rules)
    for field in fields:
        names = ["search"] if field.rung == SEARCH else ladder.field_names(rules, field)
        for name in names:
            policy = game.policy(name, rules)
            plays = (policy.behaviour, sorted(knob_values(rules, policies, policy).items()))
            out.setdefault(repr(plays), Agent(name, field.name))
    return list(out.values())


def matrix_rules(ladder: Ladder, rules: dict, fields: list[Field]) -> dict:
    """The rules carrying every knob set the agents need (the search rung's rules hold the
    adapted sets too)."""
    for rung in (SEARCH, ADAPTED):
        if any(f.rung == rung for f in fields):
            return ladder.players(rules, Field(rung)).rules
    return rules


def with_entrant(game: Game, rules: dict, agent: str) -> dict:
    """``rules`` with :data:`ENTRANT`, a knob set playing exactly as ``agent``."""
    policies = game.policy_set(rules)
    policy = game.policy(agent, rules)
    table = {
        "base": policies[policy.behaviour].name,
        "description": f"{agent}, entering a field",
        **knob_values(rules, policies, policy),
    }
    return {**rules, "policies": {**rules.get("policies", {}), ENTRANT: table}}


@dataclass
class Matrix:
    game: str
    n_players: int
    agents: list[Agent]
    rates: list[list[Estimate]]  # [entrant][field]
    fair_share: float

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.agents]

    def values(self) -> np.ndarray:
        return np.array([[e.value for e in row] for row in self.rates])

    def dominates(self, i: int, k: int) -> bool:
        """Against every field, agent i wins significantly more than agent k (paired)."""
        return i != k and all(
            (self.rates[i][j] - self.rates[k][j]).interval[0] > 0 for j in range(len(self.agents))
        )

    def dominated(self) -> dict[str, list[str]]:
        """Agent -> the agents that dominate it."""
        n = len(self.agents)
        out = {}
        for k in range(n):
            by = [self.names[i] for i in range(n) if self.dominates(i, k)]
            if by:
                out[self.names[k]] = by
        return out

    def dominant(self) -> list[str]:
        n = len(self.agents)
        return [
            self.names[i] for i in range(n) if all(self.dominates(i, k) for k in range(n) if k != i)
        ]

    def equilibrium(self) -> tuple[np.ndarray, np.ndarray]:
        """(mixture over the agents, each agent's payoff against it) of the zero-sum form."""
        m = self.values()
        return equilibrium(m - m.T)

    def record(self) -> dict:
        weights, payoff = self.equilibrium()
        return {
            "game": self.game,
            "n_players": self.n_players,
            "fair_share": self.fair_share,
            "agents": [{"name": a.name, "field": a.field} for a in self.agents],
            "cells": [
                {"entrant": self.names[i], "field": self.names[j], **e.record()}
                for i, row in enumerate(self.rates)
                for j, e in enumerate(row)
            ],
            "dominant": self.dominant(),
            "dominated": self.dominated(),
            "equilibrium": {
                name: round(float(w), 6) for name, w in zip(self.names, weights) if w > 1e-9
            },
            "payoff_against_equilibrium": {
                name: round(float(p), 6) for name, p in zip(self.names, payoff)
            },
            "solver": SOLVER,
        }


def equilibrium(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An optimal mixture of the row player of the zero-sum game ``a`` (row's payoff) and each
    row's payoff against it: the linear programme max v, ``a.T x >= v``, ``sum x = 1``."""
    from scipy.optimize import linprog

    n = a.shape[0]
    # variables x_1..x_n, v; minimise -v
    cost = np.zeros(n + 1)
    cost[-1] = -1.0
    upper = np.hstack([-a.T, np.ones((n, 1))])  # v - (a.T x)_j <= 0
    equal = np.hstack([np.ones((1, n)), np.zeros((1, 1))])
    bounds = [(0, None)] * n + [(None, None)]
    found = linprog(cost, A_ub=upper, b_ub=np.zeros(n), A_eq=equal, b_eq=[1.0], bounds=bounds)
    if not found.success:
        raise RuntimeError(f"linprog found no equilibrium: {found.message}")
    x = np.clip(found.x[:n], 0.0, None)
    x /= x.sum()
    return x, a @ x


def play_matrix(
    lab: Lab,
    ladder: Ladder,
    rules: dict,
    fields: list[Field],
    n_games: int,
    seed: int = 1,
) -> Matrix:
    """Every agent of ``fields`` against a field of every agent, ``n_games`` each (rounded up
    to whole rounds of seat orders), all cells on the same games and in one batch."""
    game = lab.game
    rules = matrix_rules(ladder, rules, fields)
    agents = agents_of(game, ladder, rules, fields)
    n_players = ladder.n_players
    groups = []
    for entrant in agents:
        cell_rules = with_entrant(game, rules, entrant.name)
        for opponent in agents:
            lineup = line_up(cell_rules, ENTRANT, [opponent.name], n_players)
            groups.append((Design(game.name, lineup, seed), [cell_rules]))
    n = round_to(n_games, groups[0][0].block(groups[0][1][0]))
    ids = batch_ids(0, n)
    metric = lab.probe(groups[0][0], groups[0][1][0]).metric(f"win_rate:policy={ENTRANT}")
    played = lab.play_groups([(design, cands, ids) for design, cands in groups])
    k = len(agents)
    rates = [[metric.estimate(played[i * k + j][0]) for j in range(k)] for i in range(k)]
    return Matrix(game.name, n_players, agents, rates, fair_share(rules, n_players))


# ---- output ---------------------------------------------------------------------------------


def summary_lines(record: dict) -> list[str]:
    """The matrix's findings in words: dominant and dominated agents, the equilibrium."""
    dominant, dominated = record["dominant"], record["dominated"]
    lines = []
    if dominant:
        lines.append(
            f"{' and '.join(dominant)} is dominant: against every field it wins significantly "
            "more than every other agent (paired 95% intervals)"
        )
    else:
        lines.append(
            "no agent is dominant: none wins significantly more than all others against every field"
        )
    for name, by in dominated.items():
        lines.append(f"{name} is dominated by {', '.join(by)}")
    mix = ", ".join(
        f"{name} {w:.0%}"
        for name, w in sorted(record["equilibrium"].items(), key=lambda kv: -kv[1])
    )
    lines.append(f"equilibrium mixture (zero-sum form): {mix}")
    return lines


def write_matrix(
    matrix: Matrix, out: Path, command: str, extra: dict, charts: Callable | None = None
) -> dict:
    """OUT/balsim.json (numbers and findings), OUT/matrix.parquet (one row per cell) and what
    ``charts(folder)`` draws from them (the report layer's heat map, ``matrix.svg`` and
    ``matrix.png``), written in a fresh folder moved into place."""
    import polars as pl

    from simulator.run.outputs import OUT_MARK, writing_result

    record = {"tool": MATRIX_TOOL, "command": command, **extra, **matrix.record()}
    with writing_result(out) as tmp:
        pl.DataFrame(record["cells"]).write_parquet(tmp / "matrix.parquet")
        (tmp / OUT_MARK).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        if charts is not None:
            charts(tmp)
    return record


def read_matrix(out: Path) -> dict | None:
    """The record of a matrix folder written by :func:`write_matrix`, or None for any other."""
    from simulator.run.outputs import OUT_MARK

    try:
        record = json.loads((Path(out) / OUT_MARK).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if record.get("tool") == MATRIX_TOOL else None
