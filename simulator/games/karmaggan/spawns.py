"""Karmaggän: Spawns — Controlling the Swarm.

Rulebook: shared/rules/karmaggan.md, sections "Spawns", "Controlling the Swarm".
"""

from simulator.core.kernel import rule
from simulator.games.karmaggan import combat, core, death, decide, movement, tiles
from simulator.games.karmaggan import state as S


@rule
def spawn_count(state, rules, swarm):
    first = rules[S.CFG_PLAYERS] + swarm * rules[S.CFG_SPAWN_MAX]
    n = 0
    for f in range(first, first + rules[S.CFG_SPAWN_MAX]):
        if state[S.F_POS + f] != S.OFF:
            n += 1
    return n


@rule
def invoke_spawn(state, rules, trace, seat, node):
    """Controlling the Swarm: a new Spawn on an unoccupied Invocation tile (max 6 per team)."""
    swarm = state[S.P_SWARM + seat]
    first = rules[S.CFG_PLAYERS] + swarm * rules[S.CFG_SPAWN_MAX]
    for f in range(first, first + rules[S.CFG_SPAWN_MAX]):
        if state[S.F_POS + f] == S.OFF:
            core.place_figure(state, rules, f, node)
            state[S.P_SPAWNS_INVOKED + seat] += 1
            core.record(state, trace, S.EV_SPAWN, seat, node, 1, f, 0)
            return


@rule
def list_invocation_options(state, rules, seat, act, n):
    """The swarm's unoccupied Invocation tiles (not the uncarried Egg's) as ``act`` options
    after ``n``, while it has fewer than 6 Spawns.  ASSUMED: a swarm invokes only on tiles of
    its own colour (Components: Illuminated and Dark Invocation tiles, one set per swarm)."""
    swarm = state[S.P_SWARM + seat]
    if spawn_count(state, rules, swarm) >= rules[S.CFG_SPAWN_MAX]:
        return n
    for node in range(rules[S.CFG_CENTRE]):
        if (
            state[S.B_TILE + node] == S.INVOCATION
            and state[S.B_SWARM + node] == swarm
            and state[S.B_OCC + node] == S.NOBODY
            and not (state[S.G_EGG_CARRIER] < 0 and state[S.G_EGG_POS] == node)
            and n < S.MAX_OPTIONS
        ):
            S.set_option(state, n, act, seat, node)
            n += 1
    return n


@rule
def swarm_turn(state, rules, knobs, rng, trace, seat):
    """Controlling the Swarm: INVOKE a Spawn, or MOVE (two dice, keep the higher, split among
    the Spawns); at any moment sacrifice a Spawn (its tile becomes an Invocation tile) or pay a
    Golden Medallion to invoke one.  Losing a combat does not end the swarm's turn.  A Spawn
    crossing an ally's tile moves on before anything else happens (ASSUMED)."""
    movement.begin_turn(state, rules, seat)
    state[S.P_SPAWN_TURNS + seat] += 1
    swarm = state[S.P_SWARM + seat]
    first = rules[S.CFG_PLAYERS] + swarm * rules[S.CFG_SPAWN_MAX]
    n = list_invocation_options(state, rules, seat, S.ACT_INVOKE, 0)
    if spawn_count(state, rules, swarm) > 0:
        S.set_option(state, n, S.ACT_SWARM_MOVE, seat, 0)
        n += 1
    if n == 0:
        return
    i = decide.choose(state, rules, knobs, rng, S.SWARM_MODE, seat, n)
    state[S.G_STEPS_LEFT] = 0
    if state[S.OPT_ACT + i] == S.ACT_INVOKE:
        invoke_spawn(state, rules, trace, seat, state[S.OPT_B + i])
    else:
        state[S.G_STEPS_LEFT] = movement.movement_roll(rng, False)
        core.record(state, trace, S.EV_ROLL, seat, state[S.G_STEPS_LEFT], -1, 0, 0)
    for _ in range(movement.MAX_STEPS_PER_TURN):
        mover = -1
        for f in range(first, first + rules[S.CFG_SPAWN_MAX]):
            if movement.crossing(state, f):
                mover = f
        if mover >= 0:
            n = movement.list_moves(state, rules, mover, 0)
            if n == 0:
                movement.settle(state, rules, mover)
                continue
        else:
            n = list_swarm_options(state, rules, seat, first)
        i = decide.choose(state, rules, knobs, rng, S.SWARM_STEP, seat, n)
        act, a, b = state[S.OPT_ACT + i], state[S.OPT_A + i], state[S.OPT_B + i]
        if act == S.ACT_STOP:
            break
        if act == S.ACT_MOVE:
            step_spawn(state, rules, knobs, rng, trace, seat, a, b)
        elif act == S.ACT_SACRIFICE:
            state[S.P_SACRIFICES + seat] += 1
            sacrifice(state, rules, trace, seat, a)
        elif act == S.ACT_MEDALLION:
            state[S.P_MEDALLION_INVOKES + seat] += 1
            state[S.P_MEDALLIONS + seat] -= 1
            state[S.G_MEDALLION_BANK] += 1
            invoke_spawn(state, rules, trace, seat, b)
    for f in range(first, first + rules[S.CFG_SPAWN_MAX]):
        movement.settle(state, rules, f)


@rule
def list_swarm_options(state, rules, seat, first):
    """Controlling the Swarm: stop, move a Spawn a tile, sacrifice one (not on the Centre,
    which never becomes an Invocation tile) or pay a Golden Medallion to invoke one."""
    S.set_option(state, 0, S.ACT_STOP, seat, 0)
    n = 1
    for f in range(first, first + rules[S.CFG_SPAWN_MAX]):
        node = state[S.F_POS + f]
        if node == S.OFF:
            continue
        n = movement.list_moves(state, rules, f, n)
        if node != rules[S.CFG_CENTRE] and n < S.MAX_OPTIONS:
            S.set_option(state, n, S.ACT_SACRIFICE, f, node)
            n += 1
    if state[S.P_MEDALLIONS + seat] > 0:
        n = list_invocation_options(state, rules, seat, S.ACT_MEDALLION, n)
    return n


@rule
def step_spawn(state, rules, knobs, rng, trace, seat, fig, node):
    """Movement for a Spawn: one of the swarm's steps; an enemy's tile means combat, an ally's
    is crossed, a free one activated (Which Tiles Spawns Activate)."""
    movement.leave_tile(state, fig)
    state[S.G_STEPS_LEFT] -= 1
    core.record(
        state, trace, S.EV_MOVE, seat, state[S.F_POS + fig], node, state[S.G_STEPS_LEFT], fig
    )
    occ = state[S.B_OCC + node]
    if occ != S.NOBODY and not core.friends(state, fig, occ, rules[S.CFG_TEAM_MODE]):
        combat.resolve_combat(state, rules, knobs, rng, trace, fig, occ, node)
        return
    core.place_figure(state, rules, fig, node)
    if occ == S.NOBODY:
        tiles.activate_tile(state, rules, knobs, rng, trace, fig, node)


@rule
def sacrifice(state, rules, trace, seat, fig):
    """Controlling the Swarm: a sacrificed Spawn leaves the board and an Invocation Tile of its
    swarm replaces the tile where it stood."""
    node = state[S.F_POS + fig]
    core.record(state, trace, S.EV_SACRIFICE, seat, node, fig, 0, 0)
    core.place_figure(state, rules, fig, S.OFF)
    death.invocation_tile(state, rules, node, state[S.F_OWNER + fig])
