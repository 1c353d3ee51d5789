"""Karmaggän engine: numba kernels over plain int64 arrays (rulebook: shared/rules/karmaggan.md).

This module sets a game up and plays its rounds to the end (:mod:`chunk` plays whole games and
writes their outputs); the rules live in one module per rulebook section, each importing only
the ones above it:

* :mod:`core`      a new game, the trace, figures on the board, coins and cards
* :mod:`death`     Dead or Alive, A New Life: losing coins, dying, Invocation tiles
* :mod:`egg`       The Alien Egg: picking up, passing, throwing
* :mod:`traps`     Ring Traps, Rollers, Piston, Rotations, Ram, Flash, the Temple deck
* :mod:`tiles`     Tiles: the effect of each tile stepped on
* :mod:`combat`    Combat: rounds, comparison, end of combat
* :mod:`objects`   Objects and their effects
* :mod:`movement`  Turns and Movement: a plunderer's turn
* :mod:`spawns`    Spawns: the swarm's turn

State (layout: :mod:`state`): a game is two flat arrays, ``state`` int64 (scalars, then
field-major blocks per seat, figure and node at compile-time offsets, then the blocks whose size
depends on the board) and ``rng`` uint64[N_STREAMS]; the rules of one player count are one
read-only int64 array ``rules`` (the rules numbers, the static board, the card tables) and the
policies' knobs one float64[n_policies, 1 + n_knobs] table, as in the Karnaxis engine.  Rule
functions take ``(state, rules[, knobs, rng][, trace])`` and scalars and read
``state[P_COINS + seat]``, ``state[B_OCC + node]``, ``rules[C_COL + node]``; ``trace``
int64[max_events, TRACE_WIDTH] has zero rows in bulk runs, and the round loop also fills
``timeline`` int16[round_cap or 0, n_players] (blood coins of each seat after each round).
Copying a game is ``work[:] = state`` (the search player's rollouts).

Compiling (:mod:`simulator.core.kernel`): the rule functions and policies, which never allocate,
are compiled without numba's reference counting (``rule``); such a kernel cannot return an
array it did not receive, so a distance map is handed over as its slot
(``board.distance_slot``; ``board.distance_map`` is a layer, inlined).  The few that allocate
(a new game, the set-up's temporaries, a combat's cards put aside, a throw's distances, the
search's buffers and re-deal) are ``allocating``; the games loops Python calls are ``entry``
kernels.

Decisions go through :func:`decide.choose`: the engine lists the legal options in the state's
OPTIONS block and the deciding seat's policy picks an index; an illegal move cannot be
expressed.

Blood coins are conserved: every coin is in the bank or with a player (``G_BANK`` +
Σ ``P_COINS`` = ``setup.bank_coins``); traps, the Piston, Rollers and Spawns return coins to
the bank, combat between plunderers moves them between players.
"""

import numpy as np

from simulator.core.kernel import allocating, layer, rule
from simulator.core.rng import SETUP, rng_below, shuffle
from simulator.games.karmaggan import board, core, movement, spawns
from simulator.games.karmaggan import state as S


