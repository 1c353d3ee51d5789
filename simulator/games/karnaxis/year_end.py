"""Karnaxis stage 3, Year End Review (salary, business income, taxes, loan payments) and Game
End (rulebook: shared/rules/karnaxis.md)."""

from simulator.core.kernel import rule
from simulator.games.karnaxis.money import (
    ability,
    check_all_karnaxis,
    delinquent,
    firm_benefit,
    gain,
    holds_job,
    job_holder,
    pay_required,
    record,
    settle_forfeit,
    spend,
    total_shares,
)
from simulator.games.karnaxis.state import (
    AB_INCOME_BONUS,
    AB_RETIREMENT_BONUS,
    AB_SALARY_BONUS,
    AB_TAX_DISCOUNT,
    ACCOUNTANT,
    ATTR,
    CARDS_BOUGHT,
    CARDS_HELD,
    CASH,
    CFG_FIRM_ACCOUNTING,
    CFG_INCOME_MAX,
    CFG_INTEREST_PCT,
    CFG_JOB_BANKER,
    CFG_JOB_TAX_COLLECTOR,
    CFG_LOAN_CAP,
    CFG_NOTICE_PENALTY,
    CFG_NOTICES_BELOW_CAP,
    CFG_PLAYERS,
    CFG_TC_DISCOUNT,
    CFG_YEARS,
    CHARACTER,
    COLLEGE,
    DEALT,
    DISTINCT_JOBS,
    END_FINAL_YEAR,
    EV_BUSINESS_INCOME,
    EV_FINAL,
    EV_LOAN_PAYMENT,
    EV_RETIREMENT,
    EV_SALARY,
    EV_TAX,
    EVENT_INCOME,
    EVENT_SALARY,
    EVENT_TAX,
    FUND,
    G_END_REASON,
    G_LENGTH,
    G_SEARCH_DECISIONS,
    G_SHARES_LEFT,
    G_UNEMPLOYMENT_LEFT,
    G_WINNER,
    GROWTH,
    INCOME,
    J_SALARY,
    JOB,
    JOB_B,
    KARNAXIS_DONE,
    KARNAXIS_REVOKED,
    KARNAXIS_YEAR,
    L_BUSINESS_INCOME,
    L_INTEREST,
    L_INTEREST_RECEIVED,
    L_NOTICE_PENALTY,
    L_PRINCIPAL,
    L_RETIREMENT_PAYOUT,
    L_SALARY,
    L_TAXES,
    LOANS,
    LOANS_COUNT,
    N_ATTR,
    N_BUSINESSES,
    N_DEALT_KEPT,
    N_FRANCHISES,
    N_PLAYER,
    N_PLAYER_OUT,
    NONE,
    NOTICES,
    P_ATTR_TOTAL,
    P_BUSINESSES,
    P_CARDS,
    P_CARDS_UNUSED,
    P_CASH_BEFORE_END,
    P_CHARACTER,
    P_COLLEGE,
    P_DEALT,
    P_FINAL_JOB,
    P_FRANCHISES,
    P_GROWTH,
    P_INCOME,
    P_JOBS_HELD,
    P_KARNAXIS_DONE,
    P_KARNAXIS_REVOKED,
    P_KARNAXIS_YEAR,
    P_LOANS_COUNT,
    P_NOTICES,
    P_PEAK_LOANS,
    P_RANK_TITLE,
    P_RETIRE_PAYOUT,
    P_RETIRE_TOKENS,
    P_SCORE,
    P_SHARES_HELD,
    P_SMART_YEARS,
    P_UNIVERSITY,
    P_WON,
    PEAK_LOANS,
    PROTECTED,
    RANK_THRESHOLDS,
    RETIRE_TOKENS,
    SEARCH_DECISIONS,
    SHARE_POOL,
    SMART_YEARS,
    T_BRACKET_MAX,
    T_DUE_PCT,
    T_DUE_YEAR,
    T_TAX_SMART,
    T_TAX_STANDARD,
    TAX_FREE,
    UNIVERSITY_YEARS,
    WORKED,
    YEAR,
    YEAR_BRACKET,
    YEAR_BUSINESS,
    YEAR_SALARY,
    YEAR_SMART,
    YEAR_TAX,
    job,
    payout_for,
    row,
    table,
    table_len,
)

