"""Karnaxis rule scenarios, part 2: businesses and franchises, 3. Year End Review, Loan Odds
'n Ends and Game End (rulebook: shared/rules/karnaxis.md; part 1 is test_karnaxis_rules.py,
whose docstring says how these tests are built; part 3, characters, jobs and the Karnaxis, is
test_karnaxis_rules_characters.py)."""

import numpy as np
import pytest
from karnaxis_world import World, rules_with

from simulator.games.karnaxis import state as S


def no_abilities(w):
    """Seats play characters whose abilities touch no money rule tested here."""
    for seat, name in enumerate(
        ("Ines", "Julie", "Whitney", "Priya", "Amelia", "Nadia")[: len(w.players)]
    ):
        w.make(seat, name)


def end_game(w):
    out_game = np.zeros(S.N_GAME_OUT, np.int64)
    out_players = np.zeros(len(w.players), S.PLAYER_ROW)
    w.call("end_game", out_game, out_players)
    return out_game, out_players


# --------------------------------------------------------------------- businesses


@pytest.mark.parametrize(
    "business,level,cost",
    [
        ("Shoe Shop", 1, 20_000),
        ("Bakery", 2, 60_000),
        ("Tech Startup", 3, 120_000),
        ("Advertising Firm", 4, 170_000),
    ],
)
def test_start_business_cost_growth_shares_and_stock(business, level, cost):
    """Start Business: cost by level ($20k/$60k/$120k/$170k); +1 business card, +its business
    growth, +5 shares; the first business puts the player's stock at 5."""
    w = World()
    no_abilities(w)
    b = w.index("businesses", business)
    w.players[0, S.CASH] = 200_000
    w.call("start_business", 0, b)
    assert w.cash(0) == 200_000 - cost and w.owners[S.OWN_BIZ, b] == 0
    assert w.players[0, S.GROWTH] == w.biz[b, S.B_GROWTH] and w.players[0, S.MERGED_LEVEL] == level
    assert w.shares[0, 0] == 5 and w.stocks[0, S.ACTIVE] == 1 and w.stocks[0, S.VALUE] == 5


def test_second_business_leaves_the_stock_and_one_business_a_year():
    """Start Business: only the first business circles 5 on the stock board; each start gives
    5 more shares; players can start one business per year."""
    w = World()
    no_abilities(w)
    w.own(0, "Shoe Shop")
    w.stocks[0, S.VALUE] = 8
    w.own(0, "Food Truck")
    assert w.stocks[0, S.VALUE] == 8 and w.shares[0, 0] == 10
    w.players[0, S.CASH] = 100_000
    w.players[0, S.ATTR : S.ATTR + 4] = [10, 10, 10, 10]
    w.players[0, S.BUSINESS_YEAR] = w.board[S.YEAR]
    assert not any(a == S.ACT_BUSINESS for a, _ in w.offered(0))
    w.board[S.YEAR] += 1
    assert any(a == S.ACT_BUSINESS for a, _ in w.offered(0))


def test_business_needs_the_prerequisites():
    """Start Business: only with the prerequisites (the card's attribute minimums)."""
    w = World()
    no_abilities(w)
    w.players[0, S.CASH] = 200_000
    startup = w.index("businesses", "Tech Startup")  # needs aptitude 6, creativity 4
    w.players[0, S.ATTR : S.ATTR + 4] = [5, 0, 4, 0]
    assert (S.ACT_BUSINESS, startup) not in w.offered(0)
    w.players[0, S.ATTR] = 6
    assert (S.ACT_BUSINESS, startup) in w.offered(0)


