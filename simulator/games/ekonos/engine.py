"""Ekonos engine: numba kernels over plain int64 arrays (rulebook: shared/rules/ekonos.md).

State pattern (shared by every balsim engine): a game's state is a handful of int64 arrays
whose slots have names — module constants — never bare numbers:

* ``cfg``       int64[N_CFG]                 rules numbers for this player count (CFG_*)
* ``players``   int64[n_players, N_PLAYER]   per-seat counters (CASH, BOUGHT, ...)
* ``companies`` int64[n_companies, N_COMPANY] (GROWTH, PRESIDENT, ON_BOARD, SUPPLY, SHARES_OUT)
* ``shares``    int64[n_players, n_companies] shares held
* ``board``     int64[n_spaces, N_SPACE]     OWNER (-1 empty, else company), PROTECTED (0/1)
* ``hands``     int64[n_players, max_hand]   card ids, -1 for an empty slot
* ``rng``       uint64[N_STREAMS]            the game's random streams (simulator.rng)

Decisions: the engine lists the legal options of a decision in ``options`` (int64[MAX, 3]) and
asks the deciding seat's policy (``policies.ekonos.choose``) for an index; an illegal move
cannot be expressed.  Every step can append to ``trace`` (int64[max_events, TRACE_WIDTH]) for
``balsim replay``; bulk runs pass a trace with zero rows.
"""

import numpy as np
from numba import njit

from policies.ekonos import choose
from simulator.games.ekonos.state import *  # noqa: F401,F403  (the named slots)
from simulator.rng import SETUP, rng_new, shuffle


@njit(cache=True, inline="always")
def record(trace, n_events, event, turn, seat, a, b, c, d):
    """Append one trace row when tracing; returns the new event count."""
    if n_events < trace.shape[0]:
        row = trace[n_events]
        row[0], row[1], row[2], row[3], row[4], row[5], row[6] = event, turn, seat, a, b, c, d
        return n_events + 1
    return n_events


@njit(cache=True, inline="always")
def sell_price(companies, c):
    """The Buying and Selling of Shares: a share sells for the number of shares of the company."""
    return companies[c, SHARES_OUT]


@njit(cache=True, inline="always")
def buy_price(companies, c):
    """The Buying and Selling of Shares: a share costs one M.U. more than the number of shares."""
    return companies[c, SHARES_OUT] + 1


@njit(cache=True, inline="always")
def company_value(companies, c):
    """Scoring: a company is worth the number of its market indicators on the board."""
    return companies[c, ON_BOARD]


@njit(cache=True, inline="always")
def place_marker(cfg, board, companies, space, c):
    """Put a market indicator of company c on a space (Playing a Card).  An unprotected
    indicator of another company that growth replaces goes back to its company's supply
    (ASSUMED, ``companies.replaced_markers_return``: the rulebook does not say where it goes),
    or out of the game when that switch is off.  Returns the replaced company or EMPTY."""
    replaced = board[space, OWNER]
    if replaced != EMPTY:
        companies[replaced, ON_BOARD] -= 1
        if cfg[CFG_REPLACED_RETURN]:
            companies[replaced, SUPPLY] += 1
    board[space, OWNER] = c
    board[space, PROTECTED] = 0
    companies[c, ON_BOARD] += 1
    companies[c, SUPPLY] -= 1
    return replaced


@njit(cache=True, inline="always")
def protect_marker(board, companies, space):
    """Playing a Card, function 1: turn a placed indicator over, making it protected."""
    board[space, PROTECTED] = 1
    companies[board[space, OWNER], PROTECTED_ON_BOARD] += 1


@njit(cache=True, inline="always")
def list_card_options(cfg, deck, hand, companies, board, options):
    """Playing a Card: every (card, function) of the hand that can take effect.

    Function 1 needs a free space and an indicator in supply, or an unprotected indicator of
    the company to turn; functions 2 and 3 need a growth indicator below the top level
    (ASSUMED: without a president to expand, growth stops at level 6)."""
    free = board.shape[0] - companies[:, ON_BOARD].sum()
    n = 0
    for slot in range(hand.shape[0]):
        card = hand[slot]
        if card < 0:
            continue
        for f in range(3):
            c = deck[card, f]
            if f == PLACE_FUNCTION:
                ok = ((free > 0 and companies[c, SUPPLY] > 0)
                      or companies[c, ON_BOARD] > companies[c, PROTECTED_ON_BOARD])
            else:
                ok = companies[c, GROWTH] < cfg[CFG_GROWTH_LARGE]
            if ok:
                options[n, OPT_A], options[n, OPT_B], options[n, OPT_C] = slot, f, c
                n += 1
    return n


