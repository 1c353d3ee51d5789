"""Karmaggän policies: where plunderers step, what they play, which card they reveal in combat,
and how the dead steer their swarm.

Every scripted policy reads the board the same way — a distance map (breadth-first, walls and
abysses respected, cached until a ring turns or a hatch changes) to the tile it is heading
for — and scores each legal option as *tiles gained toward that target* plus the pull of the
tiles on the way; the knobs in ``[policies.NAME]`` of the rules make the strategies differ:

* ``rusher``: heads for the Egg, then for an open hatch; lets teammates fend for themselves.
* ``hunter``: attacks freely and goes after the carrier; keeps its cards for combat.
* ``supporter``: escorts a teammate carrying the Egg, takes/passes the Egg to whoever is nearer
  an exit, gives Blood Stone coins to a dying teammate.

Combat: a scripted policy reveals a random card of its hand, each weighted by the knob of its
combat value (``combat_*``), and plays no card only with an empty hand.

The `search` player (simulator/games/karmaggan/search.py) weighs the best-scored options of
its plunderer's steps by simulation, the `learned` player by the learned value of the position
after each (simulator/games/karmaggan/features.py); their other decisions are their
``rollout_policy``'s.
"""

import numpy as np

from policies.common import (
    HANDICAP_KNOBS,
    LEARNED_KNOBS,
    RANDOM,
    behaviour,
    blunders,
    pick_best,
    pick_random,
)
from policies.search import LEARNED_SEARCH_KNOBS, SEARCH_KNOBS
from simulator.core.game import Policy
from simulator.core.kernel import rule
from simulator.core.rng import POLICY, rng_float
from simulator.games.karmaggan import board, core
from simulator.games.karmaggan import state as S

RUSHER, HUNTER, SUPPORTER, SEARCH, LEARNED = range(1, 6)
POLICIES = (
    Policy(RANDOM, "random", "uniformly random among the legal options at every decision"),
    Policy(RUSHER, "rusher", "runs for the Egg and then for the nearest open hatch"),
    Policy(HUNTER, "hunter", "hunts the Egg carrier and fights anyone weaker on the way"),
    Policy(
        SUPPORTER,
        "supporter",
        "escorts and blocks for a carrying teammate, passes the Egg toward the exits",
    ),
    Policy(
        SEARCH,
        "search",
        "weighs its best steps by playing each out many times from what "
        "it can see (determinized flat Monte Carlo)",
    ),
    Policy(
        LEARNED,
        "learned",
        "takes the step whose resulting position a value function learned from the "
        "search's games rates highest (one ply)",
    ),
)
KNOBS = (
    "escort",
    "hunt",
    "blood",
    "objects",
    "temple",
    "fight",
    "hold",
    "combat_nothing",
    "combat_attack",
    "combat_counter",
    "combat_power",
    "sacrifice",
    *SEARCH_KNOBS,
    *HANDICAP_KNOBS,
    *LEARNED_KNOBS,
    *LEARNED_SEARCH_KNOBS,
)
(
    ESCORT,
    HUNT,
    BLOOD,
    OBJECTS,
    TEMPLE,
    FIGHT,
    HOLD,
    COMBAT_NOTHING,
    COMBAT_ATTACK,
    COMBAT_COUNTER,
    COMBAT_POWER,
    SACRIFICE,
    ROLLOUTS,
    ROLLOUT_POLICY_KNOB,
    HORIZON,
    TOP_K,
    BLUNDER,
    WEIGHTS,
    LEARNED_VALUE,
) = range(1, 20)  # knobs table columns (column 0: the behaviour; a learned policy's weights
# follow the last, from WEIGHTS_AT)
WEIGHTS_AT = 1 + len(KNOBS)

NEVER = -1000.0
DETOUR = 0.6  # cost of a step that does not bring the figure nearer its target
RESTLESS = 0.3  # chance that a plunderer with nothing better to do takes a random step


@rule
def any_open(state):
    return state[S.G_OPEN_HATCHES] > 0


@rule
def exit_target(state):
    return board.EXITS if any_open(state) else board.HATCH_CELLS


@rule
def friendly(state, rules, seat, other):
    return seat == other or (
        rules[S.CFG_TEAM_MODE] == 1 and state[S.P_TEAM + seat] == state[S.P_TEAM + other]
    )


@rule
def teammates_alive(state, rules, seat):
    n = 0
    for s in range(rules[S.CFG_PLAYERS]):
        if s != seat and state[S.P_STATUS + s] == S.ALIVE and friendly(state, rules, seat, s):
            n += 1
    return n


