"""Ekonos rules (rulebook: shared/rules/ekonos.md), one function per rule, and the game loop.

Every function takes the game (``state`` int64, ``rng`` uint64[N_STREAMS]), the read-only
``rules`` int64 array and ``knobs`` float64[n_policies, 1 + n_knobs] (layouts: state.py),
the ``trace`` int64[max_events, TRACE_WIDTH] (no rows unless a game is being replayed), and
scalars.  Decisions: the engine offers the legal options of a decision as a mask of option
codes (board.offer) and asks ``decide.choose`` for an index, so an illegal move cannot be
expressed.

The loop is resumable: the loop position (turn, round, phase) lives in the state, and
:func:`advance` plays from a *step* boundary to the game's end or a horizon.  A step is the
deal at the start of a turn, or one of the three parts of a seat's round (play a card, sell,
buy) with every decision it leads to (an expansion by another seat's company, a successor).
"""

from simulator.core.bits import bit
from simulator.core.kernel import accessor, inlined, rule
from simulator.core.rng import SETUP, shuffle
from simulator.games.ekonos import board, decide
from simulator.games.ekonos import state as S


@accessor
def sell_price(state, c):
    """The Buying and Selling of Shares: a share sells for the number of shares of the company."""
    return state[S.SHARES_OUT + c]


@accessor
def buy_price(state, c):
    """The Buying and Selling of Shares: a share costs one M.U. more than the number of shares."""
    return state[S.SHARES_OUT + c] + 1


@accessor
def share_slot(seat, c):
    """Where the shares ``seat`` holds in company c are kept."""
    return S.SHARES + seat * S.MAX_COMPANIES + c


@inlined
def card_options(state, rules, seat):
    """Playing a Card: every (card, function) of the hand that can take effect, as a mask of
    option codes (3 x hand slot + function).

    Function 1 needs a free space and an indicator in supply, or an unprotected indicator of
    the company to turn; functions 2 and 3 need a growth indicator below the top level
    (ASSUMED: without a president to expand, growth stops at level 6)."""
    free = board.free_spaces(state, rules) != 0
    codes = 0
    for c in range(rules[S.CFG_COMPANIES]):
        held = state[board.card_codes(seat, c)]
        if (free and state[S.SUPPLY + c] > 0) or state[S.MINE + c] & ~state[S.PROTECTED] != 0:
            codes |= held & S.PLACE_CODES
        if state[S.GROWTH + c] < rules[S.CFG_GROWTH_LARGE]:
            codes |= held & S.GROW_CODES
    return codes


@inlined
def raise_growth(state, rules, knobs, rng, trace, seat, c):
    """Playing a Card, functions 2 and 3: raise c's growth indicator one level.  At level 4 the
    president may expand by 2 now or wait (ASSUMED: only offered when an indicator can be
    placed); at level 6 the president expands by 3.  Without a president the indicator keeps
    climbing to level 6 and stops there (ASSUMED) until the company has a president."""
    state[S.GROWTH + c] += 1
    level = state[S.GROWTH + c]
    president = state[S.PRESIDENT + c]
    board.record(state, trace, S.EV_GROW, seat, c, level, 0, 0)
    if president == S.NONE:
        return
    if level == rules[S.CFG_GROWTH_SMALL]:
        if state[S.SUPPLY + c] == 0 or board.expand_targets(state, rules, c) == 0:
            board.record(state, trace, S.EV_EXPAND_WAIT, president, c, level, 1, 0)
            return
        n = board.offer(state, bit(S.EXPAND_NOW_CODE) | bit(S.WAIT_CODE))
        i = decide.choose(state, rules, knobs, rng, trace, S.EXPAND_NOW, president, c, n)
        if board.expands_now(board.offered(state, i)):
            state[S.EARLY_EXPANSIONS + president] += 1
            expand(state, rules, knobs, rng, trace, c, rules[S.CFG_EXPAND_SMALL])
            return
        state[S.WAITS + president] += 1
        board.record(state, trace, S.EV_EXPAND_WAIT, president, c, level, 0, 0)
        return
    if level == rules[S.CFG_GROWTH_LARGE]:
        expand(state, rules, knobs, rng, trace, c, rules[S.CFG_EXPAND_LARGE])