# ---------------------------------------------------------------- Year End Review


@rule
def tax_bracket(rules, income):
    """Tax Brackets: index of the bracket of a year's income."""
    for i in range(table_len(rules, T_BRACKET_MAX)):
        if income <= table(rules, T_BRACKET_MAX, i):
            return i
    return table_len(rules, T_BRACKET_MAX)


@rule
def tax_due(state, rules, p, income, smart):
    """Tax Brackets + Jobs 'n Stuff: the bracket's tax (smart table with an accountant), the
    event's change, minus the Tax Collector's $5,000 per player and the character's discount."""
    r = row(p)
    bracket = tax_bracket(rules, income)
    tax = table(rules, T_TAX_SMART, bracket) if smart else table(rules, T_TAX_STANDARD, bracket)
    change = state[EVENT_TAX]
    if change < 0 or state[r + PROTECTED] == 0:
        tax += change
    if holds_job(state, p, rules[CFG_JOB_TAX_COLLECTOR]):
        tax -= rules[CFG_TC_DISCOUNT] * rules[CFG_PLAYERS]
    tax -= ability(state, rules, p, AB_TAX_DISCOUNT)
    if state[r + TAX_FREE] == 1:
        tax = 0
    return max(0, tax)


@rule
def pay_income(state, rules, trace, p):
    """Year End Review, step 1: salary for each job worked (gone to work and/or just started)
    and business income: the income marker rises by the business growth, then the new income
    is paid (the rulebook's shoe-shop example).  Know Your Player Board: the marker cannot
    pass the board's last income circle (business.income_max_usd)."""
    r = row(p)
    salary = 0
    for slot in (JOB, JOB_B):
        j = state[r + slot]
        if j >= 0 and (slot == JOB_B or state[r + WORKED] == 1):
            pay = job(rules, j, J_SALARY) + ability(state, rules, p, AB_SALARY_BONUS)
            change = state[EVENT_SALARY]
            if change > 0 or state[r + PROTECTED] == 0:
                pay += change
            salary += max(0, pay)
    if salary > 0:
        before = state[r + CASH]
        gain(state, p, salary, L_SALARY)
        record(state, trace, EV_SALARY, p, salary, 0, before, state[r + CASH])
    business = 0
    if state[r + N_BUSINESSES] + state[r + N_FRANCHISES] > 0 or state[r + GROWTH] > 0:
        state[r + INCOME] = min(state[r + INCOME] + state[r + GROWTH], rules[CFG_INCOME_MAX])
        business = state[r + INCOME]
        if state[r + N_BUSINESSES] > 0:
            business += ability(state, rules, p, AB_INCOME_BONUS)
        change = state[EVENT_INCOME]
        if change > 0 or state[r + PROTECTED] == 0:
            business += change
        business = max(0, business)
        if business > 0:
            before = state[r + CASH]
            gain(state, p, business, L_BUSINESS_INCOME)
            record(
                state,
                trace,
                EV_BUSINESS_INCOME,
                p,
                business,
                state[r + GROWTH],
                before,
                state[r + CASH],
            )
    state[r + YEAR_SALARY] = salary
    state[r + YEAR_BUSINESS] = business


@rule
def pay_taxes(state, rules, trace, p):
    """Year End Review: taxes from the bracket table on the year's income (salary + business
    income; ASSUMED), the smart table with an accountant (hired this year, or free from the
    Accounting firm).  Taxes may be paid with loans."""
    r = row(p)
    income = state[r + YEAR_SALARY] + state[r + YEAR_BUSINESS]
    smart = state[r + ACCOUNTANT] == 1 or firm_benefit(state, rules, p, CFG_FIRM_ACCOUNTING)
    tax = tax_due(state, rules, p, income, smart)
    state[r + YEAR_BRACKET] = tax_bracket(rules, income)
    state[r + YEAR_SMART] = 1 if smart else 0
    state[r + YEAR_TAX] = tax
    if smart:
        state[r + SMART_YEARS] += 1
    before = state[r + CASH]
    pay_required(state, rules, trace, p, tax, L_TAXES, NONE)
    record(state, trace, EV_TAX, p, tax, state[r + YEAR_BRACKET], before, state[r + CASH])


