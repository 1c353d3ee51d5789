"""Karmaggän engine core: a new world, the trace, figures on the board, coins and cards.

Rulebook: shared/rules/karmaggan.md (Components, Objects: drawing and the hand limit).  The
state layout is described in :mod:`engine`.
"""

import numpy as np

from simulator.core.kernel import allocating, rule
from simulator.core.rng import SETUP, rng_new, shuffle
from simulator.games.karmaggan.state import (
    B_OCC,
    BOARD,
    CFG,
    CFG_CENTRE,
    CFG_COLS,
    CFG_HAND_MAX,
    CFG_NODES,
    CFG_PLAYERS,
    CFG_SPAWN_MAX,
    D_DISCARD,
    D_OBJECTS,
    DCACHE_SLOTS,
    DEAD,
    DECKS,
    F_KIND,
    F_OWNER,
    F_POS,
    FIGS,
    G_BANK,
    G_EGG_CARRIER,
    G_EGG_LEFT_ROUND,
    G_EGG_POS,
    G_NEV,
    G_ODECK_N,
    G_ODISC_N,
    G_ROLLERS_ON,
    G_ROUND,
    G_SEAT,
    GAME,
    HANDS,
    MAX_ACTS,
    MAX_OPTIONS,
    N_BOARD,
    N_FIG,
    N_GAME,
    N_PLAYER,
    N_SWARMS,
    NOBODY,
    OFF,
    OPT_WIDTH,
    P_COINS,
    P_HAND_N,
    P_STATUS,
    P_SWARM,
    P_TEAM,
    PLAYERS,
    PLUNDERER,
    RNG,
    TRACE,
)
from simulator.games.karmaggan.world import World


@allocating
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
    return World(
        cfg,
        cells,
        rollers,
        cards,
        tcards,
        beats,
        knobs,
        policy_ids,
        rng,
        game,
        board,
        figs,
        players,
        hands,
        decks,
        acts,
        options,
        dcache,
        queue,
        trace,
        timeline,
        adj,
        scores,
    )


@rule
def record(W, event, seat, a, b, c, d):
    """Append one trace row when tracing."""
    trace = W[TRACE]
    if trace.shape[0] == 0:
        return
    game = W[GAME]
    n = game[G_NEV]
    if n < trace.shape[0]:
        row = trace[n]
        row[0], row[1], row[2], row[3], row[4], row[5], row[6] = (
            event,
            game[G_ROUND],
            seat,
            a,
            b,
            c,
            d,
        )
        game[G_NEV] = n + 1


@rule
def egg_node(W):
    game = W[GAME]
    carrier = game[G_EGG_CARRIER]
    return W[FIGS][carrier, F_POS] if carrier >= 0 else game[G_EGG_POS]


@rule
def egg_moved(W):
    """The Rollers: they are placed when the Egg leaves the Central Tile for the first time."""
    game = W[GAME]
    if game[G_EGG_LEFT_ROUND] < 0 and egg_node(W) != W[CFG][CFG_CENTRE]:
        game[G_EGG_LEFT_ROUND] = game[G_ROUND]
        game[G_ROLLERS_ON] = 1


@rule
def place_figure(W, fig, node):
    """Move a figure to ``node`` (or OFF), keeping occupancy and the carried Egg in step.  A
    figure crossing an ally's tile (Movement) leaves that tile's occupant in place."""
    figs, board = W[FIGS], W[BOARD]
    old = figs[fig, F_POS]
    if old >= 0 and board[old, B_OCC] == fig:
        board[old, B_OCC] = NOBODY
    figs[fig, F_POS] = node
    if node >= 0 and board[node, B_OCC] == NOBODY:
        board[node, B_OCC] = fig
    if W[GAME][G_EGG_CARRIER] == fig:
        egg_moved(W)


@rule
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
        if (
            players[s, P_STATUS] == DEAD
            and players[s, P_SWARM] == swarm
            and players[s, P_HAND_N] > best_cards
        ):
            best, best_cards = s, players[s, P_HAND_N]
    return best


@rule
def side_of(fig, figs, players, team_mode):
    """The side a figure fights for: a plunderer's team (its seat in Free-for-All), a swarm's
    team in Team mode, and -1 - swarm for the Free-for-All swarm (everyone's enemy)."""
    if figs[fig, F_KIND] == PLUNDERER:
        return players[fig, P_TEAM]
    if team_mode == 1:
        return figs[fig, F_OWNER]
    return -1 - figs[fig, F_OWNER]


@rule
def friends(fig_a, fig_b, figs, players, team_mode):
    """Allies never fight: teammates and their swarm (Team mode), spawns of one swarm."""
    ta, tb = side_of(fig_a, figs, players, team_mode), side_of(fig_b, figs, players, team_mode)
    return ta == tb


@rule
def gain_coins(W, seat, amount, column):
    """Take up to ``amount`` coins from the bank (Components: 60 Blood Coins)."""
    game, players = W[GAME], W[PLAYERS]
    amount = min(amount, game[G_BANK])
    game[G_BANK] -= amount
    players[seat, P_COINS] += amount
    players[seat, column] += amount
    return amount


@rule
def reshuffle_objects(W):
    game, decks = W[GAME], W[DECKS]
    n = game[G_ODISC_N]
    for i in range(n):
        decks[D_OBJECTS, game[G_ODECK_N] + i] = decks[D_DISCARD, i]
        decks[D_DISCARD, i] = -1
    game[G_ODECK_N] += n
    game[G_ODISC_N] = 0
    shuffle(W[RNG], SETUP, decks[D_OBJECTS, : game[G_ODECK_N]])


@rule
def add_to_hand(W, seat, card):
    hands, players = W[HANDS], W[PLAYERS]
    for slot in range(hands.shape[1]):
        if hands[seat, slot] < 0:
            hands[seat, slot] = card
            players[seat, P_HAND_N] += 1
            return True
    return False


@rule
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


@rule
def take_from_hand(W, seat, slot):
    hands, players = W[HANDS], W[PLAYERS]
    card = hands[seat, slot]
    hands[seat, slot] = -1
    players[seat, P_HAND_N] -= 1
    return card


@rule
def discard_card(W, card):
    game = W[GAME]
    W[DECKS][D_DISCARD, game[G_ODISC_N]] = card
    game[G_ODISC_N] += 1


@rule
def discard_hand(W, seat):
    hands = W[HANDS]
    for slot in range(hands.shape[1]):
        if hands[seat, slot] >= 0:
            discard_card(W, take_from_hand(W, seat, slot))
