"""Ekonos whole games: setup, the loop to the end, scoring, and a chunk of games per call
(:func:`play_games`); :func:`play_sample_games` plays games with search seats or teaching
learned seats and writes down the options they weighed, for the learned player's fit
(policies/learned.py, "Samples")."""

import numpy as np

from policies import learned
from policies.common import behaviour
from policies.ekonos import LEARNED, SEARCH
from simulator.core.kernel import allocating, entry, layer, rule
from simulator.core.rng import N_STREAMS, rng_new
from simulator.games.ekonos import board, engine, features, search
from simulator.games.ekonos import state as S


@allocating
def new_game(state, rules, knobs, rng, seed, seat_policies):
    """Preparation: no markers, growth indicators on zero, every player's share indicators and
    starting M.U.; seat 0 starts.  ``seat_policies`` int8[n_players]: each seat's policy."""
    state[:] = 0
    rng[:] = rng_new(seed)
    state[S.PHASE] = S.AT_DEAL
    state[S.MODE] = S.PLAIN
    for p in range(rules[S.CFG_PLAYERS]):
        state[S.SEAT_POLICY + p] = seat_policies[p]
        state[S.CASH + p] = rules[S.CFG_START_MONEY]
        state[S.MONEY_RECEIVED + p] = rules[S.CFG_START_MONEY]
        state[S.INDICATORS_LEFT + p] = rules[S.CFG_SHARE_INDICATORS]
        if (
            behaviour(knobs, seat_policies[p]) == SEARCH
            or behaviour(knobs, seat_policies[p]) == LEARNED
        ):
            state[S.MODE] = S.PROBE
    for c in range(S.MAX_COMPANIES):
        state[S.PRESIDENT + c] = S.NONE
        state[S.SUPPLY + c] = rules[S.CFG_MARKERS]
    state[S.OWNER : S.OWNER + S.MAX_SPACES] = S.EMPTY
    state[S.HANDS : S.HANDS + S.MAX_PLAYERS * S.MAX_HAND] = -1


@rule
def play_to_end(state, rules, knobs, rng, trace, work, work_rng, values, samples, last_turn):
    """Play a set-up game until it ends or turn ``last_turn`` is over: step by step through
    the search driver when a seat searches or plays a learned player, else straight through.
    Stopping at a turn and going on plays the very same steps as going straight through.

    Without search seats, only the learned seats' own rounds go through the driver: a learned
    seat values the decisions of its own rounds, and in the others' (an expansion it makes as
    a company's president) plays its rollout policy, so the other steps need no snapshot.
    With a search seat, every step goes through the driver (a search seat weighs its decisions
    in any seat's step), and a learned seat's decisions in them are valued too."""
    if state[S.MODE] == S.PLAIN:
        engine.advance(state, rules, knobs, rng, trace, last_turn)
        return
    searching = False
    for p in range(rules[S.CFG_PLAYERS]):
        searching = searching or behaviour(knobs, state[S.SEAT_POLICY + p]) == SEARCH
    while state[S.PHASE] != S.AT_END and state[S.TURN] <= last_turn:
        if searching or learned_round(state, rules, knobs):
            search.sample_step(state, rules, knobs, rng, trace, work, work_rng, values, samples)
        else:
            state[S.MODE] = S.PLAIN
            engine.play_step(state, rules, knobs, rng, trace)
            state[S.MODE] = S.PROBE


@rule
def learned_round(state, rules, knobs):
    """Whether the next step is part of a learned seat's round (not a deal)."""
    if state[S.PHASE] == S.AT_DEAL:
        return False
    seat = engine.round_seat(state)
    return behaviour(knobs, state[S.SEAT_POLICY + seat]) == LEARNED


