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

from policies.common import RANDOM, behaviour, pick_best, pick_random
from policies.search import SEARCH_KNOBS
from simulator.core.game import Policy
from simulator.core.kernel import rule
from simulator.core.rng import POLICY, rng_float
from simulator.games.karmaggan.board import EXITS, HATCH_CELLS, TEMPLES, UNREACHABLE, distance_slot
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
    ACTS,
    ALIVE,
    B_BLOOD,
    B_OCC,
    B_TILE,
    BLOOD_STONE,
    BLOOD_TILE,
    BOARD,
    CARDS,
    CENTRE_TILE,
    CFG,
    CFG_CENTRE,
    CFG_HAND_MAX,
    CFG_PLAYERS,
    CFG_SPAWN_MAX,
    CFG_TEAM_MODE,
    COMBAT_CARD,
    DCACHE,
    ECLIPSE,
    EGG_DEST,
    F_KIND,
    F_POS,
    FIGS,
    G_ACT_N,
    G_EGG_CARRIER,
    G_EGG_POS,
    G_OPEN_HATCHES,
    G_STEPS_LEFT,
    GAME,
    GAZE,
    GREEDY,
    HANDS,
    KNOB_TABLE,
    NO_CARD,
    NOBODY,
    OBJECT_TILE,
    OFF,
    OPT_A,
    OPT_ACT,
    OPT_B,
    OPTIONS,
    P_COINS,
    P_HAND_N,
    P_STATUS,
    P_SWARM,
    P_TEAM,
    PLAYERS,
    PLUNDERER,
    RNG,
    SALIVA,
    SCORES,
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
    *SEARCH_KNOBS,
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
    ROLLOUTS,
    ROLLOUT_POLICY_KNOB,
    HORIZON,
    TOP_K,
) = range(1, 16)  # knobs table columns (column 0: the behaviour)

NEVER = -1000.0
DETOUR = 0.6  # cost of a step that does not bring the figure nearer its target
RESTLESS = 0.3  # chance that a plunderer with nothing better to do takes a random step


@rule
def any_open(W):
    return W[GAME][G_OPEN_HATCHES] > 0


@rule
def exit_target(W):
    return EXITS if any_open(W) else HATCH_CELLS


@rule
def friendly(W, seat, other):
    players = W[PLAYERS]
    return seat == other or (
        W[CFG][CFG_TEAM_MODE] == 1 and players[seat, P_TEAM] == players[other, P_TEAM]
    )


@rule
def teammates_alive(W, seat):
    players = W[PLAYERS]
    n = 0
    for s in range(players.shape[0]):
        if s != seat and players[s, P_STATUS] == ALIVE and friendly(W, seat, s):
            n += 1
    return n


@rule
def plunderer_target(W, seat, k):
    """The tile a plunderer heads for: the loose Egg; with the Egg, an open hatch, or while
    all are closed a hatch to wait at (Temple tiles when alone: only Temple cards open
    hatches); an enemy carrier; for a carrying teammate, the carrier (escort) or, hatches
    open, the exits (run ahead) and, hatches closed, the Temple tiles to open them."""
    game, figs = W[GAME], W[FIGS]
    carrier = game[G_EGG_CARRIER]
    if carrier == seat:
        if any_open(W):
            return EXITS
        return HATCH_CELLS if teammates_alive(W, seat) > 0 else TEMPLES
    if carrier < 0:
        return game[G_EGG_POS]
    if friendly(W, seat, carrier):
        if k[ESCORT] >= 0.5 or k[HUNT] >= 0.5:
            return figs[carrier, F_POS]
        return EXITS if any_open(W) else TEMPLES
    return figs[carrier, F_POS]


# The scoring helpers below take the state arrays they read, which their callers already hold,
# rather than the world W: they run for every option of every decision.


@rule
def activated(acts, n_acts, fig, node):
    for i in range(n_acts):
        if acts[i, 0] == fig and acts[i, 1] == node:
            return True
    return False


