"""A small Ekonos position for the rule scenario tests (test_ekonos_rules*.py): the board
drawn as text, the engine's state array, and one call per rule step."""

import numpy as np

from policies.ekonos import (
    BUY_MARGIN,
    EXPAND_EARLY,
    PRESIDENT_SEEKER,
    RANDOM,
    SELL_MARGIN,
    VALUE_INVESTOR,
)
from simulator.core.game import get_game
from simulator.core.rng import N_STREAMS
from simulator.games.ekonos import board, chunk, engine
from simulator.games.ekonos.game import board_adjacency, neighbour_masks, trace_game
from simulator.games.ekonos.state import (
    AT_CARD,
    AT_SELL,
    BOUGHT,
    CASH,
    CFG_ALL_SPACES,
    CFG_CARDS,
    CFG_CARDS_PER_TURN,
    CFG_COMPANIES,
    CFG_SPACES,
    CFG_STATE_SIZE,
    DECK,
    EMPTY,
    EV_DISCARD,
    EV_GROW,
    EV_PLACE,
    EV_PROTECT,
    EVENTS,
    GROWTH,
    HANDS,
    MAX_COMPANIES,
    MAX_HAND,
    MAX_PLAYERS,
    MAX_SPACES,
    MONEY_RECEIVED,
    NEIGHBOURS,
    OFFERED,
    OWNER,
    PHASE,
    PROTECTED,
    ROUND,
    SEAT,
    SEAT_POLICY,
    SHARES,
    SPENT,
    STARTER,
    TRACE_WIDTH,
)

GAME = get_game("ekonos")
ALPHA, BETA, GAMMA, DELTA, EPSILON, OMEGA = range(6)
ALWAYS, NEVER = -1000.0, 1000.0  # value_investor margins: trade whatever is offered / nothing
CARD_EVENTS = (EV_PLACE, EV_PROTECT, EV_GROW, EV_DISCARD)  # the first event of a round
EMPTY_BOARD = """
    . . . .
    . . . .
    . . . .
"""


class Fields:
    """A field-major block of the state read as a table: ``[row, FIELD]`` is
    ``state[FIELD + row]`` (rows are seats or companies; FIELD a slot name of state.py).
    Either index may be a list or a slice, as in numpy."""

    def __init__(self, state: np.ndarray, n_rows: int):
        self.state, self.n_rows = state, n_rows

    def _at(self, key):
        rows, fields = key
        return np.asarray(fields) + np.arange(self.n_rows)[rows]

    def __getitem__(self, key):
        return self.state[self._at(key)]

    def __setitem__(self, key, value):
        self.state[self._at(key)] = value


def bits(mask: int) -> list[int]:
    """The items of a mask (the spaces of a board mask, a decision's option codes), ascending."""
    return [s for s in range(MAX_SPACES) if mask >> s & 1]


