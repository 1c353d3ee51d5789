"""Karnaxis engine tests: the rulebook's worked examples, its special cases and invariants.

Rulebook: shared/rules/karnaxis.md.  Rule functions are called on a real game state built by
the engine's own setup, so each test reads like the rulebook's situation.
"""

import inspect
import os
import subprocess
import sys

import numpy as np
import pytest

from simulator.game import get_game
from simulator.games.karnaxis import game as K
from simulator.games.karnaxis import actions, business, engine, money, new_year, year_end
from simulator.rng import game_seeds
from simulator.rules import RulesError, merge

GAME = get_game("karnaxis")
POLICY = {p.name: p.id for p in GAME.policies}
RULE_MODULES = (money, new_year, actions, business, year_end, engine)


class World:
    """One game's arrays after Game Setup, callable rule functions, named by the engine."""

    def __init__(self, rules=None, n_players=4, seed=1, policies=None, trace_rows=2000):
        self.rules = rules or GAME.default_rules()
        self.params = GAME.prepare(self.rules, n_players)
        (self.cfg, self.tables, self.chars, self.jobs, self.biz, self.events, self.kcards,
         self.knobs) = self.params[:K.N_DATA]
        self.pol = np.array(policies or [POLICY["random"]] * n_players, dtype=np.int8)
        (self.players, self.board, self.stocks, self.shares, self.owners, self.rng,
         self.options, self.scores) = engine.new_state(self.cfg, self.chars, self.jobs, self.biz, self.events,
                                          self.kcards, np.uint64(seed))
        self.trace = np.zeros((trace_rows, K.TRACE_WIDTH), dtype=np.int64)
        engine.setup(*self.W)
        self.board[K.YEAR] = 1

    @property
    def W(self):
        return (self.cfg, self.tables, self.chars, self.jobs, self.biz, self.events, self.kcards,
                self.knobs, self.players, self.board, self.stocks, self.shares, self.owners,
                self.rng, self.options, self.scores, self.pol, self.trace)

    def call(self, name, *args):
        """Call engine rule ``name`` with this game's arrays (by parameter name) and ``args``."""
        fn = next(getattr(m, name) for m in RULE_MODULES if hasattr(m, name))
        params = list(inspect.signature(getattr(fn, "py_func", fn)).parameters)
        arrays = [getattr(self, p) for p in params[:len(params) - len(args)]]
        return fn(*arrays, *args)

    def index(self, table, name):
        return [item["name"] for item in self.rules[table]].index(name)

    def make(self, seat, character):
        """Give a seat a character card (and its attributes)."""
        c = self.index("characters", character)
        self.players[seat, K.CHARACTER] = c
        self.players[seat, K.ATTR:K.ATTR + K.N_ATTR] = self.chars[c, K.C_ATTR:K.C_ATTR + K.N_ATTR]
        return c

    def events_of(self, kind):
        n = self.board[K.TRACE_N]
        return [row for row in self.trace[:n].tolist() if row[0] == kind]


def cash(w, p):
    return int(w.players[p, K.CASH])


# --------------------------------------------------------------------- Year End Review

def test_business_income_worked_example():
    """Year End Review, step 1: the shoe shop example: growth $2k -> receive $2,000; advertise
    to $4k growth -> receive $6,000; no new growth -> still +$4k -> receive $10,000."""
    w = World()
    p = 0
    w.make(p, "Ines")                      # no ability touching business income
    w.players[p, K.CASH] = 100_000
    w.call("start_business", p, w.index("businesses", "Shoe Shop"))
    assert w.players[p, K.GROWTH] == 2000
    received = []
    for year, advertise in ((1, False), (2, True), (3, False)):
        w.board[K.YEAR] = year
        if advertise:
            w.players[p, K.GROWTH] += 2000     # Advertise, level 1+: +$2,000 growth
        before = cash(w, p)
        w.call("pay_income", p)
        received.append(cash(w, p) - before)
    assert received == [2000, 6000, 10000]


