"""Karnaxis stage 3, Year End Review (salary, business income, taxes, loan payments) and Game
End (rulebook: shared/rules/karnaxis.md)."""

from simulator.core.kernel import rule
from simulator.games.karnaxis import money
from simulator.games.karnaxis import state as S

# ---------------------------------------------------------------- Year End Review


@rule
def tax_bracket(rules, income):
    """Tax Brackets: index of the bracket of a year's income."""
    for i in range(S.table_len(rules, S.T_BRACKET_MAX)):
        if income <= S.table(rules, S.T_BRACKET_MAX, i):
            return i
    return S.table_len(rules, S.T_BRACKET_MAX)


@rule
def tax_due(state, rules, p, income, smart):
    """Tax Brackets + Jobs 'n Stuff: the bracket's tax (smart table with an accountant), the
    event's change, minus the Tax Collector's $5,000 per player and the character's discount."""
    r = S.row(p)
    bracket = tax_bracket(rules, income)
    tax = (
        S.table(rules, S.T_TAX_SMART, bracket)
        if smart
        else S.table(rules, S.T_TAX_STANDARD, bracket)
    )
    change = state[S.EVENT_TAX]
    if change < 0 or state[r + S.PROTECTED] == 0:
        tax += change
    if money.holds_job(state, p, rules[S.CFG_JOB_TAX_COLLECTOR]):
        tax -= rules[S.CFG_TC_DISCOUNT] * rules[S.CFG_PLAYERS]
    tax -= money.ability(state, rules, p, S.AB_TAX_DISCOUNT)
    if state[r + S.TAX_FREE] == 1:
        tax = 0
    return max(0, tax)


@rule
def pay_income(state, rules, trace, p):
    """Year End Review, step 1: salary for each job worked (gone to work and/or just started)
    and business income: the income marker rises by the business growth, then the new income
    is paid (the rulebook's shoe-shop example).  Know Your Player Board: the marker cannot
    pass the board's last income circle (business.income_max_usd)."""
    r = S.row(p)
    salary = 0
    for slot in (S.JOB, S.JOB_B):
        j = state[r + slot]
        if j >= 0 and (slot == S.JOB_B or state[r + S.WORKED] == 1):
            pay = S.job(rules, j, S.J_SALARY) + money.ability(state, rules, p, S.AB_SALARY_BONUS)
            change = state[S.EVENT_SALARY]
            if change > 0 or state[r + S.PROTECTED] == 0:
                pay += change
            salary += max(0, pay)
    if salary > 0:
        before = state[r + S.CASH]
        money.gain(state, p, salary, S.L_SALARY)
        money.record(state, trace, S.EV_SALARY, p, salary, 0, before, state[r + S.CASH])
    business = 0
    if state[r + S.N_BUSINESSES] + state[r + S.N_FRANCHISES] > 0 or state[r + S.GROWTH] > 0:
        state[r + S.INCOME] = min(
            state[r + S.INCOME] + state[r + S.GROWTH], rules[S.CFG_INCOME_MAX]
        )
        business = state[r + S.INCOME]
        if state[r + S.N_BUSINESSES] > 0:
            business += money.ability(state, rules, p, S.AB_INCOME_BONUS)
        change = state[S.EVENT_INCOME]
        if change > 0 or state[r + S.PROTECTED] == 0:
            business += change
        business = max(0, business)
        if business > 0:
            before = state[r + S.CASH]
            money.gain(state, p, business, S.L_BUSINESS_INCOME)
            money.record(
                state,
                trace,
                S.EV_BUSINESS_INCOME,
                p,
                business,
                state[r + S.GROWTH],
                before,
                state[r + S.CASH],
            )
    state[r + S.YEAR_SALARY] = salary
    state[r + S.YEAR_BUSINESS] = business


@rule
def pay_taxes(state, rules, trace, p):
    """Year End Review: taxes from the bracket table on the year's income (salary + business
    income; ASSUMED), the smart table with an accountant (hired this year, or free from the
    Accounting firm).  Taxes may be paid with loans."""
    r = S.row(p)
    income = state[r + S.YEAR_SALARY] + state[r + S.YEAR_BUSINESS]
    smart = state[r + S.ACCOUNTANT] == 1 or money.firm_benefit(
        state, rules, p, S.CFG_FIRM_ACCOUNTING
    )
    tax = tax_due(state, rules, p, income, smart)
    state[r + S.YEAR_BRACKET] = tax_bracket(rules, income)
    state[r + S.YEAR_SMART] = 1 if smart else 0
    state[r + S.YEAR_TAX] = tax
    if smart:
        state[r + S.SMART_YEARS] += 1
    before = state[r + S.CASH]
    money.pay_required(state, rules, trace, p, tax, S.L_TAXES, S.NONE)
    money.record(
        state, trace, S.EV_TAX, p, tax, state[r + S.YEAR_BRACKET], before, state[r + S.CASH]
    )


