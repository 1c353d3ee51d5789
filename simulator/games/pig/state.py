"""Pig state layout: the named slots of the engine's arrays (rulebook: docs/games/pig.md).

A game is two arrays: ``state`` (int64, below) and ``rng`` (uint64[N_STREAMS],
simulator.core.rng).  The rules of one player count are one read-only int64 array ``rules``
(the CFG_ slots) and the policies' knobs one float64[n_policies, 1 + n_knobs] table.  The
engine's modules name this one ``S`` (``state[S.SCORE + seat]``): numba reads a module's names
as compile-time constants, so a qualified name costs nothing.

    offset        block                                          slots
    0             turn, seat to play, turn total, trace rows     N_SCALARS
    SEAT_POLICY   policy id of each seat                         MAX_PLAYERS
    SCORE ..      per-seat counters, one block each              MAX_PLAYERS x 7
"""

# fmt: off
MAX_PLAYERS = 2
MAX_TARGET = 10_000   # scores and turn totals stay far inside every output column
MAX_TURN_CAP = 32_767  # games.length is int16
MAX_SIDES = 1_000

# --- rules: one slot per rules value (1 on, 0 off for switches) ------------------------------
(CFG_PLAYERS, CFG_TARGET, CFG_SIDES, CFG_BUST_FACE, CFG_SECOND_START, CFG_TURN_CAP,
 N_CFG) = range(7)

# --- state -----------------------------------------------------------------------------------
# TURN counts the turns begun; SEAT is the seat whose turn it is; TURN_TOTAL the points of the
# turn not yet banked; WINNER a seat or NONE; EVENTS counts trace rows written.
TURN, SEAT, TURN_TOTAL, WINNER, EVENTS, N_SCALARS = range(6)
NONE = -1
SEAT_POLICY = N_SCALARS
# per-seat counters: SCORE banked points; START the points the seat started with; ROLLS, BUSTS,
# HOLDS, TURNS_PLAYED; LOST the turn totals lost to a bust
SEAT_FIELDS = SEAT_POLICY + MAX_PLAYERS
SCORE, START, ROLLS, BUSTS, HOLDS, TURNS_PLAYED, LOST = range(
    SEAT_FIELDS, SEAT_FIELDS + 7 * MAX_PLAYERS, MAX_PLAYERS)
STATE_SIZE = LOST + MAX_PLAYERS

# trace rows: [event, turn, seat, a, b, c, d]; EV_ROLL: a the face, b the turn total after it;
# EV_BUST: a the face, b the turn total lost; EV_HOLD: a the points banked, b the score after;
# EV_WIN: a the score reached; EV_CAP: a the turns played
TRACE_WIDTH = 7
EV_ROLL, EV_BUST, EV_HOLD, EV_WIN, EV_CAP = range(5)

# games output columns (and `games` categories)
G_WINNER, G_LENGTH, G_END_REASON, N_GAME_OUT = range(4)
END_TARGET, END_TURN_CAP = range(2)
# players output columns
(P_SCORE, P_WON, P_START, P_ROLLS, P_BUSTS, P_HOLDS, P_TURNS, P_LOST,
 N_PLAYER_OUT) = range(9)
