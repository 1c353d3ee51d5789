"""Ekonos rules (rulebook: shared/rules/ekonos.md), one function per rule, and the game loop.

Every function takes the game (``state`` int64, ``rng`` uint64[N_STREAMS]), the read-only
``rules`` int64 array and ``knobs`` float64[n_policies, 1 + n_knobs] (layouts: state.py),
the ``trace`` int64[max_events, TRACE_WIDTH] (no rows unless a game is being replayed), and
scalars.  Decisions: the engine lists the legal options of a decision in the state's OPTIONS
block and asks ``decide.choose`` for an index, so an illegal move cannot be expressed.

The loop is resumable: the loop position (turn, round, phase) lives in the state, and
:func:`advance` plays from a *step* boundary to the game's end or a horizon.  A step is the
deal at the start of a turn, or one of the three parts of a seat's round (play a card, sell,
buy) with every decision it leads to (an expansion by another seat's company, a successor).
"""

from simulator.core.kernel import accessor, rule
from simulator.core.rng import SETUP, shuffle
from simulator.games.ekonos.board import (
    expand_targets,
    free_spaces,
    list_spaces,
    option,
    place_marker,
    place_targets,
    protect_marker,
    record,
    set_option,
)
from simulator.games.ekonos.decide import choose
from simulator.games.ekonos.state import (
    AT_BUY,
    AT_CARD,
    AT_DEAL,
    AT_END,
    AT_SELL,
    BOUGHT,
    BUY,
    CASH,
    CFG_CARDS,
    CFG_CARDS_PER_TURN,
    CFG_COMPANIES,
    CFG_EXPAND_LARGE,
    CFG_EXPAND_SMALL,
    CFG_GROWTH_LARGE,
    CFG_GROWTH_SMALL,
    CFG_MONEY_PER_TURN,
    CFG_PLAYERS,
    CFG_PRESIDENCY_INDICATOR,
    CFG_TURNS,
    CHOOSE_CARD,
    CHOOSE_SPACE,
    DECK,
    DECK_ORDER,
    DISCARDED,
    EARLY_EXPANSIONS,
    EMPTY_EXPANSIONS,
    EV_BUY,
    EV_DEAL,
    EV_DISCARD,
    EV_EXPAND,
    EV_EXPAND_EMPTY,
    EV_EXPAND_WAIT,
    EV_GROW,
    EV_PLACE,
    EV_PRESIDENT,
    EV_PROTECT,
    EV_SELL,
    EV_TURN,
    EXPAND_NOW,
    EXPANSIONS,
    GROWN,
    GROWTH,
    HANDS,
    INDICATORS_LEFT,
    MAX_COMPANIES,
    MAX_HAND,
    MINE,
    MONEY_RECEIVED,
    NAME_PRESIDENT,
    NAMED,
    NO_SPACE,
    NO_SUPPLY,
    NONE,
    OPT_A,
    OPT_B,
    OPT_C,
    OWNER,
    PHASE,
    PLACE_FUNCTION,
    PLACED,
    PRESIDENT,
    PROCEEDS,
    PROTECTED,
    PROTECTED_PLAYS,
    ROUND,
    ROUNDS,
    SELL,
    SHARES,
    SHARES_OUT,
    SOLD,
    SPENT,
    STARTER,
    SUPPLY,
    TURN,
    WAITS,
)


@accessor
def sell_price(state, c):
    """The Buying and Selling of Shares: a share sells for the number of shares of the company."""
    return state[SHARES_OUT + c]


@accessor
def buy_price(state, c):
    """The Buying and Selling of Shares: a share costs one M.U. more than the number of shares."""
    return state[SHARES_OUT + c] + 1


@accessor
def share_slot(seat, c):
    """Where the shares ``seat`` holds in company c are kept."""
    return SHARES + seat * MAX_COMPANIES + c


@accessor
def hand_slot(seat, slot):
    return HANDS + seat * MAX_HAND + slot


@accessor
def card_company(rules, card, function):
    """The company a card's function acts on (Playing a Card: function 1 places it, 2 and 3
    raise its growth)."""
    return rules[DECK + 3 * card + function]