@inlined
def expand(state, rules, knobs, rng, trace, c, count):
    """Playing a Card (growth): the president places ``count`` indicators of c, each adjacent
    to an indicator of c, replacing unprotected indicators of other companies; the growth
    indicator goes back to zero.  ASSUMED: an expansion at level 6 that can place nothing
    (no indicator in supply, no space to take) still sends the indicator back to zero; it
    counts as an empty expansion, not as an expansion."""
    president = state[S.PRESIDENT + c]
    placed = 0
    for _ in range(count):
        if state[S.SUPPLY + c] == 0:
            break
        n = board.offer(state, board.expand_targets(state, rules, c))
        if n == 0:
            break
        i = decide.choose(state, rules, knobs, rng, trace, S.CHOOSE_SPACE, president, c, n)
        space = board.offered(state, i)
        replaced = board.place_marker(state, rules, space, c)
        board.record(state, trace, S.EV_EXPAND, president, c, space, replaced, 0)
        placed += 1
    if placed > 0:
        state[S.EXPANSIONS + president] += 1
    else:
        state[S.EMPTY_EXPANSIONS + president] += 1
        why = S.NO_SUPPLY if state[S.SUPPLY + c] == 0 else S.NO_SPACE
        board.record(state, trace, S.EV_EXPAND_EMPTY, president, c, why, 0, 0)
    state[S.GROWTH + c] = 0


@inlined
def expand_on_taking_office(state, rules, knobs, rng, trace, c):
    """Playing a Card: "the President may wait for the Growth Indicator to reach level six" and
    then places three.  ASSUMED: a company whose indicator reached level 6 while it had no
    president waits there, and whoever becomes its president places the three at once."""
    if state[S.PRESIDENT + c] == S.NONE or state[S.GROWTH + c] < rules[S.CFG_GROWTH_LARGE]:
        return
    expand(state, rules, knobs, rng, trace, c, rules[S.CFG_EXPAND_LARGE])


@inlined
def set_president(state, rules, c, seat):
    """Presidency "is shown on the board with a Share Indicator": ASSUMED
    (``shares.presidency_uses_indicator``) one of the president's own share indicators, given
    back when the presidency passes on.  ``seat`` NONE leaves the company without one."""
    old = state[S.PRESIDENT + c]
    if rules[S.CFG_PRESIDENCY_INDICATOR]:
        if old != S.NONE:
            state[S.INDICATORS_LEFT + old] += 1
        if seat != S.NONE:
            state[S.INDICATORS_LEFT + seat] -= 1
    state[S.PRESIDENT + c] = seat


@inlined
def can_show_presidency(state, rules, seat):
    """Presidency: a player can take a presidency only with a share indicator to show it."""
    return rules[S.CFG_PRESIDENCY_INDICATOR] == 0 or state[S.INDICATORS_LEFT + seat] > 0


@inlined
def buy_makes_president(state, seat, c):
    """Presidency: the first buyer becomes president, and a buyer who then holds more shares
    than the current president takes over (a company without a president counts as held by
    nobody, so its next buyer becomes president)."""
    president = state[S.PRESIDENT + c]
    return president == S.NONE or (
        president != seat and state[share_slot(seat, c)] + 1 > state[share_slot(president, c)]
    )


@inlined
def indicators_to_buy(state, rules, seat, c):
    """Share indicators a purchase puts on the board: one for the share, plus the presidency's
    when the purchase makes the buyer president (a takeover is immediate, so a buyer without
    the indicator for it cannot make that purchase: ASSUMED)."""
    if rules[S.CFG_PRESIDENCY_INDICATOR] and buy_makes_president(state, seat, c):
        return 2
    return 1


