"""Karmaggän: Traps — Ring Traps, the Rollers, the Piston, Rotations, the Ram, the Flash — and
the Temple deck that fires them.

Rulebook: shared/rules/karmaggan.md, sections "Traps", "Temple Tiles".
"""

import numpy as np

from simulator.core.kernel import rule
from simulator.core.rng import SETUP, roll_die, shuffle
from simulator.games.karmaggan import board, core, death, decide, egg
from simulator.games.karmaggan import state as S


@rule
def roller_crossings(rules, from_col, to_col, direction, distance):
    """The Rollers: how many Roller boundaries a move of ``distance`` columns clockwise
    (direction +1) or counter-clockwise (-1) from ``from_col`` crosses on the outer ring."""
    cols = rules[S.CFG_COLS]
    n = 0
    for r in range(rules[S.CFG_N_ROLLERS]):
        b = rules[rules[S.CFG_ROLLERS] + r]
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
    if state[S.G_ROLLERS_ON] == 0 or seat >= rules[S.CFG_PLAYERS]:
        return
    for _ in range(crossings):
        death.lose_coins(
            state,
            rules,
            trace,
            seat,
            max(0, roll_die(rng, 6) - rules[S.CFG_ROLLER_MINUS]),
            S.SRC_ROLLERS,
        )


@rule
def step_crossings(state, rules, src, dst):
    """Roller boundaries crossed by one orthogonal step (only clockwise/counter-clockwise
    steps within the outer ring cross one)."""
    if not (board.is_ring_cell(rules, src) and board.is_ring_cell(rules, dst)):
        return 0
    if rules[S.C_RING + src] != 0 or rules[S.C_ROW + src] != rules[S.C_ROW + dst]:
        return 0
    a, b = board.phys_col(state, rules, src), board.phys_col(state, rules, dst)
    direction = 1 if (b - a) % rules[S.CFG_COLS] == 1 else -1
    return roller_crossings(rules, a, b, direction, 1)


@rule
def fire_wall_traps(state, rules, trace, kind, damage, source):
    """Ring Traps: every wall of this type fires from the wall outward, toward the outer edge
    of the Temple; the first plunderer or spawn in its path stops it (a plunderer loses
    ``damage`` coins, spawns are immune); another wall stops it too; Abyss tiles do not."""
    for start in range(rules[S.CFG_CENTRE]):
        if rules[S.C_WALL_IN + start] == kind:
            victim = egg.first_on_line(state, rules, start)
            if victim != S.NOBODY and state[S.F_KIND + victim] == S.PLUNDERER:
                death.lose_coins(state, rules, trace, victim, damage, source)


@rule
def piston(state, rules, trace):
    """The Piston: whoever is on the Central Tile loses half of its coins, rounded in its
    favour (7 -> loses 3, 1 -> loses 0)."""
    occupant = state[S.B_OCC + rules[S.CFG_CENTRE]]
    if occupant != S.NOBODY and state[S.F_KIND + occupant] == S.PLUNDERER:
        death.lose_coins(
            state, rules, trace, occupant, piston_loss(state[S.P_COINS + occupant]), S.SRC_PISTON
        )


@rule
def piston_loss(coins):
    """The Piston: half of the coins, rounded in the victim's favour."""
    return coins // 2


@rule
def rotate_ring(state, rules, rng, trace, ring, sectors):
    """Rotations: turn ``ring`` by ``sectors`` (positive clockwise).  Tiles, walls and figures
    turn with it; plunderers dragged across a Roller on the outer ring pay for each crossing."""
    if ring < 0 or ring >= rules[S.CFG_RINGS] or sectors == 0:
        return
    shift = sectors * rules[S.CFG_CELLS_PER_SECTOR]
    cols = rules[S.CFG_COLS]
    if ring == 0:
        direction = 1 if shift > 0 else -1
        for seat in range(rules[S.CFG_PLAYERS]):
            node = state[S.F_POS + seat]
            if node >= 0 and board.is_ring_cell(rules, node) and rules[S.C_RING + node] == 0:
                col = board.phys_col(state, rules, node)
                roller_damage(
                    state,
                    rules,
                    rng,
                    trace,
                    seat,
                    roller_crossings(rules, col, (col + shift) % cols, direction, abs(shift)),
                )
    state[S.G_OFFSET + ring] = (state[S.G_OFFSET + ring] + shift) % cols
    state[S.G_VERSION] += 1
    core.record(
        state, trace, S.EV_ROTATE, state[S.G_SEAT], ring, sectors, state[S.G_OFFSET + ring], 0
    )


@rule
def turn_ring(state, rules, knobs, rng, trace, seat, first_ring, end_ring):
    """Rotations: a ring turns in either direction by a D6 number of sectors.  ``seat`` picks
    the ring (among ``first_ring``..``end_ring`` - 1) and the direction, then rolls — as the
    Helm of Contact prints; ASSUMED the same for a Temple card's rotation, whose chooser the
    rulebook does not name (the player who activated it)."""
    n = np.int64(0)
    for ring in range(first_ring, end_ring):
        for d in (1, -1):
            S.set_option(state, n, S.ACT_STOP, ring, d)
            n += 1
    i = decide.choose(state, rules, knobs, rng, S.ROTATION, seat, n)
    rotate_ring(state, rules, rng, trace, state[S.OPT_A + i], state[S.OPT_B + i] * roll_die(rng, 6))