@rule
def list_card_options(state, rules, seat):
    """Playing a Card: every (card, function) of the hand that can take effect.

    Function 1 needs a free space and an indicator in supply, or an unprotected indicator of
    the company to turn; functions 2 and 3 need a growth indicator below the top level
    (ASSUMED: without a president to expand, growth stops at level 6)."""
    free = free_spaces(state, rules) != 0
    n = 0
    for slot in range(rules[CFG_CARDS_PER_TURN]):
        card = state[hand_slot(seat, slot)]
        if card < 0:
            continue
        for f in range(3):
            c = card_company(rules, card, f)
            if f == PLACE_FUNCTION:
                ok = (free and state[SUPPLY + c] > 0) or state[MINE + c] & ~state[PROTECTED] != 0
            else:
                ok = state[GROWTH + c] < rules[CFG_GROWTH_LARGE]
            if ok:
                set_option(state, n, slot, f, c)
                n += 1
    return n


@rule
def raise_growth(state, rules, knobs, rng, trace, seat, c):
    """Playing a Card, functions 2 and 3: raise c's growth indicator one level.  At level 4 the
    president may expand by 2 now or wait (ASSUMED: only offered when an indicator can be
    placed); at level 6 the president expands by 3.  Without a president the indicator keeps
    climbing to level 6 and stops there (ASSUMED) until the company has a president."""
    state[GROWTH + c] += 1
    level = state[GROWTH + c]
    president = state[PRESIDENT + c]
    record(state, trace, EV_GROW, seat, c, level, 0, 0)
    if president == NONE:
        return
    if level == rules[CFG_GROWTH_SMALL]:
        if state[SUPPLY + c] == 0 or expand_targets(state, rules, c) == 0:
            record(state, trace, EV_EXPAND_WAIT, president, c, level, 1, 0)
            return
        set_option(state, 0, 1, 0, 0)
        set_option(state, 1, 0, 0, 0)
        if choose(state, rules, knobs, rng, trace, EXPAND_NOW, president, c, 2) == 0:
            state[EARLY_EXPANSIONS + president] += 1
            expand(state, rules, knobs, rng, trace, c, rules[CFG_EXPAND_SMALL])
            return
        state[WAITS + president] += 1
        record(state, trace, EV_EXPAND_WAIT, president, c, level, 0, 0)
        return
    if level == rules[CFG_GROWTH_LARGE]:
        expand(state, rules, knobs, rng, trace, c, rules[CFG_EXPAND_LARGE])


@rule
def expand(state, rules, knobs, rng, trace, c, count):
    """Playing a Card (growth): the president places ``count`` indicators of c, each adjacent
    to an indicator of c, replacing unprotected indicators of other companies; the growth
    indicator goes back to zero.  ASSUMED: an expansion at level 6 that can place nothing
    (no indicator in supply, no space to take) still sends the indicator back to zero; it
    counts as an empty expansion, not as an expansion."""
    president = state[PRESIDENT + c]
    placed = 0
    for _ in range(count):
        if state[SUPPLY + c] == 0:
            break
        n = list_spaces(state, expand_targets(state, rules, c))
        if n == 0:
            break
        i = choose(state, rules, knobs, rng, trace, CHOOSE_SPACE, president, c, n)
        space = option(state, i, OPT_A)
        replaced = place_marker(state, rules, space, c)
        record(state, trace, EV_EXPAND, president, c, space, replaced, 0)
        placed += 1
    if placed > 0:
        state[EXPANSIONS + president] += 1
    else:
        state[EMPTY_EXPANSIONS + president] += 1
        why = NO_SUPPLY if state[SUPPLY + c] == 0 else NO_SPACE
        record(state, trace, EV_EXPAND_EMPTY, president, c, why, 0, 0)
    state[GROWTH + c] = 0


@rule
def expand_on_taking_office(state, rules, knobs, rng, trace, c):
    """Playing a Card: "the President may wait for the Growth Indicator to reach level six" and
    then places three.  ASSUMED: a company whose indicator reached level 6 while it had no
    president waits there, and whoever becomes its president places the three at once."""
    if state[PRESIDENT + c] == NONE or state[GROWTH + c] < rules[CFG_GROWTH_LARGE]:
        return
    expand(state, rules, knobs, rng, trace, c, rules[CFG_EXPAND_LARGE])


