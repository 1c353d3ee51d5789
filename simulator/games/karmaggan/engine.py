"""Karmaggän engine: numba kernels over plain int64 arrays (rulebook: shared/rules/karmaggan.md).

This module sets a game up, plays its rounds to the end and writes the outputs; the rules live
in one module per rulebook section, each importing only the ones above it:

* :mod:`world`     the world ``W``: a game's arrays behind one reference
* :mod:`core`      a new world, the trace, figures on the board, coins and cards
* :mod:`death`     Dead or Alive, A New Life: losing coins, dying, Invocation tiles
* :mod:`egg`       The Alien Egg: picking up, passing, throwing
* :mod:`traps`     Ring Traps, Rollers, Piston, Rotations, Ram, Flash, the Temple deck
* :mod:`tiles`     Tiles: the effect of each tile stepped on
* :mod:`combat`    Combat: rounds, comparison, end of combat
* :mod:`objects`   Objects and their effects
* :mod:`movement`  Turns and Movement: a plunderer's turn
* :mod:`spawns`    Spawns: the swarm's turn

State pattern (shared by every balsim engine, see the Ekonos engine): a game's state is a
handful of int64 arrays whose slots have names (``state.py``).  Karmaggän has more of them, so
they travel together as the world ``W`` (built by :func:`core.new_world`), read like a tuple
(``W[BOARD]``) but passed to a call as one reference (:mod:`world`):

* ``W[CFG]``      int64[N_CFG + n_blood + n_players]  rules numbers, Blood tiles, start points
* ``W[CELLS]``    int64[n_nodes, N_CELL]         static board: ring/row/column, walls, tiles
* ``W[ROLLERS]``  int64[n_rollers]               outer-ring boundaries b (between b and b+1)
* ``W[CARDS]``    int64[n_objects, 2]            object card id -> (effect, combat value)
* ``W[TCARDS]``   int64[n_temple]                the Temple deck's cards (T_*)
* ``W[BEATS]``    int64[4, 4]                    1 where combat value i beats value j
* ``W[KNOB_TABLE]``    float64[n_policies, n_knobs]   policy knobs; ``W[POLICY_IDS]``
  int8[n_players]
* ``W[RNG]``      uint64[N_STREAMS]              the game's random streams (simulator.core.rng)
* ``W[GAME]``     int64[N_GAME]                  scalars: round, Egg, bank, decks, ring offsets
* ``W[BOARD]``    int64[n_nodes, N_BOARD]        tile type, Blood value, occupant, hatch open
* ``W[FIGS]``     int64[n_figs, N_FIG]           plunderers then spawns: position, kind, owner
* ``W[PLAYERS]``  int64[n_players, N_PLAYER]     coins, status, counters for the output
* ``W[HANDS]``    int64[n_players, hand_max]     object card ids, -1 empty
* ``W[DECKS]``    int64[3, max_deck]             Temple deck, Object deck, Object discards
* ``W[ACTS]``     int64[MAX_ACTS, 2]             (figure, node) activated this turn
* ``W[OPTIONS]``  int64[MAX_OPTIONS, OPT_WIDTH]  the legal options of the current decision
* ``W[DCACHE]``   int64[DCACHE_SLOTS, n_nodes]   cached distance maps; ``W[QUEUE]`` BFS queue
* ``W[TRACE]``    int64[max_events, TRACE_WIDTH] event log for replay (0 rows in bulk runs)
* ``W[TIMELINE]`` int16[round_cap, n_players]    blood coins of each seat after each round

Compiling (:mod:`simulator.core.kernel`): the rule functions and policies, which never allocate,
are compiled without numba's reference counting (``rule``), so passing ``W`` costs no atomic
increment; such a kernel cannot return an array it did not receive, so the distance maps and
adjacency are read from ``W`` (``board.distance_slot``, ``board.update_adjacency``).  The few
that allocate (a new world, the set-up's temporaries, a combat's cards put aside, a throw's
distances, the search's buffers and re-deal) are ``allocating``; the games loops Python calls
are ``entry`` kernels.

Decisions go through :func:`decide.choose`: the engine lists the legal options in
``W[OPTIONS]`` and the deciding seat's policy picks an index; an illegal move cannot be
expressed.

Blood coins are conserved: every coin is in the bank or with a player (``G_BANK`` +
Σ ``P_COINS`` = ``setup.bank_coins``); traps, the Piston, Rollers and Spawns return coins to
the bank, combat between plunderers moves them between players.
"""

