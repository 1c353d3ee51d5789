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
from simulator.games.karnaxis import state as S


@rule
def trace_pending(state, trace, kind, seat, n, m):
    """What the trace keeps of a pending decision: its rows, written now when they fit
    (EV_SEARCH, then each candidate's option), for the driver to fill in the values weighed
    (search.note_values); later probes step over them."""
    at = state[S.TRACE_N]
    state[S.PENDING_EVENT] = S.NONE
    if at + m + 1 <= trace.shape[0]:
        state[S.PENDING_EVENT] = at
        put_row(trace, at, S.EV_SEARCH, state[S.YEAR], seat, kind, n, m, 0)
        for r in range(m):
            i = state[S.CANDIDATES + r]
            b = S.opt(state, i, S.OPT_A)
            if kind == S.D_MARKET:
                b = b * 1000 + S.opt(state, i, S.OPT_B)
            put_row(
                trace,
                at + 1 + r,
                S.EV_SEARCH_OPTION,
                state[S.YEAR],
                seat,
                S.opt(state, i, S.OPT_ACTION),
                b,
                0,
                0,
            )
        state[S.TRACE_N] = at + m + 1


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
    unseen = rules[S.CFG_UNSEEN]
    events = S.owners(rules, S.DECK_EVENTS)
    n = 0
    for k in range(state[S.YEAR], rules[S.CFG_N_EVENTS]):
        state[unseen + n] = state[events + k]
        n += 1
    redeal(state[unseen : unseen + n], n, rng)
    for k in range(state[S.YEAR], rules[S.CFG_N_EVENTS]):
        state[events + k] = state[unseen + k - state[S.YEAR]]
    redeal_karnaxis_cards(state, rules, rng, seat)
    if state[S.PHASE] == S.AT_CHARACTER:
        redeal_characters(state, rules, rng, seat)


@rule
def redeal_karnaxis_cards(state, rules, rng, seat):
    unseen = rules[S.CFG_UNSEEN]
    deck, holder = S.owners(rules, S.DECK_CARDS), S.owners(rules, S.KC_HOLDER)
    n = 0
    for k in range(state[S.NEXT_CARD], rules[S.CFG_N_KCARDS]):
        state[unseen + n] = state[deck + k]
        n += 1
    for card in range(rules[S.CFG_N_KCARDS]):
        if state[holder + card] >= 0 and state[holder + card] != seat:
            state[unseen + n] = card
            state[holder + card] = S.NONE
            n += 1
    redeal(state[unseen : unseen + n], n, rng)
    k = 0
    for q in range(rules[S.CFG_PLAYERS]):
        if q != seat:
            for _ in range(state[S.row(q) + S.CARDS_HELD]):
                state[holder + state[unseen + k]] = q
                k += 1
    for d in range(state[S.NEXT_CARD], rules[S.CFG_N_KCARDS]):
        state[deck + d] = state[unseen + k]
        k += 1


@rule
def redeal_characters(state, rules, rng, seat):
    """Game Setup: the seat knows its own dealt cards and the characters kept so far."""
    unseen = rules[S.CFG_UNSEEN]
    deck, dealt = S.owners(rules, S.DECK_CHARS), rules[S.CFG_DEALT]
    n = 0
    for k in range(rules[S.CFG_N_CHARS]):
        if hidden_character(state, rules, seat, k, dealt):
            state[unseen + n] = state[deck + k]
            n += 1
    redeal(state[unseen : unseen + n], n, rng)
    n = 0
    for k in range(rules[S.CFG_N_CHARS]):
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
        return state[S.owners(rules, S.DECK_CHARS) + k] != state[S.row(owner) + S.CHARACTER]
    return True


choose, is_search, played_policy, weighs, pends, choose_in_search_step, mark_pending = for_game(
    DECIDE, globals(), S, policies.karnaxis
)
