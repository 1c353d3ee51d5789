"""Ekonos rules (shared/rules/ekonos.md), each test citing its section."""

import numpy as np
import pytest

from policies.ekonos import EXPAND_EARLY, POLICIES, PRESIDENT_SEEKER, VALUE_INVESTOR
from simulator.game import get_game
from simulator.games.ekonos import engine
from simulator.games.ekonos.game import board_adjacency
from simulator.games.ekonos.state import *  # noqa: F401,F403
from simulator.rng import game_seeds, rng_new

GAME = get_game("ekonos")
RULES = GAME.rules()
ALPHA, BETA, GAMMA = 0, 1, 2


class Table:
    """A small position: a 3 x 4 board drawn as text, 3 players, the default rules."""

    def __init__(self, drawing: str, n_players: int = 3):
        # each cell: '.' empty, a letter = company (A, B, C, ...), lower case = protected
        rows = [line.split() for line in drawing.strip().splitlines()]
        self.adjacency = board_adjacency(["." * len(r) for r in rows])
        cells = [c for r in rows for c in r]
        self.cfg, self.deck, _, self.knobs = GAME.prepare(RULES, n_players)
        self.board = np.zeros((len(cells), N_SPACE), np.int64)
        self.companies = np.zeros((6, N_COMPANY), np.int64)
        self.companies[:, PRESIDENT] = NONE
        self.companies[:, SUPPLY] = self.cfg[CFG_MARKERS]
        for s, cell in enumerate(cells):
            self.board[s, OWNER] = EMPTY if cell == "." else ord(cell.upper()) - ord("A")
            self.board[s, PROTECTED] = cell.islower()
            if cell.islower():
                self.companies[self.board[s, OWNER], PROTECTED_ON_BOARD] += 1
            if cell != ".":
                self.companies[self.board[s, OWNER], ON_BOARD] += 1
                self.companies[self.board[s, OWNER], SUPPLY] -= 1
        self.players = np.zeros((n_players, N_PLAYER), np.int64)
        self.players[:, INDICATORS_LEFT] = self.cfg[CFG_SHARE_INDICATORS]
        self.shares = np.zeros((n_players, 6), np.int64)
        self.options = np.zeros((64, OPT_WIDTH), np.int64)
        self.rng = rng_new(np.uint64(3))

    def drawing(self) -> str:
        cells = ["." if o == EMPTY else chr(ord("A") + o) if not p else chr(ord("a") + o)
                 for o, p in self.board]
        return "\n".join(" ".join(cells[i:i + 4]) for i in range(0, len(cells), 4))

    def give(self, seat, company, n):
        for _ in range(n):
            engine.buy_share(self.players, self.companies, self.shares, seat, company)
        self.players[seat, CASH] = 0

    def policies(self, policy):
        return np.full(self.players.shape[0], policy, np.int8)


def test_share_prices_worked_example():
    """The Buying and Selling of Shares, example: X holds 2 of Gamma's 4 shares; selling
    collects 4, buying pays 5."""
    t = Table(". . . .\n. . . .\n. . . .")
    x, y = 0, 1
    t.give(x, GAMMA, 2)
    t.give(y, GAMMA, 2)
    assert engine.sell_price(t.companies, GAMMA) == 4
    assert engine.buy_price(t.companies, GAMMA) == 5
    t.players[x, CASH] = 10
    assert engine.sell_share(t.players, t.companies, t.shares, x, GAMMA) == 4
    assert t.players[x, CASH] == 14 and t.shares[x, GAMMA] == 1
    t.give(x, GAMMA, 1)   # back to 2 of 4
    t.players[x, CASH] = 10
    assert engine.buy_share(t.players, t.companies, t.shares, x, GAMMA) == 5
    assert t.players[x, CASH] == 5 and t.shares[x, GAMMA] == 3
    assert t.companies[GAMMA, SHARES_OUT] == 5


