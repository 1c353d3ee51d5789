"""Scenes for the Karmaggän rule tests: boards drawn as text, figures put where a rule needs them.

A scene is a world (``game.world``: the game's arrays and views of them) set up on a board
given as rows of tile characters, row 0 outermost, as in ``rules.toml`` ("S" starting point,
"." Blank, "#" Abyss, "O" Object, "T" Temple, "B" Blood, "P" Passage), with every figure taken
off the board; ``put`` places one, ``draw`` shows the board with plunderers as their seat
digits and Spawns as letters.
The rings keep their offsets at 0 unless a test turns one, so frame column = physical column.
"""

import copy

import numpy as np

from simulator.core.game import get_game
from simulator.core.rng import roll_die
from simulator.games.karmaggan import core
from simulator.games.karmaggan import game as K
from simulator.games.karmaggan.board import draw_rows
from simulator.games.karmaggan.state import (
    CFG_CENTRE,
    CFG_COLS,
    CFG_PLAYERS,
    CFG_SPAWN_MAX,
    D_OBJECTS,
    F_POS,
    G_ODECK_N,
    OFF,
    P_HAND_N,
)

KARMAGGAN = get_game("karmaggan")
RANDOM, RUSHER, HUNTER, SUPPORTER = 0, 1, 2, 3
DEFAULTS = KARMAGGAN.rules()

# An open board of three one-row rings: every tile Blank but the starting points of row 0.
OPEN = ("SSSSSSSS", "........", "........")


def rules_with(
    tiles=OPEN,
    walls_in=None,
    walls_cw=None,
    ring_rows=None,
    hatches=(0, 4),
    rollers=(),
    mode="team",
    **keys,
):
    """Default rules on the board ``tiles``; ``keys`` override "section.key" numbers (use
    ``__`` for the dot, e.g. ``turn__hand_max=3``)."""
    rules = copy.deepcopy(DEFAULTS)
    rows, cols = len(tiles), len(tiles[0])
    ring_rows = ring_rows or [1] * rows
    blood_spaces = sum(row.count("B") for row in tiles)
    rules["board"].update(
        columns=cols,
        sectors=cols // 2,
        ring_rows=list(ring_rows),
        rings=[f"ring{r}" for r in range(len(ring_rows))],
        tiles=list(tiles),
        walls_in=list(walls_in or [" " * cols] * rows),
        walls_cw=list(walls_cw or [" " * cols] * rows),
        hatch_columns=list(hatches),
        hatch_kinds=[("day", "night")[h % 2] for h in range(len(hatches))],
        roller_boundaries=list(rollers),
        start_points={str(n): list(range(n)) for n in range(2, 9)},
    )
    rules["setup"]["blood_tiles"] = [3] * blood_spaces
    rules["game"]["mode"] = mode
    for key, value in keys.items():
        section, name = key.split("__")
        rules[section][name] = value
    KARMAGGAN.check(rules)
    return rules


def scene(tiles=OPEN, players=4, seed=1, policy=RUSHER, **board):
    """A set-up world on ``tiles`` with every figure off the board (see :func:`rules_with`)."""
    params = KARMAGGAN.prepare(rules_with(tiles, **board), players)
    W = K.world(params, seed, np.full(players, policy, np.int8))
    for fig in range(W.n_figs):
        W.call(core.place_figure, fig, OFF)
    return W


def world(players=4, seed=1, policy=RUSHER, rules=None):
    """A set-up world on the default rules and board, figures on their starting points."""
    params = KARMAGGAN.prepare(rules or DEFAULTS, players)
    return K.world(params, seed, np.full(players, policy, np.int8))


def at(W, row, col):
    """The ring cell at ``row``, ``col`` (frame column: the physical one while rings are
    aligned)."""
    return int(row * W.rules[CFG_COLS] + col)


def centre(W):
    return int(W.rules[CFG_CENTRE])


def put(W, fig, row, col=None):
    """Put ``fig`` on the cell (``row``, ``col``), or on node ``row`` when ``col`` is None."""
    node = row if col is None else at(W, row, col)
    W.call(core.place_figure, fig, node)
    return node


def spawn(W, swarm, k=0):
    """Figure id of the ``k``-th Spawn of ``swarm``."""
    return int(W.rules[CFG_PLAYERS] + swarm * W.rules[CFG_SPAWN_MAX] + k)


def draw(W):
    """The board as text (``board.draw_rows``): plunderers as digits, Spawns as letters."""
    n_players = int(W.rules[CFG_PLAYERS])
    figures = {}
    for fig in range(W.n_figs):
        node = int(W.state[F_POS + fig])
        if node >= 0:
            figures[node] = str(fig) if fig < n_players else "abcdefghijkl"[fig - n_players]
    return "\n".join(draw_rows(W, figures))


def next_dice(W, k):
    """The next ``k`` rolls of the dice stream, without using them up."""
    rng = W.rng.copy()
    return [int(roll_die(rng, 6)) for _ in range(k)]


def cards_of(W, effect=None, value=None):
    """Object card ids with that effect and / or combat value."""
    cards = W.cards
    keep = np.ones(len(cards), bool)
    if effect is not None:
        keep &= cards[:, 0] == effect
    if value is not None:
        keep &= cards[:, 1] == value
    return [int(c) for c in np.nonzero(keep)[0]]


def give(W, seat, cards):
    """Replace ``seat``'s hand with the card ids ``cards``, taken out of the Object deck and the
    other hands so that every card stays in one place."""
    objects, hands = W.deck(D_OBJECTS), W.hands
    n = int(W.state[G_ODECK_N])
    deck = [c for c in objects[:n] if c not in cards]
    objects[:] = -1
    objects[: len(deck)] = deck
    W.state[G_ODECK_N] = len(deck)
    for other in range(hands.shape[0]):
        for slot in range(hands.shape[1]):
            if hands[other, slot] in cards:
                hands[other, slot] = -1
                W.state[P_HAND_N + other] -= 1
    hands[seat, :] = -1
    hands[seat, : len(cards)] = cards
    W.state[P_HAND_N + seat] = len(cards)


def hand(W, seat):
    return sorted(int(c) for c in W.hands[seat] if c >= 0)
