"""Karmaggän engine: numba kernels over plain int64 arrays (rulebook: shared/rules/karmaggan.md).

State pattern (shared by every balsim engine, see the Ekonos engine): a game's state is a
handful of int64 arrays whose slots have names (``state.py``).  Karmaggän has more of them, so
they travel together in one tuple, the world ``W`` (built by :func:`new_world`):

* ``W[CFG]``      int64[N_CFG + n_blood]        rules numbers for this variant (CFG_*)
* ``W[CELLS]``    int64[n_nodes, N_CELL]         static board: ring/row/column, walls, tiles
* ``W[ROLLERS]``  int64[n_rollers]               outer-ring boundaries b (between b and b+1)
* ``W[CARDS]``    int64[n_objects, 2]            object card id -> (effect, combat value)
* ``W[TCARDS]``   int64[n_temple]                the Temple deck's cards (T_*)
* ``W[BEATS]``    int64[4, 4]                    1 where combat value i beats value j
* ``W[KNOB_TABLE]``    float64[n_policies, n_knobs]   policy knobs; ``W[POLICY_IDS]`` int8[n_players]
* ``W[RNG]``      uint64[N_STREAMS]              the game's random streams (simulator.rng)
* ``W[GAME]``     int64[N_GAME]                  scalars: round, Egg, bank, decks, ring offsets
* ``W[BOARD]``    int64[n_nodes, N_BOARD]        tile type, Blood value, occupant, hatch open
* ``W[FIGS]``     int64[n_figs, N_FIG]           plunderers then spawns: position, kind, owner
* ``W[PLAYERS]``  int64[n_players, N_PLAYER]     coins, status, counters for the output
* ``W[HANDS]``    int64[n_players, hand_max]     object card ids, -1 empty
* ``W[DECKS]``    int64[3, max_deck]             Temple deck, Object deck, Object discards
* ``W[ACTS]``     int64[MAX_ACTS, 2]             (figure, node) activated this turn
* ``W[OPTIONS]``  int64[MAX_OPTIONS, OPT_WIDTH]  the legal options of the current decision
* ``W[DCACHE]``   int64[DCACHE_SLOTS, n_nodes]   cached distance maps; ``W[QUEUE]`` BFS queue
* ``W[TRACE]``    int64[max_events, TRACE_WIDTH] event log for replay (0 rows in bulk runs)
* ``W[TIMELINE]`` int16[round_cap, n_players]    blood coins of each seat after each round

Decisions: the engine lists the legal options in ``W[OPTIONS]`` and asks the deciding seat's
policy (``policies.karmaggan.choose``) for an index; an illegal move cannot be expressed.

Blood coins are conserved: every coin is in the bank or with a player (``G_BANK`` +
Σ ``P_COINS`` = ``setup.bank_coins``); traps, the Piston, Rollers and Spawns return coins to
the bank, combat between plunderers moves them between players.
"""

import numpy as np
from numba import njit

from policies.karmaggan import choose
from simulator.games.karmaggan.board import (
    adjacency, cell_at, distance_map, is_jungle, is_ring_cell, outward, phys_col)
from simulator.games.karmaggan.state import *  # noqa: F401,F403  (the named slots)
from simulator.rng import DICE, SETUP, N_STREAMS, rng_below, rng_new, roll_die, shuffle

MAX_STEPS_PER_TURN = 200  # safety bound on decisions in one turn (a policy may loop)


# --------------------------------------------------------------------------------------------
# world, trace, small helpers

@njit(cache=True)
def new_world(cfg, cells, rollers, cards, tcards, beats, knobs, policy_ids, seed, trace, timeline):
    """Fresh arrays for one game (not yet set up)."""
    n_players = cfg[CFG_PLAYERS]
    n_nodes = cfg[CFG_NODES]
    n_figs = n_players + N_SWARMS * cfg[CFG_SPAWN_MAX]
    deck_len = max(tcards.shape[0], cards.shape[0])
    game = np.zeros(N_GAME, dtype=np.int64)
    board = np.zeros((n_nodes, N_BOARD), dtype=np.int64)
    figs = np.full((n_figs, N_FIG), OFF, dtype=np.int64)
    players = np.zeros((n_players, N_PLAYER), dtype=np.int64)
    hands = np.full((n_players, cfg[CFG_HAND_MAX]), -1, dtype=np.int64)
    decks = np.full((3, deck_len), -1, dtype=np.int64)
    acts = np.zeros((MAX_ACTS, 2), dtype=np.int64)
    options = np.zeros((MAX_OPTIONS, OPT_WIDTH), dtype=np.int64)
    dcache = np.zeros((DCACHE_SLOTS, n_nodes), dtype=np.int64)
    queue = np.zeros(n_nodes, dtype=np.int64)
    rng = rng_new(seed)
    adj = np.zeros((n_nodes, cfg[CFG_COLS] + 5), dtype=np.int64)
    scores = np.zeros(MAX_OPTIONS, dtype=np.float64)
    return (cfg, cells, rollers, cards, tcards, beats, knobs, policy_ids, rng, game, board, figs,
            players, hands, decks, acts, options, dcache, queue, trace, timeline, adj, scores)


@njit(cache=True)
def record(W, event, seat, a, b, c, d):
    """Append one trace row when tracing."""
    trace = W[TRACE]
    if trace.shape[0] == 0:
        return
    game = W[GAME]
    n = game[G_NEV]
    if n < trace.shape[0]:
        row = trace[n]
        row[0], row[1], row[2], row[3], row[4], row[5], row[6] = event, game[G_ROUND], seat, a, b, c, d
        game[G_NEV] = n + 1


@njit(cache=True)
def egg_node(W):
    game = W[GAME]
    carrier = game[G_EGG_CARRIER]
    return W[FIGS][carrier, F_POS] if carrier >= 0 else game[G_EGG_POS]


@njit(cache=True)
def egg_moved(W):
    """The Rollers: they are placed when the Egg leaves the Central Tile for the first time."""
    game = W[GAME]
    if game[G_EGG_LEFT_ROUND] < 0 and egg_node(W) != W[CFG][CFG_CENTRE]:
        game[G_EGG_LEFT_ROUND] = game[G_ROUND]
        game[G_ROLLERS_ON] = 1


@njit(cache=True)
def place_figure(W, fig, node):
    """Move a figure to ``node`` (or OFF), keeping occupancy and the carried Egg in step."""
    figs, board = W[FIGS], W[BOARD]
    old = figs[fig, F_POS]
    if old >= 0 and board[old, B_OCC] == fig:
        board[old, B_OCC] = NOBODY
    figs[fig, F_POS] = node
    if node >= 0:
        board[node, B_OCC] = fig
    if W[GAME][G_EGG_CARRIER] == fig:
        egg_moved(W)


