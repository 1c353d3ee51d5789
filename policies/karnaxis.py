"""Karnaxis policies: which character, which action squares, what to trade, what to study,
whether to use a Karnaxis card now or save it.

Every scripted policy values each legal option in dollars with the same reading of the game
(a job is worth its remaining salary, a business its remaining income, a share its expected
move) and takes the best; the knobs in ``[policies.NAME]`` of the rules make the strategies
differ: how much each kind of income weighs, how far it will borrow, whether it insures.
"""

import numpy as np
from numba import njit

from policies.common import RANDOM, behaviour, pick_best, pick_random
from simulator.game import Policy
from simulator.games.karnaxis.state import (
    ACCOUNTANT, ACT_ADVERTISE, ACT_BUSINESS, ACT_COLLEGE, ACT_FRANCHISE, ACT_JOB_SEARCH,
    ACT_KARNAXIS, ACT_MARKET, ACT_RETIREMENT, ACT_STUDY, ACT_UNEMPLOYMENT, ACT_WORK, ACTIVE, ATTR,
    B_ATTR, B_GROWTH, BUSINESS_LEVEL, C_ATTR, C_KARNAXIS, CASH, CFG_ACCOUNTANT_COST,
    CFG_EXTRA_TOKEN, CFG_YEARS, COLLEGE, CU_SAVE, D_ACTION, D_ATTRIBUTE, D_CARD, D_CHARACTER,
    D_MARKET, FUND, GROWTH, INCOME, INSURED, J_ATTR, J_AVAILABLE, J_COLLEGE, J_SALARY,
    KE_FORGIVE, KE_TAX_FREE,
    JOB, JOB_B, K_BUSINESSES, K_CASH, K_COLLEGE, K_DIVIDENDS, K_FRANCHISES, K_GROWTH, K_INCOME,
    K_JOB, K_JOBS, K_LEVEL, K_RETIREMENT, K_SALARY, K_SHARES, LOANS, MK_ACCOUNTANT,
    MK_DONE, MK_INSURANCE, MK_SELL, N_ATTR, NONE, OPT_A, OPT_ACTION, OPT_B, OPT_COST,
    RETIRE_TOKENS, USED, T_AD_GROWTH, T_BRACKET_MAX, T_FRANCHISE_GROWTH, T_RETIRE_PAYOUT,
    T_LEN, T_TAX_SMART, T_TAX_STANDARD, VALUE, YEAR, OWN_BIZ, OWN_JOB)

SCHOLAR, TYCOON, SPECULATOR, CAUTIOUS = range(1, 5)
POLICIES = (
    Policy(RANDOM, "random", "uniformly random among the legal options at every decision"),
    Policy(SCHOLAR, "scholar", "college to senior year, then the best-paid job it qualifies for"),
    Policy(TYCOON, "tycoon", "starts businesses and franchises early, borrowing to the cap to grow"),
    Policy(SPECULATOR, "speculator", "buys cheap shares, sells high, collects dividends"),
    Policy(CAUTIOUS, "cautious", "never borrows by choice; insurance, retirement fund, steady jobs"),
)
KNOBS = ("college_target", "university_value", "job_weight", "business_weight", "stock_weight",
         "buy_below", "sell_at", "borrow_limit", "borrow_penalty", "retirement_weight",
         "insurance", "accountant_income", "card_value", "study_value", "tax_free_at")
(COLLEGE_TARGET, UNIVERSITY_VALUE, JOB_WEIGHT, BUSINESS_WEIGHT, STOCK_WEIGHT, BUY_BELOW, SELL_AT,
 BORROW_LIMIT, BORROW_PENALTY, RETIREMENT_WEIGHT, INSURANCE, ACCOUNTANT_INCOME, CARD_VALUE,
 STUDY_VALUE, TAX_FREE_AT) = range(1, 16)  # knobs table columns (column 0: the behaviour)

NO = -1.0e12          # an option the policy refuses (still legal; chosen only if all are refused)
MUST = 1.0e9          # Go To Work / a better job as the first action of a job holder
TAX_KEEP = 0.6        # share of extra income kept after taxes, for valuing income streams