@rule
def plunderer_target(state, rules, seat, k):
    """The tile a plunderer heads for: the loose Egg; with the Egg, an open hatch, or while
    all are closed a hatch to wait at (Temple tiles when alone: only Temple cards open
    hatches); an enemy carrier; for a carrying teammate, the carrier (escort) or, hatches
    open, the exits (run ahead) and, hatches closed, the Temple tiles to open them."""
    carrier = state[S.G_EGG_CARRIER]
    if carrier == seat:
        if any_open(state):
            return board.EXITS
        return board.HATCH_CELLS if teammates_alive(state, rules, seat) > 0 else board.TEMPLES
    if carrier < 0:
        return state[S.G_EGG_POS]
    if friendly(state, rules, seat, carrier):
        if k[ESCORT] >= 0.5 or k[HUNT] >= 0.5:
            return state[S.F_POS + carrier]
        return board.EXITS if any_open(state) else board.TEMPLES
    return state[S.F_POS + carrier]


# The scoring helpers below take the state and the rules numbers they read, which their callers
# already hold, rather than the rules array: they run for every option of every decision.


@rule
def activated(state, n_acts, fig, node):
    for i in range(n_acts):
        if state[S.ACTED_FIG + i] == fig and state[S.ACTED_NODE + i] == node:
            return True
    return False


@rule
def is_friend(state, team_mode, seat, other):
    return seat == other or (team_mode == 1 and state[S.P_TEAM + seat] == state[S.P_TEAM + other])


@rule
def progress(d, cur, nxt):
    if d[cur] >= board.UNREACHABLE:
        return 0.1  # lost: wander until the rings turn
    gain = float(d[cur] - d[nxt])
    return gain if gain > 0 else gain - DETOUR


@rule
def tile_pull(state, seat, node, target, k, hand_max, n_acts):
    """Pull of the tile itself: full Blood tiles, Object tiles (room in hand), Temple traps."""
    if activated(state, n_acts, seat, node):
        return 0.0
    tile = state[S.B_TILE + node]
    if tile == S.BLOOD_TILE and state[S.B_BLOOD + node] > 0:
        return k[BLOOD]
    if tile == S.OBJECT_TILE and state[S.P_HAND_N + seat] < hand_max:
        return k[OBJECTS]
    if (tile == S.TEMPLE_TILE or tile == S.CENTRE_TILE) and node != target:
        return 0.5 if target == board.TEMPLES else -k[TEMPLE]
    return 0.0


@rule
def fight_score(state, seat, occ, k, carrier):
    """Stepping onto an occupied tile means combat: worth it against the carrier, or against a
    plunderer with ``fight`` fewer coins; spawns are worth fighting with coins to spare."""
    mine = state[S.P_COINS + seat]
    if occ == carrier:
        return 3.0 if mine >= 2 else 0.5
    if state[S.F_KIND + occ] == S.PLUNDERER:
        return 0.5 if mine - state[S.P_COINS + occ] >= k[FIGHT] else NEVER / 10
    return 0.3 if mine >= 3 else -3.0


@rule
def object_value(state, seat, effect, k, hand_max, far, steps_left, enemy_carrier_inside, open_now):
    """How much a plunderer gains by playing an Object card now, before ``hold``; ``far`` is
    its distance to its target.  Tumult and Greedy Fingers bring cards: worth a card while the
    hand is at most half the rules' ``turn.hand_max``."""
    coins = state[S.P_COINS + seat]
    if effect == S.SPARK:
        return 1.5 if steps_left > 0 and far > steps_left else -1.0
    if effect == S.TUMULT or effect == S.GREEDY:
        return 1.5 if state[S.P_HAND_N + seat] <= hand_max // 2 else 0.3
    if effect == S.BLOOD_STONE:
        return 2.0 if coins <= 2 else 0.8
    if effect == S.ECLIPSE:
        return 6.0 if enemy_carrier_inside and open_now else -3.0
    if effect == S.SWORD or effect == S.GAZE:
        return -5.0
    if effect == S.SALIVA:
        return -0.8
    # POLE, CONJURE, HELM: situational, rarely worth a card
    return -0.5


