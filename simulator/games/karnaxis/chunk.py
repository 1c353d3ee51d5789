"""Karnaxis whole games: setup, the loop to the end, Game End, and a chunk of games per call.

Two entry points, so a run without `search` or `learned` seats never compiles the search
driver: :func:`play_games` plays every step with :func:`engine.play_to_end`;
:func:`play_search_games` plays every step through :func:`turns.step` (a learned seat's action
square, else the search driver's step or the engine's).  The wrapper (outputs.py) picks one by
the seats' policies; a game with no search or learned seat plays the same either way.  A third,
:func:`play_sample_games`, plays games with teaching learned seats and writes down the actions
they weighed, for the learned player's fit (turns.py, "Sampling").
"""

import numpy as np

from policies.learned import HEADER, ROWS, note_outcomes
from simulator.core.kernel import allocating, entry, layer
from simulator.core.rng import N_STREAMS
from simulator.core.trace import TRACE_WIDTH
from simulator.games.karnaxis import engine, features, turns, year_end
from simulator.games.karnaxis import state as S


@layer
def play_game(
    state, rules, knobs, rng, trace, seed, seat_policies, out_game, out_players, out_years
):
    """One whole game into out_game int64[N_GAME_OUT], out_players
    (state.PLAYER_ROW[n_players]) and out_years (state.YEAR_ROW[years * n_players]).
    Returns the number of trace rows written."""
    engine.new_game(state, rules, knobs, rng, seed, seat_policies)
    engine.play_to_end(state, rules, knobs, rng, trace, out_years)
    year_end.end_game(state, rules, trace, out_game, out_players)
    return state[S.TRACE_N]


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
    buffers,
    samples,
):
    """:func:`play_game` with every step played by :func:`turns.step` (``buffers``: the work
    buffers of :func:`search_buffers`; ``samples``: turns.py, "Sampling")."""
    engine.new_game(state, rules, knobs, rng, seed, seat_policies)
    while state[S.PHASE] != S.AT_END:
        year_ends = state[S.PHASE] == S.AT_YEAR_END
        turns.step(state, rules, knobs, rng, trace, buffers, samples)
        if year_ends:
            engine.write_years(state, rules, out_years)
    year_end.end_game(state, rules, trace, out_game, out_players)
    return state[S.TRACE_N]


@entry
def play_games(rules, knobs, seeds, seat_policies, out_games, out_players, out_years, trace):
    """Play ``len(seeds)`` games without search seats; returns the number of trace rows of the
    last one.

    rules int64 (state.py), knobs float64[n_policies, 1 + n_knobs], seeds uint64[n],
    seat_policies int8[n, n_players]; outputs: out_games int64[n, N_GAME_OUT], out_players
    state.PLAYER_ROW[n, n_players], out_years
    state.YEAR_ROW[n * years * n_players] (game-major, then year, then seat); trace
    int64[max_events, TRACE_WIDTH] (0 rows in bulk runs; a replay plays one game: one kernel
    for both, as each kernel compiles the whole engine).
    """
    rows = rules[S.CFG_YEARS] * rules[S.CFG_PLAYERS]
    state = np.zeros(rules[S.CFG_STATE_SIZE], dtype=np.int64)
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
    return state[S.TRACE_N]


@allocating
def search_buffers(rules):
    """The search driver's work buffers, then the learned seats' (turns.learned_buffers)."""
    return (*turns.search_buffers(rules), *turns.learned_buffers())


@layer
def search_chunk(
    rules, knobs, seeds, seat_policies, out_games, out_players, out_years, trace, samples
):
    """:func:`play_games` for games with search or learned seats; while sampling (``samples``
    has rows), each game's rows of ``samples`` get its index and outcome."""
    rows = rules[S.CFG_YEARS] * rules[S.CFG_PLAYERS]
    state = np.zeros(rules[S.CFG_STATE_SIZE], dtype=np.int64)
    rng = np.zeros(N_STREAMS, dtype=np.uint64)
    buffers = search_buffers(rules)
    for g in range(seeds.shape[0]):
        first = np.int64(samples[HEADER, ROWS]) if samples.shape[0] > 0 else 0
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
            buffers,
            samples,
        )
        if samples.shape[0] > 0:
            note_outcomes(samples, first, g, out_players[g]["won"])
    return state[S.TRACE_N]


@entry
def play_search_games(rules, knobs, seeds, seat_policies, out_games, out_players, out_years, trace):
    """:func:`play_games` for games with search or learned seats."""
    no_samples = np.zeros((0, features.SAMPLE_WIDTH))
    return search_chunk(
        rules, knobs, seeds, seat_policies, out_games, out_players, out_years, trace, no_samples
    )


@entry
def play_sample_games(
    rules, knobs, seeds, seat_policies, out_games, out_players, out_years, samples
):
    """:func:`play_search_games` writing down every candidate of each decision a teaching
    learned seat weighed into ``samples`` (float64[rows, SAMPLE_WIDTH], row HEADER zero:
    policies/learned.py); returns the rows filled, row HEADER included."""
    no_trace = np.zeros((0, TRACE_WIDTH), np.int64)
    samples[HEADER, ROWS] = 1.0
    search_chunk(
        rules, knobs, seeds, seat_policies, out_games, out_players, out_years, no_trace, samples
    )
    return np.int64(samples[HEADER, ROWS])