import numpy as np

from simulator.core.kernel import allocating, entry, layer, rule
from simulator.core.rng import SETUP, rng_below, shuffle
from simulator.games.karmaggan.board import is_jungle
from simulator.games.karmaggan.core import draw_object, gain_coins, new_world, place_figure, record
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
    BOARD,
    C_START,
    C_TILE0,
    CARDS,
    CELLS,
    CFG,
    CFG_BANK,
    CFG_CENTRE,
    CFG_MEDALLION_SUPPLY,
    CFG_N_BLOOD,
    CFG_N_STARTS,
    CFG_NODES,
    CFG_PLAYERS,
    CFG_ROUND_CAP,
    CFG_SPAWN_MAX,
    CFG_START_COINS,
    CFG_START_MEDALLIONS,
    CFG_START_OBJECTS,
    CFG_TEAM_MODE,
    D_OBJECTS,
    D_TEMPLE,
    DCACHE_SLOTS,
    DEAD,
    DECKS,
    ELIMINATED,
    END_ALL_DEAD,
    END_EGG,
    END_ROUND_CAP,
    EV_END,
    EV_TURN,
    EV_WIN,
    F_KIND,
    F_OWNER,
    F_POS,
    FIGS,
    G_BANK,
    G_DEATHS,
    G_DKEY,
    G_EGG_CARRIER,
    G_EGG_LEFT_ROUND,
    G_EGG_POS,
    G_END,
    G_MEDALLION_BANK,
    G_NEV,
    G_ODECK_N,
    G_OUT_BANK,
    G_OUT_DEATHS,
    G_OUT_EGG_LEFT,
    G_OUT_END,
    G_OUT_LENGTH,
    G_OUT_SEARCH,
    G_OUT_WIN_TEAM,
    G_OUT_WINNER,
    G_ROUND,
    G_SEARCH_DECISIONS,
    G_SEAT,
    G_WIN_TEAM,
    G_WINNER,
    GAME,
    N_CFG,
    NOBODY,
    OFF,
    P_COINS,
    P_COMBATS_LOST,
    P_COMBATS_WON,
    P_DEATH_ROUND,
    P_EGG_TURNS,
    P_GAIN_BLOOD,
    P_GAIN_COMBAT,
    P_GAIN_OTHER,
    P_LOST_ARROWS,
    P_MEDALLIONS,
    P_OBJECTS_PLAYED,
    P_OUT_ARROWS,
    P_OUT_BLOOD_GAIN,
    P_OUT_COMBAT_GAIN,
    P_OUT_DEATH_ROUND,
    P_OUT_DIED,
    P_OUT_EGG_TURNS,
    P_OUT_ELIMINATED,
    P_OUT_FINAL,
    P_OUT_INVOKED,
    P_OUT_LOST_COMBATS,
    P_OUT_OBJECTS,
    P_OUT_OTHER_GAIN,
    P_OUT_SCORE,
    P_OUT_SPAWN_TURNS,
    P_OUT_START,
    P_OUT_TEAM,
    P_OUT_WON,
    P_OUT_WON_COMBATS,
    P_SPAWN_TURNS,
    P_SPAWNS_INVOKED,
    P_START_COINS,
    P_STATUS,
    P_SWARM,
    P_TEAM,
    PLAYERS,
    PLUNDERER,
    RNG,
    SPAWN,
    TCARDS,
    TIMELINE,
)


