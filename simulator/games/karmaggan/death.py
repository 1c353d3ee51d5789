"""Karmaggän: Dead or Alive and A New Life — losing blood coins, dying, Invocation tiles.

Rulebook: shared/rules/karmaggan.md, sections "Dead or Alive", "Invocation Tiles", "A New Life".
"""

from simulator.core.kernel import rule
from simulator.games.karmaggan import board, core
from simulator.games.karmaggan import state as S


@rule
def lose_coins(state, rules, trace, seat, amount, source):
    """Pay ``amount`` blood coins (at most all of them) to the bank; Dead or Alive: a
    plunderer with no coins left dies."""
    if state[S.P_STATUS + seat] != S.ALIVE or amount <= 0:
        return 0
    amount = min(amount, state[S.P_COINS + seat])
    before = state[S.P_COINS + seat]
    state[S.P_COINS + seat] -= amount
    state[S.G_BANK] += amount
    state[S.P_LOST_ARROWS + source * S.MAX_PLAYERS + seat] += amount
    core.record(state, trace, S.EV_DAMAGE, seat, source, amount, before, state[S.P_COINS + seat])
    if state[S.P_COINS + seat] == 0:
        plunderer_dies(state, rules, trace, seat)
    return amount


@rule
def plunderer_dies(state, rules, trace, seat):
    """Dead or Alive / A New Life: the plunderer leaves the Temple; its tile becomes an
    Invocation tile of its swarm (a second one on an adjacent tile for the first death of its
    team, or the first death of all in Free-for-All).  It drops the Egg where it falls
    (ASSUMED)."""
    node = state[S.F_POS + seat]
    state[S.P_STATUS + seat] = S.DEAD
    state[S.P_DEATH_ROUND + seat] = state[S.G_ROUND]
    state[S.G_DEATHS] += 1
    if seat == state[S.G_SEAT]:
        state[S.G_TURN_ENDED] = 1
    core.record(state, trace, S.EV_DEATH, seat, node, 0, 0, 0)
    if state[S.G_EGG_CARRIER] == seat:
        state[S.G_EGG_CARRIER] = -1
        state[S.G_EGG_POS] = node
        core.record(state, trace, S.EV_EGG, seat, node, S.EGG_DROPPED, 0, 0)
    core.place_figure(state, rules, seat, S.OFF)
    if node < 0 or board.is_jungle(rules, node):
        return
    swarm = state[S.P_SWARM + seat]
    invocation_tile(state, rules, node, swarm)
    bit = 1 << (state[S.P_TEAM + seat] if rules[S.CFG_TEAM_MODE] == 1 else 0)
    if state[S.G_TEAM_DIED] & bit == 0:
        state[S.G_TEAM_DIED] |= bit
        second = neighbour_for_invocation(state, rules, node, swarm)
        if second >= 0:
            invocation_tile(state, rules, second, swarm)


@rule
def invocation_tile(state, rules, node, swarm):
    """A New Life: the tile becomes an Invocation tile of ``swarm``'s colour, whatever it was
    (a full Blood tile loses its coins; another swarm's tile goes back to that swarm).
    Components: each swarm has 6 (Illuminated / Dark); ASSUMED: none is placed while all of
    them are on the board, and the Centre never becomes one (the tile goes to a neighbour)."""
    if node == rules[S.CFG_CENTRE]:
        node = neighbour_for_invocation(state, rules, node, swarm)
        if node < 0:
            return
    if state[S.B_TILE + node] == S.INVOCATION and state[S.B_SWARM + node] == swarm:
        return
    placed = 0
    for other in range(rules[S.CFG_CENTRE]):
        if state[S.B_TILE + other] == S.INVOCATION and state[S.B_SWARM + other] == swarm:
            placed += 1
    if placed >= rules[S.CFG_INVOCATION_TILES]:
        return
    state[S.B_TILE + node] = S.INVOCATION
    state[S.B_SWARM + node] = swarm
    state[S.B_BLOOD + node] = 0
    state[S.G_VERSION] += 1


@rule
def neighbour_for_invocation(state, rules, node, swarm):
    """A New Life: "place a second Invocation Tile on an adjacent Tile" (ASSUMED: the first ring
    cell next to ``node``, in the order of :func:`board.raw_neighbours`, that is no Abyss and
    not already one of the swarm's Invocation tiles)."""
    board.update_adjacency(state, rules)
    for j in range(1, state[S.adj_row(rules, node) + 0] + 1):
        nxt = state[S.adj_row(rules, node) + j]
        if (
            board.is_ring_cell(rules, nxt)
            and state[S.B_TILE + nxt] != S.ABYSS
            and not (state[S.B_TILE + nxt] == S.INVOCATION and state[S.B_SWARM + nxt] == swarm)
        ):
            return nxt
    return -1
