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
its plunderer's steps by simulation; its other decisions are its ``rollout_policy``'s.
"""

from policies.common import HANDICAP_KNOBS, RANDOM, behaviour, blunders, pick_best, pick_random
from policies.search import SEARCH_KNOBS
from simulator.core.game import Policy
from simulator.core.kernel import rule
from simulator.core.rng import POLICY, rng_float
from simulator.games.karmaggan.board import EXITS, HATCH_CELLS, TEMPLES, UNREACHABLE, distance_map
from simulator.games.karmaggan.core import friends
from simulator.games.karmaggan.state import (
    ACT_INVOKE,
    ACT_MEDALLION,
    ACT_MOVE,
    ACT_PASS,
    ACT_PLAY,
    ACT_SACRIFICE,
    ACT_STOP,
    ACT_TAKE,
    ACT_THROW,
    ACTED_FIG,
    ACTED_NODE,
    ALIVE,
    B_BLOOD,
    B_OCC,
    B_TILE,
    BLOOD_STONE,
    BLOOD_TILE,
    CENTRE_TILE,
    CFG_CENTRE,
    CFG_HAND_MAX,
    CFG_PLAYERS,
    CFG_SPAWN_MAX,
    CFG_TEAM_MODE,
    COMBAT_CARD,
    ECLIPSE,
    EGG_DEST,
    F_KIND,
    F_POS,
    G_ACT_N,
    G_EGG_CARRIER,
    G_EGG_POS,
    G_OPEN_HATCHES,
    G_STEPS_LEFT,
    GAZE,
    GREEDY,
    NO_CARD,
    NOBODY,
    OBJECT_TILE,
    OFF,
    OPT_A,
    OPT_ACT,
    OPT_B,
    P_COINS,
    P_HAND_N,
    P_STATUS,
    P_SWARM,
    P_TEAM,
    PLUNDERER,
    SALIVA,
    SPARK,
    STEP,
    STONE_TARGET,
    SWARM_MODE,
    SWARM_STEP,
    SWORD,
    TELEPORT,
    TEMPLE_TILE,
    THROW_DEST,
    TUMULT,
    VICTIM,
    card_effect,
    hand_slot,
    score_view,
)

RUSHER, HUNTER, SUPPORTER, SEARCH = range(1, 5)
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
) = range(1, 18)  # knobs table columns (column 0: the behaviour)

NEVER = -1000.0
DETOUR = 0.6  # cost of a step that does not bring the figure nearer its target
RESTLESS = 0.3  # chance that a plunderer with nothing better to do takes a random step


@rule
def any_open(state):
    return state[G_OPEN_HATCHES] > 0


@rule
def exit_target(state):
    return EXITS if any_open(state) else HATCH_CELLS


@rule
def friendly(state, rules, seat, other):
    return seat == other or (
        rules[CFG_TEAM_MODE] == 1 and state[P_TEAM + seat] == state[P_TEAM + other]
    )


@rule
def teammates_alive(state, rules, seat):
    n = 0
    for s in range(rules[CFG_PLAYERS]):
        if s != seat and state[P_STATUS + s] == ALIVE and friendly(state, rules, seat, s):
            n += 1
    return n


@rule
def plunderer_target(state, rules, seat, k):
    """The tile a plunderer heads for: the loose Egg; with the Egg, an open hatch, or while
    all are closed a hatch to wait at (Temple tiles when alone: only Temple cards open
    hatches); an enemy carrier; for a carrying teammate, the carrier (escort) or, hatches
    open, the exits (run ahead) and, hatches closed, the Temple tiles to open them."""
    carrier = state[G_EGG_CARRIER]
    if carrier == seat:
        if any_open(state):
            return EXITS
        return HATCH_CELLS if teammates_alive(state, rules, seat) > 0 else TEMPLES
    if carrier < 0:
        return state[G_EGG_POS]
    if friendly(state, rules, seat, carrier):
        if k[ESCORT] >= 0.5 or k[HUNT] >= 0.5:
            return state[F_POS + carrier]
        return EXITS if any_open(state) else TEMPLES
    return state[F_POS + carrier]


# The scoring helpers below take the state and the rules numbers they read, which their callers
# already hold, rather than the rules array: they run for every option of every decision.


@rule
def activated(state, n_acts, fig, node):
    for i in range(n_acts):
        if state[ACTED_FIG + i] == fig and state[ACTED_NODE + i] == node:
            return True
    return False


@rule
def is_friend(state, team_mode, seat, other):
    return seat == other or (team_mode == 1 and state[P_TEAM + seat] == state[P_TEAM + other])


@rule
def progress(d, cur, nxt):
    if d[cur] >= UNREACHABLE:
        return 0.1  # lost: wander until the rings turn
    gain = float(d[cur] - d[nxt])
    return gain if gain > 0 else gain - DETOUR


@rule
def tile_pull(state, seat, node, target, k, hand_max, n_acts):
    """Pull of the tile itself: full Blood tiles, Object tiles (room in hand), Temple traps."""
    if activated(state, n_acts, seat, node):
        return 0.0
    tile = state[B_TILE + node]
    if tile == BLOOD_TILE and state[B_BLOOD + node] > 0:
        return k[BLOOD]
    if tile == OBJECT_TILE and state[P_HAND_N + seat] < hand_max:
        return k[OBJECTS]
    if (tile == TEMPLE_TILE or tile == CENTRE_TILE) and node != target:
        return 0.5 if target == TEMPLES else -k[TEMPLE]
    return 0.0


@rule
def fight_score(state, seat, occ, k, carrier):
    """Stepping onto an occupied tile means combat: worth it against the carrier, or against a
    plunderer with ``fight`` fewer coins; spawns are worth fighting with coins to spare."""
    mine = state[P_COINS + seat]
    if occ == carrier:
        return 3.0 if mine >= 2 else 0.5
    if state[F_KIND + occ] == PLUNDERER:
        return 0.5 if mine - state[P_COINS + occ] >= k[FIGHT] else NEVER / 10
    return 0.3 if mine >= 3 else -3.0


@rule
def object_value(state, seat, effect, k, hand_max, far, steps_left, enemy_carrier_inside, open_now):
    """How much a plunderer gains by playing an Object card now, before ``hold``; ``far`` is
    its distance to its target.  Tumult and Greedy Fingers bring cards: worth a card while the
    hand is at most half the rules' ``turn.hand_max``."""
    coins = state[P_COINS + seat]
    if effect == SPARK:
        return 1.5 if steps_left > 0 and far > steps_left else -1.0
    if effect == TUMULT or effect == GREEDY:
        return 1.5 if state[P_HAND_N + seat] <= hand_max // 2 else 0.3
    if effect == BLOOD_STONE:
        return 2.0 if coins <= 2 else 0.8
    if effect == ECLIPSE:
        return 6.0 if enemy_carrier_inside and open_now else -3.0
    if effect == SWORD or effect == GAZE:
        return -5.0
    if effect == SALIVA:
        return -0.8
    # POLE, CONJURE, HELM: situational, rarely worth a card
    return -0.5