def test_advertise_adds_the_table_growth():
    """Advertise: level 1+ costs $10,000 for +$2,000 business growth."""
    w = World()
    p = 0
    w.make(p, "Ines")
    w.players[p, K.CASH] = 100_000
    w.call("start_business", p, w.index("businesses", "Shoe Shop"))
    before = cash(w, p)
    w.call("do_action", p, K.ACT_ADVERTISE, 0, False)
    assert w.players[p, K.GROWTH] == 4000
    assert before - cash(w, p) == 10_000


@pytest.mark.parametrize("income,standard,smart", [
    (0, 5000, 0), (25_000, 5000, 0), (26_000, 15000, 5000), (50_000, 15000, 5000),
    (51_000, 30000, 10000), (100_000, 30000, 10000), (101_000, 60000, 30000),
    (150_000, 60000, 30000), (151_000, 90000, 50000), (201_000, 120000, 70000),
    (251_000, 150000, 90000), (300_000, 150000, 90000), (301_000, 180000, 110000),
    (2_000_000, 180000, 110000)])
def test_tax_brackets(income, standard, smart):
    """Tax Brackets (player board): standard and smart (accountant) tax by income."""
    w = World()
    w.make(0, "Ines")
    assert w.call("tax_due", 0, income, False) == standard
    assert w.call("tax_due", 0, income, True) == smart


def test_tax_collector_discount_is_5000_per_player():
    """Jobs 'n Stuff: in a 4 player game the Tax Collector pays $20,000 less each year."""
    w = World(n_players=4)
    w.make(0, "Ines")
    w.players[0, K.JOB] = w.index("jobs", "Tax Collector")
    assert w.call("tax_due", 0, 120_000, False) == 60_000 - 20_000
    assert w.call("tax_due", 0, 10_000, False) == 0       # never below zero


def test_accountant_means_smart_tax_in_the_year_timeline():
    """Hire Accountant: the smart bracket is used for that year's taxes."""
    w = World()
    w.make(0, "Ines")
    w.players[0, K.YEAR_SALARY] = 60_000
    w.players[0, K.ACCOUNTANT] = 1
    w.players[0, K.CASH] = 50_000
    w.call("pay_taxes", 0)
    assert w.players[0, K.YEAR_SMART] == 1 and w.players[0, K.YEAR_TAX] == 10_000
    assert w.players[0, K.YEAR_BRACKET] == 2 and cash(w, 0) == 40_000


# --------------------------------------------------------------------- Stock market

def test_stock_die_zero_removes_half_the_shares_rounded_up():
    """Update stocks: at 0, half (rounded up) of the shares are removed; value back to 1.

        black business  value 1, die -2 -> 0
        seat 0: 5 shares, seat 1: 2 shares   (7 shares -> 4 removed, 3 left)
    """
    w = World()
    black = w.players.shape[0]
    w.stocks[black, K.VALUE] = 1
    w.shares[0, black], w.shares[1, black] = 5, 2
    pool = int(w.board[K.SHARE_POOL])
    w.call("move_stock", black, -2)
    assert w.stocks[black, K.VALUE] == 1
    assert w.shares[:, black].sum() == 3
    assert w.board[K.SHARE_POOL] == pool + 4
    assert w.shares[0, black] in (2, 3) and w.shares[1, black] == 1


def test_stock_single_holder_loses_half_rounded_up():
    w = World()
    w.players[0, K.CASH] = 100_000
    w.make(0, "Ines")
    w.call("start_business", 0, w.index("businesses", "Shoe Shop"))
    assert w.stocks[0, K.VALUE] == 5 and w.shares[0, 0] == 5   # first business: 5 at 5
    w.call("move_stock", 0, -5)
    assert w.shares[0, 0] == 2 and w.stocks[0, K.VALUE] == 1


def test_stock_dollar_space_pays_1000_per_share_and_returns_to_9():
    """Update stocks: at "$", $1,000 per share to every holder; the value returns to 9."""
    w = World()
    black = w.players.shape[0]
    w.stocks[black, K.VALUE] = 9
    w.shares[0, black], w.shares[2, black] = 4, 10
    before = [cash(w, p) for p in range(4)]
    w.call("move_stock", black, 2)
    assert [cash(w, p) - before[p] for p in range(4)] == [4000, 0, 10000, 0]
    assert w.stocks[black, K.VALUE] == 9
    w.call("move_stock", black, 1)           # hitting "$" again applies again
    assert cash(w, 2) - before[2] == 20_000