@rule
def score_steps(state, rules, seat, n, k, d, d_exit, target):
    """Scores of the STEP options in the SCORES block, in tiles gained (stopping scores 0)."""
    scores = S.score_view(state)
    centre, team_mode, hand_max = rules[S.CFG_CENTRE], rules[S.CFG_TEAM_MODE], rules[S.CFG_HAND_MAX]
    n_acts, carrier, steps_left = state[S.G_ACT_N], state[S.G_EGG_CARRIER], state[S.G_STEPS_LEFT]
    cur = state[S.F_POS + seat]
    open_now = any_open(state)
    enemy_carrier_inside = (
        carrier >= 0
        and not is_friend(state, team_mode, seat, carrier)
        and state[S.F_POS + carrier] <= centre
    )
    for i in range(n):
        act, a, b = state[S.OPT_ACT + i], state[S.OPT_A + i], state[S.OPT_B + i]
        score = NEVER
        if act == S.ACT_STOP:
            # standing on a Temple tile since the turn began: step off and back on to flip a card
            score = (
                -2.0
                if target == board.TEMPLES
                and d[cur] == 0
                and not activated(state, n_acts, seat, cur)
                else 0.0
            )
        elif act == S.ACT_MOVE:
            if b > centre:
                score = 100.0
            else:
                score = progress(d, cur, b)
                occ = state[S.B_OCC + b]
                if occ == S.NOBODY:
                    score += tile_pull(state, seat, b, target, k, hand_max, n_acts)
                elif not core.friends(state, seat, occ, team_mode):
                    score += fight_score(state, seat, occ, k, carrier)
        elif act == S.ACT_PASS or act == S.ACT_THROW:
            if is_friend(state, team_mode, seat, a):
                score = float(d_exit[cur] - d_exit[state[S.F_POS + a]]) - 1.0
        elif act == S.ACT_TAKE:
            score = float(d_exit[state[S.F_POS + a]] - d_exit[cur]) - 1.0
        elif act == S.ACT_PLAY:
            effect = S.card_effect(rules, state[S.hand_slot(seat, a)])
            score = (
                object_value(
                    state,
                    seat,
                    effect,
                    k,
                    hand_max,
                    d[cur],
                    steps_left,
                    enemy_carrier_inside,
                    open_now,
                )
                - k[HOLD]
                - 1.5 * b
            )
        scores[i] = score


@rule
def swarm_target(state, rules, seat):
    """Spawns chase an enemy carrier, else crowd the loose Egg (which they may not touch)."""
    carrier = state[S.G_EGG_CARRIER]
    if carrier >= 0 and not friendly(state, rules, seat, carrier):
        return state[S.F_POS + carrier]
    if carrier >= 0:
        return exit_target(state)
    return state[S.G_EGG_POS]


@rule
def score_swarm_steps(state, rules, n, k, d):
    """Scores of the SWARM_STEP options in the SCORES block: tiles gained, attacks on the carrier
    above all, Object tiles on the way; a sacrifice (an Invocation tile where the Spawn stood)
    is worth the ``sacrifice`` knob, in tiles (below 0: only when nothing else is possible)."""
    scores, team_mode = S.score_view(state), rules[S.CFG_TEAM_MODE]
    n_acts, carrier = state[S.G_ACT_N], state[S.G_EGG_CARRIER]
    for i in range(n):
        act, a, b = state[S.OPT_ACT + i], state[S.OPT_A + i], state[S.OPT_B + i]
        score = NEVER
        if act == S.ACT_STOP:
            score = 0.0
        elif act == S.ACT_MOVE:
            score = progress(d, state[S.F_POS + a], b)
            occ = state[S.B_OCC + b]
            if occ != S.NOBODY and core.friends(state, a, occ, team_mode):
                pass  # crossing an ally's tile
            elif occ != S.NOBODY:
                if occ == carrier:
                    score += 5.0
                else:
                    score += 1.0 if state[S.F_KIND + occ] == S.PLUNDERER else 0.5
            elif state[S.B_TILE + b] == S.OBJECT_TILE and not activated(state, n_acts, a, b):
                score += 0.3
        elif act == S.ACT_MEDALLION:
            score = 0.5
        elif act == S.ACT_SACRIFICE:
            score = k[SACRIFICE]
        scores[i] = score


@rule
def combat_card(state, rng, seat, n, k):
    """Reveal a card at random, weighted by the knob of its combat value."""
    total = 0.0
    for i in range(n):
        total += card_weight(state[S.OPT_B + i], k)
    if total <= 0.0:
        return 0
    x = rng_float(rng, POLICY) * total
    for i in range(n):
        x -= card_weight(state[S.OPT_B + i], k)
        if x < 0.0:
            return i
    return n - 1


@rule
def card_weight(value, k):
    if value == S.NO_CARD:
        return 0.0
    return max(0.0, k[COMBAT_NOTHING + value])


@rule
def step_scores(state, rules, seat, n, k):
    """Scores of the ``n`` STEP options in the SCORES block for a policy of knobs ``k``, toward its
    target (and, when the Egg may change hands, toward the exits)."""
    target = plunderer_target(state, rules, seat, k)
    d = board.distance_map(state, rules, target)
    d_exit = d
    for i in range(n):
        act = state[S.OPT_ACT + i]
        if act == S.ACT_PASS or act == S.ACT_TAKE or act == S.ACT_THROW:
            d_exit = board.distance_map(state, rules, exit_target(state))
            break
    score_steps(state, rules, seat, n, k, d, d_exit, target)


