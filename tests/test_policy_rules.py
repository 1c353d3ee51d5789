"""Every policy plays by the rule values it is given: a scoring, price, payout, cap or hand
size variant changes its choice in a constructed position, and the printed value written out
changes nothing.  The policies' scorers run as plain Python (tests/karnaxis_world.py)."""

import numpy as np
import pytest
from ekonos_table import Table
from karnaxis_world import GAME as KARNAXIS
from karnaxis_world import POLICY, World, plain_python

import policies.ekonos as ekonos_policies
import policies.karmaggan as karmaggan_policies
import policies.karnaxis as karnaxis_policies
from simulator.core.game import get_game
from simulator.games.ekonos.state import BUY, NO_TRADE, OFFERED, SHARES_OUT, TRADED
from simulator.games.karmaggan.state import CFG_HAND_MAX, P_HAND_N, TUMULT
from simulator.games.karnaxis import state as S

EKONOS = plain_python([ekonos_policies])
KARNAXIS_POLICIES = plain_python([karnaxis_policies])
KARMAGGAN = plain_python([karmaggan_policies])

# ---- Ekonos: option scores in points of the [scoring] keys -----------------------------------

# Alpha (company 0) has four indicators on the board, so a share is worth about 6 M.U. before
# the end; seat 0 is offered one share of Alpha or nothing
ALPHA_FOUR = """
    A A . .
    A A . .
    . . . .
"""


def ekonos_buys(sets: tuple = (), shares_out: int = 0) -> bool:
    """Whether value_investor in seat 0 buys the offered share of Alpha under ``sets``, with
    ``shares_out`` shares of it already sold (the price is one more)."""
    t = Table(ALPHA_FOUR, sets=sets, policy=ekonos_policies.VALUE_INVESTOR)
    t.state[SHARES_OUT + 0] = shares_out
    t.state[OFFERED] = 1 << NO_TRADE | 1 << TRADED + 0  # nothing, or a share of Alpha
    rng = np.zeros_like(t.rng)
    pid = ekonos_policies.VALUE_INVESTOR
    return EKONOS["policy_choice"](t.state, t.cfg, t.knobs, rng, pid, BUY, 0, 0, 2) == 1


def test_ekonos_prices_are_weighed_in_points_of_an_mu():
    assert ekonos_buys()  # 6 - 1 (price) - 1 (margin) > 0
    assert ekonos_buys(("scoring.per_mu=1",))  # the printed value written out
    assert not ekonos_buys(("scoring.per_mu=10",))  # the price now costs 10 points
    assert not ekonos_buys(("scoring.per_indicator=0",))  # a share is worth nothing


def test_ekonos_a_presidency_worth_points_is_worth_buying():
    # five shares out: a sixth costs 6 M.U., more than the share is worth, and takes Alpha's
    # presidency (nobody holds it: the sold shares are not held in this position)
    assert not ekonos_buys(shares_out=5)
    assert not ekonos_buys(("scoring.per_presidency=0",), shares_out=5)
    assert ekonos_buys(("scoring.per_presidency=20",), shares_out=5)


# ---- Karnaxis: prices, payouts, the loan cap and the Karnaxis deck ----------------------------


def karnaxis_choice(sets: tuple, options: list[tuple[int, int]], cash: int = 0) -> int:
    """The action scholar in seat 0 (Wes, whose ambition no card nor token advances) takes
    among ``options`` ([action, cost] rows) in year 1 with ``cash`` dollars, under the
    default rules with ``sets``."""
    w = World(KARNAXIS.rules(sets=sets), policies=[POLICY["scholar"]] * 4)
    w.make(0, "Wes")
    w.players[0, S.CASH] = cash
    for i, (action, cost) in enumerate(options):
        w.options[i, :] = 0
        w.options[i, S.OPT_ACTION], w.options[i, S.OPT_COST] = action, cost
    rng = np.zeros_like(w.rng)
    pid = POLICY["scholar"]
    i = KARNAXIS_POLICIES["policy_choice"](
        w.state, w.rules_array, w.knobs, rng, pid, S.D_ACTION, 0, S.NONE, len(options)
    )
    return options[i][0]


STUDY_OR_TOKEN = [(S.ACT_STUDY, 0), (S.ACT_RETIREMENT, 5000)]
STUDY_OR_CARD = [(S.ACT_STUDY, 0), (S.ACT_KARNAXIS, 15000)]
PAYOUT_TENTH = (
    "retirement.payout_usd=[0, 800, 1800, 3000, 4400, 6000, 7800, 9800, 12000, 14400, 17000]",
    "retirement.extra_token_usd=2800",
)


def test_karnaxis_a_retirement_token_is_worth_the_payout_table():
    assert karnaxis_choice((), STUDY_OR_TOKEN) == S.ACT_RETIREMENT
    assert karnaxis_choice(("retirement.extra_token_usd=28000",), STUDY_OR_TOKEN) == (
        S.ACT_RETIREMENT
    )
    assert karnaxis_choice(PAYOUT_TENTH, STUDY_OR_TOKEN) == S.ACT_STUDY


def test_karnaxis_borrowing_stops_at_a_share_of_the_rules_loan_cap():
    # no cash: the token is paid by a loan, within scholar's 0.3 of a $200,000 cap
    assert karnaxis_choice(("loans.cap_usd=200000",), STUDY_OR_TOKEN) == S.ACT_RETIREMENT
    assert karnaxis_choice(("loans.cap_usd=10000",), STUDY_OR_TOKEN) == S.ACT_STUDY
    # with the cash in hand no loan is needed, whatever the cap
    assert karnaxis_choice(("loans.cap_usd=10000",), STUDY_OR_TOKEN, 5000) == S.ACT_RETIREMENT


