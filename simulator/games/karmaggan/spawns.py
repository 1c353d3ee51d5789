"""Karmaggän: Spawns — Controlling the Swarm.

Rulebook: shared/rules/karmaggan.md, sections "Spawns", "Controlling the Swarm".
"""

from simulator.core.kernel import rule
from simulator.games.karmaggan.combat import resolve_combat
from simulator.games.karmaggan.core import friends, place_figure, record
from simulator.games.karmaggan.death import invocation_tile
from simulator.games.karmaggan.decide import choose
from simulator.games.karmaggan.movement import (
    MAX_STEPS_PER_TURN,
    begin_turn,
    crossing,
    leave_tile,
    list_moves,
    movement_roll,
    settle,
)
from simulator.games.karmaggan.state import (
    ACT_INVOKE,
    ACT_MEDALLION,
    ACT_MOVE,
    ACT_SACRIFICE,
    ACT_STOP,
    ACT_SWARM_MOVE,
    B_OCC,
    B_SWARM,
    B_TILE,
    CFG_CENTRE,
    CFG_PLAYERS,
    CFG_SPAWN_MAX,
    CFG_TEAM_MODE,
    EV_MOVE,
    EV_ROLL,
    EV_SACRIFICE,
    EV_SPAWN,
    F_OWNER,
    F_POS,
    G_EGG_CARRIER,
    G_EGG_POS,
    G_MEDALLION_BANK,
    G_STEPS_LEFT,
    INVOCATION,
    MAX_OPTIONS,
    NOBODY,
    OFF,
    OPT_A,
    OPT_ACT,
    OPT_B,
    P_MEDALLION_INVOKES,
    P_MEDALLIONS,
    P_SACRIFICES,
    P_SPAWN_TURNS,
    P_SPAWNS_INVOKED,
    P_SWARM,
    SWARM_MODE,
    SWARM_STEP,
    set_option,
)
from simulator.games.karmaggan.tiles import activate_tile


@rule
def spawn_count(state, rules, swarm):
    first = rules[CFG_PLAYERS] + swarm * rules[CFG_SPAWN_MAX]
    n = 0
    for f in range(first, first + rules[CFG_SPAWN_MAX]):
        if state[F_POS + f] != OFF:
            n += 1
    return n


@rule
def invoke_spawn(state, rules, trace, seat, node):
    """Controlling the Swarm: a new Spawn on an unoccupied Invocation tile (max 6 per team)."""
    swarm = state[P_SWARM + seat]
    first = rules[CFG_PLAYERS] + swarm * rules[CFG_SPAWN_MAX]
    for f in range(first, first + rules[CFG_SPAWN_MAX]):
        if state[F_POS + f] == OFF:
            place_figure(state, rules, f, node)
            state[P_SPAWNS_INVOKED + seat] += 1
            record(state, trace, EV_SPAWN, seat, node, 1, f, 0)
            return


@rule
def list_invocation_options(state, rules, seat, act, n):
    """The swarm's unoccupied Invocation tiles (not the uncarried Egg's) as ``act`` options
    after ``n``, while it has fewer than 6 Spawns.  ASSUMED: a swarm invokes only on tiles of
    its own colour (Components: Illuminated and Dark Invocation tiles, one set per swarm)."""
    swarm = state[P_SWARM + seat]
    if spawn_count(state, rules, swarm) >= rules[CFG_SPAWN_MAX]:
        return n
    for node in range(rules[CFG_CENTRE]):
        if (
            state[B_TILE + node] == INVOCATION
            and state[B_SWARM + node] == swarm
            and state[B_OCC + node] == NOBODY
            and not (state[G_EGG_CARRIER] < 0 and state[G_EGG_POS] == node)
            and n < MAX_OPTIONS
        ):
            set_option(state, n, act, seat, node)
            n += 1
    return n