@rule
def score_steps(state, rules, seat, n, k, d, d_exit, target):
    """Scores of the STEP options in the SCORES block, in tiles gained (stopping scores 0)."""
    scores = score_view(state)
    centre, team_mode, hand_max = rules[CFG_CENTRE], rules[CFG_TEAM_MODE], rules[CFG_HAND_MAX]
    n_acts, carrier, steps_left = state[G_ACT_N], state[G_EGG_CARRIER], state[G_STEPS_LEFT]
    cur = state[F_POS + seat]
    open_now = any_open(state)
    enemy_carrier_inside = (
        carrier >= 0
        and not is_friend(state, team_mode, seat, carrier)
        and state[F_POS + carrier] <= centre
    )
    for i in range(n):
        act, a, b = state[OPT_ACT + i], state[OPT_A + i], state[OPT_B + i]
        score = NEVER
        if act == ACT_STOP:
            # standing on a Temple tile since the turn began: step off and back on to flip a card
            score = (
                -2.0
                if target == TEMPLES and d[cur] == 0 and not activated(state, n_acts, seat, cur)
                else 0.0
            )
        elif act == ACT_MOVE:
            if b > centre:
                score = 100.0
            else:
                score = progress(d, cur, b)
                occ = state[B_OCC + b]
                if occ == NOBODY:
                    score += tile_pull(state, seat, b, target, k, hand_max, n_acts)
                elif not friends(state, seat, occ, team_mode):
                    score += fight_score(state, seat, occ, k, carrier)
        elif act == ACT_PASS or act == ACT_THROW:
            if is_friend(state, team_mode, seat, a):
                score = float(d_exit[cur] - d_exit[state[F_POS + a]]) - 1.0
        elif act == ACT_TAKE:
            score = float(d_exit[state[F_POS + a]] - d_exit[cur]) - 1.0
        elif act == ACT_PLAY:
            effect = card_effect(rules, state[hand_slot(seat, a)])
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
    carrier = state[G_EGG_CARRIER]
    if carrier >= 0 and not friendly(state, rules, seat, carrier):
        return state[F_POS + carrier]
    if carrier >= 0:
        return exit_target(state)
    return state[G_EGG_POS]


