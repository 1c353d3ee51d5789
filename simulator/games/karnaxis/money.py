"""Karnaxis bookkeeping, Loan Odds 'n Ends and Fulfilling Your Karnaxis (rulebook:
shared/rules/karnaxis.md); the state layout is described in :mod:`engine`.

Money: every change of a player's cash goes through :func:`gain` or :func:`spend`, which also
add the amount to one ledger column (L_*), so the final cash is always the start cash plus the
ledger's inflows minus its outflows, and every dollar paid to a player is received by one.
"""

from numba import njit

from simulator.games.karnaxis.state import *  # noqa: F401,F403  (the named slots)


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
    """Whether p holds a franchise of the merged business that includes the firm (ASSUMED:
    the franchise's mother is its owner's merged business as it is now)."""
    owner = firm_owner(cfg, owners, firm_slot)
    if owner == NONE:
        return False
    for f in range(cfg[CFG_FRANCHISE_CARDS]):
        if owners[FR_OWNER, f] == p and owners[FR_MOTHER, f] == owner:
            return True
    return False


@njit(cache=True)
def firm_benefit(cfg, owners, p, firm_slot):
    """Ins 'n Outs of Businesses & Franchises: owners of a level-4 firm and of its franchises
    get its token or discount."""
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
def delinquent(cfg, players, board, trace, p, expense):
    """Loan Odds 'n Ends: a player who would have to borrow past the $200,000 cap takes a
    delinquent payment notice (another when the expense is over $100,000); "the bank will then
    pay the expense for them": the whole expense, so the player's cash is untouched."""
    k = 2 if expense > cfg[CFG_SECOND_NOTICE_OVER] else 1
    players[p, NOTICES] += k
    gain(players, p, expense, L_BAILOUT)
    record(board, trace, EV_NOTICE, p, k, expense, players[p, CASH] - expense, players[p, CASH])


@njit(cache=True)
def pay_required(cfg, chars, players, board, trace, p, amount, column, to_seat):
    """Loan Odds 'n Ends: an expense a player must pay (taxes, events, the Karnaxis payback):
    cash, and loans for what cash lacks; when that would pass the cap, delinquent notices and
    the bank pays it (ASSUMED below the cap too: no loan is taken that would not cover it).
    Cash never goes below zero."""
    if amount <= 0:
        return
    loan = borrow_needed(cfg, players, p, amount)
    if loan > 0:
        take_loan(cfg, chars, players, board, trace, p, loan)
    elif loan < 0:
        delinquent(cfg, players, board, trace, p, amount)
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
                 NONE)
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


# ---------------------------------------------------------------- decisions

@njit(cache=True)
def add_option(options, n, action, a, b, cost):
    if n < options.shape[0]:
        options[n, OPT_ACTION], options[n, OPT_A], options[n, OPT_B], options[n, OPT_COST] = (
            action, a, b, cost)
        return n + 1
    return n
