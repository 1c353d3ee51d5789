"""Karnaxis decisions: every decision of a game goes through :func:`choose`, the decision layer
written once for the games of the search driver (policies/search_driver.py: the seat's policy
answers; around a search decision, the step's decision log), bound here to Karnaxis's state,
policies and hooks: what the trace keeps of a pending decision and what a seat cannot know."""

import policies.karnaxis
from policies.search import redeal, reseed_chance
from policies.search_driver import DECIDE, for_game
from simulator.core.kernel import allocating, rule
from simulator.core.rng import SEARCH as SEARCH_STREAM
from simulator.core.trace import put_row
from simulator.games.karnaxis import state as layout
from simulator.games.karnaxis.state import (
    AT_CHARACTER,
    CANDIDATES,
    CARDS_HELD,
    CFG_DEALT,
    CFG_N_CHARS,
    CFG_N_EVENTS,
    CFG_N_KCARDS,
    CFG_PLAYERS,
    CFG_UNSEEN,
    CHARACTER,
    D_MARKET,
    DECK_CARDS,
    DECK_CHARS,
    DECK_EVENTS,
    EV_SEARCH,
    EV_SEARCH_OPTION,
    KC_HOLDER,
    NEXT_CARD,
    NONE,
    OPT_A,
    OPT_ACTION,
    OPT_B,
    PENDING_EVENT,
    PHASE,
    TRACE_N,
    YEAR,
    opt,
    owners,
    row,
)


@rule
def trace_pending(state, trace, kind, seat, n, m):
    """What the trace keeps of a pending decision: its rows, written now when they fit
    (EV_SEARCH, then each candidate's option), for the driver to fill in the values weighed
    (search.note_values); later probes step over them."""
    at = state[TRACE_N]
    state[PENDING_EVENT] = NONE
    if at + m + 1 <= trace.shape[0]:
        state[PENDING_EVENT] = at
        put_row(trace, at, EV_SEARCH, state[YEAR], seat, kind, n, m, 0)
        for r in range(m):
            i = state[CANDIDATES + r]
            b = opt(state, i, OPT_A)
            if kind == D_MARKET:
                b = b * 1000 + opt(state, i, OPT_B)
            put_row(
                trace,
                at + 1 + r,
                EV_SEARCH_OPTION,
                state[YEAR],
                seat,
                opt(state, i, OPT_ACTION),
                b,
                0,
                0,
            )
        state[TRACE_N] = at + m + 1


@allocating
def determinize(state, rules, rng, seat):
    """Re-draw everything ``seat`` cannot know, from the rollout's seed (put in the copy's
    SEARCH stream by the driver): every chance stream (future stock dice, lottery and medical
    rolls, card dice, the other seats' tie-breaks), the order of the event cards not yet read,
    the Karnaxis cards not yet drawn together with those the other seats have saved (each keeps
    as many as it holds), and during Game Setup the character cards not dealt to the seat nor
    kept by an earlier one.  Each set is gathered, put in a canonical order and dealt again into
    the same places, so the result depends only on what the seat knows and on the seed."""
    reseed_chance(rng, rng[SEARCH_STREAM])
    unseen = rules[CFG_UNSEEN]
    events = owners(rules, DECK_EVENTS)
    n = 0
    for k in range(state[YEAR], rules[CFG_N_EVENTS]):
        state[unseen + n] = state[events + k]
        n += 1
    redeal(state[unseen : unseen + n], n, rng)
    for k in range(state[YEAR], rules[CFG_N_EVENTS]):
        state[events + k] = state[unseen + k - state[YEAR]]
    redeal_karnaxis_cards(state, rules, rng, seat)
    if state[PHASE] == AT_CHARACTER:
        redeal_characters(state, rules, rng, seat)


@rule
def redeal_karnaxis_cards(state, rules, rng, seat):
    unseen = rules[CFG_UNSEEN]
    deck, holder = owners(rules, DECK_CARDS), owners(rules, KC_HOLDER)
    n = 0
    for k in range(state[NEXT_CARD], rules[CFG_N_KCARDS]):
        state[unseen + n] = state[deck + k]
        n += 1
    for card in range(rules[CFG_N_KCARDS]):
        if state[holder + card] >= 0 and state[holder + card] != seat:
            state[unseen + n] = card
            state[holder + card] = NONE
            n += 1
    redeal(state[unseen : unseen + n], n, rng)
    k = 0
    for q in range(rules[CFG_PLAYERS]):
        if q != seat:
            for _ in range(state[row(q) + CARDS_HELD]):
                state[holder + state[unseen + k]] = q
                k += 1
    for d in range(state[NEXT_CARD], rules[CFG_N_KCARDS]):
        state[deck + d] = state[unseen + k]
        k += 1


@rule
def redeal_characters(state, rules, rng, seat):
    """Game Setup: the seat knows its own dealt cards and the characters kept so far."""
    unseen = rules[CFG_UNSEEN]
    deck, dealt = owners(rules, DECK_CHARS), rules[CFG_DEALT]
    n = 0
    for k in range(rules[CFG_N_CHARS]):
        if hidden_character(state, rules, seat, k, dealt):
            state[unseen + n] = state[deck + k]
            n += 1
    redeal(state[unseen : unseen + n], n, rng)
    n = 0
    for k in range(rules[CFG_N_CHARS]):
        if hidden_character(state, rules, seat, k, dealt):
            state[deck + k] = state[unseen + n]
            n += 1


@rule
def hidden_character(state, rules, seat, k, dealt):
    """Whether deck position k of the character deal is unknown to ``seat`` (not its own card,
    not a character an earlier seat kept)."""
    owner = k // dealt
    if owner == seat:
        return False
    if owner < seat:
        return state[owners(rules, DECK_CHARS) + k] != state[row(owner) + CHARACTER]
    return True


choose, is_search, played_policy, weighs, choose_in_search_step, mark_pending = for_game(
    DECIDE, globals(), layout, policies.karnaxis
)