@rule
def score_swarm_steps(state, rules, n, k, d):
    """Scores of the SWARM_STEP options in the SCORES block: tiles gained, attacks on the carrier
    above all, Object tiles on the way; a sacrifice (an Invocation tile where the Spawn stood)
    is worth the ``sacrifice`` knob, in tiles (below 0: only when nothing else is possible)."""
    scores, team_mode = score_view(state), rules[CFG_TEAM_MODE]
    n_acts, carrier = state[G_ACT_N], state[G_EGG_CARRIER]
    for i in range(n):
        act, a, b = state[OPT_ACT + i], state[OPT_A + i], state[OPT_B + i]
        score = NEVER
        if act == ACT_STOP:
            score = 0.0
        elif act == ACT_MOVE:
            score = progress(d, state[F_POS + a], b)
            occ = state[B_OCC + b]
            if occ != NOBODY and friends(state, a, occ, team_mode):
                pass  # crossing an ally's tile
            elif occ != NOBODY:
                if occ == carrier:
                    score += 5.0
                else:
                    score += 1.0 if state[F_KIND + occ] == PLUNDERER else 0.5
            elif state[B_TILE + b] == OBJECT_TILE and not activated(state, n_acts, a, b):
                score += 0.3
        elif act == ACT_MEDALLION:
            score = 0.5
        elif act == ACT_SACRIFICE:
            score = k[SACRIFICE]
        scores[i] = score


@rule
def combat_card(state, rng, seat, n, k):
    """Reveal a card at random, weighted by the knob of its combat value."""
    total = 0.0
    for i in range(n):
        total += card_weight(state[OPT_B + i], k)
    if total <= 0.0:
        return 0
    x = rng_float(rng, POLICY) * total
    for i in range(n):
        x -= card_weight(state[OPT_B + i], k)
        if x < 0.0:
            return i
    return n - 1


@rule
def card_weight(value, k):
    if value == NO_CARD:
        return 0.0
    return max(0.0, k[COMBAT_NOTHING + value])


@rule
def step_scores(state, rules, seat, n, k):
    """Scores of the ``n`` STEP options in the SCORES block for a policy of knobs ``k``, toward its
    target (and, when the Egg may change hands, toward the exits)."""
    target = plunderer_target(state, rules, seat, k)
    d = distance_map(state, rules, target)
    d_exit = d
    for i in range(n):
        act = state[OPT_ACT + i]
        if act == ACT_PASS or act == ACT_TAKE or act == ACT_THROW:
            d_exit = distance_map(state, rules, exit_target(state))
            break
    score_steps(state, rules, seat, n, k, d, d_exit, target)