@njit(cache=True, inline="always")
def list_place_options(board, companies, c, options):
    """Function 1 targets: a free space (if c has an indicator left) or an unprotected
    indicator of c to turn protected."""
    n = 0
    for s in range(board.shape[0]):
        owner = board[s, OWNER]
        if (owner == EMPTY and companies[c, SUPPLY] > 0) or (owner == c and board[s, PROTECTED] == 0):
            options[n, OPT_A], options[n, OPT_B], options[n, OPT_C] = s, owner, 0
            n += 1
    return n


@njit(cache=True, inline="always")
def list_expand_options(board, adjacency, c, options):
    """Growth targets: spaces adjacent to an indicator of c that are free or hold an
    unprotected indicator of another company."""
    n = 0
    for s in range(board.shape[0]):
        owner = board[s, OWNER]
        if owner == c or (owner != EMPTY and board[s, PROTECTED] == 1):
            continue
        for k in range(adjacency.shape[1]):
            t = adjacency[s, k]
            if t >= 0 and board[t, OWNER] == c:
                options[n, OPT_A], options[n, OPT_B], options[n, OPT_C] = s, owner, 0
                n += 1
                break
    return n


@njit(cache=True)
def raise_growth(cfg, board, adjacency, companies, shares, players, seat, c, knobs, policy_ids,
                 rng, options, turn, trace, n_events, last_turn):
    """Playing a Card, functions 2 and 3: raise c's growth indicator one level.  At level 4 the
    president may expand by 2 now or wait (ASSUMED: only offered when an indicator can be
    placed); at level 6 the president expands by 3.  Without a president the indicator keeps
    climbing to level 6 and stops there (ASSUMED) until the company has a president."""
    companies[c, GROWTH] += 1
    level = companies[c, GROWTH]
    president = companies[c, PRESIDENT]
    n_events = record(trace, n_events, EV_GROW, turn, seat, c, level, 0, 0)
    if president == NONE:
        return n_events
    if level == cfg[CFG_GROWTH_SMALL]:
        if companies[c, SUPPLY] == 0 or list_expand_options(board, adjacency, c, options) == 0:
            return record(trace, n_events, EV_EXPAND_WAIT, turn, president, c, level, 1, 0)
        options[0, OPT_A], options[1, OPT_A] = 1, 0
        if choose(EXPAND_NOW, president, c, options, 2, policy_ids[president], knobs, cfg,
                  players, companies, shares, board, adjacency, last_turn, rng) == 0:
            return expand(cfg, board, adjacency, companies, shares, players, c,
                          cfg[CFG_EXPAND_SMALL], knobs, policy_ids, rng, options, turn, trace,
                          n_events, last_turn)
        return record(trace, n_events, EV_EXPAND_WAIT, turn, president, c, level, 0, 0)
    if level == cfg[CFG_GROWTH_LARGE]:
        return expand(cfg, board, adjacency, companies, shares, players, c,
                      cfg[CFG_EXPAND_LARGE], knobs, policy_ids, rng, options, turn, trace,
                      n_events, last_turn)
    return n_events


@njit(cache=True)
def expand(cfg, board, adjacency, companies, shares, players, c, count, knobs, policy_ids,
           rng, options, turn, trace, n_events, last_turn):
    """Playing a Card (growth): the president places ``count`` indicators of c, each adjacent
    to an indicator of c, replacing unprotected indicators of other companies; the growth
    indicator goes back to zero.  ASSUMED: an expansion at level 6 that can place nothing
    (no indicator in supply, no space to take) still sends the indicator back to zero; it
    counts as an empty expansion, not as an expansion."""
    president = companies[c, PRESIDENT]
    placed = 0
    for _ in range(count):
        if companies[c, SUPPLY] == 0:
            break
        n = list_expand_options(board, adjacency, c, options)
        if n == 0:
            break
        i = choose(CHOOSE_SPACE, president, c, options, n, policy_ids[president], knobs, cfg,
                   players, companies, shares, board, adjacency, last_turn, rng)
        space = options[i, OPT_A]
        replaced = place_marker(cfg, board, companies, space, c)
        n_events = record(trace, n_events, EV_EXPAND, turn, president, c, space, replaced, 0)
        placed += 1
    if placed > 0:
        players[president, EXPANSIONS] += 1
    else:
        players[president, EMPTY_EXPANSIONS] += 1
        why = NO_SUPPLY if companies[c, SUPPLY] == 0 else NO_SPACE
        n_events = record(trace, n_events, EV_EXPAND_EMPTY, turn, president, c, why, 0, 0)
    companies[c, GROWTH] = 0
    return n_events


