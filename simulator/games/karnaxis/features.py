"""Karnaxis position features: what the `learned` player's value reads of a position.

The `learned` player (turns.py) values the position after each of its candidate actions as a
weighted sum of these features, seen from the deciding seat: only what that seat can see (every
player board, the stocks, the share holdings, the jobs and businesses held; its own saved
Karnaxis cards), never a deck's order or the cards another seat has saved.  Money is counted in
millions of dollars, so that every feature is about -5..5.  The weights are data
(``[policies.learned] weights``, fitted by :mod:`simulator.experiments.learn`: one per feature,
or a network's): the last columns of the policy's row of the knobs table, then their count
(game.py).
"""

import numpy as np

from policies.karnaxis import expected_income, held_salary, tax_keep
from policies.learned import SAMPLE_HEAD, position_value, sample_columns
from policies.search import margin_to_best_other, win_share
from simulator.core.kernel import rule
from simulator.games.karnaxis import search
from simulator.games.karnaxis import state as S

MILLION = 1e6
PRIOR_CAP = 5.0  # $M: a rollout policy's score is clipped to ±this (it marks a refused option
# with -1e12 and a must with +1e9)

# The features, in the order of the weights: the position's, then its character's ability and
# ambition (its Karnaxis), one 0/1 feature each (they tell a character choice's options apart)
POSITION = (
    "winning",  # the seat's share of the best provisional final cash now (1, 1/k tied, 0)
    "score",  # its provisional final cash: Game End counted now (search.seat_scores)
    "margin",  # that minus the best other seat's
    "lead",  # the margin's logistic, MARGIN_SCALE for odds of e to 1
    "cash",  # its cash
    "salary_left",  # the best salary it holds, times the year ends left
    "business_left",  # its business income and this year's growth, times the year ends left
    "growth_left",  # its growth, compounded over the year ends left (income added each year)
    "kept_left",  # the year's foreseen income after its tax bracket's rate, times those left
    "loans",  # its loans outstanding
    "notices",  # its delinquent notices
    "tokens",  # its retirement tokens
    "college",  # its years of College
    "attributes",  # its four attributes' sum, in tens
    "job",  # it holds a job
    "businesses",  # its businesses
    "franchises",  # its franchises
    "level",  # its (merged) business level
    "stocks",  # its shares at their stock values, in hundreds of value points
    "cards",  # its saved Karnaxis cards
    "karnaxis",  # it has fulfilled its Karnaxis
    "accountant",  # it has hired an accountant
    "insured",  # it holds an insurance token
    "prior",  # the rollout policy's score of the action, $M (clipped)
    "college_left",  # its years of College, times the year ends left
    "attributes_left",  # its attributes' sum in tens, times the year ends left
    "loans_left",  # its loans outstanding, times the year ends left
    "starter",  # it starts the next year's Take Action! (it collected unemployment)
    "projected_margin",  # provisional cash plus the income to come after tax, over the best other's
    "projected_lead",  # that margin's logistic, MARGIN_SCALE for odds of e to 1
)
ABILITY_AT = len(POSITION)
AMBITION_AT = ABILITY_AT + len(S.ABILITIES)
FEATURES = (
    *POSITION,
    *(f"ability_{a}" for a in S.ABILITIES),
    *(f"ambition_{k}" for k in S.AMBITIONS),
)
N_FEATURES = len(FEATURES)
SCRATCH = N_FEATURES + S.MAX_PLAYERS  # a features row's width: the features, then each seat's
SAMPLE_WIDTH = SAMPLE_HEAD + N_FEATURES  # a samples row (policies/learned.py)
SAMPLE_COLUMNS = sample_columns(FEATURES)


@rule
def weights_count(knobs, policy):
    """How many weights a learned policy has (0: none; N_FEATURES: a linear value; more: a
    network, simulator.core.game.network_length): its row's last column (game.py)."""
    return np.int64(knobs[policy, knobs.shape[1] - 1])


@rule
def has_weights(knobs, policy):
    return weights_count(knobs, policy) >= N_FEATURES


