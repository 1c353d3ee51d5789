"""The Karnaxis policies and their knobs: each policy's id, the columns of the knobs table, and
what each policy reads from the rules, computed once per variant (:func:`readings`)."""

import numpy as np

from policies.common import HANDICAP_KNOBS, RANDOM
from policies.search import LEARNED_SEARCH_KNOBS, SEARCH_KNOBS
from simulator.core.game import Policy
from simulator.games.karnaxis import state as S

SCHOLAR, TYCOON, SPECULATOR, CAUTIOUS, SEARCH, LEARNED = range(1, 7)
POLICIES = (
    Policy(RANDOM, "random", "uniformly random among the legal options at every decision"),
    Policy(SCHOLAR, "scholar", "college to senior year, then the best-paid job it qualifies for"),
    Policy(
        TYCOON, "tycoon", "starts businesses and franchises early, borrowing to the cap to grow"
    ),
    Policy(SPECULATOR, "speculator", "buys cheap shares, sells high, collects dividends"),
    Policy(
        CAUTIOUS, "cautious", "never borrows by choice; insurance, retirement fund, steady jobs"
    ),
    Policy(
        SEARCH,
        "search",
        "plays out its rollout policy's best options from each decision "
        "and takes the one that wins most (determinized Monte Carlo)",
    ),
    Policy(
        LEARNED,
        "learned",
        "takes the action whose resulting position a value function learned from the "
        "search's games rates highest (one ply)",
    ),
)
KNOBS = (
    (
        "college_target",
        "university_value",
        "job_weight",
        "business_weight",
        "stock_weight",
        "buy_below",
        "sell_at",
        "borrow_share",
        "borrow_penalty",
        "retirement_weight",
        "insurance_value",
        "accountant_income",
        "card_weight",
        "study_value",
        "tax_free_at",
        "ambition_weight",
    )
    + SEARCH_KNOBS
    + HANDICAP_KNOBS
    + LEARNED_SEARCH_KNOBS
)
(
    COLLEGE_TARGET,
    UNIVERSITY_VALUE,
    JOB_WEIGHT,
    BUSINESS_WEIGHT,
    STOCK_WEIGHT,
    BUY_BELOW,
    SELL_AT,
    BORROW_SHARE,
    BORROW_PENALTY,
    RETIREMENT_WEIGHT,
    INSURANCE_VALUE,
    ACCOUNTANT_INCOME,
    CARD_WEIGHT,
    STUDY_VALUE,
    TAX_FREE_AT,
    AMBITION_WEIGHT,
    ROLLOUTS,
    ROLLOUT_POLICY_KNOB,
    HORIZON,
    TOP_K,
    BLUNDER,
    LEARNED_VALUE,
) = range(1, 23)  # knobs columns (0: the behaviour)
# Then what each policy reads from the rules, computed once per variant (:func:`readings`),
# not at every decision: an attribute's worth (its study value per attribute a Study gives),
# a Karnaxis college card's, the loan rate, its borrowing limit in dollars, what a forgiven
# dollar of loan saves; the Karnaxis deck by kind (:func:`deck_estimate`): the worth of its
# cards whose worth is the same in every game (cash, dice, attributes, college) and its
# absolute value, the black shares its cards give, its tax-free cards, the sum of its growth
# cards' values and of their absolute values, and the columns where the tables of its other
# cards start, in turn, up to DECK_END: its growth cards' values in increasing order (so each
# card's tax bracket is searched from the one before), for each count of retirement tokens
# held (the last row: that many or more) what its retirement cards add to the payout and the
# absolute value of it, and its forgiving cards' values; from KEEP on, the share of a further
# dollar of income kept after the standard tax of each bracket (:func:`tax_keep`), then the
# deck's tables.
(
    PER_ATTRIBUTE,
    COLLEGE_WORTH,
    LOAN_RATE,
    BORROW_LIMIT,
    FORGIVE_FACTOR,
    DECK_FIXED,
    DECK_FIXED_SIZE,
    DECK_BLACK,
    DECK_TAX_FREE,
    DECK_GROWTH_SUM,
    DECK_GROWTH_SIZE,
    DECK_GROWTH,
    DECK_RETIREMENT,
    DECK_RETIREMENT_SIZE,
    DECK_FORGIVE,
    DECK_END,
    KEEP,
) = range(23, 40)
DIE_MEAN = 3.5  # a dice-cash card pays its value times one die (1-6)


