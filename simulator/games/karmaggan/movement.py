"""Karmaggän: Turns and Movement — a plunderer's turn, step by step.

Rulebook: shared/rules/karmaggan.md, sections "Turns", "Movement".
"""

from simulator.core.kernel import layer, rule
from simulator.core.rng import roll_die
from simulator.games.karmaggan import board, combat, core, decide, egg, objects, tiles, traps
from simulator.games.karmaggan import state as S

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
    tile = state[S.B_TILE + node]
    spawn = state[S.F_KIND + fig] == S.SPAWN
    if tile == S.ABYSS:
        if spawn or state[S.G_POLE] == 0 or steps_left < 2:
            return False
    occ = state[S.B_OCC + node]
    if occ != S.NOBODY and core.friends(state, fig, occ, team_mode):
        return steps_left >= 2 and tile != S.JUNGLE
    if tile == S.JUNGLE:
        if spawn:
            return False
        carrier = state[S.G_EGG_CARRIER]
        if carrier == fig:
            return True
        return occ != S.NOBODY and occ == carrier
    if spawn and state[S.G_EGG_CARRIER] < 0 and state[S.G_EGG_POS] == node:
        return False
    if occ != S.NOBODY and state[S.F_POS + fig] > centre:
        return False
    return True


@rule
def list_moves(state, rules, fig, n):
    """ACT_MOVE options for ``fig`` after ``n`` (none without steps left); returns the count."""
    steps = state[S.G_STEPS_LEFT]
    if steps <= 0:
        return n
    board.update_adjacency(state, rules)
    node = state[S.F_POS + fig]
    centre, team_mode = rules[S.CFG_CENTRE], rules[S.CFG_TEAM_MODE]
    for j in range(1, state[S.adj_row(rules, node) + 0] + 1):
        nxt = state[S.adj_row(rules, node) + j]
        if can_enter(state, fig, nxt, steps, centre, team_mode) and n < S.MAX_OPTIONS:
            S.set_option(state, n, S.ACT_MOVE, fig, nxt)
            n += 1
    return n


@rule
def crossing(state, fig):
    """True while ``fig`` stands on another figure's tile (Movement: it must move on)."""
    node = state[S.F_POS + fig]
    return node >= 0 and state[S.B_OCC + node] != fig


@rule
def settle(state, rules, fig):
    """Movement: "In NO case may a Plunderer or a Spawn end its turn on a Tile occupied by
    another" (nor on an Abyss, Pole).  A figure whose move ends there — out of steps or of
    ways on — goes back to the last tile it stood on alone (ASSUMED), without activating it."""
    node = state[S.F_POS + fig]
    if node >= 0 and (crossing(state, fig) or state[S.B_TILE + node] == S.ABYSS):
        core.place_figure(state, rules, fig, state[S.G_LAST_FREE])


@rule
def leave_tile(state, fig):
    """Remember the tile ``fig`` is about to leave if it may end its move there (``settle``)."""
    node = state[S.F_POS + fig]
    if not crossing(state, fig) and state[S.B_TILE + node] != S.ABYSS:
        state[S.G_LAST_FREE] = node


@rule
def list_step_options(state, rules, seat):
    """Turns: what the plunderer may do next — step to a neighbour, pass / take / throw the
    Egg, play an Object card, or stop.  While crossing an ally's tile it may only move on
    (ASSUMED); on an Abyss (the Pole) it may not stop."""
    node = state[S.F_POS + seat]
    n = 0
    if crossing(state, seat):
        return list_moves(state, rules, seat, n)
    if state[S.B_TILE + node] != S.ABYSS:
        S.set_option(state, n, S.ACT_STOP, seat, node)
        n += 1
    n = list_moves(state, rules, seat, n)
    board.update_adjacency(state, rules)
    at = S.adj_row(rules, node)
    carrier = state[S.G_EGG_CARRIER]
    in_temple = node <= rules[S.CFG_CENTRE]
    if in_temple and rules[S.CFG_TEAM_MODE] == 1 and carrier >= 0:
        for j in range(at + 1, at + 1 + state[at]):
            nxt = state[j]
            occ = state[S.B_OCC + nxt]
            if (
                occ == S.NOBODY
                or occ >= rules[S.CFG_PLAYERS]
                or state[S.P_TEAM + occ] != state[S.P_TEAM + seat]
            ):
                continue
            if carrier == seat and not board.is_jungle(rules, nxt):
                S.set_option(state, n, S.ACT_PASS, occ, nxt)
                n += 1
            elif carrier == occ and not board.is_jungle(rules, nxt):
                S.set_option(state, n, S.ACT_TAKE, occ, nxt)
                n += 1
    if carrier == seat and in_temple:
        n = egg.list_throws(state, rules, seat, n)
    if (
        in_temple
        and state[S.G_FIRST_TURN] == 0
        and (state[S.G_PLAYS_LEFT] > 0 or state[S.P_MEDALLIONS + seat] > 0)
    ):
        paid = 1 if state[S.G_PLAYS_LEFT] <= 0 else 0
        for slot in range(rules[S.CFG_HAND_MAX]):
            if state[S.hand_slot(seat, slot)] >= 0 and n < S.MAX_OPTIONS:
                S.set_option(state, n, S.ACT_PLAY, slot, paid)
                n += 1
    return n