@rule
def set_president(state, rules, c, seat):
    """Presidency "is shown on the board with a Share Indicator": ASSUMED
    (``shares.presidency_uses_indicator``) one of the president's own share indicators, given
    back when the presidency passes on.  ``seat`` NONE leaves the company without one."""
    old = state[PRESIDENT + c]
    if rules[CFG_PRESIDENCY_INDICATOR]:
        if old != NONE:
            state[INDICATORS_LEFT + old] += 1
        if seat != NONE:
            state[INDICATORS_LEFT + seat] -= 1
    state[PRESIDENT + c] = seat


@rule
def can_show_presidency(state, rules, seat):
    """Presidency: a player can take a presidency only with a share indicator to show it."""
    return rules[CFG_PRESIDENCY_INDICATOR] == 0 or state[INDICATORS_LEFT + seat] > 0


@rule
def buy_makes_president(state, seat, c):
    """Presidency: the first buyer becomes president, and a buyer who then holds more shares
    than the current president takes over (a company without a president counts as held by
    nobody, so its next buyer becomes president)."""
    president = state[PRESIDENT + c]
    return president == NONE or (
        president != seat and state[share_slot(seat, c)] + 1 > state[share_slot(president, c)]
    )


@rule
def indicators_to_buy(state, rules, seat, c):
    """Share indicators a purchase puts on the board: one for the share, plus the presidency's
    when the purchase makes the buyer president (a takeover is immediate, so a buyer without
    the indicator for it cannot make that purchase: ASSUMED)."""
    if rules[CFG_PRESIDENCY_INDICATOR] and buy_makes_president(state, seat, c):
        return 2
    return 1


@rule
def buy_share(state, rules, seat, c):
    """The Buying and Selling of Shares + Presidency: pay the price, take a share (placing a
    share indicator); the first buyer becomes president, and anyone holding more than the
    president takes over."""
    takes_office = buy_makes_president(state, seat, c)
    price = buy_price(state, c)
    state[CASH + seat] -= price
    state[SPENT + seat] += price
    state[BOUGHT + seat] += 1
    state[INDICATORS_LEFT + seat] -= 1
    state[share_slot(seat, c)] += 1
    state[SHARES_OUT + c] += 1
    if takes_office:
        set_president(state, rules, c, seat)
    return price


@rule
def sell_share(state, seat, c):
    """The Buying and Selling of Shares: collect the price from the bank, remove a share."""
    price = sell_price(state, c)
    state[CASH + seat] += price
    state[PROCEEDS + seat] += price
    state[SOLD + seat] += 1
    state[INDICATORS_LEFT + seat] += 1
    state[share_slot(seat, c)] -= 1
    state[SHARES_OUT + c] -= 1
    return price


@rule
def presidency_after_sale(state, rules, knobs, rng, trace, seat, c):
    """Presidency: after the president sells, whoever now holds more takes over; when several
    players tie for the most, the selling president chooses among them.  ASSUMED: a company
    whose shares are all sold has no president, and a player without a share indicator free
    to show the presidency is passed over (until one is free: :func:`claim_presidencies`)."""
    if state[PRESIDENT + c] != seat:
        return state[PRESIDENT + c]
    n_players = rules[CFG_PLAYERS]
    most = 0
    for p in range(n_players):
        held = state[share_slot(p, c)]
        if p != seat and held > most and can_show_presidency(state, rules, p):
            most = held
    if state[share_slot(seat, c)] >= most:
        if state[share_slot(seat, c)] == 0:
            set_president(state, rules, c, NONE)
        return state[PRESIDENT + c]
    n = 0
    for p in range(n_players):
        if p != seat and state[share_slot(p, c)] == most and can_show_presidency(state, rules, p):
            set_option(state, n, p, 0, 0)
            n += 1
    i = 0
    if n > 1:
        i = choose(state, rules, knobs, rng, trace, NAME_PRESIDENT, seat, c, n)
        state[NAMED + seat] += 1
    set_president(state, rules, c, option(state, i, OPT_A))
    return state[PRESIDENT + c]


