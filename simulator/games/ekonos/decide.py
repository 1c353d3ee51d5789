"""Ekonos decisions: every decision of a game goes through :func:`choose`.

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

import policies.ekonos
from policies.ekonos import (
    TOP_K,
    option_scores,
    policy_choice,
)
from policies.search import redeal, reseed_chance, top_k
from policies.search_driver import QUESTIONS, for_game
from simulator.core.kernel import allocating, layer, rule
from simulator.core.rng import SEARCH as SEARCH_STREAM
from simulator.games.ekonos.board import option
from simulator.games.ekonos.state import (
    CANDIDATES,
    CFG_CARDS,
    CFG_CARDS_PER_TURN,
    CFG_PLAYERS,
    CFG_UNSEEN,
    CHOOSE_CARD,
    CODES,
    DECISIONS,
    DECK_ORDER,
    EVENTS,
    FORCED,
    HANDS,
    LOG,
    LOG_LEN,
    MAX_HAND,
    MAX_OPTIONS,
    MODE,
    NOTES,
    OPT_A,
    OPT_B,
    PENDING,
    PENDING_CANDIDATES,
    PENDING_EVENT,
    PENDING_KIND,
    PENDING_OPTIONS,
    PENDING_SEAT,
    PLAIN,
    REPLAY,
    ROLLOUT,
    ROLLOUT_POLICY,
    SEAT_POLICY,
)


@layer
def choose(state, rules, knobs, rng, trace, kind, seat, company, n):
    """Index of the option ``seat`` takes among the ``n`` in the state's OPTIONS block, for a
    decision of ``kind`` about ``company`` (NONE when none)."""
    mode = state[MODE]
    if mode == PLAIN:
        return policy_choice(
            state, rules, knobs, rng, state[SEAT_POLICY + seat], kind, seat, company, n
        )
    if mode == ROLLOUT:
        return policy_choice(
            state, rules, knobs, rng, state[ROLLOUT_POLICY], kind, seat, company, n
        )
    return choose_in_search_step(state, rules, knobs, rng, trace, kind, seat, company, n)


is_search, played_policy, weighs = for_game(QUESTIONS, globals(), policies.ekonos)


@rule
def choose_in_search_step(state, rules, knobs, rng, trace, kind, seat, company, n):
    i = state[DECISIONS]
    state[DECISIONS] = i + 1
    if i < state[LOG_LEN]:
        state[EVENTS] += state[NOTES + i]  # the trace rows of its weighed values
        return state[LOG + i]
    if state[MODE] == REPLAY:  # the pending decision, i == LOG_LEN
        determinize(state, rules, rng, seat)
        state[MODE] = ROLLOUT
        return state[FORCED]
    policy = state[SEAT_POLICY + seat]
    if state[PENDING] == 0 and weighs(knobs, policy, n):
        mark_pending(state, rules, knobs, kind, seat, company, n)
        return state[CANDIDATES]
    choice = policy_choice(
        state, rules, knobs, rng, played_policy(knobs, policy), kind, seat, company, n
    )
    if state[PENDING] == 0:
        state[LOG + i] = choice
        state[NOTES + i] = 0
        state[LOG_LEN] = i + 1
    return choice


@allocating
def mark_pending(state, rules, knobs, kind, seat, company, n):
    """Store the search decision a probe met: its candidates are the ``top_k`` options by the
    scores of the seat's rollout policy (best first), with a code naming each for the trace."""
    policy = state[SEAT_POLICY + seat]
    scores = np.empty(n)
    option_scores(state, rules, knobs, played_policy(knobs, policy), kind, seat, company, n, scores)
    m = top_k(
        scores, n, np.int64(knobs[policy, TOP_K]), state[CANDIDATES : CANDIDATES + MAX_OPTIONS]
    )
    for r in range(m):
        state[CODES + r] = option_code(state, kind, seat, state[CANDIDATES + r])
    state[PENDING] = 1
    state[PENDING_SEAT], state[PENDING_KIND] = seat, kind
    state[PENDING_OPTIONS], state[PENDING_CANDIDATES] = n, m
    state[PENDING_EVENT] = state[EVENTS]


@rule
def option_code(state, kind, seat, i):
    """Option i as the trace names it: card x 3 + function; a space; else its first column."""
    if kind == CHOOSE_CARD:
        card = state[HANDS + seat * MAX_HAND + option(state, i, OPT_A)]
        return 3 * card + option(state, i, OPT_B)
    return option(state, i, OPT_A)


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
    for k in range(dealt, n_cards):
        state[DECK_ORDER + k] = state[unseen + n]
        n += 1
