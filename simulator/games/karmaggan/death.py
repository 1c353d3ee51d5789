"""Karmaggän: Dead or Alive and A New Life — losing blood coins, dying, Invocation tiles.

Rulebook: shared/rules/karmaggan.md, sections "Dead or Alive", "Invocation Tiles", "A New Life".
"""

from simulator.core.kernel import rule
from simulator.games.karmaggan.board import is_jungle, is_ring_cell, update_adjacency
from simulator.games.karmaggan.core import place_figure, record
from simulator.games.karmaggan.state import (
    ABYSS,
    ALIVE,
    B_BLOOD,
    B_SWARM,
    B_TILE,
    CFG_CENTRE,
    CFG_INVOCATION_TILES,
    CFG_TEAM_MODE,
    DEAD,
    EGG_DROPPED,
    EV_DAMAGE,
    EV_DEATH,
    EV_EGG,
    F_POS,
    G_BANK,
    G_DEATHS,
    G_EGG_CARRIER,
    G_EGG_POS,
    G_ROUND,
    G_SEAT,
    G_TEAM_DIED,
    G_TURN_ENDED,
    G_VERSION,
    INVOCATION,
    MAX_PLAYERS,
    OFF,
    P_COINS,
    P_DEATH_ROUND,
    P_LOST_ARROWS,
    P_STATUS,
    P_SWARM,
    P_TEAM,
    adj_row,
)


@rule
def lose_coins(state, rules, trace, seat, amount, source):
    """Pay ``amount`` blood coins (at most all of them) to the bank; Dead or Alive: a
    plunderer with no coins left dies."""
    if state[P_STATUS + seat] != ALIVE or amount <= 0:
        return 0
    amount = min(amount, state[P_COINS + seat])
    before = state[P_COINS + seat]
    state[P_COINS + seat] -= amount
    state[G_BANK] += amount
    state[P_LOST_ARROWS + source * MAX_PLAYERS + seat] += amount
    record(state, trace, EV_DAMAGE, seat, source, amount, before, state[P_COINS + seat])
    if state[P_COINS + seat] == 0:
        plunderer_dies(state, rules, trace, seat)
    return amount


@rule
def plunderer_dies(state, rules, trace, seat):
    """Dead or Alive / A New Life: the plunderer leaves the Temple; its tile becomes an
    Invocation tile of its swarm (a second one on an adjacent tile for the first death of its
    team, or the first death of all in Free-for-All).  It drops the Egg where it falls
    (ASSUMED)."""
    node = state[F_POS + seat]
    state[P_STATUS + seat] = DEAD
    state[P_DEATH_ROUND + seat] = state[G_ROUND]
    state[G_DEATHS] += 1
    if seat == state[G_SEAT]:
        state[G_TURN_ENDED] = 1
    record(state, trace, EV_DEATH, seat, node, 0, 0, 0)
    if state[G_EGG_CARRIER] == seat:
        state[G_EGG_CARRIER] = -1
        state[G_EGG_POS] = node
        record(state, trace, EV_EGG, seat, node, EGG_DROPPED, 0, 0)
    place_figure(state, rules, seat, OFF)
    if node < 0 or is_jungle(rules, node):
        return
    swarm = state[P_SWARM + seat]
    invocation_tile(state, rules, node, swarm)
    bit = 1 << (state[P_TEAM + seat] if rules[CFG_TEAM_MODE] == 1 else 0)
    if state[G_TEAM_DIED] & bit == 0:
        state[G_TEAM_DIED] |= bit
        second = neighbour_for_invocation(state, rules, node, swarm)
        if second >= 0:
            invocation_tile(state, rules, second, swarm)


@rule
def invocation_tile(state, rules, node, swarm):
    """A New Life: the tile becomes an Invocation tile of ``swarm``'s colour, whatever it was
    (a full Blood tile loses its coins; another swarm's tile goes back to that swarm).
    Components: each swarm has 6 (Illuminated / Dark); ASSUMED: none is placed while all of
    them are on the board, and the Centre never becomes one (the tile goes to a neighbour)."""
    if node == rules[CFG_CENTRE]:
        node = neighbour_for_invocation(state, rules, node, swarm)
        if node < 0:
            return
    if state[B_TILE + node] == INVOCATION and state[B_SWARM + node] == swarm:
        return
    placed = 0
    for other in range(rules[CFG_CENTRE]):
        if state[B_TILE + other] == INVOCATION and state[B_SWARM + other] == swarm:
            placed += 1
    if placed >= rules[CFG_INVOCATION_TILES]:
        return
    state[B_TILE + node] = INVOCATION
    state[B_SWARM + node] = swarm
    state[B_BLOOD + node] = 0
    state[G_VERSION] += 1


@rule
def neighbour_for_invocation(state, rules, node, swarm):
    """A New Life: "place a second Invocation Tile on an adjacent Tile" (ASSUMED: the first ring
    cell next to ``node``, in the order of :func:`board.raw_neighbours`, that is no Abyss and
    not already one of the swarm's Invocation tiles)."""
    update_adjacency(state, rules)
    for j in range(1, state[adj_row(rules, node) + 0] + 1):
        nxt = state[adj_row(rules, node) + j]
        if (
            is_ring_cell(rules, nxt)
            and state[B_TILE + nxt] != ABYSS
            and not (state[B_TILE + nxt] == INVOCATION and state[B_SWARM + nxt] == swarm)
        ):
            return nxt
    return -1
