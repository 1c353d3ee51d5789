"""A small Ekonos position for the rule scenario tests (test_ekonos_rules*.py): the board
drawn as text, the engine's arrays, and one call per rule step."""

import numpy as np

from policies.ekonos import BUY_MARGIN, RANDOM, SELL_MARGIN, VALUE_INVESTOR
from simulator.game import get_game
from simulator.games.ekonos import engine
from simulator.games.ekonos.game import board_adjacency, trace_game
from simulator.games.ekonos.state import *  # noqa: F401,F403
from simulator.rng import rng_new

GAME = get_game("ekonos")
ALPHA, BETA, GAMMA, DELTA, EPSILON, OMEGA = range(6)
ALWAYS, NEVER = -1000.0, 1000.0   # value_investor margins: trade whatever is offered / nothing
CARD_EVENTS = (EV_PLACE, EV_PROTECT, EV_GROW, EV_DISCARD)   # the first event of a round
EMPTY_BOARD = """
    . . . .
    . . . .
    . . . .
"""


class Table:
    """A position: a board drawn as text (rows of cells: '.' empty, A-F an indicator of that
    company, a-f a protected one; spaces are numbered row by row), n players, the default
    rules with ``sets`` overrides, every seat playing ``policy``."""

    def __init__(self, drawing: str = EMPTY_BOARD, n_players: int = 3, sets: tuple = (),
                 policy: int = RANDOM):
        rows = [line.split() for line in drawing.strip().splitlines()]
        self.width = len(rows[0])
        self.adjacency = board_adjacency(["." * len(r) for r in rows])
        self.cfg, self.deck, _, self.knobs = GAME.prepare(GAME.rules(sets=sets), n_players)
        cells = [c for r in rows for c in r]
        self.board = np.zeros((len(cells), N_SPACE), np.int64)
        self.companies = np.zeros((6, N_COMPANY), np.int64)
        self.companies[:, PRESIDENT] = NONE
        self.companies[:, SUPPLY] = self.cfg[CFG_MARKERS]
        for s, cell in enumerate(cells):
            owner = EMPTY if cell == "." else ord(cell.upper()) - ord("A")
            self.board[s] = owner, cell.islower()
            if owner != EMPTY:
                self.companies[owner, ON_BOARD] += 1
                self.companies[owner, SUPPLY] -= 1
                self.companies[owner, PROTECTED_ON_BOARD] += cell.islower()
        self.players = np.zeros((n_players, N_PLAYER), np.int64)
        self.players[:, INDICATORS_LEFT] = self.cfg[CFG_SHARE_INDICATORS]
        self.shares = np.zeros((n_players, 6), np.int64)
        self.hands = np.full((n_players, self.cfg[CFG_CARDS_PER_TURN]), -1, np.int64)
        self.options = np.zeros((64, OPT_WIDTH), np.int64)
        self.rng = rng_new(np.uint64(3))
        self.policy_ids = np.full(n_players, policy, np.int8)
        self.trace = np.zeros((64, TRACE_WIDTH), np.int64)
        self.n_events = 0

    def drawing(self) -> str:
        cells = ["." if o == EMPTY else chr((ord("a") if p else ord("A")) + o)
                 for o, p in self.board]
        return "\n".join(" ".join(cells[i:i + self.width])
                         for i in range(0, len(cells), self.width))

    def events(self, *kinds) -> list[tuple]:
        rows = [tuple(r) for r in self.trace[:self.n_events].tolist()]
        return [r for r in rows if r[0] in kinds] if kinds else rows

    def give(self, seat, company, n):
        """``n`` shares bought at no cost (presidency as the rules give it)."""
        for _ in range(n):
            engine.buy_share(self.cfg, self.players, self.companies, self.shares, seat, company)
        self.players[seat, [CASH, SPENT, BOUGHT]] = 0

    def traders(self, sell: float, buy: float):
        """Every seat a value investor that sells (ALWAYS) or never sells, buys or never buys."""
        self.policy_ids[:] = VALUE_INVESTOR
        self.knobs[VALUE_INVESTOR, SELL_MARGIN] = sell
        self.knobs[VALUE_INVESTOR, BUY_MARGIN] = buy

    def _step(self, kernel, seat, *args):
        self.n_events = kernel(self.cfg, self.board, self.adjacency, self.companies,
                               self.shares, self.players, seat, *args, self.knobs,
                               self.policy_ids, self.rng, self.options, 0, self.trace,
                               self.n_events, False)

    def raise_growth(self, seat, c):
        self._step(engine.raise_growth, seat, c)

    def sell(self, seat):
        self._step(engine.sell_step, seat)

    def buy(self, seat):
        self._step(engine.buy_step, seat)

    def trade(self, seat):
        self._step(engine.trade, seat)

    def play_card(self, seat):
        self.n_events = engine.play_card(
            self.cfg, self.deck, self.hands, self.board, self.adjacency, self.companies,
            self.shares, self.players, seat, self.knobs, self.policy_ids, self.rng, self.options,
            0, self.trace, self.n_events, False)

    def successor(self, seller, c):
        return engine.presidency_after_sale(
            self.cfg, self.players, self.companies, self.shares, self.board, self.adjacency,
            seller, c, self.knobs, self.policy_ids, self.rng, self.options, False)

    def card_options(self, seat) -> set[tuple]:
        n = engine.list_card_options(self.cfg, self.deck, self.hands[seat], self.companies,
                                     self.board, self.options)
        return {tuple(row) for row in self.options[:n, :3].tolist()}

    def expand_targets(self, c) -> list[int]:
        n = engine.list_expand_options(self.board, self.adjacency, c, self.options)
        return sorted(self.options[:n, OPT_A].tolist())

    def card(self, place, grow_a, grow_b) -> int:
        """The index of the deck's card [place, grow_a, grow_b]."""
        return [list(c) for c in self.deck.tolist()].index([place, grow_a, grow_b])


def traced_game(n_players: int, seed: int = 5):
    """The trace of one whole game, every seat random (seed chosen arbitrarily)."""
    params = GAME.prepare(GAME.rules(), n_players)
    return params[0], [tuple(r) for r in
                       trace_game(params, seed, np.zeros(n_players, np.int8)).tolist()]
