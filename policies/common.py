"""Helpers shared by every game's policies."""

import numpy as np
from numba import njit

from simulator.rng import POLICY, rng_below, rng_float

RANDOM = 0  # policy id 0 is `random` in every game


@njit(cache=True)
def pick_best(scores, n, rng):
    """Index of the highest of ``scores[:n]``; ties broken uniformly from the policy stream."""
    best = -np.inf
    count = 0
    choice = 0
    for i in range(n):
        s = scores[i]
        if s > best:
            best = s
            count = 1
            choice = i
        elif s == best:
            count += 1
            if rng_below(rng, POLICY, count) == 0:
                choice = i
    return choice


@njit(cache=True)
def pick_random(n, rng):
    return rng_below(rng, POLICY, n)


@njit(cache=True)
def coin(rng, p):
    """True with probability p, from the policy stream."""
    return rng_float(rng, POLICY) < p
