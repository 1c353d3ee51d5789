"""Karmaggän: Turns and Movement — a plunderer's turn, step by step.

Rulebook: shared/rules/karmaggan.md, sections "Turns", "Movement".
"""

from simulator.core.kernel import layer, rule
from simulator.core.rng import roll_die
from simulator.games.karmaggan.board import is_jungle, update_adjacency
from simulator.games.karmaggan.combat import resolve_combat
from simulator.games.karmaggan.core import friends, place_figure, record
from simulator.games.karmaggan.decide import choose
from simulator.games.karmaggan.egg import give_egg, list_throws, pick_up_egg
from simulator.games.karmaggan.objects import play_object
from simulator.games.karmaggan.state import (
    ABYSS,
    ACT_MOVE,
    ACT_PASS,
    ACT_PLAY,
    ACT_STOP,
    ACT_TAKE,
    ACT_THROW,
    ADJ,
    ALIVE,
    B_OCC,
    B_TILE,
    BOARD,
    CFG,
    CFG_CENTRE,
    CFG_OBJECTS_PER_TURN,
    CFG_PLAYERS,
    CFG_TEAM_MODE,
    EGG_PASS,
    EGG_THROW,
    EV_EXIT,
    EV_MOVE,
    EV_ROLL,
    F_KIND,
    F_POS,
    FIGS,
    G_ACT_N,
    G_CONJURE,
    G_EGG_CARRIER,
    G_EGG_POS,
    G_FIRST_TURN,
    G_LAST_FREE,
    G_PLAYS_LEFT,
    G_POLE,
    G_STEPS_LEFT,
    G_TURN_ENDED,
    GAME,
    HANDS,
    JUNGLE,
    MAX_OPTIONS,
    NOBODY,
    OPT_A,
    OPT_ACT,
    OPT_B,
    OPTIONS,
    P_COINS,
    P_EGG_TURNS,
    P_MEDALLIONS,
    P_STATUS,
    P_TEAM,
    P_TURNS,
    PLAYERS,
    RNG,
    SPAWN,
    STEP,
)
from simulator.games.karmaggan.tiles import activate_tile
from simulator.games.karmaggan.traps import roller_damage, step_crossings

MAX_STEPS_PER_TURN = 200  # safety bound on decisions in one turn (a policy may loop)


@rule
def can_enter(fig, node, steps_left, board, figs, players, game, centre, team_mode):
    """Movement: may ``fig`` step onto ``node`` now?  Never onto an Abyss (the Pole allows it
    with a step left to get off), nor (Spawns) onto the uncarried Egg's tile or into the
    jungle; the jungle only carrying the Egg or after the carrier (ASSUMED: going out is
    one-way).  Only ending a turn on another's tile is forbidden: an ally's tile may be crossed
    with a step left to get off it (the Free-for-All example walks across another's tile);
    an enemy's tile means combat (ASSUMED: no truce lets an enemy through).  (Arrays rather
    than W: this runs for every neighbour.)"""
    tile = board[node, B_TILE]
    spawn = figs[fig, F_KIND] == SPAWN
    if tile == ABYSS:
        if spawn or game[G_POLE] == 0 or steps_left < 2:
            return False
    occ = board[node, B_OCC]
    if occ != NOBODY and friends(fig, occ, figs, players, team_mode):
        return steps_left >= 2 and tile != JUNGLE
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


@rule
def list_moves(W, fig, n):
    """ACT_MOVE options for ``fig`` after ``n`` (none without steps left); returns the count."""
    cfg, game, figs, board, players, options = (
        W[CFG],
        W[GAME],
        W[FIGS],
        W[BOARD],
        W[PLAYERS],
        W[OPTIONS],
    )
    steps = game[G_STEPS_LEFT]
    if steps <= 0:
        return n
    update_adjacency(W)
    adj = W[ADJ]
    node = figs[fig, F_POS]
    centre, team_mode = cfg[CFG_CENTRE], cfg[CFG_TEAM_MODE]
    for j in range(1, adj[node, 0] + 1):
        nxt = adj[node, j]
        if (
            can_enter(fig, nxt, steps, board, figs, players, game, centre, team_mode)
            and n < MAX_OPTIONS
        ):
            options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_MOVE, fig, nxt
            n += 1
    return n