@inlined
def buy_share(state, rules, seat, c):
    """The Buying and Selling of Shares + Presidency: pay the price, take a share (placing a
    share indicator); the first buyer becomes president, and anyone holding more than the
    president takes over."""
    takes_office = buy_makes_president(state, seat, c)
    price = buy_price(state, c)
    state[S.CASH + seat] -= price
    state[S.SPENT + seat] += price
    state[S.BOUGHT + seat] += 1
    state[S.INDICATORS_LEFT + seat] -= 1
    state[share_slot(seat, c)] += 1
    state[S.SHARES_OUT + c] += 1
    if takes_office:
        set_president(state, rules, c, seat)
    return price


@inlined
def sell_share(state, seat, c):
    """The Buying and Selling of Shares: collect the price from the bank, remove a share."""
    price = sell_price(state, c)
    state[S.CASH + seat] += price
    state[S.PROCEEDS + seat] += price
    state[S.SOLD + seat] += 1
    state[S.INDICATORS_LEFT + seat] += 1
    state[share_slot(seat, c)] -= 1
    state[S.SHARES_OUT + c] -= 1
    return price


@inlined
def presidency_after_sale(state, rules, knobs, rng, trace, seat, c):
    """Presidency: after the president sells, whoever now holds more takes over; when several
    players tie for the most, the selling president chooses among them.  ASSUMED: a company
    whose shares are all sold has no president, and a player without a share indicator free
    to show the presidency is passed over (until one is free: :func:`claim_presidencies`)."""
    if state[S.PRESIDENT + c] != seat:
        return state[S.PRESIDENT + c]
    n_players = rules[S.CFG_PLAYERS]
    most = 0
    for p in range(n_players):
        held = state[share_slot(p, c)]
        if p != seat and held > most and can_show_presidency(state, rules, p):
            most = held
    if state[share_slot(seat, c)] >= most:
        if state[share_slot(seat, c)] == 0:
            set_president(state, rules, c, S.NONE)
        return state[S.PRESIDENT + c]
    tied = 0
    for p in range(n_players):
        if p != seat and state[share_slot(p, c)] == most and can_show_presidency(state, rules, p):
            tied |= bit(p)
    n = board.offer(state, tied)
    i = 0
    if n > 1:
        i = decide.choose(state, rules, knobs, rng, trace, S.NAME_PRESIDENT, seat, c, n)
        state[S.NAMED + seat] += 1
    set_president(state, rules, c, board.offered(state, i))
    return state[S.PRESIDENT + c]


@inlined
def claim_presidencies(state, rules, knobs, rng, trace):
    """Presidency: "should another player acquire more shares than the current president, he /
    she immediately takes over".  A holder of more shares passed over for want of a free share
    indicator (ASSUMED, shares.presidency_uses_indicator) takes over as soon as one is free:
    checked company by company (ASSUMED: in company order, the first in seat order among equal
    claimants) until no holder who can show a presidency holds more shares than a president,
    or any share of a company without one.  Only a seat that had no indicator left can have
    been passed over, so the rules check this when such a seat gets one back (its sale, a
    presidency passing on from it): :func:`indicator_regained`."""
    changed = True
    while changed:
        changed = False
        for c in range(rules[S.CFG_COMPANIES]):
            president = state[S.PRESIDENT + c]
            most = 0 if president == S.NONE else state[share_slot(president, c)]
            claimant = S.NONE
            for p in range(rules[S.CFG_PLAYERS]):
                if state[share_slot(p, c)] > most and can_show_presidency(state, rules, p):
                    most, claimant = state[share_slot(p, c)], p
            if claimant != S.NONE:
                set_president(state, rules, c, claimant)
                board.record(state, trace, S.EV_PRESIDENT, claimant, c, president, 0, 1)
                expand_on_taking_office(state, rules, knobs, rng, trace, c)
                changed = True


@accessor
def indicator_regained(state, seat):
    """Whether ``seat`` has just got back its only free share indicator, having had none."""
    return seat != S.NONE and state[S.INDICATORS_LEFT + seat] == 1


