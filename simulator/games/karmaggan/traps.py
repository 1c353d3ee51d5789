"""Karmaggän: Traps — Ring Traps, the Rollers, the Piston, Rotations, the Ram, the Flash — and
the Temple deck that fires them.

Rulebook: shared/rules/karmaggan.md, sections "Traps", "Temple Tiles".
"""

import numpy as np

from simulator.core.kernel import rule
from simulator.core.rng import SETUP, roll_die, shuffle
from simulator.games.karmaggan.board import is_jungle, is_ring_cell, phys_col
from simulator.games.karmaggan.core import discard_hand, draw_object, place_figure, record
from simulator.games.karmaggan.death import lose_coins
from simulator.games.karmaggan.decide import choose
from simulator.games.karmaggan.egg import first_on_line, pick_up_egg
from simulator.games.karmaggan.state import (
    ACID_WALL,
    ACT_MOVE,
    ACT_STOP,
    ALIVE,
    ARROWS_WALL,
    B_OCC,
    B_OPEN,
    B_TILE,
    BOARD,
    C_HATCH_KIND,
    C_RING,
    C_ROW,
    C_WALL_IN,
    CELLS,
    CENTRE_TILE,
    CFG,
    CFG_ACID_MINUS,
    CFG_ARROWS,
    CFG_CELLS_PER_SECTOR,
    CFG_CENTRE,
    CFG_COLS,
    CFG_FIRE,
    CFG_HATCHES,
    CFG_PLAYERS,
    CFG_RAM,
    CFG_RINGS,
    CFG_ROLLER_MINUS,
    D_TEMPLE,
    DAY,
    DECKS,
    EV_FLASH,
    EV_HATCH,
    EV_ROTATE,
    EV_TEMPLE,
    F_KIND,
    F_POS,
    FIGS,
    FIRE_WALL,
    G_OFFSET,
    G_OPEN_HATCHES,
    G_ROLLERS_ON,
    G_SEAT,
    G_TDRAW,
    G_VERSION,
    GAME,
    MAX_OPTIONS,
    NIGHT,
    NOBODY,
    OPT_A,
    OPT_ACT,
    OPT_B,
    OPTIONS,
    P_COINS,
    P_STATUS,
    PLAYERS,
    PLUNDERER,
    RNG,
    ROLLERS,
    ROTATION,
    SRC_ACID,
    SRC_ARROWS,
    SRC_FIRE,
    SRC_PISTON,
    SRC_ROLLERS,
    T_ACID,
    T_ARROWS,
    T_CLOSE_ALL,
    T_FIRE,
    T_FLASH,
    T_OPEN_DAY,
    T_OPEN_NIGHT,
    T_PISTON,
    T_RAM,
    T_ROT_CENTRAL,
    T_ROT_OUTER,
    TCARDS,
    TELEPORT,
    TEMPLE_TILE,
)


@rule
def roller_crossings(W, from_col, to_col, direction, distance):
    """The Rollers: how many Roller boundaries a move of ``distance`` columns clockwise
    (direction +1) or counter-clockwise (-1) from ``from_col`` crosses on the outer ring."""
    cols = W[CFG][CFG_COLS]
    rollers = W[ROLLERS]
    n = 0
    for r in range(rollers.shape[0]):
        b = rollers[r]
        if direction > 0:
            if (b - from_col) % cols < distance:
                n += 1
        elif (from_col - 1 - b) % cols < distance:
            n += 1
    return n


@rule
def roller_damage(W, seat, crossings):
    """The Rollers: each crossing costs the plunderer (1D6) - 1 coins, rolled for itself.
    Spawns are immune (Other Traps: Spawns are immune to all damage from Temple traps)."""
    if W[GAME][G_ROLLERS_ON] == 0 or seat >= W[CFG][CFG_PLAYERS]:
        return
    for _ in range(crossings):
        lose_coins(W, seat, max(0, roll_die(W[RNG], 6) - W[CFG][CFG_ROLLER_MINUS]), SRC_ROLLERS)


