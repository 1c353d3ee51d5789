"""Ekonos policies: who plays which card, where markers go, what to buy and sell.

Every scripted policy scores each legal option with the same reading of the game (a share is
worth its company's final value; a presidency is worth control of expansions) and takes the
best; the knobs in ``[policies.NAME]`` of the rules make the strategies differ.
"""

import numpy as np
from numba import njit

from policies.common import RANDOM, behaviour, keep_best, pick_random
from simulator.game import Policy
from simulator.games.ekonos.state import (
    BUY, CASH, CHOOSE_CARD, CHOOSE_SPACE, EMPTY, EXPAND_NOW, NAME_PRESIDENT, ON_BOARD, OPT_A,
    OPT_B, OPT_C, OWNER, PLACE_FUNCTION, PRESIDENT, SELL, SHARES_OUT, NONE)

PRESIDENT_SEEKER, VALUE_INVESTOR, MARKET_BUILDER, CASH_HOARDER = range(1, 5)
POLICIES = (
    Policy(RANDOM, "random", "uniformly random among the legal options at every decision"),
    Policy(PRESIDENT_SEEKER, "president_seeker",
           "buys for presidencies, grows the companies it presides, expands early"),
    Policy(VALUE_INVESTOR, "value_investor",
           "buys shares worth more than their price, sells those priced above their value"),
    Policy(MARKET_BUILDER, "market_builder",
           "plays cards to place and protect markers of its companies, waits for level 6"),
    Policy(CASH_HOARDER, "cash_hoarder", "keeps its cash, buying only clear bargains"),
)
KNOBS = ("presidency_bonus", "expand_early", "buy_margin", "sell_margin", "place_weight")
# knobs table columns (column 0 is the behaviour, simulator.game.policy_knobs)
PRESIDENCY_BONUS, EXPAND_EARLY, BUY_MARGIN, SELL_MARGIN, PLACE_WEIGHT = range(1, 6)

FUTURE_GROWTH = 2.0  # expected rise of a company's value before the end when not in the last turn


@njit(cache=True, inline="always")
def stake(shares, companies, seat, c):
    """How much a seat cares about company c: its shares, plus two for the presidency."""
    return shares[seat, c] + (2.0 if companies[c, PRESIDENT] == seat else 0.0)


@njit(cache=True, inline="always")
def expected_value(companies, c, last_turn):
    return companies[c, ON_BOARD] + (0.0 if last_turn else FUTURE_GROWTH)


@njit(cache=True, inline="always")
def option_score(kind, seat, company, row, k, cfg, players, companies, shares, board,
                 adjacency, last_turn):
    if kind == CHOOSE_CARD:
        c = row[OPT_C]
        if row[OPT_B] == PLACE_FUNCTION:
            return stake(shares, companies, seat, c) + k[PLACE_WEIGHT]
        growth = 0.6 * stake(shares, companies, seat, c)
        if companies[c, PRESIDENT] == seat:
            growth += 1.0 + k[PRESIDENCY_BONUS] / 6.0
        return growth * (0.5 if last_turn else 1.0)
    if kind == CHOOSE_SPACE:
        space, previous = row[OPT_A], row[OPT_B]
        own, rival = 0.0, 0.0
        for j in range(adjacency.shape[1]):
            t = adjacency[space, j]
            if t >= 0 and board[t, OWNER] == company:
                own += 1.0
            elif t >= 0 and board[t, OWNER] != EMPTY:
                rival += 1.0
        if previous == company:           # turning an own marker protected
            return 0.4 * rival
        score = 1.0 + 0.2 * own
        if previous != EMPTY:             # expansion replacing another company's marker
            score += 0.5 - shares[seat, previous]
        return score
    if kind == EXPAND_NOW:
        expand = last_turn or k[EXPAND_EARLY] >= 0.5
        return 1.0 if (row[OPT_A] == 1) == expand else 0.0
    if kind == SELL:
        c = row[OPT_A]
        if c == NONE:
            return 0.0
        keep = expected_value(companies, c, last_turn)
        score = companies[c, SHARES_OUT] - keep - k[SELL_MARGIN]
        if companies[c, PRESIDENT] == seat:
            score -= k[PRESIDENCY_BONUS]
        return score
    if kind == BUY:
        c = row[OPT_A]
        if c == NONE:
            return 0.0
        score = expected_value(companies, c, last_turn) - (companies[c, SHARES_OUT] + 1) - k[BUY_MARGIN]
        president = companies[c, PRESIDENT]
        if president != seat and not last_turn and (
                president == NONE or shares[seat, c] + 1 > shares[president, c]):
            score += k[PRESIDENCY_BONUS]
        return score
    # NAME_PRESIDENT: hand the company to the poorest rival
    return -float(players[row[OPT_A], CASH])


@njit(cache=True, inline="always")
def choose(kind, seat, company, options, n, policy_id, knobs, cfg, players, companies, shares,
           board, adjacency, last_turn, rng):
    """Index into ``options[:n]`` chosen by ``policy_id`` for decision ``kind`` of ``seat``."""
    if behaviour(knobs, policy_id) == RANDOM:
        return pick_random(n, rng)
    k = knobs[policy_id]
    best, count, choice = -np.inf, 0, 0
    for i in range(n):
        score = option_score(kind, seat, company, options[i], k, cfg, players, companies, shares,
                             board, adjacency, last_turn)
        best, count, choice = keep_best(score, i, best, count, choice, rng)
    return choice
