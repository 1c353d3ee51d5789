"""Pig policies: when to roll again and when to bank the turn total.

A Pig decision has two options, roll or hold, so a policy is one number: the chance that it
rolls again (:func:`roll_chance`), 0 or 1 for a scripted policy, 1/2 for `random`, in between
for a policy with a ``blunder`` handicap.  The engine draws it (simulator/games/pig/engine.py)
and the exact answers read the very same function (simulator/games/pig/exact.py), so a policy
is defined once.  The knobs in ``[policies.NAME]`` of the rules make the strategies differ.
"""

from policies.common import HANDICAP_KNOBS, RANDOM
from simulator.core.game import KNOB_BEHAVIOUR, Policy
from simulator.core.kernel import scorer

BANKER, CHASER, CLOSER = range(1, 4)
POLICIES = (
    Policy(RANDOM, "random", "rolls again or holds with even chances at every decision"),
    Policy(BANKER, "banker", "banks once the turn total reaches hold_at"),
    Policy(
        CHASER,
        "chaser",
        "banks at hold_at when level or ahead, and rolls chase points longer per point behind",
    ),
    Policy(
        CLOSER,
        "closer",
        "banks at hold_at, but rolls on to win in one turn when within reach of the target",
    ),
)
KNOBS = ("hold_at", "chase", "reach", *HANDICAP_KNOBS)
# knobs table columns (column 0 is the behaviour, simulator.core.game.policy_knobs)
HOLD_AT, CHASE, REACH, BLUNDER = range(1, 5)
EVEN = 0.5  # `random`, and a blunder: either option with even chances


@scorer
def roll_chance(knobs, policy, mine, theirs, turn_total, target):
    """The chance that ``policy`` rolls again with ``mine`` points banked, its rival
    ``theirs``, ``turn_total`` points at stake this turn and ``target`` to reach (rulebook
    section 3).  Self-contained, so the exact answers can call it as plain Python."""
    behaviour = int(knobs[policy, KNOB_BEHAVIOUR])
    if behaviour == RANDOM:
        return EVEN
    hold_at = knobs[policy, HOLD_AT]
    if behaviour == CHASER:
        hold_at += knobs[policy, CHASE] * max(0, theirs - mine)
    rolls = turn_total < hold_at
    if behaviour == CLOSER and target - mine <= knobs[policy, REACH]:
        rolls = True
    blunder = knobs[policy, BLUNDER]
    return blunder * EVEN + (1.0 - blunder) * (1.0 if rolls else 0.0)