@allocating
def setup_game(W):
    """Setup / Setup, Continued: rings aligned, hatches closed, the Egg on the Centre, Blood
    tiles face down (shuffled), plunderers on the starting points, each player with 4 Object
    cards, 1 Golden Medallion and the blood coins of the player count.  Seat 0 starts ("the
    player with the least honour"): its team is drawn, so either team may move first; seats
    alternate teams around the table.  ASSUMED: the starting point of each seat
    (``board.start_points``)."""
    cfg, cells, game, board, figs, players = (
        W[CFG],
        W[CELLS],
        W[GAME],
        W[BOARD],
        W[FIGS],
        W[PLAYERS],
    )
    rng, decks = W[RNG], W[DECKS]
    n_players, n_nodes = cfg[CFG_PLAYERS], cfg[CFG_NODES]
    centre = cfg[CFG_CENTRE]
    first_team = rng_below(rng, SETUP, 2)
    for k in range(DCACHE_SLOTS):
        game[G_DKEY + 2 * k] = -1
    game[G_EGG_POS], game[G_EGG_CARRIER], game[G_EGG_LEFT_ROUND] = centre, -1, -1
    game[G_WINNER], game[G_WIN_TEAM] = -1, -1
    game[G_MEDALLION_BANK] = cfg[CFG_MEDALLION_SUPPLY] - 1 - n_players * cfg[CFG_START_MEDALLIONS]
    for node in range(n_nodes):
        board[node, B_TILE] = cells[node, C_TILE0]
        board[node, B_OCC] = NOBODY
        board[node, B_SWARM] = -1
    # the Blood tiles go face down (shuffled) on the Blood spaces; a space left without one
    # (the assumed board has a spare, so that it stays symmetric) is a Blank tile
    n_blood = cfg[CFG_N_BLOOD]
    spaces = 0
    for node in range(centre):
        if board[node, B_TILE] == BLOOD_TILE:
            spaces += 1
    values = np.zeros(spaces, dtype=np.int64)
    values[:n_blood] = cfg[N_CFG : N_CFG + n_blood]
    shuffle(rng, SETUP, values)
    k = 0
    for node in range(centre):
        if board[node, B_TILE] == BLOOD_TILE:
            board[node, B_BLOOD] = values[k]
            if values[k] == 0:
                board[node, B_TILE] = BLANK
            k += 1
    # Objects: the two decks
    n_t = W[TCARDS].shape[0]
    decks[D_TEMPLE, :n_t] = W[TCARDS]
    shuffle(rng, SETUP, decks[D_TEMPLE, :n_t])
    n_o = W[CARDS].shape[0]
    for i in range(n_o):
        decks[D_OBJECTS, i] = i
    shuffle(rng, SETUP, decks[D_OBJECTS, :n_o])
    game[G_ODECK_N] = n_o
    game[G_BANK] = cfg[CFG_BANK]
    starts = np.full(cfg[CFG_N_STARTS], -1, dtype=np.int64)
    for node in range(centre):
        if cells[node, C_START] >= 0:
            starts[cells[node, C_START]] = node
    for fig in range(figs.shape[0]):
        figs[fig, F_POS] = OFF
        if fig < n_players:
            figs[fig, F_KIND], figs[fig, F_OWNER] = PLUNDERER, fig
        else:
            figs[fig, F_KIND] = SPAWN
            figs[fig, F_OWNER] = (fig - n_players) // cfg[CFG_SPAWN_MAX]
    start_at = N_CFG + cfg[CFG_N_BLOOD]
    for seat in range(n_players):
        team = (seat + first_team) % 2
        players[seat, P_STATUS] = ALIVE
        players[seat, P_TEAM] = team if cfg[CFG_TEAM_MODE] == 1 else seat
        players[seat, P_SWARM] = team if cfg[CFG_TEAM_MODE] == 1 else 0
        players[seat, P_DEATH_ROUND] = -1
        players[seat, P_MEDALLIONS] = cfg[CFG_START_MEDALLIONS]
        gain_coins(W, seat, cfg[CFG_START_COINS], P_START_COINS)
        for _ in range(cfg[CFG_START_OBJECTS]):
            draw_object(W, seat)
        place_figure(W, seat, starts[cfg[start_at + seat]])


@rule
def alive_plunderers(W):
    players = W[PLAYERS]
    n = 0
    for s in range(players.shape[0]):
        if players[s, P_STATUS] == ALIVE:
            n += 1
    return n


@rule
def escaped(W, seat):
    """Final Moments of the Game: a plunderer who begins its turn in the jungle with the Egg
    wins (for its team in Team mode)."""
    return W[GAME][G_EGG_CARRIER] == seat and is_jungle(W, W[FIGS][seat, F_POS])


