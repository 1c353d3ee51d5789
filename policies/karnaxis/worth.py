"""What each option of a decision is worth to a Karnaxis policy, in dollars: what a decision
foresees (the years left, this year's income and its tax bracket) and each kind of decision's
scores of its options (:func:`option_score`), the Karnaxis deck's worth among them."""

import numpy as np

from policies.common import behaviour
from policies.karnaxis.knobs import (
    ACCOUNTANT_INCOME,
    AMBITION_WEIGHT,
    BORROW_LIMIT,
    BORROW_PENALTY,
    BUSINESS_WEIGHT,
    BUY_BELOW,
    CARD_WEIGHT,
    COLLEGE_TARGET,
    COLLEGE_WORTH,
    DECK_BLACK,
    DECK_END,
    DECK_FIXED,
    DECK_FIXED_SIZE,
    DECK_FORGIVE,
    DECK_GROWTH,
    DECK_GROWTH_SIZE,
    DECK_GROWTH_SUM,
    DECK_RETIREMENT,
    DECK_RETIREMENT_SIZE,
    DECK_TAX_FREE,
    DIE_MEAN,
    FORGIVE_FACTOR,
    INSURANCE_VALUE,
    JOB_WEIGHT,
    KEEP,
    LOAN_RATE,
    PER_ATTRIBUTE,
    RETIREMENT_WEIGHT,
    SELL_AT,
    STOCK_WEIGHT,
    STUDY_VALUE,
    TAX_FREE_AT,
    UNIVERSITY_VALUE,
)
from simulator.core.kernel import rule, scorer
from simulator.games.karnaxis import state as S

NO = -1.0e12  # an option the policy refuses (still legal; chosen only if all are refused)
MUST = 1.0e9  # Go To Work / a better job as the first action of a job holder

# Karnaxis kinds each strategy is drawn to when choosing a character
# (rows by policy id, -1 pads)
LIKES = np.array(
    [
        [-1, -1, -1, -1, -1],
        [S.K_JOB, S.K_COLLEGE, S.K_SALARY, S.K_JOBS, -1],
        [S.K_GROWTH, S.K_BUSINESSES, S.K_LEVEL, S.K_FRANCHISES, S.K_INCOME],
        [S.K_SHARES, S.K_DIVIDENDS, S.K_CASH, S.K_CARDS, -1],
        [S.K_RETIREMENT, S.K_CASH, S.K_COLLEGE, S.K_JOBS, -1],
    ],
    dtype=np.int64,
)


@rule
def held_salary(state, rules, p):
    best = 0
    for slot in (S.JOB, S.JOB_B):
        j = state[S.row(p) + slot]
        if j >= 0:
            best = max(best, S.job(rules, j, S.J_SALARY))
    return best


@rule
def expected_income(state, rules, p):
    """This year's income as the player can foresee it: the best salary held plus the
    business income after this year's growth."""
    return held_salary(state, rules, p) + state[S.row(p) + S.INCOME] + state[S.row(p) + S.GROWTH]


@rule
def bracket_near(rules, b, income):
    """The tax bracket of ``income`` (its index in the table), searched from bracket ``b`` (a
    nearby income's): a step or two instead of the whole table."""
    while b > 0 and income <= S.table(rules, S.T_BRACKET_MAX, b - 1):
        b -= 1
    while b < S.table_len(rules, S.T_BRACKET_MAX) and income > S.table(rules, S.T_BRACKET_MAX, b):
        b += 1
    return b


@rule
def smart_saving(rules, bracket):
    """Tax an accountant saves on an income in ``bracket``."""
    return S.table(rules, S.T_TAX_STANDARD, bracket) - S.table(rules, S.T_TAX_SMART, bracket)


@rule
def tax_keep(rules, knobs, pid, bracket, income):
    """Share of a further dollar of ``income`` kept after taxes (KEEP, :func:`readings`): one
    less the standard table's rate at the top of its bracket (the last bracket: at its lower
    bound); ``bracket`` is a nearby income's."""
    return knobs[pid, KEEP + bracket_near(rules, bracket, income)]


@rule
def growth_stream(rules, knobs, pid, expected, bracket, growth, years_left):
    """Business income a growth of ``growth`` adds over the remaining year ends, after tax, to
    a player whose foreseen income is ``expected`` (in ``bracket``)."""
    keep = tax_keep(rules, knobs, pid, bracket, expected + growth)
    return growth * years_left * (years_left + 1) / 2.0 * keep


