"""Karnaxis businesses: Start Business, Start Franchise, Advertise costs, the level-4 firms and
Buy/Sell Stock (rulebook: shared/rules/karnaxis.md, "Ins 'n Outs of Businesses & Franchises")."""

from simulator.core.kernel import rule
from simulator.games.karnaxis.decide import choose
from simulator.games.karnaxis.money import (
    ability,
    add_option,
    can_afford,
    check_all_karnaxis,
    firm_benefit,
    firm_owner,
    gain,
    pay_by_choice,
    record,
)
from simulator.games.karnaxis.new_year import give_shares
from simulator.games.karnaxis.state import (
    AB_BUSINESS_DISCOUNT,
    AB_FRANCHISE_DISCOUNT,
    AB_GROWTH_BONUS,
    ACCOUNTANT,
    ACTIVE,
    B_GROWTH,
    B_LEVEL,
    BUSINESS_LEVEL,
    BUSINESS_YEAR,
    CASH,
    CFG_ACCOUNTANT_COST,
    CFG_AD_FIRM_DISCOUNT,
    CFG_FIRM_ACCOUNTING,
    CFG_FIRM_ADVERTISING,
    CFG_FIRM_INSURANCE,
    CFG_FRANCHISE_CARDS,
    CFG_INSURANCE_COST,
    CFG_MAX_TRADES,
    CFG_PLAYERS,
    CFG_SHARE_PRICE,
    CFG_SHARES_PER_START,
    CFG_STOCK_START,
    COUNTS,
    CT_TRADE,
    D_MARKET,
    EV_TRADE,
    FR_MOTHER,
    FR_OWNER,
    FRANCHISE_YEAR,
    FRANCHISES_LEFT,
    GROWTH,
    INSURED,
    L_SHARES_BOUGHT,
    L_SHARES_SOLD,
    L_TO_BANK,
    L_TO_PLAYERS,
    MERGED_LEVEL,
    MK_ACCOUNTANT,
    MK_BUY,
    MK_DONE,
    MK_INSURANCE,
    MK_SELL,
    N_BUSINESSES,
    N_FRANCHISES,
    NONE,
    OPT_A,
    OPT_ACTION,
    OPT_B,
    OPT_COST,
    OWN_BIZ,
    PROTECTED,
    SHARE_POOL,
    T_AD_COST,
    T_BUY_LOTS,
    T_FRANCHISE_COST,
    T_FRANCHISE_GROWTH,
    T_LEVEL_COST,
    T_SELL_LOTS,
    VALUE,
    YEAR,
    biz,
    opt,
    owners,
    row,
    share,
    stock,
    table,
    table_len,
)

# ---------------------------------------------------------------- costs


@rule
def business_cost(state, rules, p, b):
    """Start Business: the cost of the card's level."""
    return max(
        0,
        table(rules, T_LEVEL_COST, biz(rules, b, B_LEVEL) - 1)
        - ability(state, rules, p, AB_BUSINESS_DISCOUNT),
    )


@rule
def franchise_cost(state, rules, p, mother):
    """Start Franchise: the cost by the level of the mother business, seat ``mother``'s merged
    business, whose level is that of its highest business (Ins 'n Outs)."""
    return max(
        0,
        table(rules, T_FRANCHISE_COST, state[row(mother) + BUSINESS_LEVEL] - 1)
        - ability(state, rules, p, AB_FRANCHISE_DISCOUNT),
    )


@rule
def advertise_cost(state, rules, p, tier):
    """Advertise: the tier's cost, less the Advertising firm's discount (Level 4 benefits)."""
    discount = (
        rules[CFG_AD_FIRM_DISCOUNT] if firm_benefit(state, rules, p, CFG_FIRM_ADVERTISING) else 0
    )
    return max(0, table(rules, T_AD_COST, tier) - discount)


