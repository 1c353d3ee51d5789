"""Karnaxis stage 1, Update New Year: event cards and the stock market (rulebook:
shared/rules/karnaxis.md, "1. Update New Year" and "Stock Market Basics")."""

from simulator.core.kernel import rule
from simulator.core.rng import DICE, rng_below
from simulator.games.karnaxis.decide import choose
from simulator.games.karnaxis.money import (
    ability,
    add_option,
    check_all_karnaxis,
    firm_benefit,
    gain,
    pay_required,
    record,
    settle_forfeit,
)
from simulator.games.karnaxis.state import (
    AB_ALWAYS_INSURED,
    AB_STOCK_REROLL,
    ACCOUNTANT,
    ACTIVE,
    C_ABILITY,
    CASH,
    CFG_AFTER_CRASH,
    CFG_AFTER_DIVIDEND,
    CFG_DIVIDEND,
    CFG_FIRM_INSURANCE,
    CFG_FUND_INCREMENT,
    CFG_PLAYERS,
    CFG_STOCK_TOP,
    CHARACTER,
    COUNTS,
    CT_REROLL,
    D_REROLL,
    DECK_EVENTS,
    E_EFFECT,
    E_VALUE,
    EF_BUSINESS_INCOME,
    EF_CASH,
    EF_GROWTH,
    EF_LAYOFF,
    EF_LOTTERY,
    EF_MEDICAL,
    EF_SALARY,
    EF_STOCK_ALL,
    EF_STOCK_BLACK,
    EF_TAX,
    EF_TUITION_FREE,
    EF_UNEMPLOYMENT,
    EV_CRASH,
    EV_DIVIDEND,
    EV_EVENT,
    EV_EVENT_CASH,
    EV_FIRED,
    EV_REROLL,
    EV_STOCK,
    EV_YEAR,
    EVENT,
    EVENT_INCOME,
    EVENT_SALARY,
    EVENT_TAX,
    EVENT_TUITION_FREE,
    FUND,
    GROWTH,
    INSURED,
    J_SALARY,
    JOB,
    JOB_B,
    L_DIVIDENDS,
    L_EVENT_GAIN,
    L_EVENT_LOSS,
    N_BUSINESSES,
    N_FRANCHISES,
    NONE,
    OWN_JOB,
    PROTECTED,
    SHARE_POOL,
    STARTER,
    T_DIE,
    TAX_FREE,
    UNEMP_TAKEN,
    USED,
    VALUE,
    WORKED,
    YEAR,
    YEAR_BUSINESS,
    YEAR_SALARY,
    YEAR_TAX,
    character,
    event,
    job,
    owners,
    row,
    share,
    stock,
    table,
    table_len,
)

# ---------------------------------------------------------------- stock market


@rule
def move_stock(state, rules, trace, s, delta):
    """Update stocks: move stock s by ``delta``.  At 0 half the shares (rounded up) are
    removed and the value returns to 1; at the "$" space every share pays $1,000 and the value
    returns to 9.  A move (one die roll, or an event's change) is applied whole, like the ring
    moved along the track: one that reaches or passes 0 or "$" is one hit, and every such move
    in a year hits again ("the above rules are applied each time")."""
    n = rules[CFG_PLAYERS]
    before = state[stock(s) + VALUE]
    v = before + delta
    if v <= 0:
        total = 0
        for p in range(n):
            total += state[share(p, s)]
        removed = (total + 1) // 2
        # ASSUMED split: each holder loses half their shares rounded down, and the odd ones
        # left over by rounding come off odd holdings in seat order from the business's seat.
        left = removed
        for p in range(n):
            k = state[share(p, s)] // 2
            state[share(p, s)] -= k
            left -= k
        for i in range(n):
            p = (s + i) % n
            if left > 0 and state[share(p, s)] % 2 == 1:
                state[share(p, s)] -= 1
                left -= 1
        state[SHARE_POOL] += removed
        state[stock(s) + VALUE] = rules[CFG_AFTER_CRASH]
        record(state, trace, EV_CRASH, NONE, s, removed, before, state[stock(s) + VALUE])
    elif v >= rules[CFG_STOCK_TOP]:
        paid = 0
        for p in range(n):
            if state[share(p, s)] > 0:
                amount = state[share(p, s)] * rules[CFG_DIVIDEND]
                gain(state, p, amount, L_DIVIDENDS)
                paid += amount
        state[stock(s) + VALUE] = rules[CFG_AFTER_DIVIDEND]
        record(state, trace, EV_DIVIDEND, NONE, s, paid, before, state[stock(s) + VALUE])
    else:
        state[stock(s) + VALUE] = v


@rule
def roll_stock_die(rules, rng):
    return table(rules, T_DIE, rng_below(rng, DICE, table_len(rules, T_DIE)))


@rule
def update_stocks(state, rules, knobs, rng, trace):
    """Update New Year, step 4: the owner of each active business rolls the stock die for it;
    the starting player rolls for the black business.  Bits 'n Pieces (Josh): holding shares of
    another player's or the black business, he may roll again and must keep the second roll."""
    n = rules[CFG_PLAYERS]
    for k in range(n + 1):
        s = k if k == n else (state[STARTER] + k) % n
        if state[stock(s) + ACTIVE] == 0:
            continue
        roller = state[STARTER] if s == n else s
        d = roll_stock_die(rules, rng)
        for j in range(n):
            if (
                j != s
                and state[share(j, s)] > 0
                and character(rules, state[row(j) + CHARACTER], C_ABILITY) == AB_STOCK_REROLL
            ):
                m = add_option(state, 0, 0, d, s, 0)
                m = add_option(state, m, 1, d, s, 0)
                if choose(state, rules, knobs, rng, trace, D_REROLL, j, NONE, m) == 1:
                    first = d
                    d = roll_stock_die(rules, rng)
                    state[row(j) + COUNTS + CT_REROLL] += 1
                    record(state, trace, EV_REROLL, j, s, first, d, 0)
        before = state[stock(s) + VALUE]
        record(state, trace, EV_STOCK, roller, s, d, before, before + d)
        move_stock(state, rules, trace, s, d)


