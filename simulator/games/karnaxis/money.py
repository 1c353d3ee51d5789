"""Karnaxis bookkeeping, Loan Odds 'n Ends and Fulfilling Your Karnaxis (rulebook:
shared/rules/karnaxis.md); the state layout is described in :mod:`state`.

Money: every change of a player's cash goes through :func:`gain` or :func:`spend`, which also
add the amount to one ledger column (L_*), so the final cash is always the start cash plus the
ledger's inflows minus its outflows, and every dollar paid to a player is received by one.
"""

import numpy as np

from simulator.core import trace as traces
from simulator.core.kernel import inlined, rule
from simulator.games.karnaxis import state as S

# ---------------------------------------------------------------- bookkeeping helpers


@rule
def record(state, trace, event, seat, a, b, before, after):
    """Append one trace row [event, year, seat, a, b, before, after] when tracing
    (simulator.core.trace)."""
    traces.record(state, S.TRACE_N, trace, event, state[S.YEAR], seat, a, b, before, after)


@rule
def gain(state, p, amount, column):
    """Cash in, booked to a ledger inflow column."""
    state[S.row(p) + S.CASH] += amount
    state[S.row(p) + column] += amount


@rule
def spend(state, p, amount, column):
    """Cash out, booked to a ledger outflow column."""
    state[S.row(p) + S.CASH] -= amount
    state[S.row(p) + column] += amount


@rule
def holds_job(state, p, j):
    return j >= 0 and (state[S.row(p) + S.JOB] == j or state[S.row(p) + S.JOB_B] == j)


@rule
def job_holder(state, rules, j):
    """The seat holding a job card, or NONE."""
    if j < 0:
        return S.NONE
    for p in range(rules[S.CFG_PLAYERS]):
        if holds_job(state, p, j):
            return p
    return S.NONE


@rule
def ability(state, rules, p, which):
    """A character's ability value when the character has ability ``which``, else 0 (1 for
    valueless abilities)."""
    c = state[S.row(p) + S.CHARACTER]
    if S.character(rules, c, S.C_ABILITY) != which:
        return 0
    v = S.character(rules, c, S.C_ABILITY_VALUE)
    return v if v != 0 else 1


@rule
def firm_owner(state, rules, firm_slot):
    """Seat owning the level-4 firm of rules slot ``firm_slot`` (CFG_FIRM_*), or NONE."""
    b = rules[firm_slot]
    if b < 0:
        return S.NONE
    owner = state[S.owners(rules, S.OWN_BIZ) + b]
    return owner if owner >= 0 else S.NONE


@rule
def has_firm_franchise(state, rules, p, firm_slot):
    """Whether p holds a franchise of the merged business that includes the firm (ASSUMED:
    the franchise's mother is its owner's merged business as it is now)."""
    owner = firm_owner(state, rules, firm_slot)
    if owner == S.NONE:
        return False
    fr_owner, fr_mother = S.owners(rules, S.FR_OWNER), S.owners(rules, S.FR_MOTHER)
    for f in range(rules[S.CFG_FRANCHISE_CARDS]):
        if state[fr_owner + f] == p and state[fr_mother + f] == owner:
            return True
    return False


@rule
def firm_benefit(state, rules, p, firm_slot):
    """Ins 'n Outs of Businesses & Franchises: owners of a level-4 firm and of its franchises
    get its token or discount."""
    return firm_owner(state, rules, firm_slot) == p or has_firm_franchise(
        state, rules, p, firm_slot
    )


# ---------------------------------------------------------------- loans


