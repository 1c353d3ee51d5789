"""Karnaxis rule scenarios, part 1: Game Setup, 1. Update New Year (events, insurance, stocks)
and 2. Take Action! (rulebook: shared/rules/karnaxis.md; part 2 is test_karnaxis_rules_money.py,
part 3, with the Karnaxis cards, test_karnaxis_rules_characters.py).

Each test sets one situation up on a real game state (tests/karnaxis_world.py), calls the rule
function, and asserts what the rulebook says happens.  Where a rule involves a player's choice,
the choice is passed in, or every legal outcome is checked.  They run in seconds without
compiling (``make mutants`` runs them under NUMBA_DISABLE_JIT=1 against each rule mutation).
"""

import pytest
from karnaxis_world import World

from simulator.games.karnaxis import state as S

ATTRS = slice(S.ATTR, S.ATTR + S.N_ATTR)


def set_event(w, year, name):
    """The event card read in ``year``."""
    w.owners[S.DECK_EVENTS, year - 1] = w.index("events", name)


def no_abilities(w):
    """Seats play characters whose abilities touch no event, stock or action rule."""
    for seat, name in enumerate(
        ("Ines", "Wes", "Whitney", "Julie", "Marcus", "Maya")[: len(w.players)]
    ):
        w.make(seat, name)


# --------------------------------------------------------------------- Game Setup


def test_setup_deals_three_characters_each_keeps_one_with_its_attributes():
    """Game Setup: each player gets $10,000 and is dealt 3 character cards, keeps 1 (marking
    its 4 attribute numbers) and removes the other 2 from play: no card is dealt twice."""
    w = World(n_players=6)
    kept = w.players[:, S.CHARACTER]
    dealt = w.players[:, S.DEALT : S.DEALT + 3]
    assert (w.players[:, S.CASH] == 10_000).all()
    assert len(set(dealt.ravel().tolist())) == 18
    for p in range(6):
        assert kept[p] in dealt[p]
        assert (w.players[p, ATTRS] == w.chars[kept[p], S.C_ATTR : S.C_ATTR + S.N_ATTR]).all()


def test_setup_board_black_business_at_5_and_supplies():
    """Setting up the Game Board: the black business's stock at 5, the only business with a
    stock value; 59 share tokens, 23 retirement tokens, 9 franchise cards; the unemployment
    fund starts empty (ASSUMED)."""
    w = World()
    assert w.stocks[w.black, S.VALUE] == 5 and w.stocks[w.black, S.ACTIVE] == 1
    assert (w.stocks[: w.black, S.ACTIVE] == 0).all()
    assert w.board[S.SHARE_POOL] == 59 and w.board[S.RETIRE_POOL] == 23
    assert w.board[S.FRANCHISES_LEFT] == 9 and w.board[S.FUND] == 0


def test_player_count_symbols_remove_cards():
    """Player-count symbols: 3+ and 5+ cards are removed from smaller games."""
    w = World(n_players=2)
    lawyer, car_wash = w.index("jobs", "Lawyer"), w.index("businesses", "Car Wash")
    assert w.owners[S.OWN_JOB, lawyer] == S.REMOVED and w.owners[S.OWN_BIZ, car_wash] == S.REMOVED
    assert w.owners[S.OWN_JOB, w.index("jobs", "Cashier")] == S.NONE
    w5 = World(n_players=5)
    assert w5.owners[S.OWN_JOB, lawyer] == S.NONE


# --------------------------------------------------------------------- 1. Update New Year


def test_new_year_adds_10000_to_the_unemployment_fund():
    """Update New Year, step 3: once a year $10,000 is added to the unemployment fund."""
    w = World()
    no_abilities(w)
    w.board[S.FUND] = 30_000
    set_event(w, 2, "Quiet Year")
    w.call("update_new_year", 2)
    assert w.board[S.FUND] == 40_000 and w.board[S.YEAR] == 2


def test_everyone_is_insured_in_year_one():
    """Year Chart / Insurance: all players are automatically insured during the first year, so
    a House Fire in year 1 costs nobody anything; the same card in year 2 costs everyone."""
    w = World()
    no_abilities(w)
    set_event(w, 1, "House Fire")
    set_event(w, 2, "House Fire")
    w.call("update_new_year", 1)
    assert (w.players[:, S.CASH] == 10_000).all()
    w.call("update_new_year", 2)
    assert (w.players[:, S.CASH] == 0).all()


