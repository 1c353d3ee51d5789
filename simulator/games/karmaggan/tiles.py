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
    ACTS,
    B_BLOOD,
    B_OCC,
    B_TILE,
    BLANK,
    BLOOD_TILE,
    BOARD,
    CENTRE_TILE,
    CFG,
    CFG_CENTRE,
    EV_BLOOD,
    EV_OBJECT_DRAW,
    EV_PASSAGE,
    F_KIND,
    FIGS,
    G_ACT_N,
    GAME,
    INVOCATION,
    JUNGLE,
    MAX_ACTS,
    MEDALLION_VALUE,
    NOBODY,
    OBJECT_TILE,
    OPT_A,
    OPT_ACT,
    OPT_B,
    OPTIONS,
    P_COINS,
    P_GAIN_BLOOD,
    P_HAND_N,
    P_MEDALLIONS,
    P_MEDALLIONS_GAINED,
    PASSAGE_TILE,
    PLAYERS,
    SPAWN,
    TELEPORT,
    TEMPLE_TILE,
)
from simulator.games.karmaggan.traps import draw_temple_card, resolve_temple_card


@rule
def was_activated(W, fig, node):
    game, acts = W[GAME], W[ACTS]
    for i in range(game[G_ACT_N]):
        if acts[i, 0] == fig and acts[i, 1] == node:
            return True
    return False


@rule
def activate_tile(W, fig, node):
    """Tiles: the effect of the free tile a figure steps on (Blank and Invocation tiles have
    none).  The same figure cannot activate a tile twice in a turn (Invocation Tiles:
    Important); Spawns activate only Object tiles (Which Tiles Spawns Activate)."""
    board = W[BOARD]
    tile = board[node, B_TILE]
    if tile == BLANK or tile == INVOCATION or tile == ABYSS or tile == JUNGLE:
        return  # nothing to activate (and nothing to remember)
    game, acts, players = W[GAME], W[ACTS], W[PLAYERS]
    if was_activated(W, fig, node):
        return
    if game[G_ACT_N] < MAX_ACTS:
        acts[game[G_ACT_N], 0], acts[game[G_ACT_N], 1] = fig, node
        game[G_ACT_N] += 1
    spawn = W[FIGS][fig, F_KIND] == SPAWN
    if spawn and tile != OBJECT_TILE:
        return
    seat = controller(W, fig)
    if tile == OBJECT_TILE:
        if draw_object(W, seat):
            record(W, EV_OBJECT_DRAW, seat, node, players[seat, P_HAND_N], 0, 0)
    elif tile == BLOOD_TILE:
        consume_blood(W, seat, node)
    elif tile == TEMPLE_TILE or tile == CENTRE_TILE:
        resolve_temple_card(W, seat, draw_temple_card(W))
    elif tile == PASSAGE_TILE:
        passage(W, seat, node)


@rule
def consume_blood(W, seat, node):
    """Blood Tiles: a full Blood tile yields its 2, 3 or 4 coins or a Golden Medallion, then
    becomes a Blank tile.  Policies always consume (ASSUMED: never worth declining)."""
    board, players = W[BOARD], W[PLAYERS]
    value = board[node, B_BLOOD]
    before = players[seat, P_COINS]
    if value == MEDALLION_VALUE:
        players[seat, P_MEDALLIONS] += 1
        players[seat, P_MEDALLIONS_GAINED] += 1
    elif value > 0:
        gain_coins(W, seat, value, P_GAIN_BLOOD)
    board[node, B_BLOOD] = 0
    board[node, B_TILE] = BLANK
    record(W, EV_BLOOD, seat, node, value, before, players[seat, P_COINS])


@rule
def passage(W, seat, node):
    """Passage Tiles: resume the movement from any other (free) Passage tile, or stay."""
    board, options = W[BOARD], W[OPTIONS]
    options[0, OPT_ACT], options[0, OPT_A], options[0, OPT_B] = ACT_STOP, seat, -1
    n = np.int64(1)
    for other in range(W[CFG][CFG_CENTRE]):
        if other != node and board[other, B_TILE] == PASSAGE_TILE and board[other, B_OCC] == NOBODY:
            options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_MOVE, seat, other
            n += 1
    dest = options[choose(TELEPORT, seat, n, W), OPT_B]
    if dest >= 0:
        record(W, EV_PASSAGE, seat, node, dest, 0, 0)
        place_figure(W, seat, dest)
        pick_up_egg(W, seat)
