"""Ekonos rules (shared/rules/ekonos.md), Buying and Selling, Presidency, Scoring: one small
scenario per rule, each citing its section.

Each test puts a position together (the board drawn as text), calls the rule function or plays
one step, and asserts what the rulebook says happens.  Where a rule involves a decision the
position leaves one legal option, or a policy's knobs fix the choice, or every option is tried.
These tests play at most one whole game: `make mutants` runs them under NUMBA_DISABLE_JIT=1.
"""

import numpy as np
import pytest
from ekonos_table import ALPHA, ALWAYS, BETA, GAME, GAMMA, NEVER, Table

from policies.ekonos import VALUE_INVESTOR
from simulator.games.ekonos import engine
from simulator.games.ekonos.game import describe
from simulator.games.ekonos.state import (
    BOUGHT,
    CASH,
    CFG_SHARE_INDICATORS,
    EV_BUY,
    EV_PRESIDENT,
    EV_SCORE,
    EV_SELL,
    G_WINNER,
    INDICATORS_LEFT,
    N_GAME_OUT,
    N_PLAYER_OUT,
    NONE,
    P_CASH,
    P_HOLDINGS,
    P_SCORE,
    P_WON,
    PRESIDENT,
    SHARES_OUT,
    SOLD,
    SPENT,
)

# --- The Buying and Selling of Shares ---------------------------------------------------------


def test_share_prices_worked_example():
    """The Buying and Selling of Shares, example: X holds 2 of Gamma's 4 shares; selling
    collects 4 and removes one of X's indicators, buying pays 5 and places a third."""
    t = Table()
    x, y = 0, 1
    t.give(x, GAMMA, 2)  # x is president: buying a third share takes no presidency
    t.give(y, GAMMA, 2)
    assert engine.sell_price(t.state, GAMMA) == 4
    assert engine.buy_price(t.state, GAMMA) == 5
    t.players[x, CASH] = 10
    left = t.players[x, INDICATORS_LEFT]
    assert engine.sell_share(t.state, x, GAMMA) == 4
    assert t.players[x, [CASH, INDICATORS_LEFT]].tolist() == [14, left + 1]
    assert t.shares[x, GAMMA] == 1 and t.companies[GAMMA, SHARES_OUT] == 3
    t.give(x, GAMMA, 1)  # back to 2 of 4
    t.players[x, CASH] = 10
    left = t.players[x, INDICATORS_LEFT]
    assert engine.buy_share(t.state, t.cfg, x, GAMMA) == 5
    assert t.players[x, [CASH, INDICATORS_LEFT]].tolist() == [5, left - 1]
    assert t.shares[x, GAMMA] == 3 and t.companies[GAMMA, SHARES_OUT] == 5


def test_round_sells_before_it_buys():
    """Round: play a card, then sell a share, then buy one.  Seat 0 has no cash: only the sale
    of its Alpha share (worth 3) pays for a purchase."""
    t = Table()
    t.traders(sell=ALWAYS, buy=ALWAYS)
    t.give(1, ALPHA, 2)
    t.give(0, ALPHA, 1)
    t.trade(0)
    assert [ev for ev, *_ in t.events(EV_SELL, EV_BUY)] == [EV_SELL, EV_BUY]
    assert t.players[0, [SOLD, BOUGHT]].tolist() == [1, 1]
    assert t.players[0, CASH] == 3 - t.players[0, SPENT]


def test_only_a_share_held_can_be_sold():
    """The Buying and Selling of Shares: a seller removes one of their own indicators, so a
    player without shares has nothing to sell."""
    t = Table()
    t.traders(sell=ALWAYS, buy=NEVER)
    t.give(1, ALPHA, 1)
    t.sell(0)
    assert t.players[0, SOLD] == 0 and t.companies[ALPHA, SHARES_OUT] == 1


