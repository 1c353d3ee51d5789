"""Pig's exact answers: each seat's win probability for given policies and rules, by dynamic
programming over the game's states, and from it the first seat's edge and the rule value that
balances it.  The ground truth the tests hold the engine and the whole pipeline to.

A state at the start of a turn is (the mover's score i, the other's score j).  The mover's turn
(rulebook sections 2-4) ends in a bust (nothing banked), a hold of b points or a win; with
``roll_chance`` of its policy (policies/pig.py, the very function the engine draws from, run
here as plain Python) the chances of each are summed forward over the turn totals
(:func:`turn_outcomes`).  The mover's chance to win is then::

    W_x(i, j) = win + sum_b hold_b (1 - W_y(j, i + b)) + bust (1 - W_y(j, i))

for the mover's policy x and the other's y.  Every term but the last leads to a larger i + j
and the last to the same pair seen from the other side, so the pairs are solved from the
largest total down, each as two linear equations in W_x(i, j) and W_y(j, i).  Only the rules
are written again here, not the engine's code.  The turn cap (section 5, ASSUMED) is left
out: games of the shipped policies never come near it (the tests count the games it ends).
"""

from __future__ import annotations

import itertools

import numpy as np

from policies import pig as policies
from simulator.games.pig.game import GAME

# the policy as plain Python: the compiled kernel's own source (a plain function already when
# numba is switched off)
ROLL_CHANCE = getattr(policies.roll_chance, "py_func", policies.roll_chance)


def turn_outcomes(knobs, policy: int, mine: int, theirs: int, rules: dict):
    """(bust, hold, win) of one turn: the chance it busts, hold[b] the chance it banks b
    points (b below the target), and the chance it reaches the target."""
    target, sides, bust_face = (
        rules["setup"]["target"],
        rules["die"]["sides"],
        rules["die"]["bust_face"],
    )
    faces = [f for f in range(1, sides + 1) if f != bust_face]
    room = target - mine  # a turn total of room or more wins
    at = np.zeros(room)  # at[k]: the chance the turn stands at total k after a roll
    hold = np.zeros(room)
    bust = win = 0.0

    def roll(k: int, chance: float) -> None:
        nonlocal bust, win
        bust += chance / sides
        for f in faces:
            if k + f >= room:
                win += chance / sides
            else:
                at[k + f] += chance / sides

    roll(0, 1.0)  # the first roll of a turn is not a choice
    for k in range(1, room):
        if at[k] == 0.0:
            continue
        again = ROLL_CHANCE(knobs, policy, mine, theirs, k, target)
        hold[k] = at[k] * (1.0 - again)
        roll(k, at[k] * again)
    return bust, hold, win


def win_chances(rules: dict, knobs, seat_policies) -> np.ndarray:
    """W[x, i, j]: the chance that the seat of ``seat_policies[x]`` (a policy id, x = 0 or 1),
    about to play with i points against the other seat's j, wins."""
    target = rules["setup"]["target"]
    w = np.zeros((2, target, target))
    for total in range(2 * target - 2, -1, -1):
        for i in range(max(0, total - target + 1), min(total, target - 1) + 1):
            solve_pair(w, rules, knobs, seat_policies, i, total - i)
    return w


def rest(w, rules, knobs, seat_policies, x: int, i: int, j: int):
    """The mover x's bust chance, and its chance to win by every other end of its turn."""
    bust, hold, win = turn_outcomes(knobs, seat_policies[x], i, j, rules)
    banked = np.nonzero(hold)[0]
    return bust, win + float(np.sum(hold[banked] * (1.0 - w[1 - x, j, i + banked])))


def solve_pair(w, rules, knobs, seat_policies, i: int, j: int) -> None:
    """W[0, i, j] and W[1, j, i] together: each one's bust hands the turn to the other."""
    bust_0, rest_0 = rest(w, rules, knobs, seat_policies, 0, i, j)
    bust_1, rest_1 = rest(w, rules, knobs, seat_policies, 1, j, i)
    w[0, i, j] = (bust_0 * (1.0 - bust_1 - rest_1) + rest_0) / (1.0 - bust_0 * bust_1)
    w[1, j, i] = bust_1 * (1.0 - w[0, i, j]) + rest_1


def second_player_points(rules: dict, points: int) -> dict:
    """``rules`` with the second player starting with ``points``."""
    return {**rules, "setup": {**rules["setup"], "second_player_points": points}}


def first_seat_win(rules: dict, knobs, seat_policies) -> float:
    """The chance that seat 0 wins with ``seat_policies`` (ids of seats 0 and 1)."""
    w = win_chances(rules, knobs, seat_policies)
    return float(w[0, 0, rules["setup"]["second_player_points"]])


def first_seat_edge(rules: dict, lineup, balanced: bool = True) -> float:
    """Seat 0's win rate minus its fair share of one half, with the policies of ``lineup``
    (names) in either order, each played equally often (balanced seating, the default), or
    as listed (``balanced=False``: ``--fixed-seats``)."""
    _, knobs = GAME.prepare(rules, len(lineup))
    ids = [GAME.policy(name, rules).id for name in lineup]
    orders = set(itertools.permutations(ids)) if balanced else {tuple(ids)}
    return float(np.mean([first_seat_win(rules, knobs, o) for o in orders])) - 0.5


def balancing_points(rules: dict, lineup, balanced: bool = True):
    """The second player's starting points that balance the first seat (rulebook section 1):
    (edge of each value 0..target-1, the fairest value, where the edge crosses 0 by linear
    interpolation between the two values around it, None when it never does)."""
    values = range(rules["setup"]["target"])
    edges = np.array(
        [first_seat_edge(second_player_points(rules, v), lineup, balanced) for v in values]
    )
    fairest = int(np.argmin(np.abs(edges)))
    crossing = None
    for v in values[:-1]:
        if edges[v] >= 0 > edges[v + 1]:
            crossing = v + edges[v] / (edges[v] - edges[v + 1])
            break
    return edges, fairest, crossing
