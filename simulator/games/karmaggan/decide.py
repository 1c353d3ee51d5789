"""Karmaggän decisions: every decision of a game goes through :func:`choose`.

The engine lists the legal options of a decision in the state's OPTIONS block and asks
``choose`` for an index, so an illegal move cannot be expressed.  ``choose`` asks the code of
the seat's policy (:func:`played_policy`): a scripted seat's own, a `search` seat's
``rollout_policy``.  The search player weighs a search seat's steps apart from this layer: the
round loop pauses before its plunderer turns (search.py).
"""

import numpy as np

from policies.common import behaviour
from policies.karmaggan import ROLLOUT_POLICY_KNOB, SEARCH, policy_choice
from simulator.core.kernel import layer, rule
from simulator.games.karmaggan.state import SEAT_POLICY


@layer
def choose(state, rules, knobs, rng, kind, seat, n):
    """Index of the option ``seat`` takes among the ``n`` in the state's OPTIONS block, for a
    decision of ``kind``."""
    return policy_choice(
        state, rules, knobs, rng, played_policy(knobs, state[SEAT_POLICY + seat]), kind, seat, n
    )


@rule
def played_policy(knobs, policy_id):
    """The policy whose code makes a seat's decisions: a search seat's ``rollout_policy`` (the
    search driver weighs only the steps it searches), any other seat's own."""
    if behaviour(knobs, policy_id) == SEARCH:
        return np.int64(knobs[policy_id, ROLLOUT_POLICY_KNOB])
    return policy_id