@rule
def give_shares(state, p, s, count):
    """Start Business / Start Franchise: +5 shares, as far as the share supply lasts
    (ASSUMED: the 59 share tokens are the limit)."""
    k = min(count, state[SHARE_POOL])
    state[share(p, s)] += k
    state[SHARE_POOL] -= k


# ---------------------------------------------------------------- Update New Year


@rule
def lose_job(state, rules, trace, p, j):
    if j < 0:
        return
    state[owners(rules, OWN_JOB) + j] = NONE
    if state[row(p) + JOB] == j:
        state[row(p) + JOB] = NONE
    if state[row(p) + JOB_B] == j:
        state[row(p) + JOB_B] = NONE
    record(state, trace, EV_FIRED, p, j, 0, state[row(p) + CASH], state[row(p) + CASH])


@rule
def apply_event(state, rules, rng, trace, e):
    """Update New Year, step 2: the year's event card (ASSUMED deck, effects in rules.toml).
    Insured players are immune to its negative effects, except on stocks."""
    n = rules[CFG_PLAYERS]
    effect, value = event(rules, e, E_EFFECT), event(rules, e, E_VALUE)
    state[EVENT] = e
    record(state, trace, EV_EVENT, NONE, e, value, 0, 0)
    for p in range(n):
        r = row(p)
        before = state[r + CASH]
        if effect == EF_CASH:
            if value > 0:
                gain(state, p, value, L_EVENT_GAIN)
            elif state[r + PROTECTED] == 0:
                pay_required(state, rules, trace, p, -value, L_EVENT_LOSS, NONE)
        elif effect == EF_LOTTERY:
            if rng_below(rng, DICE, 6) == 5:
                gain(state, p, value, L_EVENT_GAIN)
        elif effect == EF_MEDICAL:
            if state[r + PROTECTED] == 0 and rng_below(rng, DICE, 6) < 2:
                pay_required(state, rules, trace, p, value, L_EVENT_LOSS, NONE)
        elif effect == EF_LAYOFF:
            if state[r + PROTECTED] == 0:
                for slot in (JOB, JOB_B):
                    j = state[r + slot]
                    if j >= 0 and job(rules, j, J_SALARY) <= value:
                        lose_job(state, rules, trace, p, j)
        elif effect == EF_GROWTH:
            if state[r + N_BUSINESSES] + state[r + N_FRANCHISES] > 0:
                if value > 0 or state[r + PROTECTED] == 0:
                    state[r + GROWTH] = max(0, state[r + GROWTH] + value)
        if state[r + CASH] != before:
            record(state, trace, EV_EVENT_CASH, p, e, 0, before, state[r + CASH])
        settle_forfeit(state, rules, trace, p)
    if effect == EF_STOCK_ALL:
        for s in range(n + 1):
            if state[stock(s) + ACTIVE] == 1:
                move_stock(state, rules, trace, s, value)
    elif effect == EF_STOCK_BLACK:
        move_stock(state, rules, trace, n, value)
    elif effect == EF_SALARY:
        state[EVENT_SALARY] = value
    elif effect == EF_BUSINESS_INCOME:
        state[EVENT_INCOME] = value
    elif effect == EF_TAX:
        state[EVENT_TAX] = value
    elif effect == EF_TUITION_FREE:
        state[EVENT_TUITION_FREE] = 1
    elif effect == EF_UNEMPLOYMENT:
        state[FUND] += value


@rule
def update_new_year(state, rules, knobs, rng, trace, year):
    """1. Update New Year: move the year marker, read the event card, add $10,000 to the
    unemployment fund, update stocks.  Year 1: everyone is insured (Year Chart)."""
    state[YEAR] = year
    state[UNEMP_TAKEN] = 0
    state[EVENT_SALARY], state[EVENT_INCOME], state[EVENT_TAX], state[EVENT_TUITION_FREE] = (
        0,
        0,
        0,
        0,
    )
    record(state, trace, EV_YEAR, state[STARTER], year, 0, 0, 0)
    for p in range(rules[CFG_PLAYERS]):
        r = row(p)
        state[r + USED] = 0
        state[r + WORKED] = 0
        state[r + ACCOUNTANT] = 0
        state[r + TAX_FREE] = 0
        state[r + YEAR_SALARY], state[r + YEAR_BUSINESS], state[r + YEAR_TAX] = 0, 0, 0
        protected = (
            year == 1
            or state[r + INSURED] == 1
            or ability(state, rules, p, AB_ALWAYS_INSURED) > 0
            or firm_benefit(state, rules, p, CFG_FIRM_INSURANCE)
        )
        state[r + PROTECTED] = 1 if protected else 0
        state[r + INSURED] = 0  # ASSUMED: a token bought last year covers this year, then goes back
    apply_event(state, rules, rng, trace, state[owners(rules, DECK_EVENTS) + year - 1])
    state[FUND] += rules[CFG_FUND_INCREMENT]
    update_stocks(state, rules, knobs, rng, trace)
    check_all_karnaxis(state, rules, trace)