def test_buying_insurance_makes_the_player_immune_now_and_next_year():
    """Buy Insurance: "They are now immune to negative effects from event cards": this year's
    Pay Cut spares the insured worker's salary at the year end (ASSUMED: the cover lasts
    through next year's event, then the token goes back)."""
    w = World()
    no_abilities(w)
    w.board[S.YEAR] = 2
    w.players[:, S.PROTECTED] = 0
    w.board[S.EVENT_SALARY] = -5_000  # this year's Pay Cut
    w.hire(0, "Cashier")
    w.hire(1, "Waiter")
    w.players[:2, S.WORKED] = 1
    w.call("trade", 0, S.MK_INSURANCE, 0, 0, 5_000)
    assert w.cash(0) == 5_000
    for p in (0, 1):
        w.call("pay_income", p)
    assert w.players[0, S.YEAR_SALARY] == 15_000  # insured: no cut
    assert w.players[1, S.YEAR_SALARY] == 17_000 - 5_000
    set_event(w, 3, "House Fire")
    w.players[:, S.CASH] = 20_000
    w.call("update_new_year", 3)
    assert w.cash(0) == 20_000 and w.cash(1) == 10_000
    assert w.players[0, S.INSURED] == 0  # the token went back


def test_insurance_spares_losses_but_not_gains_nor_stocks():
    """Buy Insurance: immune to negative effects from event cards "with the exception of
    anything that affects stocks"; a Stimulus Check still pays the insured.

        black business at 2, Market Crash (-3): seat 0 (insured) holds 4 shares
    """
    w = World()
    no_abilities(w)
    w.board[S.YEAR] = 2
    w.players[:, S.PROTECTED] = 0
    w.players[0, S.PROTECTED] = 1
    w.call("apply_event", w.index("events", "Stimulus Check"))
    assert w.cash(0) == 20_000 and w.cash(1) == 20_000
    w.stocks[w.black, S.VALUE] = 2
    w.shares[0, w.black] = 4
    w.call("apply_event", w.index("events", "Market Crash"))
    assert w.shares[0, w.black] == 2 and w.stocks[w.black, S.VALUE] == 1


def test_insurance_spares_the_medical_event_and_lost_growth():
    """Buy Insurance: "immune to negative effects from event cards": a Flu Season ($10,000 for
    those its die strikes, ASSUMED card) never strikes the insured, and a Supply Shortage
    (-$1,000 business growth) leaves an insured owner's growth alone.

        seats 0, 1, 2 insured, seat 3 not; seat 0 owns the Shoe Shop, seat 3 the Food Truck
    """
    struck = 0
    for seed in range(8):
        w = World(seed=seed)
        no_abilities(w)
        w.board[S.YEAR] = 2
        w.players[:, S.PROTECTED] = [1, 1, 1, 0]
        w.own(0, "Shoe Shop")
        w.own(3, "Food Truck")
        w.call("apply_event", w.index("events", "Flu Season"))
        assert w.players[:3, S.CASH].tolist() == [10_000] * 3
        struck += w.cash(3) < 10_000
        w.call("apply_event", w.index("events", "Supply Shortage"))
        assert w.players[[0, 3], S.GROWTH].tolist() == [2_000, 3_000 - 1_000]
    assert struck > 0  # the die does strike the uninsured


@pytest.mark.parametrize(
    "event,check",
    [
        ("Tax Hike", lambda w: w.call("tax_due", 0, 0, False) == 5_000 + 10_000),
        ("Scholarship Year", lambda w: w.call("tuition", 0, False) == 0),
        ("Government Jobs Program", lambda w: w.board[S.FUND] == 20_000),
        ("Layoffs", lambda w: w.players[0, S.JOB] == S.NONE),
        ("Supply Shortage", lambda w: w.players[0, S.GROWTH] == 1_000),
        ("Recession", lambda w: w.board[S.EVENT_INCOME] == -5_000),
    ],
)
def test_event_cards_apply_to_that_year(event, check):
    """Update New Year, step 2: the year's event card applies (ASSUMED cards: rules.toml)."""
    w = World()
    no_abilities(w)
    w.board[S.YEAR] = 2
    w.players[:, S.PROTECTED] = 0
    w.hire(0, "Cashier")
    w.own(0, "Shoe Shop")
    w.call("apply_event", w.index("events", event))
    assert check(w)