@njit(cache=True)
def expand_on_taking_office(cfg, board, adjacency, companies, shares, players, c, knobs,
                            policy_ids, rng, options, turn, trace, n_events, last_turn):
    """Playing a Card: "the President may wait for the Growth Indicator to reach level six" and
    then places three.  ASSUMED: a company whose indicator reached level 6 while it had no
    president waits there, and whoever becomes its president places the three at once."""
    if companies[c, PRESIDENT] == NONE or companies[c, GROWTH] < cfg[CFG_GROWTH_LARGE]:
        return n_events
    return expand(cfg, board, adjacency, companies, shares, players, c, cfg[CFG_EXPAND_LARGE],
                  knobs, policy_ids, rng, options, turn, trace, n_events, last_turn)


@njit(cache=True, inline="always")
def set_president(cfg, players, companies, c, seat):
    """Presidency "is shown on the board with a Share Indicator": ASSUMED
    (``shares.presidency_uses_indicator``) one of the president's own share indicators, given
    back when the presidency passes on.  ``seat`` NONE leaves the company without one."""
    old = companies[c, PRESIDENT]
    if cfg[CFG_PRESIDENCY_INDICATOR]:
        if old != NONE:
            players[old, INDICATORS_LEFT] += 1
        if seat != NONE:
            players[seat, INDICATORS_LEFT] -= 1
    companies[c, PRESIDENT] = seat


@njit(cache=True, inline="always")
def can_show_presidency(cfg, players, seat):
    """Presidency: a player can take a presidency only with a share indicator to show it."""
    return cfg[CFG_PRESIDENCY_INDICATOR] == 0 or players[seat, INDICATORS_LEFT] > 0


@njit(cache=True, inline="always")
def buy_makes_president(companies, shares, seat, c):
    """Presidency: the first buyer becomes president, and a buyer who then holds more shares
    than the current president takes over (a company without a president counts as held by
    nobody, so its next buyer becomes president)."""
    president = companies[c, PRESIDENT]
    return president == NONE or (president != seat and shares[seat, c] + 1 > shares[president, c])


@njit(cache=True, inline="always")
def indicators_to_buy(cfg, companies, shares, seat, c):
    """Share indicators a purchase puts on the board: one for the share, plus the presidency's
    when the purchase makes the buyer president (a takeover is immediate, so a buyer without
    the indicator for it cannot make that purchase: ASSUMED)."""
    if cfg[CFG_PRESIDENCY_INDICATOR] and buy_makes_president(companies, shares, seat, c):
        return 2
    return 1


@njit(cache=True, inline="always")
def buy_share(cfg, players, companies, shares, seat, c):
    """The Buying and Selling of Shares + Presidency: pay the price, take a share (placing a
    share indicator); the first buyer becomes president, and anyone holding more than the
    president takes over."""
    takes_office = buy_makes_president(companies, shares, seat, c)
    price = buy_price(companies, c)
    players[seat, CASH] -= price
    players[seat, SPENT] += price
    players[seat, BOUGHT] += 1
    players[seat, INDICATORS_LEFT] -= 1
    shares[seat, c] += 1
    companies[c, SHARES_OUT] += 1
    if takes_office:
        set_president(cfg, players, companies, c, seat)
    return price


@njit(cache=True, inline="always")
def sell_share(players, companies, shares, seat, c):
    """The Buying and Selling of Shares: collect the price from the bank, remove a share."""
    price = sell_price(companies, c)
    players[seat, CASH] += price
    players[seat, PROCEEDS] += price
    players[seat, SOLD] += 1
    players[seat, INDICATORS_LEFT] += 1
    shares[seat, c] -= 1
    companies[c, SHARES_OUT] -= 1
    return price


