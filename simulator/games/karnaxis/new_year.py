"""Karnaxis stage 1, Update New Year: event cards and the stock market (rulebook:
shared/rules/karnaxis.md, "1. Update New Year" and "Stock Market Basics")."""

from simulator.core.kernel import rule
from simulator.core.rng import DICE, rng_below
from simulator.games.karnaxis import decide, money
from simulator.games.karnaxis import state as S

# ---------------------------------------------------------------- stock market


@rule
def move_stock(state, rules, trace, s, delta):
    """Update stocks: move stock s by ``delta``.  At 0 half the shares (rounded up) are
    removed and the value returns to 1; at the "$" space every share pays $1,000 and the value
    returns to 9.  A move (one die roll, or an event's change) is applied whole, like the ring
    moved along the track: one that reaches or passes 0 or "$" is one hit, and every such move
    in a year hits again ("the above rules are applied each time")."""
    n = rules[S.CFG_PLAYERS]
    before = state[S.stock(s) + S.VALUE]
    v = before + delta
    if v <= 0:
        total = 0
        for p in range(n):
            total += state[S.share(p, s)]
        removed = (total + 1) // 2
        # ASSUMED split: each holder loses half their shares rounded down, and the odd ones
        # left over by rounding come off odd holdings in seat order from the business's seat.
        left = removed
        for p in range(n):
            k = state[S.share(p, s)] // 2
            state[S.share(p, s)] -= k
            left -= k
        for i in range(n):
            p = (s + i) % n
            if left > 0 and state[S.share(p, s)] % 2 == 1:
                state[S.share(p, s)] -= 1
                left -= 1
        state[S.SHARE_POOL] += removed
        state[S.stock(s) + S.VALUE] = rules[S.CFG_AFTER_CRASH]
        money.record(
            state, trace, S.EV_CRASH, S.NONE, s, removed, before, state[S.stock(s) + S.VALUE]
        )
    elif v >= rules[S.CFG_STOCK_TOP]:
        paid = 0
        for p in range(n):
            if state[S.share(p, s)] > 0:
                amount = state[S.share(p, s)] * rules[S.CFG_DIVIDEND]
                money.gain(state, p, amount, S.L_DIVIDENDS)
                paid += amount
        state[S.stock(s) + S.VALUE] = rules[S.CFG_AFTER_DIVIDEND]
        money.record(
            state, trace, S.EV_DIVIDEND, S.NONE, s, paid, before, state[S.stock(s) + S.VALUE]
        )
    else:
        state[S.stock(s) + S.VALUE] = v


@rule
def roll_stock_die(rules, rng):
    return S.table(rules, S.T_DIE, rng_below(rng, DICE, S.table_len(rules, S.T_DIE)))


@rule
def update_stocks(state, rules, knobs, rng, trace):
    """Update New Year, step 4: the owner of each active business rolls the stock die for it;
    the starting player rolls for the black business.  Bits 'n Pieces (Josh): holding shares of
    another player's or the black business, he may roll again and must keep the second roll."""
    n = rules[S.CFG_PLAYERS]
    for k in range(n + 1):
        s = k if k == n else (state[S.STARTER] + k) % n
        if state[S.stock(s) + S.ACTIVE] == 0:
            continue
        roller = state[S.STARTER] if s == n else s
        d = roll_stock_die(rules, rng)
        for j in range(n):
            if (
                j != s
                and state[S.share(j, s)] > 0
                and S.character(rules, state[S.row(j) + S.CHARACTER], S.C_ABILITY)
                == S.AB_STOCK_REROLL
            ):
                m = money.add_option(state, 0, 0, d, s, 0)
                m = money.add_option(state, m, 1, d, s, 0)
                if decide.choose(state, rules, knobs, rng, trace, S.D_REROLL, j, S.NONE, m) == 1:
                    first = d
                    d = roll_stock_die(rules, rng)
                    state[S.row(j) + S.COUNTS + S.CT_REROLL] += 1
                    money.record(state, trace, S.EV_REROLL, j, s, first, d, 0)
        before = state[S.stock(s) + S.VALUE]
        money.record(state, trace, S.EV_STOCK, roller, s, d, before, before + d)
        move_stock(state, rules, trace, s, d)


@rule
def give_shares(state, p, s, count):
    """Start Business / Start Franchise: +5 shares, as far as the share supply lasts
    (ASSUMED: the 59 share tokens are the limit)."""
    k = min(count, state[S.SHARE_POOL])
    state[S.share(p, s)] += k
    state[S.SHARE_POOL] -= k


# ---------------------------------------------------------------- Update New Year


@rule
def lose_job(state, rules, trace, p, j):
    if j < 0:
        return
    state[S.owners(rules, S.OWN_JOB) + j] = S.NONE
    if state[S.row(p) + S.JOB] == j:
        state[S.row(p) + S.JOB] = S.NONE
    if state[S.row(p) + S.JOB_B] == j:
        state[S.row(p) + S.JOB_B] = S.NONE
    money.record(
        state, trace, S.EV_FIRED, p, j, 0, state[S.row(p) + S.CASH], state[S.row(p) + S.CASH]
    )