@rule
def borrow_needed(state, rules, p, cost):
    """Loan Odds 'n Ends: the loan (in whole notes) that lets p pay ``cost``, 0 when cash
    suffices, -1 when it would pass the cap.  "A loan at any time" is taken here, when a
    payment needs it (ASSUMED, loans.unit_usd in rules.toml)."""
    short = cost - state[S.row(p) + S.CASH]
    if short <= 0:
        return 0
    unit = rules[S.CFG_LOAN_UNIT]
    amount = -(-short // unit) * unit
    room = rules[S.CFG_LOAN_CAP] - state[S.row(p) + S.LOANS]
    if amount > room:
        if short <= room:
            return room
        return -1
    return amount


@rule
def take_loan(state, rules, trace, p, amount):
    """Loan Odds 'n Ends: take bank loan notes.  A character whose Karnaxis is forfeited by a
    loan (Zack) owes the $100,000 back once it is fulfilled."""
    r = S.row(p)
    before = state[r + S.CASH]
    state[r + S.LOANS] += amount
    state[r + S.LOANS_COUNT] += 1
    gain(state, p, amount, S.L_LOANS)
    if state[r + S.LOANS] > state[r + S.PEAK_LOANS]:
        state[r + S.PEAK_LOANS] = state[r + S.LOANS]
    record(state, trace, S.EV_LOAN, p, amount, state[r + S.LOANS], before, state[r + S.CASH])
    if (
        S.character(rules, state[r + S.CHARACTER], S.C_FORFEIT) == 1
        and state[r + S.KARNAXIS_DONE] == 1
        and state[r + S.KARNAXIS_REVOKED] == 0
    ):
        state[r + S.FORFEIT_DUE] = 1


@rule
def can_afford(state, rules, p, cost):
    """Whether p can pay ``cost`` with cash and loans to the cap: :func:`borrow_needed` is not
    -1, asked without its division (a listing asks it of every option)."""
    short = cost - state[S.row(p) + S.CASH]
    return short <= 0 or short <= rules[S.CFG_LOAN_CAP] - state[S.row(p) + S.LOANS]


@rule
def pay_by_choice(state, rules, trace, p, cost, column, to_seat):
    """An expense the player chose (an action): borrow what cash lacks, then pay the bank, or
    another seat when ``to_seat`` >= 0.  Options are only listed when affordable."""
    if cost <= 0:
        return
    amount = borrow_needed(state, rules, p, cost)
    if amount > 0:
        take_loan(state, rules, trace, p, amount)
    hand_over(state, p, cost, column, to_seat)


@rule
def hand_over(state, p, amount, column, to_seat):
    """Money leaves seat p: to another seat when ``to_seat`` >= 0, else to the bank, booked
    under ``column`` of the ledger."""
    if to_seat >= 0 and to_seat != p:
        spend(state, p, amount, S.L_TO_PLAYERS)
        gain(state, to_seat, amount, S.L_FROM_PLAYERS)
    else:
        spend(state, p, amount, column)


@rule
def delinquent(state, rules, trace, p, expense):
    """Loan Odds 'n Ends: a player who would have to borrow past the $200,000 cap takes a
    delinquent payment notice (another when the expense is over $100,000); "the bank will then
    pay the expense for them": the whole expense, so the player's cash is untouched."""
    k = 2 if expense > rules[S.CFG_SECOND_NOTICE_OVER] else 1
    state[S.row(p) + S.NOTICES] += k
    gain(state, p, expense, S.L_BAILOUT)
    cash = state[S.row(p) + S.CASH]
    record(state, trace, S.EV_NOTICE, p, k, expense, cash - expense, cash)


@rule
def pay_required(state, rules, trace, p, amount, column, to_seat):
    """Loan Odds 'n Ends: an expense a player must pay (taxes, events, the Karnaxis payback):
    cash, and loans for what cash lacks; when that would pass the cap, delinquent notices and
    the bank pays it (ASSUMED below the cap too: no loan is taken that would not cover it).
    Cash never goes below zero."""
    if amount <= 0:
        return
    loan = borrow_needed(state, rules, p, amount)
    if loan > 0:
        take_loan(state, rules, trace, p, loan)
    elif loan < 0:
        delinquent(state, rules, trace, p, amount)
    hand_over(state, p, amount, column, to_seat)


@rule
def settle_forfeit(state, rules, trace, p):
    """Bits 'n Pieces (Zack): "if he takes out a loan, he must pay $100,000 back" (ASSUMED,
    characters[Zack].forfeit_on_loan: once, for a loan taken after fulfilling, at the end of
    the action or step that took it)."""
    if state[S.row(p) + S.FORFEIT_DUE] == 1:
        pay_back(state, rules, trace, p)


@rule
def pay_back(state, rules, trace, p):
    state[S.row(p) + S.FORFEIT_DUE] = 0
    state[S.row(p) + S.KARNAXIS_REVOKED] = 1
    before = state[S.row(p) + S.CASH]
    pay_required(state, rules, trace, p, rules[S.CFG_KARNAXIS_BONUS], S.L_KARNAXIS_PAYBACK, S.NONE)
    record(
        state,
        trace,
        S.EV_FORFEIT,
        p,
        rules[S.CFG_KARNAXIS_BONUS],
        0,
        before,
        state[S.row(p) + S.CASH],
    )


# ---------------------------------------------------------------- Karnaxis (ambition)


@rule
def total_shares(state, rules, p):
    t = 0
    for s in range(rules[S.CFG_PLAYERS] + 1):
        t += state[S.share(p, s)]
    return t


# Fulfilling Your Karnaxis: the slot of the player board an ambition of each kind (K_*) counts,
# reached when it is at the ambition's value; NONE for the kinds :func:`ambition_met` reads
# otherwise (shares in every business, a job card held, any one attribute)
AMBITION_SLOTS = np.array(
    [
        S.GROWTH,  # K_GROWTH
        S.NONE,  # K_SHARES
        S.N_BUSINESSES,  # K_BUSINESSES
        S.DISTINCT_JOBS,  # K_JOBS: Whitney, 2 different jobs during the game, not at once
        S.NONE,  # K_JOB
        S.COLLEGE,  # K_COLLEGE
        S.RETIRE_TOKENS,  # K_RETIREMENT
        S.CASH,  # K_CASH
        S.L_DIVIDENDS,  # K_DIVIDENDS
        S.BUSINESS_LEVEL,  # K_LEVEL
        S.N_FRANCHISES,  # K_FRANCHISES
        S.NONE,  # K_ATTRIBUTE
        S.INCOME,  # K_INCOME
        S.CARDS_BOUGHT,  # K_CARDS
        S.L_SALARY,  # K_SALARY
    ],
    dtype=np.int64,
)
assert len(AMBITION_SLOTS) == len(S.AMBITIONS)


@rule
def ambition_slot(kind):
    """The slot of AMBITION_SLOTS an ambition of ``kind`` counts (NONE: none, or no kind)."""
    if 0 <= kind < len(AMBITION_SLOTS):
        return AMBITION_SLOTS[kind]
    return S.NONE


@rule
def ambition_met(state, rules, p):
    """Fulfilling Your Karnaxis: whether p's character ambition is met now (kinds in state.py;
    all but Wes's, Whitney's and Zack's are ASSUMED)."""
    r = S.row(p)
    c = state[r + S.CHARACTER]
    kind, v = S.character(rules, c, S.C_KARNAXIS), S.character(rules, c, S.C_KARNAXIS_VALUE)
    slot = ambition_slot(kind)
    if slot != S.NONE:
        return state[r + slot] >= v
    if kind == S.K_SHARES:
        return total_shares(state, rules, p) >= v
    if kind == S.K_JOB:
        return holds_job(state, p, S.character(rules, c, S.C_KARNAXIS_JOB))
    if kind == S.K_ATTRIBUTE:
        for a in range(S.N_ATTR):
            if state[r + S.ATTR + a] >= v:
                return True
    return False


@inlined
def check_karnaxis(state, rules, trace, p):
    """Fulfilling Your Karnaxis: on fulfilment the player immediately receives $100,000.  Every
    seat is checked after each action and trade: the slot and count of its ambition are read
    from the rules once a game (:func:`read_ambition`), so most checks compare one slot of the
    board, inlined where they are made."""
    r = S.row(p)
    if state[r + S.KARNAXIS_DONE] == 1:
        return
    if state[r + S.AMBITION_FOR] != state[r + S.CHARACTER] + 1:
        read_ambition(state, rules, p)
    slot = state[r + S.AMBITION_SLOT]
    if slot != S.NONE:
        if state[r + slot] >= state[r + S.AMBITION_AT]:
            fulfil_karnaxis(state, rules, trace, p)
    elif ambition_met(state, rules, p):
        fulfil_karnaxis(state, rules, trace, p)


@rule
def read_ambition(state, rules, p):
    """AMBITION_SLOT and AMBITION_AT of p's board: the slot and count of its character's
    ambition (:data:`AMBITION_SLOTS`), for the character AMBITION_FOR - 1."""
    r = S.row(p)
    c = state[r + S.CHARACTER]
    state[r + S.AMBITION_FOR] = c + 1
    state[r + S.AMBITION_SLOT] = ambition_slot(S.character(rules, c, S.C_KARNAXIS))
    state[r + S.AMBITION_AT] = S.character(rules, c, S.C_KARNAXIS_VALUE)


@rule
def fulfil_karnaxis(state, rules, trace, p):
    r = S.row(p)
    before = state[r + S.CASH]
    state[r + S.KARNAXIS_DONE] = 1
    state[r + S.KARNAXIS_YEAR] = state[S.YEAR]
    gain(state, p, rules[S.CFG_KARNAXIS_BONUS], S.L_KARNAXIS)
    record(state, trace, S.EV_KARNAXIS, p, state[r + S.CHARACTER], 0, before, state[r + S.CASH])


@rule
def check_all_karnaxis(state, rules, trace):
    for p in range(rules[S.CFG_PLAYERS]):
        check_karnaxis(state, rules, trace, p)


# ---------------------------------------------------------------- decisions


@rule
def add_option(state, n, action, a, b, cost):
    """Append option row n [action, a, b, cost]; returns the new count (the list holds at most
    MAX_OPTIONS rows)."""
    if n < S.MAX_OPTIONS:
        at = S.OPTIONS + n * S.OPT_WIDTH
        (
            state[at + S.OPT_ACTION],
            state[at + S.OPT_A],
            state[at + S.OPT_B],
            state[at + S.OPT_COST],
        ) = (
            action,
            a,
            b,
            cost,
        )
        return n + 1
    return n