def test_update_stocks_owner_rolls_and_the_starting_player_rolls_for_black():
    """Update stocks: the owner of each active business rolls the stock die for it; the
    starting player rolls for the black business; each stock moves once."""
    w = World()
    no_abilities(w)
    w.own(2, "Shoe Shop")
    w.board[S.STARTER] = 1
    w.call("update_stocks")
    rolls = {(e[3], e[2]) for e in w.events_of(S.EV_STOCK)}
    assert rolls == {(2, 2), (w.black, 1)}


def test_stock_die_has_the_printed_faces():
    """Update stocks: the stock die reads -2, -1, -1, +1, +1, +2."""
    w = World()
    assert sorted(w.tables[S.T_DIE, : w.tables[S.T_LEN, S.T_DIE]].tolist()) == [-2, -1, -1, 1, 1, 2]
    rolls = [w.call("roll_stock_die") for _ in range(600)]
    assert set(rolls) == {-2, -1, 1, 2}


def test_stock_reaching_zero_removes_half_the_shares_rounded_up():
    """Update stocks: at 0, half (rounded up) of the shares are removed; value back to 1.  A
    roll of -2 from 1 reaches 0 once (the whole roll is one move).

        black business  value 1, die -2
        seat 0: 5 shares, seat 1: 2 shares   (7 shares -> 4 removed, 3 left)
    """
    w = World()
    w.stocks[w.black, S.VALUE] = 1
    w.shares[0, w.black], w.shares[1, w.black] = 5, 2
    pool = int(w.board[S.SHARE_POOL])
    w.call("move_stock", w.black, -2)
    assert w.stocks[w.black, S.VALUE] == 1
    assert w.shares[:, w.black].sum() == 3 and w.board[S.SHARE_POOL] == pool + 4
    assert w.shares[0, w.black] in (2, 3) and w.shares[1, w.black] == 1


def test_stock_reaching_dollar_pays_1000_a_share_and_returns_to_9():
    """Update stocks: at "$", $1,000 per share to every holder; the value returns to 9; a
    second hit in the same year pays again."""
    w = World()
    w.stocks[w.black, S.VALUE] = 9
    w.shares[0, w.black], w.shares[2, w.black] = 4, 10
    before = [w.cash(p) for p in range(4)]
    w.call("move_stock", w.black, 2)
    assert [w.cash(p) - before[p] for p in range(4)] == [4000, 0, 10000, 0]
    assert w.stocks[w.black, S.VALUE] == 9
    w.call("move_stock", w.black, 1)
    assert w.cash(2) - before[2] == 20_000


def test_josh_rerolls_and_keeps_the_second_roll():
    """Bits 'n Pieces: Josh, holding shares of another business, may roll the stock die again
    after the owner and must keep the second roll (every outcome of his choice checked)."""
    rerolls = kept = 0
    for seed in range(30):
        w = World(seed=seed)
        no_abilities(w)
        josh = 2
        w.make(josh, "Josh")
        w.shares[josh, w.black] = 3
        start = int(w.stocks[w.black, S.VALUE])
        w.call("update_stocks")
        moves = [e for e in w.events_of(S.EV_STOCK) if e[3] == w.black]
        assert len(moves) == 1
        for _, _, seat, stock, _first, second, _ in w.events_of(S.EV_REROLL):
            rerolls += 1
            assert seat == josh and stock == w.black and moves[0][4] == second
        kept += not w.events_of(S.EV_REROLL)
        assert w.stocks[w.black, S.VALUE] == start + moves[0][4]
    assert rerolls > 0 and kept > 0


# --------------------------------------------------------------------- 2. Take Action!


def test_each_player_places_two_action_squares_three_with_an_extra_action_job():
    """Take Action!: each player performs two actions; Jobs 'n Stuff: a Rocket Scientist or
    Pro Athlete has one extra action each year."""
    for seed in range(3):
        w = World(seed=seed)
        no_abilities(w)
        w.hire(3, "Pro Athlete")
        w.call("take_actions")
        per_seat = [sum(1 for e in w.events_of(S.EV_ACTION) if e[2] == p) for p in range(4)]
        assert per_seat == [2, 2, 2, 3]