@njit(cache=True)
def presidency_after_sale(cfg, players, companies, shares, board, adjacency, seat, c, knobs,
                          policy_ids, rng, options, last_turn):
    """Presidency: after the president sells, whoever now holds more takes over; when several
    players tie for the most, the selling president chooses among them.  ASSUMED: a company
    whose shares are all sold has no president, and a player without a share indicator free
    to show the presidency is passed over."""
    if companies[c, PRESIDENT] != seat:
        return companies[c, PRESIDENT]
    most = 0
    for p in range(shares.shape[0]):
        if p != seat and shares[p, c] > most and can_show_presidency(cfg, players, p):
            most = shares[p, c]
    if shares[seat, c] >= most:
        if shares[seat, c] == 0:
            set_president(cfg, players, companies, c, NONE)
        return companies[c, PRESIDENT]
    n = 0
    for p in range(shares.shape[0]):
        if p != seat and shares[p, c] == most and can_show_presidency(cfg, players, p):
            options[n, OPT_A], options[n, OPT_B], options[n, OPT_C] = p, 0, 0
            n += 1
    i = 0
    if n > 1:
        i = choose(NAME_PRESIDENT, seat, c, options, n, policy_ids[seat], knobs, cfg, players,
                   companies, shares, board, adjacency, last_turn, rng)
    set_president(cfg, players, companies, c, options[i, OPT_A])
    return companies[c, PRESIDENT]


@njit(cache=True)
def play_card(cfg, deck, hands, board, adjacency, companies, shares, players, seat, knobs,
              policy_ids, rng, options, turn, trace, n_events, last_turn):
    """Round, step 1 — Playing a Card: choose a card and one of its three functions."""
    hand = hands[seat]
    n = list_card_options(cfg, deck, hand, companies, board, options)
    if n == 0:
        # ASSUMED: a card none of whose functions can act is discarded without effect.
        for slot in range(hand.shape[0]):
            if hand[slot] >= 0:
                n_events = record(trace, n_events, EV_DISCARD, turn, seat, hand[slot], 0, 0, 0)
                hand[slot] = -1
                players[seat, DISCARDED] += 1
                return n_events
        return n_events
    i = choose(CHOOSE_CARD, seat, -1, options, n, policy_ids[seat], knobs, cfg, players,
               companies, shares, board, adjacency, last_turn, rng)
    slot, function, c = options[i, OPT_A], options[i, OPT_B], options[i, OPT_C]
    hand[slot] = -1
    if function != PLACE_FUNCTION:
        players[seat, GROWN] += 1
        return raise_growth(cfg, board, adjacency, companies, shares, players, seat, c, knobs,
                            policy_ids, rng, options, turn, trace, n_events, last_turn)
    n = list_place_options(board, companies, c, options)
    i = choose(CHOOSE_SPACE, seat, c, options, n, policy_ids[seat], knobs, cfg, players,
               companies, shares, board, adjacency, last_turn, rng)
    space = options[i, OPT_A]
    if board[space, OWNER] == c:
        protect_marker(board, companies, space)
        players[seat, PROTECTED_PLAYS] += 1
        return record(trace, n_events, EV_PROTECT, turn, seat, c, space, 0, 0)
    place_marker(cfg, board, companies, space, c)
    players[seat, PLACED] += 1
    return record(trace, n_events, EV_PLACE, turn, seat, c, space, 0, 0)


@njit(cache=True)
def sell_step(cfg, board, adjacency, companies, shares, players, seat, knobs, policy_ids, rng,
              options, turn, trace, n_events, last_turn):
    """Round, step 2 — Selling a company share, if chosen: any company the seat holds."""
    options[0, OPT_A] = NONE
    n = 1
    for c in range(companies.shape[0]):
        if shares[seat, c] > 0:
            options[n, OPT_A] = c
            n += 1
    c = options[choose(SELL, seat, -1, options, n, policy_ids[seat], knobs, cfg, players,
                       companies, shares, board, adjacency, last_turn, rng), OPT_A]
    if c == NONE:
        return n_events
    before = players[seat, CASH]
    price = sell_share(players, companies, shares, seat, c)
    n_events = record(trace, n_events, EV_SELL, turn, seat, c, price, before, players[seat, CASH])
    old = companies[c, PRESIDENT]
    new = presidency_after_sale(cfg, players, companies, shares, board, adjacency, seat, c,
                                knobs, policy_ids, rng, options, last_turn)
    if new != old:
        n_events = record(trace, n_events, EV_PRESIDENT, turn, new, c, old,
                          companies[c, SHARES_OUT], 0)
    return n_events


