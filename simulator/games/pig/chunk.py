"""Pig whole games: set up, played to the end, written out, and a chunk of games per call."""

import numpy as np

from simulator.core.kernel import entry, rule
from simulator.core.rng import N_STREAMS
from simulator.games.pig import engine
from simulator.games.pig import state as S


@rule
def write_outputs(state, rules, out_game, out_players):
    """One game's row and its seats' rows (columns: state.py, G_ and P_)."""
    winner = state[S.WINNER]
    out_game[S.G_WINNER], out_game[S.G_LENGTH] = winner, state[S.TURN]
    out_game[S.G_END_REASON] = S.END_TARGET if winner != S.NONE else S.END_TURN_CAP
    for p in range(rules[S.CFG_PLAYERS]):
        row = out_players[p]
        row[S.P_SCORE], row[S.P_WON], row[S.P_START] = (
            state[S.SCORE + p],
            winner == p,
            state[S.START + p],
        )
        row[S.P_ROLLS], row[S.P_BUSTS] = state[S.ROLLS + p], state[S.BUSTS + p]
        row[S.P_HOLDS], row[S.P_TURNS] = state[S.HOLDS + p], state[S.TURNS_PLAYED + p]
        row[S.P_LOST] = state[S.LOST + p]


@entry
def play_games(rules, knobs, seeds, seat_policies, out_games, out_players, trace):
    """Play ``len(seeds)`` games; returns the number of trace rows of the last one.

    rules int64[N_CFG]; knobs float64[n_policies, 1 + n_knobs]; seeds uint64[n];
    seat_policies int8[n, n_players]; out_games int64[n, N_GAME_OUT]; out_players
    int64[n, n_players, N_PLAYER_OUT]; trace int64[max_events, TRACE_WIDTH] (0 rows in bulk
    runs; a replay plays one game through the same kernel).
    """
    state = np.zeros(S.STATE_SIZE, np.int64)
    rng = np.zeros(N_STREAMS, np.uint64)
    for g in range(seeds.shape[0]):
        engine.new_game(state, rules, rng, seeds[g], seat_policies[g])
        engine.play_game(state, rules, knobs, rng, trace)
        write_outputs(state, rules, out_games[g], out_players[g])
    return min(state[S.EVENTS], trace.shape[0])
