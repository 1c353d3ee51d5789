"""Karmaggän: Tiles — what happens when a figure steps on each kind.

Rulebook: shared/rules/karmaggan.md, section "Tiles".
"""

import numpy as np

from simulator.core.kernel import rule
from simulator.games.karmaggan.core import controller, draw_object, gain_coins, place_figure, record
from simulator.games.karmaggan.decide import choose
from simulator.games.karmaggan.egg import pick_up_egg
from simulator.games.karmaggan.state import (
    ABYSS,
    ACT_MOVE,
    ACT_STOP,
    ACTED_FIG,
    ACTED_NODE,
    B_BLOOD,
    B_OCC,
    B_TILE,
    BLANK,
    BLOOD_TILE,
    CENTRE_TILE,
    CFG_CENTRE,
    EV_BLOOD,
    EV_OBJECT_DRAW,
    EV_PASSAGE,
    F_KIND,
    G_ACT_N,
    INVOCATION,
    JUNGLE,
    MAX_ACTS,
    MEDALLION_VALUE,
    NOBODY,
    OBJECT_TILE,
    OPT_B,
    P_COINS,
    P_GAIN_BLOOD,
    P_HAND_N,
    P_MEDALLIONS,
    P_MEDALLIONS_GAINED,
    PASSAGE_TILE,
    SPAWN,
    TELEPORT,
    TEMPLE_TILE,
    set_option,
)
from simulator.games.karmaggan.traps import draw_temple_card, resolve_temple_card


@rule
def was_activated(state, fig, node):
    for i in range(state[G_ACT_N]):
        if state[ACTED_FIG + i] == fig and state[ACTED_NODE + i] == node:
            return True
    return False


@rule
def activate_tile(state, rules, knobs, rng, trace, fig, node):
    """Tiles: the effect of the free tile a figure steps on (Blank and Invocation tiles have
    none).  The same figure cannot activate a tile twice in a turn (Invocation Tiles:
    Important); Spawns activate only Object tiles (Which Tiles Spawns Activate)."""
    tile = state[B_TILE + node]
    if tile == BLANK or tile == INVOCATION or tile == ABYSS or tile == JUNGLE:
        return  # nothing to activate (and nothing to remember)
    if was_activated(state, fig, node):
        return
    if state[G_ACT_N] < MAX_ACTS:
        state[ACTED_FIG + state[G_ACT_N]], state[ACTED_NODE + state[G_ACT_N]] = fig, node
        state[G_ACT_N] += 1
    spawn = state[F_KIND + fig] == SPAWN
    if spawn and tile != OBJECT_TILE:
        return
    seat = controller(state, rules, fig)
    if tile == OBJECT_TILE:
        if draw_object(state, rules, rng, seat):
            record(state, trace, EV_OBJECT_DRAW, seat, node, state[P_HAND_N + seat], 0, 0)
    elif tile == BLOOD_TILE:
        consume_blood(state, trace, seat, node)
    elif tile == TEMPLE_TILE or tile == CENTRE_TILE:
        resolve_temple_card(
            state, rules, knobs, rng, trace, seat, draw_temple_card(state, rules, rng)
        )
    elif tile == PASSAGE_TILE:
        passage(state, rules, knobs, rng, trace, seat, node)


@rule
def consume_blood(state, trace, seat, node):
    """Blood Tiles: a full Blood tile yields its 2, 3 or 4 coins or a Golden Medallion, then
    becomes a Blank tile.  Policies always consume (ASSUMED: never worth declining)."""
    value = state[B_BLOOD + node]
    before = state[P_COINS + seat]
    if value == MEDALLION_VALUE:
        state[P_MEDALLIONS + seat] += 1
        state[P_MEDALLIONS_GAINED + seat] += 1
    elif value > 0:
        gain_coins(state, seat, value, P_GAIN_BLOOD)
    state[B_BLOOD + node] = 0
    state[B_TILE + node] = BLANK
    record(state, trace, EV_BLOOD, seat, node, value, before, state[P_COINS + seat])


@rule
def passage(state, rules, knobs, rng, trace, seat, node):
    """Passage Tiles: resume the movement from any other (free) Passage tile, or stay."""
    set_option(state, 0, ACT_STOP, seat, -1)
    n = np.int64(1)
    for other in range(rules[CFG_CENTRE]):
        if (
            other != node
            and state[B_TILE + other] == PASSAGE_TILE
            and state[B_OCC + other] == NOBODY
        ):
            set_option(state, n, ACT_MOVE, seat, other)
            n += 1
    dest = state[OPT_B + choose(state, rules, knobs, rng, TELEPORT, seat, n)]
    if dest >= 0:
        record(state, trace, EV_PASSAGE, seat, node, dest, 0, 0)
        place_figure(state, rules, seat, dest)
        pick_up_egg(state, rules, trace, seat)
