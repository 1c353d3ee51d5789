"""Karmaggän: Turns and Movement — a plunderer's turn, step by step.

Rulebook: shared/rules/karmaggan.md, sections "Turns", "Movement".
"""

from numba import njit

from policies.karmaggan import choose
from simulator.games.karmaggan.board import adjacency, is_jungle
from simulator.games.karmaggan.core import record, place_figure
from simulator.games.karmaggan.egg import pick_up_egg, give_egg, throw_line
from simulator.games.karmaggan.traps import roller_damage, step_crossings
from simulator.games.karmaggan.tiles import activate_tile
from simulator.games.karmaggan.combat import resolve_combat
from simulator.games.karmaggan.objects import play_object
from simulator.games.karmaggan.state import *  # noqa: F401,F403  (the named slots)
from simulator.rng import roll_die

MAX_STEPS_PER_TURN = 200  # safety bound on decisions in one turn (a policy may loop)


@njit(cache=True)
def side_of(fig, figs, players, team_mode):
    """The side a figure fights for: a plunderer's team (its seat in Free-for-All), a swarm's
    team in Team mode, and -1 - swarm for the Free-for-All swarm (everyone's enemy)."""
    if figs[fig, F_KIND] == PLUNDERER:
        return players[fig, P_TEAM]
    if team_mode == 1:
        return figs[fig, F_OWNER]
    return -1 - figs[fig, F_OWNER]


@njit(cache=True)
def friends(fig_a, fig_b, figs, players, team_mode):
    """Allies never fight: teammates and their swarm (Team mode), spawns of one swarm."""
    ta, tb = side_of(fig_a, figs, players, team_mode), side_of(fig_b, figs, players, team_mode)
    return ta == tb


@njit(cache=True)
def can_enter(fig, node, steps_left, board, figs, players, game, centre, team_mode):
    """Movement: may ``fig`` step onto ``node`` now?  Never onto an Abyss (the Pole allows it
    with a step left to get off), an ally or (Spawns) the uncarried Egg's tile or the jungle;
    the jungle only carrying the Egg or after the carrier (ASSUMED: going out is one-way).
    An enemy's tile means combat.  (Arrays rather than W: this runs for every neighbour.)"""
    tile = board[node, B_TILE]
    spawn = figs[fig, F_KIND] == SPAWN
    if tile == ABYSS:
        if spawn or game[G_POLE] == 0 or steps_left < 2:
            return False
    occ = board[node, B_OCC]
    if occ != NOBODY and friends(fig, occ, figs, players, team_mode):
        return False
    if tile == JUNGLE:
        if spawn:
            return False
        carrier = game[G_EGG_CARRIER]
        if carrier == fig:
            return True
        return occ != NOBODY and occ == carrier
    if spawn and game[G_EGG_CARRIER] < 0 and game[G_EGG_POS] == node:
        return False
    if occ != NOBODY and figs[fig, F_POS] > centre:
        return False
    return True


@njit(cache=True)
def list_step_options(W, seat):
    """Turns: what the plunderer may do next — step to a neighbour, pass / take / throw the
    Egg, play an Object card, or stop."""
    cfg, game, figs, board, players, hands, options = (W[CFG], W[GAME], W[FIGS], W[BOARD],
                                                        W[PLAYERS], W[HANDS], W[OPTIONS])
    node = figs[seat, F_POS]
    n = 0
    if board[node, B_TILE] != ABYSS:
        options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_STOP, seat, node
        n += 1
    adj = adjacency(W)
    k = adj[node, 0]
    buf = adj[node, 1:]
    steps = game[G_STEPS_LEFT]
    centre, team_mode = cfg[CFG_CENTRE], cfg[CFG_TEAM_MODE]
    if steps > 0:
        for j in range(k):
            nxt = buf[j]
            if can_enter(seat, nxt, steps, board, figs, players, game, centre, team_mode):
                options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_MOVE, seat, nxt
                n += 1
    carrier = game[G_EGG_CARRIER]
    in_temple = node <= centre
    if in_temple and team_mode == 1 and carrier >= 0:
        for j in range(k):
            occ = board[buf[j], B_OCC]
            if occ == NOBODY or occ >= cfg[CFG_PLAYERS] or players[occ, P_TEAM] != players[seat, P_TEAM]:
                continue
            if carrier == seat and not is_jungle(W, buf[j]):
                options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_PASS, occ, buf[j]
                n += 1
            elif carrier == occ and not is_jungle(W, buf[j]):
                options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_TAKE, occ, buf[j]
                n += 1
    if carrier == seat and in_temple:
        target = throw_line(W, node)
        if 0 <= target < cfg[CFG_PLAYERS]:
            options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_THROW, target, figs[target, F_POS]
            n += 1
    if in_temple and game[G_FIRST_TURN] == 0 and (game[G_PLAYS_LEFT] > 0 or players[seat, P_MEDALLIONS] > 0):
        paid = 1 if game[G_PLAYS_LEFT] <= 0 else 0
        for slot in range(hands.shape[1]):
            if hands[seat, slot] >= 0 and n < MAX_OPTIONS:
                options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_PLAY, slot, paid
                n += 1
    if n == 0:
        options[0, OPT_ACT], options[0, OPT_A], options[0, OPT_B] = ACT_STOP, seat, node
        n = 1
    return n