@rule
def foresee(state, rules, p):
    """What every option of a decision of seat ``p`` is scored with, read once a decision:
    the years left, this year's foreseen income and its tax bracket (searched from last year's
    bracket, on the board: this year's income is most often in it or next to it)."""
    expected = expected_income(state, rules, p)
    last = state[S.row(p) + S.YEAR_BRACKET]
    return rules[S.CFG_YEARS] - state[S.YEAR] + 1, expected, bracket_near(rules, last, expected)


@rule
def short_of(state, rules, p, at):
    """Whether p lacks any of the four attribute minimums at ``rules[at:at + 4]``."""
    for c in range(S.N_ATTR):
        if rules[at + c] > state[S.row(p) + S.ATTR + c]:
            return True
    return False


@scorer
def target_gap(state, rules, knobs, pid, p, a):
    """How far attribute ``a`` is below the best-paid job (scholar-like) or the biggest
    business (business-minded) the player does not yet qualify for."""
    mine = state[S.row(p) + S.ATTR + a]
    if knobs[pid, JOB_WEIGHT] >= knobs[pid, BUSINESS_WEIGHT]:
        best, gap = -1, 0
        own_job = S.owners(rules, S.OWN_JOB)
        for j in range(rules[S.CFG_N_JOBS]):
            salary = S.job(rules, j, S.J_SALARY)
            if state[own_job + j] == S.NONE and salary > best:  # a removed job is REMOVED
                short = short_of(state, rules, p, rules[S.CFG_JOBS] + j * S.J_WIDTH + S.J_ATTR)
                if short or state[S.row(p) + S.COLLEGE] < S.job(rules, j, S.J_COLLEGE):
                    best, gap = salary, S.job(rules, j, S.J_ATTR + a) - mine
        return gap
    best, gap = -1, 0
    own_biz = S.owners(rules, S.OWN_BIZ)
    for b in range(rules[S.CFG_N_BIZ]):
        growth = S.biz(rules, b, S.B_GROWTH)
        if state[own_biz + b] == S.NONE and growth > best:
            if short_of(state, rules, p, rules[S.CFG_BIZ] + b * S.B_WIDTH + S.B_ATTR):
                best, gap = growth, S.biz(rules, b, S.B_ATTR + a) - mine
    return gap


@rule
def market_value(state, rules, knobs, pid, p, left, expected, bracket):
    """What a Buy/Sell Stock visit is worth to the policy before it sees the trades."""
    value = 0.0
    insure = knobs[pid, INSURANCE_VALUE] - rules[S.CFG_INSURANCE_COST]
    if insure > 0 and state[S.row(p) + S.INSURED] == 0 and left > 1:
        value += insure
    if expected >= knobs[pid, ACCOUNTANT_INCOME] > 0:
        value += smart_saving(rules, bracket) - rules[S.CFG_ACCOUNTANT_COST]
    price = float(rules[S.CFG_SHARE_PRICE])
    for s in range(rules[S.CFG_PLAYERS] + 1):
        if state[S.stock(s) + S.ACTIVE] == 1:
            v = state[S.stock(s) + S.VALUE]
            held = state[S.share(p, s)]
            if held > 0 and (v >= knobs[pid, SELL_AT] > 0 or left == 1):
                value += held * v * price
            if left > 1 and 0 < v <= knobs[pid, BUY_BELOW]:
                value += 4.0 * price * knobs[pid, STOCK_WEIGHT]  # a visit buys a few shares
    return value


@rule
def loan_penalty(state, rules, knobs, pid, p, cost):
    """Dollars of penalty for the loan an option needs (its interest at the rules' rate plus
    the policy's own cost of debt); NO past its share of the rules' loan cap."""
    need = cost - state[S.row(p) + S.CASH]
    if need <= 0:
        return 0.0
    if state[S.row(p) + S.LOANS] + need > knobs[pid, BORROW_LIMIT]:
        return NO
    return need * (knobs[pid, LOAN_RATE] + knobs[pid, BORROW_PENALTY])


@rule
def ambition_pull(state, rules, knobs, pid, p, kind):
    """Dollars one more step toward the character's ambition is worth when it is of ``kind``
    (a count: cards bought, retirement tokens held) and not yet fulfilled: the policy's
    ambition weight times the Karnaxis bonus over the steps the ambition takes."""
    c = state[S.row(p) + S.CHARACTER]
    if S.character(rules, c, S.C_KARNAXIS) != kind or state[S.row(p) + S.KARNAXIS_DONE] == 1:
        return 0.0
    steps = max(S.character(rules, c, S.C_KARNAXIS_VALUE), 1)
    return knobs[pid, AMBITION_WEIGHT] * rules[S.CFG_KARNAXIS_BONUS] / steps


