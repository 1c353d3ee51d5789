"""Karnaxis engine: numba kernels over plain int64 arrays (rulebook: shared/rules/karnaxis.md).

Same state pattern as every balsim engine (documented in simulator/games/ekonos/engine.py):
int64 arrays whose slots are named module constants (state.py), passed to every kernel as
plain arguments (never bundled in tuples: numba would then reference-count each member on
every call, which made the engine ten times slower).

* rules, built once per variant by the wrapper's ``prepare``: ``cfg`` int64[N_CFG],
  ``tables`` int64[N_TABLE, width] (lookup tables, row T_LEN their lengths),
  ``chars`` int64[n_characters, C_WIDTH], ``jobs`` int64[n_jobs, J_WIDTH],
  ``biz`` int64[n_businesses, B_WIDTH], ``events`` int64[n_events, 2],
  ``kcards`` int64[n_karnaxis_cards, 2], ``knobs`` float64[n_policies, n_knobs].
* one game: ``players`` int64[n_players, N_PLAYER] (board, year flags, ledger),
  ``board`` int64[N_BOARD], ``stocks`` int64[n_players + 1, N_STOCK] (row n_players is the
  black business), ``shares`` int64[n_players, n_players + 1], ``owners`` int64[N_OWNERS, w]
  (card holders and shuffled decks), ``rng`` uint64[N_STREAMS], ``options``
  int64[MAX_OPTIONS, OPT_WIDTH] and the policy's ``scores`` float64[MAX_OPTIONS], ``pol``
  int8[n_players] policy ids and ``trace``
  int64[max_events, TRACE_WIDTH] (zero rows in bulk runs).

The rule functions that may ask a policy take all of these, in that order.

Decisions: the engine lists the legal options in ``options`` and asks the seat's policy
(``policies.karnaxis.choose``) for an index, so an illegal move cannot be expressed.

Money: every change of a player's cash goes through :func:`gain` or :func:`spend`, which also
add the amount to one ledger column (L_*), so the final cash is always the start cash plus the
ledger's inflows minus its outflows, and every dollar paid to a player is received by one.
"""

import numpy as np
from numba import njit

from policies.karnaxis import choose
from simulator.games.karnaxis.state import *  # noqa: F401,F403  (the named slots)
from simulator.rng import DICE, SETUP, rng_below, rng_new, shuffle


# ---------------------------------------------------------------- bookkeeping helpers

@njit(cache=True)
def record(board, trace, event, seat, a, b, before, after):
    """Append one trace row [event, year, seat, a, b, before, after] when tracing."""
    n = board[TRACE_N]
    if n < trace.shape[0]:
        row = trace[n]
        row[0], row[1], row[2], row[3], row[4], row[5], row[6] = (
            event, board[YEAR], seat, a, b, before, after)
        board[TRACE_N] = n + 1


@njit(cache=True)
def gain(players, p, amount, column):
    """Cash in, booked to a ledger inflow column."""
    players[p, CASH] += amount
    players[p, column] += amount


@njit(cache=True)
def spend(players, p, amount, column):
    """Cash out, booked to a ledger outflow column."""
    players[p, CASH] -= amount
    players[p, column] += amount


@njit(cache=True)
def holds_job(players, p, job):
    return job >= 0 and (players[p, JOB] == job or players[p, JOB_B] == job)


@njit(cache=True)
def job_holder(players, job):
    """The seat holding a job card, or NONE."""
    if job < 0:
        return NONE
    for p in range(players.shape[0]):
        if holds_job(players, p, job):
            return p
    return NONE


@njit(cache=True)
def ability(chars, players, p, which):
    """A character's ability value when the character has ability ``which``, else 0 (1 for
    valueless abilities)."""
    c = players[p, CHARACTER]
    if chars[c, C_ABILITY] != which:
        return 0
    v = chars[c, C_ABILITY_VALUE]
    return v if v != 0 else 1


@njit(cache=True)
def firm_owner(cfg, owners, firm_slot):
    """Seat owning the level-4 firm of cfg slot ``firm_slot`` (CFG_FIRM_*), or NONE."""
    b = cfg[firm_slot]
    if b < 0:
        return NONE
    owner = owners[OWN_BIZ, b]
    return owner if owner >= 0 else NONE


@njit(cache=True)
def has_firm_franchise(cfg, owners, p, firm_slot):
    b = cfg[firm_slot]
    if b < 0:
        return False
    for f in range(cfg[CFG_FRANCHISE_CARDS]):
        if owners[FR_OWNER, f] == p and owners[FR_MOTHER, f] == b:
            return True
    return False


@njit(cache=True)
def firm_benefit(cfg, owners, p, firm_slot):
    """Ins 'n Outs: owners of a level-4 firm and of its franchises get its token/discount."""
    return firm_owner(cfg, owners, firm_slot) == p or has_firm_franchise(cfg, owners, p, firm_slot)


# ---------------------------------------------------------------- loans

