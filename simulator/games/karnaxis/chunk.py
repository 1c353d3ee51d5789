"""Karnaxis whole games: setup, the loop to the end, Game End, and a chunk of games per call.

Two entry points, so a run without `search` seats never compiles the search driver:
:func:`play_games` plays every step with :func:`engine.advance`; :func:`play_search_games`
plays every step through :func:`search.search_step`.  The wrapper (game.py) picks one by the
seats' policies; a game with no search seat plays the same either way.
"""

import numpy as np

from simulator.core.kernel import entry, layer
from simulator.core.rng import N_STREAMS
from simulator.games.karnaxis.engine import advance, new_game, write_years
from simulator.games.karnaxis.search import search_buffers, search_step
from simulator.games.karnaxis.state import (
    AT_END,
    AT_YEAR_END,
    CFG_PLAYERS,
    CFG_STATE_SIZE,
    CFG_YEARS,
    PHASE,
    TRACE_N,
)
from simulator.games.karnaxis.year_end import end_game


@layer
def play_game(
    state, rules, knobs, rng, trace, seed, seat_policies, out_game, out_players, out_years
):
    """One whole game into out_game int64[N_GAME_OUT], out_players int64[n_players,
    N_PLAYER_OUT + copied columns] and out_years int64[years * n_players, N_YEAR_OUT].
    Returns the number of trace rows written."""
    new_game(state, rules, knobs, rng, seed, seat_policies)
    advance(state, rules, knobs, rng, trace, out_years, rules[CFG_YEARS])
    end_game(state, rules, trace, out_game, out_players)
    return state[TRACE_N]


@layer
def search_game(
    state,
    rules,
    knobs,
    rng,
    trace,
    seed,
    seat_policies,
    out_game,
    out_players,
    out_years,
    work,
    work_rng,
    values,
):
    """:func:`play_game` with every step played by the search driver (work buffers:
    search.search_step)."""
    new_game(state, rules, knobs, rng, seed, seat_policies)
    while state[PHASE] != AT_END:
        year_ends = state[PHASE] == AT_YEAR_END
        search_step(state, rules, knobs, rng, trace, work, work_rng, values)
        if year_ends:
            write_years(state, rules, out_years)
    end_game(state, rules, trace, out_game, out_players)
    return state[TRACE_N]


@entry
def play_games(rules, knobs, seeds, seat_policies, out_games, out_players, out_years, trace):
    """Play ``len(seeds)`` games without search seats; returns the number of trace rows of the
    last one.

    rules int64 (state.py), knobs float64[n_policies, 1 + n_knobs], seeds uint64[n],
    seat_policies int8[n, n_players]; outputs: out_games int64[n, N_GAME_OUT], out_players
    int64[n, n_players, N_PLAYER_OUT + copied columns], out_years
    int64[n * years * n_players, N_YEAR_OUT] (game-major, then year, then seat); trace
    int64[max_events, TRACE_WIDTH] (0 rows in bulk runs; a replay plays one game: one kernel
    for both, as each kernel compiles the whole engine).
    """
    rows = rules[CFG_YEARS] * rules[CFG_PLAYERS]
    state = np.zeros(rules[CFG_STATE_SIZE], dtype=np.int64)
    rng = np.zeros(N_STREAMS, dtype=np.uint64)
    for g in range(seeds.shape[0]):
        play_game(
            state,
            rules,
            knobs,
            rng,
            trace,
            seeds[g],
            seat_policies[g],
            out_games[g],
            out_players[g],
            out_years[g * rows : (g + 1) * rows],
        )
    return state[TRACE_N]


@entry
def play_search_games(rules, knobs, seeds, seat_policies, out_games, out_players, out_years, trace):
    """:func:`play_games` for games with search seats."""
    rows = rules[CFG_YEARS] * rules[CFG_PLAYERS]
    state = np.zeros(rules[CFG_STATE_SIZE], dtype=np.int64)
    rng = np.zeros(N_STREAMS, dtype=np.uint64)
    work, work_rng, values = search_buffers(rules)
    for g in range(seeds.shape[0]):
        search_game(
            state,
            rules,
            knobs,
            rng,
            trace,
            seeds[g],
            seat_policies[g],
            out_games[g],
            out_players[g],
            out_years[g * rows : (g + 1) * rows],
            work,
            work_rng,
            values,
        )
    return state[TRACE_N]