@rule
def mid_turn(rules):
    """The turns played at mid-game: half of them, rounded down, at least one."""
    return max(1, rules[S.CFG_TURNS] // 2)


@rule
def record_midgame(state, rules, out_company_game, out_company_players):
    """Who presides each company, and what each is worth, at mid-game (:func:`mid_turn`):
    the presidency before the outcome it helps to make (outputs as in play_games)."""
    n_players, n_companies = rules[S.CFG_PLAYERS], rules[S.CFG_COMPANIES]
    for c in range(n_companies):
        out_company_game[n_companies + c] = board.company_value(state, c)
        for p in range(n_players):
            out_company_players[p, 2 * n_companies + c] = state[S.PRESIDENT + c] == p


@rule
def score_game(state, rules, trace, out_game, out_players, out_company_game, out_company_players):
    """Scoring: company value = its indicators on the board; score = cash + Σ shares × value
    (points per unit from [scoring], see board.score_parts).  The highest score wins;
    ASSUMED: tied leaders share the win (winner_seat = -1)."""
    n_players, n_companies = rules[S.CFG_PLAYERS], rules[S.CFG_COMPANIES]
    best = -1
    n_best = 0
    for p in range(n_players):
        for c in range(n_companies):
            out_company_players[p, c] = state[S.SHARES + p * S.MAX_COMPANIES + c]
            out_company_players[p, n_companies + c] = state[S.PRESIDENT + c] == p
        cash, holdings, presidencies = board.score_parts(state, rules, p)
        score = cash + holdings + presidencies
        row = out_players[p]
        row[S.P_SCORE], row[S.P_CASH], row[S.P_HOLDINGS] = score, state[S.CASH + p], holdings
        row[S.P_BOUGHT], row[S.P_SOLD] = state[S.BOUGHT + p], state[S.SOLD + p]
        row[S.P_SPENT], row[S.P_PROCEEDS] = state[S.SPENT + p], state[S.PROCEEDS + p]
        row[S.P_RECEIVED], row[S.P_EXPANSIONS] = (
            state[S.MONEY_RECEIVED + p],
            state[S.EXPANSIONS + p],
        )
        row[S.P_PLACED], row[S.P_PROTECTED] = state[S.PLACED + p], state[S.PROTECTED_PLAYS + p]
        row[S.P_GROWN], row[S.P_DISCARDED] = state[S.GROWN + p], state[S.DISCARDED + p]
        row[S.P_EMPTY_EXPANSIONS] = state[S.EMPTY_EXPANSIONS + p]
        row[S.P_EARLY_EXPANSIONS], row[S.P_WAITS] = (
            state[S.EARLY_EXPANSIONS + p],
            state[S.WAITS + p],
        )
        row[S.P_NAMED] = state[S.NAMED + p]
        board.record(state, trace, S.EV_SCORE, p, cash, holdings, score, presidencies)
        if score > best:
            best, n_best = score, 1
        elif score == best:
            n_best += 1
    winner = -1
    for p in range(n_players):
        out_players[p, S.P_WON] = out_players[p, S.P_SCORE] == best
        if n_best == 1 and out_players[p, S.P_SCORE] == best:
            winner = p
    for c in range(n_companies):
        out_company_game[c] = board.company_value(state, c)
    out_game[S.G_WINNER], out_game[S.G_LENGTH] = winner, rules[S.CFG_TURNS]
    out_game[S.G_END_REASON], out_game[S.G_ROUNDS] = S.END_FINAL_TURN, state[S.ROUNDS]
    out_game[S.G_SEARCH_DECISIONS] = state[S.SEARCH_DECISIONS]


@layer
def play_chunk(rules, knobs, seeds, seat_policies, outputs, trace, samples):
    """:func:`play_games` (``outputs``: its four output arrays); while sampling (``samples``
    has rows), each game's rows of ``samples`` get its index and outcome."""
    out_games, out_players, out_company_games, out_company_players = outputs
    state = np.zeros(rules[S.CFG_STATE_SIZE], np.int64)
    rng = np.zeros(N_STREAMS, np.uint64)
    work, work_rng, values = search.search_buffers(rules)
    for g in range(seeds.shape[0]):
        first = np.int64(samples[learned.HEADER, learned.ROWS]) if samples.shape[0] > 0 else 0
        new_game(state, rules, knobs, rng, seeds[g], seat_policies[g])
        play_to_end(
            state, rules, knobs, rng, trace, work, work_rng, values, samples, mid_turn(rules) - 1
        )
        record_midgame(state, rules, out_company_games[g], out_company_players[g])
        play_to_end(
            state, rules, knobs, rng, trace, work, work_rng, values, samples, rules[S.CFG_TURNS] - 1
        )
        score_game(
            state,
            rules,
            trace,
            out_games[g],
            out_players[g],
            out_company_games[g],
            out_company_players[g],
        )
        if samples.shape[0] > 0:
            learned.note_outcomes(samples, first, g, out_players[g][:, S.P_WON])
    return min(state[S.EVENTS], trace.shape[0])


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
    out_players int64[n, n_players, N_PLAYER_OUT], out_company_games int16[n, 2 * n_companies]
    (company values at the end, then at mid-game), out_company_players int16[n, n_players,
    3 * n_companies] (shares, presidencies at the end, presidencies at mid-game);
    trace int64[max_events, TRACE_WIDTH] (0 rows in bulk runs; a replay plays one game: one
    kernel for both, as each kernel compiles the whole engine).
    """
    outputs = (out_games, out_players, out_company_games, out_company_players)
    no_samples = np.zeros((0, features.SAMPLE_WIDTH))
    return play_chunk(rules, knobs, seeds, seat_policies, outputs, trace, no_samples)


@entry
def play_sample_games(rules, knobs, seeds, seat_policies, outputs, samples):
    """:func:`play_games` (``outputs``: its four output arrays) writing down every option of
    each decision the search weighed for a teaching learned seat into ``samples``
    (float64[rows, SAMPLE_WIDTH], row HEADER zero: policies/learned.py); returns the rows
    written (the header included)."""
    no_trace = np.zeros((0, S.TRACE_WIDTH), np.int64)
    samples[learned.HEADER, learned.ROWS] = 1.0
    play_chunk(rules, knobs, seeds, seat_policies, outputs, no_trace, samples)
    return np.int64(samples[learned.HEADER, learned.ROWS])