@pytest.mark.parametrize("need, short, enough", [(CASH, 2, 3), (INDICATORS_LEFT, 0, 1)])
def test_a_buyer_needs_the_price_and_a_share_indicator(need, short, enough):
    """The Buying and Selling of Shares: the buyer pays the price (here 3) and places a share
    indicator (Equipment: 108 share indicators, ASSUMED 18 per colour); a player short of
    either cannot buy."""
    t = Table(sets=("shares.presidency_uses_indicator=false",))
    t.traders(sell=NEVER, buy=ALWAYS)
    t.companies[:, SHARES_OUT] = 2
    t.players[0, [CASH, INDICATORS_LEFT]] = 3, 1
    t.players[0, need] = short
    t.buy(0)
    assert t.players[0, BOUGHT] == 0
    t.players[0, need] = enough
    t.buy(0)
    assert t.players[0, [BOUGHT, CASH, INDICATORS_LEFT]].tolist() == [1, 0, 0]


# --- Presidency ----------------------------------------------------------------------------------


def test_presidency_first_buyer_then_whoever_holds_more():
    """Presidency: the first buyer becomes president; a player who acquires more shares than
    the president takes over, an equal holding does not."""
    t = Table()
    t.give(1, BETA, 1)
    assert t.companies[BETA, PRESIDENT] == 1
    t.give(2, BETA, 1)
    assert t.companies[BETA, PRESIDENT] == 1  # 1 v 1: no takeover
    t.give(2, BETA, 1)
    assert t.companies[BETA, PRESIDENT] == 2  # 2 v 1


def test_presidency_is_shown_with_a_share_indicator():
    """Presidency "is shown on the board with a Share Indicator" (ASSUMED: one of the
    president's own, shares.presidency_uses_indicator): taking office places one, losing
    office gives it back; with the switch off a presidency costs none."""
    t = Table()
    per_player = t.cfg[CFG_SHARE_INDICATORS]
    t.give(1, BETA, 1)
    assert t.players[1, INDICATORS_LEFT] == per_player - 2
    t.give(2, BETA, 2)
    assert t.players[1:, INDICATORS_LEFT].tolist() == [per_player - 1, per_player - 3]
    t = Table(sets=("shares.presidency_uses_indicator=false",))
    t.give(1, BETA, 1)
    assert t.players[1, INDICATORS_LEFT] == per_player - 1


def test_a_takeover_needs_an_indicator_for_the_presidency():
    """Presidency: a takeover is immediate, so a purchase that would make the buyer president
    needs a share indicator for the presidency too (ASSUMED); with one indicator left seat 0
    can add to Alpha, which it presides, but not buy its first Beta share."""
    t = Table()
    t.traders(sell=NEVER, buy=ALWAYS)
    t.give(0, ALPHA, 1)
    t.companies[GAMMA:, SHARES_OUT] = 9  # too dear
    t.players[0, CASH] = 2
    t.players[0, INDICATORS_LEFT] = 1
    assert engine.indicators_to_buy(t.state, t.cfg, 0, BETA) == 2
    assert engine.indicators_to_buy(t.state, t.cfg, 0, ALPHA) == 1
    t.buy(0)
    assert t.shares[0, [ALPHA, BETA]].tolist() == [2, 0]
    assert t.players[0, INDICATORS_LEFT] == 0


def test_president_selling_into_a_tie_chooses_the_successor():
    """Presidency, special case: the president ties with several players and sells; the
    president decides who is next.  Every choice is tried (the value investor names the
    poorest rival), and only the tied players are offered."""
    for pick in (1, 2):
        t = Table(n_players=4)
        t.policy_ids[:] = VALUE_INVESTOR
        for seat in (0, 1, 2):
            t.give(seat, ALPHA, 2)
        t.give(3, ALPHA, 1)
        t.players[[1, 2, 3], CASH] = 30
        t.players[pick, CASH] = 3
        engine.sell_share(t.state, 0, ALPHA)
        assert t.successor(0, ALPHA) == pick
        assert t.companies[ALPHA, PRESIDENT] == pick
        assert t.offered() == [1, 2]


@pytest.mark.parametrize("holdings, president", [((3, 2, 0), 0), ((2, 2, 1), 1)])
def test_after_a_sale_the_presidency_follows_the_most_shares(holdings, president):
    """Presidency: after selling, the president keeps office while no one holds more (3, 2
    -> 2, 2); a player who now holds more takes over (2, 2, 1 -> 1, 2, 1)."""
    t = Table()
    for seat, n in enumerate(holdings):
        t.give(seat, ALPHA, n)
    engine.sell_share(t.state, 0, ALPHA)
    assert t.successor(0, ALPHA) == president