@inlined
def play_card(state, rules, knobs, rng, trace, seat):
    """Round, step 1 — Playing a Card: choose a card and one of its three functions."""
    n = board.offer(state, card_options(state, rules, seat))
    if n == 0:
        # ASSUMED: a card none of whose functions can act is discarded without effect.
        for slot in range(rules[S.CFG_CARDS_PER_TURN]):
            card = state[board.hand_slot(seat, slot)]
            if card >= 0:
                board.record(state, trace, S.EV_DISCARD, seat, card, 0, 0, 0)
                board.take_card(state, rules, seat, slot)
                state[S.DISCARDED + seat] += 1
                return
        return
    i = decide.choose(state, rules, knobs, rng, trace, S.CHOOSE_CARD, seat, S.NONE, n)
    slot, function, c = board.card_option(state, rules, seat, board.offered(state, i))
    board.take_card(state, rules, seat, slot)
    if function != S.PLACE_FUNCTION:
        state[S.GROWN + seat] += 1
        raise_growth(state, rules, knobs, rng, trace, seat, c)
        return
    n = board.offer(state, board.place_targets(state, rules, c))
    i = decide.choose(state, rules, knobs, rng, trace, S.CHOOSE_SPACE, seat, c, n)
    space = board.offered(state, i)
    if state[S.OWNER + space] == c:
        board.protect_marker(state, space)
        state[S.PROTECTED_PLAYS + seat] += 1
        board.record(state, trace, S.EV_PROTECT, seat, c, space, 0, 0)
        return
    board.place_marker(state, rules, space, c)
    state[S.PLACED + seat] += 1
    board.record(state, trace, S.EV_PLACE, seat, c, space, 0, 0)


@inlined
def sell_step(state, rules, knobs, rng, trace, seat):
    """Round, step 2 — Selling a company share, if chosen: any company the seat holds."""
    codes = bit(S.NO_TRADE)
    for c in range(rules[S.CFG_COMPANIES]):
        if state[share_slot(seat, c)] > 0:
            codes |= bit(S.TRADED + c)
    n = board.offer(state, codes)
    i = decide.choose(state, rules, knobs, rng, trace, S.SELL, seat, S.NONE, n)
    c = board.traded_company(board.offered(state, i))
    if c == S.NONE:
        return
    before = state[S.CASH + seat]
    price = sell_share(state, seat, c)
    regained = indicator_regained(state, seat)
    board.record(state, trace, S.EV_SELL, seat, c, price, before, state[S.CASH + seat])
    old = state[S.PRESIDENT + c]
    new = presidency_after_sale(state, rules, knobs, rng, trace, seat, c)
    if new != old:
        board.record(state, trace, S.EV_PRESIDENT, new, c, old, state[S.SHARES_OUT + c], 0)
    if regained:  # the seller had no indicator left: a presidency it was passed over for
        claim_presidencies(state, rules, knobs, rng, trace)


@inlined
def buy_step(state, rules, knobs, rng, trace, seat):
    """Round, step 3 — Buying a company share, if chosen: the buyer needs the price in cash and
    the share indicators the purchase puts on the board."""
    codes = bit(S.NO_TRADE)
    free = state[S.INDICATORS_LEFT + seat]  # two are enough for any purchase
    for c in range(rules[S.CFG_COMPANIES]):
        if state[S.CASH + seat] >= buy_price(state, c) and (
            free >= 2 or free >= indicators_to_buy(state, rules, seat, c)
        ):
            codes |= bit(S.TRADED + c)
    n = board.offer(state, codes)
    i = decide.choose(state, rules, knobs, rng, trace, S.BUY, seat, S.NONE, n)
    c = board.traded_company(board.offered(state, i))
    if c == S.NONE:
        return
    before = state[S.CASH + seat]
    old = state[S.PRESIDENT + c]
    price = buy_share(state, rules, seat, c)
    board.record(state, trace, S.EV_BUY, seat, c, price, before, state[S.CASH + seat])
    if state[S.PRESIDENT + c] == old:
        return
    board.record(state, trace, S.EV_PRESIDENT, seat, c, old, 0, 0)
    expand_on_taking_office(state, rules, knobs, rng, trace, c)
    if indicator_regained(state, old):  # the old president, if it was out, can show one again
        claim_presidencies(state, rules, knobs, rng, trace)


