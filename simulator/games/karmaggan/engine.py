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
from simulator.games.karmaggan.board import is_jungle
from simulator.games.karmaggan.core import draw_object, gain_coins, place_figure, record
from simulator.games.karmaggan.movement import plunderer_turn
from simulator.games.karmaggan.spawns import swarm_turn
from simulator.games.karmaggan.state import (
    ALIVE,
    B_BLOOD,
    B_OCC,
    B_SWARM,
    B_TILE,
    BLANK,
    BLOOD_TILE,
    C_START,
    C_TILE0,
    CFG_BANK,
    CFG_BLOOD,
    CFG_CENTRE,
    CFG_EXTRA_OTHER,
    CFG_MEDALLION_SUPPLY,
    CFG_N_BLOOD,
    CFG_N_FIGS,
    CFG_N_OBJECTS,
    CFG_N_STARTS,
    CFG_N_TEMPLE,
    CFG_NODES,
    CFG_PLAYERS,
    CFG_ROUND_CAP,
    CFG_SPAWN_MAX,
    CFG_START_COINS,
    CFG_START_MEDALLIONS,
    CFG_START_OBJECTS,
    CFG_STARTS,
    CFG_TCARDS,
    CFG_TEAM_MODE,
    D_OBJECTS,
    D_TEMPLE,
    DCACHE_SLOTS,
    DEAD,
    END_ALL_DEAD,
    END_EGG,
    END_ROUND_CAP,
    EV_END,
    EV_TURN,
    EV_WIN,
    F_KIND,
    F_OWNER,
    F_POS,
    G_BANK,
    G_DKEY,
    G_EGG_CARRIER,
    G_EGG_LEFT_ROUND,
    G_EGG_POS,
    G_END,
    G_MEDALLION_BANK,
    G_ODECK_N,
    G_ROUND,
    G_SEAT,
    G_WIN_TEAM,
    G_WINNER,
    NOBODY,
    OFF,
    P_COINS,
    P_DEATH_ROUND,
    P_MEDALLIONS,
    P_START_COINS,
    P_STATUS,
    P_SWARM,
    P_TEAM,
    PLUNDERER,
    SPAWN,
    deck,
)


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
    n_players, n_nodes = rules[CFG_PLAYERS], rules[CFG_NODES]
    centre = rules[CFG_CENTRE]
    first_team = rng_below(rng, SETUP, 2)
    for k in range(DCACHE_SLOTS):
        state[G_DKEY + 2 * k] = -1
    state[G_EGG_POS], state[G_EGG_CARRIER], state[G_EGG_LEFT_ROUND] = centre, -1, -1
    state[G_WINNER], state[G_WIN_TEAM] = -1, -1
    state[G_MEDALLION_BANK] = (
        rules[CFG_MEDALLION_SUPPLY] - 1 - n_players * rules[CFG_START_MEDALLIONS]
    )
    for node in range(n_nodes):
        state[B_TILE + node] = rules[C_TILE0 + node]
        state[B_OCC + node] = NOBODY
        state[B_SWARM + node] = -1
    # the Blood tiles go face down (shuffled) on the Blood spaces; a space left without one
    # (the assumed board has a spare, so that it stays symmetric) is a Blank tile
    n_blood = rules[CFG_N_BLOOD]
    spaces = 0
    for node in range(centre):
        if state[B_TILE + node] == BLOOD_TILE:
            spaces += 1
    values = np.zeros(spaces, dtype=np.int64)
    values[:n_blood] = rules[rules[CFG_BLOOD] : rules[CFG_BLOOD] + n_blood]
    shuffle(rng, SETUP, values)
    k = 0
    for node in range(centre):
        if state[B_TILE + node] == BLOOD_TILE:
            state[B_BLOOD + node] = values[k]
            if values[k] == 0:
                state[B_TILE + node] = BLANK
            k += 1
    # Objects: the two decks
    n_t = rules[CFG_N_TEMPLE]
    temple, objects = deck(rules, D_TEMPLE), deck(rules, D_OBJECTS)
    state[temple : temple + n_t] = rules[rules[CFG_TCARDS] : rules[CFG_TCARDS] + n_t]
    shuffle(rng, SETUP, state[temple : temple + n_t])
    n_o = rules[CFG_N_OBJECTS]
    for i in range(n_o):
        state[objects + i] = i
    shuffle(rng, SETUP, state[objects : objects + n_o])
    state[G_ODECK_N] = n_o
    state[G_BANK] = rules[CFG_BANK]
    starts = np.full(rules[CFG_N_STARTS], -1, dtype=np.int64)
    for node in range(centre):
        if rules[C_START + node] >= 0:
            starts[rules[C_START + node]] = node
    for fig in range(rules[CFG_N_FIGS]):
        state[F_POS + fig] = OFF
        if fig < n_players:
            state[F_KIND + fig], state[F_OWNER + fig] = PLUNDERER, fig
        else:
            state[F_KIND + fig] = SPAWN
            state[F_OWNER + fig] = (fig - n_players) // rules[CFG_SPAWN_MAX]
    for seat in range(n_players):
        team = (seat + first_team) % 2
        if n_players % 2 == 1 and seat == n_players - 1 and rules[CFG_EXTRA_OTHER] == 1:
            team = (first_team + 1) % 2  # the player more joins the team that does not start
        state[P_STATUS + seat] = ALIVE
        state[P_TEAM + seat] = team if rules[CFG_TEAM_MODE] == 1 else seat
        state[P_SWARM + seat] = team if rules[CFG_TEAM_MODE] == 1 else 0
        state[P_DEATH_ROUND + seat] = -1
        state[P_MEDALLIONS + seat] = rules[CFG_START_MEDALLIONS]
        gain_coins(state, seat, rules[CFG_START_COINS], P_START_COINS)
        for _ in range(rules[CFG_START_OBJECTS]):
            draw_object(state, rules, rng, seat)
        place_figure(state, rules, seat, starts[rules[rules[CFG_STARTS] + seat]])


