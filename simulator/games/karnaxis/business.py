"""Karnaxis businesses: Start Business, Start Franchise, Advertise costs, the level-4 firms and
Buy/Sell Stock (rulebook: shared/rules/karnaxis.md, "Ins 'n Outs of Businesses & Franchises")."""

from numba import njit

from policies.karnaxis import choose
from simulator.games.karnaxis.money import (
    ability, add_option, can_afford, firm_benefit, firm_owner, gain, pay_by_choice, record)
from simulator.games.karnaxis.new_year import give_shares
from simulator.games.karnaxis.state import *  # noqa: F401,F403  (the named slots)


# ---------------------------------------------------------------- costs

@njit(cache=True)
def business_cost(tables, chars, biz, players, p, b):
    """Start Business: the cost of the card's level."""
    return max(0, tables[T_LEVEL_COST, biz[b, B_LEVEL] - 1]
               - ability(chars, players, p, AB_BUSINESS_DISCOUNT))


@njit(cache=True)
def franchise_cost(tables, chars, players, p, mother):
    """Start Franchise: the cost by the level of the mother business, seat ``mother``'s merged
    business, whose level is that of its highest business (Ins 'n Outs)."""
    return max(0, tables[T_FRANCHISE_COST, players[mother, BUSINESS_LEVEL] - 1]
               - ability(chars, players, p, AB_FRANCHISE_DISCOUNT))


@njit(cache=True)
def advertise_cost(cfg, tables, owners, p, tier):
    """Advertise: the tier's cost, less the Advertising firm's discount (Level 4 benefits)."""
    discount = cfg[CFG_AD_FIRM_DISCOUNT] if firm_benefit(cfg, owners, p, CFG_FIRM_ADVERTISING) else 0
    return max(0, tables[T_AD_COST, tier] - discount)


@njit(cache=True)
def start_business(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                   shares, owners, rng, options, scores, pol, trace, p, b):
    """Start Business: pay the level's cost; +1 business card, +its business growth, +5 shares;
    the first business puts the seat's stock at 5.  Merged level = highest level owned."""
    pay_by_choice(cfg, chars, players, board, trace, p,
                  business_cost(tables, chars, biz, players, p, b), L_TO_BANK, NONE)
    owners[OWN_BIZ, b] = p
    players[p, BUSINESS_YEAR] = board[YEAR]
    players[p, N_BUSINESSES] += 1
    players[p, GROWTH] += biz[b, B_GROWTH] + ability(chars, players, p, AB_GROWTH_BONUS)
    players[p, MERGED_LEVEL] = max(players[p, MERGED_LEVEL], biz[b, B_LEVEL])
    players[p, BUSINESS_LEVEL] = max(players[p, BUSINESS_LEVEL], biz[b, B_LEVEL])
    if stocks[p, ACTIVE] == 0:
        stocks[p, ACTIVE] = 1
        stocks[p, VALUE] = cfg[CFG_STOCK_START]
    give_shares(board, shares, p, p, cfg[CFG_SHARES_PER_START])
    insure_firm_holders(cfg, players, owners)


@njit(cache=True)
def start_franchise(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                    shares, owners, rng, options, scores, pol, trace, p, mother):
    """Start Franchise in seat ``mother``'s business: pay its owner by the merged business's
    level (Ins 'n Outs: the level of its highest business); +1 franchise card, +business growth
    (ASSUMED by the mother's level), +5 shares in the mother business.  ASSUMED: the
    franchise's level is the mother's level when it is started."""
    pay_by_choice(cfg, chars, players, board, trace, p,
                  franchise_cost(tables, chars, players, p, mother), L_TO_PLAYERS, mother)
    level = players[mother, BUSINESS_LEVEL]
    for f in range(cfg[CFG_FRANCHISE_CARDS]):
        if owners[FR_OWNER, f] == NONE:
            owners[FR_OWNER, f], owners[FR_MOTHER, f] = p, mother
            break
    board[FRANCHISES_LEFT] -= 1
    players[p, FRANCHISE_YEAR] = board[YEAR]
    players[p, N_FRANCHISES] += 1
    players[p, GROWTH] += (tables[T_FRANCHISE_GROWTH, level - 1]
                           + ability(chars, players, p, AB_GROWTH_BONUS))
    players[p, MERGED_LEVEL] = max(players[p, MERGED_LEVEL], level)
    give_shares(board, shares, p, mother, cfg[CFG_SHARES_PER_START])
    insure_firm_holders(cfg, players, owners)


@njit(cache=True)
def insure_firm_holders(cfg, players, owners):
    """Level 4 (Insurance and Investing firm): its owner and franchise owners get a free
    insurance token, which makes them immune now (Buy Insurance)."""
    for q in range(players.shape[0]):
        if firm_benefit(cfg, owners, q, CFG_FIRM_INSURANCE):
            players[q, PROTECTED] = 1


