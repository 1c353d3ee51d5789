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
    BOARD,
    CFG,
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
    FIGS,
    G_EGG_CARRIER,
    G_EGG_POS,
    G_MEDALLION_BANK,
    G_STEPS_LEFT,
    GAME,
    INVOCATION,
    MAX_OPTIONS,
    NOBODY,
    OFF,
    OPT_A,
    OPT_ACT,
    OPT_B,
    OPTIONS,
    P_MEDALLIONS,
    P_SPAWN_TURNS,
    P_SPAWNS_INVOKED,
    P_SWARM,
    PLAYERS,
    RNG,
    SWARM_MODE,
    SWARM_STEP,
)
from simulator.games.karmaggan.tiles import activate_tile


@rule
def spawn_count(W, swarm):
    cfg, figs = W[CFG], W[FIGS]
    first = cfg[CFG_PLAYERS] + swarm * cfg[CFG_SPAWN_MAX]
    n = 0
    for f in range(first, first + cfg[CFG_SPAWN_MAX]):
        if figs[f, F_POS] != OFF:
            n += 1
    return n


@rule
def invoke_spawn(W, seat, node):
    """Controlling the Swarm: a new Spawn on an unoccupied Invocation tile (max 6 per team)."""
    cfg, figs, players = W[CFG], W[FIGS], W[PLAYERS]
    swarm = players[seat, P_SWARM]
    first = cfg[CFG_PLAYERS] + swarm * cfg[CFG_SPAWN_MAX]
    for f in range(first, first + cfg[CFG_SPAWN_MAX]):
        if figs[f, F_POS] == OFF:
            place_figure(W, f, node)
            players[seat, P_SPAWNS_INVOKED] += 1
            record(W, EV_SPAWN, seat, node, 1, f, 0)
            return


@rule
def list_invocation_options(W, seat, act, n):
    """The swarm's unoccupied Invocation tiles (not the uncarried Egg's) as ``act`` options
    after ``n``, while it has fewer than 6 Spawns.  ASSUMED: a swarm invokes only on tiles of
    its own colour (Components: Illuminated and Dark Invocation tiles, one set per swarm)."""
    board, game, options = W[BOARD], W[GAME], W[OPTIONS]
    swarm = W[PLAYERS][seat, P_SWARM]
    if spawn_count(W, swarm) >= W[CFG][CFG_SPAWN_MAX]:
        return n
    for node in range(W[CFG][CFG_CENTRE]):
        if (
            board[node, B_TILE] == INVOCATION
            and board[node, B_SWARM] == swarm
            and board[node, B_OCC] == NOBODY
            and not (game[G_EGG_CARRIER] < 0 and game[G_EGG_POS] == node)
            and n < MAX_OPTIONS
        ):
            options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = act, seat, node
            n += 1
    return n


@rule
def swarm_turn(W, seat):
    """Controlling the Swarm: INVOKE a Spawn, or MOVE (two dice, keep the higher, split among
    the Spawns); at any moment sacrifice a Spawn (its tile becomes an Invocation tile) or pay a
    Golden Medallion to invoke one.  Losing a combat does not end the swarm's turn.  A Spawn
    crossing an ally's tile moves on before anything else happens (ASSUMED)."""
    cfg, game, players, options, rng = W[CFG], W[GAME], W[PLAYERS], W[OPTIONS], W[RNG]
    begin_turn(W, seat)
    players[seat, P_SPAWN_TURNS] += 1
    swarm = players[seat, P_SWARM]
    first = cfg[CFG_PLAYERS] + swarm * cfg[CFG_SPAWN_MAX]
    n = list_invocation_options(W, seat, ACT_INVOKE, 0)
    if spawn_count(W, swarm) > 0:
        options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_SWARM_MOVE, seat, 0
        n += 1
    if n == 0:
        return
    i = choose(SWARM_MODE, seat, n, W)
    game[G_STEPS_LEFT] = 0
    if options[i, OPT_ACT] == ACT_INVOKE:
        invoke_spawn(W, seat, options[i, OPT_B])
    else:
        game[G_STEPS_LEFT] = movement_roll(rng, False)
        record(W, EV_ROLL, seat, game[G_STEPS_LEFT], -1, 0, 0)
    for _ in range(MAX_STEPS_PER_TURN):
        mover = -1
        for f in range(first, first + cfg[CFG_SPAWN_MAX]):
            if crossing(W, f):
                mover = f
        if mover >= 0:
            n = list_moves(W, mover, 0)
            if n == 0:
                settle(W, mover)
                continue
        else:
            n = list_swarm_options(W, seat, first)
        i = choose(SWARM_STEP, seat, n, W)
        act, a, b = options[i, OPT_ACT], options[i, OPT_A], options[i, OPT_B]
        if act == ACT_STOP:
            break
        if act == ACT_MOVE:
            step_spawn(W, seat, a, b)
        elif act == ACT_SACRIFICE:
            sacrifice(W, seat, a)
        elif act == ACT_MEDALLION:
            players[seat, P_MEDALLIONS] -= 1
            game[G_MEDALLION_BANK] += 1
            invoke_spawn(W, seat, b)
    for f in range(first, first + cfg[CFG_SPAWN_MAX]):
        settle(W, f)


@rule
def list_swarm_options(W, seat, first):
    """Controlling the Swarm: stop, move a Spawn a tile, sacrifice one (not on the Centre,
    which never becomes an Invocation tile) or pay a Golden Medallion to invoke one."""
    cfg, figs, options = W[CFG], W[FIGS], W[OPTIONS]
    options[0, OPT_ACT], options[0, OPT_A], options[0, OPT_B] = ACT_STOP, seat, 0
    n = 1
    for f in range(first, first + cfg[CFG_SPAWN_MAX]):
        node = figs[f, F_POS]
        if node == OFF:
            continue
        n = list_moves(W, f, n)
        if node != cfg[CFG_CENTRE] and n < MAX_OPTIONS:
            options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_SACRIFICE, f, node
            n += 1
    if W[PLAYERS][seat, P_MEDALLIONS] > 0:
        n = list_invocation_options(W, seat, ACT_MEDALLION, n)
    return n


@rule
def step_spawn(W, seat, fig, node):
    """Movement for a Spawn: one of the swarm's steps; an enemy's tile means combat, an ally's
    is crossed, a free one activated (Which Tiles Spawns Activate)."""
    game, board, figs = W[GAME], W[BOARD], W[FIGS]
    leave_tile(W, fig)
    game[G_STEPS_LEFT] -= 1
    record(W, EV_MOVE, seat, figs[fig, F_POS], node, game[G_STEPS_LEFT], fig)
    occ = board[node, B_OCC]
    if occ != NOBODY and not friends(fig, occ, figs, W[PLAYERS], W[CFG][CFG_TEAM_MODE]):
        resolve_combat(W, fig, occ, node)
        return
    place_figure(W, fig, node)
    if occ == NOBODY:
        activate_tile(W, fig, node)


@rule
def sacrifice(W, seat, fig):
    """Controlling the Swarm: a sacrificed Spawn leaves the board and an Invocation Tile of its
    swarm replaces the tile where it stood."""
    node = W[FIGS][fig, F_POS]
    record(W, EV_SACRIFICE, seat, node, fig, 0, 0)
    place_figure(W, fig, OFF)
    invocation_tile(W, node, W[FIGS][fig, F_OWNER])
