"""Karnaxis engine: numba kernels over plain int64 arrays (rulebook: shared/rules/karnaxis.md).

Same state pattern as every balsim engine (documented in simulator/games/ekonos/engine.py):
int64 arrays whose slots are named module constants (state.py), passed to every kernel as
plain arguments (never bundled in tuples: numba would then reference-count each member on
every call, which made the engine ten times slower).

* rules, built once per variant by the wrapper's ``prepare``: ``cfg`` int64[N_CFG],
  ``tables`` int64[N_TABLE, width] (lookup tables, row T_LEN their lengths),
  ``chars`` int64[n_characters, C_WIDTH], ``jobs`` int64[n_jobs, J_WIDTH],
  ``biz`` int64[n_businesses, B_WIDTH], ``events`` int64[n_events, 2],
  ``kcards`` int64[n_karnaxis_cards, 2], ``knobs`` float64[n_policies, n_knobs].
* one game: ``players`` int64[n_players, N_PLAYER] (board, year flags, ledger),
  ``board`` int64[N_BOARD], ``stocks`` int64[n_players + 1, N_STOCK] (row n_players is the
  black business), ``shares`` int64[n_players, n_players + 1], ``owners`` int64[N_OWNERS, w]
  (card holders and shuffled decks), ``rng`` uint64[N_STREAMS], ``options``
  int64[MAX_OPTIONS, OPT_WIDTH] and the policy's ``scores`` float64[MAX_OPTIONS], ``pol``
  int8[n_players] policy ids and ``trace``
  int64[max_events, TRACE_WIDTH] (zero rows in bulk runs).

The rule functions that may ask a policy take all of these, in that order.

Decisions: the engine lists the legal options in ``options`` and asks the seat's policy
(``policies.karnaxis.choose``) for an index, so an illegal move cannot be expressed.

The rules live in one module per stage of the rulebook, each rule function citing its section:
:mod:`money` (bookkeeping, Loan Odds 'n Ends, Fulfilling Your Karnaxis), :mod:`new_year`
(1. Update New Year: events and stocks), :mod:`actions` (2. Take Action!), :mod:`business`
(businesses, franchises, the level-4 firms, Buy/Sell Stock), :mod:`year_end` (3. Year End
Review and Game End).  This module sets a game up and plays the years in order.
"""

import numpy as np
from numba import njit

from policies.karnaxis import choose
from simulator.games.karnaxis.money import record
from simulator.games.karnaxis.new_year import update_new_year
from simulator.games.karnaxis.actions import take_actions
from simulator.games.karnaxis.year_end import end_game, year_end
from simulator.games.karnaxis.state import *  # noqa: F401,F403  (the named slots)
from simulator.rng import SETUP, rng_new, shuffle


# ---------------------------------------------------------------- setup and the game loop

@njit(cache=True)
def new_state(cfg, chars, jobs, biz, events, kcards, seed):
    """Game Setup: fresh state arrays (see the module docstring)."""
    n = cfg[CFG_PLAYERS]
    players = np.zeros((n, N_PLAYER), dtype=np.int64)
    board = np.zeros(N_BOARD, dtype=np.int64)
    stocks = np.zeros((n + 1, N_STOCK), dtype=np.int64)
    shares = np.zeros((n, n + 1), dtype=np.int64)
    width = max(biz.shape[0], jobs.shape[0], cfg[CFG_FRANCHISE_CARDS], events.shape[0],
                kcards.shape[0], chars.shape[0])
    owners = np.full((N_OWNERS, width), NONE, dtype=np.int64)
    rng = rng_new(seed)
    options = np.zeros((MAX_OPTIONS, OPT_WIDTH), dtype=np.int64)
    scores = np.zeros(MAX_OPTIONS, dtype=np.float64)
    return players, board, stocks, shares, owners, rng, options, scores


