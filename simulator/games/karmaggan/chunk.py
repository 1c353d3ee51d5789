"""Karmaggän whole games: set up, played to the end, their outputs written, and a chunk of games
per call (rulebook: shared/rules/karmaggan.md).

Two entry points, so a run without `search` seats never compiles the search driver:
:func:`play_games` plays every turn by the seats' policies (:func:`engine.play_rounds`);
:func:`play_search_games` pauses before each search seat's plunderer turn
(:func:`search.play_search_rounds`).  The wrapper (game.py) picks one by the seats' policies.
"""

import numpy as np

from simulator.core.kernel import entry, layer, rule
from simulator.core.rng import N_STREAMS
from simulator.games.karmaggan.core import new_game
from simulator.games.karmaggan.engine import play_rounds, setup_game
from simulator.games.karmaggan.search import play_search_rounds, search_buffers
from simulator.games.karmaggan.state import (
    CFG_PLAYERS,
    CFG_STATE_SIZE,
    CFG_TEAM_MODE,
    ELIMINATED,
    G_BANK,
    G_DEATHS,
    G_EGG_LEFT_ROUND,
    G_END,
    G_NEV,
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
    G_WIN_TEAM,
    G_WINNER,
    MAX_PLAYERS,
    N_SOURCES,
    P_COINS,
    P_COMBATS_LOST,
    P_COMBATS_WON,
    P_DEATH_ROUND,
    P_EGG_PASSES,
    P_EGG_TAKES,
    P_EGG_THROWS,
    P_EGG_TURNS,
    P_GAIN_BLOOD,
    P_GAIN_COMBAT,
    P_GAIN_OTHER,
    P_LOST_ARROWS,
    P_MEDALLION_INVOKES,
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
    P_OUT_MEDALLION_INVOKES,
    P_OUT_OBJECTS,
    P_OUT_OTHER_GAIN,
    P_OUT_PASSES,
    P_OUT_SACRIFICES,
    P_OUT_SCORE,
    P_OUT_SPAWN_TURNS,
    P_OUT_START,
    P_OUT_TAKES,
    P_OUT_TEAM,
    P_OUT_THROWS,
    P_OUT_WON,
    P_OUT_WON_COMBATS,
    P_SACRIFICES,
    P_SPAWN_TURNS,
    P_SPAWNS_INVOKED,
    P_START_COINS,
    P_STATUS,
    P_TEAM,
)


@rule
def write_outputs(state, rules, out_game, out_players):
    """Copy one finished game's results into its output rows."""
    out_game[G_OUT_WINNER] = state[G_WINNER]
    out_game[G_OUT_LENGTH] = state[G_ROUND]
    out_game[G_OUT_END] = state[G_END]
    out_game[G_OUT_WIN_TEAM] = state[G_WIN_TEAM]
    out_game[G_OUT_EGG_LEFT] = state[G_EGG_LEFT_ROUND]
    out_game[G_OUT_DEATHS] = state[G_DEATHS]
    out_game[G_OUT_BANK] = state[G_BANK]
    out_game[G_OUT_SEARCH] = state[G_SEARCH_DECISIONS]
    for s in range(rules[CFG_PLAYERS]):
        row = out_players[s]
        won = state[G_WINNER] >= 0 and (
            s == state[G_WINNER]
            or (rules[CFG_TEAM_MODE] == 1 and state[P_TEAM + s] == state[G_WIN_TEAM])
        )
        row[P_OUT_SCORE] = 1 if won else 0
        row[P_OUT_WON] = 1 if won else 0
        row[P_OUT_TEAM] = state[P_TEAM + s]
        row[P_OUT_START] = state[P_START_COINS + s]
        row[P_OUT_FINAL] = state[P_COINS + s]
        row[P_OUT_DIED] = 1 if state[P_DEATH_ROUND + s] >= 0 else 0
        row[P_OUT_DEATH_ROUND] = state[P_DEATH_ROUND + s]
        for k in range(N_SOURCES):
            row[P_OUT_ARROWS + k] = state[P_LOST_ARROWS + k * MAX_PLAYERS + s]
        row[P_OUT_BLOOD_GAIN] = state[P_GAIN_BLOOD + s]
        row[P_OUT_COMBAT_GAIN] = state[P_GAIN_COMBAT + s]
        row[P_OUT_OTHER_GAIN] = state[P_GAIN_OTHER + s]
        row[P_OUT_WON_COMBATS] = state[P_COMBATS_WON + s]
        row[P_OUT_LOST_COMBATS] = state[P_COMBATS_LOST + s]
        row[P_OUT_SPAWN_TURNS] = state[P_SPAWN_TURNS + s]
        row[P_OUT_EGG_TURNS] = state[P_EGG_TURNS + s]
        row[P_OUT_OBJECTS] = state[P_OBJECTS_PLAYED + s]
        row[P_OUT_INVOKED] = state[P_SPAWNS_INVOKED + s]
        row[P_OUT_ELIMINATED] = 1 if state[P_STATUS + s] == ELIMINATED else 0
        row[P_OUT_PASSES], row[P_OUT_TAKES] = state[P_EGG_PASSES + s], state[P_EGG_TAKES + s]
        row[P_OUT_THROWS] = state[P_EGG_THROWS + s]
        row[P_OUT_SACRIFICES] = state[P_SACRIFICES + s]
        row[P_OUT_MEDALLION_INVOKES] = state[P_MEDALLION_INVOKES + s]


