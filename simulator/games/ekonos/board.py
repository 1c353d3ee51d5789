"""Ekonos board: market indicators on spaces (Playing a Card), the options of a decision,
and the trace.

The board is kept twice, each for what it does best: ``state[S.OWNER + s]`` answers "whose
marker is on space s", the masks (state.py) answer "which spaces": free, next to a company,
protected.  A decision's options are a mask of option codes too (OFFERED): a random choice
draws an index and takes that item, and nothing is listed.
"""

from simulator.core.bits import bit, count, lowest, nth
from simulator.core.kernel import accessor, inlined
from simulator.games.ekonos import state as S


@accessor
def put_row(trace, at, event, turn, seat, a, b, c, d):
    """Write trace row ``at`` if the trace has it (it has no rows unless a game is replayed)."""
    if at < trace.shape[0]:
        row = trace[at]
        row[0], row[1], row[2], row[3], row[4], row[5], row[6] = event, turn, seat, a, b, c, d


@accessor
def record(state, trace, event, seat, a, b, c, d):
    """Append one trace row of this turn (counted in EVENTS) when tracing."""
    n = state[S.EVENTS]
    if n < trace.shape[0]:
        put_row(trace, n, event, state[S.TURN], seat, a, b, c, d)
        state[S.EVENTS] = n + 1


@accessor
def offer(state, codes):
    """Make the mask ``codes`` the current decision's options (state.py, "option codes");
    returns how many."""
    state[S.OFFERED] = codes
    return count(codes)


@accessor
def offered(state, i):
    """The code of option i of the current decision."""
    return nth(state[S.OFFERED], i)


@accessor
def hand_slot(seat, slot):
    return S.HANDS + seat * S.MAX_HAND + slot


@accessor
def card_company(rules, card, function):
    """The company a card's function acts on (Playing a Card: function 1 places it, 2 and 3
    raise its growth)."""
    return rules[S.DECK + 3 * card + function]


@accessor
def card_play(code):
    """A CHOOSE_CARD option code's (hand slot, function)."""
    slot = code // 3
    return slot, code - 3 * slot


@accessor
def card_codes(seat, c):
    """Where the option codes of ``seat``'s cards acting on company c are kept (CARD_CODES)."""
    return S.CARD_CODES + seat * S.MAX_COMPANIES + c


@inlined
def index_hand(state, rules, seat):
    """File ``seat``'s hand under CARD_CODES, after its cards were dealt into HANDS."""
    state[card_codes(seat, 0) : card_codes(seat, S.MAX_COMPANIES)] = 0
    for slot in range(rules[S.CFG_CARDS_PER_TURN]):
        card = state[hand_slot(seat, slot)]
        if card >= 0:
            for function in range(3):
                state[card_codes(seat, card_company(rules, card, function))] |= bit(
                    3 * slot + function
                )


@inlined
def take_card(state, rules, seat, slot):
    """Take the card in ``seat``'s hand slot out of the hand (played or discarded)."""
    card = state[hand_slot(seat, slot)]
    for function in range(3):
        state[card_codes(seat, card_company(rules, card, function))] &= ~bit(3 * slot + function)
    state[hand_slot(seat, slot)] = -1


@inlined
def card_option(state, rules, seat, code):
    """A CHOOSE_CARD option code of ``seat``: (hand slot, function, company)."""
    slot, function = card_play(code)
    return slot, function, card_company(rules, state[hand_slot(seat, slot)], function)


@accessor
def traded_company(code):
    """A SELL or BUY option code's company, or NONE for no trade."""
    return code - S.TRADED


@accessor
def expands_now(code):
    """Whether an EXPAND_NOW option code is to expand now (not to wait)."""
    return code == S.EXPAND_NOW_CODE


@accessor
def free_spaces(state, rules):
    """Mask of the spaces without a marker."""
    return rules[S.CFG_ALL_SPACES] & ~state[S.OCCUPIED]


@inlined
def next_to(state, rules, c):
    """Mask of the spaces orthogonally next to a marker of company c."""
    near = 0
    mine = state[S.MINE + c]
    while mine:
        near |= rules[S.NEIGHBOURS + lowest(mine)]
        mine &= mine - 1
    return near


@inlined
def place_targets(state, rules, c):
    """Playing a Card, function 1: a free space (if c has an indicator left in supply) or an
    unprotected indicator of c, to turn protected."""
    targets = state[S.MINE + c] & ~state[S.PROTECTED]
    if state[S.SUPPLY + c] > 0:
        targets |= free_spaces(state, rules)
    return targets


@inlined
def expand_targets(state, rules, c):
    """Playing a Card (growth): spaces adjacent to an indicator of c that are free or hold an
    unprotected indicator of another company."""
    return next_to(state, rules, c) & ~state[S.MINE + c] & ~state[S.PROTECTED]


@inlined
def place_marker(state, rules, space, c):
    """Put a market indicator of company c on a space (Playing a Card).  An unprotected
    indicator of another company that growth replaces goes back to its company's supply
    (ASSUMED, ``companies.replaced_markers_return``: the rulebook does not say where it goes),
    or out of the game when that switch is off.  Returns the replaced company or EMPTY."""
    here = bit(space)
    replaced = state[S.OWNER + space]
    if replaced != S.EMPTY:
        state[S.ON_BOARD + replaced] -= 1
        state[S.MINE + replaced] &= ~here
        if rules[S.CFG_REPLACED_RETURN]:
            state[S.SUPPLY + replaced] += 1
    state[S.OWNER + space] = c
    state[S.MINE + c] |= here
    state[S.OCCUPIED] |= here
    state[S.PROTECTED] &= ~here
    state[S.ON_BOARD + c] += 1
    state[S.SUPPLY + c] -= 1
    return replaced


@inlined
def protect_marker(state, space):
    """Playing a Card, function 1: turn a placed indicator over, making it protected."""
    state[S.PROTECTED] |= bit(space)


@accessor
def is_protected(state, space):
    return state[S.PROTECTED] & bit(space) != 0


@accessor
def company_value(state, c):
    """Scoring: a company is worth the number of its market indicators on the board."""
    return state[S.ON_BOARD + c]


@inlined
def score_parts(state, rules, p):
    """Scoring: (cash, holdings, presidencies) points of seat p: the M.U. held, the Σ shares x
    company value, and the presidencies held, each times its [scoring] points (1, 1, 0 as
    printed)."""
    holdings = 0
    presidencies = 0
    for c in range(rules[S.CFG_COMPANIES]):
        holdings += state[S.SHARES + p * S.MAX_COMPANIES + c] * company_value(state, c)
        presidencies += state[S.PRESIDENT + c] == p
    return (
        state[S.CASH + p] * rules[S.CFG_SCORE_MU],
        holdings * rules[S.CFG_SCORE_INDICATOR],
        presidencies * rules[S.CFG_SCORE_PRESIDENCY],
    )


@inlined
def neighbours_of(state, rules, space, c):
    """(markers of c, markers of other companies) next to a space."""
    near = rules[S.NEIGHBOURS + space]
    mine = state[S.MINE + c]
    return count(near & mine), count(near & state[S.OCCUPIED] & ~mine)