@rule
def tokens_worth(state, rules, p, left):
    """Dollars a retirement token bought now adds at Game End: the payout the tokens the player
    can still buy (one a year, this year's included) add, shared among them."""
    t = state[S.row(p) + S.RETIRE_TOKENS]
    return (S.payout_for(rules, t + left) - S.payout_for(rules, t)) / max(left, 1)


@rule
def deck_worth(state, rules, knobs, pid, p, left, expected, bracket):
    """A Karnaxis card's expected worth: the average of the deck's cards (the draw is hidden),
    each used now (the rules' card table) by a player whose foreseen income this year is
    ``expected`` (in ``bracket``): cash at its value, a die's cash at DIE_MEAN times it, an
    attribute at the policy's study value per attribute, growth as business income,
    retirement tokens at the payout, black shares at the black business's price, a tax-free
    year at this year's foreseen tax, forgiven loans with their interest.  What the cards of
    a kind share is read once, not once a card."""
    r = S.row(p)
    tokens = state[r + S.RETIRE_TOKENS]
    payout = S.payout_for(rules, tokens)
    black = state[S.stock(rules[S.CFG_PLAYERS]) + S.VALUE] * rules[S.CFG_SHARE_PRICE]
    tax_table = S.T_TAX_SMART if state[r + S.ACCOUNTANT] == 1 else S.T_TAX_STANDARD
    tax_free = float(S.table(rules, tax_table, bracket))
    loans = state[r + S.LOANS]
    total = 0.0
    n = rules[S.CFG_N_KCARDS]
    for k in range(n):
        effect, value = S.kcard(rules, k, S.KC_EFFECT), S.kcard(rules, k, S.KC_VALUE)
        worth = 0.0
        if effect == S.KE_CASH:
            worth = float(value)
        elif effect == S.KE_DICE_CASH:
            worth = DIE_MEAN * value
        elif effect == S.KE_ATTRIBUTES:
            worth = value * knobs[pid, PER_ATTRIBUTE]
        elif effect == S.KE_COLLEGE:
            worth = knobs[pid, COLLEGE_WORTH]
        elif effect == S.KE_GROWTH:
            stream = growth_stream(rules, knobs, pid, expected, bracket, value, left)
            worth = knobs[pid, BUSINESS_WEIGHT] * stream
        elif effect == S.KE_RETIREMENT:
            worth = knobs[pid, RETIREMENT_WEIGHT] * (S.payout_for(rules, tokens + value) - payout)
        elif effect == S.KE_BLACK_SHARES:
            worth = float(value * black)
        elif effect == S.KE_TAX_FREE:
            worth = tax_free
        elif effect == S.KE_FORGIVE:
            worth = min(value, loans) * knobs[pid, FORGIVE_FACTOR]
        total += worth
    return total / max(n, 1)


@rule
def deck_estimate(state, rules, knobs, pid, p, left, expected, bracket):
    """:func:`deck_worth` summed kind by kind from the deck's tables (:func:`readings`): the
    cards whose worth never changes already added up, the retirement cards' worth read for
    the tokens held, the growth cards' after-tax income added up before it is weighed; and
    the mean absolute worth of a card: (estimate, size).  Only the order and grouping of the
    sums differ from deck_worth's, each card's worth being a product of at most five factors,
    so the estimate is within 16 n u of the size (n cards, u the unit roundoff of a
    float64)."""
    r = S.row(p)
    total, size = knobs[pid, DECK_FIXED], knobs[pid, DECK_FIXED_SIZE]
    first, end = int(knobs[pid, DECK_GROWTH]), int(knobs[pid, DECK_RETIREMENT])
    kept, kept_size = 0.0, 0.0
    if end > first:
        low = bracket_near(rules, bracket, expected + int(knobs[pid, first]))
        b = bracket_near(rules, low, expected + int(knobs[pid, end - 1]))
        if b == low:  # as a rule: every growth card's income is kept at the same rate
            kept = knobs[pid, DECK_GROWTH_SUM] * knobs[pid, KEEP + b]
            kept_size = knobs[pid, DECK_GROWTH_SIZE] * abs(knobs[pid, KEEP + b])
        else:
            b = low
            for c in range(first, end):  # in increasing order: the bracket only moves up
                growth = int(knobs[pid, c])
                b = bracket_near(rules, b, expected + growth)
                income = growth * knobs[pid, KEEP + b]
                kept += income
                kept_size += abs(income)
    years = left * (left + 1) / 2.0
    weight = knobs[pid, BUSINESS_WEIGHT]
    total += weight * years * kept
    size += abs(weight) * years * kept_size
    table = int(knobs[pid, DECK_RETIREMENT])
    rows = int(knobs[pid, DECK_RETIREMENT_SIZE]) - table
    held = min(state[r + S.RETIRE_TOKENS], rows - 1)
    weight = knobs[pid, RETIREMENT_WEIGHT]
    total += weight * knobs[pid, table + held]
    size += abs(weight) * knobs[pid, table + rows + held]
    loans = state[r + S.LOANS]
    forgiven, forgiven_size = 0, 0
    for c in range(int(knobs[pid, DECK_FORGIVE]), int(knobs[pid, DECK_END])):
        loan = min(int(knobs[pid, c]), loans)
        forgiven += loan
        forgiven_size += abs(loan)
    total += forgiven * knobs[pid, FORGIVE_FACTOR]
    size += forgiven_size * abs(knobs[pid, FORGIVE_FACTOR])
    black = state[S.stock(rules[S.CFG_PLAYERS]) + S.VALUE] * rules[S.CFG_SHARE_PRICE]
    tax_table = S.T_TAX_SMART if state[r + S.ACCOUNTANT] == 1 else S.T_TAX_STANDARD
    fixed = knobs[pid, DECK_BLACK] * black + knobs[pid, DECK_TAX_FREE] * S.table(
        rules, tax_table, bracket
    )
    n = max(rules[S.CFG_N_KCARDS], 1)
    return (total + fixed) / n, (size + abs(fixed)) / n


