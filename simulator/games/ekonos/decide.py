"""Ekonos decisions: every decision of a game goes through :func:`choose`, the decision layer
written once for the games of the search driver (policies/search_driver.py: the seat's policy
answers; around a search decision, the step's decision log), bound here to Ekonos's state, policies
and hooks: what the trace keeps of a pending decision and what a seat cannot know."""

import policies.ekonos
from policies.search import redeal, reseed_chance
from policies.search_driver import LEARNING_DECIDE, for_game
from simulator.core.kernel import allocating, rule
from simulator.core.rng import SEARCH as SEARCH_STREAM
from simulator.games.ekonos import state as layout
from simulator.games.ekonos.board import (
    card_play,
    expands_now,
    hand_slot,
    index_hand,
    offered,
    traded_company,
)
from simulator.games.ekonos.features import N_FEATURES  # noqa: F401 (the layer reads it)
from simulator.games.ekonos.state import (
    BUY,
    CANDIDATES,
    CFG_CARDS,
    CFG_CARDS_PER_TURN,
    CFG_PLAYERS,
    CFG_UNSEEN,
    CHOOSE_CARD,
    CODES,
    DECK_ORDER,
    EXPAND_NOW,
    HANDS,
    MAX_HAND,
    PENDING_EVENT,
    SELL,
)
from simulator.games.ekonos.state import EVENTS as TRACE_N  # the name the layer reads


@rule
def trace_pending(state, trace, kind, seat, n, m):
    """What the trace keeps of a pending decision: a code naming each candidate, and the row
    its values take (written by search.note_values)."""
    for r in range(m):
        state[CODES + r] = option_code(state, kind, seat, state[CANDIDATES + r])
    state[PENDING_EVENT] = state[TRACE_N]


@rule
def option_code(state, kind, seat, i):
    """Option i as the trace names it: card x 3 + function; a space; 1 to expand now, 0 to
    wait; a company or NONE (no trade); a seat."""
    code = offered(state, i)
    if kind == CHOOSE_CARD:
        slot, function = card_play(code)
        return 3 * state[hand_slot(seat, slot)] + function
    if kind == EXPAND_NOW:
        return 1 if expands_now(code) else 0
    if kind == SELL or kind == BUY:
        return traded_company(code)
    return code


@allocating
def determinize(state, rules, rng, seat):
    """Re-draw everything ``seat`` cannot know, from the rollout's seed (put in the copy's
    SEARCH stream by the driver): every chance stream, so later deals and the other seats'
    tie-breaks are new, and the cards it has not seen this turn — the other seats' hands and
    the undealt rest of the deck (ASSUMED: the whole deck is reshuffled every turn, so no card
    of a later turn is known) — gathered, put in a canonical order and dealt again into the
    same places.  The result depends only on what the seat knows and on the seed."""
    reseed_chance(rng, rng[SEARCH_STREAM])
    n_cards, n_players, per_hand = rules[CFG_CARDS], rules[CFG_PLAYERS], rules[CFG_CARDS_PER_TURN]
    unseen = rules[CFG_UNSEEN]
    dealt = n_players * per_hand
    n = 0
    for p in range(n_players):
        for slot in range(per_hand):
            card = state[HANDS + p * MAX_HAND + slot]
            if p != seat and card >= 0:
                state[unseen + n] = card
                n += 1
    for k in range(dealt, n_cards):
        state[unseen + n] = state[DECK_ORDER + k]
        n += 1
    redeal(state[unseen : unseen + n_cards], n, rng)
    n = 0
    for p in range(n_players):
        for slot in range(per_hand):
            at = HANDS + p * MAX_HAND + slot
            if p != seat and state[at] >= 0:
                state[at] = state[unseen + n]
                n += 1
        index_hand(state, rules, p)
    for k in range(dealt, n_cards):
        state[DECK_ORDER + k] = state[unseen + n]
        n += 1


(
    choose,
    is_search,
    played_policy,
    weighs,
    learns,
    teaches,
    pends,
    choose_in_search_step,
    mark_pending,
) = for_game(LEARNING_DECIDE, globals(), layout, policies.ekonos)