def test_presidency_first_buyer_then_whoever_holds_more():
    """Presidency: the first buyer becomes president; a player with more shares takes over,
    an equal holding does not."""
    t = Table(". . . .\n. . . .\n. . . .")
    t.give(1, BETA, 1)
    assert t.companies[BETA, PRESIDENT] == 1
    t.give(2, BETA, 1)
    assert t.companies[BETA, PRESIDENT] == 1   # 1 v 1: no takeover
    t.give(2, BETA, 1)
    assert t.companies[BETA, PRESIDENT] == 2   # 2 v 1


def test_president_selling_into_a_tie_chooses_the_successor():
    """Presidency, special case: the president ties with several players and sells; the
    president decides who is next (a scripted policy names the poorest rival)."""
    t = Table(". . . .\n. . . .\n. . . .")
    for seat in (0, 1, 2):
        t.give(seat, ALPHA, 2)
    assert t.companies[ALPHA, PRESIDENT] == 0
    t.players[1, CASH], t.players[2, CASH] = 30, 3
    engine.sell_share(t.players, t.companies, t.shares, 0, ALPHA)
    new = engine.presidency_after_sale(t.cfg, t.players, t.companies, t.shares, t.board,
                                       t.adjacency, 0, ALPHA, t.knobs,
                                       t.policies(VALUE_INVESTOR), t.rng, t.options, False)
    assert new == 2 and t.companies[ALPHA, PRESIDENT] == 2


def test_president_keeps_office_when_still_ahead_and_none_when_sold_out():
    t = Table(". . . .\n. . . .\n. . . .")
    t.give(0, ALPHA, 3)
    t.give(1, ALPHA, 1)
    engine.sell_share(t.players, t.companies, t.shares, 0, ALPHA)
    assert engine.presidency_after_sale(t.cfg, t.players, t.companies, t.shares, t.board,
                                        t.adjacency, 0, ALPHA, t.knobs, t.policies(1), t.rng,
                                        t.options, False) == 0
    t = Table(". . . .\n. . . .\n. . . .")
    t.give(0, BETA, 1)
    engine.sell_share(t.players, t.companies, t.shares, 0, BETA)
    assert engine.presidency_after_sale(t.cfg, t.players, t.companies, t.shares, t.board,
                                        t.adjacency, 0, BETA, t.knobs, t.policies(1), t.rng,
                                        t.options, False) == NONE


def test_expansion_targets_skip_protected_markers():
    """Playing a Card: growth places indicators adjacent to the company's own, replacing
    unprotected indicators of other companies but never protected ones."""
    t = Table("""
        . B c .
        . A B .
        . . . .
    """)
    n = engine.list_expand_options(t.board, t.adjacency, ALPHA, t.options)
    targets = sorted(t.options[:n, OPT_A])
    # A at space 5 touches 1 (B, unprotected), 4 (empty), 6 (B, unprotected), 9 (empty)
    assert targets == [1, 4, 6, 9]


@pytest.mark.parametrize("early, level, placed", [(1.0, 4, 2), (0.0, 4, 0), (0.0, 6, 3)])
def test_growth_expands_by_two_at_four_or_three_at_six(early, level, placed):
    """Playing a Card: at growth 4 the president may place 2 indicators (or wait); at 6 they
    place 3; the growth indicator then returns to zero."""
    t = Table("""
        . . . .
        . A . .
        . . . .
    """)
    t.give(0, ALPHA, 1)
    t.knobs[PRESIDENT_SEEKER, EXPAND_EARLY] = early
    t.companies[ALPHA, GROWTH] = level - 1
    engine.raise_growth(t.cfg, t.board, t.adjacency, t.companies, t.shares, t.players, 1, ALPHA,
                        t.knobs, t.policies(PRESIDENT_SEEKER), t.rng, t.options, 0,
                        np.zeros((0, TRACE_WIDTH), np.int64), 0, False)
    assert t.companies[ALPHA, ON_BOARD] == 1 + placed
    assert t.companies[ALPHA, GROWTH] == (0 if placed else level)
    assert t.drawing().count("A") == 1 + placed


