"""Karmaggän: Tiles — what happens when a figure steps on each kind.

Rulebook: shared/rules/karmaggan.md, section "Tiles".
"""

import numpy as np

from simulator.core.kernel import rule
from simulator.games.karmaggan import core, decide, egg, traps
from simulator.games.karmaggan import state as S


@rule
def was_activated(state, fig, node):
    for i in range(state[S.G_ACT_N]):
        if state[S.ACTED_FIG + i] == fig and state[S.ACTED_NODE + i] == node:
            return True
    return False


@rule
def activate_tile(state, rules, knobs, rng, trace, fig, node):
    """Tiles: the effect of the free tile a figure steps on (Blank and Invocation tiles have
    none).  The same figure cannot activate a tile twice in a turn (Invocation Tiles:
    Important); Spawns activate only Object tiles (Which Tiles Spawns Activate)."""
    tile = state[S.B_TILE + node]
    if tile == S.BLANK or tile == S.INVOCATION or tile == S.ABYSS or tile == S.JUNGLE:
        return  # nothing to activate (and nothing to remember)
    if was_activated(state, fig, node):
        return
    if state[S.G_ACT_N] < S.MAX_ACTS:
        state[S.ACTED_FIG + state[S.G_ACT_N]], state[S.ACTED_NODE + state[S.G_ACT_N]] = fig, node
        state[S.G_ACT_N] += 1
    spawn = state[S.F_KIND + fig] == S.SPAWN
    if spawn and tile != S.OBJECT_TILE:
        return
    seat = core.controller(state, rules, fig)
    if tile == S.OBJECT_TILE:
        if core.draw_object(state, rules, rng, seat):
            core.record(state, trace, S.EV_OBJECT_DRAW, seat, node, state[S.P_HAND_N + seat], 0, 0)
    elif tile == S.BLOOD_TILE:
        consume_blood(state, trace, seat, node)
    elif tile == S.TEMPLE_TILE or tile == S.CENTRE_TILE:
        traps.resolve_temple_card(
            state, rules, knobs, rng, trace, seat, traps.draw_temple_card(state, rules, rng)
        )
    elif tile == S.PASSAGE_TILE:
        passage(state, rules, knobs, rng, trace, seat, node)


@rule
def consume_blood(state, trace, seat, node):
    """Blood Tiles: a full Blood tile yields its 2, 3 or 4 coins or a Golden Medallion, then
    becomes a Blank tile.  Policies always consume (ASSUMED: never worth declining)."""
    value = state[S.B_BLOOD + node]
    before = state[S.P_COINS + seat]
    if value == S.MEDALLION_VALUE:
        state[S.P_MEDALLIONS + seat] += 1
        state[S.P_MEDALLIONS_GAINED + seat] += 1
    elif value > 0:
        core.gain_coins(state, seat, value, S.P_GAIN_BLOOD)
    state[S.B_BLOOD + node] = 0
    state[S.B_TILE + node] = S.BLANK
    core.record(state, trace, S.EV_BLOOD, seat, node, value, before, state[S.P_COINS + seat])


@rule
def passage(state, rules, knobs, rng, trace, seat, node):
    """Passage Tiles: resume the movement from any other (free) Passage tile, or stay."""
    S.set_option(state, 0, S.ACT_STOP, seat, -1)
    n = np.int64(1)
    for other in range(rules[S.CFG_CENTRE]):
        if (
            other != node
            and state[S.B_TILE + other] == S.PASSAGE_TILE
            and state[S.B_OCC + other] == S.NOBODY
        ):
            S.set_option(state, n, S.ACT_MOVE, seat, other)
            n += 1
    dest = state[S.OPT_B + decide.choose(state, rules, knobs, rng, S.TELEPORT, seat, n)]
    if dest >= 0:
        core.record(state, trace, S.EV_PASSAGE, seat, node, dest, 0, 0)
        core.place_figure(state, rules, seat, dest)
        egg.pick_up_egg(state, rules, trace, seat)