@rule
def crossing(W, fig):
    """True while ``fig`` stands on another figure's tile (Movement: it must move on)."""
    node = W[FIGS][fig, F_POS]
    return node >= 0 and W[BOARD][node, B_OCC] != fig


@rule
def settle(W, fig):
    """Movement: "In NO case may a Plunderer or a Spawn end its turn on a Tile occupied by
    another" (nor on an Abyss, Pole).  A figure whose move ends there — out of steps or of
    ways on — goes back to the last tile it stood on alone (ASSUMED), without activating it."""
    node = W[FIGS][fig, F_POS]
    if node >= 0 and (crossing(W, fig) or W[BOARD][node, B_TILE] == ABYSS):
        place_figure(W, fig, W[GAME][G_LAST_FREE])


@rule
def leave_tile(W, fig):
    """Remember the tile ``fig`` is about to leave if it may end its move there (``settle``)."""
    node = W[FIGS][fig, F_POS]
    if not crossing(W, fig) and W[BOARD][node, B_TILE] != ABYSS:
        W[GAME][G_LAST_FREE] = node


@rule
def list_step_options(W, seat):
    """Turns: what the plunderer may do next — step to a neighbour, pass / take / throw the
    Egg, play an Object card, or stop.  While crossing an ally's tile it may only move on
    (ASSUMED); on an Abyss (the Pole) it may not stop."""
    cfg, game, figs, board, players, hands, options = (
        W[CFG],
        W[GAME],
        W[FIGS],
        W[BOARD],
        W[PLAYERS],
        W[HANDS],
        W[OPTIONS],
    )
    node = figs[seat, F_POS]
    n = 0
    if crossing(W, seat):
        return list_moves(W, seat, n)
    if board[node, B_TILE] != ABYSS:
        options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_STOP, seat, node
        n += 1
    n = list_moves(W, seat, n)
    update_adjacency(W)
    adj = W[ADJ]
    k = adj[node, 0]
    buf = adj[node, 1:]
    carrier = game[G_EGG_CARRIER]
    in_temple = node <= cfg[CFG_CENTRE]
    if in_temple and cfg[CFG_TEAM_MODE] == 1 and carrier >= 0:
        for j in range(k):
            occ = board[buf[j], B_OCC]
            if (
                occ == NOBODY
                or occ >= cfg[CFG_PLAYERS]
                or players[occ, P_TEAM] != players[seat, P_TEAM]
            ):
                continue
            if carrier == seat and not is_jungle(W, buf[j]):
                options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_PASS, occ, buf[j]
                n += 1
            elif carrier == occ and not is_jungle(W, buf[j]):
                options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_TAKE, occ, buf[j]
                n += 1
    if carrier == seat and in_temple:
        n = list_throws(W, seat, n)
    if (
        in_temple
        and game[G_FIRST_TURN] == 0
        and (game[G_PLAYS_LEFT] > 0 or players[seat, P_MEDALLIONS] > 0)
    ):
        paid = 1 if game[G_PLAYS_LEFT] <= 0 else 0
        for slot in range(hands.shape[1]):
            if hands[seat, slot] >= 0 and n < MAX_OPTIONS:
                options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_PLAY, slot, paid
                n += 1
    return n