@njit(cache=True)
def buy_step(cfg, board, adjacency, companies, shares, players, seat, knobs, policy_ids, rng,
             options, turn, trace, n_events, last_turn):
    """Round, step 3 — Buying a company share, if chosen: the buyer needs the price in cash and
    the share indicators the purchase puts on the board."""
    options[0, OPT_A] = NONE
    n = 1
    for c in range(companies.shape[0]):
        if (players[seat, CASH] >= buy_price(companies, c)
                and players[seat, INDICATORS_LEFT] >= indicators_to_buy(cfg, companies, shares,
                                                                       seat, c)):
            options[n, OPT_A] = c
            n += 1
    c = options[choose(BUY, seat, -1, options, n, policy_ids[seat], knobs, cfg, players,
                       companies, shares, board, adjacency, last_turn, rng), OPT_A]
    if c == NONE:
        return n_events
    before = players[seat, CASH]
    old = companies[c, PRESIDENT]
    price = buy_share(cfg, players, companies, shares, seat, c)
    n_events = record(trace, n_events, EV_BUY, turn, seat, c, price, before, players[seat, CASH])
    if companies[c, PRESIDENT] == old:
        return n_events
    n_events = record(trace, n_events, EV_PRESIDENT, turn, seat, c, old, 0, 0)
    return expand_on_taking_office(cfg, board, adjacency, companies, shares, players, c, knobs,
                                   policy_ids, rng, options, turn, trace, n_events, last_turn)


@njit(cache=True)
def trade(cfg, board, adjacency, companies, shares, players, seat, knobs, policy_ids, rng,
          options, turn, trace, n_events, last_turn):
    """Round, steps 2 and 3 — sell one share if chosen, then buy one share if chosen."""
    n_events = sell_step(cfg, board, adjacency, companies, shares, players, seat, knobs,
                         policy_ids, rng, options, turn, trace, n_events, last_turn)
    return buy_step(cfg, board, adjacency, companies, shares, players, seat, knobs, policy_ids,
                    rng, options, turn, trace, n_events, last_turn)


@njit(cache=True)
def deal(cfg, deck, hands, players, rng, turn, trace, n_events):
    """Preparation: at the start of each turn every player gets the turn's cards and M.U.
    ASSUMED: the whole deck is reshuffled for every turn (6 players use all 36 cards)."""
    order = np.arange(deck.shape[0])
    shuffle(rng, SETUP, order)
    k = 0
    for p in range(cfg[CFG_PLAYERS]):
        for slot in range(hands.shape[1]):
            if slot < cfg[CFG_CARDS_PER_TURN]:
                hands[p, slot] = order[k]
                k += 1
            else:
                hands[p, slot] = -1
        players[p, CASH] += cfg[CFG_MONEY_PER_TURN]
        players[p, MONEY_RECEIVED] += cfg[CFG_MONEY_PER_TURN]
        n_events = record(trace, n_events, EV_DEAL, turn, p, cfg[CFG_MONEY_PER_TURN],
                          cfg[CFG_CARDS_PER_TURN], players[p, CASH], 0)
    return n_events


@njit(cache=True)
def play_game(cfg, deck, adjacency, knobs, seed, policy_ids, out_game, out_players,
              out_company_game, out_company_players, trace):
    """One whole game.  Writes the games row (out_game int64[N_GAME_OUT] + out_company_game
    int64[n_companies] values) and the players rows (out_players int64[n_players,
    N_PLAYER_OUT], out_company_players int64[n_players, 2 * n_companies]: shares then
    presidencies).  Returns the number of trace rows written.

    Preparation: each turn deals cards and M.U., the starter plays the first round and play
    passes to the left (seat + 1); the next turn's starter sits to the left of this one's.
    Every player plays one round per card dealt."""
    n_players = cfg[CFG_PLAYERS]
    n_companies = cfg[CFG_COMPANIES]
    rng = rng_new(seed)
    players = np.zeros((n_players, N_PLAYER), dtype=np.int64)
    players[:, CASH] = cfg[CFG_START_MONEY]
    players[:, MONEY_RECEIVED] = cfg[CFG_START_MONEY]
    players[:, INDICATORS_LEFT] = cfg[CFG_SHARE_INDICATORS]
    companies = np.zeros((n_companies, N_COMPANY), dtype=np.int64)
    companies[:, PRESIDENT] = NONE
    companies[:, SUPPLY] = cfg[CFG_MARKERS]
    shares = np.zeros((n_players, n_companies), dtype=np.int64)
    board = np.zeros((adjacency.shape[0], N_SPACE), dtype=np.int64)
    board[:, OWNER] = EMPTY
    hands = np.full((n_players, cfg[CFG_CARDS_PER_TURN]), -1, dtype=np.int64)
    options = np.zeros((max(adjacency.shape[0], 3 * cfg[CFG_CARDS_PER_TURN], n_players,
                            n_companies) + 1, OPT_WIDTH), dtype=np.int64)
    n_events = 0
    starter = 0
    rounds = 0
    for turn in range(cfg[CFG_TURNS]):
        last_turn = turn == cfg[CFG_TURNS] - 1
        n_events = record(trace, n_events, EV_TURN, turn, starter, 0, 0, 0, 0)
        n_events = deal(cfg, deck, hands, players, rng, turn, trace, n_events)
        for _ in range(cfg[CFG_CARDS_PER_TURN]):
            for k in range(n_players):
                seat = (starter + k) % n_players
                n_events = play_card(cfg, deck, hands, board, adjacency, companies, shares,
                                     players, seat, knobs, policy_ids, rng, options, turn, trace,
                                     n_events, last_turn)
                n_events = trade(cfg, board, adjacency, companies, shares, players, seat, knobs,
                                 policy_ids, rng, options, turn, trace, n_events, last_turn)
                rounds += 1
        starter = (starter + 1) % n_players
    return score_game(players, companies, shares, rounds, cfg[CFG_TURNS], out_game, out_players,
                      out_company_game, out_company_players, trace, n_events)