@rule
def set_hatches(state, rules, trace, kind, is_open):
    """Hatch opening/closing (ASSUMED: by Temple cards; kind -1 means every hatch)."""
    centre = rules[S.CFG_CENTRE]
    n_open = 0
    for h in range(rules[S.CFG_HATCHES]):
        j = centre + 1 + h
        if kind < 0 or rules[S.C_HATCH_KIND + j] == kind:
            state[S.B_OPEN + j] = is_open
        n_open += state[S.B_OPEN + j]
    state[S.G_OPEN_HATCHES] = n_open
    state[S.G_VERSION] += 1
    core.record(state, trace, S.EV_HATCH, state[S.G_SEAT], kind, is_open, 0, 0)


@rule
def resolve_temple_card(state, rules, knobs, rng, trace, seat, card):
    """Temple Tiles: resolve one Temple card for the activating plunderer ``seat``."""
    core.record(state, trace, S.EV_TEMPLE, seat, card, 0, 0, 0)
    if card == S.T_ARROWS:
        fire_wall_traps(state, rules, trace, S.ARROWS_WALL, rules[S.CFG_ARROWS], S.SRC_ARROWS)
    elif card == S.T_ACID:
        fire_wall_traps(
            state,
            rules,
            trace,
            S.ACID_WALL,
            max(0, roll_die(rng, 6) - rules[S.CFG_ACID_MINUS]),
            S.SRC_ACID,
        )
    elif card == S.T_FIRE:
        fire_wall_traps(state, rules, trace, S.FIRE_WALL, rules[S.CFG_FIRE], S.SRC_FIRE)
    elif S.T_ROT_OUTER <= card <= S.T_ROT_CENTRAL:
        ring = card - S.T_ROT_OUTER
        turn_ring(state, rules, knobs, rng, trace, seat, ring, ring + 1)
    elif card == S.T_PISTON:
        piston(state, rules, trace)
    elif card == S.T_RAM:
        ram(state, rules, rng, seat)
    elif card == S.T_FLASH:
        iris_flash(state, rules, knobs, rng, trace, seat)
    elif card == S.T_OPEN_DAY:
        set_hatches(state, rules, trace, S.DAY, 1)
    elif card == S.T_OPEN_NIGHT:
        set_hatches(state, rules, trace, S.NIGHT, 1)
    elif card == S.T_CLOSE_ALL:
        set_hatches(state, rules, trace, -1, 0)


@rule
def draw_temple_card(state, rules, rng):
    """Temple Tiles: flip the top Temple card.  ASSUMED: the exhausted deck is reshuffled."""
    n = rules[S.CFG_N_TEMPLE]
    if state[S.G_TDRAW] >= n:
        temple = S.deck(rules, S.D_TEMPLE)
        shuffle(rng, SETUP, state[temple : temple + n])
        state[S.G_TDRAW] = 0
    card = state[S.deck(rules, S.D_TEMPLE) + state[S.G_TDRAW]]
    state[S.G_TDRAW] += 1
    return card


@rule
def ram(state, rules, rng, seat):
    """The Ram: the activating plunderer discards its hand and draws four cards."""
    if state[S.P_STATUS + seat] != S.ALIVE:
        return
    core.discard_hand(state, rules, seat)
    for _ in range(rules[S.CFG_RAM]):
        core.draw_object(state, rules, rng, seat)


@rule
def iris_flash(state, rules, knobs, rng, trace, seat):
    """The Flash: the plunderer resumes its movement from another (free) Temple tile of its
    Ring, without activating it.  ASSUMED: the Centre, a large Temple tile, belongs to the
    Central ring; nothing happens when no other Temple tile of the ring is free."""
    node = state[S.F_POS + seat]
    if state[S.P_STATUS + seat] != S.ALIVE or node < 0 or board.is_jungle(rules, node):
        return
    last = rules[S.CFG_RINGS] - 1  # the Centre's C_RING is one past the last ring
    ring = min(rules[S.C_RING + node], last)
    n = np.int64(0)
    for other in range(rules[S.CFG_CENTRE] + 1):
        tile = state[S.B_TILE + other]
        if (
            other != node
            and (tile == S.TEMPLE_TILE or tile == S.CENTRE_TILE)
            and min(rules[S.C_RING + other], last) == ring
            and state[S.B_OCC + other] == S.NOBODY
            and n < S.MAX_OPTIONS
        ):
            S.set_option(state, n, S.ACT_MOVE, seat, other)
            n += 1
    if n == 0:
        return
    dest = state[S.OPT_B + decide.choose(state, rules, knobs, rng, S.TELEPORT, seat, n)]
    core.record(state, trace, S.EV_FLASH, seat, node, dest, 0, 0)
    core.place_figure(state, rules, seat, dest)
    egg.pick_up_egg(state, rules, trace, seat)