def test_franchise_costs_by_the_merged_mother_level_paid_to_its_owner():
    """Start Franchise / Ins 'n Outs: a player's businesses are merged at the level of the
    highest, and a franchise costs by the mother business's level, paid to its owner; +5
    shares in the mother business.

        seat 1 owns  Tech Startup (level 3), then Shoe Shop (level 1)  -> merged level 3
        seat 0 franchises seat 1's business: $75,000 to seat 1, not $15,000
    """
    w = World()
    no_abilities(w)
    w.own(1, "Tech Startup")
    w.own(1, "Shoe Shop")
    assert w.players[1, S.BUSINESS_LEVEL] == 3
    w.players[0, S.ATTR : S.ATTR + 4] = [10, 10, 10, 10]
    w.players[0, S.CASH] = 100_000
    franchises = [a for a in w.offered(0) if a[0] == S.ACT_FRANCHISE]
    assert franchises == [(S.ACT_FRANCHISE, 1)]  # one mother business per seat
    before = w.cash(1)
    w.call("start_franchise", 0, 1)
    assert w.cash(0) == 25_000 and w.cash(1) - before == 75_000
    assert w.shares[0, 1] == 5 and w.board[S.FRANCHISES_LEFT] == 8
    assert w.players[0, S.GROWTH] == w.tables[S.T_FRANCHISE_GROWTH, 2]
    assert w.players[0, S.MERGED_LEVEL] == 3 and w.players[0, S.N_FRANCHISES] == 1


@pytest.mark.parametrize(
    "mother,cost",
    [
        ("Shoe Shop", 15_000),
        ("Bakery", 40_000),
        ("Tech Startup", 75_000),
        ("Advertising Firm", 100_000),
    ],
)
def test_franchise_costs_the_printed_price_of_its_mother_level(mother, cost):
    """Start Franchise (table): a mother business of level 1 costs $15,000, level 2 $40,000,
    level 3 $75,000, level 4 $100,000, paid to its owner."""
    w = World()
    no_abilities(w)
    w.own(1, mother)
    w.players[0, S.ATTR : S.ATTR + 4] = [10, 10, 10, 10]
    w.players[0, S.CASH] = 150_000
    before = w.cash(1)
    w.call("start_franchise", 0, 1)
    assert 150_000 - w.cash(0) == cost and w.cash(1) - before == cost


def test_franchise_needs_the_mother_prerequisites_one_a_year_not_own_business():
    """Start Franchise: one a year, in another player's business, with its prerequisites
    (ASSUMED for a merged business: those of any one of its cards)."""
    w = World()
    no_abilities(w)
    w.own(1, "Car Wash")  # needs fitness 3
    w.own(0, "Shoe Shop")
    w.players[0, S.CASH] = 100_000
    w.players[0, S.ATTR + 3] = 2
    assert (S.ACT_FRANCHISE, 1) not in w.offered(0)
    w.players[0, S.ATTR + 3] = 3
    offered = w.offered(0)
    assert (S.ACT_FRANCHISE, 1) in offered and (S.ACT_FRANCHISE, 0) not in offered
    w.players[0, S.FRANCHISE_YEAR] = w.board[S.YEAR]
    assert (S.ACT_FRANCHISE, 1) not in w.offered(0)


def test_advertise_by_merged_level_needs_a_business():
    """Advertise: not without a business or franchise; tiers by the level of business or
    franchise owned; level 1+ costs $10,000 for +$2,000 business growth."""
    w = World()
    no_abilities(w)
    w.players[0, S.CASH] = 100_000
    assert not any(a == S.ACT_ADVERTISE for a, _ in w.offered(0))
    w.own(0, "Shoe Shop")
    assert [t for a, t in w.offered(0) if a == S.ACT_ADVERTISE] == [0]
    w.own(0, "Tech Startup")
    assert [t for a, t in w.offered(0) if a == S.ACT_ADVERTISE] == [0, 1, 2]
    growth, cash = int(w.players[0, S.GROWTH]), w.cash(0)
    w.call("do_action", 0, S.ACT_ADVERTISE, 0, False)
    assert w.players[0, S.GROWTH] == growth + 2_000 and cash - w.cash(0) == 10_000


