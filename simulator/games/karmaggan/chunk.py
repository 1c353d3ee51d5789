"""Karmaggän whole games: set up, played to the end, their outputs written, and a chunk of games
per call (rulebook: shared/rules/karmaggan.md).

Two entry points, so a run without `search` or `learned` seats never compiles their turns:
:func:`play_games` plays every turn by the seats' policies (:func:`engine.play_rounds`);
:func:`play_search_games` pauses before each search or learned seat's plunderer turn
(:func:`turns.play_search_rounds`).  The wrapper (game.py) picks one by the seats' policies.
A third, :func:`play_sample_games`, plays games with search or teaching learned seats and
writes down the options they weighed, for the learned player's fit (features.py, "Samples").
"""

import numpy as np

from policies import learned
from simulator.core.kernel import entry, layer, rule
from simulator.core.rng import N_STREAMS
from simulator.core.trace import TRACE_WIDTH
from simulator.games.karmaggan import features, turns
from simulator.games.karmaggan import state as S
from simulator.games.karmaggan.core import new_game
from simulator.games.karmaggan.engine import play_rounds, setup_game
from simulator.games.karmaggan.search import search_buffers


@rule
def write_outputs(state, rules, out_game, out_players):
    """Copy one finished game's results into its output rows."""
    out_game[S.G_OUT_WINNER] = state[S.G_WINNER]
    out_game[S.G_OUT_LENGTH] = state[S.G_ROUND]
    out_game[S.G_OUT_END] = state[S.G_END]
    out_game[S.G_OUT_WIN_TEAM] = state[S.G_WIN_TEAM]
    out_game[S.G_OUT_EGG_LEFT] = state[S.G_EGG_LEFT_ROUND]
    out_game[S.G_OUT_DEATHS] = state[S.G_DEATHS]
    out_game[S.G_OUT_BANK] = state[S.G_BANK]
    out_game[S.G_OUT_SEARCH] = state[S.G_SEARCH_DECISIONS]
    for s in range(rules[S.CFG_PLAYERS]):
        row = out_players[s]
        won = state[S.G_WINNER] >= 0 and (
            s == state[S.G_WINNER]
            or (rules[S.CFG_TEAM_MODE] == 1 and state[S.P_TEAM + s] == state[S.G_WIN_TEAM])
        )
        row[S.P_OUT_SCORE] = 1 if won else 0
        row[S.P_OUT_WON] = 1 if won else 0
        row[S.P_OUT_TEAM] = state[S.P_TEAM + s]
        row[S.P_OUT_START] = state[S.P_START_COINS + s]
        row[S.P_OUT_FINAL] = state[S.P_COINS + s]
        row[S.P_OUT_DIED] = 1 if state[S.P_DEATH_ROUND + s] >= 0 else 0
        row[S.P_OUT_DEATH_ROUND] = state[S.P_DEATH_ROUND + s]
        for k in range(S.N_SOURCES):
            row[S.P_OUT_ARROWS + k] = state[S.P_LOST_ARROWS + k * S.MAX_PLAYERS + s]
        row[S.P_OUT_BLOOD_GAIN] = state[S.P_GAIN_BLOOD + s]
        row[S.P_OUT_COMBAT_GAIN] = state[S.P_GAIN_COMBAT + s]
        row[S.P_OUT_OTHER_GAIN] = state[S.P_GAIN_OTHER + s]
        row[S.P_OUT_WON_COMBATS] = state[S.P_COMBATS_WON + s]
        row[S.P_OUT_LOST_COMBATS] = state[S.P_COMBATS_LOST + s]
        row[S.P_OUT_SPAWN_TURNS] = state[S.P_SPAWN_TURNS + s]
        row[S.P_OUT_EGG_TURNS] = state[S.P_EGG_TURNS + s]
        row[S.P_OUT_OBJECTS] = state[S.P_OBJECTS_PLAYED + s]
        row[S.P_OUT_INVOKED] = state[S.P_SPAWNS_INVOKED + s]
        row[S.P_OUT_ELIMINATED] = 1 if state[S.P_STATUS + s] == S.ELIMINATED else 0
        row[S.P_OUT_PASSES], row[S.P_OUT_TAKES] = (
            state[S.P_EGG_PASSES + s],
            state[S.P_EGG_TAKES + s],
        )
        row[S.P_OUT_THROWS] = state[S.P_EGG_THROWS + s]
        row[S.P_OUT_SACRIFICES] = state[S.P_SACRIFICES + s]
        row[S.P_OUT_MEDALLION_INVOKES] = state[S.P_MEDALLION_INVOKES + s]


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
    return state[S.G_NEV]