# Karnaxis kinds each strategy is drawn to when choosing a character
# (rows by policy id, -1 pads)
LIKES = np.array([[-1, -1, -1, -1, -1],
                  [K_JOB, K_COLLEGE, K_SALARY, K_JOBS, -1],
                  [K_GROWTH, K_BUSINESSES, K_LEVEL, K_FRANCHISES, K_INCOME],
                  [K_SHARES, K_DIVIDENDS, K_CASH, -1, -1],
                  [K_RETIREMENT, K_CASH, K_COLLEGE, K_JOBS, -1]], dtype=np.int64)


@njit(cache=True)
def held_salary(jobs, players, p):
    best = 0
    for slot in (JOB, JOB_B):
        j = players[p, slot]
        if j >= 0:
            best = max(best, jobs[j, J_SALARY])
    return best


@njit(cache=True)
def expected_income(jobs, players, p):
    """This year's income as the player can foresee it: the best salary held plus the
    business income after this year's growth."""
    return held_salary(jobs, players, p) + players[p, INCOME] + players[p, GROWTH]


@njit(cache=True)
def bracket_of(tables, income):
    b = 0
    while b < tables[T_LEN, T_BRACKET_MAX] and income > tables[T_BRACKET_MAX, b]:
        b += 1
    return b


@njit(cache=True)
def smart_saving(tables, income):
    """Tax an accountant saves on ``income``."""
    b = bracket_of(tables, income)
    return tables[T_TAX_STANDARD, b] - tables[T_TAX_SMART, b]


@njit(cache=True)
def income_stream(growth, years_left):
    """Business income a growth of ``growth`` adds over the remaining year ends."""
    return growth * years_left * (years_left + 1) / 2.0 * TAX_KEEP


@njit(cache=True)
def target_gap(jobs, biz, players, owners, p, knobs, pid, a):
    """How far attribute ``a`` is below the best-paid job (scholar-like) or the biggest
    business (business-minded) the player does not yet qualify for."""
    if knobs[pid, JOB_WEIGHT] >= knobs[pid, BUSINESS_WEIGHT]:
        best, gap = -1, 0
        for j in range(jobs.shape[0]):
            if jobs[j, J_AVAILABLE] == 1 and owners[OWN_JOB, j] == NONE and jobs[j, J_SALARY] > best:
                need = jobs[j, J_ATTR + a] - players[p, ATTR + a]
                short = False
                for b in range(N_ATTR):
                    if jobs[j, J_ATTR + b] > players[p, ATTR + b]:
                        short = True
                if short or players[p, COLLEGE] < jobs[j, J_COLLEGE]:
                    best, gap = jobs[j, J_SALARY], need
        return gap
    best, gap = -1, 0
    for b in range(biz.shape[0]):
        if owners[OWN_BIZ, b] == NONE and biz[b, B_GROWTH] > best:
            short = False
            for c in range(N_ATTR):
                if biz[b, B_ATTR + c] > players[p, ATTR + c]:
                    short = True
            if short:
                best, gap = biz[b, B_GROWTH], biz[b, B_ATTR + a] - players[p, ATTR + a]
    return gap


@njit(cache=True)
def market_value(cfg, tables, jobs, players, stocks, shares, p, knobs, pid, years_left):
    """What a Buy/Sell Stock visit is worth to the policy before it sees the trades."""
    value = 0.0
    if knobs[pid, INSURANCE] > 0 and players[p, INSURED] == 0 and years_left > 1:
        value += 6000.0 * knobs[pid, INSURANCE]
    expected = expected_income(jobs, players, p)
    if expected >= knobs[pid, ACCOUNTANT_INCOME] > 0:
        value += smart_saving(tables, expected) - cfg[CFG_ACCOUNTANT_COST]
    for s in range(stocks.shape[0]):
        if stocks[s, ACTIVE] == 1:
            v = stocks[s, VALUE]
            if shares[p, s] > 0 and (v >= knobs[pid, SELL_AT] > 0 or years_left == 1):
                value += shares[p, s] * v * 1000.0
            if years_left > 1 and 0 < v <= knobs[pid, BUY_BELOW]:
                value += 4000.0 * knobs[pid, STOCK_WEIGHT]
    return value


@njit(cache=True)
def loan_penalty(cost, cash, loans, limit, per_dollar):
    """Dollars of penalty for the loan an option needs; NO past the policy's borrow limit."""
    need = cost - cash
    if need <= 0:
        return 0.0
    if loans + need > limit:
        return NO
    return need * per_dollar


