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
    ALIVE,
    B_OCC,
    B_TILE,
    CFG_CENTRE,
    CFG_HAND_MAX,
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
    JUNGLE,
    MAX_OPTIONS,
    NOBODY,
    OPT_A,
    OPT_ACT,
    OPT_B,
    P_COINS,
    P_EGG_PASSES,
    P_EGG_TAKES,
    P_EGG_THROWS,
    P_EGG_TURNS,
    P_MEDALLIONS,
    P_STATUS,
    P_TEAM,
    P_TURNS,
    SPAWN,
    STEP,
    adj_row,
    hand_slot,
    set_option,
)
from simulator.games.karmaggan.tiles import activate_tile
from simulator.games.karmaggan.traps import roller_damage, step_crossings

MAX_STEPS_PER_TURN = 200  # safety bound on decisions in one turn (a policy may loop)


@rule
def can_enter(state, fig, node, steps_left, centre, team_mode):
    """Movement: may ``fig`` step onto ``node`` now?  Never onto an Abyss (the Pole allows it
    with a step left to get off), nor (Spawns) onto the uncarried Egg's tile or into the
    jungle; the jungle only carrying the Egg or after the carrier (ASSUMED: going out is
    one-way).  Only ending a turn on another's tile is forbidden: an ally's tile may be crossed
    with a step left to get off it (the Free-for-All example walks across another's tile);
    an enemy's tile means combat (ASSUMED: no truce lets an enemy through).  (The rules
    numbers as arguments: this runs for every neighbour.)"""
    tile = state[B_TILE + node]
    spawn = state[F_KIND + fig] == SPAWN
    if tile == ABYSS:
        if spawn or state[G_POLE] == 0 or steps_left < 2:
            return False
    occ = state[B_OCC + node]
    if occ != NOBODY and friends(state, fig, occ, team_mode):
        return steps_left >= 2 and tile != JUNGLE
    if tile == JUNGLE:
        if spawn:
            return False
        carrier = state[G_EGG_CARRIER]
        if carrier == fig:
            return True
        return occ != NOBODY and occ == carrier
    if spawn and state[G_EGG_CARRIER] < 0 and state[G_EGG_POS] == node:
        return False
    if occ != NOBODY and state[F_POS + fig] > centre:
        return False
    return True


@rule
def list_moves(state, rules, fig, n):
    """ACT_MOVE options for ``fig`` after ``n`` (none without steps left); returns the count."""
    steps = state[G_STEPS_LEFT]
    if steps <= 0:
        return n
    update_adjacency(state, rules)
    node = state[F_POS + fig]
    centre, team_mode = rules[CFG_CENTRE], rules[CFG_TEAM_MODE]
    for j in range(1, state[adj_row(rules, node) + 0] + 1):
        nxt = state[adj_row(rules, node) + j]
        if can_enter(state, fig, nxt, steps, centre, team_mode) and n < MAX_OPTIONS:
            set_option(state, n, ACT_MOVE, fig, nxt)
            n += 1
    return n


@rule
def crossing(state, fig):
    """True while ``fig`` stands on another figure's tile (Movement: it must move on)."""
    node = state[F_POS + fig]
    return node >= 0 and state[B_OCC + node] != fig


@rule
def settle(state, rules, fig):
    """Movement: "In NO case may a Plunderer or a Spawn end its turn on a Tile occupied by
    another" (nor on an Abyss, Pole).  A figure whose move ends there — out of steps or of
    ways on — goes back to the last tile it stood on alone (ASSUMED), without activating it."""
    node = state[F_POS + fig]
    if node >= 0 and (crossing(state, fig) or state[B_TILE + node] == ABYSS):
        place_figure(state, rules, fig, state[G_LAST_FREE])


@rule
def leave_tile(state, fig):
    """Remember the tile ``fig`` is about to leave if it may end its move there (``settle``)."""
    node = state[F_POS + fig]
    if not crossing(state, fig) and state[B_TILE + node] != ABYSS:
        state[G_LAST_FREE] = node