@scorer
def action_score(state, rules, knobs, pid, p, i, left, expected, bracket, deck):
    """Take Action!: option i's worth in dollars (:func:`foresee` gives ``left``, ``expected``
    and ``bracket``; ``deck`` is a Karnaxis card's worth)."""
    action, a, cost = (
        S.opt(state, i, S.OPT_ACTION),
        S.opt(state, i, S.OPT_A),
        S.opt(state, i, S.OPT_COST),
    )
    penalty = loan_penalty(state, rules, knobs, pid, p, cost)
    if penalty == NO:
        return NO
    if action == S.ACT_WORK:
        return MUST + S.job(rules, a, S.J_SALARY)
    if action == S.ACT_JOB_SEARCH:
        held = held_salary(state, rules, p)
        salary = S.job(rules, a, S.J_SALARY)
        if (
            held > 0 and state[S.row(p) + S.USED] == 0
        ):  # first action of a job holder: only a better job
            return MUST + salary if salary > held else NO
        return knobs[pid, JOB_WEIGHT] * (salary + max(0, salary - held) * (left - 1))
    if action == S.ACT_UNEMPLOYMENT:
        return float(state[S.FUND]) + 1000.0
    if action == S.ACT_STUDY:
        return knobs[pid, STUDY_VALUE]
    if action == S.ACT_COLLEGE:
        if a == 1:
            return knobs[pid, UNIVERSITY_VALUE] + 2.0 * knobs[pid, STUDY_VALUE] - cost - penalty
        if state[S.row(p) + S.COLLEGE] < knobs[pid, COLLEGE_TARGET] and left > 2:
            return 4.0 * knobs[pid, STUDY_VALUE] + 2500.0 * left - cost - penalty
        return knobs[pid, STUDY_VALUE] - cost - penalty
    if action == S.ACT_RETIREMENT:
        return (
            knobs[pid, RETIREMENT_WEIGHT] * tokens_worth(state, rules, p, left)
            + ambition_pull(state, rules, knobs, pid, p, S.K_RETIREMENT)
            - cost
            - penalty
        )
    if action == S.ACT_KARNAXIS:
        return (
            knobs[pid, CARD_WEIGHT] * deck
            + ambition_pull(state, rules, knobs, pid, p, S.K_CARDS)
            - cost
            - penalty
        )
    if action == S.ACT_MARKET:
        return market_value(state, rules, knobs, pid, p, left, expected, bracket)
    if action == S.ACT_BUSINESS or action == S.ACT_FRANCHISE or action == S.ACT_ADVERTISE:
        if action == S.ACT_BUSINESS:
            g = S.biz(rules, a, S.B_GROWTH)
        elif action == S.ACT_FRANCHISE:
            g = S.table(rules, S.T_FRANCHISE_GROWTH, state[S.row(a) + S.BUSINESS_LEVEL] - 1)
        else:
            g = S.table(rules, S.T_AD_GROWTH, a)
        stream = growth_stream(rules, knobs, pid, expected, bracket, g, left)
        return knobs[pid, BUSINESS_WEIGHT] * stream - cost - penalty
    return 0.0