@rule
def learned_value(row, knobs, policy):
    """The value of the features in ``row`` by ``policy``'s weights, which end just before
    their count (policies.learned.position_value)."""
    count = weights_count(knobs, policy)
    first = knobs.shape[1] - 1 - count
    return position_value(row, knobs[policy], first, count, N_FEATURES)


@rule
def features(state, rules, knobs, seat, rollout_policy, prior, row):
    """The features of the position in ``state`` seen from ``seat`` (FEATURES) into
    ``row[:N_FEATURES]`` (float64[SCRATCH]: the rest holds each seat's provisional cash);
    ``prior`` is the rollout policy's score of the action that led here, the tax rates its
    readings of the rules (``rollout_policy``'s row of ``knobs``)."""
    n_players = rules[S.CFG_PLAYERS]
    r = S.row(seat)
    scores = row[N_FEATURES : N_FEATURES + n_players]
    search.seat_scores(state, rules, scores)
    margin = margin_to_best_other(scores, n_players, seat)
    left = rules[S.CFG_YEARS] - state[S.YEAR] + 1
    if state[S.PHASE] == S.AT_NEW_YEAR or state[S.PHASE] == S.AT_END:
        left -= 1  # this year's Year End Review is over
    left = max(left, 0)
    expected = expected_income(state, rules, seat)
    row[:N_FEATURES] = 0.0
    row[0] = win_share(scores, n_players, seat)
    row[1] = scores[seat] / MILLION
    row[2] = margin / MILLION
    row[3] = 1.0 / (1.0 + np.exp(-margin / search.MARGIN_SCALE))
    row[4] = state[r + S.CASH] / MILLION
    row[5] = held_salary(state, rules, seat) * left / MILLION
    row[6] = (state[r + S.INCOME] + state[r + S.GROWTH]) * left / MILLION
    row[7] = state[r + S.GROWTH] * left * (left + 1) / 2.0 / MILLION
    keep = tax_keep(rules, knobs, rollout_policy, 0, expected)
    row[8] = expected * keep * left / MILLION
    row[9] = state[r + S.LOANS] / MILLION
    row[10] = state[r + S.NOTICES]
    row[11] = state[r + S.RETIRE_TOKENS]
    row[12] = state[r + S.COLLEGE]
    attributes = 0
    for a in range(S.N_ATTR):
        attributes += state[r + S.ATTR + a]
    row[13] = attributes / 10.0
    row[14] = state[r + S.JOB] >= 0 or state[r + S.JOB_B] >= 0
    row[15] = state[r + S.N_BUSINESSES]
    row[16] = state[r + S.N_FRANCHISES]
    row[17] = state[r + S.BUSINESS_LEVEL]
    held = 0
    for s in range(n_players + 1):
        if state[S.stock(s) + S.ACTIVE] == 1:
            held += state[S.share(seat, s)] * state[S.stock(s) + S.VALUE]
    row[18] = held / 100.0
    row[19] = state[r + S.CARDS_HELD]
    row[20] = state[r + S.KARNAXIS_DONE]
    row[21] = state[r + S.ACCOUNTANT]
    row[22] = state[r + S.INSURED]
    row[23] = min(PRIOR_CAP, max(-PRIOR_CAP, prior / MILLION))
    row[24] = row[12] * left / 10.0
    row[25] = row[13] * left / 10.0
    row[26] = row[9] * left
    row[27] = state[S.NEXT_STARTER] == seat
    for p in range(n_players):  # each seat's provisional cash plus its income to come
        income = expected_income(state, rules, p)
        growth = state[S.row(p) + S.GROWTH] * (left - 1) * left / 2.0
        scores[p] += (income * left + growth) * tax_keep(rules, knobs, rollout_policy, 0, income)
    projected = margin_to_best_other(scores, n_players, seat)
    row[28] = projected / MILLION
    row[29] = 1.0 / (1.0 + np.exp(-projected / search.MARGIN_SCALE))
    character = state[r + S.CHARACTER]  # 0 before Game Setup's choice: the same for every option
    row[ABILITY_AT + S.character(rules, character, S.C_ABILITY)] = 1.0
    row[AMBITION_AT + S.character(rules, character, S.C_KARNAXIS)] = 1.0