@njit(cache=True)
def setup(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks, shares,
          owners, rng, options, scores, pol, trace):
    """Game Setup: $10,000 each; deal 3 characters each and keep 1 (its four attributes);
    black business at 5; job and business cards by player-count symbol; shuffle the event and
    Karnaxis decks.  Seat 0 is the starting player (the highest die roll)."""
    n = players.shape[0]
    for b in range(biz.shape[0]):
        if biz[b, B_AVAILABLE] == 0:
            owners[OWN_BIZ, b] = REMOVED
    for j in range(jobs.shape[0]):
        if jobs[j, J_AVAILABLE] == 0:
            owners[OWN_JOB, j] = REMOVED
    for e in range(events.shape[0]):
        owners[DECK_EVENTS, e] = e
    for k in range(kcards.shape[0]):
        owners[DECK_CARDS, k] = k
    shuffle(rng, SETUP, owners[DECK_EVENTS, :events.shape[0]])
    shuffle(rng, SETUP, owners[DECK_CARDS, :kcards.shape[0]])
    deck = np.arange(chars.shape[0])
    shuffle(rng, SETUP, deck)
    board[FUND] = cfg[CFG_FUND_START]
    board[SHARE_POOL] = cfg[CFG_SHARE_TOKENS]
    board[RETIRE_POOL] = cfg[CFG_RETIREMENT_TOKENS]
    board[FRANCHISES_LEFT] = cfg[CFG_FRANCHISE_CARDS]
    stocks[n, ACTIVE] = 1
    stocks[n, VALUE] = cfg[CFG_STOCK_START]
    dealt = cfg[CFG_DEALT]
    for p in range(n):
        for k in range(N_DEALT_KEPT):
            players[p, DEALT + k] = deck[p * dealt + k] if k < dealt else NONE
        for k in range(dealt):
            c = deck[p * dealt + k]
            options[k, OPT_ACTION], options[k, OPT_A], options[k, OPT_B], options[k, OPT_COST] = c, 0, 0, 0
        i = choose(D_CHARACTER, p, dealt, pol[p], cfg, tables, chars, jobs, biz, knobs, players,
                   board, stocks, shares, owners, rng, options, scores)
        c = options[i, OPT_ACTION]
        players[p, CHARACTER] = c
        for a in range(N_ATTR):
            players[p, ATTR + a] = chars[c, C_ATTR + a]
        players[p, CASH] = cfg[CFG_START_CASH]
        players[p, JOB], players[p, JOB_B] = NONE, NONE
        record(board, trace, EV_CHARACTER, p, c, 0, 0, players[p, CASH])


@njit(cache=True)
def write_years(players, out_years, game, year):
    """The `years` timeline: one row per seat after the Year End Review."""
    for p in range(players.shape[0]):
        row = out_years[p]
        row[Y_GAME], row[Y_YEAR], row[Y_SEAT] = game, year, p
        row[Y_CASH] = players[p, CASH]
        row[Y_INCOME] = players[p, YEAR_SALARY] + players[p, YEAR_BUSINESS]
        row[Y_BRACKET] = players[p, YEAR_BRACKET]
        row[Y_TAX] = players[p, YEAR_TAX]
        row[Y_SMART] = players[p, YEAR_SMART]
        row[Y_LOANS] = players[p, LOANS]
        row[Y_NOTICES] = players[p, NOTICES]
        row[Y_SALARY] = players[p, YEAR_SALARY]
        row[Y_BUSINESS_INCOME] = players[p, YEAR_BUSINESS]
        row[Y_GROWTH] = players[p, GROWTH]


@njit(cache=True)
def play_game(cfg, tables, chars, jobs, biz, events, kcards, knobs, seed, pol, game, out_game,
              out_players, out_years, trace):
    """One whole game.  out_game int64[N_GAME_OUT]; out_players int64[n_players,
    N_PLAYER_OUT + ledger columns]; out_years int64[years * n_players, N_YEAR_OUT]; pol
    int8[n_players] policy ids.  Returns the number of trace rows written."""
    n = cfg[CFG_PLAYERS]
    players, board, stocks, shares, owners, rng, options, scores = new_state(
        cfg, chars, jobs, biz, events, kcards, seed)
    setup(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks, shares,
          owners, rng, options, scores, pol, trace)
    for year in range(1, cfg[CFG_YEARS] + 1):
        update_new_year(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board,
                        stocks, shares, owners, rng, options, scores, pol, trace, year)
        take_actions(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                     shares, owners, rng, options, scores, pol, trace)
        year_end(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                 shares, owners, rng, options, scores, pol, trace, year)
        write_years(players, out_years[(year - 1) * n:year * n], game, year)
    end_game(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks, shares,
             owners, rng, options, scores, pol, trace, out_game, out_players)
    return board[TRACE_N]


@njit(cache=True)
def play_games(cfg, tables, chars, jobs, biz, events, kcards, knobs, seeds, seat_policies,
               out_games, out_players, out_years):
    """Play ``len(seeds)`` games.

    The rules arrays from ``prepare`` (module docstring); seeds uint64[n]; seat_policies
    int8[n, n_players]; outputs: out_games int64[n, N_GAME_OUT], out_players
    int64[n, n_players, N_PLAYER_OUT + ledger columns], out_years
    int64[n * years * n_players, N_YEAR_OUT] (game-major, then year, then seat).
    """
    rows = cfg[CFG_YEARS] * cfg[CFG_PLAYERS]
    no_trace = np.zeros((0, TRACE_WIDTH), dtype=np.int64)
    for g in range(seeds.shape[0]):
        play_game(cfg, tables, chars, jobs, biz, events, kcards, knobs, seeds[g], seat_policies[g],
                  g, out_games[g], out_players[g], out_years[g * rows:(g + 1) * rows], no_trace)