PLAYED, ENDED, PAUSED = range(3)  # how play_from stops
NOT_RESUMED, RESUMED = 0, 1  # play_from's ``resumed``
NO_SEATS = 0  # play_from's ``searched``: no seat paused for the search driver


@layer
def seat_turn(W, seat):
    """One seat's turn: a living plunderer moves, a dead player's swarm acts (Turns).  Final
    Moments: a plunderer beginning its turn in the jungle with the Egg wins; returns True
    then."""
    game, players = W[GAME], W[PLAYERS]
    status = players[seat, P_STATUS]
    if status == ALIVE:
        if escaped(W, seat):
            game[G_WINNER] = seat
            game[G_WIN_TEAM] = players[seat, P_TEAM]
            game[G_END] = END_EGG
            record(W, EV_WIN, seat, players[seat, P_TEAM], 0, 0, 0)
            return True
        record(W, EV_TURN, seat, 0, players[seat, P_COINS], 0, 0)
        plunderer_turn(W, seat)
    elif status == DEAD:
        record(W, EV_TURN, seat, 1, players[seat, P_COINS], 0, 0)
        swarm_turn(W, seat)
    return False


@rule
def play_from(W, first_round, first_seat, end_round, searched, resumed):
    """Setup / Turns: rounds of turns in seat order (clockwise, from the starting player) from
    ``first_seat``'s turn of round ``first_round`` up to the end of round ``end_round - 1``; the
    game ends when a plunderer escapes with the Egg or every plunderer is dead.  Returns ENDED,
    PLAYED (``end_round`` reached), or PAUSED before the plunderer turn of a living seat in the
    bit set ``searched`` (G_ROUND and G_SEAT say whose: the search driver plays it).
    ``resumed`` (RESUMED or NOT_RESUMED): the first seat's turn has been played already (by the
    search driver)."""
    cfg, game, players = W[CFG], W[GAME], W[PLAYERS]
    n_players = cfg[CFG_PLAYERS]
    timeline = W[TIMELINE]
    for rnd in range(first_round, end_round):
        game[G_ROUND] = rnd
        ended = False
        for seat in range(first_seat if rnd == first_round else 0, n_players):
            game[G_SEAT] = seat
            if not (resumed and rnd == first_round and seat == first_seat):
                if (
                    (searched >> seat) & 1
                    and players[seat, P_STATUS] == ALIVE
                    and not escaped(W, seat)
                ):
                    record(W, EV_TURN, seat, 0, players[seat, P_COINS], 0, 0)
                    return PAUSED
                ended = seat_turn(W, seat)
                if ended:
                    break
            if alive_plunderers(W) == 0:
                game[G_END] = END_ALL_DEAD
                ended = True
                break
        if rnd < timeline.shape[0]:
            for seat in range(n_players):
                timeline[rnd, seat] = players[seat, P_COINS]
        if ended:
            game[G_ROUND] = rnd + 1
            record(W, EV_END, game[G_WINNER], game[G_END], rnd + 1, 0, 0)
            return ENDED
    return PLAYED


@rule
def close_game(W, status):
    """The round cap (ASSUMED) ends a game nobody has won."""
    if status == ENDED:
        return
    game = W[GAME]
    game[G_ROUND] = W[CFG][CFG_ROUND_CAP]
    game[G_END] = END_ROUND_CAP
    record(W, EV_END, -1, END_ROUND_CAP, game[G_ROUND], 0, 0)


@layer
def play_rounds(W):
    """A set-up game played to its end with every decision by the seats' policies."""
    close_game(W, play_from(W, 0, 0, W[CFG][CFG_ROUND_CAP], NO_SEATS, NOT_RESUMED))