@rule
def apply_event(state, rules, rng, trace, e):
    """Update New Year, step 2: the year's event card (ASSUMED deck, effects in rules.toml).
    Insured players are immune to its negative effects, except on stocks."""
    n = rules[S.CFG_PLAYERS]
    effect, value = S.event(rules, e, S.E_EFFECT), S.event(rules, e, S.E_VALUE)
    state[S.EVENT] = e
    money.record(state, trace, S.EV_EVENT, S.NONE, e, value, 0, 0)
    for p in range(n):
        r = S.row(p)
        before = state[r + S.CASH]
        if effect == S.EF_CASH:
            if value > 0:
                money.gain(state, p, value, S.L_EVENT_GAIN)
            elif state[r + S.PROTECTED] == 0:
                money.pay_required(state, rules, trace, p, -value, S.L_EVENT_LOSS, S.NONE)
        elif effect == S.EF_LOTTERY:
            if rng_below(rng, DICE, 6) == 5:
                money.gain(state, p, value, S.L_EVENT_GAIN)
        elif effect == S.EF_MEDICAL:
            if state[r + S.PROTECTED] == 0 and rng_below(rng, DICE, 6) < 2:
                money.pay_required(state, rules, trace, p, value, S.L_EVENT_LOSS, S.NONE)
        elif effect == S.EF_LAYOFF:
            if state[r + S.PROTECTED] == 0:
                for slot in (S.JOB, S.JOB_B):
                    j = state[r + slot]
                    if j >= 0 and S.job(rules, j, S.J_SALARY) <= value:
                        lose_job(state, rules, trace, p, j)
        elif effect == S.EF_GROWTH:
            if state[r + S.N_BUSINESSES] + state[r + S.N_FRANCHISES] > 0:
                if value > 0 or state[r + S.PROTECTED] == 0:
                    state[r + S.GROWTH] = max(0, state[r + S.GROWTH] + value)
        if state[r + S.CASH] != before:
            money.record(state, trace, S.EV_EVENT_CASH, p, e, 0, before, state[r + S.CASH])
        money.settle_forfeit(state, rules, trace, p)
    if effect == S.EF_STOCK_ALL:
        for s in range(n + 1):
            if state[S.stock(s) + S.ACTIVE] == 1:
                move_stock(state, rules, trace, s, value)
    elif effect == S.EF_STOCK_BLACK:
        move_stock(state, rules, trace, n, value)
    elif effect == S.EF_SALARY:
        state[S.EVENT_SALARY] = value
    elif effect == S.EF_BUSINESS_INCOME:
        state[S.EVENT_INCOME] = value
    elif effect == S.EF_TAX:
        state[S.EVENT_TAX] = value
    elif effect == S.EF_TUITION_FREE:
        state[S.EVENT_TUITION_FREE] = 1
    elif effect == S.EF_UNEMPLOYMENT:
        state[S.FUND] += value


@rule
def update_new_year(state, rules, knobs, rng, trace, year):
    """1. Update New Year: move the year marker, read the event card, add $10,000 to the
    unemployment fund, update stocks.  Year 1: everyone is insured (Year Chart)."""
    state[S.YEAR] = year
    state[S.UNEMP_TAKEN] = 0
    (
        state[S.EVENT_SALARY],
        state[S.EVENT_INCOME],
        state[S.EVENT_TAX],
        state[S.EVENT_TUITION_FREE],
    ) = (
        0,
        0,
        0,
        0,
    )
    money.record(state, trace, S.EV_YEAR, state[S.STARTER], year, 0, 0, 0)
    for p in range(rules[S.CFG_PLAYERS]):
        r = S.row(p)
        state[r + S.USED] = 0
        state[r + S.WORKED] = 0
        state[r + S.ACCOUNTANT] = 0
        state[r + S.TAX_FREE] = 0
        state[r + S.YEAR_SALARY], state[r + S.YEAR_BUSINESS], state[r + S.YEAR_TAX] = 0, 0, 0
        protected = (
            year == 1
            or state[r + S.INSURED] == 1
            or money.ability(state, rules, p, S.AB_ALWAYS_INSURED) > 0
            or money.firm_benefit(state, rules, p, S.CFG_FIRM_INSURANCE)
        )
        state[r + S.PROTECTED] = 1 if protected else 0
        state[r + S.INSURED] = (
            0  # ASSUMED: a token bought last year covers this year, then goes back
        )
    apply_event(state, rules, rng, trace, state[S.owners(rules, S.DECK_EVENTS) + year - 1])
    state[S.FUND] += rules[S.CFG_FUND_INCREMENT]
    update_stocks(state, rules, knobs, rng, trace)
    money.check_all_karnaxis(state, rules, trace)