@njit(cache=True)
def list_trades(cfg, tables, players, board, stocks, shares, owners, options, p):
    """Buy/Sell Stock and/or Hire Accountant and/or Buy Insurance: the trades p may make now,
    as option rows [MK_*, stock, shares, cost]: done; an accountant or insurance not yet held
    this year (nor free from a level-4 firm); selling all shares of a business at its stock
    value x $1,000; buying a lot (stock.buy_lots) of an active business from the supply."""
    n = add_option(options, 0, MK_DONE, 0, 0, 0)
    if players[p, ACCOUNTANT] == 0 and can_afford(cfg, players, p, cfg[CFG_ACCOUNTANT_COST]):
        n = add_option(options, n, MK_ACCOUNTANT, 0, 0, cfg[CFG_ACCOUNTANT_COST])
    if (players[p, INSURED] == 0 and not firm_benefit(cfg, owners, p, CFG_FIRM_INSURANCE)
            and can_afford(cfg, players, p, cfg[CFG_INSURANCE_COST])):
        n = add_option(options, n, MK_INSURANCE, 0, 0, cfg[CFG_INSURANCE_COST])
    price = cfg[CFG_SHARE_PRICE]
    for s in range(stocks.shape[0]):
        if shares[p, s] > 0:
            n = add_option(options, n, MK_SELL, s, shares[p, s],
                           -shares[p, s] * stocks[s, VALUE] * price)
    for s in range(stocks.shape[0]):
        if stocks[s, ACTIVE] == 0:
            continue
        for k in range(tables[T_LEN, T_BUY_LOTS]):
            lot = tables[T_BUY_LOTS, k]
            cost = lot * stocks[s, VALUE] * price
            if lot <= board[SHARE_POOL] and can_afford(cfg, players, p, cost):
                n = add_option(options, n, MK_BUY, s, lot, cost)
    return n


@njit(cache=True)
def trade(cfg, chars, players, board, shares, owners, trace, p, kind, s, k, cost):
    """One trade of Buy/Sell Stock and/or Hire Accountant and/or Buy Insurance (a
    :func:`list_trades` row).  The accountant ($10,000) gives the smart tax table this year;
    insurance ($5,000) makes the player immune to events now (ASSUMED: until the end of the
    next year, its event included).  Their fees go to the owner of the Accounting / Insurance
    and Investing firm when another player owns it (Level 4 benefits)."""
    before = players[p, CASH]
    if kind == MK_ACCOUNTANT:
        pay_by_choice(cfg, chars, players, board, trace, p, cost, L_TO_BANK,
                      firm_owner(cfg, owners, CFG_FIRM_ACCOUNTING))
        players[p, ACCOUNTANT] = 1
    elif kind == MK_INSURANCE:
        pay_by_choice(cfg, chars, players, board, trace, p, cost, L_TO_BANK,
                      firm_owner(cfg, owners, CFG_FIRM_INSURANCE))
        players[p, INSURED] = 1
        players[p, PROTECTED] = 1     # "They are now immune"
    elif kind == MK_SELL:
        shares[p, s] -= k
        board[SHARE_POOL] += k
        gain(players, p, -cost, L_SHARES_SOLD)
    else:
        pay_by_choice(cfg, chars, players, board, trace, p, cost, L_SHARES_BOUGHT, NONE)
        shares[p, s] += k
        board[SHARE_POOL] -= k
    record(board, trace, EV_TRADE, p, kind, s * 1000 + k, before, players[p, CASH])


@njit(cache=True)
def market(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks, shares,
           owners, rng, options, scores, pol, trace, p):
    """Buy/Sell Stock and/or Hire Accountant and/or Buy Insurance: trades chosen one at a time
    until the player is done (at most stock.max_trades_per_action).  Level 4: the Accounting
    firm's owner and franchise owners have a free accountant."""
    if firm_benefit(cfg, owners, p, CFG_FIRM_ACCOUNTING):
        players[p, ACCOUNTANT] = 1
    for _ in range(cfg[CFG_MAX_TRADES]):
        n = list_trades(cfg, tables, players, board, stocks, shares, owners, options, p)
        i = choose(D_MARKET, p, n, pol[p], cfg, tables, chars, jobs, biz, knobs, players, board,
                   stocks, shares, owners, rng, options, scores)
        if options[i, OPT_ACTION] == MK_DONE:
            return
        trade(cfg, chars, players, board, shares, owners, trace, p, options[i, OPT_ACTION],
              options[i, OPT_A], options[i, OPT_B], options[i, OPT_COST])
