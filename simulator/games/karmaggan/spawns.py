"""Karmaggän: Spawns — Controlling the Swarm.

Rulebook: shared/rules/karmaggan.md, sections "Spawns", "Controlling the Swarm".
"""

from numba import njit

from policies.karmaggan import choose
from simulator.games.karmaggan.board import adjacency
from simulator.games.karmaggan.core import record, place_figure
from simulator.games.karmaggan.death import invocation_tile
from simulator.games.karmaggan.tiles import activate_tile
from simulator.games.karmaggan.combat import resolve_combat
from simulator.games.karmaggan.movement import MAX_STEPS_PER_TURN, can_enter, movement_roll
from simulator.games.karmaggan.state import *  # noqa: F401,F403  (the named slots)


@njit(cache=True)
def spawn_count(W, swarm):
    cfg, figs = W[CFG], W[FIGS]
    first = cfg[CFG_PLAYERS] + swarm * cfg[CFG_SPAWN_MAX]
    n = 0
    for f in range(first, first + cfg[CFG_SPAWN_MAX]):
        if figs[f, F_POS] != OFF:
            n += 1
    return n


@njit(cache=True)
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


@njit(cache=True)
def list_invocation_options(W, seat, act, n):
    """Unoccupied Invocation tiles (not the uncarried Egg's) as ``act`` options after ``n``."""
    board, game, options = W[BOARD], W[GAME], W[OPTIONS]
    if spawn_count(W, W[PLAYERS][seat, P_SWARM]) >= W[CFG][CFG_SPAWN_MAX]:
        return n
    for node in range(W[CFG][CFG_CENTRE]):
        if (board[node, B_TILE] == INVOCATION and board[node, B_OCC] == NOBODY
                and not (game[G_EGG_CARRIER] < 0 and game[G_EGG_POS] == node) and n < MAX_OPTIONS):
            options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = act, seat, node
            n += 1
    return n


@njit(cache=True)
def swarm_turn(W, seat):
    """Controlling the Swarm: INVOKE a Spawn, or MOVE (two dice, keep the higher, split among
    the Spawns); at any moment sacrifice a Spawn (its tile becomes an Invocation tile) or pay a
    Golden Medallion to invoke one.  Losing a combat does not end the swarm's turn."""
    cfg, game, figs, players, options, rng = W[CFG], W[GAME], W[FIGS], W[PLAYERS], W[OPTIONS], W[RNG]
    game[G_ACT_N], game[G_POLE], game[G_CONJURE], game[G_TURN_ENDED] = 0, 0, 0, 0
    players[seat, P_TURNS] += 1
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
    board = W[BOARD]
    for _ in range(MAX_STEPS_PER_TURN):
        options[0, OPT_ACT], options[0, OPT_A], options[0, OPT_B] = ACT_STOP, seat, 0
        n = 1
        centre, team_mode = cfg[CFG_CENTRE], cfg[CFG_TEAM_MODE]
        for f in range(first, first + cfg[CFG_SPAWN_MAX]):
            node = figs[f, F_POS]
            if node == OFF:
                continue
            if game[G_STEPS_LEFT] > 0:
                adj = adjacency(W)
                k = adj[node, 0]
                buf = adj[node, 1:]
                for j in range(k):
                    if (can_enter(f, buf[j], game[G_STEPS_LEFT], board, figs, players, game, centre, team_mode)
                            and n < MAX_OPTIONS):
                        options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_MOVE, f, buf[j]
                        n += 1
            if node != cfg[CFG_CENTRE] and n < MAX_OPTIONS:
                options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_SACRIFICE, f, node
                n += 1
        if players[seat, P_MEDALLIONS] > 0:
            n = list_invocation_options(W, seat, ACT_MEDALLION, n)
        i = choose(SWARM_STEP, seat, n, W)
        act, a, b = options[i, OPT_ACT], options[i, OPT_A], options[i, OPT_B]
        if act == ACT_STOP:
            break
        if act == ACT_MOVE:
            game[G_STEPS_LEFT] -= 1
            src = figs[a, F_POS]
            record(W, EV_MOVE, seat, src, b, game[G_STEPS_LEFT], a)
            occ = board[b, B_OCC]
            if occ != NOBODY:
                resolve_combat(W, a, occ, b)
            else:
                place_figure(W, a, b)
                activate_tile(W, a, b)
        elif act == ACT_SACRIFICE:
            record(W, EV_SACRIFICE, seat, b, a, 0, 0)
            place_figure(W, a, OFF)
            invocation_tile(W, b)
        elif act == ACT_MEDALLION:
            players[seat, P_MEDALLIONS] -= 1
            game[G_MEDALLION_BANK] += 1
            invoke_spawn(W, seat, b)