def test_action_order_is_clockwise_from_the_starting_player():
    """Take Action!: in clockwise order beginning with the starting player, one square at a
    time until all have placed their two."""
    w = World()
    no_abilities(w)
    w.board[S.STARTER] = 2
    w.call("take_actions")
    seats = [e[2] for e in w.events_of(S.EV_ACTION)]
    assert seats == [2, 3, 0, 1, 2, 3, 0, 1]


def test_an_action_space_only_once_a_year_per_player():
    """Take Action!: you can choose actions already picked by other players, but not the same
    action space more than once per year."""
    w = World()
    no_abilities(w)
    w.call("do_action", 0, S.ACT_STUDY, 0, False)
    assert not any(a == S.ACT_STUDY for a, _ in w.offered(0))
    assert (S.ACT_STUDY, 0) in w.offered(1)


def test_collect_unemployment_once_a_year_and_take_the_starting_cube():
    """Collect Unemployment: the collector receives the whole fund and becomes the starting
    player of the following year; only one player may collect per year."""
    w = World()
    no_abilities(w)
    w.board[S.FUND] = 30_000
    w.board[S.NEXT_STARTER] = w.board[S.STARTER] = 0
    w.call("do_action", 2, S.ACT_UNEMPLOYMENT, 0, False)
    assert w.cash(2) == 40_000 and w.board[S.FUND] == 0 and w.board[S.NEXT_STARTER] == 2
    assert not any(a == S.ACT_UNEMPLOYMENT for a, _ in w.offered(3))
    for seed in range(6):  # whoever collects starts next year
        w = World(seed=seed)
        no_abilities(w)
        w.board[S.FUND] = 30_000
        w.call("take_actions")
        collectors = [e[2] for e in w.events_of(S.EV_ACTION) if e[3] == S.ACT_UNEMPLOYMENT]
        assert len(collectors) <= 1
        assert w.board[S.STARTER] == (collectors[0] if collectors else 0)


def test_job_search_needs_the_prerequisites_and_counts_as_work():
    """Job Search: only a player with the prerequisites is hired; it is considered Going to
    Work for that year, so the salary is paid at the year end."""
    w = World()
    no_abilities(w)
    nurse = w.index("jobs", "Nurse")  # 2 college years, aptitude 4, charisma 4
    w.players[0, ATTRS] = [4, 4, 0, 0]
    w.players[0, S.COLLEGE] = 1
    assert (S.ACT_JOB_SEARCH, nurse) not in w.offered(0)
    w.players[0, S.COLLEGE] = 2
    assert (S.ACT_JOB_SEARCH, nurse) in w.offered(0)
    w.players[0, S.ATTR + 1] = 3
    assert (S.ACT_JOB_SEARCH, nurse) not in w.offered(0)
    w.players[0, S.ATTR + 1] = 4
    w.call("do_action", 0, S.ACT_JOB_SEARCH, nurse, True)
    assert w.owners[S.OWN_JOB, nurse] == 0
    assert (S.ACT_JOB_SEARCH, nurse) not in w.offered(1)  # the card left the board
    w.call("pay_income", 0)
    assert w.players[0, S.YEAR_SALARY] == 36_000


def test_first_action_must_be_go_to_work_or_fired():
    """Go To Work: a job holder must use the first action to Go to Work each year, else is
    fired and the job card returns to the job board."""
    w = World()
    no_abilities(w)
    cashier = w.hire(0, "Cashier")
    assert (S.ACT_WORK, cashier) in w.offered(0, first=True)
    assert (S.ACT_WORK, cashier) not in w.offered(0, first=False)
    w.call("do_action", 0, S.ACT_STUDY, 0, True)
    assert w.players[0, S.JOB] == S.NONE and w.owners[S.OWN_JOB, cashier] == S.NONE
    w.call("pay_income", 0)
    assert w.players[0, S.YEAR_SALARY] == 0