def test_a_player_without_an_indicator_is_passed_over_for_presidency():
    """Presidency, ASSUMED: a player with no share indicator free cannot show a presidency, so
    it passes to the player holding the most shares among those who can."""
    t = Table()
    t.give(0, ALPHA, 3)
    t.give(1, ALPHA, 3)
    t.give(2, ALPHA, 1)
    t.players[1, INDICATORS_LEFT] = 0
    for _ in range(3):
        engine.sell_share(t.state, 0, ALPHA)
    assert t.successor(0, ALPHA) == 2
    assert t.players[2, INDICATORS_LEFT] == t.cfg[CFG_SHARE_INDICATORS] - 2


def test_a_sale_by_another_player_leaves_the_presidency_alone():
    """Presidency: only the president's sale can hand the presidency on ("if the president ...
    chooses to sell a share, he / she decides who will be the next president").  Seat 2 sells
    its Alpha share; seat 0 stays president though it has no share indicator free and seat 1
    holds as many shares.

        Alpha: seat 0 president, 2 shares (no indicator free); seat 1 2 shares; seat 2 1
    """
    t = Table()
    t.traders(sell=ALWAYS, buy=NEVER)
    t.give(0, ALPHA, 2)
    t.give(1, ALPHA, 2)
    t.give(2, ALPHA, 1)
    t.players[0, INDICATORS_LEFT] = 0
    t.sell(2)
    assert t.shares[:, ALPHA].tolist() == [2, 2, 0]
    assert t.companies[ALPHA, PRESIDENT] == 0 and t.events(EV_PRESIDENT) == []


def test_a_holder_passed_over_takes_office_once_an_indicator_is_free():
    """Presidency: "should another player acquire more shares than the current president, he /
    she immediately takes over".  Seat 1, passed over for want of a share indicator (ASSUMED),
    holds 3 Alpha to the president's 2; selling its Beta share frees one, and it takes the
    Alpha presidency at once (the rich Alpha board makes Beta the share it sells).

        A A A A
        A A A A     Alpha: seat 0 president, 2 shares; seat 1 3 shares, no indicator free
        . . . .     Beta: seat 2 president, 2 shares; seat 1 1 share
    """
    t = Table("""
        A A A A
        A A A A
        . . . .
    """)
    t.traders(sell=ALWAYS, buy=NEVER)
    t.give(0, ALPHA, 2)
    t.give(1, ALPHA, 3)
    engine.set_president(t.state, t.cfg, ALPHA, 0)  # as when seat 0 sold and seat 1 had none
    t.give(2, BETA, 2)
    t.give(1, BETA, 1)
    t.players[1, INDICATORS_LEFT] = 0
    t.sell(1)
    assert t.shares[1, [ALPHA, BETA]].tolist() == [3, 0]
    assert t.companies[ALPHA, PRESIDENT] == 1 and t.players[1, INDICATORS_LEFT] == 0
    row = t.events(EV_PRESIDENT)[0]
    assert row == (EV_PRESIDENT, 0, 1, ALPHA, 0, 0, 1)
    assert describe(row, GAME.rules()) == (
        "turn 1: seat 1 becomes president of Alpha "
        "(more shares, and now a share indicator free to show it)"
    )