@rule
def policy_choice(state, rules, knobs, rng, policy_id, kind, seat, n):
    """Index of the option ``seat`` takes among the ``n`` in the state's OPTIONS block for a
    decision of ``kind``, by the code of policy ``policy_id``."""
    if n <= 1:
        return 0
    if behaviour(knobs, policy_id) == LEARNED:  # its other decisions are its rollout policy's
        policy_id = np.int64(knobs[policy_id, ROLLOUT_POLICY_KNOB])
    if behaviour(knobs, policy_id) == RANDOM or blunders(knobs, policy_id, BLUNDER, rng):
        return pick_random(n, rng)
    k = knobs[policy_id]
    if kind == S.COMBAT_CARD:
        return combat_card(state, rng, seat, n, k)
    scores = S.score_view(state)
    scores[:n] = 0.0
    if kind == S.STEP:
        step_scores(state, rules, seat, n, k)
        best = pick_best(scores, n, rng)
        if scores[best] <= 0.0 and rng_float(rng, POLICY) < RESTLESS:
            # nothing gains ground (blocked by an ally, a spawn, a wall): a random step keeps
            # the game from freezing
            moves = 0
            for i in range(n):
                if state[S.OPT_ACT + i] == S.ACT_MOVE and scores[i] > NEVER / 20:
                    moves += 1
            if moves > 0:
                m = pick_random(moves, rng)
                for i in range(n):
                    if state[S.OPT_ACT + i] == S.ACT_MOVE and scores[i] > NEVER / 20:
                        if m == 0:
                            return i
                        m -= 1
        return best
    elif kind == S.SWARM_STEP:
        score_swarm_steps(
            state, rules, n, k, board.distance_map(state, rules, swarm_target(state, rules, seat))
        )
    elif kind == S.SWARM_MODE:
        swarm = state[S.P_SWARM + seat]
        first = rules[S.CFG_PLAYERS] + swarm * rules[S.CFG_SPAWN_MAX]
        count = 0
        for f in range(first, first + rules[S.CFG_SPAWN_MAX]):
            if state[S.F_POS + f] != S.OFF:
                count += 1
        d = board.distance_map(state, rules, swarm_target(state, rules, seat))
        for i in range(n):
            if state[S.OPT_ACT + i] == S.ACT_INVOKE:
                scores[i] = (2.0 if count < 2 else 0.0) - 0.01 * min(d[state[S.OPT_B + i]], 100)
            else:
                scores[i] = 1.0
    elif kind == S.TELEPORT:
        target = plunderer_target(state, rules, seat, k)
        d = board.distance_map(state, rules, target)
        cur = state[S.F_POS + seat]
        for i in range(n):
            node = state[S.OPT_B + i]
            scores[i] = -float(min(d[cur if node < 0 else node], board.UNREACHABLE))
    elif kind == S.THROW_DEST:
        egg = (
            state[S.G_EGG_POS]
            if state[S.G_EGG_CARRIER] < 0
            else state[S.F_POS + state[S.G_EGG_CARRIER]]
        )
        d = board.distance_map(state, rules, egg if egg >= 0 else exit_target(state))
        for i in range(n):
            scores[i] = float(min(d[state[S.OPT_B + i]], 100))
    elif kind == S.EGG_DEST:
        d = board.distance_map(state, rules, board.HATCH_CELLS)
        for i in range(n):
            node = state[S.OPT_B + i]
            scores[i] = float(min(d[node], 100)) - (
                5.0 if state[S.B_OCC + node] != S.NOBODY else 0.0
            )
    elif kind == S.STONE_TARGET:
        for i in range(n):
            s = state[S.OPT_A + i]
            if s < 0:
                scores[i] = 1.0
            elif (
                friendly(state, rules, seat, s)
                and k[ESCORT] >= 0.5
                and state[S.P_COINS + s] <= 1
                and state[S.P_COINS + seat] >= 3
            ):
                scores[i] = 2.0
            else:
                scores[i] = NEVER
    elif kind == S.VICTIM:
        # Greedy Fingers: rob the opponent holding the most cards, never a teammate
        for i in range(n):
            s = state[S.OPT_A + i]
            if s < 0:
                scores[i] = 0.0
            elif friendly(state, rules, seat, s):
                scores[i] = -1.0
            else:
                scores[i] = 1.0 + state[S.P_HAND_N + s]
    # ROTATION: every choice scores 0 (the scripted policies do not plan rotations)
    return pick_best(scores, n, rng)
