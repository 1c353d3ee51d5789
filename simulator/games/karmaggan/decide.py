"""Karmaggän decisions: every decision of a game goes through :func:`choose`.

The engine lists the legal options of a decision in the state's OPTIONS block and asks
``choose`` for an index, so an illegal move cannot be expressed.  ``choose`` asks the code of
the seat's policy (:func:`played_policy`): a scripted seat's own, a `search` seat's
``rollout_policy``.  The search player weighs a search seat's steps apart from this layer: the
round loop pauses before its plunderer turns (search.py).
"""

import policies.karmaggan
from policies.karmaggan import policy_choice
from policies.search_driver import QUESTIONS, for_game
from simulator.core.kernel import layer
from simulator.games.karmaggan import state as S


@layer
def choose(state, rules, knobs, rng, kind, seat, n):
    """Index of the option ``seat`` takes among the ``n`` in the state's OPTIONS block, for a
    decision of ``kind``."""
    return policy_choice(
        state, rules, knobs, rng, played_policy(knobs, state[S.SEAT_POLICY + seat]), kind, seat, n
    )


is_search, played_policy, weighs = for_game(QUESTIONS, globals(), policies.karmaggan)