def test_karnaxis_a_card_is_worth_the_average_of_the_deck():
    assert karnaxis_choice((), STUDY_OR_CARD) == S.ACT_STUDY
    rich_deck = (
        "karnaxis_cards.effect=[" + ", ".join(['"cash"'] * 40) + "]",
        "karnaxis_cards.value=[" + ", ".join(["100000"] * 40) + "]",
    )
    assert karnaxis_choice(rich_deck, STUDY_OR_CARD) == S.ACT_KARNAXIS


STEEP_TAXES = ("taxes.standard_usd=[0, 5000, 20000, 50000, 90000, 130000, 170000, 210000]",)


@pytest.mark.parametrize("sets", [(), STEEP_TAXES, PAYOUT_TENTH])
def test_karnaxis_the_decks_estimate_is_its_exact_worth_to_rounding(sets):
    """The deck's worth as a decision first estimates it, from the tables read once a variant,
    is the card-by-card average within the bound policy_choice relies on, whatever the tokens
    held, the loans, the accountant and the year's income: incomes at a bracket's edge put
    the growth cards in two brackets."""
    w = World(KARNAXIS.rules(sets=sets), policies=[POLICY["tycoon"]] * 4)
    w.make(0, "Wes")
    estimate, worth = KARNAXIS_POLICIES["deck_estimate"], KARNAXIS_POLICIES["deck_worth"]
    n = w.rules_array[S.CFG_N_KCARDS]
    for tokens, loans, accountant in [(0, 0, 0), (3, 25_000, 1), (10, 60_000, 0), (40, 0, 1)]:
        for income in (0, 24_000, 49_000, 99_500, 400_000):
            w.players[0, S.RETIRE_TOKENS], w.players[0, S.LOANS] = tokens, loans
            w.players[0, S.ACCOUNTANT], w.players[0, S.INCOME] = accountant, income
            seen = KARNAXIS_POLICIES["foresee"](w.state, w.rules_array, 0)
            args = (w.state, w.rules_array, w.knobs, POLICY["tycoon"], 0, *seen)
            deck, size = estimate(*args)
            assert abs(deck - worth(*args)) <= 16 * n * np.finfo(float).eps / 2 * size


@pytest.mark.parametrize("sets", [(), STEEP_TAXES])
def test_karnaxis_a_decision_foresees_its_incomes_bracket_from_any_bracket_last_year(sets):
    """A decision reads its tax bracket once, searched from last year's (on the board): it is
    the bracket Year End taxes the foreseen income in, whatever bracket last year's was, at a
    bracket's edges as well."""
    w = World(KARNAXIS.rules(sets=sets), policies=[POLICY["tycoon"]] * 4)
    tops = w.rules["taxes"]["bracket_max_usd"]
    for last in range(len(tops) + 1):
        for income in (0, 24_000, *tops, *(top + 1 for top in tops), 400_000):
            w.players[0, S.YEAR_BRACKET], w.players[0, S.INCOME] = last, income
            left, expected, bracket = KARNAXIS_POLICIES["foresee"](w.state, w.rules_array, 0)
            assert bracket == w.call("tax_bracket", expected)


def insurance_score(sets: tuple) -> float:
    """cautious' score of the Buy Insurance trade the engine offers seat 0 under ``sets``."""
    w = World(KARNAXIS.rules(sets=sets), policies=[POLICY["cautious"]] * 4)
    w.players[0, S.CASH] = 10_000
    n = w.call("list_trades", 0)
    i = next(i for i in range(n) if w.options[i, S.OPT_ACTION] == S.MK_INSURANCE)
    pid = POLICY["cautious"]
    seen = KARNAXIS_POLICIES["foresee"](w.state, w.rules_array, 0)
    return KARNAXIS_POLICIES["trade_score"](w.state, w.rules_array, w.knobs, pid, 0, i, *seen)


def test_karnaxis_insurance_is_bought_when_worth_more_than_its_price():
    # cautious values a year insured at $6,000: above the printed $5,000, below $8,000
    assert insurance_score(()) == pytest.approx(6000 - 5000)
    assert insurance_score(("actions.insurance_usd=5000",)) == pytest.approx(6000 - 5000)
    assert insurance_score(("actions.insurance_usd=8000",)) == pytest.approx(6000 - 8000)


# ---- Karmaggän: the hand size ---------------------------------------------------------------


@pytest.mark.parametrize("hand_max, worth", [(8, 0.3), (12, 1.5)])
def test_karmaggan_a_card_drawing_object_is_worth_playing_below_half_the_hand_size(hand_max, worth):
    game = get_game("karmaggan")
    cfg, knobs, _ = game.prepare(game.rules(sets=(f"turn.hand_max={hand_max}",)), 4)
    state = np.zeros(int(P_HAND_N) + 8, np.int64)
    state[P_HAND_N + 0] = 5  # five cards in hand: half of 8 is 4, half of 12 is 6
    value = KARMAGGAN["object_value"](
        state, 0, TUMULT, knobs[1], int(cfg[CFG_HAND_MAX]), 3, 0, False, False
    )
    assert value == pytest.approx(worth)
