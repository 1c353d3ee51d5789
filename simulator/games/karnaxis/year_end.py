"""Karnaxis stage 3, Year End Review (salary, business income, taxes, loan payments) and Game
End (rulebook: shared/rules/karnaxis.md)."""

from numba import njit

from simulator.games.karnaxis.money import (
    ability, check_all_karnaxis, delinquent, firm_benefit, gain, holds_job, job_holder,
    pay_required, record, settle_forfeit, spend, total_shares)
from simulator.games.karnaxis.state import *  # noqa: F401,F403  (the named slots)


# ---------------------------------------------------------------- Year End Review

@njit(cache=True)
def tax_bracket(tables, income):
    """Tax Brackets: index of the bracket of a year's income."""
    for i in range(tables[T_LEN, T_BRACKET_MAX]):
        if income <= tables[T_BRACKET_MAX, i]:
            return i
    return tables[T_LEN, T_BRACKET_MAX]


@njit(cache=True)
def tax_due(cfg, tables, chars, players, board, owners, p, income, smart):
    """Tax Brackets + Jobs 'n Stuff: the bracket's tax (smart table with an accountant), the
    event's change, minus the Tax Collector's $5,000 per player and the character's discount."""
    bracket = tax_bracket(tables, income)
    tax = tables[T_TAX_SMART, bracket] if smart else tables[T_TAX_STANDARD, bracket]
    change = board[EVENT_TAX]
    if change < 0 or players[p, PROTECTED] == 0:
        tax += change
    if holds_job(players, p, cfg[CFG_JOB_TAX_COLLECTOR]):
        tax -= cfg[CFG_TC_DISCOUNT] * players.shape[0]
    tax -= ability(chars, players, p, AB_TAX_DISCOUNT)
    if players[p, TAX_FREE] == 1:
        tax = 0
    return max(0, tax)


@njit(cache=True)
def pay_income(cfg, chars, jobs, players, board, trace, p):
    """Year End Review, step 1: salary for each job worked (gone to work and/or just started)
    and business income: the income marker rises by the business growth, then the new income
    is paid (the rulebook's shoe-shop example).  Know Your Player Board: the marker cannot
    pass the board's last income circle (business.income_max_usd)."""
    salary = 0
    for slot in (JOB, JOB_B):
        j = players[p, slot]
        if j >= 0 and (slot == JOB_B or players[p, WORKED] == 1):
            pay = jobs[j, J_SALARY] + ability(chars, players, p, AB_SALARY_BONUS)
            change = board[EVENT_SALARY]
            if change > 0 or players[p, PROTECTED] == 0:
                pay += change
            salary += max(0, pay)
    if salary > 0:
        before = players[p, CASH]
        gain(players, p, salary, L_SALARY)
        record(board, trace, EV_SALARY, p, salary, 0, before, players[p, CASH])
    business = 0
    if players[p, N_BUSINESSES] + players[p, N_FRANCHISES] > 0 or players[p, GROWTH] > 0:
        players[p, INCOME] = min(players[p, INCOME] + players[p, GROWTH], cfg[CFG_INCOME_MAX])
        business = players[p, INCOME]
        if players[p, N_BUSINESSES] > 0:
            business += ability(chars, players, p, AB_INCOME_BONUS)
        change = board[EVENT_INCOME]
        if change > 0 or players[p, PROTECTED] == 0:
            business += change
        business = max(0, business)
        if business > 0:
            before = players[p, CASH]
            gain(players, p, business, L_BUSINESS_INCOME)
            record(board, trace, EV_BUSINESS_INCOME, p, business, players[p, GROWTH], before,
                   players[p, CASH])
    players[p, YEAR_SALARY] = salary
    players[p, YEAR_BUSINESS] = business