@rule
def list_step_options(state, rules, seat):
    """Turns: what the plunderer may do next — step to a neighbour, pass / take / throw the
    Egg, play an Object card, or stop.  While crossing an ally's tile it may only move on
    (ASSUMED); on an Abyss (the Pole) it may not stop."""
    node = state[F_POS + seat]
    n = 0
    if crossing(state, seat):
        return list_moves(state, rules, seat, n)
    if state[B_TILE + node] != ABYSS:
        set_option(state, n, ACT_STOP, seat, node)
        n += 1
    n = list_moves(state, rules, seat, n)
    update_adjacency(state, rules)
    at = adj_row(rules, node)
    carrier = state[G_EGG_CARRIER]
    in_temple = node <= rules[CFG_CENTRE]
    if in_temple and rules[CFG_TEAM_MODE] == 1 and carrier >= 0:
        for j in range(at + 1, at + 1 + state[at]):
            nxt = state[j]
            occ = state[B_OCC + nxt]
            if (
                occ == NOBODY
                or occ >= rules[CFG_PLAYERS]
                or state[P_TEAM + occ] != state[P_TEAM + seat]
            ):
                continue
            if carrier == seat and not is_jungle(rules, nxt):
                set_option(state, n, ACT_PASS, occ, nxt)
                n += 1
            elif carrier == occ and not is_jungle(rules, nxt):
                set_option(state, n, ACT_TAKE, occ, nxt)
                n += 1
    if carrier == seat and in_temple:
        n = list_throws(state, rules, seat, n)
    if (
        in_temple
        and state[G_FIRST_TURN] == 0
        and (state[G_PLAYS_LEFT] > 0 or state[P_MEDALLIONS + seat] > 0)
    ):
        paid = 1 if state[G_PLAYS_LEFT] <= 0 else 0
        for slot in range(rules[CFG_HAND_MAX]):
            if state[hand_slot(seat, slot)] >= 0 and n < MAX_OPTIONS:
                set_option(state, n, ACT_PLAY, slot, paid)
                n += 1
    return n


@layer
def step_plunderer(state, rules, knobs, rng, trace, seat, node):
    """Movement: one tile at a time, resolving each tile in order (Rollers crossed, combat on
    an enemy's tile, an ally's tile crossed, the Egg picked up, the tile activated).
    Unpronounceable Conjuring cancels the effect of the next tile stepped on, whatever it is.
    Entering the jungle ends the movement (ASSUMED)."""
    src = state[F_POS + seat]
    leave_tile(state, seat)
    state[G_STEPS_LEFT] -= 1
    conjured = state[G_CONJURE] == 1
    state[G_CONJURE] = 0
    roller_damage(state, rules, rng, trace, seat, step_crossings(state, rules, src, node))
    if state[P_STATUS + seat] != ALIVE:
        return
    record(state, trace, EV_MOVE, seat, src, node, state[G_STEPS_LEFT], 0)
    occ = state[B_OCC + node]
    if occ != NOBODY and not friends(state, seat, occ, rules[CFG_TEAM_MODE]):
        won = resolve_combat(state, rules, knobs, rng, trace, seat, occ, node)
        if not won or state[P_STATUS + seat] != ALIVE:
            state[G_TURN_ENDED] = 1
        elif is_jungle(rules, node):
            state[G_STEPS_LEFT] = 0
        return
    place_figure(state, rules, seat, node)
    if occ != NOBODY:
        return  # an occupied tile counts as activated (Invocation Tiles: Important)
    if is_jungle(rules, node):
        state[G_STEPS_LEFT] = 0
        record(state, trace, EV_EXIT, seat, node, 0, 0, 0)
        return
    pick_up_egg(state, rules, trace, seat)
    if not conjured:
        activate_tile(state, rules, knobs, rng, trace, seat, node)