def test_scoring():
    """Scoring: company value = its markers on the board; score = cash + shares x value."""
    t = Table("""
        A A A .
        B B . .
        . . . C
    """)
    t.give(0, ALPHA, 2)
    t.give(0, BETA, 1)
    t.players[0, CASH] = 5
    out_game = np.zeros(N_GAME_OUT, np.int64)
    out_players = np.zeros((3, N_PLAYER_OUT), np.int64)
    engine.score_game(t.players, t.companies, t.shares, 10, 3, out_game, out_players,
                      np.zeros(6, np.int64), np.zeros((3, 12), np.int64),
                      np.zeros((0, TRACE_WIDTH), np.int64), 0)
    assert out_players[0, P_HOLDINGS] == 2 * 3 + 1 * 2
    assert out_players[0, P_SCORE] == 5 + 8
    assert out_game[G_WINNER] == 0 and out_players[0, P_WON] == 1


@pytest.fixture(scope="module")
def many_games():
    """3000 games per player count, every policy mixed in."""
    out = {}
    for n in (3, 4, 5, 6):
        params = GAME.prepare(RULES, n)
        ids = np.arange(3000)
        seat_policies = ((ids[:, None] + np.arange(n)) % len(POLICIES)).astype(np.int8)
        out[n] = (params, GAME.play(params, game_seeds(5, ids), seat_policies))
    return out


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_money_shares_and_markers_are_conserved(many_games, n):
    params, raw = many_games[n]
    cfg = params[0]
    p, g = raw["players"], raw["games"]
    # money: every M.U. held was dealt, or came from a sale, less what shares cost
    np.testing.assert_array_equal(
        p["cash"], p["money_dealt"] - p["spent_on_shares"] + p["received_from_sales"])
    assert (p["money_dealt"] == cfg[CFG_TURNS] * cfg[CFG_MONEY_PER_TURN]).all()
    assert (p["cash"] >= 0).all()
    # shares: held = bought - sold, never more than a player's share indicators
    held = sum(p[f"company{c}_shares"].astype(np.int64) for c in range(6))
    np.testing.assert_array_equal(held, p["shares_bought"] - p["shares_sold"])
    assert (held <= cfg[CFG_SHARE_INDICATORS]).all()
    # markers: a company never has more than its supply; the board never overflows
    values = np.stack([g[f"company{c}_value"] for c in range(6)], axis=1)
    assert (values <= cfg[CFG_MARKERS]).all()
    assert (values.sum(axis=1) <= params[2].shape[0]).all()
    # score = cash + holdings, holdings = shares x value
    holdings = sum(p[f"company{c}_shares"] * values[:, c:c + 1] for c in range(6))
    np.testing.assert_array_equal(p["holdings_value"], holdings)
    np.testing.assert_array_equal(p["score"], p["cash"] + holdings)
    # presidency: at most one president, and the president holds the most shares
    for c in range(6):
        president = p[f"company{c}_president"]
        assert (president.sum(axis=1) <= 1).all()
        shares = p[f"company{c}_shares"]
        top = shares.max(axis=1, keepdims=True)
        assert (shares[president] == np.broadcast_to(top, shares.shape)[president]).all()
    # each turn deals cards_per_turn cards to each player, each card makes one round
    assert (g["rounds"] == cfg[CFG_TURNS] * cfg[CFG_CARDS_PER_TURN] * n).all()


def test_turn_table_by_player_count():
    """Preparation: turns, cards and M.U. per turn for 3-6 players."""
    table = {n: GAME.prepare(RULES, n)[0] for n in (3, 4, 5, 6)}
    got = {n: (c[CFG_TURNS], c[CFG_CARDS_PER_TURN], c[CFG_MONEY_PER_TURN]) for n, c in table.items()}
    assert got == {6: (2, 6, 12), 5: (3, 5, 10), 4: (3, 6, 12), 3: (4, 6, 12)}


def test_replay_reads_as_a_play_by_play():
    params = GAME.prepare(RULES, 4)
    lines = GAME.replay(params, 99, np.array([1, 2, 3, 4], np.int8), RULES)
    assert lines[0] == "== turn 1, seat 0 starts"
    assert sum(line.startswith("final seat") for line in lines) == 4
    assert any("buys a" in line for line in lines)