def test_advertise_at_level_two_costs_the_printed_20000_for_3000_growth():
    """Advertise (table): the 2+ row costs $20,000 for +$3,000 business growth, offered from a
    level 2 business on, not to the owner of a level 1 business alone."""
    w = World()
    no_abilities(w)
    w.players[0, S.CASH] = 100_000
    w.own(0, "Shoe Shop")
    assert (S.ACT_ADVERTISE, 1) not in w.offered(0)
    w.own(0, "Bakery")
    assert (S.ACT_ADVERTISE, 1) in w.offered(0)
    growth, cash = int(w.players[0, S.GROWTH]), w.cash(0)
    w.call("do_action", 0, S.ACT_ADVERTISE, 1, False)
    assert w.players[0, S.GROWTH] == growth + 3_000 and cash - w.cash(0) == 20_000


def test_accounting_firm_free_smart_tax_and_the_fees():
    """Level 4, Accounting firm: free accounting token and all accounting fees from other
    players; its franchise owners only get the free token."""
    w = World()
    no_abilities(w)
    w.own(1, "Accounting Firm")
    w.players[2, S.ATTR : S.ATTR + 4] = [10, 10, 10, 10]
    w.players[2, S.CASH] = 200_000
    w.call("start_franchise", 2, 1)
    for p in (1, 2, 3):
        w.players[p, S.YEAR_SALARY] = 60_000
        w.players[p, S.CASH] = 100_000
        w.call("pay_taxes", p)
    assert [w.players[p, S.YEAR_TAX] for p in (1, 2, 3)] == [10_000, 10_000, 30_000]
    w.call("trade", 3, S.MK_ACCOUNTANT, 0, 0, 10_000)
    assert w.cash(1) == 100_000 - 10_000 + 10_000


def test_insurance_firm_free_insurance_retirement_discount_and_fees():
    """Level 4, Insurance and Investing firm: free insurance token (immune now) and $5,000 off
    the Retirement fund action; its owner receives the insurance and retirement fees others
    pay."""
    w = World()
    no_abilities(w)
    w.board[S.YEAR] = 2
    w.players[:, S.PROTECTED] = 0
    w.own(1, "Insurance and Investing Firm")
    assert w.players[1, S.PROTECTED] == 1 and w.players[0, S.PROTECTED] == 0
    assert w.call("retirement_cost", 1) == 0 and w.call("retirement_cost", 0) == 5_000
    before = w.cash(1)
    w.call("do_action", 0, S.ACT_RETIREMENT, 0, False)
    w.players[0, S.CASH] = 10_000
    w.call("trade", 0, S.MK_INSURANCE, 0, 0, 5_000)
    assert w.cash(1) - before == 10_000
    n = w.call("list_trades", 1)
    assert S.MK_INSURANCE not in w.options[:n, S.OPT_ACTION]


def test_advertising_firm_discount_and_the_advertising_money():
    """Level 4, Advertising firm: $20,000 discount when advertising, and all money other
    players pay to advertise."""
    w = World()
    no_abilities(w)
    w.own(1, "Advertising Firm")
    w.own(0, "Tech Startup")
    assert w.call("advertise_cost", 1, 2) == 40_000 - 20_000
    assert w.call("advertise_cost", 0, 2) == 40_000
    before = w.cash(1)
    w.players[0, S.CASH] = 50_000
    w.call("do_action", 0, S.ACT_ADVERTISE, 2, False)
    assert w.cash(1) - before == 40_000


# --------------------------------------------------------------------- 3. Year End Review


def test_business_income_worked_example():
    """Year End Review, step 1: the shoe shop example: growth $2k -> receive $2,000; advertise
    to $4k growth -> receive $6,000; no new growth -> still +$4k -> receive $10,000."""
    w = World()
    no_abilities(w)
    w.own(0, "Shoe Shop")
    received = []
    for year, advertise in ((1, False), (2, True), (3, False)):
        w.board[S.YEAR] = year
        if advertise:
            w.players[0, S.GROWTH] += 2000
        before = w.cash(0)
        w.call("pay_income", 0)
        received.append(w.cash(0) - before)
    assert received == [2000, 6000, 10000]