@rule
def step_crossings(W, src, dst):
    """Roller boundaries crossed by one orthogonal step (only clockwise/counter-clockwise
    steps within the outer ring cross one)."""
    cells = W[CELLS]
    if not (is_ring_cell(W, src) and is_ring_cell(W, dst)):
        return 0
    if cells[src, C_RING] != 0 or cells[src, C_ROW] != cells[dst, C_ROW]:
        return 0
    a, b = phys_col(W, src), phys_col(W, dst)
    direction = 1 if (b - a) % W[CFG][CFG_COLS] == 1 else -1
    return roller_crossings(W, a, b, direction, 1)


@rule
def fire_wall_traps(W, kind, damage, source):
    """Ring Traps: every wall of this type fires from the wall outward, toward the outer edge
    of the Temple; the first plunderer or spawn in its path stops it (a plunderer loses
    ``damage`` coins, spawns are immune); another wall stops it too; Abyss tiles do not."""
    cfg, cells, figs = W[CFG], W[CELLS], W[FIGS]
    for start in range(cfg[CFG_CENTRE]):
        if cells[start, C_WALL_IN] == kind:
            victim = first_on_line(W, start)
            if victim != NOBODY and figs[victim, F_KIND] == PLUNDERER:
                lose_coins(W, victim, damage, source)


@rule
def piston(W):
    """The Piston: whoever is on the Central Tile loses half of its coins, rounded in its
    favour (7 -> loses 3, 1 -> loses 0)."""
    occupant = W[BOARD][W[CFG][CFG_CENTRE], B_OCC]
    if occupant != NOBODY and W[FIGS][occupant, F_KIND] == PLUNDERER:
        lose_coins(W, occupant, piston_loss(W[PLAYERS][occupant, P_COINS]), SRC_PISTON)


@rule
def piston_loss(coins):
    """The Piston: half of the coins, rounded in the victim's favour."""
    return coins // 2


@rule
def rotate_ring(W, ring, sectors):
    """Rotations: turn ``ring`` by ``sectors`` (positive clockwise).  Tiles, walls and figures
    turn with it; plunderers dragged across a Roller on the outer ring pay for each crossing."""
    cfg, game, figs, cells = W[CFG], W[GAME], W[FIGS], W[CELLS]
    if ring < 0 or ring >= cfg[CFG_RINGS] or sectors == 0:
        return
    shift = sectors * cfg[CFG_CELLS_PER_SECTOR]
    cols = cfg[CFG_COLS]
    if ring == 0:
        direction = 1 if shift > 0 else -1
        for seat in range(cfg[CFG_PLAYERS]):
            node = figs[seat, F_POS]
            if node >= 0 and is_ring_cell(W, node) and cells[node, C_RING] == 0:
                col = phys_col(W, node)
                roller_damage(
                    W, seat, roller_crossings(W, col, (col + shift) % cols, direction, abs(shift))
                )
    game[G_OFFSET + ring] = (game[G_OFFSET + ring] + shift) % cols
    game[G_VERSION] += 1
    record(W, EV_ROTATE, game[G_SEAT], ring, sectors, game[G_OFFSET + ring], 0)


@rule
def turn_ring(W, seat, first_ring, end_ring):
    """Rotations: a ring turns in either direction by a D6 number of sectors.  ``seat`` picks
    the ring (among ``first_ring``..``end_ring`` - 1) and the direction, then rolls — as the
    Helm of Contact prints; ASSUMED the same for a Temple card's rotation, whose chooser the
    rulebook does not name (the player who activated it)."""
    options = W[OPTIONS]
    n = np.int64(0)
    for ring in range(first_ring, end_ring):
        for d in (1, -1):
            options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_STOP, ring, d
            n += 1
    i = choose(ROTATION, seat, n, W)
    rotate_ring(W, options[i, OPT_A], options[i, OPT_B] * roll_die(W[RNG], 6))