@layer
def step_plunderer(W, seat, node):
    """Movement: one tile at a time, resolving each tile in order (Rollers crossed, combat on
    an enemy's tile, an ally's tile crossed, the Egg picked up, the tile activated).
    Unpronounceable Conjuring cancels the effect of the next tile stepped on, whatever it is.
    Entering the jungle ends the movement (ASSUMED)."""
    game, board, figs, players = W[GAME], W[BOARD], W[FIGS], W[PLAYERS]
    src = figs[seat, F_POS]
    leave_tile(W, seat)
    game[G_STEPS_LEFT] -= 1
    conjured = game[G_CONJURE] == 1
    game[G_CONJURE] = 0
    roller_damage(W, seat, step_crossings(W, src, node))
    if players[seat, P_STATUS] != ALIVE:
        return
    record(W, EV_MOVE, seat, src, node, game[G_STEPS_LEFT], 0)
    occ = board[node, B_OCC]
    if occ != NOBODY and not friends(seat, occ, figs, players, W[CFG][CFG_TEAM_MODE]):
        won = resolve_combat(W, seat, occ, node)
        if not won or players[seat, P_STATUS] != ALIVE:
            game[G_TURN_ENDED] = 1
        elif is_jungle(W, node):
            game[G_STEPS_LEFT] = 0
        return
    place_figure(W, seat, node)
    if occ != NOBODY:
        return  # an occupied tile counts as activated (Invocation Tiles: Important)
    if is_jungle(W, node):
        game[G_STEPS_LEFT] = 0
        record(W, EV_EXIT, seat, node, 0, 0, 0)
        return
    pick_up_egg(W, seat)
    if not conjured:
        activate_tile(W, seat, node)


@rule
def movement_roll(rng, carrying):
    """Movement: roll two dice, the higher is the most tiles to step on (1 to 6); The Alien
    Egg: its carrier rolls only the black die."""
    if carrying:
        return roll_die(rng, 6)
    return max(roll_die(rng, 6), roll_die(rng, 6))


@rule
def begin_turn(W, seat):
    """Turns: a fresh turn for ``seat`` (nothing activated yet, no Pole, no Conjuring, no
    steps); Objects: one card may be played, none in a player's first turn."""
    cfg, game, players = W[CFG], W[GAME], W[PLAYERS]
    game[G_TURN_ENDED], game[G_ACT_N], game[G_POLE], game[G_CONJURE], game[G_STEPS_LEFT] = (
        0,
        0,
        0,
        0,
        0,
    )
    game[G_FIRST_TURN] = 1 if players[seat, P_TURNS] == 0 else 0
    game[G_PLAYS_LEFT] = cfg[CFG_OBJECTS_PER_TURN]
    players[seat, P_TURNS] += 1


@rule
def start_turn(W, seat):
    """Turns / Movement: a fresh turn, then the roll of two dice keeping the higher (the Egg
    carrier rolls one die).  False when the turn is over at once (a plunderer in the jungle
    only waits for its next turn, Final Moments of the Game)."""
    game, figs, players = W[GAME], W[FIGS], W[PLAYERS]
    begin_turn(W, seat)
    if is_jungle(W, figs[seat, F_POS]):
        return False
    roll = movement_roll(W[RNG], game[G_EGG_CARRIER] == seat)
    game[G_STEPS_LEFT] = roll
    record(W, EV_ROLL, seat, roll, game[G_EGG_CARRIER] == seat, players[seat, P_COINS], 0)
    return True


@layer
def take_step(W, seat, i):
    """Carry out STEP option ``i`` of ``W[OPTIONS]`` (Turns: step, pass / take / throw the
    Egg, play an Object, or stop); returns whether the turn goes on."""
    options = W[OPTIONS]
    act, a, b = options[i, OPT_ACT], options[i, OPT_A], options[i, OPT_B]
    if act == ACT_STOP:
        return False
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
    return W[GAME][G_TURN_ENDED] == 0 and W[PLAYERS][seat, P_STATUS] == ALIVE


@rule
def finish_turn(W, seat):
    """Movement: the plunderer settles where it may end its turn; the Egg carrier's turn is
    counted."""
    players = W[PLAYERS]
    settle(W, seat)
    if players[seat, P_STATUS] == ALIVE and W[GAME][G_EGG_CARRIER] == seat:
        players[seat, P_EGG_TURNS] += 1


@layer
def continue_turn(W, seat):
    """The rest of a turn from its next STEP decision, every decision by the seat's policy
    (the search player resumes a turn here after the option it weighs)."""
    for _ in range(MAX_STEPS_PER_TURN):
        n = list_step_options(W, seat)
        if n == 0:
            break  # out of ways on (settled below)
        if not take_step(W, seat, choose(STEP, seat, n, W)):
            break
    finish_turn(W, seat)


@layer
def plunderer_turn(W, seat):
    """Turns / Movement: roll, then step, play Objects and handle the Egg until stopping."""
    if start_turn(W, seat):
        continue_turn(W, seat)
