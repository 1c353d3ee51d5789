"""Karmaggän: Dead or Alive and A New Life — losing blood coins, dying, Invocation tiles.

Rulebook: shared/rules/karmaggan.md, sections "Dead or Alive", "Invocation Tiles", "A New Life".
"""

from simulator.core.kernel import rule
from simulator.games.karmaggan.board import is_jungle, is_ring_cell, update_adjacency
from simulator.games.karmaggan.core import place_figure, record
from simulator.games.karmaggan.state import (
    ABYSS,
    ADJ,
    ALIVE,
    B_BLOOD,
    B_SWARM,
    B_TILE,
    BOARD,
    CFG,
    CFG_CENTRE,
    CFG_INVOCATION_TILES,
    CFG_TEAM_MODE,
    DEAD,
    EGG_DROPPED,
    EV_DAMAGE,
    EV_DEATH,
    EV_EGG,
    F_POS,
    FIGS,
    G_BANK,
    G_DEATHS,
    G_EGG_CARRIER,
    G_EGG_POS,
    G_ROUND,
    G_SEAT,
    G_TEAM_DIED,
    G_TURN_ENDED,
    G_VERSION,
    GAME,
    INVOCATION,
    OFF,
    P_COINS,
    P_DEATH_ROUND,
    P_LOST_ARROWS,
    P_STATUS,
    P_SWARM,
    P_TEAM,
    PLAYERS,
)


@rule
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


@rule
def plunderer_dies(W, seat):
    """Dead or Alive / A New Life: the plunderer leaves the Temple; its tile becomes an
    Invocation tile of its swarm (a second one on an adjacent tile for the first death of its
    team, or the first death of all in Free-for-All).  It drops the Egg where it falls
    (ASSUMED)."""
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
    swarm = players[seat, P_SWARM]
    invocation_tile(W, node, swarm)
    bit = 1 << (players[seat, P_TEAM] if W[CFG][CFG_TEAM_MODE] == 1 else 0)
    if game[G_TEAM_DIED] & bit == 0:
        game[G_TEAM_DIED] |= bit
        second = neighbour_for_invocation(W, node, swarm)
        if second >= 0:
            invocation_tile(W, second, swarm)


@rule
def invocation_tile(W, node, swarm):
    """A New Life: the tile becomes an Invocation tile of ``swarm``'s colour, whatever it was
    (a full Blood tile loses its coins; another swarm's tile goes back to that swarm).
    Components: each swarm has 6 (Illuminated / Dark); ASSUMED: none is placed while all of
    them are on the board, and the Centre never becomes one (the tile goes to a neighbour)."""
    board = W[BOARD]
    if node == W[CFG][CFG_CENTRE]:
        node = neighbour_for_invocation(W, node, swarm)
        if node < 0:
            return
    if board[node, B_TILE] == INVOCATION and board[node, B_SWARM] == swarm:
        return
    placed = 0
    for other in range(W[CFG][CFG_CENTRE]):
        if board[other, B_TILE] == INVOCATION and board[other, B_SWARM] == swarm:
            placed += 1
    if placed >= W[CFG][CFG_INVOCATION_TILES]:
        return
    board[node, B_TILE] = INVOCATION
    board[node, B_SWARM] = swarm
    board[node, B_BLOOD] = 0
    W[GAME][G_VERSION] += 1


@rule
def neighbour_for_invocation(W, node, swarm):
    """A New Life: "place a second Invocation Tile on an adjacent Tile" (ASSUMED: the first ring
    cell next to ``node``, in the order of :func:`board.raw_neighbours`, that is no Abyss and
    not already one of the swarm's Invocation tiles)."""
    update_adjacency(W)
    board, adj = W[BOARD], W[ADJ]
    for j in range(1, adj[node, 0] + 1):
        nxt = adj[node, j]
        if (
            is_ring_cell(W, nxt)
            and board[nxt, B_TILE] != ABYSS
            and not (board[nxt, B_TILE] == INVOCATION and board[nxt, B_SWARM] == swarm)
        ):
            return nxt
    return -1