@njit(cache=True)
def action_scores(cfg, tables, jobs, biz, players, board, stocks, shares, p, options, n, knobs, pid,
                  scores):
    """Take Action!: each option's worth in dollars (one loop, so no call per option)."""
    years_left = cfg[CFG_YEARS] - board[YEAR] + 1
    cash, loans = players[p, CASH], players[p, LOANS]
    limit, per_dollar = knobs[pid, BORROW_LIMIT], knobs[pid, BORROW_PENALTY]
    held = held_salary(jobs, players, p)
    first_of_holder = held > 0 and players[p, USED] == 0
    for i in range(n):
        action, a, cost = options[i, OPT_ACTION], options[i, OPT_A], options[i, OPT_COST]
        penalty = loan_penalty(cost, cash, loans, limit, per_dollar)
        v = 0.0
        if penalty == NO:
            v = NO
        elif action == ACT_WORK:
            v = MUST + jobs[a, J_SALARY]
        elif action == ACT_JOB_SEARCH:
            if first_of_holder:   # first action of a job holder: switch only to a better job
                v = MUST + jobs[a, J_SALARY] if jobs[a, J_SALARY] > held else NO
            else:
                gain = jobs[a, J_SALARY] + max(0, jobs[a, J_SALARY] - held) * (years_left - 1)
                v = knobs[pid, JOB_WEIGHT] * gain
        elif action == ACT_UNEMPLOYMENT:
            v = float(board[FUND]) + 1000.0
        elif action == ACT_STUDY:
            v = knobs[pid, STUDY_VALUE]
        elif action == ACT_COLLEGE:
            if a == 1:
                v = knobs[pid, UNIVERSITY_VALUE] + 2.0 * knobs[pid, STUDY_VALUE] - cost - penalty
            elif players[p, COLLEGE] < knobs[pid, COLLEGE_TARGET] and years_left > 2:
                v = 4.0 * knobs[pid, STUDY_VALUE] + 2500.0 * years_left - cost - penalty
            else:
                v = knobs[pid, STUDY_VALUE] - cost - penalty
        elif action == ACT_RETIREMENT:
            t = players[p, RETIRE_TOKENS]
            if t + 1 < tables[T_LEN, T_RETIRE_PAYOUT]:
                nxt = tables[T_RETIRE_PAYOUT, t + 1] - tables[T_RETIRE_PAYOUT, t]
            else:
                nxt = cfg[CFG_EXTRA_TOKEN]
            v = knobs[pid, RETIREMENT_WEIGHT] * nxt - cost - penalty
        elif action == ACT_KARNAXIS:
            v = knobs[pid, CARD_VALUE] - cost - penalty
        elif action == ACT_MARKET:
            v = market_value(cfg, tables, jobs, players, stocks, shares, p, knobs, pid, years_left)
        elif action == ACT_BUSINESS:
            v = knobs[pid, BUSINESS_WEIGHT] * income_stream(biz[a, B_GROWTH], years_left) - cost - penalty
        elif action == ACT_FRANCHISE:
            g = tables[T_FRANCHISE_GROWTH, players[a, BUSINESS_LEVEL] - 1]
            v = knobs[pid, BUSINESS_WEIGHT] * income_stream(g, years_left) - cost - penalty
        elif action == ACT_ADVERTISE:
            g = tables[T_AD_GROWTH, a]
            v = knobs[pid, BUSINESS_WEIGHT] * income_stream(g, years_left) - cost - penalty
        scores[i] = v