@rule
def interest_on(principal, rate_pct):
    return -(-principal * rate_pct // 100)


@rule
def interest_rate(state, rules, p):
    """Jobs 'n Stuff: the Banker's loans are interest free."""
    return (
        0
        if money.job_holder(state, rules, rules[S.CFG_JOB_BANKER]) == p
        else rules[S.CFG_INTEREST_PCT]
    )


@rule
def repay_loans(state, rules, trace, p, pct, final):
    """Year Chart + Loan Odds 'n Ends: ``pct``% of the loans outstanding plus interest
    (ASSUMED: interest_pct of the principal repaid).  Jobs 'n Stuff: the Banker pays no
    interest and receives the interest others pay.  No loan may pay a loan payment: at the
    $200,000 cap a shortfall takes delinquent notices and the bank pays the payment; below the
    cap the rulebook is silent (loans.notices_below_cap: notices as at the cap, or else cash
    pays what it can and the rest stays on loan).  Game End (``final``): the payment is
    subtracted from cash, which may go negative."""
    r = S.row(p)
    principal = -(-state[r + S.LOANS] * pct // 100)
    if principal <= 0:
        return
    banker = money.job_holder(state, rules, rules[S.CFG_JOB_BANKER])
    rate = interest_rate(state, rules, p)
    interest = interest_on(principal, rate)
    before = state[r + S.CASH]
    if not final and principal + interest > state[r + S.CASH]:
        if state[r + S.LOANS] >= rules[S.CFG_LOAN_CAP] or rules[S.CFG_NOTICES_BELOW_CAP] == 1:
            money.delinquent(state, rules, trace, p, principal + interest)
        else:
            principal = state[r + S.CASH] * 100 // (100 + rate)
            interest = interest_on(principal, rate)
            if principal + interest > state[r + S.CASH]:
                principal -= 1
                interest = interest_on(principal, rate)
    state[r + S.LOANS] -= principal
    money.spend(state, p, principal, S.L_PRINCIPAL)
    money.spend(state, p, interest, S.L_INTEREST)
    if banker >= 0 and banker != p:
        money.gain(state, banker, interest, S.L_INTEREST_RECEIVED)
    money.record(state, trace, S.EV_LOAN_PAYMENT, p, principal, interest, before, state[r + S.CASH])


@rule
def year_end(state, rules, trace):
    """3. Year End Review: income and salary, taxes, loan payments due this year (Year
    Chart).  The last year's payment is the Game End step, which subtracts every outstanding
    loan plus interest from cash (:func:`end_game`)."""
    n = rules[S.CFG_PLAYERS]
    year = state[S.YEAR]
    for p in range(n):
        pay_income(state, rules, trace, p)
    money.check_all_karnaxis(state, rules, trace)
    for p in range(n):
        pay_taxes(state, rules, trace, p)
        money.settle_forfeit(state, rules, trace, p)
    for d in range(S.table_len(rules, S.T_DUE_YEAR)):
        if S.table(rules, S.T_DUE_YEAR, d) == year and year < rules[S.CFG_YEARS]:
            for p in range(n):
                repay_loans(state, rules, trace, p, S.table(rules, S.T_DUE_PCT, d), False)
    money.check_all_karnaxis(state, rules, trace)


# ---------------------------------------------------------------- Game End


@rule
def retirement_payout(state, rules, p):
    """Retirement Fund (At Game End): ASSUMED payout table, extra tokens beyond it, and the
    character's bonus per token."""
    tokens = state[S.row(p) + S.RETIRE_TOKENS]
    return S.payout_for(rules, tokens) + tokens * money.ability(
        state, rules, p, S.AB_RETIREMENT_BONUS
    )


@rule
def rank_title(cash):
    """Game End: the rank chart (0 = below $500,000)."""
    title = 0
    for i in range(len(S.RANK_THRESHOLDS)):
        if cash >= S.RANK_THRESHOLDS[i]:
            title = i + 1
    return title


@rule
def end_game(state, rules, trace, out_game, out_players):
    """Game End: turn in retirement tokens, subtract $100,000 per delinquent notice and the
    outstanding loans plus interest; shares do not count; most cash wins (ASSUMED: tied
    leaders all win and winner_seat is -1)."""
    n = rules[S.CFG_PLAYERS]
    for p in range(n):
        r = S.row(p)
        out_players[p]["cash_before_end_usd"] = state[r + S.CASH]
        payout = retirement_payout(state, rules, p)
        before = state[r + S.CASH]
        money.gain(state, p, payout, S.L_RETIREMENT_PAYOUT)
        money.record(
            state,
            trace,
            S.EV_RETIREMENT,
            p,
            state[r + S.RETIRE_TOKENS],
            payout,
            before,
            state[r + S.CASH],
        )
        money.spend(
            state, p, state[r + S.NOTICES] * rules[S.CFG_NOTICE_PENALTY], S.L_NOTICE_PENALTY
        )
        repay_loans(state, rules, trace, p, 100, True)
        money.record(
            state, trace, S.EV_FINAL, p, state[r + S.NOTICES], 0, before, state[r + S.CASH]
        )
    best = state[S.row(0) + S.CASH]
    for p in range(n):
        best = max(best, state[S.row(p) + S.CASH])
    winners = 0
    winner = S.NONE
    for p in range(n):
        if state[S.row(p) + S.CASH] == best:
            winners += 1
            winner = p
    for p in range(n):
        write_player(state, rules, p, best, out_players[p])
    out_game[S.G_WINNER] = winner if winners == 1 else S.NONE
    out_game[S.G_LENGTH] = rules[S.CFG_YEARS]
    out_game[S.G_END_REASON] = S.END_FINAL_YEAR
    out_game[S.G_UNEMPLOYMENT_LEFT] = state[S.FUND]
    out_game[S.G_SHARES_LEFT] = state[S.SHARE_POOL]
    out_game[S.G_SEARCH_DECISIONS] = state[S.SEARCH_DECISIONS]


@rule
def write_player(state, rules, p, best, out):
    """The players table row of seat p at Game End (``best``: the winning cash; ``out``: a
    state.PLAYER_ROW)."""
    r = S.row(p)
    cash = state[r + S.CASH]
    out["final_cash_usd"] = cash
    out["won"] = cash == best
    out["character"] = state[r + S.CHARACTER]
    out["rank_title"] = rank_title(cash)
    out["retirement_tokens"] = state[r + S.RETIRE_TOKENS]
    out["delinquent_notices"] = state[r + S.NOTICES]
    out["loans_taken"] = state[r + S.LOANS_COUNT]
    out["peak_loans_outstanding_usd"] = state[r + S.PEAK_LOANS]
    out["karnaxis_fulfilled"] = (
        state[r + S.KARNAXIS_DONE] == 1 and state[r + S.KARNAXIS_REVOKED] == 0
    )
    out["karnaxis_year"] = state[r + S.KARNAXIS_YEAR] if state[r + S.KARNAXIS_DONE] == 1 else 0
    out["karnaxis_revoked"] = state[r + S.KARNAXIS_REVOKED] != 0
    out["businesses"] = state[r + S.N_BUSINESSES]
    out["franchises"] = state[r + S.N_FRANCHISES]
    out["jobs_held"] = state[r + S.DISTINCT_JOBS]
    out["college_years"] = state[r + S.COLLEGE]
    out["university_years"] = state[r + S.UNIVERSITY_YEARS]
    out["smart_tax_years"] = state[r + S.SMART_YEARS]
    out["business_growth_usd"] = state[r + S.GROWTH]
    out["business_income_level_usd"] = state[r + S.INCOME]
    out["karnaxis_cards_bought"] = state[r + S.CARDS_BOUGHT]
    out["final_job"] = state[r + S.JOB]
    out["shares_held"] = money.total_shares(state, rules, p)
    t = 0
    for a in range(S.N_ATTR):
        t += state[r + S.ATTR + a]
    out["attribute_total"] = t
    out["karnaxis_cards_unused"] = state[r + S.CARDS_HELD]
    for k in range(S.N_DEALT_KEPT):
        out["dealt_characters"][k] = state[r + S.DEALT + k]
    for k in range(S.COUNTS - S.L_SALARY):
        out["ledger"][k] = state[r + S.L_SALARY + k]
    for k in range(S.N_PLAYER - S.COUNTS):
        out["counts"][k] = state[r + S.COUNTS + k]