def test_business_income_stops_at_the_last_income_circle():
    """Know Your Player Board: the income marker uses the 100k/200k/300k circles; it cannot
    pass the last one (ASSUMED at $399,000: business.income_max_usd)."""
    w = World()
    no_abilities(w)
    w.own(0, "Shoe Shop")
    w.players[0, S.INCOME] = 390_000
    w.players[0, S.GROWTH] = 20_000
    w.call("pay_income", 0)
    assert w.players[0, S.INCOME] == 399_000 and w.players[0, S.YEAR_BUSINESS] == 399_000


def test_salary_for_jobs_worked_and_just_started():
    """Year End Review: players who have gone to work and/or just started a job receive its
    salary; a second job found by Job Search pays too."""
    w = World()
    no_abilities(w)
    w.hire(0, "Cashier")
    w.players[0, S.WORKED] = 1
    w.call("take_job", 0, w.index("jobs", "Waiter"))
    w.hire(1, "Nurse")  # not gone to work this year
    w.call("pay_income", 0)
    w.call("pay_income", 1)
    assert w.players[0, S.YEAR_SALARY] == 15_000 + 17_000 and w.players[1, S.YEAR_SALARY] == 0


@pytest.mark.parametrize(
    "income,standard,smart",
    [
        (0, 5000, 0),
        (25_000, 5000, 0),
        (26_000, 15000, 5000),
        (50_000, 15000, 5000),
        (51_000, 30000, 10000),
        (100_000, 30000, 10000),
        (101_000, 60000, 30000),
        (150_000, 60000, 30000),
        (151_000, 90000, 50000),
        (201_000, 120000, 70000),
        (251_000, 150000, 90000),
        (300_000, 150000, 90000),
        (301_000, 180000, 110000),
    ],
)
def test_tax_brackets(income, standard, smart):
    """Tax Brackets (player board): standard and smart (accountant) tax by income."""
    w = World()
    w.make(0, "Ines")
    assert w.call("tax_due", 0, income, False) == standard
    assert w.call("tax_due", 0, income, True) == smart


def test_taxes_on_salary_plus_business_income():
    """Tax Brackets: taxes at the year end on the year's income (ASSUMED salary + business
    income): $30,000 salary + $25,000 business income is in the 51-100 bracket."""
    w = World()
    no_abilities(w)
    w.players[0, S.YEAR_SALARY], w.players[0, S.YEAR_BUSINESS] = 30_000, 25_000
    w.players[0, S.CASH] = 50_000
    w.call("pay_taxes", 0)
    assert w.players[0, S.YEAR_BRACKET] == 2 and w.cash(0) == 20_000


def test_tax_collector_discount_is_5000_per_player():
    """Jobs 'n Stuff: in a 4 player game the Tax Collector pays $20,000 less each year."""
    for n in (4, 6):
        w = World(n_players=n)
        w.make(0, "Ines")
        w.hire(0, "Tax Collector")
        assert w.call("tax_due", 0, 120_000, False) == 60_000 - 5_000 * n
        assert w.call("tax_due", 0, 10_000, False) == 0  # never below zero


# --------------------------------------------------------------------- Loan Odds 'n Ends


def test_below_the_cap_a_loan_in_5000_notes_pays_the_expense():
    """Loan Odds 'n Ends: a loan at any time, here for a tax bill (ASSUMED $5,000 notes)."""
    w = World()
    no_abilities(w)
    w.players[0, S.CASH] = 2_000
    w.call("pay_required", 0, 14_000, S.L_TAXES, S.NONE)
    assert w.players[0, S.LOANS] == 15_000 and w.players[0, S.NOTICES] == 0
    assert w.cash(0) == 3_000


