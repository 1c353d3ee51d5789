"""Helpers shared by every game's policies."""

import numpy as np
from numba import njit

from simulator.core.game import KNOB_BEHAVIOUR
from simulator.core.kernel import rule
from simulator.core.rng import POLICY, rng_below, rng_float

RANDOM = 0  # behaviour 0 is `random` in every game
# knobs every game's policies take, after its own and the search's: ``blunder``, a handicap,
# the probability that a decision is a uniformly random legal option instead of the policy's
# (0, the default, draws nothing: a policy without it plays exactly as before)
HANDICAP_KNOBS = ("blunder",)
# the knob of a game's `learned` player, last of its KNOBS: its value function's weights, a
# list stored as its length with the numbers after the table's last knob
# (simulator.core.game.policy_knobs)
LEARNED_KNOBS = ("weights",)


@rule
def behaviour(knobs, policy_id):
    """The built-in behaviour a policy runs (a named knob set runs its base's code)."""
    return np.int64(knobs[policy_id, KNOB_BEHAVIOUR])


@njit(cache=True, inline="always")
def keep_best(score, i, best, count, choice, rng):
    """One step of a streaming argmax over options: returns the new (best, count, choice).

    Ties are broken uniformly (reservoir sampling on the policy stream), without allocating a
    score array per decision."""
    if score > best:
        return score, 1, i
    if score == best:
        count += 1
        if rng_below(rng, POLICY, count) == 0:
            choice = i
    return best, count, choice


@rule
def pick_best(scores, n, rng):
    """Index of the highest of ``scores[:n]``; ties broken uniformly from the policy stream."""
    best, count, choice = -np.inf, 0, 0
    for i in range(n):
        best, count, choice = keep_best(scores[i], i, best, count, choice, rng)
    return choice


@rule
def blunders(knobs, policy_id, column, rng):
    """Whether this decision of ``policy_id`` goes to a uniformly random option: with the
    probability in its knobs ``column`` (the ``blunder`` knob); no draw when it is 0."""
    p = knobs[policy_id, column]
    return p > 0.0 and rng_float(rng, POLICY) < p


@njit(cache=True, inline="always")
def pick_random(n, rng):
    return rng_below(rng, POLICY, n)


@rule
def coin(rng, p):
    """True with probability p, from the policy stream."""
    return rng_float(rng, POLICY) < p
