"""Karnaxis policies: which character, which action squares, what to trade, what to study,
whether to use a Karnaxis card now or save it.

Every scripted policy values each legal option in dollars with the same reading of the game
(a job is worth its remaining salary, a business its remaining income after the tax brackets'
rates, a share its expected move at the share price, a Karnaxis card the average effect of the
deck's cards, a retirement token its share of the payout the tokens still to be bought add, a
loan its interest) and takes the best; every price, payout, rate, cap and card it weighs is read
from the rules, so a variant of them changes its choices.  The knobs in ``[policies.NAME]``
make the strategies differ: how much each kind of income weighs, how far it will borrow, what
being insured is worth to it, how much it pursues its character's ambition.
The `search` player (simulator/games/karnaxis/search.py) weighs the best-scored options of its
``rollout_policy`` by playing them out; the `learned` player (simulator/games/karnaxis/turns.py)
by a learned value of the position each leaves.

The package: :mod:`policies.karnaxis.knobs`, the policies and their knobs table;
:mod:`policies.karnaxis.worth`, what an option is worth to a policy; here, the choice among a
decision's options by those scores (:func:`policy_choice`) and the scores the search weighs
(:func:`option_scores`).
"""

import numpy as np

from policies.common import RANDOM, behaviour, blunders, keep_best, pick_random
from policies.karnaxis.knobs import (
    BLUNDER,
    CARD_WEIGHT,
    HORIZON,
    KNOBS,
    LEARNED,
    LEARNED_VALUE,
    POLICIES,
    ROLLOUT_POLICY_KNOB,
    ROLLOUTS,
    SEARCH,
    TOP_K,
    readings,
)
from policies.karnaxis.worth import (
    MUST,
    NO,
    action_score,
    ambition_pull,
    deck_estimate,
    deck_worth,
    expected_income,
    foresee,
    held_salary,
    loan_penalty,
    option_score,
    tax_keep,
    trade_score,
)
from simulator.core.kernel import rule
from simulator.core.rng import POLICY
from simulator.games.karnaxis import state as S

# what the game's engine, search and learned players and their tests read of the policies
__all__ = [
    "POLICIES",
    "KNOBS",
    "readings",
    "SEARCH",
    "LEARNED",
    "LEARNED_VALUE",
    "ROLLOUTS",
    "ROLLOUT_POLICY_KNOB",
    "HORIZON",
    "TOP_K",
    "NO",
    "MUST",
    "held_salary",
    "expected_income",
    "tax_keep",
    "foresee",
    "deck_worth",
    "deck_estimate",
    "trade_score",
    "option_score",
    "card_option",
    "policy_choice",
    "option_scores",
]

# A decision scored with the Karnaxis deck's estimated worth is taken again with its exact
# worth when another option scores within NEAR (relative) of the card option (policy_choice)
NEAR = 1e-9


@rule
def card_option(state, kind, n):
    """The Buy Karnaxis Card option of a decision, or NONE."""
    if kind == S.D_ACTION:
        for i in range(n):
            if S.opt(state, i, S.OPT_ACTION) == S.ACT_KARNAXIS:
                return i
    return S.NONE


@rule
def policy_choice(state, rules, knobs, rng, pid, kind, seat, about, n):
    """Index into the ``n`` options of the state's OPTIONS block chosen by policy ``pid`` for a
    decision of ``kind`` by ``seat``: uniformly at random, or the best-scored (ties broken
    uniformly from the policy stream).  ``about`` is NONE: a Karnaxis option says all.

    A Buy Karnaxis Card option is scored with the deck's estimated worth
    (:func:`deck_estimate`, a tenth of the cost of its exact worth): as long as no other
    option scores within the estimate's error of it, every comparison the choice makes, and
    so the choice and the tie-breaks it draws, come out as with the exact worth; when one
    does, the decision is taken again with the exact worth, from the same draws."""
    if behaviour(knobs, pid) == LEARNED:  # its other decisions are its rollout policy's
        pid = np.int64(knobs[pid, ROLLOUT_POLICY_KNOB])
    if behaviour(knobs, pid) == RANDOM or n == 1 or blunders(knobs, pid, BLUNDER, rng):
        return pick_random(n, rng)
    if kind == S.D_ATTRIBUTE or kind == S.D_CHARACTER or kind == S.D_REROLL:
        # their scores read nothing foreseen: the year's income is not worth working out
        return best_option(state, rules, knobs, rng, pid, kind, seat, n, 0, 0, 0, 0.0)
    left, expected, bracket = foresee(state, rules, seat)
    card = card_option(state, kind, n)
    if card == S.NONE:
        return best_option(
            state, rules, knobs, rng, pid, kind, seat, n, left, expected, bracket, 0.0
        )
    deck, size = deck_estimate(state, rules, knobs, pid, seat, left, expected, bracket)
    draws = rng[POLICY]
    choice = best_option_but_near(
        state, rules, knobs, rng, pid, seat, n, left, expected, bracket, deck, size, card
    )
    if choice == S.NONE:
        rng[POLICY] = draws
        deck = deck_worth(state, rules, knobs, pid, seat, left, expected, bracket)
        choice = best_option(
            state, rules, knobs, rng, pid, kind, seat, n, left, expected, bracket, deck
        )
    return choice


@rule
def best_option(state, rules, knobs, rng, pid, kind, seat, n, left, expected, bracket, deck):
    """The best-scored of the ``n`` options, ties broken uniformly from the policy stream."""
    best, count, choice = -np.inf, 0, 0
    for i in range(n):
        score = option_score(state, rules, knobs, pid, kind, seat, i, left, expected, bracket, deck)
        best, count, choice = keep_best(score, i, best, count, choice, rng)
    return choice


@rule
def best_option_but_near(
    state, rules, knobs, rng, pid, seat, n, left, expected, bracket, deck, size, card
):
    """:func:`best_option` of a Take Action! decision whose option ``card`` is scored with an
    estimate ``deck`` of the deck's worth (mean absolute worth of a card ``size``); NONE when
    another option scores within NEAR of that score's magnitude, the bound of its error."""
    penalty = loan_penalty(state, rules, knobs, pid, seat, S.opt(state, card, S.OPT_COST))
    ambition = ambition_pull(state, rules, knobs, pid, seat, S.K_CARDS)
    weight = knobs[pid, CARD_WEIGHT]
    sure = action_score(state, rules, knobs, pid, seat, card, left, expected, bracket, deck)
    near = NEAR * (
        abs(weight) * size
        + abs(sure)
        + abs(ambition)
        + abs(S.opt(state, card, S.OPT_COST))
        + abs(penalty)
    )
    best, count, choice = -np.inf, 0, 0
    for i in range(n):
        score = sure
        if i != card:
            score = action_score(state, rules, knobs, pid, seat, i, left, expected, bracket, deck)
            if abs(score - sure) <= near:
                return S.NONE
        best, count, choice = keep_best(score, i, best, count, choice, rng)
    return choice


@rule
def option_scores(state, rules, knobs, pid, kind, seat, about, n, out):
    """Every option's score by policy ``pid`` into ``out[:n]`` (random: all equal)."""
    left, expected, bracket = foresee(state, rules, seat)
    deck = 0.0
    if card_option(state, kind, n) != S.NONE:
        deck = deck_worth(state, rules, knobs, pid, seat, left, expected, bracket)
    for i in range(n):
        out[i] = (
            0.0
            if behaviour(knobs, pid) == RANDOM
            else option_score(
                state, rules, knobs, pid, kind, seat, i, left, expected, bracket, deck
            )
        )
