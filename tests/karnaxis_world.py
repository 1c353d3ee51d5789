"""A Karnaxis game state to set rulebook situations up in, for the Karnaxis tests.

``World`` builds one game's arrays with the engine's own Game Setup and calls any rule function
by name, filling in the game's arrays by parameter name, so a test reads like the rulebook's
situation: who holds what, then the rule, then what the rulebook says happens.

The rule functions run as plain Python, as under NUMBA_DISABLE_JIT=1, so the scenario tests
compile nothing (compiling each rule function as its own entry point costs minutes); the
compiled kernels are checked against the same plain Python in test_karnaxis.py.
"""

import inspect
import types

import numpy as np
from numba.core.dispatcher import Dispatcher

from simulator.core.game import get_game
from simulator.core.rng import N_STREAMS
from simulator.core.trace import new_trace
from simulator.games.karnaxis import actions, business, engine, money, new_year, year_end
from simulator.games.karnaxis import state as S

GAME = get_game("karnaxis")
POLICY = {p.name: p.id for p in GAME.policies}
RULE_MODULES = (money, new_year, actions, business, year_end, engine)


def plain_python(modules):
    """{name: function} of every kernel in ``modules`` as plain Python: each kernel's own code
    (``py_func``) run against a copy of its globals (its module's, or the namespace a shared
    template was bound to) in which every kernel it calls is plain Python too, whether it
    calls it by name or through its module (``money.gain``, ``S.row``)."""
    namespaces, plain, plain_modules = {}, {}, {}

    def namespace(kernel_globals):
        key = id(kernel_globals)
        if key not in namespaces:
            ns = namespaces[key] = dict(kernel_globals)
            for name, value in list(ns.items()):
                if isinstance(value, Dispatcher):
                    ns[name] = to_plain(value)
                elif isinstance(value, types.ModuleType) and is_ours(value):
                    ns[name] = plain_module(value)
        return namespaces[key]

    def plain_module(module):
        if module not in plain_modules:
            view = plain_modules[module] = types.SimpleNamespace()
            for name, value in vars(module).items():
                setattr(view, name, to_plain(value) if isinstance(value, Dispatcher) else value)
        return plain_modules[module]

    def to_plain(kernel):
        f = kernel.py_func
        if f not in plain:
            g = namespace(f.__globals__)
            if f not in plain:
                plain[f] = types.FunctionType(
                    f.__code__, g, f.__name__, f.__defaults__, f.__closure__
                )
        return plain[f]

    found = {}
    for module in reversed(modules):
        for name, value in vars(module).items():
            if isinstance(value, Dispatcher) or inspect.isfunction(value):
                found[name] = to_plain(value) if isinstance(value, Dispatcher) else value
    return found


def is_ours(module) -> bool:
    """A module of the package or of the policies, whose kernels run as plain Python too."""
    return module.__name__.split(".")[0] in ("simulator", "policies")


RULES = plain_python(RULE_MODULES)


def take_actions(state, rules, knobs, rng, trace):
    """2. Take Action! as a whole: every action square of the year, one step at a time."""
    RULES["start_actions"](state, rules)
    while not RULES["action_square"](state, rules, knobs, rng, trace):
        pass


RULES["take_actions"] = take_actions