@njit(cache=True)
def pay_taxes(cfg, tables, chars, players, board, owners, trace, p):
    """Year End Review: taxes from the bracket table on the year's income (salary + business
    income; ASSUMED), the smart table with an accountant (hired this year, or free from the
    Accounting firm).  Taxes may be paid with loans."""
    income = players[p, YEAR_SALARY] + players[p, YEAR_BUSINESS]
    smart = players[p, ACCOUNTANT] == 1 or firm_benefit(cfg, owners, p, CFG_FIRM_ACCOUNTING)
    tax = tax_due(cfg, tables, chars, players, board, owners, p, income, smart)
    players[p, YEAR_BRACKET] = tax_bracket(tables, income)
    players[p, YEAR_SMART] = 1 if smart else 0
    players[p, YEAR_TAX] = tax
    if smart:
        players[p, SMART_YEARS] += 1
    before = players[p, CASH]
    pay_required(cfg, chars, players, board, trace, p, tax, L_TAXES, NONE)
    record(board, trace, EV_TAX, p, tax, players[p, YEAR_BRACKET], before, players[p, CASH])


@njit(cache=True)
def interest_on(principal, rate_pct):
    return -(-principal * rate_pct // 100)


@njit(cache=True)
def repay_loans(cfg, players, board, trace, p, pct, final):
    """Year Chart + Loan Odds 'n Ends: ``pct``% of the loans outstanding plus interest
    (ASSUMED: interest_pct of the principal repaid).  Jobs 'n Stuff: the Banker pays no
    interest and receives the interest others pay.  No loan may pay a loan payment: at the
    $200,000 cap a shortfall takes delinquent notices and the bank pays the payment; below the
    cap the rulebook is silent (loans.notices_below_cap: notices as at the cap, or else cash
    pays what it can and the rest stays on loan).  Game End (``final``): the payment is
    subtracted from cash, which may go negative."""
    principal = -(-players[p, LOANS] * pct // 100)
    if principal <= 0:
        return
    banker = job_holder(players, cfg[CFG_JOB_BANKER])
    rate = 0 if banker == p else cfg[CFG_INTEREST_PCT]
    interest = interest_on(principal, rate)
    before = players[p, CASH]
    if not final and principal + interest > players[p, CASH]:
        if players[p, LOANS] >= cfg[CFG_LOAN_CAP] or cfg[CFG_NOTICES_BELOW_CAP] == 1:
            delinquent(cfg, players, board, trace, p, principal + interest)
        else:
            principal = players[p, CASH] * 100 // (100 + rate)
            interest = interest_on(principal, rate)
            if principal + interest > players[p, CASH]:
                principal -= 1
                interest = interest_on(principal, rate)
    players[p, LOANS] -= principal
    spend(players, p, principal, L_PRINCIPAL)
    spend(players, p, interest, L_INTEREST)
    if banker >= 0 and banker != p:
        gain(players, banker, interest, L_INTEREST_RECEIVED)
    record(board, trace, EV_LOAN_PAYMENT, p, principal, interest, before, players[p, CASH])


@njit(cache=True)
def year_end(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks, shares,
             owners, rng, options, scores, pol, trace, year):
    """3. Year End Review: income and salary, taxes, loan payments due this year (Year
    Chart).  The last year's payment is the Game End step, which subtracts every outstanding
    loan plus interest from cash (:func:`end_game`)."""
    n = players.shape[0]
    for p in range(n):
        pay_income(cfg, chars, jobs, players, board, trace, p)
    check_all_karnaxis(cfg, chars, players, shares, board, trace)
    for p in range(n):
        pay_taxes(cfg, tables, chars, players, board, owners, trace, p)
        settle_forfeit(cfg, chars, players, board, trace, p)
    for d in range(tables[T_LEN, T_DUE_YEAR]):
        if tables[T_DUE_YEAR, d] == year and year < cfg[CFG_YEARS]:
            for p in range(n):
                repay_loans(cfg, players, board, trace, p, tables[T_DUE_PCT, d], False)
    check_all_karnaxis(cfg, chars, players, shares, board, trace)


# ---------------------------------------------------------------- Game End

@njit(cache=True)
def retirement_payout(cfg, tables, tokens):
    """Retirement Fund (At Game End): ASSUMED payout table, extra tokens beyond it."""
    last = tables[T_LEN, T_RETIRE_PAYOUT] - 1
    if tokens <= last:
        return tables[T_RETIRE_PAYOUT, tokens]
    return tables[T_RETIRE_PAYOUT, last] + (tokens - last) * cfg[CFG_EXTRA_TOKEN]


@njit(cache=True)
def rank_title(cash):
    """Game End: the rank chart (0 = below $500,000)."""
    title = 0
    for i in range(len(RANK_THRESHOLDS)):
        if cash >= RANK_THRESHOLDS[i]:
            title = i + 1
    return title


@njit(cache=True)
def end_game(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks, shares,
             owners, rng, options, scores, pol, trace, out_game, out_players):
    """Game End: turn in retirement tokens, subtract $100,000 per delinquent notice and the
    outstanding loans plus interest; shares do not count; most cash wins (ASSUMED: tied
    leaders all win and winner_seat is -1)."""
    n = players.shape[0]
    for p in range(n):
        row = out_players[p]
        row[P_CASH_BEFORE_END] = players[p, CASH]
        payout = retirement_payout(cfg, tables, players[p, RETIRE_TOKENS])
        payout += players[p, RETIRE_TOKENS] * ability(chars, players, p, AB_RETIREMENT_BONUS)
        before = players[p, CASH]
        gain(players, p, payout, L_RETIREMENT_PAYOUT)
        record(board, trace, EV_RETIREMENT, p, players[p, RETIRE_TOKENS], payout, before,
               players[p, CASH])
        spend(players, p, players[p, NOTICES] * cfg[CFG_NOTICE_PENALTY], L_NOTICE_PENALTY)
        repay_loans(cfg, players, board, trace, p, 100, True)
        record(board, trace, EV_FINAL, p, players[p, NOTICES], 0, before, players[p, CASH])
    best = players[0, CASH]
    for p in range(n):
        best = max(best, players[p, CASH])
    winners = 0
    winner = NONE
    for p in range(n):
        if players[p, CASH] == best:
            winners += 1
            winner = p
    for p in range(n):
        row = out_players[p]
        row[P_SCORE] = players[p, CASH]
        row[P_WON] = 1 if players[p, CASH] == best else 0
        row[P_CHARACTER] = players[p, CHARACTER]
        row[P_RANK_TITLE] = rank_title(players[p, CASH])
        row[P_RETIRE_TOKENS] = players[p, RETIRE_TOKENS]
        row[P_RETIRE_PAYOUT] = players[p, L_RETIREMENT_PAYOUT]
        row[P_NOTICES] = players[p, NOTICES]
        row[P_LOANS_COUNT] = players[p, LOANS_COUNT]
        row[P_PEAK_LOANS] = players[p, PEAK_LOANS]
        kept = players[p, KARNAXIS_DONE] == 1 and players[p, KARNAXIS_REVOKED] == 0
        row[P_KARNAXIS_DONE] = 1 if kept else 0
        row[P_KARNAXIS_YEAR] = players[p, KARNAXIS_YEAR] if players[p, KARNAXIS_DONE] == 1 else 0
        row[P_KARNAXIS_REVOKED] = players[p, KARNAXIS_REVOKED]
        row[P_BUSINESSES] = players[p, N_BUSINESSES]
        row[P_FRANCHISES] = players[p, N_FRANCHISES]
        row[P_JOBS_HELD] = players[p, DISTINCT_JOBS]
        row[P_COLLEGE] = players[p, COLLEGE]
        row[P_UNIVERSITY] = players[p, UNIVERSITY_YEARS]
        row[P_SMART_YEARS] = players[p, SMART_YEARS]
        row[P_GROWTH] = players[p, GROWTH]
        row[P_INCOME] = players[p, INCOME]
        row[P_CARDS] = players[p, CARDS_BOUGHT]
        row[P_FINAL_JOB] = players[p, JOB]
        row[P_SHARES_HELD] = total_shares(shares, p)
        t = 0
        for a in range(N_ATTR):
            t += players[p, ATTR + a]
        row[P_ATTR_TOTAL] = t
        row[P_CARDS_UNUSED] = players[p, CARDS_HELD]
        for k in range(N_DEALT_KEPT):
            row[P_DEALT + k] = players[p, DEALT + k]
        for k in range(L_SALARY, N_PLAYER):
            row[N_PLAYER_OUT + k - L_SALARY] = players[p, k]
    out_game[G_WINNER] = winner if winners == 1 else NONE
    out_game[G_LENGTH] = cfg[CFG_YEARS]
    out_game[G_END_REASON] = END_FINAL_YEAR
    out_game[G_UNEMPLOYMENT_LEFT] = board[FUND]
    out_game[G_SHARES_LEFT] = board[SHARE_POOL]
