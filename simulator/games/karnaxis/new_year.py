"""Karnaxis stage 1, Update New Year: event cards and the stock market (rulebook:
shared/rules/karnaxis.md, "1. Update New Year" and "Stock Market Basics")."""

from numba import njit

from policies.karnaxis import choose
from simulator.games.karnaxis.money import (
    ability, check_all_karnaxis, firm_benefit, gain, pay_required, record, settle_forfeit)
from simulator.games.karnaxis.state import *  # noqa: F401,F403  (the named slots)
from simulator.rng import DICE, rng_below


# ---------------------------------------------------------------- stock market

@njit(cache=True)
def move_stock(cfg, players, board, stocks, shares, trace, s, delta):
    """Update stocks: move stock s by ``delta``.  At 0 half the shares (rounded up) are
    removed and the value returns to 1; at the "$" space every share pays $1,000 and the value
    returns to 9.  A move (one die roll, or an event's change) is applied whole, like the ring
    moved along the track: one that reaches or passes 0 or "$" is one hit, and every such move
    in a year hits again ("the above rules are applied each time")."""
    before = stocks[s, VALUE]
    v = before + delta
    if v <= 0:
        total = 0
        for p in range(shares.shape[0]):
            total += shares[p, s]
        removed = (total + 1) // 2
        # ASSUMED split: each holder loses half their shares rounded down, and the odd ones
        # left over by rounding come off odd holdings in seat order from the business's seat.
        left = removed
        for p in range(shares.shape[0]):
            k = shares[p, s] // 2
            shares[p, s] -= k
            left -= k
        n = shares.shape[0]
        for i in range(n):
            p = (s + i) % n
            if left > 0 and shares[p, s] % 2 == 1:
                shares[p, s] -= 1
                left -= 1
        board[SHARE_POOL] += removed
        stocks[s, VALUE] = cfg[CFG_AFTER_CRASH]
        record(board, trace, EV_CRASH, NONE, s, removed, before, stocks[s, VALUE])
    elif v >= cfg[CFG_STOCK_TOP]:
        paid = 0
        for p in range(shares.shape[0]):
            if shares[p, s] > 0:
                amount = shares[p, s] * cfg[CFG_DIVIDEND]
                gain(players, p, amount, L_DIVIDENDS)
                paid += amount
        stocks[s, VALUE] = cfg[CFG_AFTER_DIVIDEND]
        record(board, trace, EV_DIVIDEND, NONE, s, paid, before, stocks[s, VALUE])
    else:
        stocks[s, VALUE] = v


@njit(cache=True)
def roll_stock_die(tables, rng):
    return tables[T_DIE, rng_below(rng, DICE, tables[T_LEN, T_DIE])]


@njit(cache=True)
def update_stocks(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                  shares, owners, rng, options, scores, pol, trace):
    """Update New Year, step 4: the owner of each active business rolls the stock die for it;
    the starting player rolls for the black business.  Bits 'n Pieces (Josh): holding shares of
    another player's or the black business, he may roll again and must keep the second roll."""
    n = players.shape[0]
    for k in range(n + 1):
        s = k if k == n else (board[STARTER] + k) % n
        if stocks[s, ACTIVE] == 0:
            continue
        roller = board[STARTER] if s == n else s
        d = roll_stock_die(tables, rng)
        for j in range(n):
            if (j != s and shares[j, s] > 0
                    and chars[players[j, CHARACTER], C_ABILITY] == AB_STOCK_REROLL):
                options[0, OPT_ACTION], options[0, OPT_A], options[0, OPT_B] = 0, d, s
                options[1, OPT_ACTION], options[1, OPT_A], options[1, OPT_B] = 1, d, s
                if choose(D_REROLL, j, 2, pol[j], cfg, tables, chars, jobs, biz, knobs, players,
                          board,
                   stocks, shares, owners, rng, options, scores) == 1:
                    first = d
                    d = roll_stock_die(tables, rng)
                    record(board, trace, EV_REROLL, j, s, first, d, 0)
        before = stocks[s, VALUE]
        record(board, trace, EV_STOCK, roller, s, d, before, before + d)
        move_stock(cfg, players, board, stocks, shares, trace, s, d)


@njit(cache=True)
def give_shares(board, shares, p, s, count):
    """Start Business / Start Franchise: +5 shares, as far as the share supply lasts
    (ASSUMED: the 59 share tokens are the limit)."""
    k = min(count, board[SHARE_POOL])
    shares[p, s] += k
    board[SHARE_POOL] -= k


# ---------------------------------------------------------------- Update New Year