def test_stock_die_has_the_printed_faces():
    """Update stocks: the stock die reads -2, -1, -1, +1, +1, +2 (mean 0)."""
    w = World()
    rolls = [new_year.roll_stock_die(w.tables, w.rng) for _ in range(6000)]
    values, counts = np.unique(rolls, return_counts=True)
    assert values.tolist() == [-2, -1, 1, 2]
    assert abs(counts[1] / 6000 - 1 / 3) < 0.03 and abs(np.mean(rolls)) < 0.06


def test_stock_purchase_example():
    """Stock Market Basics (orange player): sell 3 own shares at value 5 for $15,000, then buy
    20 green shares at value 2 for $40,000.

        orange (seat 0): 3 shares of orange, value 5       cash $25,000
        green  (seat 1): business at value 2
    """
    rules = merge(GAME.default_rules(), {"policies": {"speculator": {
        "buy_below": 2.0, "sell_at": 5.0, "borrow_limit": 0.0, "insurance": 0.0,
        "accountant_income": 0.0}}})
    w = World(rules, policies=[POLICY["speculator"]] * 4)
    w.make(0, "Ines")
    for seat in (0, 1):
        w.stocks[seat, K.ACTIVE] = 1
    w.stocks[0, K.VALUE], w.stocks[1, K.VALUE] = 5, 2
    w.stocks[w.players.shape[0], K.VALUE] = 9                  # black business too dear
    w.shares[0, 0] = 3
    w.players[0, K.CASH] = 25_000
    w.board[K.SHARE_POOL] = 40
    w.call("market", 0)
    assert w.shares[0, 0] == 0 and w.shares[0, 1] == 20
    assert cash(w, 0) == 0
    assert w.players[0, K.L_SHARES_SOLD] == 15_000 and w.players[0, K.L_SHARES_BOUGHT] == 40_000


def test_josh_rerolls_and_keeps_the_second_roll():
    """Bits 'n Pieces: Josh, holding shares of another business, may roll the stock die again
    after the owner and must keep the second roll."""
    rerolls = 0
    for seed in range(40):
        w = World(seed=seed, policies=[POLICY["speculator"]] * 4)
        josh = 2
        w.make(josh, "Josh")
        for p in range(4):
            if p != josh and w.players[p, K.CHARACTER] == w.players[josh, K.CHARACTER]:
                w.make(p, "Ines")
        black = w.players.shape[0]
        w.shares[josh, black] = 3
        w.call("update_stocks")
        for event in w.events_of(K.EV_REROLL):
            rerolls += 1
            _, _, seat, stock, first, second, _ = event
            assert seat == josh and stock == black and first < 0
            moves = [e for e in w.events_of(K.EV_STOCK) if e[3] == black]
            assert moves[-1][4] == second          # the black business moved by the re-roll
    assert rerolls > 5


# --------------------------------------------------------------------- Loans

def test_loan_at_cap_takes_a_notice_and_the_bank_pays():
    """Loan Odds 'n Ends: at $200,000 of loans a needed expense takes a delinquent notice and
    the bank pays it; cash never goes below zero."""
    w = World()
    w.make(0, "Ines")
    w.players[0, K.LOANS] = 200_000
    w.players[0, K.CASH] = 3_000
    w.call("pay_required", 0, 15_000, K.L_TAXES, K.NONE, True)
    assert w.players[0, K.NOTICES] == 1 and w.players[0, K.LOANS] == 200_000
    assert cash(w, 0) == 0 and w.players[0, K.L_BAILOUT] == 12_000


def test_expense_over_100000_takes_two_notices():
    w = World()
    w.make(0, "Ines")
    w.players[0, K.LOANS] = 200_000
    w.call("pay_required", 0, 150_000, K.L_TAXES, K.NONE, True)
    assert w.players[0, K.NOTICES] == 2
    w.call("pay_required", 0, 100_000, K.L_TAXES, K.NONE, True)
    assert w.players[0, K.NOTICES] == 3          # exactly $100,000 is not "more than"