def test_job_search_as_the_first_action_loses_the_old_job():
    """Go To Work: a job holder whose first action is not Go To Work is fired; Job Search is
    "considered Going to Work" for the job it finds only, so the Cashier's card goes back and
    only the Waiter's salary is paid.

        seat 0: Cashier, charisma 3 (the Waiter's prerequisite), first action Job Search
    """
    w = World()
    no_abilities(w)
    cashier = w.hire(0, "Cashier")
    waiter = w.index("jobs", "Waiter")
    w.players[0, S.ATTR + 1] = 3
    w.call("do_action", 0, S.ACT_JOB_SEARCH, waiter, True)
    assert w.players[0, S.JOB] == waiter and w.players[0, S.JOB_B] == S.NONE
    assert w.owners[S.OWN_JOB, cashier] == S.NONE and w.owners[S.OWN_JOB, waiter] == 0
    w.call("pay_income", 0)
    assert w.players[0, S.YEAR_SALARY] == 17_000


def test_go_to_work_keeps_one_and_only_one_job():
    """Go To Work: keep one and only one job from the previous year; the other goes back."""
    w = World()
    no_abilities(w)
    cashier = w.hire(0, "Cashier")
    waiter = w.index("jobs", "Waiter")
    w.players[0, S.JOB_B] = waiter
    w.owners[S.OWN_JOB, waiter] = 0
    w.call("do_action", 0, S.ACT_WORK, waiter, True)
    assert w.players[0, S.JOB] == waiter and w.players[0, S.JOB_B] == S.NONE
    assert w.owners[S.OWN_JOB, cashier] == S.NONE
    w.call("pay_income", 0)
    assert w.players[0, S.YEAR_SALARY] == 17_000


def test_personal_study_gives_one_attribute_free():
    """Personal Study: +1 attribute of the player's choice at no cost."""
    w = World()
    no_abilities(w)
    total = w.attribute_total(0)
    w.call("do_action", 0, S.ACT_STUDY, 0, False)
    assert w.attribute_total(0) == total + 1 and w.cash(0) == 10_000


def test_college_gives_aptitude_an_attribute_and_the_college_token():
    """College or University: college costs $5,000 and gives +1 Aptitude, +1 attribute of the
    player's choice, and moves the college token down one circle."""
    for seed in range(4):
        w = World(seed=seed)
        no_abilities(w)
        aptitude, total = int(w.players[0, S.ATTR + S.APTITUDE]), w.attribute_total(0)
        w.call("do_action", 0, S.ACT_COLLEGE, 0, False)
        assert w.players[0, S.COLLEGE] == 1 and w.cash(0) == 5_000
        assert w.attribute_total(0) == total + 2
        assert w.players[0, S.ATTR + S.APTITUDE] >= aptitude + 1


def test_university_gives_two_attributes_for_15000_any_number_of_years():
    """College or University: University costs $15,000 and gives 2 attributes of the player's
    choice; players may attend as many years as they wish, seniors included."""
    w = World()
    no_abilities(w)
    w.players[0, S.CASH] = 100_000
    w.players[0, S.COLLEGE] = 4
    for year in (1, 2):
        w.board[S.YEAR] = year
        w.players[0, S.USED] = 0
        assert (S.ACT_COLLEGE, 1) in w.offered(0)
        total = w.attribute_total(0)
        w.call("do_action", 0, S.ACT_COLLEGE, 1, False)
        assert w.attribute_total(0) == total + 2
    assert w.cash(0) == 70_000 and w.players[0, S.UNIVERSITY_YEARS] == 2


def test_a_senior_may_not_attend_college_and_not_both_in_one_year():
    """College or University: once a senior you may not attend college (University is still
    open); players can attend College or University, but not both in one year."""
    w = World()
    no_abilities(w)
    w.players[0, S.COLLEGE] = 3
    assert {(S.ACT_COLLEGE, 0), (S.ACT_COLLEGE, 1)} <= set(w.offered(0))
    w.players[0, S.COLLEGE] = 4
    assert (S.ACT_COLLEGE, 0) not in w.offered(0) and (S.ACT_COLLEGE, 1) in w.offered(0)
    w.players[1, S.CASH] = 50_000
    w.call("do_action", 1, S.ACT_COLLEGE, 0, False)
    assert not any(a == S.ACT_COLLEGE for a, _ in w.offered(1))


def test_retirement_fund_costs_5000_for_a_token():
    """Retirement Fund: pay $5,000 to the bank and receive one retirement token."""
    w = World()
    no_abilities(w)
    w.call("do_action", 0, S.ACT_RETIREMENT, 0, False)
    assert w.players[0, S.RETIRE_TOKENS] == 1 and w.cash(0) == 5_000
    assert w.board[S.RETIRE_POOL] == 22