@rule
def start_business(state, rules, trace, p, b):
    """Start Business: pay the level's cost; +1 business card, +its business growth, +5 shares;
    the first business puts the seat's stock at 5.  Merged level = highest level owned."""
    pay_by_choice(state, rules, trace, p, business_cost(state, rules, p, b), L_TO_BANK, NONE)
    r = row(p)
    state[owners(rules, OWN_BIZ) + b] = p
    state[r + BUSINESS_YEAR] = state[YEAR]
    state[r + N_BUSINESSES] += 1
    state[r + GROWTH] += biz(rules, b, B_GROWTH) + ability(state, rules, p, AB_GROWTH_BONUS)
    state[r + MERGED_LEVEL] = max(state[r + MERGED_LEVEL], biz(rules, b, B_LEVEL))
    state[r + BUSINESS_LEVEL] = max(state[r + BUSINESS_LEVEL], biz(rules, b, B_LEVEL))
    if state[stock(p) + ACTIVE] == 0:
        state[stock(p) + ACTIVE] = 1
        state[stock(p) + VALUE] = rules[CFG_STOCK_START]
    give_shares(state, p, p, rules[CFG_SHARES_PER_START])
    insure_firm_holders(state, rules)


@rule
def start_franchise(state, rules, trace, p, mother):
    """Start Franchise in seat ``mother``'s business: pay its owner by the merged business's
    level (Ins 'n Outs: the level of its highest business); +1 franchise card, +business growth
    (ASSUMED by the mother's level), +5 shares in the mother business.  ASSUMED: the
    franchise's level is the mother's level when it is started."""
    pay_by_choice(
        state, rules, trace, p, franchise_cost(state, rules, p, mother), L_TO_PLAYERS, mother
    )
    r = row(p)
    level = state[row(mother) + BUSINESS_LEVEL]
    fr_owner, fr_mother = owners(rules, FR_OWNER), owners(rules, FR_MOTHER)
    for f in range(rules[CFG_FRANCHISE_CARDS]):
        if state[fr_owner + f] == NONE:
            state[fr_owner + f], state[fr_mother + f] = p, mother
            break
    state[FRANCHISES_LEFT] -= 1
    state[r + FRANCHISE_YEAR] = state[YEAR]
    state[r + N_FRANCHISES] += 1
    state[r + GROWTH] += table(rules, T_FRANCHISE_GROWTH, level - 1) + ability(
        state, rules, p, AB_GROWTH_BONUS
    )
    state[r + MERGED_LEVEL] = max(state[r + MERGED_LEVEL], level)
    give_shares(state, p, mother, rules[CFG_SHARES_PER_START])
    insure_firm_holders(state, rules)


@rule
def insure_firm_holders(state, rules):
    """Level 4 (Insurance and Investing firm): its owner and franchise owners get a free
    insurance token, which makes them immune now (Buy Insurance)."""
    for q in range(rules[CFG_PLAYERS]):
        if firm_benefit(state, rules, q, CFG_FIRM_INSURANCE):
            state[row(q) + PROTECTED] = 1