@allocating
def setup_game(state, rules, rng):
    """Setup / Setup, Continued: rings aligned, hatches closed, the Egg on the Centre, Blood
    tiles face down (shuffled), plunderers on the starting points, each player with 4 Object
    cards, 1 Golden Medallion and the blood coins of the player count.  Seat 0 starts ("the
    player with the least honour"): its team is drawn, so either team may move first; seats
    alternate teams around the table ("alternate a Player from each Team around the board").
    ASSUMED: the starting point of each seat (``board.start_points``), and which team has the
    player more at an odd count (``game.extra_player``: seat 0's, or the last seat joins the
    other team)."""
    n_players, n_nodes = rules[S.CFG_PLAYERS], rules[S.CFG_NODES]
    centre = rules[S.CFG_CENTRE]
    first_team = rng_below(rng, SETUP, 2)
    for k in range(S.DCACHE_SLOTS):
        state[S.G_DKEY + 2 * k] = -1
    state[S.G_EGG_POS], state[S.G_EGG_CARRIER], state[S.G_EGG_LEFT_ROUND] = centre, -1, -1
    state[S.G_WINNER], state[S.G_WIN_TEAM] = -1, -1
    state[S.G_MEDALLION_BANK] = (
        rules[S.CFG_MEDALLION_SUPPLY] - 1 - n_players * rules[S.CFG_START_MEDALLIONS]
    )
    for node in range(n_nodes):
        state[S.B_TILE + node] = rules[S.C_TILE0 + node]
        state[S.B_OCC + node] = S.NOBODY
        state[S.B_SWARM + node] = -1
    # the Blood tiles go face down (shuffled) on the Blood spaces; a space left without one
    # (the assumed board has a spare, so that it stays symmetric) is a Blank tile
    n_blood = rules[S.CFG_N_BLOOD]
    spaces = 0
    for node in range(centre):
        if state[S.B_TILE + node] == S.BLOOD_TILE:
            spaces += 1
    values = np.zeros(spaces, dtype=np.int64)
    values[:n_blood] = rules[rules[S.CFG_BLOOD] : rules[S.CFG_BLOOD] + n_blood]
    shuffle(rng, SETUP, values)
    k = 0
    for node in range(centre):
        if state[S.B_TILE + node] == S.BLOOD_TILE:
            state[S.B_BLOOD + node] = values[k]
            if values[k] == 0:
                state[S.B_TILE + node] = S.BLANK
            k += 1
    # Objects: the two decks
    n_t = rules[S.CFG_N_TEMPLE]
    temple, objects = S.deck(rules, S.D_TEMPLE), S.deck(rules, S.D_OBJECTS)
    state[temple : temple + n_t] = rules[rules[S.CFG_TCARDS] : rules[S.CFG_TCARDS] + n_t]
    shuffle(rng, SETUP, state[temple : temple + n_t])
    n_o = rules[S.CFG_N_OBJECTS]
    for i in range(n_o):
        state[objects + i] = i
    shuffle(rng, SETUP, state[objects : objects + n_o])
    state[S.G_ODECK_N] = n_o
    state[S.G_BANK] = rules[S.CFG_BANK]
    starts = np.full(rules[S.CFG_N_STARTS], -1, dtype=np.int64)
    for node in range(centre):
        if rules[S.C_START + node] >= 0:
            starts[rules[S.C_START + node]] = node
    for fig in range(rules[S.CFG_N_FIGS]):
        state[S.F_POS + fig] = S.OFF
        if fig < n_players:
            state[S.F_KIND + fig], state[S.F_OWNER + fig] = S.PLUNDERER, fig
        else:
            state[S.F_KIND + fig] = S.SPAWN
            state[S.F_OWNER + fig] = (fig - n_players) // rules[S.CFG_SPAWN_MAX]
    for seat in range(n_players):
        team = (seat + first_team) % 2
        if n_players % 2 == 1 and seat == n_players - 1 and rules[S.CFG_EXTRA_OTHER] == 1:
            team = (first_team + 1) % 2  # the player more joins the team that does not start
        state[S.P_STATUS + seat] = S.ALIVE
        state[S.P_TEAM + seat] = team if rules[S.CFG_TEAM_MODE] == 1 else seat
        state[S.P_SWARM + seat] = team if rules[S.CFG_TEAM_MODE] == 1 else 0
        state[S.P_DEATH_ROUND + seat] = -1
        state[S.P_MEDALLIONS + seat] = rules[S.CFG_START_MEDALLIONS]
        core.gain_coins(state, seat, rules[S.CFG_START_COINS], S.P_START_COINS)
        for _ in range(rules[S.CFG_START_OBJECTS]):
            core.draw_object(state, rules, rng, seat)
        core.place_figure(state, rules, seat, starts[rules[rules[S.CFG_STARTS] + seat]])


@rule
def alive_plunderers(state, rules):
    n = 0
    for s in range(rules[S.CFG_PLAYERS]):
        if state[S.P_STATUS + s] == S.ALIVE:
            n += 1
    return n


@rule
def escaped(state, rules, seat):
    """Final Moments of the Game: a plunderer who begins its turn in the jungle with the Egg
    wins (for its team in Team mode)."""
    return state[S.G_EGG_CARRIER] == seat and board.is_jungle(rules, state[S.F_POS + seat])