def readings(rules: dict, knobs: np.ndarray) -> np.ndarray:
    """``knobs`` (the policies' table, one row per policy) with the columns from
    PER_ATTRIBUTE on: what each policy reads from the rules ``rules``, computed once per
    variant the way a decision would compute it (so the very same floats, but for the deck's
    tables, summed once a kind instead of once a card: :func:`deck_estimate`)."""
    actions, taxes, loans = rules["actions"], rules["taxes"], rules["loans"]
    tops, standard = taxes["bracket_max_usd"], taxes["standard_usd"]
    cards = rules["karnaxis_cards"]
    kinds = [S.CARD_EFFECTS.index(e) for e in cards["effect"]]

    def of_kind(kind):
        return [v for k, v in zip(kinds, cards["value"]) if k == kind]

    added = retirement_added(rules["retirement"], of_kind(S.KE_RETIREMENT))
    tables = (
        sorted(of_kind(S.KE_GROWTH)),
        [sum(a) for a in added],
        [sum(map(abs, a)) for a in added],
        of_kind(S.KE_FORGIVE),
    )
    values = KEEP + len(standard)
    out = np.zeros((knobs.shape[0], values + sum(map(len, tables))))
    out[:, :PER_ATTRIBUTE] = knobs
    for row in out:
        row[PER_ATTRIBUTE] = row[STUDY_VALUE] / max(actions["study_attributes"], 1)
        row[COLLEGE_WORTH] = (actions["college_aptitude"] + 1) * row[PER_ATTRIBUTE]
        row[LOAN_RATE] = loans["interest_pct"] / 100.0
        row[BORROW_LIMIT] = row[BORROW_SHARE] * loans["cap_usd"]
        row[FORGIVE_FACTOR] = 1.0 + loans["interest_pct"] / 100.0
        for b, tax in enumerate(standard):
            top = tops[min(b, len(tops) - 1)] if tops else 1
            row[KEEP + b] = 1.0 - tax / max(top, 1)
        fixed = {
            S.KE_CASH: lambda v: float(v),
            S.KE_DICE_CASH: lambda v: DIE_MEAN * v,
            S.KE_ATTRIBUTES: lambda v, row=row: v * row[PER_ATTRIBUTE],
            S.KE_COLLEGE: lambda v, row=row: row[COLLEGE_WORTH],
        }
        worths = [fixed[k](v) for k, v in zip(kinds, cards["value"]) if k in fixed]
        row[DECK_FIXED], row[DECK_FIXED_SIZE] = sum(worths), sum(map(abs, worths))
        row[DECK_BLACK] = sum(of_kind(S.KE_BLACK_SHARES))
        row[DECK_TAX_FREE] = kinds.count(S.KE_TAX_FREE)
        row[DECK_GROWTH_SUM], row[DECK_GROWTH_SIZE] = sum(tables[0]), sum(map(abs, tables[0]))
        at = values
        columns = (DECK_GROWTH, DECK_RETIREMENT, DECK_RETIREMENT_SIZE, DECK_FORGIVE)
        for column, table in zip(columns, tables):
            row[column] = at
            row[at : at + len(table)] = table
            at += len(table)
        row[DECK_END] = at
    return out


def retirement_added(retirement: dict, values: list[int]) -> list[list[int]]:
    """For each count of retirement tokens held, up to the payout table's last (beyond it a
    token adds the same extra_token_usd whatever the count), what each retirement card of
    ``values`` tokens adds to the payout (:func:`state.payout_for`)."""
    payout, extra = retirement["payout_usd"], retirement["extra_token_usd"]
    last = len(payout) - 1

    def pays(tokens):
        return payout[tokens] if tokens <= last else payout[last] + (tokens - last) * extra

    return [[pays(held + v) - pays(held) for v in values] for held in range(last + 1)]
