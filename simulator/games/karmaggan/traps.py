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
    C_HATCH_KIND,
    C_RING,
    C_ROW,
    C_WALL_IN,
    CENTRE_TILE,
    CFG_ACID_MINUS,
    CFG_ARROWS,
    CFG_CELLS_PER_SECTOR,
    CFG_CENTRE,
    CFG_COLS,
    CFG_FIRE,
    CFG_HATCHES,
    CFG_N_ROLLERS,
    CFG_N_TEMPLE,
    CFG_PLAYERS,
    CFG_RAM,
    CFG_RINGS,
    CFG_ROLLER_MINUS,
    CFG_ROLLERS,
    D_TEMPLE,
    DAY,
    EV_FLASH,
    EV_HATCH,
    EV_ROTATE,
    EV_TEMPLE,
    F_KIND,
    F_POS,
    FIRE_WALL,
    G_OFFSET,
    G_OPEN_HATCHES,
    G_ROLLERS_ON,
    G_SEAT,
    G_TDRAW,
    G_VERSION,
    MAX_OPTIONS,
    NIGHT,
    NOBODY,
    OPT_A,
    OPT_B,
    P_COINS,
    P_STATUS,
    PLUNDERER,
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
    TELEPORT,
    TEMPLE_TILE,
    deck,
    set_option,
)


@rule
def roller_crossings(rules, from_col, to_col, direction, distance):
    """The Rollers: how many Roller boundaries a move of ``distance`` columns clockwise
    (direction +1) or counter-clockwise (-1) from ``from_col`` crosses on the outer ring."""
    cols = rules[CFG_COLS]
    n = 0
    for r in range(rules[CFG_N_ROLLERS]):
        b = rules[rules[CFG_ROLLERS] + r]
        if direction > 0:
            if (b - from_col) % cols < distance:
                n += 1
        elif (from_col - 1 - b) % cols < distance:
            n += 1
    return n


@rule
def roller_damage(state, rules, rng, trace, seat, crossings):
    """The Rollers: each crossing costs the plunderer (1D6) - 1 coins, rolled for itself.
    Spawns are immune (Other Traps: Spawns are immune to all damage from Temple traps)."""
    if state[G_ROLLERS_ON] == 0 or seat >= rules[CFG_PLAYERS]:
        return
    for _ in range(crossings):
        lose_coins(
            state,
            rules,
            trace,
            seat,
            max(0, roll_die(rng, 6) - rules[CFG_ROLLER_MINUS]),
            SRC_ROLLERS,
        )


@rule
def step_crossings(state, rules, src, dst):
    """Roller boundaries crossed by one orthogonal step (only clockwise/counter-clockwise
    steps within the outer ring cross one)."""
    if not (is_ring_cell(rules, src) and is_ring_cell(rules, dst)):
        return 0
    if rules[C_RING + src] != 0 or rules[C_ROW + src] != rules[C_ROW + dst]:
        return 0
    a, b = phys_col(state, rules, src), phys_col(state, rules, dst)
    direction = 1 if (b - a) % rules[CFG_COLS] == 1 else -1
    return roller_crossings(rules, a, b, direction, 1)


@rule
def fire_wall_traps(state, rules, trace, kind, damage, source):
    """Ring Traps: every wall of this type fires from the wall outward, toward the outer edge
    of the Temple; the first plunderer or spawn in its path stops it (a plunderer loses
    ``damage`` coins, spawns are immune); another wall stops it too; Abyss tiles do not."""
    for start in range(rules[CFG_CENTRE]):
        if rules[C_WALL_IN + start] == kind:
            victim = first_on_line(state, rules, start)
            if victim != NOBODY and state[F_KIND + victim] == PLUNDERER:
                lose_coins(state, rules, trace, victim, damage, source)


@rule
def piston(state, rules, trace):
    """The Piston: whoever is on the Central Tile loses half of its coins, rounded in its
    favour (7 -> loses 3, 1 -> loses 0)."""
    occupant = state[B_OCC + rules[CFG_CENTRE]]
    if occupant != NOBODY and state[F_KIND + occupant] == PLUNDERER:
        lose_coins(
            state, rules, trace, occupant, piston_loss(state[P_COINS + occupant]), SRC_PISTON
        )


@rule
def piston_loss(coins):
    """The Piston: half of the coins, rounded in the victim's favour."""
    return coins // 2


@rule
def rotate_ring(state, rules, rng, trace, ring, sectors):
    """Rotations: turn ``ring`` by ``sectors`` (positive clockwise).  Tiles, walls and figures
    turn with it; plunderers dragged across a Roller on the outer ring pay for each crossing."""
    if ring < 0 or ring >= rules[CFG_RINGS] or sectors == 0:
        return
    shift = sectors * rules[CFG_CELLS_PER_SECTOR]
    cols = rules[CFG_COLS]
    if ring == 0:
        direction = 1 if shift > 0 else -1
        for seat in range(rules[CFG_PLAYERS]):
            node = state[F_POS + seat]
            if node >= 0 and is_ring_cell(rules, node) and rules[C_RING + node] == 0:
                col = phys_col(state, rules, node)
                roller_damage(
                    state,
                    rules,
                    rng,
                    trace,
                    seat,
                    roller_crossings(rules, col, (col + shift) % cols, direction, abs(shift)),
                )
    state[G_OFFSET + ring] = (state[G_OFFSET + ring] + shift) % cols
    state[G_VERSION] += 1
    record(state, trace, EV_ROTATE, state[G_SEAT], ring, sectors, state[G_OFFSET + ring], 0)


