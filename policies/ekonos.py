"""Ekonos policies: who plays which card, where markers go, what to buy and sell.

Every scripted policy scores each legal option in points with the same reading of the game and
of the rules' ``[scoring]`` keys (a share is worth its company's final value in market
indicators times ``per_indicator``, an M.U. spent or received ``per_mu``, a presidency held at
the end ``per_presidency``, beside the control of expansions it brings) and takes the best, so a
scoring variant changes its choices; the knobs in ``[policies.NAME]`` of the rules make the
strategies differ.  Two players weigh the best-scored options of a decision: `search`
(simulator/games/ekonos/search.py) by simulation, `learned` by the learned value of the
position each leaves at the end of the step (simulator/games/ekonos/features.py); what they do
not weigh, their ``rollout_policy`` decides.
"""

import numpy as np

from policies.common import (
    HANDICAP_KNOBS,
    LEARNED_KNOBS,
    RANDOM,
    behaviour,
    blunders,
    keep_best,
    pick_random,
)
from policies.search import LEARNED_SEARCH_KNOBS, SEARCH_KNOBS
from simulator.core.bits import lowest
from simulator.core.game import Policy
from simulator.core.kernel import accessor, inlined, rule, scorer
from simulator.games.ekonos.board import card_option, expands_now, neighbours_of, traded_company
from simulator.games.ekonos.state import (
    BUY,
    CASH,
    CFG_SCORE_INDICATOR,
    CFG_SCORE_MU,
    CFG_SCORE_PRESIDENCY,
    CFG_TURNS,
    CHOOSE_CARD,
    CHOOSE_SPACE,
    EMPTY,
    EXPAND_NOW,
    MAX_COMPANIES,
    NONE,
    OFFERED,
    ON_BOARD,
    OWNER,
    PLACE_FUNCTION,
    PRESIDENT,
    SELL,
    SHARES,
    SHARES_OUT,
    TURN,
)

PRESIDENT_SEEKER, VALUE_INVESTOR, MARKET_BUILDER, CASH_HOARDER, SEARCH, LEARNED = range(1, 7)
POLICIES = (
    Policy(RANDOM, "random", "uniformly random among the legal options at every decision"),
    Policy(
        PRESIDENT_SEEKER,
        "president_seeker",
        "buys for presidencies, grows the companies it presides, expands early",
    ),
    Policy(
        VALUE_INVESTOR,
        "value_investor",
        "buys shares worth more than their price, sells those priced above their value",
    ),
    Policy(
        MARKET_BUILDER,
        "market_builder",
        "plays cards to place and protect markers of its companies, waits for level 6",
    ),
    Policy(CASH_HOARDER, "cash_hoarder", "keeps its cash, buying only clear bargains"),
    Policy(
        SEARCH,
        "search",
        "weighs its best options by playing each out many times from "
        "what it can see (determinized flat Monte Carlo)",
    ),
    Policy(
        LEARNED,
        "learned",
        "takes the option whose resulting position a value function learned from the "
        "search rates best, among its best-scored options (one ply, from what it can see)",
    ),
)
KNOBS = (
    "presidency_bonus",
    "expand_early",
    "buy_margin",
    "sell_margin",
    "place_weight",
    *SEARCH_KNOBS,
    *HANDICAP_KNOBS,
    *LEARNED_KNOBS,
    *LEARNED_SEARCH_KNOBS,
)
# knobs table columns (column 0 is the behaviour, simulator.core.game.policy_knobs)
(
    PRESIDENCY_BONUS,
    EXPAND_EARLY,
    BUY_MARGIN,
    SELL_MARGIN,
    PLACE_WEIGHT,
    ROLLOUTS,
    ROLLOUT_POLICY_KNOB,
    HORIZON,
    TOP_K,
    BLUNDER,
    WEIGHTS,
    LEARNED_VALUE,
) = range(1, 13)
WEIGHTS_AT = 1 + len(KNOBS)  # a learned policy's weights follow the last knob's column

FUTURE_GROWTH = 2.0  # expected rise of a company's value before the end when not in the last turn


@accessor
def held(state, seat, c):
    return state[SHARES + seat * MAX_COMPANIES + c]


@accessor
def stake(state, seat, c):
    """How much a seat cares about company c: its shares, plus two for the presidency."""
    return held(state, seat, c) + (2.0 if state[PRESIDENT + c] == seat else 0.0)


@accessor
def expected_value(state, c, last_turn):
    return state[ON_BOARD + c] + (0.0 if last_turn else FUTURE_GROWTH)


