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
* **The estimate**: the maximum likelihood of the choices by Newton's method, with a weak
  prior (:data:`RIDGE`) so that an agent that never beats another keeps a finite rating; it
  equals ``choix``'s I-LSR estimate (the tests check it), which takes seconds to tens of
  seconds on a few thousand rankings where one agent rarely wins (its iterations crawl),
  Newton's method milliseconds.
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
RIDGE = 1e-3  # a weak prior: each theta normal around their mean, standard deviation ~30
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


def probabilities(theta: np.ndarray, c: Choices) -> np.ndarray:
    """float[k, n_agents]: each choice's probability of each agent present."""
    logits = np.where(c.present, theta[None, :], -np.inf)
    weights = np.exp(logits - logits.max(axis=1, keepdims=True))
    return weights / weights.sum(axis=1, keepdims=True)


def loglik(theta: np.ndarray, c: Choices) -> tuple[float, np.ndarray, np.ndarray]:
    """The choices' log-likelihood at ``theta`` less the weak prior (:data:`RIDGE`), its
    gradient and its negative Hessian (the information, with the prior's)."""
    pi = probabilities(theta, c)
    rows = np.arange(len(c.winner))
    with np.errstate(divide="ignore"):  # a choice FAR beyond belief: log 0, the worst value
        value = float(np.sum(np.log(pi[rows, c.winner]))) if len(rows) else 0.0
    centred = theta - theta.mean()
    grad = -pi.sum(axis=0) - RIDGE * centred
    np.add.at(grad, c.winner, 1.0)
    k = c.n_agents
    information = np.diag(pi.sum(axis=0)) - pi.T @ pi + RIDGE * (np.eye(k) - 1.0 / k)
    return value - RIDGE / 2 * float(centred @ centred), grad, information


def maximise(c: Choices, fixed: dict[int, float], start: np.ndarray) -> tuple[float, np.ndarray]:
    """Newton's method on the free thetas (``fixed``: agent -> its theta), with halving steps;
    returns the highest penalised log-likelihood and where."""
    free = [a for a in range(c.n_agents) if a not in fixed]
    theta = start.astype(float).copy()
    for a, v in fixed.items():
        theta[a] = v
    value, grad, information = loglik(theta, c)
    for _ in range(100):
        step = np.linalg.solve(information[np.ix_(free, free)], grad[free])
        for _ in range(30):
            trial = theta.copy()
            trial[free] += step
            found = loglik(trial, c)
            if found[0] >= value - 1e-12:
                break
            step /= 2
        theta, (value, grad, information) = trial, found
        if np.max(np.abs(step)) < 1e-9:
            break
    return value, theta


def fit(c: Choices, reference: int = 0) -> Ratings:
    """The ratings of ``c``'s agents, anchored at ``reference`` (see the module docstring)."""
    _, theta = maximise(c, {reference: 0.0}, np.zeros(c.n_agents))
    return Ratings(theta, influences(c, theta, reference), reference)


def influences(c: Choices, theta: np.ndarray, reference: int) -> np.ndarray:
    """float[n_games, n_agents]: each game's influence ``n H^-1 s_g`` on the free thetas
    (``reference`` held at 0), centred over the games."""
    psi = np.zeros((c.n_games, c.n_agents))
    if not len(c.winner):
        return psi
    pi = probabilities(theta, c)
    score = -pi
    score[np.arange(len(c.winner)), c.winner] += 1.0
    per_game = np.zeros((c.n_games, c.n_agents))
    np.add.at(per_game, c.game, score)
    information = loglik(theta, c)[2]
    free = [a for a in range(c.n_agents) if a != reference]
    inverse = np.linalg.inv(information[np.ix_(free, free)])
    psi[:, free] = c.n_games * per_game[:, free] @ inverse
    return psi - psi.mean(axis=0)


# ---- profile likelihood: a gap whose games are few -----------------------------------------

FAR = 40.0  # theta: beyond this a gap is unbounded (e^-40: never seen in any sample)


def profile(c: Choices, i: int, j: int, gap: float, start: np.ndarray) -> tuple[float, np.ndarray]:
    """The highest log-likelihood with ``theta_i - theta_j = gap`` (theta_j at 0), and where."""
    return maximise(c, {j: 0.0, i: gap}, start - start[j])


def gap_interval(c: Choices, i: int, j: int, estimate: float, level: float = 0.95):
    """The profile-likelihood interval of ``theta_i - theta_j`` at ``level``: every gap whose
    profile log-likelihood is within ``chi2(1, level) / 2`` of the highest (at ``estimate``,
    the fitted gap).  It stays right when the games that tell the two apart are few (a rung
    that almost never finishes above another), where the normal interval is far too short;
    an end the data cannot bound within :data:`FAR` is infinite (no game in which j finished
    above i: the gap is at least the lower end)."""
    from simulator.core.verdicts import z

    if not len(c.winner):
        return -math.inf, math.inf
    drop = z(0.5 + level / 2) ** 2 / 2.0  # chi-square(1) quantile over 2
    fitted = maximise(c, {j: 0.0}, np.zeros(c.n_agents))[1]
    top = profile(c, i, j, estimate, fitted)[0]
    below = lambda gap: top - profile(c, i, j, gap, fitted)[0] > drop  # noqa: E731

    def end(side: int) -> float:
        inside = estimate
        for distance in (0.25, 1.0, 4.0, FAR):
            outside = estimate + side * distance
            if below(outside):
                while abs(outside - inside) > 1e-3:  # bisection: the profile falls monotonically
                    middle = (inside + outside) / 2
                    inside, outside = (inside, middle) if below(middle) else (middle, outside)
                return (inside + outside) / 2
            inside = outside
        return side * math.inf

    return end(-1), end(+1)