@rule
def turn_ring(state, rules, knobs, rng, trace, seat, first_ring, end_ring):
    """Rotations: a ring turns in either direction by a D6 number of sectors.  ``seat`` picks
    the ring (among ``first_ring``..``end_ring`` - 1) and the direction, then rolls — as the
    Helm of Contact prints; ASSUMED the same for a Temple card's rotation, whose chooser the
    rulebook does not name (the player who activated it)."""
    n = np.int64(0)
    for ring in range(first_ring, end_ring):
        for d in (1, -1):
            set_option(state, n, ACT_STOP, ring, d)
            n += 1
    i = choose(state, rules, knobs, rng, ROTATION, seat, n)
    rotate_ring(state, rules, rng, trace, state[OPT_A + i], state[OPT_B + i] * roll_die(rng, 6))


@rule
def set_hatches(state, rules, trace, kind, is_open):
    """Hatch opening/closing (ASSUMED: by Temple cards; kind -1 means every hatch)."""
    centre = rules[CFG_CENTRE]
    n_open = 0
    for h in range(rules[CFG_HATCHES]):
        j = centre + 1 + h
        if kind < 0 or rules[C_HATCH_KIND + j] == kind:
            state[B_OPEN + j] = is_open
        n_open += state[B_OPEN + j]
    state[G_OPEN_HATCHES] = n_open
    state[G_VERSION] += 1
    record(state, trace, EV_HATCH, state[G_SEAT], kind, is_open, 0, 0)


@rule
def resolve_temple_card(state, rules, knobs, rng, trace, seat, card):
    """Temple Tiles: resolve one Temple card for the activating plunderer ``seat``."""
    record(state, trace, EV_TEMPLE, seat, card, 0, 0, 0)
    if card == T_ARROWS:
        fire_wall_traps(state, rules, trace, ARROWS_WALL, rules[CFG_ARROWS], SRC_ARROWS)
    elif card == T_ACID:
        fire_wall_traps(
            state,
            rules,
            trace,
            ACID_WALL,
            max(0, roll_die(rng, 6) - rules[CFG_ACID_MINUS]),
            SRC_ACID,
        )
    elif card == T_FIRE:
        fire_wall_traps(state, rules, trace, FIRE_WALL, rules[CFG_FIRE], SRC_FIRE)
    elif T_ROT_OUTER <= card <= T_ROT_CENTRAL:
        ring = card - T_ROT_OUTER
        turn_ring(state, rules, knobs, rng, trace, seat, ring, ring + 1)
    elif card == T_PISTON:
        piston(state, rules, trace)
    elif card == T_RAM:
        ram(state, rules, rng, seat)
    elif card == T_FLASH:
        iris_flash(state, rules, knobs, rng, trace, seat)
    elif card == T_OPEN_DAY:
        set_hatches(state, rules, trace, DAY, 1)
    elif card == T_OPEN_NIGHT:
        set_hatches(state, rules, trace, NIGHT, 1)
    elif card == T_CLOSE_ALL:
        set_hatches(state, rules, trace, -1, 0)


@rule
def draw_temple_card(state, rules, rng):
    """Temple Tiles: flip the top Temple card.  ASSUMED: the exhausted deck is reshuffled."""
    n = rules[CFG_N_TEMPLE]
    if state[G_TDRAW] >= n:
        temple = deck(rules, D_TEMPLE)
        shuffle(rng, SETUP, state[temple : temple + n])
        state[G_TDRAW] = 0
    card = state[deck(rules, D_TEMPLE) + state[G_TDRAW]]
    state[G_TDRAW] += 1
    return card


@rule
def ram(state, rules, rng, seat):
    """The Ram: the activating plunderer discards its hand and draws four cards."""
    if state[P_STATUS + seat] != ALIVE:
        return
    discard_hand(state, rules, seat)
    for _ in range(rules[CFG_RAM]):
        draw_object(state, rules, rng, seat)


@rule
def iris_flash(state, rules, knobs, rng, trace, seat):
    """The Flash: the plunderer resumes its movement from another (free) Temple tile of its
    Ring, without activating it.  ASSUMED: the Centre, a large Temple tile, belongs to the
    Central ring; nothing happens when no other Temple tile of the ring is free."""
    node = state[F_POS + seat]
    if state[P_STATUS + seat] != ALIVE or node < 0 or is_jungle(rules, node):
        return
    last = rules[CFG_RINGS] - 1  # the Centre's C_RING is one past the last ring
    ring = min(rules[C_RING + node], last)
    n = np.int64(0)
    for other in range(rules[CFG_CENTRE] + 1):
        tile = state[B_TILE + other]
        if (
            other != node
            and (tile == TEMPLE_TILE or tile == CENTRE_TILE)
            and min(rules[C_RING + other], last) == ring
            and state[B_OCC + other] == NOBODY
            and n < MAX_OPTIONS
        ):
            set_option(state, n, ACT_MOVE, seat, other)
            n += 1
    if n == 0:
        return
    dest = state[OPT_B + choose(state, rules, knobs, rng, TELEPORT, seat, n)]
    record(state, trace, EV_FLASH, seat, node, dest, 0, 0)
    place_figure(state, rules, seat, dest)
    pick_up_egg(state, rules, trace, seat)