def test_at_the_cap_a_notice_and_the_bank_pays_the_expense():
    """Loan Odds 'n Ends: at $200,000 of loans, an expense that needs more borrowing takes a
    delinquent payment notice and "the bank will then pay the expense for them": the player
    keeps their cash."""
    w = World()
    no_abilities(w)
    w.players[0, S.LOANS] = 200_000
    w.players[0, S.CASH] = 3_000
    w.call("pay_required", 0, 15_000, S.L_TAXES, S.NONE)
    assert w.players[0, S.NOTICES] == 1 and w.players[0, S.LOANS] == 200_000
    assert w.cash(0) == 3_000 and w.players[0, S.L_BAILOUT] == 15_000


def test_expense_over_100000_takes_two_notices():
    """Loan Odds 'n Ends: if the expense is more than $100,000, another notice."""
    w = World()
    no_abilities(w)
    w.players[0, S.LOANS] = 200_000
    w.call("pay_required", 0, 150_000, S.L_TAXES, S.NONE)
    assert w.players[0, S.NOTICES] == 2
    w.call("pay_required", 0, 100_000, S.L_TAXES, S.NONE)
    assert w.players[0, S.NOTICES] == 3  # exactly $100,000 is not "more than"


def test_no_loan_past_the_cap():
    """Loan Odds 'n Ends: never more than $200,000 in loans: an expense that loans up to the
    cap cannot cover takes a notice (ASSUMED: and no partial loan), and no action is offered
    that would need a loan past the cap."""
    w = World()
    no_abilities(w)
    w.players[0, S.LOANS] = 190_000
    w.players[0, S.CASH] = 0
    w.call("pay_required", 0, 30_000, S.L_EVENT_LOSS, S.NONE)
    assert w.players[0, S.LOANS] == 190_000 and w.players[0, S.NOTICES] == 1
    w.players[0, S.LOANS] = 200_000
    w.players[0, S.CASH] = 4_000
    n = w.call("list_actions", 0, True)
    assert n > 0 and w.options[:n, S.OPT_COST].max() <= 4_000


def test_a_loan_payment_cannot_be_borrowed():
    """Loan Odds 'n Ends: no loan to make a loan payment; at the cap a short payment takes
    notices and the bank pays it: the issue's example, $101,000 against a $110,000 payment."""
    w = World()
    no_abilities(w)
    w.players[0, S.LOANS] = 200_000
    w.players[0, S.CASH] = 101_000
    w.call("repay_loans", 0, 50, False)
    assert w.players[0, S.LOANS] == 100_000 and w.players[0, S.NOTICES] == 2
    assert w.cash(0) == 101_000 and w.players[0, S.LOANS_COUNT] == 0


@pytest.mark.parametrize("notices_below_cap", [True, False])
def test_short_loan_payment_below_the_cap(notices_below_cap):
    """Loan Odds 'n Ends is silent on a short loan payment below the cap (ASSUMED,
    loans.notices_below_cap): notices as at the cap, or cash pays what it can and the rest of
    the principal stays on loan."""
    w = World(rules_with(loans__notices_below_cap=str(notices_below_cap).lower()))
    no_abilities(w)
    w.players[0, S.LOANS] = 40_000
    w.players[0, S.CASH] = 11_000
    w.call("repay_loans", 0, 50, False)  # $20,000 + $2,000 interest due
    if notices_below_cap:
        assert w.players[0, S.NOTICES] == 1 and w.cash(0) == 11_000
        assert w.players[0, S.LOANS] == 20_000
    else:
        assert w.players[0, S.NOTICES] == 0 and w.cash(0) == 0
        assert w.players[0, S.LOANS] == 30_000 and w.players[0, S.L_INTEREST] == 1_000
    w.players[1, S.LOANS] = 200_000  # at the cap: notices either way
    w.players[1, S.CASH] = 11_000
    w.call("repay_loans", 1, 50, False)
    assert w.players[1, S.NOTICES] == 2 and w.players[1, S.LOANS] == 100_000