@njit(cache=True)
def controller(W, fig):
    """Seat acting for a figure: a plunderer's own seat, a spawn's seat whose turn it is when
    its swarm acts, else (Controlling the Swarm: the swarm's players decide who defends) the
    dead seat of that swarm with the most cards (ASSUMED)."""
    figs, players = W[FIGS], W[PLAYERS]
    if figs[fig, F_KIND] == PLUNDERER:
        return fig
    swarm = figs[fig, F_OWNER]
    seat = W[GAME][G_SEAT]
    if players[seat, P_STATUS] == DEAD and players[seat, P_SWARM] == swarm:
        return seat
    best, best_cards = -1, -1
    for s in range(players.shape[0]):
        if players[s, P_STATUS] == DEAD and players[s, P_SWARM] == swarm and players[s, P_HAND_N] > best_cards:
            best, best_cards = s, players[s, P_HAND_N]
    return best


# --------------------------------------------------------------------------------------------
# coins, cards

@njit(cache=True)
def gain_coins(W, seat, amount, column):
    """Take up to ``amount`` coins from the bank (Components: 60 Blood Coins)."""
    game, players = W[GAME], W[PLAYERS]
    amount = min(amount, game[G_BANK])
    game[G_BANK] -= amount
    players[seat, P_COINS] += amount
    players[seat, column] += amount
    return amount


@njit(cache=True)
def lose_coins(W, seat, amount, source):
    """Pay ``amount`` blood coins (at most all of them) to the bank; Dead or Alive: a
    plunderer with no coins left dies."""
    game, players = W[GAME], W[PLAYERS]
    if players[seat, P_STATUS] != ALIVE or amount <= 0:
        return 0
    amount = min(amount, players[seat, P_COINS])
    before = players[seat, P_COINS]
    players[seat, P_COINS] -= amount
    game[G_BANK] += amount
    players[seat, P_LOST_ARROWS + source] += amount
    record(W, EV_DAMAGE, seat, source, amount, before, players[seat, P_COINS])
    if players[seat, P_COINS] == 0:
        plunderer_dies(W, seat)
    return amount


@njit(cache=True)
def reshuffle_objects(W):
    game, decks = W[GAME], W[DECKS]
    n = game[G_ODISC_N]
    for i in range(n):
        decks[D_OBJECTS, game[G_ODECK_N] + i] = decks[D_DISCARD, i]
        decks[D_DISCARD, i] = -1
    game[G_ODECK_N] += n
    game[G_ODISC_N] = 0
    shuffle(W[RNG], SETUP, decks[D_OBJECTS, :game[G_ODECK_N]])


@njit(cache=True)
def add_to_hand(W, seat, card):
    hands, players = W[HANDS], W[PLAYERS]
    for slot in range(hands.shape[1]):
        if hands[seat, slot] < 0:
            hands[seat, slot] = card
            players[seat, P_HAND_N] += 1
            return True
    return False


@njit(cache=True)
def draw_object(W, seat):
    """Objects: draw the top Object card unless the hand holds the maximum (8).  ASSUMED: an
    empty Object deck is rebuilt from the shuffled discards."""
    game, decks, players = W[GAME], W[DECKS], W[PLAYERS]
    if players[seat, P_HAND_N] >= W[CFG][CFG_HAND_MAX]:
        return False
    if game[G_ODECK_N] == 0:
        reshuffle_objects(W)
        if game[G_ODECK_N] == 0:
            return False
    game[G_ODECK_N] -= 1
    card = decks[D_OBJECTS, game[G_ODECK_N]]
    decks[D_OBJECTS, game[G_ODECK_N]] = -1
    add_to_hand(W, seat, card)
    return True


@njit(cache=True)
def take_from_hand(W, seat, slot):
    hands, players = W[HANDS], W[PLAYERS]
    card = hands[seat, slot]
    hands[seat, slot] = -1
    players[seat, P_HAND_N] -= 1
    return card


@njit(cache=True)
def discard_card(W, card):
    game = W[GAME]
    W[DECKS][D_DISCARD, game[G_ODISC_N]] = card
    game[G_ODISC_N] += 1


@njit(cache=True)
def discard_hand(W, seat):
    hands = W[HANDS]
    for slot in range(hands.shape[1]):
        if hands[seat, slot] >= 0:
            discard_card(W, take_from_hand(W, seat, slot))


# --------------------------------------------------------------------------------------------
# setup