@rule
def write_outputs(W, out_game, out_players):
    """Copy one finished game's results into its output rows."""
    cfg, game, players = W[CFG], W[GAME], W[PLAYERS]
    out_game[G_OUT_WINNER] = game[G_WINNER]
    out_game[G_OUT_LENGTH] = game[G_ROUND]
    out_game[G_OUT_END] = game[G_END]
    out_game[G_OUT_WIN_TEAM] = game[G_WIN_TEAM]
    out_game[G_OUT_EGG_LEFT] = game[G_EGG_LEFT_ROUND]
    out_game[G_OUT_DEATHS] = game[G_DEATHS]
    out_game[G_OUT_BANK] = game[G_BANK]
    out_game[G_OUT_SEARCH] = game[G_SEARCH_DECISIONS]
    for s in range(cfg[CFG_PLAYERS]):
        row = out_players[s]
        won = game[G_WINNER] >= 0 and (
            s == game[G_WINNER]
            or (cfg[CFG_TEAM_MODE] == 1 and players[s, P_TEAM] == game[G_WIN_TEAM])
        )
        row[P_OUT_SCORE] = 1 if won else 0
        row[P_OUT_WON] = 1 if won else 0
        row[P_OUT_TEAM] = players[s, P_TEAM]
        row[P_OUT_START] = players[s, P_START_COINS]
        row[P_OUT_FINAL] = players[s, P_COINS]
        row[P_OUT_DIED] = 1 if players[s, P_DEATH_ROUND] >= 0 else 0
        row[P_OUT_DEATH_ROUND] = players[s, P_DEATH_ROUND]
        for k in range(7):
            row[P_OUT_ARROWS + k] = players[s, P_LOST_ARROWS + k]
        row[P_OUT_BLOOD_GAIN] = players[s, P_GAIN_BLOOD]
        row[P_OUT_COMBAT_GAIN] = players[s, P_GAIN_COMBAT]
        row[P_OUT_OTHER_GAIN] = players[s, P_GAIN_OTHER]
        row[P_OUT_WON_COMBATS] = players[s, P_COMBATS_WON]
        row[P_OUT_LOST_COMBATS] = players[s, P_COMBATS_LOST]
        row[P_OUT_SPAWN_TURNS] = players[s, P_SPAWN_TURNS]
        row[P_OUT_EGG_TURNS] = players[s, P_EGG_TURNS]
        row[P_OUT_OBJECTS] = players[s, P_OBJECTS_PLAYED]
        row[P_OUT_INVOKED] = players[s, P_SPAWNS_INVOKED]
        row[P_OUT_ELIMINATED] = 1 if players[s, P_STATUS] == ELIMINATED else 0


@layer
def play_game(
    cfg,
    cells,
    rollers,
    cards,
    tcards,
    beats,
    knobs,
    seed,
    policy_ids,
    out_game,
    out_players,
    timeline,
    trace,
):
    """One whole game: out_game int64[N_GAME_OUT], out_players int64[n_players, N_PLAYER_OUT],
    timeline int16[round_cap, n_players] (coins after each round), trace
    int64[max_events, TRACE_WIDTH].  Returns the number of trace rows written."""
    W = new_world(
        cfg, cells, rollers, cards, tcards, beats, knobs, policy_ids, seed, trace, timeline
    )
    setup_game(W)
    play_rounds(W)
    write_outputs(W, out_game, out_players)
    return W[GAME][G_NEV]


@entry
def play_games(
    cfg,
    cells,
    rollers,
    cards,
    tcards,
    beats,
    knobs,
    seeds,
    seat_policies,
    out_games,
    out_players,
    timelines,
    trace,
):
    """Play ``len(seeds)`` games; returns the number of trace rows of the last one.

    cfg int64[N_CFG + n_blood + n_players]; cells int64[n_nodes, N_CELL]; rollers
    int64[n_rollers]; cards int64[n_objects, 2]; tcards int64[n_temple]; beats int64[4, 4];
    knobs float64[n_policies, n_knobs]; seeds uint64[n]; seat_policies int8[n, n_players];
    outputs: out_games int64[n, N_GAME_OUT], out_players int64[n, n_players, N_PLAYER_OUT],
    timelines int16[n, round_cap or 0, n_players], trace int64[max_events, TRACE_WIDTH] (0 rows
    in bulk runs; a replay plays one game: one kernel for both, as each kernel compiles the whole
    engine).
    """
    n_events = 0
    for g in range(seeds.shape[0]):
        n_events = play_game(
            cfg,
            cells,
            rollers,
            cards,
            tcards,
            beats,
            knobs,
            seeds[g],
            seat_policies[g],
            out_games[g],
            out_players[g],
            timelines[g],
            trace,
        )
    return n_events