@scorer
def trade_score(state, rules, knobs, pid, p, i, left, expected, bracket):
    """Buy/Sell Stock and/or Hire Accountant and/or Buy Insurance: trade i's worth."""
    kind, s, count = (
        S.opt(state, i, S.OPT_ACTION),
        S.opt(state, i, S.OPT_A),
        S.opt(state, i, S.OPT_B),
    )
    cost = S.opt(state, i, S.OPT_COST)
    if kind == S.MK_DONE:
        return 0.0
    penalty = loan_penalty(state, rules, knobs, pid, p, cost)
    if penalty == NO:
        return NO
    if kind == S.MK_INSURANCE:
        if left > 1:
            return knobs[pid, INSURANCE_VALUE] - cost - penalty
    elif kind == S.MK_ACCOUNTANT:
        if knobs[pid, ACCOUNTANT_INCOME] > 0 and expected >= knobs[pid, ACCOUNTANT_INCOME]:
            return smart_saving(rules, bracket) - cost - penalty
    elif kind == S.MK_SELL:
        price = state[S.stock(s) + S.VALUE]
        if left == 1 or (knobs[pid, SELL_AT] > 0 and price >= knobs[pid, SELL_AT]):
            return float(-cost)
    else:  # MK_BUY: a cheap share gains on average; its dividends come at the top
        price = state[S.stock(s) + S.VALUE]
        if knobs[pid, STOCK_WEIGHT] > 0 and left > 1 and price <= knobs[pid, BUY_BELOW]:
            return (
                knobs[pid, STOCK_WEIGHT]
                * (knobs[pid, BUY_BELOW] + 1 - price)
                * rules[S.CFG_SHARE_PRICE]
                * count
                - penalty
            )
    return -1.0


@scorer
def card_score(state, rules, knobs, pid, p, i, bracket):
    """Buy Karnaxis Card: use a card now (1) or keep it (0).  A tax-free card waits for a year
    whose foreseen tax reaches the tax_free_at knob, a loan-forgiving card for loans to
    forgive; in the last year every card is used (a saved card is worth nothing at the end)."""
    effect, value = S.opt(state, i, S.OPT_B), S.opt(state, i, S.OPT_COST)
    if S.opt(state, i, S.OPT_ACTION) == S.CU_SAVE:
        return 0.0
    if state[S.YEAR] >= rules[S.CFG_YEARS]:
        return 1.0
    if effect == S.KE_TAX_FREE:  # this year's foreseen income is in ``bracket``
        tax_table = S.T_TAX_SMART if state[S.row(p) + S.ACCOUNTANT] == 1 else S.T_TAX_STANDARD
        return 1.0 if S.table(rules, tax_table, bracket) >= knobs[pid, TAX_FREE_AT] else -1.0
    if effect == S.KE_FORGIVE:
        return 1.0 if state[S.row(p) + S.LOANS] >= value else -1.0
    return 1.0


@scorer
def option_score(state, rules, knobs, pid, kind, seat, i, left, expected, bracket, deck):
    """The worth policy ``pid`` sees in option i of a decision of ``kind`` by ``seat``
    (:func:`action_score` tells the last four)."""
    if kind == S.D_ACTION:
        return action_score(state, rules, knobs, pid, seat, i, left, expected, bracket, deck)
    if kind == S.D_MARKET:
        return trade_score(state, rules, knobs, pid, seat, i, left, expected, bracket)
    if kind == S.D_ATTRIBUTE:
        a = S.opt(state, i, S.OPT_ACTION)
        return (
            target_gap(state, rules, knobs, pid, seat, a) - 0.01 * state[S.row(seat) + S.ATTR + a]
        )
    if kind == S.D_CARD:
        return card_score(state, rules, knobs, pid, seat, i, bracket)
    if kind == S.D_CHARACTER:
        c = S.opt(state, i, S.OPT_ACTION)
        likes = min(behaviour(knobs, pid), LIKES.shape[0] - 1)
        s = 0.0
        for a in range(S.N_ATTR):
            s += S.character(rules, c, S.C_ATTR + a)
        for j in range(LIKES.shape[1]):
            if S.character(rules, c, S.C_KARNAXIS) == LIKES[likes, j]:
                s += 5.0
        return s
    # D_REROLL: re-roll a falling stock
    return 1.0 if (S.opt(state, i, S.OPT_ACTION) == 1) == (S.opt(state, i, S.OPT_A) < 0) else 0.0