def test_borrowing_stops_at_the_cap():
    """Loans are taken up to $200,000; the rest of the expense is a delinquency."""
    w = World()
    w.make(0, "Ines")
    w.players[0, K.LOANS] = 190_000
    w.call("pay_required", 0, 30_000, K.L_EVENT_LOSS, K.NONE, True)
    assert w.players[0, K.LOANS] == 200_000 and w.players[0, K.PEAK_LOANS] == 200_000
    assert w.players[0, K.NOTICES] == 1 and cash(w, 0) == 0


def test_below_the_cap_a_loan_pays_the_expense():
    w = World()
    w.make(0, "Ines")
    w.players[0, K.CASH] = 2_000
    w.call("pay_required", 0, 14_000, K.L_TAXES, K.NONE, True)
    assert w.players[0, K.LOANS] == 15_000 and w.players[0, K.NOTICES] == 0   # $5,000 notes
    assert cash(w, 0) == 3_000


def test_no_option_needs_a_loan_past_the_cap():
    """Take Action!: an action is offered only if cash plus loans up to the cap pay for it."""
    w = World()
    w.make(0, "Ines")
    w.players[0, K.LOANS] = 200_000
    w.players[0, K.CASH] = 4_000
    n = w.call("list_actions", 0, True)
    costs = w.options[:n, K.OPT_COST]
    assert n > 0 and costs.max() <= 4_000


def test_loan_payment_due_with_interest_and_the_banker():
    """Year Chart: 50% of the loans due in year 4 with interest; the Banker pays no interest
    and receives the interest the others pay."""
    w = World()
    w.make(0, "Ines")
    w.make(1, "Theo")
    banker = w.index("jobs", "Banker")
    w.players[1, K.JOB] = banker
    w.owners[K.OWN_JOB, banker] = 1
    for p in (0, 1):
        w.players[p, K.LOANS] = 100_000
        w.players[p, K.CASH] = 200_000
    w.board[K.YEAR] = 4
    w.call("repay_loans", 0, 50, False)
    w.call("repay_loans", 1, 50, False)
    assert w.players[0, K.LOANS] == 50_000 and w.players[0, K.L_INTEREST] == 5_000
    assert cash(w, 0) == 200_000 - 55_000
    assert w.players[1, K.L_INTEREST] == 0 and w.players[1, K.L_INTEREST_RECEIVED] == 5_000
    assert cash(w, 1) == 200_000 - 50_000 + 5_000


def test_a_loan_payment_cannot_be_borrowed():
    """Loan Odds 'n Ends: no loan for a loan payment; a shortfall takes a notice."""
    w = World()
    w.make(0, "Ines")
    w.players[0, K.LOANS] = 40_000
    w.players[0, K.CASH] = 10_000
    w.call("repay_loans", 0, 50, False)
    assert w.players[0, K.LOANS] == 20_000 and w.players[0, K.NOTICES] == 1
    assert cash(w, 0) == 0


def test_game_end_subtracts_notices_and_loans():
    """Game End: -$100,000 per notice and outstanding loans plus interest."""
    w = World(n_players=2)
    for p in range(2):
        w.make(p, "Ines")
        w.players[p, K.CASH] = 500_000
    w.players[0, K.NOTICES] = 2
    w.players[1, K.LOANS] = 50_000
    out_game = np.zeros(K.N_GAME_OUT, np.int64)
    out_players = np.zeros((2, K.N_PLAYER_OUT + len(K.LEDGER_COLUMNS)), np.int64)
    w.call("end_game", out_game, out_players)
    assert out_players[0, K.P_SCORE] == 300_000
    assert out_players[1, K.P_SCORE] == 500_000 - 55_000
    assert out_game[K.G_WINNER] == 1 and out_players[1, K.P_WON] == 1
    assert out_players[0, K.P_RANK_TITLE] == 0 and out_players[1, K.P_RANK_TITLE] == 0


def test_rank_titles():
    """Game End: the rank chart."""
    assert [year_end.rank_title(c) for c in (499_999, 500_000, 1_000_000, 1_499_999, 1_500_000,
                                           2_000_000)] == [0, 1, 2, 2, 3, 4]
    assert K.RANK_TITLES[1:] == ("Amateur", "Novice", "Expert", "Elite")