@rule
def list_trades(state, rules, p):
    """Buy/Sell Stock and/or Hire Accountant and/or Buy Insurance: the trades p may make now,
    as option rows [MK_*, stock, shares, cost]: done; an accountant or insurance not yet held
    this year (nor free from a level-4 firm); selling shares of a business at its stock value x
    $1,000, "any number of shares": the whole holding or a lot (stock.sell_lots) of it; buying a
    lot (stock.buy_lots) of an active business from the supply."""
    r = row(p)
    n = add_option(state, 0, MK_DONE, 0, 0, 0)
    if state[r + ACCOUNTANT] == 0 and can_afford(state, rules, p, rules[CFG_ACCOUNTANT_COST]):
        n = add_option(state, n, MK_ACCOUNTANT, 0, 0, rules[CFG_ACCOUNTANT_COST])
    if (
        state[r + INSURED] == 0
        and not firm_benefit(state, rules, p, CFG_FIRM_INSURANCE)
        and can_afford(state, rules, p, rules[CFG_INSURANCE_COST])
    ):
        n = add_option(state, n, MK_INSURANCE, 0, 0, rules[CFG_INSURANCE_COST])
    price = rules[CFG_SHARE_PRICE]
    stocks = rules[CFG_PLAYERS] + 1
    for s in range(stocks):
        held = state[share(p, s)]
        value = state[stock(s) + VALUE] * price
        for k in range(table_len(rules, T_SELL_LOTS)):
            lot = table(rules, T_SELL_LOTS, k)
            if lot < held:
                n = add_option(state, n, MK_SELL, s, lot, -lot * value)
        if held > 0:
            n = add_option(state, n, MK_SELL, s, held, -held * value)
    for s in range(stocks):
        if state[stock(s) + ACTIVE] == 0:
            continue
        for k in range(table_len(rules, T_BUY_LOTS)):
            lot = table(rules, T_BUY_LOTS, k)
            cost = lot * state[stock(s) + VALUE] * price
            if lot <= state[SHARE_POOL] and can_afford(state, rules, p, cost):
                n = add_option(state, n, MK_BUY, s, lot, cost)
    return n


@rule
def trade(state, rules, trace, p, kind, s, k, cost):
    """One trade of Buy/Sell Stock and/or Hire Accountant and/or Buy Insurance (a
    :func:`list_trades` row).  The accountant ($10,000) gives the smart tax table this year;
    insurance ($5,000) makes the player immune to events now (ASSUMED: until the end of the
    next year, its event included).  Their fees go to the owner of the Accounting / Insurance
    and Investing firm when another player owns it (Level 4 benefits)."""
    r = row(p)
    before = state[r + CASH]
    if kind == MK_ACCOUNTANT:
        pay_by_choice(
            state, rules, trace, p, cost, L_TO_BANK, firm_owner(state, rules, CFG_FIRM_ACCOUNTING)
        )
        state[r + ACCOUNTANT] = 1
    elif kind == MK_INSURANCE:
        pay_by_choice(
            state, rules, trace, p, cost, L_TO_BANK, firm_owner(state, rules, CFG_FIRM_INSURANCE)
        )
        state[r + INSURED] = 1
        state[r + PROTECTED] = 1  # "They are now immune"
    elif kind == MK_SELL:
        state[share(p, s)] -= k
        state[SHARE_POOL] += k
        gain(state, p, -cost, L_SHARES_SOLD)
    else:
        pay_by_choice(state, rules, trace, p, cost, L_SHARES_BOUGHT, NONE)
        state[share(p, s)] += k
        state[SHARE_POOL] -= k
    state[r + COUNTS + CT_TRADE + kind] += 1
    record(state, trace, EV_TRADE, p, kind, s * 1000 + k, before, state[r + CASH])
    # Fulfilling Your Karnaxis, "as a player achieves" it: after each trade, as a sale can lift
    # cash over an ambition that the next purchase takes back under, and a fee pays a firm
    check_all_karnaxis(state, rules, trace)


@rule
def market(state, rules, knobs, rng, trace, p):
    """Buy/Sell Stock and/or Hire Accountant and/or Buy Insurance: trades chosen one at a time
    until the player is done (at most stock.max_trades_per_action).  Level 4: the Accounting
    firm's owner and franchise owners have a free accountant."""
    if firm_benefit(state, rules, p, CFG_FIRM_ACCOUNTING):
        state[row(p) + ACCOUNTANT] = 1
    for _ in range(rules[CFG_MAX_TRADES]):
        n = list_trades(state, rules, p)
        i = choose(state, rules, knobs, rng, trace, D_MARKET, p, NONE, n)
        if opt(state, i, OPT_ACTION) == MK_DONE:
            return
        trade(
            state,
            rules,
            trace,
            p,
            opt(state, i, OPT_ACTION),
            opt(state, i, OPT_A),
            opt(state, i, OPT_B),
            opt(state, i, OPT_COST),
        )
