"""Ekonos whole games: setup, the loop to the end, scoring, and a chunk of games per call."""

import numpy as np

from policies.common import behaviour
from policies.ekonos import SEARCH
from simulator.core.kernel import allocating, entry, rule
from simulator.core.rng import N_STREAMS, rng_new
from simulator.games.ekonos.board import company_value, record, score_parts
from simulator.games.ekonos.engine import advance
from simulator.games.ekonos.search import search_buffers, search_step
from simulator.games.ekonos.state import (
    AT_DEAL,
    AT_END,
    BOUGHT,
    CASH,
    CFG_COMPANIES,
    CFG_MARKERS,
    CFG_PLAYERS,
    CFG_SHARE_INDICATORS,
    CFG_START_MONEY,
    CFG_STATE_SIZE,
    CFG_TURNS,
    DISCARDED,
    EARLY_EXPANSIONS,
    EMPTY,
    EMPTY_EXPANSIONS,
    END_FINAL_TURN,
    EV_SCORE,
    EVENTS,
    EXPANSIONS,
    G_END_REASON,
    G_LENGTH,
    G_ROUNDS,
    G_SEARCH_DECISIONS,
    G_WINNER,
    GROWN,
    HANDS,
    INDICATORS_LEFT,
    MAX_COMPANIES,
    MAX_HAND,
    MAX_PLAYERS,
    MAX_SPACES,
    MODE,
    MONEY_RECEIVED,
    NAMED,
    NONE,
    OWNER,
    P_BOUGHT,
    P_CASH,
    P_DISCARDED,
    P_EARLY_EXPANSIONS,
    P_EMPTY_EXPANSIONS,
    P_EXPANSIONS,
    P_GROWN,
    P_HOLDINGS,
    P_NAMED,
    P_PLACED,
    P_PROCEEDS,
    P_PROTECTED,
    P_RECEIVED,
    P_SCORE,
    P_SOLD,
    P_SPENT,
    P_WAITS,
    P_WON,
    PHASE,
    PLACED,
    PLAIN,
    PRESIDENT,
    PROBE,
    PROCEEDS,
    PROTECTED_PLAYS,
    ROUNDS,
    SEARCH_DECISIONS,
    SEAT_POLICY,
    SHARES,
    SOLD,
    SPENT,
    SUPPLY,
    TURN,
    WAITS,
)


@allocating
def new_game(state, rules, knobs, rng, seed, seat_policies):
    """Preparation: no markers, growth indicators on zero, every player's share indicators and
    starting M.U.; seat 0 starts.  ``seat_policies`` int8[n_players]: each seat's policy."""
    state[:] = 0
    rng[:] = rng_new(seed)
    state[PHASE] = AT_DEAL
    state[MODE] = PLAIN
    for p in range(rules[CFG_PLAYERS]):
        state[SEAT_POLICY + p] = seat_policies[p]
        state[CASH + p] = rules[CFG_START_MONEY]
        state[MONEY_RECEIVED + p] = rules[CFG_START_MONEY]
        state[INDICATORS_LEFT + p] = rules[CFG_SHARE_INDICATORS]
        if behaviour(knobs, seat_policies[p]) == SEARCH:
            state[MODE] = PROBE
    for c in range(MAX_COMPANIES):
        state[PRESIDENT + c] = NONE
        state[SUPPLY + c] = rules[CFG_MARKERS]
    state[OWNER : OWNER + MAX_SPACES] = EMPTY
    state[HANDS : HANDS + MAX_PLAYERS * MAX_HAND] = -1


@rule
def play_to_end(state, rules, knobs, rng, trace, work, work_rng, values, last_turn):
    """Play a set-up game until it ends or turn ``last_turn`` is over: step by step through
    the search driver when a seat searches, else straight through.  Stopping at a turn and
    going on plays the very same steps as going straight through."""
    if state[MODE] == PLAIN:
        advance(state, rules, knobs, rng, trace, last_turn)
        return
    while state[PHASE] != AT_END and state[TURN] <= last_turn:
        search_step(state, rules, knobs, rng, trace, work, work_rng, values)