@njit(cache=True)
def borrow_needed(cfg, players, p, cost):
    """Loan Odds 'n Ends: the loan (in whole notes) that lets p pay ``cost``, 0 when cash
    suffices, -1 when it would pass the cap."""
    short = cost - players[p, CASH]
    if short <= 0:
        return 0
    unit = cfg[CFG_LOAN_UNIT]
    amount = -(-short // unit) * unit
    room = cfg[CFG_LOAN_CAP] - players[p, LOANS]
    if amount > room:
        if short <= room:
            return room
        return -1
    return amount


@njit(cache=True)
def take_loan(cfg, chars, players, board, trace, p, amount):
    """Loan Odds 'n Ends: take bank loan notes.  A character whose Karnaxis is forfeited by a
    loan (Zack) owes the $100,000 back once it is fulfilled."""
    before = players[p, CASH]
    players[p, LOANS] += amount
    players[p, LOANS_COUNT] += 1
    gain(players, p, amount, L_LOANS)
    if players[p, LOANS] > players[p, PEAK_LOANS]:
        players[p, PEAK_LOANS] = players[p, LOANS]
    record(board, trace, EV_LOAN, p, amount, players[p, LOANS], before, players[p, CASH])
    c = players[p, CHARACTER]
    if (chars[c, C_FORFEIT] == 1 and players[p, KARNAXIS_DONE] == 1
            and players[p, KARNAXIS_REVOKED] == 0):
        players[p, FORFEIT_DUE] = 1


@njit(cache=True)
def can_afford(cfg, players, p, cost):
    return borrow_needed(cfg, players, p, cost) >= 0


@njit(cache=True)
def pay_by_choice(cfg, chars, players, board, trace, p, cost, column, to_seat):
    """An expense the player chose (an action): borrow what cash lacks, then pay the bank, or
    another seat when ``to_seat`` >= 0.  Options are only listed when affordable."""
    if cost <= 0:
        return
    amount = borrow_needed(cfg, players, p, cost)
    if amount > 0:
        take_loan(cfg, chars, players, board, trace, p, amount)
    hand_over(players, p, cost, column, to_seat)


@njit(cache=True)
def hand_over(players, p, amount, column, to_seat):
    """Money leaves seat p: to another seat when ``to_seat`` >= 0, else to the bank, booked
    under ``column`` of the ledger."""
    if to_seat >= 0 and to_seat != p:
        spend(players, p, amount, L_TO_PLAYERS)
        gain(players, to_seat, amount, L_FROM_PLAYERS)
    else:
        spend(players, p, amount, column)


@njit(cache=True)
def delinquent(cfg, players, board, trace, p, expense, short):
    """Loan Odds 'n Ends: a player who cannot pay takes a delinquent payment notice (two when
    the expense is over $100,000) and the bank pays the shortfall."""
    k = 2 if expense > cfg[CFG_SECOND_NOTICE_OVER] else 1
    players[p, NOTICES] += k
    gain(players, p, short, L_BAILOUT)
    record(board, trace, EV_NOTICE, p, k, expense, players[p, CASH] - short, players[p, CASH])


@njit(cache=True)
def pay_required(cfg, chars, players, board, trace, p, amount, column, to_seat, can_borrow):
    """An expense a player must pay (taxes, events, loan payments): cash first, then loans up
    to the cap when allowed, then delinquent notices.  Cash never goes below zero."""
    if amount <= 0:
        return
    short = amount - players[p, CASH]
    if short > 0 and can_borrow:
        unit = cfg[CFG_LOAN_UNIT]
        room = cfg[CFG_LOAN_CAP] - players[p, LOANS]
        loan = min(-(-short // unit) * unit, room)
        if loan > 0:
            take_loan(cfg, chars, players, board, trace, p, loan)
        short = amount - players[p, CASH]
    if short > 0:
        delinquent(cfg, players, board, trace, p, amount, short)
    hand_over(players, p, amount, column, to_seat)


@njit(cache=True)
def settle_forfeit(cfg, chars, players, board, trace, p):
    """Bits 'n Pieces (Zack): after a loan, the Karnaxis reward is paid back once."""
    if players[p, FORFEIT_DUE] == 1:
        pay_back(cfg, chars, players, board, trace, p)


@njit(cache=True)
def pay_back(cfg, chars, players, board, trace, p):
    players[p, FORFEIT_DUE] = 0
    players[p, KARNAXIS_REVOKED] = 1
    before = players[p, CASH]
    pay_required(cfg, chars, players, board, trace, p, cfg[CFG_KARNAXIS_BONUS], L_KARNAXIS_PAYBACK,
                 NONE, True)
    record(board, trace, EV_FORFEIT, p, cfg[CFG_KARNAXIS_BONUS], 0, before, players[p, CASH])


# ---------------------------------------------------------------- Karnaxis (ambition)

@njit(cache=True)
def total_shares(shares, p):
    t = 0
    for s in range(shares.shape[1]):
        t += shares[p, s]
    return t


@njit(cache=True)
def ambition_met(chars, players, shares, p):
    """Fulfilling Your Karnaxis: whether p's character ambition is met now (kinds in state.py;
    all but Wes's, Whitney's and Zack's are ASSUMED)."""
    c = players[p, CHARACTER]
    kind, v = chars[c, C_KARNAXIS], chars[c, C_KARNAXIS_VALUE]
    if kind == K_GROWTH:
        return players[p, GROWTH] >= v
    if kind == K_SHARES:
        return total_shares(shares, p) >= v
    if kind == K_BUSINESSES:
        return players[p, N_BUSINESSES] >= v
    if kind == K_JOBS:       # Whitney: 2 different jobs during the game, not at once
        return players[p, DISTINCT_JOBS] >= v
    if kind == K_JOB:
        return holds_job(players, p, chars[c, C_KARNAXIS_JOB])
    if kind == K_COLLEGE:
        return players[p, COLLEGE] >= v
    if kind == K_RETIREMENT:
        return players[p, RETIRE_TOKENS] >= v
    if kind == K_CASH:
        return players[p, CASH] >= v
    if kind == K_DIVIDENDS:
        return players[p, L_DIVIDENDS] >= v
    if kind == K_LEVEL:
        return players[p, BUSINESS_LEVEL] >= v
    if kind == K_FRANCHISES:
        return players[p, N_FRANCHISES] >= v
    if kind == K_ATTRIBUTE:
        for a in range(N_ATTR):
            if players[p, ATTR + a] >= v:
                return True
        return False
    if kind == K_INCOME:
        return players[p, INCOME] >= v
    if kind == K_CARDS:
        return players[p, CARDS_BOUGHT] >= v
    if kind == K_SALARY:
        return players[p, L_SALARY] >= v
    return False


@njit(cache=True)
def check_karnaxis(cfg, chars, players, shares, board, trace, p):
    """Fulfilling Your Karnaxis: on fulfilment the player immediately receives $100,000."""
    if players[p, KARNAXIS_DONE] == 1 or not ambition_met(chars, players, shares, p):
        return
    before = players[p, CASH]
    players[p, KARNAXIS_DONE] = 1
    players[p, KARNAXIS_YEAR] = board[YEAR]
    gain(players, p, cfg[CFG_KARNAXIS_BONUS], L_KARNAXIS)
    record(board, trace, EV_KARNAXIS, p, players[p, CHARACTER], 0, before, players[p, CASH])


@njit(cache=True)
def check_all_karnaxis(cfg, chars, players, shares, board, trace):
    for p in range(players.shape[0]):
        check_karnaxis(cfg, chars, players, shares, board, trace, p)


# ---------------------------------------------------------------- stock market

@njit(cache=True)
def move_stock(cfg, players, board, stocks, shares, trace, s, delta):
    """Update stocks: move stock s by ``delta``.  At 0 half the shares (rounded up) are
    removed and the value returns to 1; at the "$" space every share
    pays $1,000 and the value returns to 9.  Each movement is one hit, so several movements in
    a year (die, events, re-roll) apply the rule each time."""
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
                pay_required(cfg, chars, players, board, trace, p, -value, L_EVENT_LOSS, NONE, True)
        elif effect == EF_LOTTERY:
            if rng_below(rng, DICE, 6) == 5:
                gain(players, p, value, L_EVENT_GAIN)
        elif effect == EF_MEDICAL:
            if players[p, PROTECTED] == 0 and rng_below(rng, DICE, 6) < 2:
                pay_required(cfg, chars, players, board, trace, p, value, L_EVENT_LOSS, NONE, True)
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
        players[p, INSURED] = 0      # the token covered this event and goes back
    apply_event(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                shares, owners, rng, options, scores, pol, trace, owners[DECK_EVENTS, year - 1])
    board[FUND] += cfg[CFG_FUND_INCREMENT]
    update_stocks(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                  shares, owners, rng, options, scores, pol, trace)
    check_all_karnaxis(cfg, chars, players, shares, board, trace)


# ---------------------------------------------------------------- Take Action!

@njit(cache=True)
def qualifies(players, p, cards, r, offset, college_needed):
    """Job Search / Start Business prerequisites: attribute minimums (``cards[r, offset:]``,
    a job or business row) and college years."""
    if players[p, COLLEGE] < college_needed:
        return False
    for a in range(N_ATTR):
        if players[p, ATTR + a] < cards[r, offset + a]:
            return False
    return True


@njit(cache=True)
def karnaxis_card_cost(cfg, chars, players, p):
    return max(0, cfg[CFG_CARD_COST] - ability(chars, players, p, AB_KARNAXIS_DISCOUNT))


@njit(cache=True)
def tuition(cfg, chars, players, board, p, university):
    if board[EVENT_TUITION_FREE] == 1:
        return 0
    base = cfg[CFG_UNIVERSITY_COST] if university else cfg[CFG_COLLEGE_COST]
    return max(0, base - ability(chars, players, p, AB_TUITION_DISCOUNT))


@njit(cache=True)
def retirement_cost(cfg, owners, p):
    discount = cfg[CFG_INS_FIRM_DISCOUNT] if firm_benefit(cfg, owners, p, CFG_FIRM_INSURANCE) else 0
    return max(0, cfg[CFG_RETIREMENT_COST] - discount)


@njit(cache=True)
def business_cost(tables, chars, biz, players, p, b):
    return max(0, tables[T_LEVEL_COST, biz[b, B_LEVEL] - 1]
               - ability(chars, players, p, AB_BUSINESS_DISCOUNT))


@njit(cache=True)
def franchise_cost(tables, chars, biz, players, p, b):
    return max(0, tables[T_FRANCHISE_COST, biz[b, B_LEVEL] - 1]
               - ability(chars, players, p, AB_FRANCHISE_DISCOUNT))


@njit(cache=True)
def advertise_cost(cfg, tables, owners, p, tier):
    discount = cfg[CFG_AD_FIRM_DISCOUNT] if firm_benefit(cfg, owners, p, CFG_FIRM_ADVERTISING) else 0
    return max(0, tables[T_AD_COST, tier] - discount)


@njit(cache=True)
def add_option(options, n, action, a, b, cost):
    if n < options.shape[0]:
        options[n, OPT_ACTION], options[n, OPT_A], options[n, OPT_B], options[n, OPT_COST] = (
            action, a, b, cost)
        return n + 1
    return n


@njit(cache=True)
def list_actions(cfg, tables, chars, jobs, biz, kcards, players, board, owners, options, p, first):
    """Take Action!: every action space p may use now, one row per concrete choice.  A space
    used already this year is not offered; Collect Unemployment once per year; Go To Work only
    as the first action of a job holder; unaffordable choices (even with loans to the cap) are
    not offered."""
    used = players[p, USED]
    n = 0
    if (used >> ACT_UNEMPLOYMENT) & 1 == 0 and board[UNEMP_TAKEN] == 0:
        n = add_option(options, n, ACT_UNEMPLOYMENT, board[FUND], 0, 0)
    if (used >> ACT_KARNAXIS) & 1 == 0 and board[NEXT_CARD] < kcards.shape[0]:
        cost = karnaxis_card_cost(cfg, chars, players, p)
        if can_afford(cfg, players, p, cost):
            n = add_option(options, n, ACT_KARNAXIS, 0, 0, cost)
    if first:
        for slot in (JOB, JOB_B):
            if players[p, slot] >= 0:
                n = add_option(options, n, ACT_WORK, players[p, slot], 0, 0)
    if (used >> ACT_JOB_SEARCH) & 1 == 0:
        for j in range(jobs.shape[0]):
            if (jobs[j, J_AVAILABLE] == 1 and owners[OWN_JOB, j] == NONE
                    and qualifies(players, p, jobs, j, J_ATTR, jobs[j, J_COLLEGE])):
                n = add_option(options, n, ACT_JOB_SEARCH, j, 0, 0)
    if (used >> ACT_STUDY) & 1 == 0:
        n = add_option(options, n, ACT_STUDY, 0, 0, 0)
    if (used >> ACT_COLLEGE) & 1 == 0:
        if players[p, COLLEGE] < cfg[CFG_COLLEGE_YEARS]:
            cost = tuition(cfg, chars, players, board, p, False)
            if can_afford(cfg, players, p, cost):
                n = add_option(options, n, ACT_COLLEGE, 0, 0, cost)
        cost = tuition(cfg, chars, players, board, p, True)
        if can_afford(cfg, players, p, cost):
            n = add_option(options, n, ACT_COLLEGE, 1, 0, cost)
    if (used >> ACT_RETIREMENT) & 1 == 0 and board[RETIRE_POOL] > 0:
        cost = retirement_cost(cfg, owners, p)
        if can_afford(cfg, players, p, cost):
            n = add_option(options, n, ACT_RETIREMENT, 0, 0, cost)
    if (used >> ACT_MARKET) & 1 == 0:
        n = add_option(options, n, ACT_MARKET, 0, 0, 0)
    year = board[YEAR]
    if (used >> ACT_BUSINESS) & 1 == 0 and players[p, BUSINESS_YEAR] != year:
        for b in range(biz.shape[0]):
            if owners[OWN_BIZ, b] != NONE:
                continue
            only = biz[b, B_ONLY_CHARACTER]
            if only >= 0 and only != players[p, CHARACTER]:
                continue
            if not qualifies(players, p, biz, b, B_ATTR, 0):
                continue
            cost = business_cost(tables, chars, biz, players, p, b)
            if can_afford(cfg, players, p, cost):
                n = add_option(options, n, ACT_BUSINESS, b, 0, cost)
    if ((used >> ACT_FRANCHISE) & 1 == 0 and players[p, FRANCHISE_YEAR] != year
            and board[FRANCHISES_LEFT] > 0):
        for b in range(biz.shape[0]):
            owner = owners[OWN_BIZ, b]
            if owner < 0 or owner == p or not qualifies(players, p, biz, b, B_ATTR, 0):
                continue
            cost = franchise_cost(tables, chars, biz, players, p, b)
            if can_afford(cfg, players, p, cost):
                n = add_option(options, n, ACT_FRANCHISE, b, 0, cost)
    if ((used >> ACT_ADVERTISE) & 1 == 0
            and players[p, N_BUSINESSES] + players[p, N_FRANCHISES] > 0):
        for t in range(tables[T_LEN, T_AD_LEVEL]):
            if tables[T_AD_LEVEL, t] <= players[p, MERGED_LEVEL]:
                cost = advertise_cost(cfg, tables, owners, p, t)
                if can_afford(cfg, players, p, cost):
                    n = add_option(options, n, ACT_ADVERTISE, t, 0, cost)
    if n == 0:
        n = add_option(options, n, ACT_PASS, 0, 0, 0)
    return n


@njit(cache=True)
def raise_attributes(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                     shares, owners, rng, options, scores, pol, trace, p, count):
    """Personal Study / College / University: +count attributes of the player's choice (the
    policy picks), each up to the top of the track."""
    for _ in range(count):
        n = 0
        for a in range(N_ATTR):
            if players[p, ATTR + a] < cfg[CFG_ATTR_MAX]:
                n = add_option(options, n, a, players[p, ATTR + a], 0, 0)
        if n == 0:
            return
        i = choose(D_ATTRIBUTE, p, n, pol[p], cfg, tables, chars, jobs, biz, knobs, players, board,
                   stocks, shares, owners, rng, options, scores)
        players[p, ATTR + options[i, OPT_ACTION]] += 1


@njit(cache=True)
def take_job(players, owners, p, j):
    """Job Search: the job card goes on the player board; it counts as work this year."""
    owners[OWN_JOB, j] = p
    if players[p, JOB] == NONE:
        players[p, JOB] = j
        players[p, WORKED] = 1
    else:
        players[p, JOB_B] = j
    if (players[p, JOBS_SEEN] >> j) & 1 == 0:
        players[p, JOBS_SEEN] |= 1 << j
        players[p, DISTINCT_JOBS] += 1


@njit(cache=True)
def go_to_work(players, board, owners, trace, p, j):
    """Go To Work: keep one and only one job card; any other goes back to the job board."""
    other = players[p, JOB_B] if players[p, JOB] == j else players[p, JOB]
    if other >= 0:
        lose_job(players, board, owners, trace, p, other)
    players[p, JOB] = j
    players[p, JOB_B] = NONE
    players[p, WORKED] = 1


@njit(cache=True)
def buy_karnaxis_card(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                      shares, owners, rng, options, scores, pol, trace, p):
    """Buy Karnaxis Card: $15,000 to the bank; the Consultant collects $5,000 (ASSUMED: from
    the bank).  ASSUMED: the card is used at once (selling it to a player is not modelled)."""
    pay_by_choice(cfg, chars, players, board, trace, p, karnaxis_card_cost(cfg, chars, players, p),
                  L_TO_BANK, NONE)
    players[p, CARDS_BOUGHT] += 1
    consultant = job_holder(players, cfg[CFG_JOB_CONSULTANT])
    if consultant >= 0:
        gain(players, consultant, cfg[CFG_CONSULTANT_FEE], L_BANK_BENEFITS)
    card = owners[DECK_CARDS, board[NEXT_CARD]]
    board[NEXT_CARD] += 1
    effect, value = kcards[card, KC_EFFECT], kcards[card, KC_VALUE]
    before = players[p, CASH]
    if effect == KE_CASH:
        gain(players, p, value, L_CARD_CASH)
    elif effect == KE_DICE_CASH:
        gain(players, p, (rng_below(rng, DICE, 6) + 1) * value, L_CARD_CASH)
    elif effect == KE_ATTRIBUTES:
        raise_attributes(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board,
                         stocks, shares, owners, rng, options, scores, pol, trace, p, value)
    elif effect == KE_GROWTH:
        if players[p, N_BUSINESSES] + players[p, N_FRANCHISES] > 0:
            players[p, GROWTH] += value
        else:
            players[p, PENDING_GROWTH] += value
    elif effect == KE_RETIREMENT:
        k = min(value, board[RETIRE_POOL])
        players[p, RETIRE_TOKENS] += k
        board[RETIRE_POOL] -= k
    elif effect == KE_BLACK_SHARES:
        give_shares(board, shares, p, players.shape[0], value)
    elif effect == KE_COLLEGE:
        if players[p, COLLEGE] < cfg[CFG_COLLEGE_YEARS]:
            players[p, COLLEGE] += 1
        raise_attributes(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board,
                         stocks, shares, owners, rng, options, scores, pol, trace, p, 1)
    elif effect == KE_TAX_FREE:
        players[p, TAX_FREE] = 1
    elif effect == KE_FORGIVE:
        players[p, LOANS] -= min(value, players[p, LOANS])
    record(board, trace, EV_CARD, p, card, value, before, players[p, CASH])


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
    players[p, GROWTH] += (biz[b, B_GROWTH] + ability(chars, players, p, AB_GROWTH_BONUS)
                           + players[p, PENDING_GROWTH])
    players[p, PENDING_GROWTH] = 0
    players[p, MERGED_LEVEL] = max(players[p, MERGED_LEVEL], biz[b, B_LEVEL])
    players[p, BUSINESS_LEVEL] = max(players[p, BUSINESS_LEVEL], biz[b, B_LEVEL])
    if stocks[p, ACTIVE] == 0:
        stocks[p, ACTIVE] = 1
        stocks[p, VALUE] = cfg[CFG_STOCK_START]
    give_shares(board, shares, p, p, cfg[CFG_SHARES_PER_START])


@njit(cache=True)
def start_franchise(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                    shares, owners, rng, options, scores, pol, trace, p, b):
    """Start Franchise: pay the mother business's owner by its level; +1 franchise card,
    +business growth (ASSUMED by the mother's level), +5 shares in the mother business."""
    owner = owners[OWN_BIZ, b]
    pay_by_choice(cfg, chars, players, board, trace, p,
                  franchise_cost(tables, chars, biz, players, p, b), L_TO_PLAYERS, owner)
    level = biz[b, B_LEVEL]
    for f in range(cfg[CFG_FRANCHISE_CARDS]):
        if owners[FR_OWNER, f] == NONE:
            owners[FR_OWNER, f], owners[FR_MOTHER, f] = p, b
            break
    board[FRANCHISES_LEFT] -= 1
    players[p, FRANCHISE_YEAR] = board[YEAR]
    players[p, N_FRANCHISES] += 1
    players[p, GROWTH] += (tables[T_FRANCHISE_GROWTH, level - 1]
                           + ability(chars, players, p, AB_GROWTH_BONUS) + players[p, PENDING_GROWTH])
    players[p, PENDING_GROWTH] = 0
    players[p, MERGED_LEVEL] = max(players[p, MERGED_LEVEL], level)
    give_shares(board, shares, p, owner, cfg[CFG_SHARES_PER_START])


@njit(cache=True)
def market(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks, shares,
           owners, rng, options, scores, pol, trace, p):
    """Buy/Sell Stock and/or Hire Accountant and/or Buy Insurance: any number of trades at the
    stock value x $1,000 per share (bounded by stock.max_trades_per_action), an accountant for
    this year's taxes and insurance for the next event.  Fees go to the owner of the
    Accounting / Insurance and Investing firm when another player owns it."""
    n_stocks = stocks.shape[0]
    price = cfg[CFG_SHARE_PRICE]
    free_accountant = firm_benefit(cfg, owners, p, CFG_FIRM_ACCOUNTING)
    if free_accountant:
        players[p, ACCOUNTANT] = 1
    for _ in range(cfg[CFG_MAX_TRADES]):
        n = add_option(options, 0, MK_DONE, 0, 0, 0)
        if players[p, ACCOUNTANT] == 0 and can_afford(cfg, players, p, cfg[CFG_ACCOUNTANT_COST]):
            n = add_option(options, n, MK_ACCOUNTANT, 0, 0, cfg[CFG_ACCOUNTANT_COST])
        if players[p, INSURED] == 0 and can_afford(cfg, players, p, cfg[CFG_INSURANCE_COST]):
            n = add_option(options, n, MK_INSURANCE, 0, 0, cfg[CFG_INSURANCE_COST])
        for s in range(n_stocks):
            if shares[p, s] > 0:
                n = add_option(options, n, MK_SELL, s, shares[p, s],
                               -shares[p, s] * stocks[s, VALUE] * price)
        for s in range(n_stocks):
            if stocks[s, ACTIVE] == 0:
                continue
            for k in range(tables[T_LEN, T_BUY_LOTS]):
                lot = tables[T_BUY_LOTS, k]
                cost = lot * stocks[s, VALUE] * price
                if lot <= board[SHARE_POOL] and can_afford(cfg, players, p, cost):
                    n = add_option(options, n, MK_BUY, s, lot, cost)
        i = choose(D_MARKET, p, n, pol[p], cfg, tables, chars, jobs, biz, knobs, players, board,
                   stocks, shares, owners, rng, options, scores)
        kind, s, k = options[i, OPT_ACTION], options[i, OPT_A], options[i, OPT_B]
        cost = options[i, OPT_COST]
        if kind == MK_DONE:
            return
        before = players[p, CASH]
        if kind == MK_ACCOUNTANT:
            pay_by_choice(cfg, chars, players, board, trace, p, cost, L_TO_BANK,
                          firm_owner(cfg, owners, CFG_FIRM_ACCOUNTING))
            players[p, ACCOUNTANT] = 1
        elif kind == MK_INSURANCE:
            pay_by_choice(cfg, chars, players, board, trace, p, cost, L_TO_BANK,
                          firm_owner(cfg, owners, CFG_FIRM_INSURANCE))
            players[p, INSURED] = 1
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
def do_action(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks, shares,
              owners, rng, options, scores, pol, trace, p, action, a, first):
    """Perform one chosen action (Take Action!: the action spaces); ``a`` is its OPT_A."""
    before = players[p, CASH]
    if action != ACT_PASS:
        players[p, USED] |= 1 << action
    # Go To Work: a job holder whose first action is anything else is fired; Job Search as the
    # first action counts as work for the new job only.
    if first and action != ACT_WORK and (players[p, JOB] >= 0 or players[p, JOB_B] >= 0):
        for slot in (JOB, JOB_B):
            if players[p, slot] >= 0:
                lose_job(players, board, owners, trace, p, players[p, slot])
    if action == ACT_UNEMPLOYMENT:
        amount = board[FUND]
        board[FUND] = 0
        board[UNEMP_TAKEN] = 1
        board[NEXT_STARTER] = p
        gain(players, p, amount, L_UNEMPLOYMENT)
        bonus = ability(chars, players, p, AB_UNEMPLOYMENT_BONUS)
        if bonus > 0:
            gain(players, p, bonus, L_BANK_BENEFITS)
    elif action == ACT_KARNAXIS:
        buy_karnaxis_card(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board,
                          stocks, shares, owners, rng, options, scores, pol, trace, p)
    elif action == ACT_JOB_SEARCH:
        take_job(players, owners, p, a)
    elif action == ACT_WORK:
        go_to_work(players, board, owners, trace, p, a)
    elif action == ACT_STUDY:
        raise_attributes(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board,
                         stocks, shares, owners, rng, options, scores, pol, trace, p,
                         cfg[CFG_STUDY_ATTRS] + ability(chars, players, p, AB_STUDY_BONUS))
    elif action == ACT_COLLEGE:
        pay_by_choice(cfg, chars, players, board, trace, p,
                      tuition(cfg, chars, players, board, p, a == 1), L_TO_BANK, NONE)
        if a == 0:
            players[p, COLLEGE] += 1
            raise_attributes(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board,
                             stocks, shares, owners, rng, options, scores, pol, trace, p, 1)
        else:
            players[p, UNIVERSITY_YEARS] += 1
            raise_attributes(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board,
                             stocks, shares, owners, rng, options, scores, pol, trace, p,
                             cfg[CFG_UNIVERSITY_ATTRS])
        professor = job_holder(players, cfg[CFG_JOB_PROFESSOR])
        if professor >= 0:
            gain(players, professor, cfg[CFG_PROFESSOR_FEE], L_BANK_BENEFITS)
    elif action == ACT_RETIREMENT:
        pay_by_choice(cfg, chars, players, board, trace, p, retirement_cost(cfg, owners, p),
                      L_TO_BANK,
                      firm_owner(cfg, owners, CFG_FIRM_INSURANCE))
        players[p, RETIRE_TOKENS] += 1
        board[RETIRE_POOL] -= 1
    elif action == ACT_MARKET:
        market(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks, shares,
               owners, rng, options, scores, pol, trace, p)
    elif action == ACT_BUSINESS:
        start_business(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                       shares, owners, rng, options, scores, pol, trace, p, a)
    elif action == ACT_FRANCHISE:
        start_franchise(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board,
                        stocks, shares, owners, rng, options, scores, pol, trace, p, a)
    elif action == ACT_ADVERTISE:
        pay_by_choice(cfg, chars, players, board, trace, p,
                      advertise_cost(cfg, tables, owners, p, a), L_TO_BANK,
                      firm_owner(cfg, owners, CFG_FIRM_ADVERTISING))
        players[p, GROWTH] += tables[T_AD_GROWTH, a]
    record(board, trace, EV_ACTION, p, action, a, before, players[p, CASH])
    check_karnaxis(cfg, chars, players, shares, board, trace, p)
    settle_forfeit(cfg, chars, players, board, trace, p)


@njit(cache=True)
def take_actions(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                 shares, owners, rng, options, scores, pol, trace):
    """2. Take Action!: clockwise from the starting player, one action square at a time, until
    every player has placed theirs: two each, three for a Rocket Scientist / Pro Athlete
    (ASSUMED: holding the card at the start of the stage).  Collecting unemployment makes the
    collector the starting player of the following year."""
    n = players.shape[0]
    most = 0
    for p in range(n):
        k = cfg[CFG_ACTIONS]
        for slot in (JOB, JOB_B):
            j = players[p, slot]
            if j >= 0 and jobs[j, J_BENEFIT] == BEN_EXTRA_ACTION:
                k = cfg[CFG_ACTIONS] + 1
        players[p, ACTIONS] = k
        most = max(most, k)
    board[NEXT_STARTER] = board[STARTER]
    for turn in range(most):
        for i in range(n):
            p = (board[STARTER] + i) % n
            if players[p, ACTIONS] <= turn:
                continue
            m = list_actions(cfg, tables, chars, jobs, biz, kcards, players, board, owners, options,
                             p, turn == 0)
            choice = choose(D_ACTION, p, m, pol[p], cfg, tables, chars, jobs, biz, knobs, players,
                            board,
                   stocks, shares, owners, rng, options, scores)
            do_action(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                      shares, owners, rng, options, scores, pol, trace, p, options[choice, OPT_ACTION],
                      options[choice, OPT_A], turn == 0)
    board[STARTER] = board[NEXT_STARTER]


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
def pay_income(chars, jobs, players, board, trace, p):
    """Year End Review, step 1: salary for each job worked (gone to work and/or just started)
    and business income: the income marker rises by the business growth, then the new income
    is paid (the rulebook's shoe-shop example)."""
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
        players[p, INCOME] += players[p, GROWTH]
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
    pay_required(cfg, chars, players, board, trace, p, tax, L_TAXES, NONE, True)
    record(board, trace, EV_TAX, p, tax, players[p, YEAR_BRACKET], before, players[p, CASH])


@njit(cache=True)
def repay_loans(cfg, players, board, trace, p, pct, final):
    """Year Chart + Loan Odds 'n Ends: ``pct``% of the loans outstanding plus interest
    (ASSUMED: interest_pct of the principal repaid).  No loan may pay a loan payment: a
    shortfall takes delinquent notices.  The Banker pays no interest and receives the
    interest others pay.  At game end (``final``) the rest is subtracted from cash, which may
    go negative."""
    principal = -(-players[p, LOANS] * pct // 100)
    if principal <= 0:
        return
    banker = job_holder(players, cfg[CFG_JOB_BANKER])
    interest = 0 if banker == p else -(-principal * cfg[CFG_INTEREST_PCT] // 100)
    before = players[p, CASH]
    short = principal + interest - players[p, CASH]
    if short > 0 and not final:
        delinquent(cfg, players, board, trace, p, principal + interest, short)
    players[p, LOANS] -= principal
    spend(players, p, principal, L_PRINCIPAL)
    spend(players, p, interest, L_INTEREST)
    if banker >= 0 and banker != p:
        gain(players, banker, interest, L_INTEREST_RECEIVED)
    record(board, trace, EV_LOAN_PAYMENT, p, principal, interest, before, players[p, CASH])


@njit(cache=True)
def year_end(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks, shares,
             owners, rng, options, scores, pol, trace, year):
    """3. Year End Review: income and salary, taxes, loan payments due this year."""
    n = players.shape[0]
    for p in range(n):
        pay_income(chars, jobs, players, board, trace, p)
    check_all_karnaxis(cfg, chars, players, shares, board, trace)
    for p in range(n):
        pay_taxes(cfg, tables, chars, players, board, owners, trace, p)
        settle_forfeit(cfg, chars, players, board, trace, p)
    for d in range(tables[T_LEN, T_DUE_YEAR]):
        if tables[T_DUE_YEAR, d] == year:
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
        for k in range(L_SALARY, N_PLAYER):
            row[N_PLAYER_OUT + k - L_SALARY] = players[p, k]
    out_game[G_WINNER] = winner if winners == 1 else NONE
    out_game[G_LENGTH] = cfg[CFG_YEARS]
    out_game[G_END_REASON] = END_FINAL_YEAR
    out_game[G_UNEMPLOYMENT_LEFT] = board[FUND]
    out_game[G_SHARES_LEFT] = board[SHARE_POOL]


# ---------------------------------------------------------------- setup and the game loop

@njit(cache=True)
def new_state(cfg, chars, jobs, biz, events, kcards, seed):
    """Game Setup: fresh state arrays (see the module docstring)."""
    n = cfg[CFG_PLAYERS]
    players = np.zeros((n, N_PLAYER), dtype=np.int64)
    board = np.zeros(N_BOARD, dtype=np.int64)
    stocks = np.zeros((n + 1, N_STOCK), dtype=np.int64)
    shares = np.zeros((n, n + 1), dtype=np.int64)
    width = max(biz.shape[0], jobs.shape[0], cfg[CFG_FRANCHISE_CARDS], events.shape[0],
                kcards.shape[0], chars.shape[0])
    owners = np.full((N_OWNERS, width), NONE, dtype=np.int64)
    rng = rng_new(seed)
    options = np.zeros((MAX_OPTIONS, OPT_WIDTH), dtype=np.int64)
    scores = np.zeros(MAX_OPTIONS, dtype=np.float64)
    return players, board, stocks, shares, owners, rng, options, scores


@njit(cache=True)
def setup(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks, shares,
          owners, rng, options, scores, pol, trace):
    """Game Setup: $10,000 each; deal 3 characters each and keep 1 (its four attributes);
    black business at 5; job and business cards by player-count symbol; shuffle the event and
    Karnaxis decks.  Seat 0 is the starting player (the highest die roll)."""
    n = players.shape[0]
    for b in range(biz.shape[0]):
        if biz[b, B_AVAILABLE] == 0:
            owners[OWN_BIZ, b] = REMOVED
    for j in range(jobs.shape[0]):
        if jobs[j, J_AVAILABLE] == 0:
            owners[OWN_JOB, j] = REMOVED
    for e in range(events.shape[0]):
        owners[DECK_EVENTS, e] = e
    for k in range(kcards.shape[0]):
        owners[DECK_CARDS, k] = k
    shuffle(rng, SETUP, owners[DECK_EVENTS, :events.shape[0]])
    shuffle(rng, SETUP, owners[DECK_CARDS, :kcards.shape[0]])
    deck = np.arange(chars.shape[0])
    shuffle(rng, SETUP, deck)
    board[FUND] = cfg[CFG_FUND_START]
    board[SHARE_POOL] = cfg[CFG_SHARE_TOKENS]
    board[RETIRE_POOL] = cfg[CFG_RETIREMENT_TOKENS]
    board[FRANCHISES_LEFT] = cfg[CFG_FRANCHISE_CARDS]
    stocks[n, ACTIVE] = 1
    stocks[n, VALUE] = cfg[CFG_STOCK_START]
    dealt = cfg[CFG_DEALT]
    for p in range(n):
        for k in range(dealt):
            c = deck[p * dealt + k]
            options[k, OPT_ACTION], options[k, OPT_A], options[k, OPT_B], options[k, OPT_COST] = c, 0, 0, 0
        i = choose(D_CHARACTER, p, dealt, pol[p], cfg, tables, chars, jobs, biz, knobs, players,
                   board,
                   stocks, shares, owners, rng, options, scores)
        c = options[i, OPT_ACTION]
        players[p, CHARACTER] = c
        for a in range(N_ATTR):
            players[p, ATTR + a] = chars[c, C_ATTR + a]
        players[p, CASH] = cfg[CFG_START_CASH]
        players[p, JOB], players[p, JOB_B] = NONE, NONE
        record(board, trace, EV_CHARACTER, p, c, 0, 0, players[p, CASH])


@njit(cache=True)
def write_years(players, out_years, game, year):
    """The `years` timeline: one row per seat after the Year End Review."""
    for p in range(players.shape[0]):
        row = out_years[p]
        row[Y_GAME], row[Y_YEAR], row[Y_SEAT] = game, year, p
        row[Y_CASH] = players[p, CASH]
        row[Y_INCOME] = players[p, YEAR_SALARY] + players[p, YEAR_BUSINESS]
        row[Y_BRACKET] = players[p, YEAR_BRACKET]
        row[Y_TAX] = players[p, YEAR_TAX]
        row[Y_SMART] = players[p, YEAR_SMART]
        row[Y_LOANS] = players[p, LOANS]
        row[Y_NOTICES] = players[p, NOTICES]
        row[Y_SALARY] = players[p, YEAR_SALARY]
        row[Y_BUSINESS_INCOME] = players[p, YEAR_BUSINESS]
        row[Y_GROWTH] = players[p, GROWTH]


@njit(cache=True)
def play_game(cfg, tables, chars, jobs, biz, events, kcards, knobs, seed, pol, game, out_game,
              out_players, out_years, trace):
    """One whole game.  out_game int64[N_GAME_OUT]; out_players int64[n_players,
    N_PLAYER_OUT + ledger columns]; out_years int64[years * n_players, N_YEAR_OUT]; pol
    int8[n_players] policy ids.  Returns the number of trace rows written."""
    n = cfg[CFG_PLAYERS]
    players, board, stocks, shares, owners, rng, options, scores = new_state(
        cfg, chars, jobs, biz, events, kcards, seed)
    setup(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks, shares,
          owners, rng, options, scores, pol, trace)
    for year in range(1, cfg[CFG_YEARS] + 1):
        update_new_year(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board,
                        stocks, shares, owners, rng, options, scores, pol, trace, year)
        take_actions(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                     shares, owners, rng, options, scores, pol, trace)
        year_end(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks,
                 shares, owners, rng, options, scores, pol, trace, year)
        write_years(players, out_years[(year - 1) * n:year * n], game, year)
    end_game(cfg, tables, chars, jobs, biz, events, kcards, knobs, players, board, stocks, shares,
             owners, rng, options, scores, pol, trace, out_game, out_players)
    return board[TRACE_N]


@njit(cache=True)
def play_games(cfg, tables, chars, jobs, biz, events, kcards, knobs, seeds, seat_policies,
               out_games, out_players, out_years):
    """Play ``len(seeds)`` games.

    The rules arrays from ``prepare`` (module docstring); seeds uint64[n]; seat_policies
    int8[n, n_players]; outputs: out_games int64[n, N_GAME_OUT], out_players
    int64[n, n_players, N_PLAYER_OUT + ledger columns], out_years
    int64[n * years * n_players, N_YEAR_OUT] (game-major, then year, then seat).
    """
    rows = cfg[CFG_YEARS] * cfg[CFG_PLAYERS]
    no_trace = np.zeros((0, TRACE_WIDTH), dtype=np.int64)
    for g in range(seeds.shape[0]):
        play_game(cfg, tables, chars, jobs, biz, events, kcards, knobs, seeds[g], seat_policies[g],
                  g, out_games[g], out_players[g], out_years[g * rows:(g + 1) * rows], no_trace)