PLAYED, ENDED, PAUSED = range(3)  # how play_from stops
NOT_RESUMED, RESUMED = 0, 1  # play_from's ``resumed``
NO_SEATS = 0  # play_from's ``searched``: no seat paused for the search driver


@layer
def seat_turn(state, rules, knobs, rng, trace, seat):
    """One seat's turn: a living plunderer moves, a dead player's swarm acts (Turns).  Final
    Moments: a plunderer beginning its turn in the jungle with the Egg wins; returns True
    then."""
    status = state[S.P_STATUS + seat]
    if status == S.ALIVE:
        if escaped(state, rules, seat):
            state[S.G_WINNER] = seat
            state[S.G_WIN_TEAM] = state[S.P_TEAM + seat]
            state[S.G_END] = S.END_EGG
            core.record(state, trace, S.EV_WIN, seat, state[S.P_TEAM + seat], 0, 0, 0)
            return True
        core.record(state, trace, S.EV_TURN, seat, 0, state[S.P_COINS + seat], 0, 0)
        movement.plunderer_turn(state, rules, knobs, rng, trace, seat)
    elif status == S.DEAD:
        core.record(state, trace, S.EV_TURN, seat, 1, state[S.P_COINS + seat], 0, 0)
        spawns.swarm_turn(state, rules, knobs, rng, trace, seat)
    return False


@rule
def play_from(
    state, rules, knobs, rng, trace, timeline, first_round, first_seat, end_round, searched, resumed
):
    """Setup / Turns: rounds of turns in seat order (clockwise, from the starting player) from
    ``first_seat``'s turn of round ``first_round`` up to the end of round ``end_round - 1``; the
    game ends when a plunderer escapes with the Egg or every plunderer is dead.  Returns ENDED,
    PLAYED (``end_round`` reached), or PAUSED before the plunderer turn of a living seat in the
    bit set ``searched`` (G_ROUND and G_SEAT say whose: the search driver plays it).
    ``resumed`` (RESUMED or NOT_RESUMED): the first seat's turn has been played already (by the
    search driver)."""
    n_players = rules[S.CFG_PLAYERS]
    for rnd in range(first_round, end_round):
        state[S.G_ROUND] = rnd
        ended = False
        for seat in range(first_seat if rnd == first_round else 0, n_players):
            state[S.G_SEAT] = seat
            if not (resumed and rnd == first_round and seat == first_seat):
                if (
                    (searched >> seat) & 1
                    and state[S.P_STATUS + seat] == S.ALIVE
                    and not escaped(state, rules, seat)
                ):
                    core.record(state, trace, S.EV_TURN, seat, 0, state[S.P_COINS + seat], 0, 0)
                    return PAUSED
                ended = seat_turn(state, rules, knobs, rng, trace, seat)
                if ended:
                    break
            if alive_plunderers(state, rules) == 0:
                state[S.G_END] = S.END_ALL_DEAD
                ended = True
                break
        if rnd < timeline.shape[0]:
            for seat in range(n_players):
                timeline[rnd, seat] = state[S.P_COINS + seat]
        if ended:
            state[S.G_ROUND] = rnd + 1
            core.record(state, trace, S.EV_END, state[S.G_WINNER], state[S.G_END], rnd + 1, 0, 0)
            return ENDED
    return PLAYED


@rule
def close_game(state, rules, trace, status):
    """The round cap (ASSUMED) ends a game nobody has won."""
    if status == ENDED:
        return
    state[S.G_ROUND] = rules[S.CFG_ROUND_CAP]
    state[S.G_END] = S.END_ROUND_CAP
    core.record(state, trace, S.EV_END, -1, S.END_ROUND_CAP, state[S.G_ROUND], 0, 0)


@layer
def play_rounds(state, rules, knobs, rng, trace, timeline):
    """A set-up game played to its end with every decision by the seats' policies."""
    cap = rules[S.CFG_ROUND_CAP]
    status = play_from(state, rules, knobs, rng, trace, timeline, 0, 0, cap, NO_SEATS, NOT_RESUMED)
    close_game(state, rules, trace, status)