# --------------------------------------------------------------------- characters and jobs

def test_wes_gets_1000_extra_growth_per_business():
    """Character card example: Wes gains an extra $1,000 business growth per start."""
    w = World()
    w.make(0, "Wes")
    w.players[0, K.CASH] = 100_000
    w.call("start_business", 0, w.index("businesses", "Shoe Shop"))
    assert w.players[0, K.GROWTH] == 3000


def test_julie_photography_is_a_level_1_business_only_she_can_start():
    """Bits 'n Pieces: Julie's photography business is a level 1 business in all respects."""
    w = World()
    julie = w.make(0, "Julie")
    w.make(1, "Ines")
    for p in range(4):
        if p != 0 and w.players[p, K.CHARACTER] == julie:
            w.make(p, "Theo")
        w.players[p, K.CASH] = 100_000
    studio = w.index("businesses", "Photography Studio")

    def offered(p):
        n = w.call("list_actions", p, False)
        return [tuple(r) for r in w.options[:n, :2].tolist()]
    assert (K.ACT_BUSINESS, studio) in offered(0)
    assert (K.ACT_BUSINESS, studio) not in offered(1)
    w.call("start_business", 0, studio)
    assert w.players[0, K.MERGED_LEVEL] == 1
    before = cash(w, 0)
    w.call("start_franchise", 1, studio)          # franchise cost of a level 1 mother
    assert cash(w, 0) - before == 15_000 and w.shares[1, 0] == 5


def test_whitney_needs_two_different_jobs_not_at_once():
    """Bits 'n Pieces: Whitney has to get at least 2 different jobs during the game."""
    w = World()
    w.make(0, "Whitney")
    cashier, waiter = w.index("jobs", "Cashier"), w.index("jobs", "Waiter")
    before = cash(w, 0)
    w.call("take_job", 0, cashier)
    w.call("check_all_karnaxis")
    assert w.players[0, K.KARNAXIS_DONE] == 0
    w.call("lose_job", 0, cashier)
    w.call("take_job", 0, waiter)
    w.call("check_all_karnaxis")
    assert w.players[0, K.KARNAXIS_DONE] == 1 and cash(w, 0) - before == 100_000


def test_zack_fulfils_as_tax_collector_and_pays_back_after_a_loan():
    """Bits 'n Pieces: Zack receives $100,000 on becoming the Tax Collector, but pays it back
    if he takes out a loan."""
    w = World()
    w.make(0, "Zack")
    w.players[0, K.CASH] = 0
    w.call("take_job", 0, w.index("jobs", "Tax Collector"))
    w.call("check_all_karnaxis")
    assert cash(w, 0) == 100_000 and w.players[0, K.KARNAXIS_DONE] == 1
    w.call("take_loan", 0, 5_000)
    w.call("settle_forfeit", 0)
    assert cash(w, 0) == 5_000 and w.players[0, K.KARNAXIS_REVOKED] == 1
    w.call("take_loan", 0, 5_000)                 # paid back once only
    w.call("settle_forfeit", 0)
    assert cash(w, 0) == 10_000


def test_first_action_must_be_go_to_work():
    """Go To Work: a job holder whose first action is anything else is fired."""
    w = World()
    w.make(0, "Ines")
    cashier = w.index("jobs", "Cashier")
    w.call("take_job", 0, cashier)
    w.players[0, K.USED] = 0
    w.call("do_action", 0, K.ACT_STUDY, 0, True)
    assert w.players[0, K.JOB] == K.NONE and w.owners[K.OWN_JOB, cashier] == K.NONE


def test_professor_and_consultant_fees():
    """Jobs 'n Stuff: the Professor collects $5,000 per College/University attended and the
    Consultant $5,000 per Karnaxis card bought, their own included."""
    w = World()
    w.make(0, "Ines")
    w.make(1, "Theo")
    w.players[1, K.JOB] = w.index("jobs", "Professor")
    w.players[2, K.JOB] = w.index("jobs", "Consultant")
    w.players[0, K.CASH] = 100_000
    before1, before2 = cash(w, 1), cash(w, 2)
    w.call("do_action", 0, K.ACT_COLLEGE, 0, False)
    w.call("do_action", 0, K.ACT_KARNAXIS, 0, False)
    assert cash(w, 1) - before1 == 5_000 and cash(w, 2) - before2 == 5_000
    assert w.players[0, K.COLLEGE] == 1