def test_loan_payment_with_interest_and_the_banker():
    """Year Chart: 50% of the loans due in year 4 with interest (ASSUMED 10%); Jobs 'n Stuff:
    the Banker pays no interest and receives the interest the others pay."""
    w = World()
    no_abilities(w)
    w.hire(1, "Banker")
    for p in (0, 1):
        w.players[p, S.LOANS] = 100_000
        w.players[p, S.CASH] = 200_000
    w.call("repay_loans", 0, 50, False)
    w.call("repay_loans", 1, 50, False)
    assert w.players[0, S.LOANS] == 50_000 and w.cash(0) == 200_000 - 55_000
    assert w.players[1, S.L_INTEREST] == 0 and w.cash(1) == 200_000 - 50_000 + 5_000


def test_loan_schedule_through_every_year_end():
    """Year Chart: loan payments due in year 4 (50%), year 8 (50%) and year 12 (100%), run
    through the Year End Review of each year; year 12's is the Game End step: outstanding
    loans plus interest come off cash, with no notice even when cash goes negative."""
    w = World(n_players=2)
    no_abilities(w)
    w.players[0, S.LOANS] = 100_000
    w.players[0, S.CASH] = 200_000
    principal = []
    for year in range(1, 13):
        w.board[S.YEAR] = year
        before = int(w.players[0, S.L_PRINCIPAL])
        w.call("year_end")
        principal.append(int(w.players[0, S.L_PRINCIPAL]) - before)
    assert principal == [0, 0, 0, 50_000, 0, 0, 0, 25_000, 0, 0, 0, 0]
    assert w.players[0, S.LOANS] == 25_000 and w.players[0, S.L_INTEREST] == 7_500
    w.players[0, S.CASH] = 10_000
    end_game(w)
    assert w.cash(0) == 10_000 - 25_000 - 2_500 and w.players[0, S.NOTICES] == 0


# --------------------------------------------------------------------- Game End


def test_game_end_retirement_notices_loans_and_shares():
    """Game End: turn in retirement tokens for cash (ASSUMED payout table), subtract $100,000
    per notice and the outstanding loans plus interest; shares left do not count."""
    w = World(n_players=2)
    no_abilities(w)
    for p in range(2):
        w.players[p, S.CASH] = 500_000
    w.players[0, S.NOTICES] = 2
    w.players[0, S.RETIRE_TOKENS] = 3
    w.players[1, S.LOANS] = 50_000
    w.shares[1, w.black] = 20
    _, out = end_game(w)
    assert out[0]["final_cash_usd"] == 500_000 + 30_000 - 200_000
    assert out[1]["final_cash_usd"] == 500_000 - 55_000


def test_most_cash_wins_ties_share_the_win():
    """Game End: the player with the most cash wins (ASSUMED: tied leaders all win and there
    is no single winner seat)."""
    w = World(n_players=3)
    no_abilities(w)
    w.players[:, S.CASH] = [300_000, 700_000, 200_000]
    out_game, out = end_game(w)
    assert out_game[S.G_WINNER] == 1 and out["won"].tolist() == [False, True, False]
    w.players[:, S.CASH] = [700_000, 700_000, 200_000]
    out_game, out = end_game(w)
    assert out_game[S.G_WINNER] == S.NONE and out["won"].tolist() == [True, True, False]


def test_rank_titles():
    """Game End: the rank chart."""
    w = World()
    assert [
        w.call("rank_title", c)
        for c in (499_999, 500_000, 1_000_000, 1_499_999, 1_500_000, 2_000_000)
    ] == [0, 1, 2, 2, 3, 4]
    assert S.RANK_TITLES[1:] == ("Amateur", "Novice", "Expert", "Elite")