@njit(cache=True)
def lose_job(players, board, owners, trace, p, job):
    if job < 0:
        return
    owners[OWN_JOB, job] = NONE
    if players[p, JOB] == job:
        players[p, JOB] = NONE
    if players[p, JOB_B] == job:
        players[p, JOB_B] = NONE
    record(board, trace, EV_FIRED, p, job, 0, players[p, CASH], players[p, CASH])


@njit(cache=True)
def apply_event(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                shares, owners, rng, options, scores, pol, trace, e):
    """Update New Year, step 2: the year's event card (ASSUMED deck, effects in rules.toml).
    Insured players are immune to its negative effects, except on stocks."""
    n = players.shape[0]
    effect, value = events[e, E_EFFECT], events[e, E_VALUE]
    board[EVENT] = e
    record(board, trace, EV_EVENT, NONE, e, value, 0, 0)
    for p in range(n):
        before = players[p, CASH]
        if effect == EF_CASH:
            if value > 0:
                gain(players, p, value, L_EVENT_GAIN)
            elif players[p, PROTECTED] == 0:
                pay_required(cfg, chars, players, board, trace, p, -value, L_EVENT_LOSS, NONE)
        elif effect == EF_LOTTERY:
            if rng_below(rng, DICE, 6) == 5:
                gain(players, p, value, L_EVENT_GAIN)
        elif effect == EF_MEDICAL:
            if players[p, PROTECTED] == 0 and rng_below(rng, DICE, 6) < 2:
                pay_required(cfg, chars, players, board, trace, p, value, L_EVENT_LOSS, NONE)
        elif effect == EF_LAYOFF:
            if players[p, PROTECTED] == 0:
                for slot in (JOB, JOB_B):
                    j = players[p, slot]
                    if j >= 0 and jobs[j, J_SALARY] <= value:
                        lose_job(players, board, owners, trace, p, j)
        elif effect == EF_GROWTH:
            if players[p, N_BUSINESSES] + players[p, N_FRANCHISES] > 0:
                if value > 0 or players[p, PROTECTED] == 0:
                    players[p, GROWTH] = max(0, players[p, GROWTH] + value)
        if players[p, CASH] != before:
            record(board, trace, EV_EVENT_CASH, p, e, 0, before, players[p, CASH])
        settle_forfeit(cfg, chars, players, board, trace, p)
    if effect == EF_STOCK_ALL:
        for s in range(n + 1):
            if stocks[s, ACTIVE] == 1:
                move_stock(cfg, players, board, stocks, shares, trace, s, value)
    elif effect == EF_STOCK_BLACK:
        move_stock(cfg, players, board, stocks, shares, trace, n, value)
    elif effect == EF_SALARY:
        board[EVENT_SALARY] = value
    elif effect == EF_BUSINESS_INCOME:
        board[EVENT_INCOME] = value
    elif effect == EF_TAX:
        board[EVENT_TAX] = value
    elif effect == EF_TUITION_FREE:
        board[EVENT_TUITION_FREE] = 1
    elif effect == EF_UNEMPLOYMENT:
        board[FUND] += value


@njit(cache=True)
def update_new_year(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                    shares, owners, rng, options, scores, pol, trace, year):
    """1. Update New Year: move the year marker, read the event card, add $10,000 to the
    unemployment fund, update stocks.  Year 1: everyone is insured (Year Chart)."""
    board[YEAR] = year
    board[UNEMP_TAKEN] = 0
    board[EVENT_SALARY], board[EVENT_INCOME], board[EVENT_TAX], board[EVENT_TUITION_FREE] = 0, 0, 0, 0
    record(board, trace, EV_YEAR, board[STARTER], year, 0, 0, 0)
    for p in range(players.shape[0]):
        players[p, USED] = 0
        players[p, WORKED] = 0
        players[p, ACCOUNTANT] = 0
        players[p, TAX_FREE] = 0
        players[p, YEAR_SALARY], players[p, YEAR_BUSINESS], players[p, YEAR_TAX] = 0, 0, 0
        protected = (year == 1 or players[p, INSURED] == 1
                     or ability(chars, players, p, AB_ALWAYS_INSURED) > 0
                     or firm_benefit(cfg, owners, p, CFG_FIRM_INSURANCE))
        players[p, PROTECTED] = 1 if protected else 0
        players[p, INSURED] = 0      # ASSUMED: a token bought last year covers this year, then goes back
    apply_event(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                shares, owners, rng, options, scores, pol, trace, owners[DECK_EVENTS, year - 1])
    board[FUND] += cfg[CFG_FUND_INCREMENT]
    update_stocks(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                  shares, owners, rng, options, scores, pol, trace)
    check_all_karnaxis(cfg, chars, players, shares, board, trace)