@layer
def play_game(
    state, rules, knobs, rng, trace, timeline, seed, seat_policies, out_game, out_players
):
    """One whole game in ``state`` and ``rng`` (any contents: it starts afresh): out_game
    int64[N_GAME_OUT], out_players int64[n_players, N_PLAYER_OUT], timeline
    int16[round_cap or 0, n_players] (coins after each round), trace
    int64[max_events, TRACE_WIDTH].  Returns the number of trace rows written."""
    new_game(state, rules, rng, seed, seat_policies)
    setup_game(state, rules, rng)
    play_rounds(state, rules, knobs, rng, trace, timeline)
    write_outputs(state, rules, out_game, out_players)
    return state[G_NEV]


@entry
def play_games(rules, knobs, seeds, seat_policies, out_games, out_players, timelines, trace):
    """Play ``len(seeds)`` games; returns the number of trace rows of the last one.

    rules int64[rules[CFG_RULES_SIZE]] (state.py); knobs float64[n_policies, 1 + n_knobs];
    seeds uint64[n]; seat_policies int8[n, n_players]; outputs: out_games int64[n, N_GAME_OUT],
    out_players int64[n, n_players, N_PLAYER_OUT], timelines int16[n, round_cap or 0,
    n_players], trace int64[max_events, TRACE_WIDTH] (0 rows in bulk runs; a replay plays one
    game: one kernel for both, as each kernel compiles the whole engine).
    """
    state = np.zeros(rules[CFG_STATE_SIZE], np.int64)
    rng = np.zeros(N_STREAMS, np.uint64)
    n_events = 0
    for g in range(seeds.shape[0]):
        n_events = play_game(
            state,
            rules,
            knobs,
            rng,
            trace,
            timelines[g],
            seeds[g],
            seat_policies[g],
            out_games[g],
            out_players[g],
        )
    return n_events


@entry
def play_search_games(rules, knobs, seeds, seat_policies, out_games, out_players, timelines, trace):
    """play_games for games with search seats (the round loop of :mod:`search`)."""
    state = np.zeros(rules[CFG_STATE_SIZE], np.int64)
    rng = np.zeros(N_STREAMS, np.uint64)
    work, work_rng, values, picks, cards = search_buffers(state, rng, rules)
    n_events = 0
    for g in range(seeds.shape[0]):
        new_game(state, rules, rng, seeds[g], seat_policies[g])
        setup_game(state, rules, rng)
        play_search_rounds(
            state, rules, knobs, rng, trace, timelines[g], work, work_rng, values, picks, cards
        )
        write_outputs(state, rules, out_games[g], out_players[g])
        n_events = state[G_NEV]
    return n_events