@rule
def swarm_turn(state, rules, knobs, rng, trace, seat):
    """Controlling the Swarm: INVOKE a Spawn, or MOVE (two dice, keep the higher, split among
    the Spawns); at any moment sacrifice a Spawn (its tile becomes an Invocation tile) or pay a
    Golden Medallion to invoke one.  Losing a combat does not end the swarm's turn.  A Spawn
    crossing an ally's tile moves on before anything else happens (ASSUMED)."""
    begin_turn(state, rules, seat)
    state[P_SPAWN_TURNS + seat] += 1
    swarm = state[P_SWARM + seat]
    first = rules[CFG_PLAYERS] + swarm * rules[CFG_SPAWN_MAX]
    n = list_invocation_options(state, rules, seat, ACT_INVOKE, 0)
    if spawn_count(state, rules, swarm) > 0:
        set_option(state, n, ACT_SWARM_MOVE, seat, 0)
        n += 1
    if n == 0:
        return
    i = choose(state, rules, knobs, rng, SWARM_MODE, seat, n)
    state[G_STEPS_LEFT] = 0
    if state[OPT_ACT + i] == ACT_INVOKE:
        invoke_spawn(state, rules, trace, seat, state[OPT_B + i])
    else:
        state[G_STEPS_LEFT] = movement_roll(rng, False)
        record(state, trace, EV_ROLL, seat, state[G_STEPS_LEFT], -1, 0, 0)
    for _ in range(MAX_STEPS_PER_TURN):
        mover = -1
        for f in range(first, first + rules[CFG_SPAWN_MAX]):
            if crossing(state, f):
                mover = f
        if mover >= 0:
            n = list_moves(state, rules, mover, 0)
            if n == 0:
                settle(state, rules, mover)
                continue
        else:
            n = list_swarm_options(state, rules, seat, first)
        i = choose(state, rules, knobs, rng, SWARM_STEP, seat, n)
        act, a, b = state[OPT_ACT + i], state[OPT_A + i], state[OPT_B + i]
        if act == ACT_STOP:
            break
        if act == ACT_MOVE:
            step_spawn(state, rules, knobs, rng, trace, seat, a, b)
        elif act == ACT_SACRIFICE:
            state[P_SACRIFICES + seat] += 1
            sacrifice(state, rules, trace, seat, a)
        elif act == ACT_MEDALLION:
            state[P_MEDALLION_INVOKES + seat] += 1
            state[P_MEDALLIONS + seat] -= 1
            state[G_MEDALLION_BANK] += 1
            invoke_spawn(state, rules, trace, seat, b)
    for f in range(first, first + rules[CFG_SPAWN_MAX]):
        settle(state, rules, f)


@rule
def list_swarm_options(state, rules, seat, first):
    """Controlling the Swarm: stop, move a Spawn a tile, sacrifice one (not on the Centre,
    which never becomes an Invocation tile) or pay a Golden Medallion to invoke one."""
    set_option(state, 0, ACT_STOP, seat, 0)
    n = 1
    for f in range(first, first + rules[CFG_SPAWN_MAX]):
        node = state[F_POS + f]
        if node == OFF:
            continue
        n = list_moves(state, rules, f, n)
        if node != rules[CFG_CENTRE] and n < MAX_OPTIONS:
            set_option(state, n, ACT_SACRIFICE, f, node)
            n += 1
    if state[P_MEDALLIONS + seat] > 0:
        n = list_invocation_options(state, rules, seat, ACT_MEDALLION, n)
    return n


@rule
def step_spawn(state, rules, knobs, rng, trace, seat, fig, node):
    """Movement for a Spawn: one of the swarm's steps; an enemy's tile means combat, an ally's
    is crossed, a free one activated (Which Tiles Spawns Activate)."""
    leave_tile(state, fig)
    state[G_STEPS_LEFT] -= 1
    record(state, trace, EV_MOVE, seat, state[F_POS + fig], node, state[G_STEPS_LEFT], fig)
    occ = state[B_OCC + node]
    if occ != NOBODY and not friends(state, fig, occ, rules[CFG_TEAM_MODE]):
        resolve_combat(state, rules, knobs, rng, trace, fig, occ, node)
        return
    place_figure(state, rules, fig, node)
    if occ == NOBODY:
        activate_tile(state, rules, knobs, rng, trace, fig, node)


@rule
def sacrifice(state, rules, trace, seat, fig):
    """Controlling the Swarm: a sacrificed Spawn leaves the board and an Invocation Tile of its
    swarm replaces the tile where it stood."""
    node = state[F_POS + fig]
    record(state, trace, EV_SACRIFICE, seat, node, fig, 0, 0)
    place_figure(state, rules, fig, OFF)
    invocation_tile(state, rules, node, state[F_OWNER + fig])