@rule
def interest_on(principal, rate_pct):
    return -(-principal * rate_pct // 100)


@rule
def interest_rate(state, rules, p):
    """Jobs 'n Stuff: the Banker's loans are interest free."""
    return 0 if job_holder(state, rules, rules[CFG_JOB_BANKER]) == p else rules[CFG_INTEREST_PCT]


@rule
def repay_loans(state, rules, trace, p, pct, final):
    """Year Chart + Loan Odds 'n Ends: ``pct``% of the loans outstanding plus interest
    (ASSUMED: interest_pct of the principal repaid).  Jobs 'n Stuff: the Banker pays no
    interest and receives the interest others pay.  No loan may pay a loan payment: at the
    $200,000 cap a shortfall takes delinquent notices and the bank pays the payment; below the
    cap the rulebook is silent (loans.notices_below_cap: notices as at the cap, or else cash
    pays what it can and the rest stays on loan).  Game End (``final``): the payment is
    subtracted from cash, which may go negative."""
    r = row(p)
    principal = -(-state[r + LOANS] * pct // 100)
    if principal <= 0:
        return
    banker = job_holder(state, rules, rules[CFG_JOB_BANKER])
    rate = interest_rate(state, rules, p)
    interest = interest_on(principal, rate)
    before = state[r + CASH]
    if not final and principal + interest > state[r + CASH]:
        if state[r + LOANS] >= rules[CFG_LOAN_CAP] or rules[CFG_NOTICES_BELOW_CAP] == 1:
            delinquent(state, rules, trace, p, principal + interest)
        else:
            principal = state[r + CASH] * 100 // (100 + rate)
            interest = interest_on(principal, rate)
            if principal + interest > state[r + CASH]:
                principal -= 1
                interest = interest_on(principal, rate)
    state[r + LOANS] -= principal
    spend(state, p, principal, L_PRINCIPAL)
    spend(state, p, interest, L_INTEREST)
    if banker >= 0 and banker != p:
        gain(state, banker, interest, L_INTEREST_RECEIVED)
    record(state, trace, EV_LOAN_PAYMENT, p, principal, interest, before, state[r + CASH])


@rule
def year_end(state, rules, trace):
    """3. Year End Review: income and salary, taxes, loan payments due this year (Year
    Chart).  The last year's payment is the Game End step, which subtracts every outstanding
    loan plus interest from cash (:func:`end_game`)."""
    n = rules[CFG_PLAYERS]
    year = state[YEAR]
    for p in range(n):
        pay_income(state, rules, trace, p)
    check_all_karnaxis(state, rules, trace)
    for p in range(n):
        pay_taxes(state, rules, trace, p)
        settle_forfeit(state, rules, trace, p)
    for d in range(table_len(rules, T_DUE_YEAR)):
        if table(rules, T_DUE_YEAR, d) == year and year < rules[CFG_YEARS]:
            for p in range(n):
                repay_loans(state, rules, trace, p, table(rules, T_DUE_PCT, d), False)
    check_all_karnaxis(state, rules, trace)


# ---------------------------------------------------------------- Game End


@rule
def retirement_payout(state, rules, p):
    """Retirement Fund (At Game End): ASSUMED payout table, extra tokens beyond it, and the
    character's bonus per token."""
    tokens = state[row(p) + RETIRE_TOKENS]
    return payout_for(rules, tokens) + tokens * ability(state, rules, p, AB_RETIREMENT_BONUS)


@rule
def rank_title(cash):
    """Game End: the rank chart (0 = below $500,000)."""
    title = 0
    for i in range(len(RANK_THRESHOLDS)):
        if cash >= RANK_THRESHOLDS[i]:
            title = i + 1
    return title


@rule
def end_game(state, rules, trace, out_game, out_players):
    """Game End: turn in retirement tokens, subtract $100,000 per delinquent notice and the
    outstanding loans plus interest; shares do not count; most cash wins (ASSUMED: tied
    leaders all win and winner_seat is -1)."""
    n = rules[CFG_PLAYERS]
    for p in range(n):
        r = row(p)
        out_players[p, P_CASH_BEFORE_END] = state[r + CASH]
        payout = retirement_payout(state, rules, p)
        before = state[r + CASH]
        gain(state, p, payout, L_RETIREMENT_PAYOUT)
        record(
            state,
            trace,
            EV_RETIREMENT,
            p,
            state[r + RETIRE_TOKENS],
            payout,
            before,
            state[r + CASH],
        )
        spend(state, p, state[r + NOTICES] * rules[CFG_NOTICE_PENALTY], L_NOTICE_PENALTY)
        repay_loans(state, rules, trace, p, 100, True)
        record(state, trace, EV_FINAL, p, state[r + NOTICES], 0, before, state[r + CASH])
    best = state[row(0) + CASH]
    for p in range(n):
        best = max(best, state[row(p) + CASH])
    winners = 0
    winner = NONE
    for p in range(n):
        if state[row(p) + CASH] == best:
            winners += 1
            winner = p
    for p in range(n):
        write_player(state, rules, p, best, out_players[p])
    out_game[G_WINNER] = winner if winners == 1 else NONE
    out_game[G_LENGTH] = rules[CFG_YEARS]
    out_game[G_END_REASON] = END_FINAL_YEAR
    out_game[G_UNEMPLOYMENT_LEFT] = state[FUND]
    out_game[G_SHARES_LEFT] = state[SHARE_POOL]
    out_game[G_SEARCH_DECISIONS] = state[SEARCH_DECISIONS]


@rule
def write_player(state, rules, p, best, out):
    """The players table row of seat p at Game End (``best``: the winning cash)."""
    r = row(p)
    cash = state[r + CASH]
    out[P_SCORE] = cash
    out[P_WON] = 1 if cash == best else 0
    out[P_CHARACTER] = state[r + CHARACTER]
    out[P_RANK_TITLE] = rank_title(cash)
    out[P_RETIRE_TOKENS] = state[r + RETIRE_TOKENS]
    out[P_RETIRE_PAYOUT] = state[r + L_RETIREMENT_PAYOUT]
    out[P_NOTICES] = state[r + NOTICES]
    out[P_LOANS_COUNT] = state[r + LOANS_COUNT]
    out[P_PEAK_LOANS] = state[r + PEAK_LOANS]
    kept = state[r + KARNAXIS_DONE] == 1 and state[r + KARNAXIS_REVOKED] == 0
    out[P_KARNAXIS_DONE] = 1 if kept else 0
    out[P_KARNAXIS_YEAR] = state[r + KARNAXIS_YEAR] if state[r + KARNAXIS_DONE] == 1 else 0
    out[P_KARNAXIS_REVOKED] = state[r + KARNAXIS_REVOKED]
    out[P_BUSINESSES] = state[r + N_BUSINESSES]
    out[P_FRANCHISES] = state[r + N_FRANCHISES]
    out[P_JOBS_HELD] = state[r + DISTINCT_JOBS]
    out[P_COLLEGE] = state[r + COLLEGE]
    out[P_UNIVERSITY] = state[r + UNIVERSITY_YEARS]
    out[P_SMART_YEARS] = state[r + SMART_YEARS]
    out[P_GROWTH] = state[r + GROWTH]
    out[P_INCOME] = state[r + INCOME]
    out[P_CARDS] = state[r + CARDS_BOUGHT]
    out[P_FINAL_JOB] = state[r + JOB]
    out[P_SHARES_HELD] = total_shares(state, rules, p)
    t = 0
    for a in range(N_ATTR):
        t += state[r + ATTR + a]
    out[P_ATTR_TOTAL] = t
    out[P_CARDS_UNUSED] = state[r + CARDS_HELD]
    for k in range(N_DEALT_KEPT):
        out[P_DEALT + k] = state[r + DEALT + k]
    for k in range(L_SALARY, N_PLAYER):
        out[N_PLAYER_OUT + k - L_SALARY] = state[r + k]