class Table:
    """A position: a board drawn as text (rows of cells: '.' empty, A-F an indicator of that
    company, a-f a protected one; spaces are numbered row by row), n players with no cash, the
    default rules with ``sets`` overrides, every seat playing ``policy``."""

    def __init__(
        self, drawing: str = EMPTY_BOARD, n_players: int = 3, sets: tuple = (), policy: int = RANDOM
    ):
        rows = [line.split() for line in drawing.strip().splitlines()]
        self.width = len(rows[0])
        self.adjacency = board_adjacency(["." * len(r) for r in rows])
        self.cfg, self.knobs = GAME.prepare(GAME.rules(sets=sets), n_players)
        n_spaces = len(self.adjacency)
        self.cfg[CFG_SPACES], self.cfg[CFG_ALL_SPACES] = n_spaces, (1 << n_spaces) - 1
        self.cfg[NEIGHBOURS : NEIGHBOURS + n_spaces] = neighbour_masks(self.adjacency)
        self.state = np.zeros(self.cfg[CFG_STATE_SIZE], np.int64)
        self.rng = np.zeros(N_STREAMS, np.uint64)
        chunk.new_game(
            self.state,
            self.cfg,
            self.knobs,
            self.rng,
            np.uint64(3),
            np.full(n_players, policy, np.int8),
        )
        self.players = Fields(self.state, n_players)
        self.companies = Fields(self.state, self.cfg[CFG_COMPANIES])
        self.players[:, CASH] = 0
        self.players[:, MONEY_RECEIVED] = 0
        self.shares = self.block(SHARES, MAX_COMPANIES)[:n_players, : self.cfg[CFG_COMPANIES]]
        self.hands = self.block(HANDS, MAX_HAND)[:n_players, : self.cfg[CFG_CARDS_PER_TURN]]
        self.policy_ids = self.state[SEAT_POLICY : SEAT_POLICY + n_players]
        self.trace = np.zeros((64, TRACE_WIDTH), np.int64)
        cells = [c for r in rows for c in r]
        for s, cell in enumerate(cells):
            if cell != ".":
                board.place_marker(self.state, self.cfg, s, ord(cell.upper()) - ord("A"))
                if cell.islower():
                    self.state[PROTECTED] |= 1 << s

    def block(self, at: int, width: int) -> np.ndarray:
        """A seat-major (or row-major) block of the state as a writable 2-d view."""
        return self.state[at : at + MAX_PLAYERS * width].reshape(-1, width)

    def owners(self) -> list[int]:
        return self.state[OWNER : OWNER + len(self.adjacency)].tolist()

    def drawing(self) -> str:
        cells = [
            "."
            if o == EMPTY
            else chr((ord("a") if self.state[PROTECTED] >> s & 1 else ord("A")) + o)
            for s, o in enumerate(self.owners())
        ]
        return "\n".join(
            " ".join(cells[i : i + self.width]) for i in range(0, len(cells), self.width)
        )

    def events(self, *kinds) -> list[tuple]:
        rows = [tuple(r) for r in self.trace[: self.state[EVENTS]].tolist()]
        return [r for r in rows if r[0] in kinds] if kinds else rows

    def give(self, seat, company, n):
        """``n`` shares bought at no cost (presidency as the rules give it)."""
        for _ in range(n):
            engine.buy_share(self.state, self.cfg, seat, company)
        self.players[seat, [CASH, SPENT, BOUGHT]] = 0

    def traders(self, sell: float, buy: float):
        """Every seat a value investor that sells (ALWAYS) or never sells, buys or never buys."""
        self.policy_ids[:] = VALUE_INVESTOR
        self.knobs[VALUE_INVESTOR, SELL_MARGIN] = sell
        self.knobs[VALUE_INVESTOR, BUY_MARGIN] = buy

    def file_hands(self):
        """File the hands as the test wrote them by company (CARD_CODES), as a deal does."""
        for seat in range(len(self.policy_ids)):
            board.index_hand(self.state, self.cfg, seat)

    def _step(self, kernel, *args):
        self.file_hands()
        return kernel(self.state, self.cfg, self.knobs, self.rng, self.trace, *args)

    def step(self):
        """One step of the game loop from the loop position (engine.play_step)."""
        self._step(engine.play_step)

    def raise_growth(self, seat, c):
        self._step(engine.raise_growth, seat, c)

    def sell(self, seat):
        self._step(engine.sell_step, seat)

    def buy(self, seat):
        self._step(engine.buy_step, seat)

    def trade(self, seat):
        """The sell and buy parts of ``seat``'s round, as the game loop plays them."""
        self.state[STARTER], self.state[ROUND], self.state[PHASE] = seat, 0, AT_SELL
        self.state[SEAT] = seat
        while self.state[PHASE] != AT_CARD:
            self.step()

    def play_card(self, seat):
        self._step(engine.play_card, seat)

    def successor(self, seller, c):
        return self._step(engine.presidency_after_sale, seller, c)

    def deal(self):
        engine.deal(self.state, self.cfg, self.rng, self.trace)

    def card_options(self, seat) -> set[tuple]:
        """(hand slot, function, company) of every card option of ``seat``."""
        deck = self.cfg[DECK : DECK + 3 * self.cfg[CFG_CARDS]]
        self.file_hands()
        return {
            (code // 3, code % 3, int(deck[3 * self.hands[seat, code // 3] + code % 3]))
            for code in bits(engine.card_options(self.state, self.cfg, seat))
        }

    def offered(self) -> list[int]:
        """The option codes of the last decision offered (state.py, "option codes")."""
        return bits(self.state[OFFERED])

    def expand_targets(self, c) -> list[int]:
        return bits(board.expand_targets(self.state, self.cfg, c))

    def place_targets(self, c) -> list[int]:
        return bits(board.place_targets(self.state, self.cfg, c))

    def card(self, place, grow_a, grow_b) -> int:
        """The index of the deck's card [place, grow_a, grow_b]."""
        deck = self.cfg[DECK : DECK + 3 * self.cfg[CFG_CARDS]].reshape(-1, 3).tolist()
        return deck.index([place, grow_a, grow_b])

    def score(self, out_game, out_players):
        """Score the position (Scoring) into a game row and the players' rows."""
        n, c = len(self.policy_ids), self.cfg[CFG_COMPANIES]
        chunk.score_game(
            self.state,
            self.cfg,
            self.trace,
            out_game,
            out_players,
            np.zeros(c, np.int64),
            np.zeros((n, 2 * c), np.int64),
        )


def alpha_presided(drawing: str, growth: int, expand_early: float) -> Table:
    """A position where seat 0, a president seeker that expands at level 4 (``expand_early``
    1) or waits for 6 (0), presides Alpha with one share and Alpha's growth indicator is at
    ``growth``; every seat plays the president seeker."""
    t = Table(drawing, policy=PRESIDENT_SEEKER)
    t.give(0, ALPHA, 1)
    t.knobs[PRESIDENT_SEEKER, EXPAND_EARLY] = expand_early
    t.companies[ALPHA, GROWTH] = growth
    return t


def traced_game(n_players: int, seed: int = 5):
    """The trace of one whole game, every seat random (seed chosen arbitrarily)."""
    params = GAME.prepare(GAME.rules(), n_players)
    return params[0], [
        tuple(r) for r in trace_game(params, seed, np.zeros(n_players, np.int8)).tolist()
    ]