@njit(cache=True)
def setup_game(W):
    """Setup / Setup, Continued: rings aligned, hatches closed, the Egg on the Centre, Blood
    tiles face down (shuffled), plunderers on the starting points, each player with 4 Object
    cards, 1 Golden Medallion and the blood coins of the player count.  Seats alternate teams
    (team = seat % 2).  ASSUMED: with fewer than 8 players seat s takes starting point
    s * 8 // n (spread around the Temple)."""
    cfg, cells, game, board, figs, players = W[CFG], W[CELLS], W[GAME], W[BOARD], W[FIGS], W[PLAYERS]
    rng, decks = W[RNG], W[DECKS]
    n_players, n_nodes = cfg[CFG_PLAYERS], cfg[CFG_NODES]
    centre = cfg[CFG_CENTRE]
    for k in range(DCACHE_SLOTS):
        game[G_DKEY + 2 * k] = -1
    game[G_EGG_POS], game[G_EGG_CARRIER], game[G_EGG_LEFT_ROUND] = centre, -1, -1
    game[G_WINNER], game[G_WIN_TEAM] = -1, -1
    game[G_MEDALLION_BANK] = cfg[CFG_MEDALLION_SUPPLY] - 1 - n_players * cfg[CFG_START_MEDALLIONS]
    for node in range(n_nodes):
        board[node, B_TILE] = cells[node, C_TILE0]
        board[node, B_OCC] = NOBODY
    n_blood = cfg[CFG_N_BLOOD]
    values = cfg[N_CFG:N_CFG + n_blood].copy()
    shuffle(rng, SETUP, values)
    k = 0
    for node in range(centre):
        if board[node, B_TILE] == BLOOD_TILE and k < n_blood:
            board[node, B_BLOOD] = values[k]
            k += 1
    # Objects: the two decks
    n_t = W[TCARDS].shape[0]
    decks[D_TEMPLE, :n_t] = W[TCARDS]
    shuffle(rng, SETUP, decks[D_TEMPLE, :n_t])
    n_o = W[CARDS].shape[0]
    for i in range(n_o):
        decks[D_OBJECTS, i] = i
    shuffle(rng, SETUP, decks[D_OBJECTS, :n_o])
    game[G_ODECK_N] = n_o
    game[G_BANK] = cfg[CFG_BANK]
    starts = np.full(cfg[CFG_N_STARTS], -1, dtype=np.int64)
    for node in range(centre):
        if cells[node, C_START] >= 0:
            starts[cells[node, C_START]] = node
    for fig in range(figs.shape[0]):
        figs[fig, F_POS] = OFF
        if fig < n_players:
            figs[fig, F_KIND], figs[fig, F_OWNER] = PLUNDERER, fig
        else:
            figs[fig, F_KIND] = SPAWN
            figs[fig, F_OWNER] = (fig - n_players) // cfg[CFG_SPAWN_MAX]
    for seat in range(n_players):
        players[seat, P_STATUS] = ALIVE
        players[seat, P_TEAM] = seat % 2 if cfg[CFG_TEAM_MODE] == 1 else seat
        players[seat, P_SWARM] = seat % 2 if cfg[CFG_TEAM_MODE] == 1 else 0
        players[seat, P_DEATH_ROUND] = -1
        players[seat, P_MEDALLIONS] = cfg[CFG_START_MEDALLIONS]
        gain_coins(W, seat, cfg[CFG_START_COINS], P_START_COINS)
        for _ in range(cfg[CFG_START_OBJECTS]):
            draw_object(W, seat)
        place_figure(W, seat, starts[seat * cfg[CFG_N_STARTS] // n_players])


# --------------------------------------------------------------------------------------------
# traps

@njit(cache=True)
def roller_crossings(W, from_col, to_col, direction, distance):
    """The Rollers: how many Roller boundaries a move of ``distance`` columns clockwise
    (direction +1) or counter-clockwise (-1) from ``from_col`` crosses on the outer ring."""
    cols = W[CFG][CFG_COLS]
    rollers = W[ROLLERS]
    n = 0
    for r in range(rollers.shape[0]):
        b = rollers[r]
        if direction > 0:
            if (b - from_col) % cols < distance:
                n += 1
        elif (from_col - 1 - b) % cols < distance:
            n += 1
    return n


@njit(cache=True)
def roller_damage(W, seat, crossings):
    """The Rollers: each crossing costs the plunderer (1D6) - 1 coins, rolled for itself.
    Spawns are immune (Other Traps: Spawns are immune to all damage from Temple traps)."""
    if W[GAME][G_ROLLERS_ON] == 0 or seat >= W[CFG][CFG_PLAYERS]:
        return
    for _ in range(crossings):
        lose_coins(W, seat, max(0, roll_die(W[RNG], 6) - W[CFG][CFG_ROLLER_MINUS]), SRC_ROLLERS)


@njit(cache=True)
def step_crossings(W, src, dst):
    """Roller boundaries crossed by one orthogonal step (only clockwise/counter-clockwise
    steps within the outer ring cross one)."""
    cells = W[CELLS]
    if not (is_ring_cell(W, src) and is_ring_cell(W, dst)):
        return 0
    if cells[src, C_RING] != 0 or cells[src, C_ROW] != cells[dst, C_ROW]:
        return 0
    a, b = phys_col(W, src), phys_col(W, dst)
    direction = 1 if (b - a) % W[CFG][CFG_COLS] == 1 else -1
    return roller_crossings(W, a, b, direction, 1)


@njit(cache=True)
def fire_wall_traps(W, kind, damage, source):
    """Ring Traps: every wall of this type fires from the wall outward, toward the outer edge
    of the Temple; the first plunderer or spawn in its path stops it (a plunderer loses
    ``damage`` coins, spawns are immune); another wall stops it too; Abyss tiles do not."""
    cfg, cells, board, figs = W[CFG], W[CELLS], W[BOARD], W[FIGS]
    for start in range(cfg[CFG_CENTRE]):
        if cells[start, C_WALL_IN] != kind:
            continue
        node = start
        while node >= 0:
            occupant = board[node, B_OCC]
            if occupant != NOBODY:
                if figs[occupant, F_KIND] == PLUNDERER:
                    lose_coins(W, occupant, damage, source)
                break
            out = outward(W, node)
            if out < 0 or cells[out, C_WALL_IN] != NO_WALL:
                break
            node = out


@njit(cache=True)
def piston(W):
    """The Piston: whoever is on the Central Tile loses half of its coins, rounded in its
    favour (7 -> loses 3, 1 -> loses 0)."""
    occupant = W[BOARD][W[CFG][CFG_CENTRE], B_OCC]
    if occupant != NOBODY and W[FIGS][occupant, F_KIND] == PLUNDERER:
        lose_coins(W, occupant, piston_loss(W[PLAYERS][occupant, P_COINS]), SRC_PISTON)


@njit(cache=True)
def piston_loss(coins):
    """The Piston: half of the coins, rounded in the victim's favour."""
    return coins // 2


@njit(cache=True)
def rotate_ring(W, ring, sectors):
    """Rotations: turn ``ring`` by ``sectors`` (positive clockwise).  Tiles, walls and figures
    turn with it; plunderers dragged across a Roller on the outer ring pay for each crossing."""
    cfg, game, figs, cells = W[CFG], W[GAME], W[FIGS], W[CELLS]
    if ring < 0 or ring >= cfg[CFG_RINGS] or sectors == 0:
        return
    shift = sectors * cfg[CFG_CELLS_PER_SECTOR]
    cols = cfg[CFG_COLS]
    if ring == 0 and game[G_ROLLERS_ON] == 1:
        direction = 1 if shift > 0 else -1
        for seat in range(cfg[CFG_PLAYERS]):
            node = figs[seat, F_POS]
            if node >= 0 and is_ring_cell(W, node) and cells[node, C_RING] == 0:
                col = phys_col(W, node)
                roller_damage(W, seat, roller_crossings(W, col, (col + shift) % cols, direction, abs(shift)))
    game[G_OFFSET + ring] = (game[G_OFFSET + ring] + shift) % cols
    game[G_VERSION] += 1
    record(W, EV_ROTATE, game[G_SEAT], ring, sectors, game[G_OFFSET + ring], 0)


@njit(cache=True)
def set_hatches(W, kind, is_open):
    """Hatch opening/closing (ASSUMED: by Temple cards; kind -1 means every hatch)."""
    cfg, cells, board, game = W[CFG], W[CELLS], W[BOARD], W[GAME]
    centre = cfg[CFG_CENTRE]
    n_open = 0
    for h in range(cfg[CFG_HATCHES]):
        j = centre + 1 + h
        if kind < 0 or cells[j, C_HATCH_KIND] == kind:
            board[j, B_OPEN] = is_open
        n_open += board[j, B_OPEN]
    game[G_OPEN_HATCHES] = n_open
    game[G_VERSION] += 1
    record(W, EV_HATCH, game[G_SEAT], kind, is_open, 0, 0)


@njit(cache=True)
def resolve_temple_card(W, seat, card):
    """Temple Tiles: resolve one Temple card for the activating plunderer ``seat``."""
    cfg, rng = W[CFG], W[RNG]
    record(W, EV_TEMPLE, seat, card, 0, 0, 0)
    if card == T_ARROWS:
        fire_wall_traps(W, ARROWS_WALL, cfg[CFG_ARROWS], SRC_ARROWS)
    elif card == T_ACID:
        fire_wall_traps(W, ACID_WALL, max(0, roll_die(rng, 6) - cfg[CFG_ACID_MINUS]), SRC_ACID)
    elif card == T_FIRE:
        fire_wall_traps(W, FIRE_WALL, cfg[CFG_FIRE], SRC_FIRE)
    elif T_ROT_OUTER <= card <= T_ROT_CENTRAL:
        sectors = roll_die(rng, 6)
        if roll_die(rng, 6) % 2 == 0:
            sectors = -sectors
        rotate_ring(W, card - T_ROT_OUTER, sectors)
    elif card == T_PISTON:
        piston(W)
    elif card == T_RAM:
        ram(W, seat)
    elif card == T_FLASH:
        iris_flash(W, seat)
    elif card == T_OPEN_DAY:
        set_hatches(W, DAY, 1)
    elif card == T_OPEN_NIGHT:
        set_hatches(W, NIGHT, 1)
    elif card == T_CLOSE_ALL:
        set_hatches(W, -1, 0)


@njit(cache=True)
def draw_temple_card(W):
    """Temple Tiles: flip the top Temple card.  ASSUMED: the exhausted deck is reshuffled."""
    game, decks = W[GAME], W[DECKS]
    n = W[TCARDS].shape[0]
    if game[G_TDRAW] >= n:
        shuffle(W[RNG], SETUP, decks[D_TEMPLE, :n])
        game[G_TDRAW] = 0
    card = decks[D_TEMPLE, game[G_TDRAW]]
    game[G_TDRAW] += 1
    return card


@njit(cache=True)
def ram(W, seat):
    """The Ram: the activating plunderer discards its hand and draws four cards."""
    if W[PLAYERS][seat, P_STATUS] != ALIVE:
        return
    discard_hand(W, seat)
    for _ in range(W[CFG][CFG_RAM]):
        draw_object(W, seat)


@njit(cache=True)
def iris_flash(W, seat):
    """The Flash: the plunderer resumes its movement from another Temple tile of the same
    Ring, without activating it (ASSUMED: nothing happens when no other one is free)."""
    figs, board, cells, options = W[FIGS], W[BOARD], W[CELLS], W[OPTIONS]
    node = figs[seat, F_POS]
    if W[PLAYERS][seat, P_STATUS] != ALIVE or not is_ring_cell(W, node):
        return
    ring = cells[node, C_RING]
    n = 0
    for other in range(W[CFG][CFG_CENTRE]):
        if (other != node and cells[other, C_RING] == ring and board[other, B_TILE] == TEMPLE_TILE
                and board[other, B_OCC] == NOBODY and n < MAX_OPTIONS):
            options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_MOVE, seat, other
            n += 1
    if n == 0:
        return
    dest = options[choose(TELEPORT, seat, n, W), OPT_B]
    record(W, EV_FLASH, seat, node, dest, 0, 0)
    place_figure(W, seat, dest)
    pick_up_egg(W, seat)


# --------------------------------------------------------------------------------------------
# tiles

@njit(cache=True)
def was_activated(W, fig, node):
    game, acts = W[GAME], W[ACTS]
    for i in range(game[G_ACT_N]):
        if acts[i, 0] == fig and acts[i, 1] == node:
            return True
    return False


@njit(cache=True)
def activate_tile(W, fig, node):
    """Tiles: the effect of the tile a figure steps on.  The same figure cannot activate a tile
    twice in a turn; Spawns activate only Object tiles (Which Tiles Spawns Activate);
    Unpronounceable Conjuring cancels the next one."""
    board = W[BOARD]
    tile = board[node, B_TILE]
    if tile == BLANK or tile == INVOCATION or tile == ABYSS or tile == JUNGLE:
        return  # nothing to activate (and nothing to remember)
    game, acts, players = W[GAME], W[ACTS], W[PLAYERS]
    if was_activated(W, fig, node):
        return
    if game[G_ACT_N] < MAX_ACTS:
        acts[game[G_ACT_N], 0], acts[game[G_ACT_N], 1] = fig, node
        game[G_ACT_N] += 1
    spawn = W[FIGS][fig, F_KIND] == SPAWN
    if spawn and tile != OBJECT_TILE:
        return
    if not spawn and game[G_CONJURE] == 1:
        game[G_CONJURE] = 0
        return
    seat = controller(W, fig)
    if tile == OBJECT_TILE:
        if draw_object(W, seat):
            record(W, EV_OBJECT_DRAW, seat, node, players[seat, P_HAND_N], 0, 0)
    elif tile == BLOOD_TILE:
        consume_blood(W, seat, node)
    elif tile == TEMPLE_TILE or tile == CENTRE_TILE:
        resolve_temple_card(W, seat, draw_temple_card(W))
    elif tile == PASSAGE_TILE:
        passage(W, seat, node)


@njit(cache=True)
def consume_blood(W, seat, node):
    """Blood Tiles: a full Blood tile yields its 2, 3 or 4 coins or a Golden Medallion, then
    becomes a Blank tile.  Policies always consume (ASSUMED: never worth declining)."""
    board, players, game = W[BOARD], W[PLAYERS], W[GAME]
    value = board[node, B_BLOOD]
    before = players[seat, P_COINS]
    if value == MEDALLION_VALUE:
        players[seat, P_MEDALLIONS] += 1
        players[seat, P_MEDALLIONS_GAINED] += 1
    elif value > 0:
        gain_coins(W, seat, value, P_GAIN_BLOOD)
    board[node, B_BLOOD] = 0
    board[node, B_TILE] = BLANK
    record(W, EV_BLOOD, seat, node, value, before, players[seat, P_COINS])


@njit(cache=True)
def passage(W, seat, node):
    """Passage Tiles: resume the movement from any other (free) Passage tile, or stay."""
    board, options = W[BOARD], W[OPTIONS]
    options[0, OPT_ACT], options[0, OPT_A], options[0, OPT_B] = ACT_STOP, seat, -1
    n = 1
    for other in range(W[CFG][CFG_CENTRE]):
        if other != node and board[other, B_TILE] == PASSAGE_TILE and board[other, B_OCC] == NOBODY:
            options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_MOVE, seat, other
            n += 1
    dest = options[choose(TELEPORT, seat, n, W), OPT_B]
    if dest >= 0:
        record(W, EV_PASSAGE, seat, node, dest, 0, 0)
        place_figure(W, seat, dest)
        pick_up_egg(W, seat)


@njit(cache=True)
def invocation_tile(W, node):
    """A New Life: the tile becomes an Invocation tile, whatever it was (a full Blood tile
    loses its coins).  ASSUMED: the Centre never does; the tile goes to a neighbour instead."""
    board = W[BOARD]
    if node == W[CFG][CFG_CENTRE]:
        node = free_neighbour(W, node, False)
        if node < 0:
            return
    board[node, B_TILE] = INVOCATION
    board[node, B_BLOOD] = 0
    W[GAME][G_VERSION] += 1


@njit(cache=True)
def free_neighbour(W, node, need_empty):
    """First ring-cell neighbour (not Abyss, not the Centre), optionally unoccupied."""
    board, adj = W[BOARD], adjacency(W)
    for j in range(1, adj[node, 0] + 1):
        nxt = adj[node, j]
        if is_ring_cell(W, nxt) and board[nxt, B_TILE] != ABYSS and (not need_empty or board[nxt, B_OCC] == NOBODY):
            return nxt
    return -1


# --------------------------------------------------------------------------------------------
# death, the Egg

@njit(cache=True)
def plunderer_dies(W, seat):
    """Dead or Alive / A New Life: the plunderer leaves the Temple; its tile becomes an
    Invocation tile (a second one on an adjacent tile for the first death of its team, or the
    first death of all in Free-for-All).  It drops the Egg where it falls (ASSUMED)."""
    game, players, figs = W[GAME], W[PLAYERS], W[FIGS]
    node = figs[seat, F_POS]
    players[seat, P_STATUS] = DEAD
    players[seat, P_DEATH_ROUND] = game[G_ROUND]
    game[G_DEATHS] += 1
    if seat == game[G_SEAT]:
        game[G_TURN_ENDED] = 1
    record(W, EV_DEATH, seat, node, 0, 0, 0)
    if game[G_EGG_CARRIER] == seat:
        game[G_EGG_CARRIER] = -1
        game[G_EGG_POS] = node
        record(W, EV_EGG, seat, node, EGG_DROPPED, 0, 0)
    place_figure(W, seat, OFF)
    if node < 0 or is_jungle(W, node):
        return
    invocation_tile(W, node)
    bit = 1 << (players[seat, P_TEAM] if W[CFG][CFG_TEAM_MODE] == 1 else 0)
    if game[G_TEAM_DIED] & bit == 0:
        game[G_TEAM_DIED] |= bit
        second = free_neighbour(W, node, False)
        if second >= 0:
            invocation_tile(W, second)


@njit(cache=True)
def pick_up_egg(W, fig):
    """The Alien Egg: a plunderer on the Egg's tile picks it up automatically."""
    game = W[GAME]
    if game[G_EGG_CARRIER] >= 0:
        return
    if fig < W[CFG][CFG_PLAYERS] and game[G_EGG_POS] == W[FIGS][fig, F_POS]:
        game[G_EGG_CARRIER] = fig
        game[G_EGG_POS] = -1
        record(W, EV_EGG, fig, W[FIGS][fig, F_POS], EGG_PICKUP, 0, 0)
        egg_moved(W)


@njit(cache=True)
def give_egg(W, giver, receiver, how):
    """Passing / Throwing the Egg, or the winner of a combat taking it."""
    game = W[GAME]
    game[G_EGG_CARRIER] = receiver
    game[G_EGG_POS] = -1
    record(W, EV_EGG, giver, receiver, how, 0, 0)
    egg_moved(W)


@njit(cache=True)
def throw_line(W, node):
    """Throwing the Egg: the first figure on the line of fire outward from ``node`` (as a Wall
    Trap: stopped by walls), or -1.  ASSUMED: no line of fire out of the Centre or the jungle."""
    board, cells = W[BOARD], W[CELLS]
    if not is_ring_cell(W, node):
        return -1
    while True:
        out = outward(W, node)
        if out < 0 or cells[out, C_WALL_IN] != NO_WALL:
            return -1
        node = out
        if board[node, B_OCC] != NOBODY:
            return board[node, B_OCC]


@njit(cache=True)
def fling_egg(W, node):
    """Throwing the Egg: a Spawn that kills (or beats) the carrier throws the Egg 1 tile, one
    more while the tile holds a Spawn; a plunderer there picks it up.  ASSUMED: the swarm's
    player chooses among the nearest such tiles."""
    board, figs, options = W[BOARD], W[FIGS], W[OPTIONS]
    dist = np.empty(W[CFG][CFG_NODES], dtype=np.int64)
    W[QUEUE][0] = node
    bfs_local(W, dist, node)
    best = 1 << 20
    for other in range(W[CFG][CFG_CENTRE] + 1):
        occ = board[other, B_OCC]
        if dist[other] >= 1 and (occ == NOBODY or figs[occ, F_KIND] == PLUNDERER):
            best = min(best, dist[other])
    n = 0
    for other in range(W[CFG][CFG_CENTRE] + 1):
        occ = board[other, B_OCC]
        if dist[other] == best and (occ == NOBODY or figs[occ, F_KIND] == PLUNDERER) and n < MAX_OPTIONS:
            options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_MOVE, -1, other
            n += 1
    game = W[GAME]
    if n == 0:
        game[G_EGG_POS] = node
        return
    dest = options[choose(EGG_DEST, game[G_SEAT], n, W), OPT_B]
    game[G_EGG_POS] = dest
    record(W, EV_EGG, game[G_SEAT], dest, EGG_FLUNG, 0, 0)
    occ = board[dest, B_OCC]
    if occ != NOBODY:
        pick_up_egg(W, occ)
    egg_moved(W)


@njit(cache=True)
def bfs_local(W, dist, source):
    """Distances from ``source`` over walkable ring cells and the Centre (no jungle)."""
    board, queue = W[BOARD], W[QUEUE]
    adj = adjacency(W)
    dist[:] = 1 << 20
    dist[source] = 0
    queue[0] = source
    head, tail = 0, 1
    while head < tail:
        node = queue[head]
        head += 1
        for j in range(1, adj[node, 0] + 1):
            nxt = adj[node, j]
            if dist[nxt] == 1 << 20 and board[nxt, B_TILE] != ABYSS and not is_jungle(W, nxt):
                dist[nxt] = dist[node] + 1
                queue[tail] = nxt
                tail += 1
    return tail


# --------------------------------------------------------------------------------------------
# combat

@njit(cache=True)
def round_result(beats, a, b):
    """Comparing Combat Values: +1 when value a wins the round, -1 when b wins, 0 for a tie.
    A card beats no card (End of Combat: not playing costs a coin); two missing cards tie
    (each would pay the other one coin)."""
    if a == NO_CARD and b == NO_CARD:
        return 0
    if b == NO_CARD:
        return 1
    if a == NO_CARD:
        return -1
    if beats[a, b] == 1:
        return 1
    if beats[b, a] == 1:
        return -1
    return 0


@njit(cache=True)
def reveal_card(W, seat, fig):
    """Rounds: the player reveals an Object card (or none); returns (card id, combat value)."""
    hands, options, cards = W[HANDS], W[OPTIONS], W[CARDS]
    options[0, OPT_ACT], options[0, OPT_A], options[0, OPT_B] = ACT_PLAY, -1, NO_CARD
    n = 1
    if seat >= 0:
        for slot in range(hands.shape[1]):
            card = hands[seat, slot]
            if card >= 0:
                options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_PLAY, slot, cards[card, 1]
                n += 1
    if n == 1:
        return -1, NO_CARD
    i = choose(COMBAT_CARD, seat, n, W)
    slot = options[i, OPT_A]
    if slot < 0:
        return -1, NO_CARD
    return take_from_hand(W, seat, slot), options[i, OPT_B]


@njit(cache=True)
def spawn_dies(W, fig):
    record(W, EV_SPAWN, W[FIGS][fig, F_OWNER], W[FIGS][fig, F_POS], -1, 0, 0)
    place_figure(W, fig, OFF)


@njit(cache=True)
def resolve_combat(W, att, dfd, node):
    """Combat: ``att`` (the figure whose turn it is) steps onto ``dfd``'s tile ``node``.

    Three Rounds of simultaneous reveals; the loser of a round gives 1 coin to the winner (to
    the bank when the winner is a Spawn); a Spawn dies as soon as it loses a round; a
    plunderer with no coins dies and loses; tied cards return at the end; the most rounds won
    wins, the Defender on a tie.  End of Combat: the loser is thrown 3 tiles (eliminated in the
    jungle), the Egg passes to the winner (a Spawn flings it 1 tile), both draw up to 3.
    Returns True when the attacker won."""
    cfg, figs, players, beats = W[CFG], W[FIGS], W[PLAYERS], W[BEATS]
    n_players = cfg[CFG_PLAYERS]
    sa, sd = controller(W, att), controller(W, dfd)
    a_spawn, d_spawn = att >= n_players, dfd >= n_players
    won_a, won_d = 0, 0
    aside = np.full(2 * cfg[CFG_COMBAT_ROUNDS], -1, dtype=np.int64)
    aside_owner = np.full(2 * cfg[CFG_COMBAT_ROUNDS], -1, dtype=np.int64)
    n_aside = 0
    loser = -1
    record(W, EV_COMBAT, sa, att, dfd, node, 0)
    for r in range(cfg[CFG_COMBAT_ROUNDS]):
        ca, va = reveal_card(W, sa, att)
        cd, vd = reveal_card(W, sd, dfd)
        res = round_result(beats, va, vd)
        record(W, EV_COMBAT_ROUND, sa, va, vd, res, r)
        if res == 0:
            if ca >= 0:
                aside[n_aside], aside_owner[n_aside] = ca, sa
                n_aside += 1
            if cd >= 0:
                aside[n_aside], aside_owner[n_aside] = cd, sd
                n_aside += 1
            continue
        if ca >= 0:
            discard_card(W, ca)
        if cd >= 0:
            discard_card(W, cd)
        win_fig, lose_fig = (att, dfd) if res > 0 else (dfd, att)
        if res > 0:
            won_a += 1
        else:
            won_d += 1
        if lose_fig >= n_players:
            loser = lose_fig
            break
        paid = pay_round(W, lose_fig, win_fig)
        if players[lose_fig, P_COINS] == 0 and paid >= 0:
            loser = lose_fig
            break
    for i in range(n_aside):
        if not add_to_hand(W, aside_owner[i], aside[i]):
            discard_card(W, aside[i])
    if loser < 0:
        loser = att if won_d >= won_a else dfd
    winner = dfd if loser == att else att
    s_win, s_lose = controller(W, winner), controller(W, loser)
    if s_win >= 0:
        players[s_win, P_COMBATS_WON] += 1
    if s_lose >= 0:
        players[s_lose, P_COMBATS_LOST] += 1
    for s in (sa, sd):
        if s >= 0 and players[s, P_STATUS] != ELIMINATED:
            while players[s, P_HAND_N] < cfg[CFG_COMBAT_HAND] and draw_object(W, s):
                pass
    end_of_combat(W, winner, loser, node)
    return winner == att


@njit(cache=True)
def pay_round(W, lose_fig, win_fig):
    """Rounds: the loser gives 1 coin to the winner; against a Spawn it is discarded to the
    bank.  Returns the coins paid (-1 if the loser had none)."""
    players = W[PLAYERS]
    if players[lose_fig, P_COINS] == 0:
        return -1
    players[lose_fig, P_COINS] -= 1
    players[lose_fig, P_LOST_COMBAT] += 1
    if win_fig >= W[CFG][CFG_PLAYERS]:
        W[GAME][G_BANK] += 1
    else:
        players[win_fig, P_COINS] += 1
        players[win_fig, P_GAIN_COMBAT] += 1
    return 1


@njit(cache=True)
def end_of_combat(W, winner, loser, node):
    """End of Combat: throw (or eliminate) the loser, place the attacker, move the Egg."""
    game, figs, players = W[GAME], W[FIGS], W[PLAYERS]
    n_players = W[CFG][CFG_PLAYERS]
    carried = game[G_EGG_CARRIER] == loser
    if carried:
        game[G_EGG_CARRIER] = -1
    if loser >= n_players:
        spawn_dies(W, loser)
    elif is_jungle(W, node):
        # Final Moments: losing a combat in the jungle eliminates the plunderer.
        players[loser, P_STATUS] = ELIMINATED
        record(W, EV_ELIMINATED, loser, node, 0, 0, 0)
        place_figure(W, loser, OFF)
    else:
        throw_figure(W, winner, loser, node)
    if figs[winner, F_POS] != node and figs[winner, F_POS] != OFF and W[BOARD][node, B_OCC] == NOBODY:
        place_figure(W, winner, node)
    if carried:
        if winner < n_players:
            give_egg(W, loser, winner, EGG_WON)
        else:
            fling_egg(W, node)
    elif winner < n_players:
        pick_up_egg(W, winner)
    if loser < n_players and players[loser, P_COINS] == 0 and players[loser, P_STATUS] == ALIVE:
        plunderer_dies(W, loser)
    if loser == game[G_SEAT]:
        game[G_TURN_ENDED] = 1


@njit(cache=True)
def throw_figure(W, thrower, fig, node):
    """End of Combat: the loser is thrown 3 tiles (not necessarily straight), without
    activating them; one tile further while the landing tile is occupied.  Rollers crossed on
    the way cost their damage (ASSUMED: along a shortest path to the landing tile)."""
    cfg, board, options = W[CFG], W[BOARD], W[OPTIONS]
    n_nodes = cfg[CFG_NODES]
    dist = np.empty(n_nodes, dtype=np.int64)
    place_figure(W, fig, OFF)
    bfs_local(W, dist, node)
    want = cfg[CFG_THROW]
    n = 0
    while n == 0 and want < n_nodes:
        for other in range(cfg[CFG_CENTRE] + 1):
            if dist[other] == want and board[other, B_OCC] == NOBODY and n < MAX_OPTIONS:
                options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_MOVE, fig, other
                n += 1
        want += 1
    if n == 0:
        dest = node  # ASSUMED: nowhere to land, the loser stays where the combat was
    else:
        dest = options[choose(THROW_DEST, controller(W, thrower), n, W), OPT_B]
    place_figure(W, fig, dest)
    record(W, EV_THROWN, controller(W, fig), fig, node, dest, 0)
    if fig < cfg[CFG_PLAYERS] and W[GAME][G_ROLLERS_ON] == 1:
        roller_damage(W, fig, path_crossings(W, dist, dest))
    if W[GAME][G_EGG_POS] == dest:
        pick_up_egg(W, fig)


@njit(cache=True)
def path_crossings(W, dist, dest):
    """Roller crossings along one shortest path (from ``dist``'s source) to ``dest``."""
    adj = adjacency(W)
    total = 0
    node = dest
    while dist[node] > 0:
        prev = -1
        for j in range(1, adj[node, 0] + 1):
            if dist[adj[node, j]] == dist[node] - 1:
                prev = adj[node, j]
                break
        if prev < 0:
            break
        total += step_crossings(W, prev, node)
        node = prev
    return total


# --------------------------------------------------------------------------------------------
# objects

@njit(cache=True)
def play_object(W, seat, slot, paid_medallion):
    """Objects / Object Effects: play one card (one per turn, one more per Golden Medallion
    paid; never in a player's first turn) and carry out its effect immediately."""
    game, players, cards, rng, cfg = W[GAME], W[PLAYERS], W[CARDS], W[RNG], W[CFG]
    if paid_medallion:
        players[seat, P_MEDALLIONS] -= 1
        game[G_MEDALLION_BANK] += 1
    else:
        game[G_PLAYS_LEFT] -= 1
    card = take_from_hand(W, seat, slot)
    effect = cards[card, 0]
    discard_card(W, card)
    players[seat, P_OBJECTS_PLAYED] += 1
    record(W, EV_PLAY, seat, effect, paid_medallion, players[seat, P_COINS], 0)
    if effect == GREEDY:
        greedy_fingers(W, seat)
    elif effect == TUMULT:
        for _ in range(cfg[CFG_TUMULT]):
            draw_object(W, seat)
    elif effect == POLE:
        game[G_POLE] = 1
    elif effect == CONJURE:
        game[G_CONJURE] = 1
    elif effect == BLOOD_STONE:
        blood_stone(W, seat)
    elif effect == HELM:
        helm_of_contact(W, seat)
    elif effect == SPARK:
        game[G_STEPS_LEFT] += cfg[CFG_SPARK]
    elif effect == SALIVA:
        draw_object(W, seat)
        for _ in range(roll_die(rng, 6)):
            if players[seat, P_STATUS] != ALIVE:
                break
            resolve_temple_card(W, seat, draw_temple_card(W))
    elif effect == ECLIPSE:
        set_hatches(W, -1, 0)
        discard_hand(W, seat)
    # GAZE: reveals the top cards; ASSUMED no effect, as no policy reads hidden cards.
    # SWORD: no effect when played (its value is in combat).


@njit(cache=True)
def greedy_fingers(W, seat):
    """Greedy Fingers: steal a random card from one or two different players (ASSUMED: those
    holding the most cards; plunderers in the jungle are immune)."""
    players, hands, figs = W[PLAYERS], W[HANDS], W[FIGS]
    taken = np.zeros(players.shape[0], dtype=np.bool_)
    for _ in range(W[CFG][CFG_GREEDY]):
        victim, most = -1, 0
        for s in range(players.shape[0]):
            if (s != seat and not taken[s] and players[s, P_STATUS] != ELIMINATED
                    and players[s, P_HAND_N] > most
                    and not (players[s, P_STATUS] == ALIVE and is_jungle(W, figs[s, F_POS]))):
                victim, most = s, players[s, P_HAND_N]
        if victim < 0 or players[seat, P_HAND_N] >= W[CFG][CFG_HAND_MAX]:
            return
        taken[victim] = True
        k = rng_below(W[RNG], DICE, most)
        for slot in range(hands.shape[1]):
            if hands[victim, slot] >= 0:
                if k == 0:
                    add_to_hand(W, seat, take_from_hand(W, victim, slot))
                    break
                k -= 1


@njit(cache=True)
def blood_stone(W, seat):
    """Blood Stone: gain one coin, or give one of your coins to another player (ASSUMED: only
    while keeping at least one, to a plunderer still in the Temple)."""
    players, options = W[PLAYERS], W[OPTIONS]
    options[0, OPT_ACT], options[0, OPT_A], options[0, OPT_B] = ACT_STOP, -1, 0
    n = 1
    if players[seat, P_COINS] >= 2:
        for s in range(players.shape[0]):
            if s != seat and players[s, P_STATUS] == ALIVE and not is_jungle(W, W[FIGS][s, F_POS]):
                options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_STOP, s, 0
                n += 1
    target = options[choose(STONE_TARGET, seat, n, W), OPT_A]
    before = players[seat, P_COINS]
    if target < 0:
        gain_coins(W, seat, 1, P_GAIN_OTHER)
    else:
        players[seat, P_COINS] -= 1
        players[seat, P_LOST_OTHER] += 1
        players[target, P_COINS] += 1
        players[target, P_GAIN_OTHER] += 1
    record(W, EV_STONE, seat, target, before, players[seat, P_COINS], 0)


@njit(cache=True)
def helm_of_contact(W, seat):
    """Helm of Contact: choose a Ring and a direction, then a D6 gives the sectors."""
    options = W[OPTIONS]
    n = 0
    for ring in range(W[CFG][CFG_RINGS]):
        for d in (1, -1):
            options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = ACT_STOP, ring, d
            n += 1
    i = choose(HELM_RING, seat, n, W)
    ring, d = options[i, OPT_A], options[i, OPT_B]
    rotate_ring(W, ring, d * roll_die(W[RNG], 6))


# --------------------------------------------------------------------------------------------
# plunderer turn

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


# --------------------------------------------------------------------------------------------
# spawns

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


# --------------------------------------------------------------------------------------------
# the game

@njit(cache=True)
def alive_plunderers(W):
    players = W[PLAYERS]
    n = 0
    for s in range(players.shape[0]):
        if players[s, P_STATUS] == ALIVE:
            n += 1
    return n


@njit(cache=True)
def escaped(W, seat):
    """Final Moments of the Game: a plunderer who begins its turn in the jungle with the Egg
    wins (for its team in Team mode)."""
    return W[GAME][G_EGG_CARRIER] == seat and is_jungle(W, W[FIGS][seat, F_POS])


@njit(cache=True)
def run_game(W):
    """One whole game from setup to its end; fills the game scalars and the timeline."""
    cfg, game, players = W[CFG], W[GAME], W[PLAYERS]
    setup_game(W)
    n_players = cfg[CFG_PLAYERS]
    timeline = W[TIMELINE]
    for rnd in range(cfg[CFG_ROUND_CAP]):
        game[G_ROUND] = rnd
        for seat in range(n_players):
            game[G_SEAT] = seat
            status = players[seat, P_STATUS]
            if status == ALIVE:
                if escaped(W, seat):
                    game[G_WINNER] = seat
                    game[G_WIN_TEAM] = players[seat, P_TEAM]
                    game[G_END] = END_EGG
                    record(W, EV_WIN, seat, players[seat, P_TEAM], 0, 0, 0)
                    break
                record(W, EV_TURN, seat, 0, players[seat, P_COINS], 0, 0)
                plunderer_turn(W, seat)
            elif status == DEAD:
                record(W, EV_TURN, seat, 1, players[seat, P_COINS], 0, 0)
                swarm_turn(W, seat)
            if alive_plunderers(W) == 0:
                game[G_END] = END_ALL_DEAD
                break
        if rnd < timeline.shape[0]:
            for seat in range(n_players):
                timeline[rnd, seat] = players[seat, P_COINS]
        if game[G_WINNER] >= 0 or (game[G_END] == END_ALL_DEAD and alive_plunderers(W) == 0):
            game[G_ROUND] = rnd + 1
            record(W, EV_END, game[G_WINNER], game[G_END], rnd + 1, 0, 0)
            return
    game[G_ROUND] = cfg[CFG_ROUND_CAP]
    game[G_END] = END_ROUND_CAP
    record(W, EV_END, -1, END_ROUND_CAP, game[G_ROUND], 0, 0)


@njit(cache=True)
def write_outputs(W, out_game, out_players):
    """Copy one finished game's results into its output rows."""
    cfg, game, players = W[CFG], W[GAME], W[PLAYERS]
    out_game[G_OUT_WINNER] = game[G_WINNER]
    out_game[G_OUT_LENGTH] = game[G_ROUND]
    out_game[G_OUT_END] = game[G_END]
    out_game[G_OUT_WIN_TEAM] = game[G_WIN_TEAM]
    out_game[G_OUT_EGG_LEFT] = game[G_EGG_LEFT_ROUND]
    out_game[G_OUT_DEATHS] = game[G_DEATHS]
    out_game[G_OUT_BANK] = game[G_BANK]
    for s in range(cfg[CFG_PLAYERS]):
        row = out_players[s]
        won = game[G_WINNER] >= 0 and (s == game[G_WINNER] or (
            cfg[CFG_TEAM_MODE] == 1 and players[s, P_TEAM] == game[G_WIN_TEAM]))
        row[P_OUT_SCORE] = 1 if won else 0
        row[P_OUT_WON] = 1 if won else 0
        row[P_OUT_TEAM] = players[s, P_TEAM]
        row[P_OUT_START] = players[s, P_START_COINS]
        row[P_OUT_FINAL] = players[s, P_COINS]
        row[P_OUT_DIED] = 1 if players[s, P_DEATH_ROUND] >= 0 else 0
        row[P_OUT_DEATH_ROUND] = players[s, P_DEATH_ROUND]
        for k in range(7):
            row[P_OUT_ARROWS + k] = players[s, P_LOST_ARROWS + k]
        row[P_OUT_BLOOD_GAIN] = players[s, P_GAIN_BLOOD]
        row[P_OUT_COMBAT_GAIN] = players[s, P_GAIN_COMBAT]
        row[P_OUT_OTHER_GAIN] = players[s, P_GAIN_OTHER]
        row[P_OUT_WON_COMBATS] = players[s, P_COMBATS_WON]
        row[P_OUT_LOST_COMBATS] = players[s, P_COMBATS_LOST]
        row[P_OUT_SPAWN_TURNS] = players[s, P_SPAWN_TURNS]
        row[P_OUT_EGG_TURNS] = players[s, P_EGG_TURNS]
        row[P_OUT_OBJECTS] = players[s, P_OBJECTS_PLAYED]
        row[P_OUT_INVOKED] = players[s, P_SPAWNS_INVOKED]
        row[P_OUT_ELIMINATED] = 1 if players[s, P_STATUS] == ELIMINATED else 0


@njit(cache=True)
def play_game(cfg, cells, rollers, cards, tcards, beats, knobs, seed, policy_ids, out_game,
              out_players, timeline, trace):
    """One whole game: out_game int64[N_GAME_OUT], out_players int64[n_players, N_PLAYER_OUT],
    timeline int16[round_cap, n_players] (coins after each round), trace
    int64[max_events, TRACE_WIDTH].  Returns the number of trace rows written."""
    W = new_world(cfg, cells, rollers, cards, tcards, beats, knobs, policy_ids, seed, trace, timeline)
    run_game(W)
    write_outputs(W, out_game, out_players)
    return W[GAME][G_NEV]


@njit(cache=True)
def play_games(cfg, cells, rollers, cards, tcards, beats, knobs, seeds, seat_policies, out_games,
               out_players, timelines):
    """Play ``len(seeds)`` games.

    cfg int64[N_CFG + n_blood]; cells int64[n_nodes, N_CELL]; rollers int64[n_rollers]; cards
    int64[n_objects, 2]; tcards int64[n_temple]; beats int64[4, 4]; knobs float64[n_policies,
    n_knobs]; seeds uint64[n]; seat_policies int8[n, n_players]; outputs: out_games
    int64[n, N_GAME_OUT], out_players int64[n, n_players, N_PLAYER_OUT], timelines
    int16[n, round_cap or 0, n_players].
    """
    no_trace = np.zeros((0, TRACE_WIDTH), dtype=np.int64)
    for g in range(seeds.shape[0]):
        play_game(cfg, cells, rollers, cards, tcards, beats, knobs, seeds[g], seat_policies[g],
                  out_games[g], out_players[g], timelines[g], no_trace)
