"""Karnaxis businesses: Start Business, Start Franchise, Advertise costs, the level-4 firms and
Buy/Sell Stock (rulebook: shared/rules/karnaxis.md, "Ins 'n Outs of Businesses & Franchises")."""

from simulator.core.kernel import rule
from simulator.games.karnaxis import decide, money, new_year
from simulator.games.karnaxis import state as S

# ---------------------------------------------------------------- costs


@rule
def business_cost(state, rules, p, b):
    """Start Business: the cost of the card's level."""
    return max(
        0,
        S.table(rules, S.T_LEVEL_COST, S.biz(rules, b, S.B_LEVEL) - 1)
        - money.ability(state, rules, p, S.AB_BUSINESS_DISCOUNT),
    )


@rule
def franchise_cost(state, rules, p, mother):
    """Start Franchise: the cost by the level of the mother business, seat ``mother``'s merged
    business, whose level is that of its highest business (Ins 'n Outs)."""
    return max(
        0,
        S.table(rules, S.T_FRANCHISE_COST, state[S.row(mother) + S.BUSINESS_LEVEL] - 1)
        - money.ability(state, rules, p, S.AB_FRANCHISE_DISCOUNT),
    )


@rule
def advertise_cost(state, rules, p, tier):
    """Advertise: the tier's cost, less the Advertising firm's discount (Level 4 benefits)."""
    discount = (
        rules[S.CFG_AD_FIRM_DISCOUNT]
        if money.firm_benefit(state, rules, p, S.CFG_FIRM_ADVERTISING)
        else 0
    )
    return max(0, S.table(rules, S.T_AD_COST, tier) - discount)


@rule
def start_business(state, rules, trace, p, b):
    """Start Business: pay the level's cost; +1 business card, +its business growth, +5 shares;
    the first business puts the seat's stock at 5.  Merged level = highest level owned."""
    money.pay_by_choice(
        state, rules, trace, p, business_cost(state, rules, p, b), S.L_TO_BANK, S.NONE
    )
    r = S.row(p)
    state[S.owners(rules, S.OWN_BIZ) + b] = p
    state[r + S.BUSINESS_YEAR] = state[S.YEAR]
    state[r + S.N_BUSINESSES] += 1
    state[r + S.GROWTH] += S.biz(rules, b, S.B_GROWTH) + money.ability(
        state, rules, p, S.AB_GROWTH_BONUS
    )
    state[r + S.MERGED_LEVEL] = max(state[r + S.MERGED_LEVEL], S.biz(rules, b, S.B_LEVEL))
    state[r + S.BUSINESS_LEVEL] = max(state[r + S.BUSINESS_LEVEL], S.biz(rules, b, S.B_LEVEL))
    if state[S.stock(p) + S.ACTIVE] == 0:
        state[S.stock(p) + S.ACTIVE] = 1
        state[S.stock(p) + S.VALUE] = rules[S.CFG_STOCK_START]
    new_year.give_shares(state, p, p, rules[S.CFG_SHARES_PER_START])
    insure_firm_holders(state, rules)


@rule
def start_franchise(state, rules, trace, p, mother):
    """Start Franchise in seat ``mother``'s business: pay its owner by the merged business's
    level (Ins 'n Outs: the level of its highest business); +1 franchise card, +business growth
    (ASSUMED by the mother's level), +5 shares in the mother business.  ASSUMED: the
    franchise's level is the mother's level when it is started."""
    money.pay_by_choice(
        state, rules, trace, p, franchise_cost(state, rules, p, mother), S.L_TO_PLAYERS, mother
    )
    r = S.row(p)
    level = state[S.row(mother) + S.BUSINESS_LEVEL]
    fr_owner, fr_mother = S.owners(rules, S.FR_OWNER), S.owners(rules, S.FR_MOTHER)
    for f in range(rules[S.CFG_FRANCHISE_CARDS]):
        if state[fr_owner + f] == S.NONE:
            state[fr_owner + f], state[fr_mother + f] = p, mother
            break
    state[S.FRANCHISES_LEFT] -= 1
    state[r + S.FRANCHISE_YEAR] = state[S.YEAR]
    state[r + S.N_FRANCHISES] += 1
    state[r + S.GROWTH] += S.table(rules, S.T_FRANCHISE_GROWTH, level - 1) + money.ability(
        state, rules, p, S.AB_GROWTH_BONUS
    )
    state[r + S.MERGED_LEVEL] = max(state[r + S.MERGED_LEVEL], level)
    new_year.give_shares(state, p, mother, rules[S.CFG_SHARES_PER_START])
    insure_firm_holders(state, rules)


@rule
def insure_firm_holders(state, rules):
    """Level 4 (Insurance and Investing firm): its owner and franchise owners get a free
    insurance token, which makes them immune now (Buy Insurance)."""
    for q in range(rules[S.CFG_PLAYERS]):
        if money.firm_benefit(state, rules, q, S.CFG_FIRM_INSURANCE):
            state[S.row(q) + S.PROTECTED] = 1