@rule
def is_friend(players, team_mode, seat, other):
    return seat == other or (team_mode == 1 and players[seat, P_TEAM] == players[other, P_TEAM])


@rule
def progress(d, cur, nxt):
    if d[cur] >= UNREACHABLE:
        return 0.1  # lost: wander until the rings turn
    gain = float(d[cur] - d[nxt])
    return gain if gain > 0 else gain - DETOUR


@rule
def tile_pull(seat, node, target, k, hand_max, board, players, acts, n_acts):
    """Pull of the tile itself: full Blood tiles, Object tiles (room in hand), Temple traps."""
    if activated(acts, n_acts, seat, node):
        return 0.0
    tile = board[node, B_TILE]
    if tile == BLOOD_TILE and board[node, B_BLOOD] > 0:
        return k[BLOOD]
    if tile == OBJECT_TILE and players[seat, P_HAND_N] < hand_max:
        return k[OBJECTS]
    if (tile == TEMPLE_TILE or tile == CENTRE_TILE) and node != target:
        return 0.5 if target == TEMPLES else -k[TEMPLE]
    return 0.0


@rule
def fight_score(seat, occ, k, carrier, figs, players):
    """Stepping onto an occupied tile means combat: worth it against the carrier, or against a
    plunderer with ``fight`` fewer coins; spawns are worth fighting with coins to spare."""
    mine = players[seat, P_COINS]
    if occ == carrier:
        return 3.0 if mine >= 2 else 0.5
    if figs[occ, F_KIND] == PLUNDERER:
        return 0.5 if mine - players[occ, P_COINS] >= k[FIGHT] else NEVER / 10
    return 0.3 if mine >= 3 else -3.0


@rule
def object_value(seat, effect, k, far, steps_left, enemy_carrier_inside, open_now, players):
    """How much a plunderer gains by playing an Object card now, before ``hold``; ``far`` is
    its distance to its target."""
    coins = players[seat, P_COINS]
    if effect == SPARK:
        return 1.5 if steps_left > 0 and far > steps_left else -1.0
    if effect == TUMULT or effect == GREEDY:
        return 1.5 if players[seat, P_HAND_N] <= 4 else 0.3
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
def score_steps(W, seat, n, k, d, d_exit, target):
    """Scores of the STEP options in ``W[SCORES]``, in tiles gained (stopping scores 0)."""
    cfg, game, board, figs, players = W[CFG], W[GAME], W[BOARD], W[FIGS], W[PLAYERS]
    acts, cards, hands, options, scores = W[ACTS], W[CARDS], W[HANDS], W[OPTIONS], W[SCORES]
    centre, team_mode, hand_max = cfg[CFG_CENTRE], cfg[CFG_TEAM_MODE], cfg[CFG_HAND_MAX]
    n_acts, carrier, steps_left = game[G_ACT_N], game[G_EGG_CARRIER], game[G_STEPS_LEFT]
    cur = figs[seat, F_POS]
    open_now = any_open(W)
    enemy_carrier_inside = (
        carrier >= 0
        and not is_friend(players, team_mode, seat, carrier)
        and figs[carrier, F_POS] <= centre
    )
    for i in range(n):
        act, a, b = options[i, OPT_ACT], options[i, OPT_A], options[i, OPT_B]
        score = NEVER
        if act == ACT_STOP:
            # standing on a Temple tile since the turn began: step off and back on to flip a card
            score = (
                -2.0
                if target == TEMPLES and d[cur] == 0 and not activated(acts, n_acts, seat, cur)
                else 0.0
            )
        elif act == ACT_MOVE:
            if b > centre:
                score = 100.0
            else:
                score = progress(d, cur, b)
                occ = board[b, B_OCC]
                if occ == NOBODY:
                    score += tile_pull(seat, b, target, k, hand_max, board, players, acts, n_acts)
                elif not friends(seat, occ, figs, players, team_mode):
                    score += fight_score(seat, occ, k, carrier, figs, players)
        elif act == ACT_PASS or act == ACT_THROW:
            if is_friend(players, team_mode, seat, a):
                score = float(d_exit[cur] - d_exit[figs[a, F_POS]]) - 1.0
        elif act == ACT_TAKE:
            score = float(d_exit[figs[a, F_POS]] - d_exit[cur]) - 1.0
        elif act == ACT_PLAY:
            effect = cards[hands[seat, a], 0]
            score = (
                object_value(
                    seat, effect, k, d[cur], steps_left, enemy_carrier_inside, open_now, players
                )
                - k[HOLD]
                - 1.5 * b
            )
        scores[i] = score