@layer
def step_plunderer(state, rules, knobs, rng, trace, seat, node):
    """Movement: one tile at a time, resolving each tile in order (Rollers crossed, combat on
    an enemy's tile, an ally's tile crossed, the Egg picked up, the tile activated).
    Unpronounceable Conjuring cancels the effect of the next tile stepped on, whatever it is.
    Entering the jungle ends the movement (ASSUMED)."""
    src = state[S.F_POS + seat]
    leave_tile(state, seat)
    state[S.G_STEPS_LEFT] -= 1
    conjured = state[S.G_CONJURE] == 1
    state[S.G_CONJURE] = 0
    traps.roller_damage(
        state, rules, rng, trace, seat, traps.step_crossings(state, rules, src, node)
    )
    if state[S.P_STATUS + seat] != S.ALIVE:
        return
    core.record(state, trace, S.EV_MOVE, seat, src, node, state[S.G_STEPS_LEFT], 0)
    occ = state[S.B_OCC + node]
    if occ != S.NOBODY and not core.friends(state, seat, occ, rules[S.CFG_TEAM_MODE]):
        won = combat.resolve_combat(state, rules, knobs, rng, trace, seat, occ, node)
        if not won or state[S.P_STATUS + seat] != S.ALIVE:
            state[S.G_TURN_ENDED] = 1
        elif board.is_jungle(rules, node):
            state[S.G_STEPS_LEFT] = 0
        return
    core.place_figure(state, rules, seat, node)
    if occ != S.NOBODY:
        return  # an occupied tile counts as activated (Invocation Tiles: Important)
    if board.is_jungle(rules, node):
        state[S.G_STEPS_LEFT] = 0
        core.record(state, trace, S.EV_EXIT, seat, node, 0, 0, 0)
        return
    egg.pick_up_egg(state, rules, trace, seat)
    if not conjured:
        tiles.activate_tile(state, rules, knobs, rng, trace, seat, node)


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
    state[S.G_TURN_ENDED], state[S.G_ACT_N], state[S.G_STEPS_LEFT] = 0, 0, 0
    state[S.G_POLE] = 0  # the Pole: "not to end its turn on it", this turn only
    state[S.G_CONJURE] = 0  # Unpronounceable Conjuring: "the next Tile you step on this turn"
    state[S.G_FIRST_TURN] = 1 if state[S.P_TURNS + seat] == 0 else 0
    state[S.G_PLAYS_LEFT] = rules[S.CFG_OBJECTS_PER_TURN]
    state[S.P_TURNS + seat] += 1


@rule
def start_turn(state, rules, rng, trace, seat):
    """Turns / Movement: a fresh turn, then the roll of two dice keeping the higher (the Egg
    carrier rolls one die).  False when the turn is over at once (a plunderer in the jungle
    only waits for its next turn, Final Moments of the Game)."""
    begin_turn(state, rules, seat)
    if board.is_jungle(rules, state[S.F_POS + seat]):
        return False
    roll = movement_roll(rng, state[S.G_EGG_CARRIER] == seat)
    state[S.G_STEPS_LEFT] = roll
    core.record(
        state,
        trace,
        S.EV_ROLL,
        seat,
        roll,
        state[S.G_EGG_CARRIER] == seat,
        state[S.P_COINS + seat],
        0,
    )
    return True


@layer
def take_step(state, rules, knobs, rng, trace, seat, i):
    """Carry out STEP option ``i`` of ``options`` (Turns: step, pass / take / throw the
    Egg, play an Object, or stop); returns whether the turn goes on."""
    act, a, b = state[S.OPT_ACT + i], state[S.OPT_A + i], state[S.OPT_B + i]
    if act == S.ACT_STOP:
        return False
    if act == S.ACT_MOVE:
        step_plunderer(state, rules, knobs, rng, trace, seat, b)
    elif act == S.ACT_PASS:
        state[S.P_EGG_PASSES + seat] += 1
        egg.give_egg(state, rules, trace, seat, a, S.EGG_PASS)
    elif act == S.ACT_TAKE:
        state[S.P_EGG_TAKES + seat] += 1
        egg.give_egg(state, rules, trace, a, seat, S.EGG_PASS)
    elif act == S.ACT_THROW:
        state[S.P_EGG_THROWS + seat] += 1
        egg.give_egg(state, rules, trace, seat, a, S.EGG_THROW)
    elif act == S.ACT_PLAY:
        objects.play_object(state, rules, knobs, rng, trace, seat, a, b)
    return state[S.G_TURN_ENDED] == 0 and state[S.P_STATUS + seat] == S.ALIVE


@rule
def finish_turn(state, rules, seat):
    """Movement: the plunderer settles where it may end its turn; the Egg carrier's turn is
    counted."""
    settle(state, rules, seat)
    if state[S.P_STATUS + seat] == S.ALIVE and state[S.G_EGG_CARRIER] == seat:
        state[S.P_EGG_TURNS + seat] += 1


@layer
def continue_turn(state, rules, knobs, rng, trace, seat):
    """The rest of a turn from its next STEP decision, every decision by the seat's policy
    (the search player resumes a turn here after the option it weighs)."""
    for _ in range(MAX_STEPS_PER_TURN):
        n = list_step_options(state, rules, seat)
        if n == 0:
            break  # out of ways on (settled below)
        if not take_step(
            state,
            rules,
            knobs,
            rng,
            trace,
            seat,
            decide.choose(state, rules, knobs, rng, S.STEP, seat, n),
        ):
            break
    finish_turn(state, rules, seat)


@layer
def plunderer_turn(state, rules, knobs, rng, trace, seat):
    """Turns / Movement: roll, then step, play Objects and handle the Egg until stopping."""
    if start_turn(state, rules, rng, trace, seat):
        continue_turn(state, rules, knobs, rng, trace, seat)