@njit(cache=True)
def score_game(players, companies, shares, rounds, turns, out_game, out_players,
               out_company_game, out_company_players, trace, n_events):
    """Scoring: company value = its indicators on the board; score = cash + Σ shares × value.
    The highest score wins; ASSUMED: tied leaders share the win (winner_seat = -1)."""
    n_players, n_companies = shares.shape
    best = -1
    n_best = 0
    for p in range(n_players):
        holdings = 0
        for c in range(n_companies):
            holdings += shares[p, c] * company_value(companies, c)
            out_company_players[p, c] = shares[p, c]
            out_company_players[p, n_companies + c] = companies[c, PRESIDENT] == p
        score = players[p, CASH] + holdings
        row = out_players[p]
        row[P_SCORE], row[P_CASH], row[P_HOLDINGS] = score, players[p, CASH], holdings
        row[P_BOUGHT], row[P_SOLD] = players[p, BOUGHT], players[p, SOLD]
        row[P_SPENT], row[P_PROCEEDS] = players[p, SPENT], players[p, PROCEEDS]
        row[P_RECEIVED], row[P_EXPANSIONS] = players[p, MONEY_RECEIVED], players[p, EXPANSIONS]
        row[P_PLACED], row[P_PROTECTED] = players[p, PLACED], players[p, PROTECTED_PLAYS]
        row[P_GROWN], row[P_DISCARDED] = players[p, GROWN], players[p, DISCARDED]
        row[P_EMPTY_EXPANSIONS] = players[p, EMPTY_EXPANSIONS]
        n_events = record(trace, n_events, EV_SCORE, turns, p, players[p, CASH], holdings, score, 0)
        if score > best:
            best, n_best = score, 1
        elif score == best:
            n_best += 1
    winner = -1
    for p in range(n_players):
        out_players[p, P_WON] = out_players[p, P_SCORE] == best
        if n_best == 1 and out_players[p, P_SCORE] == best:
            winner = p
    for c in range(n_companies):
        out_company_game[c] = company_value(companies, c)
    out_game[G_WINNER], out_game[G_LENGTH] = winner, turns
    out_game[G_END_REASON], out_game[G_ROUNDS] = END_FINAL_TURN, rounds
    return n_events


@njit(cache=True)
def play_games(cfg, deck, adjacency, knobs, seeds, seat_policies, out_games, out_players,
               out_company_games, out_company_players):
    """Play ``len(seeds)`` games.

    cfg int64[N_CFG]; deck int64[n_cards, 3]; adjacency int64[n_spaces, max_degree] (-1 pads);
    knobs float64[n_policies, n_knobs]; seeds uint64[n]; seat_policies int8[n, n_players];
    outputs: out_games int64[n, N_GAME_OUT], out_players int64[n, n_players, N_PLAYER_OUT],
    out_company_games int64[n, n_companies], out_company_players
    int64[n, n_players, 2 * n_companies].
    """
    no_trace = np.zeros((0, TRACE_WIDTH), dtype=np.int64)
    for g in range(seeds.shape[0]):
        play_game(cfg, deck, adjacency, knobs, seeds[g], seat_policies[g], out_games[g],
                  out_players[g], out_company_games[g], out_company_players[g], no_trace)