@njit(cache=True)
def step_plunderer(W, seat, node):
    """Movement: one tile at a time, resolving each tile in order (Rollers crossed, combat on
    an occupied tile, the Egg picked up, the tile activated).  Entering the jungle ends the
    movement (ASSUMED)."""
    game, board, figs, players = W[GAME], W[BOARD], W[FIGS], W[PLAYERS]
    src = figs[seat, F_POS]
    game[G_STEPS_LEFT] -= 1
    if game[G_ROLLERS_ON] == 1:
        roller_damage(W, seat, step_crossings(W, src, node))
    if players[seat, P_STATUS] != ALIVE:
        return
    record(W, EV_MOVE, seat, src, node, game[G_STEPS_LEFT], 0)
    occ = board[node, B_OCC]
    if occ != NOBODY:
        won = resolve_combat(W, seat, occ, node)
        if not won or players[seat, P_STATUS] != ALIVE:
            game[G_TURN_ENDED] = 1
        elif is_jungle(W, node):
            game[G_STEPS_LEFT] = 0
        return
    place_figure(W, seat, node)
    if is_jungle(W, node):
        game[G_STEPS_LEFT] = 0
        record(W, EV_EXIT, seat, node, 0, 0, 0)
        return
    pick_up_egg(W, seat)
    activate_tile(W, seat, node)


@njit(cache=True)
def movement_roll(rng, carrying):
    """Movement: roll two dice, the higher is the most tiles to step on (1 to 6); The Alien
    Egg: its carrier rolls only the black die."""
    if carrying:
        return roll_die(rng, 6)
    return max(roll_die(rng, 6), roll_die(rng, 6))


@njit(cache=True)
def plunderer_turn(W, seat):
    """Turns / Movement: roll two dice and keep the higher (the Egg carrier rolls one die),
    then step, play Objects and handle the Egg until stopping."""
    cfg, game, figs, players, rng = W[CFG], W[GAME], W[FIGS], W[PLAYERS], W[RNG]
    game[G_TURN_ENDED], game[G_ACT_N], game[G_POLE], game[G_CONJURE] = 0, 0, 0, 0
    game[G_FIRST_TURN] = 1 if players[seat, P_TURNS] == 0 else 0
    game[G_PLAYS_LEFT] = 0 if game[G_FIRST_TURN] == 1 else cfg[CFG_OBJECTS_PER_TURN]
    players[seat, P_TURNS] += 1
    if is_jungle(W, figs[seat, F_POS]):
        return
    roll = movement_roll(rng, game[G_EGG_CARRIER] == seat)
    game[G_STEPS_LEFT] = roll
    record(W, EV_ROLL, seat, roll, game[G_EGG_CARRIER] == seat, players[seat, P_COINS], 0)
    options = W[OPTIONS]
    for _ in range(MAX_STEPS_PER_TURN):
        n = list_step_options(W, seat)
        i = choose(STEP, seat, n, W)
        act, a, b = options[i, OPT_ACT], options[i, OPT_A], options[i, OPT_B]
        if act == ACT_STOP:
            break
        if act == ACT_MOVE:
            step_plunderer(W, seat, b)
        elif act == ACT_PASS:
            give_egg(W, seat, a, EGG_PASS)
        elif act == ACT_TAKE:
            give_egg(W, a, seat, EGG_PASS)
        elif act == ACT_THROW:
            give_egg(W, seat, a, EGG_THROW)
        elif act == ACT_PLAY:
            play_object(W, seat, a, b)
        if game[G_TURN_ENDED] == 1 or players[seat, P_STATUS] != ALIVE:
            break
    if players[seat, P_STATUS] == ALIVE and game[G_EGG_CARRIER] == seat:
        players[seat, P_EGG_TURNS] += 1