def test_a_president_losing_office_takes_the_presidency_it_was_passed_over_for():
    """Presidency: a takeover gives the old president's share indicator back, and with it that
    player takes over a company where it was passed over (ASSUMED, as above).  Seat 1 buys a
    second Alpha share (its only affordable one) and takes Alpha from seat 0, which then takes
    Beta from seat 2.

        Alpha: seat 0 president, 1 share; seat 1 1 share, 3 M.U.
        Beta: seat 2 president, 1 share; seat 0 2 shares, no indicator free
    """
    t = Table()
    t.traders(sell=NEVER, buy=ALWAYS)
    t.give(0, ALPHA, 1)
    t.give(1, ALPHA, 1)
    t.give(2, BETA, 1)
    t.give(0, BETA, 2)
    engine.set_president(t.state, t.cfg, BETA, 2)  # as when seat 0 had no indicator free
    t.players[0, INDICATORS_LEFT] = 0
    t.companies[GAMMA:, SHARES_OUT] = 9  # too dear
    t.players[1, CASH] = 3
    t.buy(1)
    assert t.companies[[ALPHA, BETA], PRESIDENT].tolist() == [1, 0]
    assert t.events(EV_PRESIDENT) == [
        (EV_PRESIDENT, 0, 1, ALPHA, 0, 0, 0),
        (EV_PRESIDENT, 0, 0, BETA, 2, 0, 1),
    ]


def test_selling_the_last_share_leaves_no_president():
    """Presidency (ASSUMED): a company whose shares are all sold has no president; the trace
    says so, and the replay prints it."""
    t = Table()
    t.traders(sell=ALWAYS, buy=NEVER)
    t.give(0, BETA, 1)
    t.sell(0)
    assert t.companies[BETA, PRESIDENT] == NONE
    assert t.players[0, INDICATORS_LEFT] == t.cfg[CFG_SHARE_INDICATORS]
    row = t.events(EV_PRESIDENT)[0]
    assert row == (EV_PRESIDENT, 0, NONE, BETA, 0, 0, 0)
    line = describe(row, GAME.rules())
    assert line == "turn 1: Beta has no president (its last share was sold)"


# --- Scoring ---------------------------------------------------------------------------------


def scored_position(sets: tuple = ()):
    """Alpha 3 markers, Beta 2, Gamma 1; seat 0 holds 2 Alpha and 1 Beta (presiding both) and
    5 M.U., seat 1 holds 1 Gamma (presiding it) and 12 M.U.: (table, game row, players' rows)."""
    t = Table(
        """
        A A A .
        B B . .
        . . . C
    """,
        sets=sets,
    )
    t.give(0, ALPHA, 2)
    t.give(0, BETA, 1)
    t.players[0, CASH] = 5
    t.give(1, GAMMA, 1)
    t.players[1, CASH] = 12
    out_game, out_players = np.zeros(N_GAME_OUT, np.int64), np.zeros((3, N_PLAYER_OUT), np.int64)
    t.score(out_game, out_players)
    return t, out_game, out_players


def test_scoring():
    """Scoring: company value = its markers on the board; score = cash + shares x value; the
    highest score wins."""
    t, out_game, out_players = scored_position()
    assert out_players[:, P_HOLDINGS].tolist() == [2 * 3 + 1 * 2, 1, 0]
    assert out_players[:, P_SCORE].tolist() == [5 + 8, 12 + 1, 0]
    assert out_game[G_WINNER] == -1  # 13 v 13: ASSUMED a shared win
    assert out_players[:, P_WON].tolist() == [1, 1, 0]
    t.players[1, CASH] = 11
    t.score(out_game, out_players)
    assert out_game[G_WINNER] == 0 and out_players[:, P_WON].tolist() == [1, 0, 0]


def test_scoring_points_come_from_the_scoring_keys():
    """Scoring as data ([scoring]): a company is worth per_indicator points per marker on the
    board, an M.U. per_mu points and a presidency per_presidency points; the printed scoring
    is 1, 1, 0 (test_scoring)."""
    sets = ("scoring.per_indicator=2", "scoring.per_mu=3", "scoring.per_presidency=-4")
    t, out_game, out_players = scored_position(sets)
    assert out_players[:, P_HOLDINGS].tolist() == [2 * (2 * 3 + 1 * 2), 2 * 1, 0]
    assert out_players[:, P_CASH].tolist() == [5, 12, 0]  # M.U. held, unscaled
    assert out_players[:, P_SCORE].tolist() == [3 * 5 + 16 - 2 * 4, 3 * 12 + 2 - 4, 0]
    assert out_game[G_WINNER] == 1
    row = t.events(EV_SCORE)[0]
    assert (
        describe(row, GAME.rules())
        == "final seat 0: cash 15 + holdings 16 + presidencies -8 = score 23"
    )