@rule
def swarm_target(W, seat):
    """Spawns chase an enemy carrier, else crowd the loose Egg (which they may not touch)."""
    game, figs = W[GAME], W[FIGS]
    carrier = game[G_EGG_CARRIER]
    if carrier >= 0 and not friendly(W, seat, carrier):
        return figs[carrier, F_POS]
    if carrier >= 0:
        return exit_target(W)
    return game[G_EGG_POS]


@rule
def score_swarm_steps(W, n, d):
    """Scores of the SWARM_STEP options in ``W[SCORES]``: tiles gained, attacks on the carrier
    above all, Object tiles on the way; sacrifices only when nothing else is possible."""
    figs, board, game, acts, options, scores = (
        W[FIGS],
        W[BOARD],
        W[GAME],
        W[ACTS],
        W[OPTIONS],
        W[SCORES],
    )
    players, team_mode = W[PLAYERS], W[CFG][CFG_TEAM_MODE]
    n_acts, carrier = game[G_ACT_N], game[G_EGG_CARRIER]
    for i in range(n):
        act, a, b = options[i, OPT_ACT], options[i, OPT_A], options[i, OPT_B]
        score = NEVER
        if act == ACT_STOP:
            score = 0.0
        elif act == ACT_MOVE:
            score = progress(d, figs[a, F_POS], b)
            occ = board[b, B_OCC]
            if occ != NOBODY and friends(a, occ, figs, players, team_mode):
                pass  # crossing an ally's tile
            elif occ != NOBODY:
                if occ == carrier:
                    score += 5.0
                else:
                    score += 1.0 if figs[occ, F_KIND] == PLUNDERER else 0.5
            elif board[b, B_TILE] == OBJECT_TILE and not activated(acts, n_acts, a, b):
                score += 0.3
        elif act == ACT_MEDALLION:
            score = 0.5
        elif act == ACT_SACRIFICE:
            score = -2.0
        scores[i] = score


@rule
def combat_card(W, seat, n, k):
    """Reveal a card at random, weighted by the knob of its combat value."""
    options = W[OPTIONS]
    total = 0.0
    for i in range(n):
        total += card_weight(options[i, OPT_B], k)
    if total <= 0.0:
        return 0
    x = rng_float(W[RNG], POLICY) * total
    for i in range(n):
        x -= card_weight(options[i, OPT_B], k)
        if x < 0.0:
            return i
    return n - 1


@rule
def card_weight(value, k):
    if value == NO_CARD:
        return 0.0
    return max(0.0, k[COMBAT_NOTHING + value])


@rule
def step_scores(W, seat, n, k):
    """Scores of the ``n`` STEP options in ``W[SCORES]`` for a policy of knobs ``k``, toward its
    target (and, when the Egg may change hands, toward the exits)."""
    options = W[OPTIONS]
    target = plunderer_target(W, seat, k)
    d = W[DCACHE][distance_slot(W, target)]
    d_exit = d
    for i in range(n):
        act = options[i, OPT_ACT]
        if act == ACT_PASS or act == ACT_TAKE or act == ACT_THROW:
            d_exit = W[DCACHE][distance_slot(W, exit_target(W))]
            break
    score_steps(W, seat, n, k, d, d_exit, target)