@rule
def alive_plunderers(state, rules):
    n = 0
    for s in range(rules[CFG_PLAYERS]):
        if state[P_STATUS + s] == ALIVE:
            n += 1
    return n


@rule
def escaped(state, rules, seat):
    """Final Moments of the Game: a plunderer who begins its turn in the jungle with the Egg
    wins (for its team in Team mode)."""
    return state[G_EGG_CARRIER] == seat and is_jungle(rules, state[F_POS + seat])


PLAYED, ENDED, PAUSED = range(3)  # how play_from stops
NOT_RESUMED, RESUMED = 0, 1  # play_from's ``resumed``
NO_SEATS = 0  # play_from's ``searched``: no seat paused for the search driver


@layer
def seat_turn(state, rules, knobs, rng, trace, seat):
    """One seat's turn: a living plunderer moves, a dead player's swarm acts (Turns).  Final
    Moments: a plunderer beginning its turn in the jungle with the Egg wins; returns True
    then."""
    status = state[P_STATUS + seat]
    if status == ALIVE:
        if escaped(state, rules, seat):
            state[G_WINNER] = seat
            state[G_WIN_TEAM] = state[P_TEAM + seat]
            state[G_END] = END_EGG
            record(state, trace, EV_WIN, seat, state[P_TEAM + seat], 0, 0, 0)
            return True
        record(state, trace, EV_TURN, seat, 0, state[P_COINS + seat], 0, 0)
        plunderer_turn(state, rules, knobs, rng, trace, seat)
    elif status == DEAD:
        record(state, trace, EV_TURN, seat, 1, state[P_COINS + seat], 0, 0)
        swarm_turn(state, rules, knobs, rng, trace, seat)
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
    n_players = rules[CFG_PLAYERS]
    for rnd in range(first_round, end_round):
        state[G_ROUND] = rnd
        ended = False
        for seat in range(first_seat if rnd == first_round else 0, n_players):
            state[G_SEAT] = seat
            if not (resumed and rnd == first_round and seat == first_seat):
                if (
                    (searched >> seat) & 1
                    and state[P_STATUS + seat] == ALIVE
                    and not escaped(state, rules, seat)
                ):
                    record(state, trace, EV_TURN, seat, 0, state[P_COINS + seat], 0, 0)
                    return PAUSED
                ended = seat_turn(state, rules, knobs, rng, trace, seat)
                if ended:
                    break
            if alive_plunderers(state, rules) == 0:
                state[G_END] = END_ALL_DEAD
                ended = True
                break
        if rnd < timeline.shape[0]:
            for seat in range(n_players):
                timeline[rnd, seat] = state[P_COINS + seat]
        if ended:
            state[G_ROUND] = rnd + 1
            record(state, trace, EV_END, state[G_WINNER], state[G_END], rnd + 1, 0, 0)
            return ENDED
    return PLAYED


@rule
def close_game(state, rules, trace, status):
    """The round cap (ASSUMED) ends a game nobody has won."""
    if status == ENDED:
        return
    state[G_ROUND] = rules[CFG_ROUND_CAP]
    state[G_END] = END_ROUND_CAP
    record(state, trace, EV_END, -1, END_ROUND_CAP, state[G_ROUND], 0, 0)


@layer
def play_rounds(state, rules, knobs, rng, trace, timeline):
    """A set-up game played to its end with every decision by the seats' policies."""
    cap = rules[CFG_ROUND_CAP]
    status = play_from(state, rules, knobs, rng, trace, timeline, 0, 0, cap, NO_SEATS, NOT_RESUMED)
    close_game(state, rules, trace, status)