@rule
def claim_presidencies(state, rules, knobs, rng, trace):
    """Presidency: "should another player acquire more shares than the current president, he /
    she immediately takes over".  A holder of more shares passed over for want of a free share
    indicator (ASSUMED, shares.presidency_uses_indicator) takes over as soon as one is free:
    checked after every sale and purchase, company by company (ASSUMED: in company order, the
    first in seat order among equal claimants) until no holder who can show a presidency holds
    more shares than a president, or any share of a company without one."""
    changed = True
    while changed:
        changed = False
        for c in range(rules[CFG_COMPANIES]):
            president = state[PRESIDENT + c]
            most = 0 if president == NONE else state[share_slot(president, c)]
            claimant = NONE
            for p in range(rules[CFG_PLAYERS]):
                if state[share_slot(p, c)] > most and can_show_presidency(state, rules, p):
                    most, claimant = state[share_slot(p, c)], p
            if claimant != NONE:
                set_president(state, rules, c, claimant)
                record(state, trace, EV_PRESIDENT, claimant, c, president, 0, 1)
                expand_on_taking_office(state, rules, knobs, rng, trace, c)
                changed = True


@rule
def play_card(state, rules, knobs, rng, trace, seat):
    """Round, step 1 — Playing a Card: choose a card and one of its three functions."""
    n = list_card_options(state, rules, seat)
    if n == 0:
        # ASSUMED: a card none of whose functions can act is discarded without effect.
        for slot in range(rules[CFG_CARDS_PER_TURN]):
            card = state[hand_slot(seat, slot)]
            if card >= 0:
                record(state, trace, EV_DISCARD, seat, card, 0, 0, 0)
                state[hand_slot(seat, slot)] = -1
                state[DISCARDED + seat] += 1
                return
        return
    i = choose(state, rules, knobs, rng, trace, CHOOSE_CARD, seat, NONE, n)
    slot, function, c = option(state, i, OPT_A), option(state, i, OPT_B), option(state, i, OPT_C)
    state[hand_slot(seat, slot)] = -1
    if function != PLACE_FUNCTION:
        state[GROWN + seat] += 1
        raise_growth(state, rules, knobs, rng, trace, seat, c)
        return
    n = list_spaces(state, place_targets(state, rules, c))
    i = choose(state, rules, knobs, rng, trace, CHOOSE_SPACE, seat, c, n)
    space = option(state, i, OPT_A)
    if state[OWNER + space] == c:
        protect_marker(state, space)
        state[PROTECTED_PLAYS + seat] += 1
        record(state, trace, EV_PROTECT, seat, c, space, 0, 0)
        return
    place_marker(state, rules, space, c)
    state[PLACED + seat] += 1
    record(state, trace, EV_PLACE, seat, c, space, 0, 0)


@rule
def sell_step(state, rules, knobs, rng, trace, seat):
    """Round, step 2 — Selling a company share, if chosen: any company the seat holds."""
    set_option(state, 0, NONE, 0, 0)
    n = 1
    for c in range(rules[CFG_COMPANIES]):
        if state[share_slot(seat, c)] > 0:
            set_option(state, n, c, 0, 0)
            n += 1
    c = option(state, choose(state, rules, knobs, rng, trace, SELL, seat, NONE, n), OPT_A)
    if c == NONE:
        return
    before = state[CASH + seat]
    price = sell_share(state, seat, c)
    record(state, trace, EV_SELL, seat, c, price, before, state[CASH + seat])
    old = state[PRESIDENT + c]
    new = presidency_after_sale(state, rules, knobs, rng, trace, seat, c)
    if new != old:
        record(state, trace, EV_PRESIDENT, new, c, old, state[SHARES_OUT + c], 0)
    claim_presidencies(state, rules, knobs, rng, trace)  # the seller freed an indicator