@rule
def policy_choice(W, policy_id, kind, seat, n):
    """Index into ``W[OPTIONS][:n]`` chosen for ``seat``'s decision ``kind`` by the code of
    policy ``policy_id``."""
    rng = W[RNG]
    if n <= 1:
        return 0
    if behaviour(W[KNOB_TABLE], policy_id) == RANDOM:
        return pick_random(n, rng)
    k = W[KNOB_TABLE][policy_id]
    if kind == COMBAT_CARD:
        return combat_card(W, seat, n, k)
    options, figs, players, game = W[OPTIONS], W[FIGS], W[PLAYERS], W[GAME]
    scores = W[SCORES]
    scores[:n] = 0.0
    if kind == STEP:
        step_scores(W, seat, n, k)
        best = pick_best(scores, n, rng)
        if scores[best] <= 0.0 and rng_float(rng, POLICY) < RESTLESS:
            # nothing gains ground (blocked by an ally, a spawn, a wall): a random step keeps
            # the game from freezing
            moves = 0
            for i in range(n):
                if options[i, OPT_ACT] == ACT_MOVE and scores[i] > NEVER / 20:
                    moves += 1
            if moves > 0:
                m = pick_random(moves, rng)
                for i in range(n):
                    if options[i, OPT_ACT] == ACT_MOVE and scores[i] > NEVER / 20:
                        if m == 0:
                            return i
                        m -= 1
        return best
    elif kind == SWARM_STEP:
        score_swarm_steps(W, n, W[DCACHE][distance_slot(W, swarm_target(W, seat))])
    elif kind == SWARM_MODE:
        swarm = players[seat, P_SWARM]
        first = W[CFG][CFG_PLAYERS] + swarm * W[CFG][CFG_SPAWN_MAX]
        count = 0
        for f in range(first, first + W[CFG][CFG_SPAWN_MAX]):
            if figs[f, F_POS] != OFF:
                count += 1
        d = W[DCACHE][distance_slot(W, swarm_target(W, seat))]
        for i in range(n):
            if options[i, OPT_ACT] == ACT_INVOKE:
                scores[i] = (2.0 if count < 2 else 0.0) - 0.01 * min(d[options[i, OPT_B]], 100)
            else:
                scores[i] = 1.0
    elif kind == TELEPORT:
        target = plunderer_target(W, seat, k)
        d = W[DCACHE][distance_slot(W, target)]
        cur = figs[seat, F_POS]
        for i in range(n):
            node = options[i, OPT_B]
            scores[i] = -float(min(d[cur if node < 0 else node], UNREACHABLE))
    elif kind == THROW_DEST:
        egg = game[G_EGG_POS] if game[G_EGG_CARRIER] < 0 else figs[game[G_EGG_CARRIER], F_POS]
        d = W[DCACHE][distance_slot(W, egg if egg >= 0 else exit_target(W))]
        for i in range(n):
            scores[i] = float(min(d[options[i, OPT_B]], 100))
    elif kind == EGG_DEST:
        d = W[DCACHE][distance_slot(W, HATCH_CELLS)]
        board = W[BOARD]
        for i in range(n):
            node = options[i, OPT_B]
            scores[i] = float(min(d[node], 100)) - (5.0 if board[node, B_OCC] != NOBODY else 0.0)
    elif kind == STONE_TARGET:
        for i in range(n):
            s = options[i, OPT_A]
            if s < 0:
                scores[i] = 1.0
            elif (
                friendly(W, seat, s)
                and k[ESCORT] >= 0.5
                and players[s, P_COINS] <= 1
                and players[seat, P_COINS] >= 3
            ):
                scores[i] = 2.0
            else:
                scores[i] = NEVER
    elif kind == VICTIM:
        # Greedy Fingers: rob the opponent holding the most cards, never a teammate
        for i in range(n):
            s = options[i, OPT_A]
            if s < 0:
                scores[i] = 0.0
            elif friendly(W, seat, s):
                scores[i] = -1.0
            else:
                scores[i] = 1.0 + players[s, P_HAND_N]
    # ROTATION: every choice scores 0 (the scripted policies do not plan rotations)
    return pick_best(scores, n, rng)
