"""A stand-in for :class:`~simulator.experiments.lab.Lab` whose games are coins: seat 0 of a
two-seat game wins with probability ``truth(x)``, x the candidate's rules value ``x``.  Game
g's coin is a uniform draw hashed from (``stream``, g), the same for every candidate, as the
real lab plays every candidate of a batch on the same games (common random numbers).  The
known answers of the experiments that race candidates (``fit``'s confidence set and crossing
interval) are checked on it: ``tests/test_fit.py``, ``bench/fit_coverage.py``."""

from __future__ import annotations

import numpy as np

from simulator.core.rng import game_seeds
from simulator.experiments.lab import Design
from simulator.experiments.metrics import Outcomes

DESIGN = Design("coin", ("p", "p"))  # the line-up the coin games seat


class CoinLab:
    """Plays candidates ``{"x": value}`` as coins (see the module docstring); counts games."""

    game = None

    def __init__(self, stream: int, truth):
        self.stream, self.truth, self.played = stream, truth, 0

    def probe(self, design, rules):
        return self.coins(rules, np.arange(4))

    def play(self, design, candidates, game_ids):
        self.played += len(game_ids) * len(candidates)
        return [self.coins(rules, game_ids) for rules in candidates]

    def coins(self, rules, game_ids) -> Outcomes:
        u = game_seeds(self.stream, np.asarray(game_ids, np.int64)) / 2.0**64
        return coin_outcomes(u < self.truth(rules["x"]))


def coin_outcomes(won0: np.ndarray) -> Outcomes:
    """The outcomes of two-seat games of one policy in which seat 0 won where ``won0``."""
    won = np.stack([won0, ~won0], axis=1)
    n = len(won0)
    groups = {
        "seat": (np.broadcast_to(np.arange(2), (n, 2)), ("0", "1")),
        "policy": (np.zeros((n, 2), np.int16), ("p",)),
    }
    return Outcomes(won, won.astype(float), np.ones(n), np.zeros(n, np.int16), ("end",), groups)