@entry
def play_games(rules, knobs, seeds, seat_policies, out_games, out_players, timelines, trace):
    """Play ``len(seeds)`` games; returns the number of trace rows of the last one.

    rules int64[rules[CFG_RULES_SIZE]] (state.py); knobs float64[n_policies, 1 + n_knobs];
    seeds uint64[n]; seat_policies int8[n, n_players]; outputs: out_games int64[n, N_GAME_OUT],
    out_players int64[n, n_players, N_PLAYER_OUT], timelines int16[n, round_cap or 0,
    n_players], trace int64[max_events, TRACE_WIDTH] (0 rows in bulk runs; a replay plays one
    game: one kernel for both, as each kernel compiles the whole engine).
    """
    state = np.zeros(rules[S.CFG_STATE_SIZE], np.int64)
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


@layer
def play_chunk(
    rules, knobs, seeds, seat_policies, out_games, out_players, timelines, trace, samples
):
    """:func:`play_games` for games with search or learned seats; while sampling (``samples``
    has rows), each game's rows of ``samples`` get its index and outcome."""
    state = np.zeros(rules[S.CFG_STATE_SIZE], np.int64)
    rng = np.zeros(N_STREAMS, np.uint64)
    work, work_rng, values, picks, cards = search_buffers(state, rng, rules)
    n_events = 0
    for g in range(seeds.shape[0]):
        new_game(state, rules, rng, seeds[g], seat_policies[g])
        setup_game(state, rules, rng)
        first = samples[learned.HEADER, learned.ROWS] if samples.shape[0] > 0 else 0.0
        turns.play_search_rounds(
            state,
            rules,
            knobs,
            rng,
            trace,
            timelines[g],
            work,
            work_rng,
            values,
            picks,
            cards,
            samples,
        )
        write_outputs(state, rules, out_games[g], out_players[g])
        if samples.shape[0] > 0:
            learned.note_outcomes(samples, np.int64(first), g, out_players[g][:, S.P_OUT_WON])
        n_events = state[S.G_NEV]
    return n_events


@entry
def play_search_games(rules, knobs, seeds, seat_policies, out_games, out_players, timelines, trace):
    """play_games for games with search or learned seats (the round loop of :mod:`turns`)."""
    no_samples = np.zeros((0, features.SAMPLE_WIDTH))
    return play_chunk(
        rules, knobs, seeds, seat_policies, out_games, out_players, timelines, trace, no_samples
    )


@entry
def play_sample_games(rules, knobs, seeds, seat_policies, out_games, out_players, samples):
    """:func:`play_search_games` writing down every option of each decision the search weighed
    into ``samples`` (float64[rows, SAMPLE_WIDTH], row HEADER zero: features.py)."""
    timelines = np.zeros((seeds.shape[0], 0, rules[S.CFG_PLAYERS]), np.int16)
    no_trace = np.zeros((0, TRACE_WIDTH), np.int64)
    samples[learned.HEADER, learned.ROWS] = 1.0
    play_chunk(
        rules, knobs, seeds, seat_policies, out_games, out_players, timelines, no_trace, samples
    )
    return np.int64(samples[learned.HEADER, learned.ROWS])
