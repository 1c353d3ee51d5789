"""Pig rules (rulebook: docs/games/pig.md), one function per section, and the game loop.

Every function takes the game (``state`` int64, ``rng`` uint64[N_STREAMS]), the read-only
``rules`` int64 array, ``knobs`` float64[n_policies, 1 + n_knobs] (layouts: state.py) and the
``trace`` int64[max_events, TRACE_WIDTH] (no rows unless a game is being replayed).  The one
decision, roll again or hold, is the seat's policy's (policies/pig.py: ``roll_chance``).
Between them, the engine and its policy use every kind of kernel (``reaches_target`` an
accessor, ``play_game`` a layer, ``roll_chance`` a scorer): the test suite compiles this engine
alone in numba's plain mode (tests/test_kernel.py).
"""

from policies import pig as policies
from simulator.core import trace as T
from simulator.core.kernel import accessor, allocating, layer, rule
from simulator.core.rng import POLICY, rng_float, rng_new, roll_die
from simulator.games.pig import state as S


@rule
def record(state, trace, event, seat, a, b):
    T.record(state, S.EVENTS, trace, event, state[S.TURN], seat, a, b, 0, 0)


@allocating
def new_game(state, rules, rng, seed, seat_policies):
    """1. Setup: seat 0 starts with no points, the second player with
    ``setup.second_player_points``; seat 0 takes the first turn.  ``seat_policies``
    int8[n_players]: each seat's policy."""
    state[:] = 0
    rng[:] = rng_new(seed)
    state[S.WINNER] = S.NONE
    for p in range(rules[S.CFG_PLAYERS]):
        state[S.SEAT_POLICY + p] = seat_policies[p]
    state[S.SCORE + 1] = state[S.START + 1] = rules[S.CFG_SECOND_START]


@rule
def bust(state, seat, face, trace):
    """2. A turn: a roll of the bust face loses the turn total and ends the turn."""
    state[S.BUSTS + seat] += 1
    state[S.LOST + seat] += state[S.TURN_TOTAL]
    record(state, trace, S.EV_BUST, seat, face, state[S.TURN_TOTAL])
    state[S.TURN_TOTAL] = 0


@rule
def hold(state, seat, trace):
    """3. Holding: the turn total is banked into the seat's score and the turn ends."""
    state[S.HOLDS + seat] += 1
    state[S.SCORE + seat] += state[S.TURN_TOTAL]
    record(state, trace, S.EV_HOLD, seat, state[S.TURN_TOTAL], state[S.SCORE + seat])
    state[S.TURN_TOTAL] = 0


@accessor
def reaches_target(state, rules, seat):
    """4. Winning: a player whose score with the turn total reaches the target banks it and
    wins at once, without a decision."""
    return state[S.SCORE + seat] + state[S.TURN_TOTAL] >= rules[S.CFG_TARGET]


@rule
def rolls_again(state, rules, knobs, rng, seat):
    """3. Holding: after a roll that did not bust, the player rolls again or holds (the
    policy's chance, drawn from the policy stream only when it is neither 0 nor 1)."""
    chance = policies.roll_chance(
        knobs,
        state[S.SEAT_POLICY + seat],
        state[S.SCORE + seat],
        state[S.SCORE + 1 - seat],
        state[S.TURN_TOTAL],
        rules[S.CFG_TARGET],
    )
    return chance >= 1.0 or (chance > 0.0 and rng_float(rng, POLICY) < chance)


@rule
def play_turn(state, rules, knobs, rng, trace):
    """2. A turn: the player rolls the die (the first roll of a turn is not a choice); a face
    other than the bust face adds to the turn total, then 4. Winning, else 3. Holding."""
    seat = state[S.SEAT]
    state[S.TURNS_PLAYED + seat] += 1
    while True:
        face = roll_die(rng, rules[S.CFG_SIDES])
        state[S.ROLLS + seat] += 1
        if face == rules[S.CFG_BUST_FACE]:
            bust(state, seat, face, trace)
            return
        state[S.TURN_TOTAL] += face
        record(state, trace, S.EV_ROLL, seat, face, state[S.TURN_TOTAL])
        if reaches_target(state, rules, seat):
            hold(state, seat, trace)
            state[S.WINNER] = seat
            record(state, trace, S.EV_WIN, seat, state[S.SCORE + seat], 0)
            return
        if not rolls_again(state, rules, knobs, rng, seat):
            hold(state, seat, trace)
            return


@layer
def play_game(state, rules, knobs, rng, trace):
    """Turns pass around the table until a player wins, or 5. The turn cap (ASSUMED):
    ``setup.turn_cap`` turns without a winner end the game without one."""
    while state[S.WINNER] == S.NONE and state[S.TURN] < rules[S.CFG_TURN_CAP]:
        play_turn(state, rules, knobs, rng, trace)
        state[S.TURN] += 1
        state[S.SEAT] = (state[S.SEAT] + 1) % rules[S.CFG_PLAYERS]
    if state[S.WINNER] == S.NONE:
        record(state, trace, S.EV_CAP, S.NONE, state[S.TURN], 0)