@rule
def buy_step(state, rules, knobs, rng, trace, seat):
    """Round, step 3 — Buying a company share, if chosen: the buyer needs the price in cash and
    the share indicators the purchase puts on the board."""
    set_option(state, 0, NONE, 0, 0)
    n = 1
    for c in range(rules[CFG_COMPANIES]):
        if state[CASH + seat] >= buy_price(state, c) and state[
            INDICATORS_LEFT + seat
        ] >= indicators_to_buy(state, rules, seat, c):
            set_option(state, n, c, 0, 0)
            n += 1
    c = option(state, choose(state, rules, knobs, rng, trace, BUY, seat, NONE, n), OPT_A)
    if c == NONE:
        return
    before = state[CASH + seat]
    old = state[PRESIDENT + c]
    price = buy_share(state, rules, seat, c)
    record(state, trace, EV_BUY, seat, c, price, before, state[CASH + seat])
    if state[PRESIDENT + c] == old:
        return
    record(state, trace, EV_PRESIDENT, seat, c, old, 0, 0)
    expand_on_taking_office(state, rules, knobs, rng, trace, c)
    claim_presidencies(state, rules, knobs, rng, trace)  # the old president freed an indicator


@rule
def deal(state, rules, rng, trace):
    """Preparation: at the start of each turn every player gets the turn's cards and M.U.
    ASSUMED: the whole deck is reshuffled for every turn (6 players use all 36 cards), and the
    bank never runs out of M.U. (rules.toml [setup])."""
    n_cards = rules[CFG_CARDS]
    for k in range(n_cards):
        state[DECK_ORDER + k] = k
    shuffle(rng, SETUP, state[DECK_ORDER : DECK_ORDER + n_cards])
    k = 0
    for p in range(rules[CFG_PLAYERS]):
        for slot in range(rules[CFG_CARDS_PER_TURN]):
            state[hand_slot(p, slot)] = state[DECK_ORDER + k]
            k += 1
        state[CASH + p] += rules[CFG_MONEY_PER_TURN]
        state[MONEY_RECEIVED + p] += rules[CFG_MONEY_PER_TURN]
        record(
            state,
            trace,
            EV_DEAL,
            p,
            rules[CFG_MONEY_PER_TURN],
            rules[CFG_CARDS_PER_TURN],
            state[CASH + p],
            0,
        )


@accessor
def round_seat(state, rules):
    """Preparation: the starter plays the first round, then play passes to the left (seat + 1)."""
    return (state[STARTER] + state[ROUND]) % rules[CFG_PLAYERS]


@rule
def end_round(state, rules):
    """Preparation: every player plays one round per card dealt; when no player has cards
    left the next turn begins, its starter the player to the left of this turn's starter."""
    state[ROUND] += 1
    state[ROUNDS] += 1
    state[PHASE] = AT_CARD
    if state[ROUND] < rules[CFG_CARDS_PER_TURN] * rules[CFG_PLAYERS]:
        return
    state[ROUND] = 0
    state[STARTER] = (state[STARTER] + 1) % rules[CFG_PLAYERS]
    state[TURN] += 1
    state[PHASE] = AT_DEAL if state[TURN] < rules[CFG_TURNS] else AT_END


@rule
def play_step(state, rules, knobs, rng, trace):
    """Play one step from the loop position (Preparation; Round: card, sell, buy)."""
    phase = state[PHASE]
    seat = round_seat(state, rules)
    if phase == AT_DEAL:
        record(state, trace, EV_TURN, state[STARTER], 0, 0, 0, 0)
        deal(state, rules, rng, trace)
        state[PHASE] = AT_CARD
    elif phase == AT_CARD:
        play_card(state, rules, knobs, rng, trace, seat)
        state[PHASE] = AT_SELL
    elif phase == AT_SELL:
        sell_step(state, rules, knobs, rng, trace, seat)
        state[PHASE] = AT_BUY
    elif phase == AT_BUY:
        buy_step(state, rules, knobs, rng, trace, seat)
        end_round(state, rules)


@rule
def advance(state, rules, knobs, rng, trace, last_turn):
    """Play from a step boundary until the game ends or turn ``last_turn`` is over."""
    while state[PHASE] != AT_END and state[TURN] <= last_turn:
        play_step(state, rules, knobs, rng, trace)