@rule
def mid_turn(rules):
    """The turns played at mid-game: half of them, rounded down, at least one."""
    return max(1, rules[CFG_TURNS] // 2)


@rule
def record_midgame(state, rules, out_company_game, out_company_players):
    """Who presides each company, and what each is worth, at mid-game (:func:`mid_turn`):
    the presidency before the outcome it helps to make (outputs as in play_games)."""
    n_players, n_companies = rules[CFG_PLAYERS], rules[CFG_COMPANIES]
    for c in range(n_companies):
        out_company_game[n_companies + c] = company_value(state, c)
        for p in range(n_players):
            out_company_players[p, 2 * n_companies + c] = state[PRESIDENT + c] == p


@rule
def score_game(state, rules, trace, out_game, out_players, out_company_game, out_company_players):
    """Scoring: company value = its indicators on the board; score = cash + Σ shares × value
    (points per unit from [scoring], see board.score_parts).  The highest score wins;
    ASSUMED: tied leaders share the win (winner_seat = -1)."""
    n_players, n_companies = rules[CFG_PLAYERS], rules[CFG_COMPANIES]
    best = -1
    n_best = 0
    for p in range(n_players):
        for c in range(n_companies):
            out_company_players[p, c] = state[SHARES + p * MAX_COMPANIES + c]
            out_company_players[p, n_companies + c] = state[PRESIDENT + c] == p
        cash, holdings, presidencies = score_parts(state, rules, p)
        score = cash + holdings + presidencies
        row = out_players[p]
        row[P_SCORE], row[P_CASH], row[P_HOLDINGS] = score, state[CASH + p], holdings
        row[P_BOUGHT], row[P_SOLD] = state[BOUGHT + p], state[SOLD + p]
        row[P_SPENT], row[P_PROCEEDS] = state[SPENT + p], state[PROCEEDS + p]
        row[P_RECEIVED], row[P_EXPANSIONS] = state[MONEY_RECEIVED + p], state[EXPANSIONS + p]
        row[P_PLACED], row[P_PROTECTED] = state[PLACED + p], state[PROTECTED_PLAYS + p]
        row[P_GROWN], row[P_DISCARDED] = state[GROWN + p], state[DISCARDED + p]
        row[P_EMPTY_EXPANSIONS] = state[EMPTY_EXPANSIONS + p]
        row[P_EARLY_EXPANSIONS], row[P_WAITS] = state[EARLY_EXPANSIONS + p], state[WAITS + p]
        row[P_NAMED] = state[NAMED + p]
        record(state, trace, EV_SCORE, p, cash, holdings, score, presidencies)
        if score > best:
            best, n_best = score, 1
        elif score == best:
            n_best += 1
    winner = -1
    for p in range(n_players):
        out_players[p, P_WON] = out_players[p, P_SCORE] == best
        if n_best == 1 and out_players[p, P_SCORE] == best:
            winner = p
    for c in range(n_companies):
        out_company_game[c] = company_value(state, c)
    out_game[G_WINNER], out_game[G_LENGTH] = winner, rules[CFG_TURNS]
    out_game[G_END_REASON], out_game[G_ROUNDS] = END_FINAL_TURN, state[ROUNDS]
    out_game[G_SEARCH_DECISIONS] = state[SEARCH_DECISIONS]


@entry
def play_games(
    rules,
    knobs,
    seeds,
    seat_policies,
    out_games,
    out_players,
    out_company_games,
    out_company_players,
    trace,
):
    """Play ``len(seeds)`` games; returns the number of trace rows of the last one.

    rules int64[CFG_STATE ...] (state.py); knobs float64[n_policies, 1 + n_knobs];
    seeds uint64[n]; seat_policies int8[n, n_players]; outputs: out_games int64[n, N_GAME_OUT],
    out_players int64[n, n_players, N_PLAYER_OUT], out_company_games int64[n, 2 * n_companies]
    (company values at the end, then at mid-game), out_company_players int64[n, n_players,
    3 * n_companies] (shares, presidencies at the end, presidencies at mid-game);
    trace int64[max_events, TRACE_WIDTH] (0 rows in bulk runs; a replay plays one game: one
    kernel for both, as each kernel compiles the whole engine).
    """
    state = np.zeros(rules[CFG_STATE_SIZE], np.int64)
    rng = np.zeros(N_STREAMS, np.uint64)
    work, work_rng, values = search_buffers(rules)
    for g in range(seeds.shape[0]):
        new_game(state, rules, knobs, rng, seeds[g], seat_policies[g])
        play_to_end(state, rules, knobs, rng, trace, work, work_rng, values, mid_turn(rules) - 1)
        record_midgame(state, rules, out_company_games[g], out_company_players[g])
        play_to_end(state, rules, knobs, rng, trace, work, work_rng, values, rules[CFG_TURNS] - 1)
        score_game(
            state,
            rules,
            trace,
            out_games[g],
            out_players[g],
            out_company_games[g],
            out_company_players[g],
        )
    return min(state[EVENTS], trace.shape[0])