@njit(cache=True)
def market_scores(cfg, tables, jobs, players, board, stocks, p, options, n, knobs, pid, scores):
    """Buy/Sell Stock and/or Hire Accountant and/or Buy Insurance: each trade's worth."""
    years_left = cfg[CFG_YEARS] - board[YEAR] + 1
    cash, loans = players[p, CASH], players[p, LOANS]
    limit, per_dollar = knobs[pid, BORROW_LIMIT], knobs[pid, BORROW_PENALTY]
    expected = expected_income(jobs, players, p)
    for i in range(n):
        kind, s, count = options[i, OPT_ACTION], options[i, OPT_A], options[i, OPT_B]
        cost = options[i, OPT_COST]
        penalty = loan_penalty(cost, cash, loans, limit, per_dollar)
        v = -1.0
        if kind == MK_DONE:
            v = 0.0
        elif penalty == NO:
            v = NO
        elif kind == MK_INSURANCE:
            if knobs[pid, INSURANCE] > 0 and years_left > 1:
                v = 1.0
        elif kind == MK_ACCOUNTANT:
            if knobs[pid, ACCOUNTANT_INCOME] > 0 and expected >= knobs[pid, ACCOUNTANT_INCOME]:
                v = smart_saving(tables, expected) - cost - penalty
        elif kind == MK_SELL:
            price = stocks[s, VALUE]
            if years_left == 1 or (knobs[pid, SELL_AT] > 0 and price >= knobs[pid, SELL_AT]):
                v = float(-cost)
        else:   # MK_BUY: a cheap share gains on average; its dividends come at the top
            price = stocks[s, VALUE]
            if knobs[pid, STOCK_WEIGHT] > 0 and years_left > 1 and price <= knobs[pid, BUY_BELOW]:
                v = (knobs[pid, STOCK_WEIGHT] * (knobs[pid, BUY_BELOW] + 1 - price) * 1000.0 * count
                     - penalty)
        scores[i] = v


@njit(cache=True)
def card_scores(cfg, tables, jobs, players, board, p, options, n, knobs, pid, scores):
    """Buy Karnaxis Card: use a card now (1) or keep it (0).  A tax-free card waits for a year
    whose foreseen tax reaches the tax_free_at knob, a loan-forgiving card for loans to
    forgive; in the last year every card is used (a saved card is worth nothing at the end)."""
    last = board[YEAR] >= cfg[CFG_YEARS]
    for i in range(n):
        effect, value = options[i, OPT_B], options[i, OPT_COST]
        v = 1.0
        if options[i, OPT_ACTION] == CU_SAVE:
            v = 0.0
        elif last:
            v = 1.0
        elif effect == KE_TAX_FREE:
            income = expected_income(jobs, players, p)
            table = T_TAX_SMART if players[p, ACCOUNTANT] == 1 else T_TAX_STANDARD
            v = 1.0 if tables[table, bracket_of(tables, income)] >= knobs[pid, TAX_FREE_AT] else -1.0
        elif effect == KE_FORGIVE:
            v = 1.0 if players[p, LOANS] >= value else -1.0
        scores[i] = v


@njit(cache=True)
def choose(kind, seat, n, policy_id, cfg, tables, chars, jobs, biz, knobs, players, board, stocks,
           shares, owners, rng, options, scores):
    """Index into ``options[:n]`` chosen by ``policy_id`` for decision ``kind`` of ``seat``;
    ``scores`` float64[>= n] is scratch space."""
    strategy = behaviour(knobs, policy_id)
    if strategy == RANDOM or n == 1:
        return pick_random(n, rng)
    if kind == D_CHARACTER:
        row = min(strategy, LIKES.shape[0] - 1)
        for i in range(n):
            c = options[i, OPT_ACTION]
            s = 0.0
            for a in range(N_ATTR):
                s += chars[c, C_ATTR + a]
            for j in range(LIKES.shape[1]):
                if chars[c, C_KARNAXIS] == LIKES[row, j]:
                    s += 5.0
            scores[i] = s
    elif kind == D_ACTION:
        action_scores(cfg, tables, jobs, biz, players, board, stocks, shares, seat, options, n,
                      knobs, policy_id, scores)
    elif kind == D_ATTRIBUTE:
        for i in range(n):
            a = options[i, OPT_ACTION]
            scores[i] = target_gap(jobs, biz, players, owners, seat, knobs, policy_id,
                                   a) - 0.01 * players[seat, ATTR + a]
    elif kind == D_MARKET:
        market_scores(cfg, tables, jobs, players, board, stocks, seat, options, n, knobs, policy_id,
                      scores)
    elif kind == D_CARD:
        card_scores(cfg, tables, jobs, players, board, seat, options, n, knobs, policy_id, scores)
    else:  # D_REROLL: re-roll a falling stock
        for i in range(n):
            scores[i] = 1.0 if (options[i, OPT_ACTION] == 1) == (options[i, OPT_A] < 0) else 0.0
    return pick_best(scores, n, rng)