@rule
def movement_roll(rng, carrying):
    """Movement: roll two dice, the higher is the most tiles to step on (1 to 6); The Alien
    Egg: its carrier rolls only the black die."""
    if carrying:
        return roll_die(rng, 6)
    return max(roll_die(rng, 6), roll_die(rng, 6))


@rule
def begin_turn(state, rules, seat):
    """Turns: a fresh turn for ``seat`` (nothing activated yet, no Pole, no Conjuring, no
    steps); Objects: one card may be played, none in a player's first turn."""
    state[G_TURN_ENDED], state[G_ACT_N], state[G_STEPS_LEFT] = 0, 0, 0
    state[G_POLE] = 0  # the Pole: "not to end its turn on it", this turn only
    state[G_CONJURE] = 0  # Unpronounceable Conjuring: "the next Tile you step on this turn"
    state[G_FIRST_TURN] = 1 if state[P_TURNS + seat] == 0 else 0
    state[G_PLAYS_LEFT] = rules[CFG_OBJECTS_PER_TURN]
    state[P_TURNS + seat] += 1


@rule
def start_turn(state, rules, rng, trace, seat):
    """Turns / Movement: a fresh turn, then the roll of two dice keeping the higher (the Egg
    carrier rolls one die).  False when the turn is over at once (a plunderer in the jungle
    only waits for its next turn, Final Moments of the Game)."""
    begin_turn(state, rules, seat)
    if is_jungle(rules, state[F_POS + seat]):
        return False
    roll = movement_roll(rng, state[G_EGG_CARRIER] == seat)
    state[G_STEPS_LEFT] = roll
    record(
        state, trace, EV_ROLL, seat, roll, state[G_EGG_CARRIER] == seat, state[P_COINS + seat], 0
    )
    return True


@layer
def take_step(state, rules, knobs, rng, trace, seat, i):
    """Carry out STEP option ``i`` of ``options`` (Turns: step, pass / take / throw the
    Egg, play an Object, or stop); returns whether the turn goes on."""
    act, a, b = state[OPT_ACT + i], state[OPT_A + i], state[OPT_B + i]
    if act == ACT_STOP:
        return False
    if act == ACT_MOVE:
        step_plunderer(state, rules, knobs, rng, trace, seat, b)
    elif act == ACT_PASS:
        state[P_EGG_PASSES + seat] += 1
        give_egg(state, rules, trace, seat, a, EGG_PASS)
    elif act == ACT_TAKE:
        state[P_EGG_TAKES + seat] += 1
        give_egg(state, rules, trace, a, seat, EGG_PASS)
    elif act == ACT_THROW:
        state[P_EGG_THROWS + seat] += 1
        give_egg(state, rules, trace, seat, a, EGG_THROW)
    elif act == ACT_PLAY:
        play_object(state, rules, knobs, rng, trace, seat, a, b)
    return state[G_TURN_ENDED] == 0 and state[P_STATUS + seat] == ALIVE


@rule
def finish_turn(state, rules, seat):
    """Movement: the plunderer settles where it may end its turn; the Egg carrier's turn is
    counted."""
    settle(state, rules, seat)
    if state[P_STATUS + seat] == ALIVE and state[G_EGG_CARRIER] == seat:
        state[P_EGG_TURNS + seat] += 1


@layer
def continue_turn(state, rules, knobs, rng, trace, seat):
    """The rest of a turn from its next STEP decision, every decision by the seat's policy
    (the search player resumes a turn here after the option it weighs)."""
    for _ in range(MAX_STEPS_PER_TURN):
        n = list_step_options(state, rules, seat)
        if n == 0:
            break  # out of ways on (settled below)
        if not take_step(
            state, rules, knobs, rng, trace, seat, choose(state, rules, knobs, rng, STEP, seat, n)
        ):
            break
    finish_turn(state, rules, seat)


@layer
def plunderer_turn(state, rules, knobs, rng, trace, seat):
    """Turns / Movement: roll, then step, play Objects and handle the Egg until stopping."""
    if start_turn(state, rules, rng, trace, seat):
        continue_turn(state, rules, knobs, rng, trace, seat)