class World:
    """One game's arrays after Game Setup (year 1), with callable rule functions.

    ``players``, ``board``, ``stocks``, ``shares``, ``owners`` and ``options`` are numpy views of
    the blocks of the flat ``state`` (state.py), so a test writes a seat's cash as
    ``w.players[seat, S.CASH]``; ``tables``, ``chars``, ``biz``, ``kcards`` are views of the
    rules array ``rules_array`` (``rules`` stays the rules as read from TOML)."""

    def __init__(self, rules=None, n_players=4, seed=1, policies=None, trace_rows=2000):
        self.rules = rules or GAME.default_rules()
        self.params = GAME.prepare(self.rules, n_players)
        self.rules_array, self.knobs = self.params[0], self.params[1]
        r = self.rules_array
        self.pol = np.array(policies or [POLICY["random"]] * n_players, dtype=np.int8)
        self.state = np.zeros(r[S.CFG_STATE_SIZE], dtype=np.int64)
        self.rng = np.zeros(N_STREAMS, dtype=np.uint64)
        self.trace = new_trace(trace_rows)
        RULES["new_game"](self.state, r, self.knobs, self.rng, np.uint64(seed), self.pol)
        while self.state[S.PHASE] == S.AT_CHARACTER:  # Game Setup: the character choices
            RULES["play_step"](self.state, r, self.knobs, self.rng, self.trace)
        self.board[S.YEAR] = 1
        self.black = n_players  # the black business's row in stocks / column in shares

    def block(self, at, rows, width):
        return self.state[at : at + rows * width].reshape(rows, width)

    def rules_block(self, at, rows, width):
        r = self.rules_array
        return r[r[at] : r[at] + rows * width].reshape(rows, width)

    @property
    def n(self):
        return int(self.rules_array[S.CFG_PLAYERS])

    @property
    def players(self):
        return self.block(S.PLAYERS, self.n, S.N_PLAYER)

    @property
    def board(self):
        return self.state[: S.N_SCALARS]

    @property
    def stocks(self):
        return self.block(S.STOCKS, self.n + 1, S.N_STOCK)

    @property
    def shares(self):
        return self.block(S.SHARES, S.MAX_PLAYERS, S.MAX_STOCKS)[: self.n, : self.n + 1]

    @property
    def owners(self):
        return self.block(S.OWNERS, S.N_OWNERS, int(self.rules_array[S.CFG_DECK_WIDTH]))

    @property
    def options(self):
        return self.block(S.OPTIONS, S.MAX_OPTIONS, S.OPT_WIDTH)

    @property
    def tables(self):
        return self.rules_block(S.CFG_TABLES, S.N_TABLE, int(self.rules_array[S.CFG_TABLE_WIDTH]))

    @property
    def chars(self):
        return self.rules_block(S.CFG_CHARS, int(self.rules_array[S.CFG_N_CHARS]), S.C_WIDTH)

    @property
    def biz(self):
        return self.rules_block(S.CFG_BIZ, int(self.rules_array[S.CFG_N_BIZ]), S.B_WIDTH)

    @property
    def kcards(self):
        return self.rules_block(S.CFG_KCARDS, int(self.rules_array[S.CFG_N_KCARDS]), S.KC_WIDTH)

    def call(self, name, *args):
        """Call rule ``name`` with this game's arrays (by parameter name), then ``args``."""
        fn = RULES[name]
        params = list(inspect.signature(fn).parameters)
        arrays = [
            self.rules_array if p == "rules" else getattr(self, p)
            for p in params[: len(params) - len(args)]
        ]
        return fn(*arrays, *args)

    def index(self, table, name):
        return [item["name"] for item in self.rules[table]].index(name)

    def make(self, seat, character):
        """Give a seat a character card (and its attributes); another seat holding that card
        gets one nobody holds, so characters stay unique."""
        c = self.index("characters", character)
        for other in range(self.players.shape[0]):
            if other != seat and self.players[other, S.CHARACTER] == c:
                held = set(self.players[:, S.CHARACTER].tolist())
                free = next(i for i in range(len(self.chars)) if i not in held)
                self.give_character(other, free)
        self.give_character(seat, c)
        return c

    def give_character(self, seat, c):
        self.players[seat, S.CHARACTER] = c
        self.players[seat, S.ATTR : S.ATTR + S.N_ATTR] = self.chars[
            c, S.C_ATTR : S.C_ATTR + S.N_ATTR
        ]

    def hire(self, seat, job):
        """Seat holds job card ``job`` (by name)."""
        j = self.index("jobs", job)
        self.players[seat, S.JOB] = j
        self.owners[S.OWN_JOB, j] = seat
        return j

    def own(self, seat, business):
        """Seat starts business ``business`` (by name), its cost paid from a cash top-up."""
        b = self.index("businesses", business)
        self.players[seat, S.CASH] += self.tables[S.T_LEVEL_COST, self.biz[b, S.B_LEVEL] - 1]
        self.call("start_business", seat, b)
        self.players[seat, S.BUSINESS_YEAR] = 0  # free to start another this year
        return b

    def events_of(self, kind):
        n = self.board[S.TRACE_N]
        return [row for row in self.trace[:n].tolist() if row[0] == kind]

    def cash(self, seat):
        return int(self.players[seat, S.CASH])

    def attribute_total(self, seat):
        return int(self.players[seat, S.ATTR : S.ATTR + S.N_ATTR].sum())

    def offered(self, seat, first=False):
        """(action, A) pairs Take Action! offers ``seat`` now."""
        n = self.call("list_actions", seat, first)
        return [tuple(r) for r in self.options[:n, :2].tolist()]


def rules_with(**sets):
    """Default rules with ``section__key=value`` overrides."""
    return GAME.rules(sets=tuple(f"{k.replace('__', '.')}={v}" for k, v in sets.items()))