@rule
def policy_choice(state, rules, knobs, rng, policy_id, kind, seat, n):
    """Index of the option ``seat`` takes among the ``n`` in the state's OPTIONS block for a
    decision of ``kind``, by the code of policy ``policy_id``."""
    if n <= 1:
        return 0
    if behaviour(knobs, policy_id) == RANDOM or blunders(knobs, policy_id, BLUNDER, rng):
        return pick_random(n, rng)
    k = knobs[policy_id]
    if kind == COMBAT_CARD:
        return combat_card(state, rng, seat, n, k)
    scores = score_view(state)
    scores[:n] = 0.0
    if kind == STEP:
        step_scores(state, rules, seat, n, k)
        best = pick_best(scores, n, rng)
        if scores[best] <= 0.0 and rng_float(rng, POLICY) < RESTLESS:
            # nothing gains ground (blocked by an ally, a spawn, a wall): a random step keeps
            # the game from freezing
            moves = 0
            for i in range(n):
                if state[OPT_ACT + i] == ACT_MOVE and scores[i] > NEVER / 20:
                    moves += 1
            if moves > 0:
                m = pick_random(moves, rng)
                for i in range(n):
                    if state[OPT_ACT + i] == ACT_MOVE and scores[i] > NEVER / 20:
                        if m == 0:
                            return i
                        m -= 1
        return best
    elif kind == SWARM_STEP:
        score_swarm_steps(
            state, rules, n, k, distance_map(state, rules, swarm_target(state, rules, seat))
        )
    elif kind == SWARM_MODE:
        swarm = state[P_SWARM + seat]
        first = rules[CFG_PLAYERS] + swarm * rules[CFG_SPAWN_MAX]
        count = 0
        for f in range(first, first + rules[CFG_SPAWN_MAX]):
            if state[F_POS + f] != OFF:
                count += 1
        d = distance_map(state, rules, swarm_target(state, rules, seat))
        for i in range(n):
            if state[OPT_ACT + i] == ACT_INVOKE:
                scores[i] = (2.0 if count < 2 else 0.0) - 0.01 * min(d[state[OPT_B + i]], 100)
            else:
                scores[i] = 1.0
    elif kind == TELEPORT:
        target = plunderer_target(state, rules, seat, k)
        d = distance_map(state, rules, target)
        cur = state[F_POS + seat]
        for i in range(n):
            node = state[OPT_B + i]
            scores[i] = -float(min(d[cur if node < 0 else node], UNREACHABLE))
    elif kind == THROW_DEST:
        egg = state[G_EGG_POS] if state[G_EGG_CARRIER] < 0 else state[F_POS + state[G_EGG_CARRIER]]
        d = distance_map(state, rules, egg if egg >= 0 else exit_target(state))
        for i in range(n):
            scores[i] = float(min(d[state[OPT_B + i]], 100))
    elif kind == EGG_DEST:
        d = distance_map(state, rules, HATCH_CELLS)
        for i in range(n):
            node = state[OPT_B + i]
            scores[i] = float(min(d[node], 100)) - (5.0 if state[B_OCC + node] != NOBODY else 0.0)
    elif kind == STONE_TARGET:
        for i in range(n):
            s = state[OPT_A + i]
            if s < 0:
                scores[i] = 1.0
            elif (
                friendly(state, rules, seat, s)
                and k[ESCORT] >= 0.5
                and state[P_COINS + s] <= 1
                and state[P_COINS + seat] >= 3
            ):
                scores[i] = 2.0
            else:
                scores[i] = NEVER
    elif kind == VICTIM:
        # Greedy Fingers: rob the opponent holding the most cards, never a teammate
        for i in range(n):
            s = state[OPT_A + i]
            if s < 0:
                scores[i] = 0.0
            elif friendly(state, rules, seat, s):
                scores[i] = -1.0
            else:
                scores[i] = 1.0 + state[P_HAND_N + s]
    # ROTATION: every choice scores 0 (the scripted policies do not plan rotations)
    return pick_best(scores, n, rng)
