"""Karnaxis decisions: every decision of a game goes through :func:`choose`.

In a game without `search` seats (MODE PLAIN) it asks the seat's policy.  Around a search
decision the driver (search.py) plays a step several times from a snapshot, and ``choose``
keeps the step's *decision log* in the state (every decision of the step, any seat, in order):

* PROBE — the real game: decisions already logged are answered from the log; a new decision
  of a scripted seat is asked of its policy and logged; the first new decision of a `search`
  seat with options to weigh becomes *pending* (its candidates are stored for the driver) and
  is answered with the best-scored candidate, the rest of that probe being thrown away.
* REPLAY — a rollout: logged decisions are answered from the log; at the pending decision
  everything the deciding seat cannot know is re-drawn (:func:`determinize`), the candidate
  under test is forced, and the game goes on in ROLLOUT.
* ROLLOUT — every seat plays the deciding search policy's ``rollout_policy``.
"""

import numpy as np

import policies.karnaxis
from policies.karnaxis import (
    TOP_K,
    option_scores,
    policy_choice,
)
from policies.search import redeal, reseed_chance, top_k
from policies.search_driver import QUESTIONS, for_game
from simulator.core.kernel import allocating, layer, rule
from simulator.core.rng import SEARCH as SEARCH_STREAM
from simulator.games.karnaxis.money import put_row
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
    DECISIONS,
    DECK_CARDS,
    DECK_CHARS,
    DECK_EVENTS,
    EV_SEARCH,
    EV_SEARCH_OPTION,
    FORCED,
    KC_HOLDER,
    LOG,
    LOG_LEN,
    MAX_LOG,
    MAX_OPTIONS,
    MODE,
    NEXT_CARD,
    NONE,
    NOTES,
    OPT_A,
    OPT_ACTION,
    OPT_B,
    PENDING,
    PENDING_CANDIDATES,
    PENDING_EVENT,
    PENDING_KIND,
    PENDING_OPTIONS,
    PENDING_SEAT,
    PHASE,
    PLAIN,
    REPLAY,
    ROLLOUT,
    ROLLOUT_POLICY,
    SEAT_POLICY,
    TRACE_N,
    YEAR,
    opt,
    owners,
    row,
)


@layer
def choose(state, rules, knobs, rng, trace, kind, seat, n):
    """Index of the option ``seat`` takes among the ``n`` in the state's OPTIONS block, for a
    decision of ``kind`` (D_*)."""
    mode = state[MODE]
    if mode == PLAIN:
        return policy_choice(state, rules, knobs, rng, state[SEAT_POLICY + seat], kind, seat, n)
    if mode == ROLLOUT:
        return policy_choice(state, rules, knobs, rng, state[ROLLOUT_POLICY], kind, seat, n)
    return choose_in_search_step(state, rules, knobs, rng, trace, kind, seat, n)


is_search, played_policy, weighs = for_game(QUESTIONS, globals(), policies.karnaxis)


@rule
def choose_in_search_step(state, rules, knobs, rng, trace, kind, seat, n):
    i = state[DECISIONS]
    state[DECISIONS] = i + 1
    if i < state[LOG_LEN]:
        state[TRACE_N] += state[NOTES + i]  # the trace rows of its weighed values
        return state[LOG + i]
    if state[MODE] == REPLAY:  # the pending decision, i == LOG_LEN
        determinize(state, rules, rng, seat)
        state[MODE] = ROLLOUT
        return state[FORCED]
    policy = state[SEAT_POLICY + seat]
    if state[PENDING] == 0 and i < MAX_LOG and weighs(knobs, policy, n):
        mark_pending(state, rules, knobs, trace, kind, seat, n)
        return state[CANDIDATES]
    choice = policy_choice(state, rules, knobs, rng, played_policy(knobs, policy), kind, seat, n)
    if state[PENDING] == 0 and i < MAX_LOG:  # beyond MAX_LOG a step plays without a log
        state[LOG + i] = choice
        state[NOTES + i] = 0
        state[LOG_LEN] = i + 1
    return choice


@allocating
def mark_pending(state, rules, knobs, trace, kind, seat, n):
    """Store the search decision a probe met: its candidates are the ``top_k`` options by the
    scores of the seat's rollout policy (best first).  When tracing, its trace rows are
    written here (EV_SEARCH, then each candidate's option) for the driver to fill in the values
    weighed; later probes step over them."""
    policy = state[SEAT_POLICY + seat]
    scores = np.empty(n)
    option_scores(state, rules, knobs, played_policy(knobs, policy), kind, seat, n, scores)
    m = top_k(
        scores, n, np.int64(knobs[policy, TOP_K]), state[CANDIDATES : CANDIDATES + MAX_OPTIONS]
    )
    state[PENDING] = 1
    state[PENDING_SEAT], state[PENDING_KIND] = seat, kind
    state[PENDING_OPTIONS], state[PENDING_CANDIDATES] = n, m
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