@inlined
def deal(state, rules, rng, trace):
    """Preparation: at the start of each turn every player gets the turn's cards and M.U.
    ASSUMED: the whole deck is reshuffled for every turn (6 players use all 36 cards), and the
    bank never runs out of M.U. (rules.toml [setup])."""
    n_cards = rules[S.CFG_CARDS]
    for k in range(n_cards):
        state[S.DECK_ORDER + k] = k
    shuffle(rng, SETUP, state[S.DECK_ORDER : S.DECK_ORDER + n_cards])
    k = 0
    for p in range(rules[S.CFG_PLAYERS]):
        for slot in range(rules[S.CFG_CARDS_PER_TURN]):
            state[board.hand_slot(p, slot)] = state[S.DECK_ORDER + k]
            k += 1
        board.index_hand(state, rules, p)
        state[S.CASH + p] += rules[S.CFG_MONEY_PER_TURN]
        state[S.MONEY_RECEIVED + p] += rules[S.CFG_MONEY_PER_TURN]
        board.record(
            state,
            trace,
            S.EV_DEAL,
            p,
            rules[S.CFG_MONEY_PER_TURN],
            rules[S.CFG_CARDS_PER_TURN],
            state[S.CASH + p],
            0,
        )


@accessor
def round_seat(state):
    """The seat whose round it is (end_round)."""
    return state[S.SEAT]


@inlined
def end_round(state, rules):
    """Preparation: every player plays one round per card dealt, the starter first, then play
    passes to the left (seat + 1); when no player has cards left the next turn begins, its
    starter the player to the left of this turn's starter."""
    state[S.ROUND] += 1
    state[S.ROUNDS] += 1
    state[S.PHASE] = S.AT_CARD
    left = state[S.SEAT] + 1
    state[S.SEAT] = left if left < rules[S.CFG_PLAYERS] else 0
    if state[S.ROUND] < rules[S.CFG_CARDS_PER_TURN] * rules[S.CFG_PLAYERS]:
        return
    state[S.ROUND] = 0
    state[S.STARTER] = (state[S.STARTER] + 1) % rules[S.CFG_PLAYERS]
    state[S.SEAT] = state[S.STARTER]
    state[S.TURN] += 1
    state[S.PHASE] = S.AT_DEAL if state[S.TURN] < rules[S.CFG_TURNS] else S.AT_END


@inlined
def play_step(state, rules, knobs, rng, trace):
    """Play one step from the loop position (Preparation; Round: card, sell, buy)."""
    phase = state[S.PHASE]
    seat = round_seat(state)
    if phase == S.AT_DEAL:
        board.record(state, trace, S.EV_TURN, state[S.STARTER], 0, 0, 0, 0)
        deal(state, rules, rng, trace)
        state[S.PHASE] = S.AT_CARD
    elif phase == S.AT_CARD:
        play_card(state, rules, knobs, rng, trace, seat)
        state[S.PHASE] = S.AT_SELL
    elif phase == S.AT_SELL:
        sell_step(state, rules, knobs, rng, trace, seat)
        state[S.PHASE] = S.AT_BUY
    elif phase == S.AT_BUY:
        buy_step(state, rules, knobs, rng, trace, seat)
        end_round(state, rules)


@rule
def advance(state, rules, knobs, rng, trace, last_turn):
    """Play from a step boundary until the game ends or turn ``last_turn`` is over."""
    while state[S.PHASE] != S.AT_END and state[S.TURN] <= last_turn:
        play_step(state, rules, knobs, rng, trace)