@scorer
def option_score(state, rules, knobs, policy, kind, seat, company, code):
    """How much ``policy`` likes the option ``code`` of a decision (state.py, "option codes";
    higher is better), in points: company
    values count ``per_indicator`` each, M.U. ``per_mu``, a presidency held ``per_presidency``
    (the knobs are in M.U. of the printed scoring, where all three weigh as a unit does)."""
    last_turn = state[TURN] == rules[CFG_TURNS] - 1
    per_indicator, per_mu = float(rules[CFG_SCORE_INDICATOR]), float(rules[CFG_SCORE_MU])
    per_presidency = float(rules[CFG_SCORE_PRESIDENCY])
    if kind == CHOOSE_CARD:
        _, function, c = card_option(state, rules, seat, code)
        if function == PLACE_FUNCTION:
            return stake(state, seat, c) * per_indicator + knobs[policy, PLACE_WEIGHT]
        growth = 0.6 * stake(state, seat, c)
        if state[PRESIDENT + c] == seat:
            growth += 1.0 + knobs[policy, PRESIDENCY_BONUS] / 6.0
        return growth * per_indicator * (0.5 if last_turn else 1.0)
    if kind == CHOOSE_SPACE:
        previous = state[OWNER + code]  # the code is the space
        own, rival = neighbours_of(state, rules, code, company)
        if previous == company:  # turning an own marker protected
            return 0.4 * rival
        score = 1.0 + 0.2 * own
        if previous != EMPTY:  # expansion replacing another company's marker
            score += 0.5 - held(state, seat, previous)
        return score
    if kind == EXPAND_NOW:
        expand = last_turn or knobs[policy, EXPAND_EARLY] >= 0.5
        return 1.0 if expands_now(code) == expand else 0.0
    if kind == SELL:
        c = traded_company(code)
        if c == NONE:
            return 0.0
        keep = expected_value(state, c, last_turn) * per_indicator
        score = state[SHARES_OUT + c] * per_mu - keep - knobs[policy, SELL_MARGIN]
        if state[PRESIDENT + c] == seat:
            score -= knobs[policy, PRESIDENCY_BONUS] + per_presidency
        return score
    if kind == BUY:
        c = traded_company(code)
        if c == NONE:
            return 0.0
        score = (
            expected_value(state, c, last_turn) * per_indicator
            - (state[SHARES_OUT + c] + 1) * per_mu
            - knobs[policy, BUY_MARGIN]
        )
        president = state[PRESIDENT + c]
        if president != seat and (
            president == NONE or held(state, seat, c) + 1 > held(state, president, c)
        ):
            # the presidency this share takes is held at the end unless outbid
            score += per_presidency
            if not last_turn:
                score += knobs[policy, PRESIDENCY_BONUS]
        return score
    # NAME_PRESIDENT: hand the company to the poorest rival
    return -float(state[CASH + code])


@inlined
def policy_choice(state, rules, knobs, rng, policy, kind, seat, company, n):
    """Index into the ``n`` options the state offers (OFFERED) that scripted ``policy`` takes
    for decision ``kind`` of ``seat``.  Inlined where the rules decide, so a random draw is
    not a call of some forty arguments."""
    policy = played_by(knobs, policy)
    if behaviour(knobs, policy) == RANDOM or blunders(knobs, policy, BLUNDER, rng):
        return pick_random(n, rng)
    return best_choice(state, rules, knobs, rng, policy, kind, seat, company, n)


@rule
def played_by(knobs, policy):
    """The policy whose code makes a decision of ``policy``: a learned seat's rollout policy
    (it values only the decisions its driver hands it: simulator/games/ekonos/search.py), any
    other's own."""
    if behaviour(knobs, policy) == LEARNED:
        return np.int64(knobs[policy, ROLLOUT_POLICY_KNOB])
    return policy


@rule
def best_choice(state, rules, knobs, rng, policy, kind, seat, company, n):
    """The best-scored option (ties broken uniformly from the policy stream)."""
    best, count, choice = -np.inf, 0, 0
    codes = state[OFFERED]  # option i is its i-th item: walked from the lowest
    for i in range(n):
        score = option_score(state, rules, knobs, policy, kind, seat, company, lowest(codes))
        best, count, choice = keep_best(score, i, best, count, choice, rng)
        codes &= codes - 1
    return choice


@rule
def option_scores(state, rules, knobs, policy, kind, seat, company, n, out):
    """``out[:n]``: every option's score by ``policy`` (all equal for `random`)."""
    policy = played_by(knobs, policy)
    codes = state[OFFERED]
    for i in range(n):
        out[i] = (
            0.0
            if behaviour(knobs, policy) == RANDOM
            else option_score(state, rules, knobs, policy, kind, seat, company, lowest(codes))
        )
        codes &= codes - 1