def test_stock_trades_at_the_stock_value_orange_player_example():
    """Stock Market Basics (orange player): sell 3 own shares at value 5 for $15,000, then buy
    20 green shares at value 2 for $40,000.

        orange (seat 0): 3 shares of orange, value 5       cash $25,000
        green  (seat 1): business at value 2
    """
    w = World()
    no_abilities(w)
    for seat, value in ((0, 5), (1, 2)):
        w.stocks[seat, S.ACTIVE], w.stocks[seat, S.VALUE] = 1, value
    w.shares[0, 0] = 3
    w.players[0, S.CASH] = 25_000
    n = w.call("list_trades", 0)
    rows = [tuple(r) for r in w.options[:n].tolist()]
    sell = (S.MK_SELL, 0, 3, -15_000)
    buy = (S.MK_BUY, 1, 20, 40_000)
    assert sell in rows
    w.call("trade", 0, *sell)
    n = w.call("list_trades", 0)
    assert buy in [tuple(r) for r in w.options[:n].tolist()]
    w.call("trade", 0, *buy)
    assert w.shares[0, 0] == 0 and w.shares[0, 1] == 20 and w.cash(0) == 0


def test_a_sale_may_be_part_of_a_holding():
    """Stock Market Basics: "Players may buy and sell any number of shares": of 12 black shares
    at value 5, a lot of them (ASSUMED lots: stock.sell_lots) or all 12; selling 5 keeps 7.

        seat 0: 12 shares of the black business, value 5
    """
    w = World()
    no_abilities(w)
    w.shares[0, w.black] = 12
    pool = int(w.board[S.SHARE_POOL])
    n = w.call("list_trades", 0)
    sales = {tuple(r[1:]) for r in w.options[:n].tolist() if r[0] == S.MK_SELL}
    assert sales == {(w.black, k, -k * 5_000) for k in (1, 2, 5, 10, 12)}
    w.call("trade", 0, S.MK_SELL, w.black, 5, -25_000)
    assert w.shares[0, w.black] == 7 and w.cash(0) == 10_000 + 25_000
    assert w.board[S.SHARE_POOL] == pool + 5


@pytest.mark.parametrize("kind,price", [(S.MK_ACCOUNTANT, 10_000), (S.MK_INSURANCE, 5_000)])
def test_accountant_and_insurance_cost_their_printed_price(kind, price):
    """Hire Accountant (Cost: $10,000 per year), Buy Insurance (Cost: $5,000 per year): the
    trade is offered at that price and paid in full; a player who cannot pay it ($1,000
    short, loans at the $200,000 cap) is not offered it."""
    w = World()
    no_abilities(w)
    w.players[0, S.ACCOUNTANT] = w.players[0, S.INSURED] = 0
    w.players[0, S.LOANS] = 200_000
    w.players[0, S.CASH] = price
    n = w.call("list_trades", 0)
    assert [r[3] for r in w.options[:n].tolist() if r[0] == kind] == [price]
    w.call("trade", 0, kind, 0, 0, price)
    assert w.cash(0) == 0
    w.players[0, S.ACCOUNTANT] = w.players[0, S.INSURED] = 0
    w.players[0, S.CASH] = price - 1_000
    n = w.call("list_trades", 0)
    assert kind not in [r[0] for r in w.options[:n].tolist()]


def test_hire_accountant_gives_the_smart_table_this_year():
    """Hire Accountant ($10,000 a year): the smart tax bracket is used for that year's taxes.

    income $60,000: standard $30,000, smart $10,000
    """
    w = World()
    no_abilities(w)
    w.players[0, S.CASH] = 50_000
    w.call("trade", 0, S.MK_ACCOUNTANT, 0, 0, 10_000)
    w.players[0, S.YEAR_SALARY] = 60_000
    w.call("pay_taxes", 0)
    assert w.players[0, S.YEAR_SMART] == 1 and w.players[0, S.YEAR_TAX] == 10_000
    assert w.cash(0) == 30_000
    w.players[0, S.ACCOUNTANT] = 0
    w.call("pay_taxes", 0)
    assert w.players[0, S.YEAR_TAX] == 30_000