@rule
def set_hatches(W, kind, is_open):
    """Hatch opening/closing (ASSUMED: by Temple cards; kind -1 means every hatch)."""
    cfg, cells, board, game = W[CFG], W[CELLS], W[BOARD], W[GAME]
    centre = cfg[CFG_CENTRE]
    n_open = 0
    for h in range(cfg[CFG_HATCHES]):
        j = centre + 1 + h
        if kind < 0 or cells[j, C_HATCH_KIND] == kind:
            board[j, B_OPEN] = is_open
        n_open += board[j, B_OPEN]
    game[G_OPEN_HATCHES] = n_open
    game[G_VERSION] += 1
    record(W, EV_HATCH, game[G_SEAT], kind, is_open, 0, 0)


@rule
def resolve_temple_card(W, seat, card):
    """Temple Tiles: resolve one Temple card for the activating plunderer ``seat``."""
    cfg, rng = W[CFG], W[RNG]
    record(W, EV_TEMPLE, seat, card, 0, 0, 0)
    if card == T_ARROWS:
        fire_wall_traps(W, ARROWS_WALL, cfg[CFG_ARROWS], SRC_ARROWS)
    elif card == T_ACID:
        fire_wall_traps(W, ACID_WALL, max(0, roll_die(rng, 6) - cfg[CFG_ACID_MINUS]), SRC_ACID)
    elif card == T_FIRE:
        fire_wall_traps(W, FIRE_WALL, cfg[CFG_FIRE], SRC_FIRE)
    elif T_ROT_OUTER <= card <= T_ROT_CENTRAL:
        ring = card - T_ROT_OUTER
        turn_ring(W, seat, ring, ring + 1)
    elif card == T_PISTON:
        piston(W)
    elif card == T_RAM:
        ram(W, seat)
    elif card == T_FLASH:
        iris_flash(W, seat)
    elif card == T_OPEN_DAY:
        set_hatches(W, DAY, 1)
    elif card == T_OPEN_NIGHT:
        set_hatches(W, NIGHT, 1)
    elif card == T_CLOSE_ALL:
        set_hatches(W, -1, 0)


@rule
def draw_temple_card(W):
    """Temple Tiles: flip the top Temple card.  ASSUMED: the exhausted deck is reshuffled."""
    game, decks = W[GAME], W[DECKS]
    n = W[TCARDS].shape[0]
    if game[G_TDRAW] >= n:
        shuffle(W[RNG], SETUP, decks[D_TEMPLE, :n])
        game[G_TDRAW] = 0
    card = decks[D_TEMPLE, game[G_TDRAW]]
    game[G_TDRAW] += 1
    return card


@rule
def ram(W, seat):
    """The Ram: the activating plunderer discards its hand and draws four cards."""
    if W[PLAYERS][seat, P_STATUS] != ALIVE:
        return
    discard_hand(W, seat)
    for _ in range(W[CFG][CFG_RAM]):
        draw_object(W, seat)


@rule
def iris_flash(W, seat):
    """The Flash: the plunderer resumes its movement from another (free) Temple tile of its
    Ring, without activating it.  ASSUMED: the Centre, a large Temple tile, belongs to the
    Central ring; nothing happens when no other Temple tile of the ring is free."""
    cfg, cells, figs, board, options = W[CFG], W[CELLS], W[FIGS], W[BOARD], W[OPTIONS]
    node = figs[seat, F_POS]
    if W[PLAYERS][seat, P_STATUS] != ALIVE or node < 0 or is_jungle(W, node):
        return
    last = cfg[CFG_RINGS] - 1  # the Centre's C_RING is one past the last ring
    ring = min(cells[node, C_RING], last)
    n = np.int64(0)
    for other in range(cfg[CFG_CENTRE] + 1):
        tile = board[other, B_TILE]
        if (
            other != node
            and (tile == TEMPLE_TILE or tile == CENTRE_TILE)
            and min(cells[other, C_RING], last) == ring
            and board[other, B_OCC] == NOBODY
            and n < MAX_OPTIONS
        ):
            options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_MOVE, seat, other
            n += 1
    if n == 0:
        return
    dest = options[choose(TELEPORT, seat, n, W), OPT_B]
    record(W, EV_FLASH, seat, node, dest, 0, 0)
    place_figure(W, seat, dest)
    pick_up_egg(W, seat)