def test_player_count_symbols_remove_cards():
    """Player-count symbols: 3+ and 5+ cards are removed from smaller games."""
    w = World(n_players=2)
    lawyer, car_wash = w.index("jobs", "Lawyer"), w.index("businesses", "Car Wash")
    assert w.owners[K.OWN_JOB, lawyer] == K.REMOVED and w.owners[K.OWN_BIZ, car_wash] == K.REMOVED
    w5 = World(n_players=5)
    assert w5.owners[K.OWN_JOB, lawyer] == K.NONE


# --------------------------------------------------------------------- whole games

@pytest.fixture(scope="module")
def played():
    """4000 games of 4 players (every policy, seats rotated) and 300 of each other count."""
    rules = GAME.default_rules()
    out = {}
    ids = [p.id for p in GAME.policies]
    for n, games in ((4, 4000), (1, 300), (2, 300), (3, 300), (5, 300), (6, 300)):
        params = GAME.prepare(rules, n)
        seat = np.array([[ids[(g + s) % len(ids)] for s in range(n)] for g in range(games)],
                        dtype=np.int8)
        out[n] = (GAME.play(params, game_seeds(11, np.arange(games)), seat), seat)
    return out


def test_money_is_accounted_for(played):
    """Every dollar of final cash is the start cash plus ledger inflows minus outflows, and
    what players pay each other is what they receive."""
    start = GAME.default_rules()["setup"]["start_cash_usd"]
    ins = [K.LEDGER_COLUMNS[i - K.L_SALARY] for i in K.LEDGER_IN]
    outs = [K.LEDGER_COLUMNS[i - K.L_SALARY] for i in K.LEDGER_OUT]
    for n, (tables, _) in played.items():
        pl = tables["players"]
        total = start + sum(pl[c] for c in ins) - sum(pl[c] for c in outs)
        assert np.array_equal(total, pl["final_cash_usd"]), n
        assert np.array_equal(pl["received_from_players_usd"].sum(axis=1),
                              pl["paid_to_players_usd"].sum(axis=1))
        assert (pl["interest_received_usd"].sum(axis=1) <= pl["interest_paid_usd"].sum(axis=1)).all()
        assert np.array_equal(pl["score"], pl["final_cash_usd"].astype(float))


def test_loans_never_pass_the_cap_and_cash_never_negative(played):
    cap = GAME.default_rules()["loans"]["cap_usd"]
    for n, (tables, _) in played.items():
        assert tables["players"]["peak_loans_outstanding_usd"].max() <= cap
        years = tables["years"]
        assert years["loans_outstanding_usd"].max() <= cap
        assert years["cash_usd"].min() >= 0
        assert len(years["year"]) == len(tables["games"]["length"]) * 12 * n


def test_policies_borrow_and_some_hit_the_cap(played):
    """The loan analysis needs borrowing: scripted policies borrow, and the cap binds."""
    tables, seat = played[4]
    pl = tables["players"]
    cap = GAME.default_rules()["loans"]["cap_usd"]
    for name in ("tycoon", "speculator", "random"):
        mine = seat == POLICY[name]
        assert (pl["loans_taken"][mine] > 0).mean() > 0.2, name
    tycoon = seat == POLICY["tycoon"]
    assert (pl["peak_loans_outstanding_usd"][tycoon] == cap).mean() > 0.01
    cautious = seat == POLICY["cautious"]
    assert pl["delinquent_notices"].sum() > 0
    assert pl["retirement_tokens"][cautious].mean() > pl["retirement_tokens"][tycoon].mean()


def test_strategies_are_recognisable(played):
    tables, seat = played[4]
    pl = tables["players"]
    def mean(col, name):
        return pl[col][seat == POLICY[name]].mean()
    assert mean("college_years", "scholar") > 3 > mean("college_years", "speculator")
    assert mean("businesses", "tycoon") > mean("businesses", "scholar")
    assert mean("shares_bought_usd", "speculator") > mean("shares_bought_usd", "cautious")
    assert mean("final_cash_usd", "tycoon") > mean("final_cash_usd", "random")