@rule
def list_trades(state, rules, p):
    """Buy/Sell Stock and/or Hire Accountant and/or Buy Insurance: the trades p may make now,
    as option rows [MK_*, stock, shares, cost]: done; an accountant or insurance not yet held
    this year (nor free from a level-4 firm); selling shares of a business at its stock value x
    $1,000, "any number of shares": the whole holding or a lot (stock.sell_lots) of it; buying a
    lot (stock.buy_lots) of an active business from the supply."""
    r = S.row(p)
    n = money.add_option(state, 0, S.MK_DONE, 0, 0, 0)
    if state[r + S.ACCOUNTANT] == 0 and money.can_afford(
        state, rules, p, rules[S.CFG_ACCOUNTANT_COST]
    ):
        n = money.add_option(state, n, S.MK_ACCOUNTANT, 0, 0, rules[S.CFG_ACCOUNTANT_COST])
    if (
        state[r + S.INSURED] == 0
        and not money.firm_benefit(state, rules, p, S.CFG_FIRM_INSURANCE)
        and money.can_afford(state, rules, p, rules[S.CFG_INSURANCE_COST])
    ):
        n = money.add_option(state, n, S.MK_INSURANCE, 0, 0, rules[S.CFG_INSURANCE_COST])
    price = rules[S.CFG_SHARE_PRICE]
    stocks = rules[S.CFG_PLAYERS] + 1
    for s in range(stocks):
        held = state[S.share(p, s)]
        if held <= 0:  # every lot is of one share or more (checks.py): none to sell
            continue
        value = state[S.stock(s) + S.VALUE] * price
        for k in range(S.table_len(rules, S.T_SELL_LOTS)):
            lot = S.table(rules, S.T_SELL_LOTS, k)
            if lot < held:
                n = money.add_option(state, n, S.MK_SELL, s, lot, -lot * value)
        n = money.add_option(state, n, S.MK_SELL, s, held, -held * value)
    for s in range(stocks):
        if state[S.stock(s) + S.ACTIVE] == 0:
            continue
        for k in range(S.table_len(rules, S.T_BUY_LOTS)):
            lot = S.table(rules, S.T_BUY_LOTS, k)
            cost = lot * state[S.stock(s) + S.VALUE] * price
            if lot <= state[S.SHARE_POOL] and money.can_afford(state, rules, p, cost):
                n = money.add_option(state, n, S.MK_BUY, s, lot, cost)
    return n


@rule
def trade(state, rules, trace, p, kind, s, k, cost):
    """One trade of Buy/Sell Stock and/or Hire Accountant and/or Buy Insurance (a
    :func:`list_trades` row).  The accountant ($10,000) gives the smart tax table this year;
    insurance ($5,000) makes the player immune to events now (ASSUMED: until the end of the
    next year, its event included).  Their fees go to the owner of the Accounting / Insurance
    and Investing firm when another player owns it (Level 4 benefits)."""
    r = S.row(p)
    before = state[r + S.CASH]
    if kind == S.MK_ACCOUNTANT:
        firm = money.firm_owner(state, rules, S.CFG_FIRM_ACCOUNTING)
        money.pay_by_choice(state, rules, trace, p, cost, S.L_TO_BANK, firm)
        state[r + S.ACCOUNTANT] = 1
    elif kind == S.MK_INSURANCE:
        firm = money.firm_owner(state, rules, S.CFG_FIRM_INSURANCE)
        money.pay_by_choice(state, rules, trace, p, cost, S.L_TO_BANK, firm)
        state[r + S.INSURED] = 1
        state[r + S.PROTECTED] = 1  # "They are now immune"
    elif kind == S.MK_SELL:
        state[S.share(p, s)] -= k
        state[S.SHARE_POOL] += k
        money.gain(state, p, -cost, S.L_SHARES_SOLD)
    else:
        money.pay_by_choice(state, rules, trace, p, cost, S.L_SHARES_BOUGHT, S.NONE)
        state[S.share(p, s)] += k
        state[S.SHARE_POOL] -= k
    state[r + S.COUNTS + S.CT_TRADE + kind] += 1
    money.record(state, trace, S.EV_TRADE, p, kind, s * 1000 + k, before, state[r + S.CASH])
    # Fulfilling Your Karnaxis, "as a player achieves" it: after each trade, as a sale can lift
    # cash over an ambition that the next purchase takes back under, and a fee pays a firm
    money.check_all_karnaxis(state, rules, trace)


@rule
def market(state, rules, knobs, rng, trace, p):
    """Buy/Sell Stock and/or Hire Accountant and/or Buy Insurance: trades chosen one at a time
    until the player is done (at most stock.max_trades_per_action).  Level 4: the Accounting
    firm's owner and franchise owners have a free accountant."""
    if money.firm_benefit(state, rules, p, S.CFG_FIRM_ACCOUNTING):
        state[S.row(p) + S.ACCOUNTANT] = 1
    for _ in range(rules[S.CFG_MAX_TRADES]):
        n = list_trades(state, rules, p)
        i = decide.choose(state, rules, knobs, rng, trace, S.D_MARKET, p, S.NONE, n)
        if S.opt(state, i, S.OPT_ACTION) == S.MK_DONE:
            return
        trade(
            state,
            rules,
            trace,
            p,
            S.opt(state, i, S.OPT_ACTION),
            S.opt(state, i, S.OPT_A),
            S.opt(state, i, S.OPT_B),
            S.opt(state, i, S.OPT_COST),
        )
