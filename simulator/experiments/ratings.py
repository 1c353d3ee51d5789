"""Ratings of agents on one Plackett–Luce (Bradley–Terry) scale, with intervals by game.

An agent's strength is ``theta``: of the agents still to be placed in a game, the next place
goes to agent i with probability ``exp(theta_i) / sum exp(theta_j)`` (Plackett–Luce), so a
game's whole ranking is a chain of such choices, and two agents meet head to head as
Bradley–Terry: i finishes above j with probability ``1 / (1 + exp(theta_j - theta_i))``.  A
team game (teams of one agent each) is the two-agent case.  Shown in Elo points
(``400 / ln 10`` per unit of theta), anchored at a reference agent (0).

* **Rankings with ties.**  A game's ranking is used down to its first tie: ``1, 2, 2, 4``
  says who came first and nothing about the order of the rest (the exact likelihood of a
  top-1 ranking); a game whose first place is shared (a drawn team game) says nothing.
* **The estimate**: ``choix.ilsr_top1`` (the maximum likelihood of the choices, by iterative
  Luce spectral ranking), with a weak prior (:data:`PRIOR`: a small rate between every pair
  of agents) so that an agent that never beats another keeps a finite rating.
* **The intervals: the model's information with a sandwich by game** (not a bootstrap: a
  bootstrap refits the model hundreds of times, each a second or more).  Each game's score
  ``s_g`` (the gradient of its log-likelihood) and the total information ``H`` give each
  game's influence on the ratings, ``n H^-1 s_g``; the standard errors are the spread of
  those influences over games, which stays right when the model is only an approximation
  (a rung that is a mix of policies, or strengths that are not transitive).  The influences
  are :class:`~simulator.experiments.metrics.Estimate` ``psi`` arrays in game order, so any
  smooth function of the ratings (a gap, a head-to-head probability, a skill depth) gets its
  interval by the delta method, and two ladders rated on the same games (rules variants on
  common seeds) are compared game by game.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simulator.experiments.metrics import Estimate

ELO = 400.0 / math.log(10.0)  # Elo points per unit of theta
PRIOR = 0.1  # choix's regularisation: a tenth of a choice's rate between every pair
STEP = 0.6  # a "step" of skill: the stronger wins 60% of head-to-head meetings
STEP_THETA = math.log(STEP / (1.0 - STEP))  # 0.405: a step in theta (70.4 Elo points)


@dataclass
class Choices:
    """Rankings as successive top-1 choices: choice k came from game ``game[k]``, where
    ``winner[k]`` was placed first among the agents ``present[k]`` (itself included)."""

    n_games: int
    n_agents: int
    game: np.ndarray  # int64[k]
    winner: np.ndarray  # int64[k]
    present: np.ndarray  # bool[k, n_agents]

    def data(self) -> list[tuple[int, list[int]]]:
        """choix's top-1 data: (winner, the others present)."""
        out = []
        for w, row in zip(self.winner.tolist(), self.present):
            out.append((w, [int(a) for a in np.flatnonzero(row) if a != w]))
        return out


def choices(places: np.ndarray) -> Choices:
    """The choices of ``places`` (float[n_games, n_agents]: each agent's place in each game,
    1 = first, lower is better, NaN when it did not play), each ranking down to its first
    tie."""
    n_games, n_agents = places.shape
    game, winner, present = [], [], []
    for g in range(n_games):
        row = places[g]
        left = [a for a in range(n_agents) if math.isfinite(row[a])]
        left.sort(key=lambda a: row[a])
        while len(left) > 1 and row[left[0]] < row[left[1]]:
            mask = np.zeros(n_agents, bool)
            mask[left] = True
            game.append(g)
            winner.append(left[0])
            present.append(mask)
            left = left[1:]
    return Choices(
        n_games,
        n_agents,
        np.array(game, np.int64),
        np.array(winner, np.int64),
        np.array(present, bool).reshape(-1, n_agents),
    )


@dataclass
class Ratings:
    """Each agent's theta (``reference``'s is 0) and each game's influence on it."""

    theta: np.ndarray  # float[n_agents]
    psi: np.ndarray  # float[n_games, n_agents], column ``reference`` zero
    reference: int

    @property
    def n_games(self) -> int:
        return self.psi.shape[0]

    def of(self, agent: int) -> Estimate:
        """Agent's theta with its influences."""
        return Estimate(float(self.theta[agent]), self.psi[:, agent])

    def gap(self, stronger: int, weaker: int) -> Estimate:
        """theta difference of two agents (paired over the games)."""
        return self.of(stronger) - self.of(weaker)

    def beats(self, i: int, j: int) -> Estimate:
        """The probability that i finishes above j when they meet (Bradley–Terry)."""
        d = self.gap(i, j)
        p = 1.0 / (1.0 + math.exp(-d.value))
        return Estimate(p, p * (1.0 - p) * d.psi)


def fit(c: Choices, reference: int = 0) -> Ratings:
    """The ratings of ``c``'s agents, anchored at ``reference`` (see the module docstring)."""
    import choix

    theta = choix.ilsr_top1(c.n_agents, c.data(), alpha=PRIOR) if len(c.winner) else None
    theta = np.zeros(c.n_agents) if theta is None else np.asarray(theta, float)
    theta = theta - theta[reference]
    return Ratings(theta, influences(c, theta, reference), reference)


def influences(c: Choices, theta: np.ndarray, reference: int) -> np.ndarray:
    """float[n_games, n_agents]: each game's influence ``n H^-1 s_g`` on the free thetas
    (``reference`` held at 0), centred over the games."""
    psi = np.zeros((c.n_games, c.n_agents))
    if not len(c.winner):
        return psi
    weights = np.where(c.present, np.exp(theta - theta.max())[None, :], 0.0)
    pi = weights / weights.sum(axis=1, keepdims=True)
    score = -pi
    score[np.arange(len(c.winner)), c.winner] += 1.0
    per_game = np.zeros((c.n_games, c.n_agents))
    np.add.at(per_game, c.game, score)
    information = np.diag(pi.sum(axis=0)) - pi.T @ pi
    free = [a for a in range(c.n_agents) if a != reference]
    inverse = np.linalg.pinv(information[np.ix_(free, free)])
    psi[:, free] = c.n_games * per_game[:, free] @ inverse
    return psi - psi.mean(axis=0)