def test_years_timeline_matches_players(played):
    tables, _ = played[4]
    years, pl = tables["years"], tables["players"]
    n = len(tables["games"]["length"])
    tax = years["tax_paid_usd"].reshape(n, 12, 4).sum(axis=1)
    assert np.array_equal(tax, pl["taxes_paid_usd"])
    smart = years["smart_tax"].reshape(n, 12, 4).sum(axis=1)
    assert np.array_equal(smart, pl["smart_tax_years"])
    assert np.array_equal(years["delinquent_notices"].reshape(n, 12, 4)[:, -1], pl["delinquent_notices"])
    assert set(np.unique(years["tax_bracket"])) <= set(range(8))


def test_characters_are_unique_in_a_game(played):
    for n, (tables, _) in played.items():
        codes, labels = tables["players"]["character"]
        assert len(labels) == 18
        s = np.sort(codes, axis=1)
        assert (np.diff(s, axis=1) > 0).all()


def test_karnaxis_fulfilment_is_recorded(played):
    tables, _ = played[4]
    pl = tables["players"]
    done = pl["karnaxis_fulfilled"] | pl["karnaxis_revoked"]
    assert done.mean() > 0.1
    assert ((pl["karnaxis_year"] > 0) == done).all()
    assert (pl["karnaxis_reward_usd"][done] == 100_000).all()


def test_jit_and_pure_python_agree():
    """The kernel under NUMBA_DISABLE_JIT=1 plays the same games, bit for bit."""
    code = ("import numpy as np; from simulator.game import get_game; "
            "from simulator.rng import game_seeds; G = get_game('karnaxis'); "
            "p = G.prepare(G.default_rules(), 3); "
            "t = G.play(p, game_seeds(5, np.arange(4)), np.array([[0, 1, 2], [2, 3, 4], [4, 0, 1], [3, 3, 3]], np.int8)); "
            "print(t['players']['final_cash_usd'].tolist(), int(t['years']['tax_paid_usd'].sum()))")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    pure = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True).stdout
    jit = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert pure == jit and pure.strip()


def test_replay_reads_as_a_play_by_play():
    rules = GAME.default_rules()
    params = GAME.prepare(rules, 3)
    lines = GAME.replay(params, 42, np.array([1, 2, 3], np.int8), rules)
    text = "\n".join(lines)
    assert "== year 12" in text and "final seat 2" in text
    assert any("→" in line and line.startswith("year ") for line in lines)
    assert "taxes" in text and "salary" in text


# --------------------------------------------------------------------- rules checks

@pytest.mark.parametrize("key,value", [
    ("loans.cap_usd", -5000), ("loans.cap_usd", 12345), ("loans.due_years", [4, 8, 13]),
    ("taxes.standard_usd", [5000, 15000]), ("stock.top_value", 4), ("setup.years", 0),
    ("loans.due_pct", [50, 150, 100]), ("taxes.bracket_max_usd", [50, 25, 100, 150, 200, 250, 300])])
def test_check_rejects_impossible_values(key, value):
    with pytest.raises(RulesError, match=key.replace(".", r"\.")):
        GAME.rules(sets=(f"{key}={value!r}".replace("'", '"'),))


def test_variant_keys_change_the_game():
    """A flatter tax table and a lower cap show up in the data."""
    rules = GAME.rules(sets=("taxes.standard_usd=[0,0,0,0,0,0,0,0]", "loans.cap_usd=50000"))
    params = GAME.prepare(rules, 4)
    seat = np.tile(np.array([2, 2, 3, 0], np.int8), (300, 1))
    t = GAME.play(params, game_seeds(3, np.arange(300)), seat)
    assert t["players"]["peak_loans_outstanding_usd"].max() <= 50_000
    paid = t["years"]["tax_paid_usd"][~t["years"]["smart_tax"]]
    assert paid.max() <= 10_000 and paid.mean() < 1_000     # only the Tax Hike event is left
