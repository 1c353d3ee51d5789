"""Karmaggän: The Alien Egg — picking it up, passing, throwing, a Spawn flinging it.

Rulebook: shared/rules/karmaggan.md, sections "The Alien Egg", "Passing the Egg", "Throwing the
Egg".
"""

import numpy as np

from simulator.core.kernel import allocating, rule
from simulator.games.karmaggan.board import is_jungle, is_ring_cell, outward, update_adjacency
from simulator.games.karmaggan.core import egg_moved, record
from simulator.games.karmaggan.decide import choose
from simulator.games.karmaggan.state import (
    ABYSS,
    ACT_MOVE,
    ACT_THROW,
    ADJ,
    B_OCC,
    B_TILE,
    BOARD,
    C_WALL_IN,
    CELLS,
    CFG,
    CFG_CENTRE,
    CFG_NODES,
    CFG_PLAYERS,
    EGG_DEST,
    EGG_FLUNG,
    EGG_PICKUP,
    EV_EGG,
    F_KIND,
    F_POS,
    FIGS,
    G_EGG_CARRIER,
    G_EGG_POS,
    G_SEAT,
    GAME,
    MAX_OPTIONS,
    NO_WALL,
    NOBODY,
    OPT_A,
    OPT_ACT,
    OPT_B,
    OPTIONS,
    PLUNDERER,
    QUEUE,
)


@rule
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


@rule
def give_egg(W, giver, receiver, how):
    """Passing / Throwing the Egg, or the winner of a combat taking it."""
    game = W[GAME]
    game[G_EGG_CARRIER] = receiver
    game[G_EGG_POS] = -1
    record(W, EV_EGG, giver, receiver, how, 0, 0)
    egg_moved(W)


@rule
def first_on_line(W, node):
    """The first figure on the line of fire that runs outward from ``node`` (``node`` included)
    to the outer edge, or NOBODY: walls stop it, Abysses do not (Ring Traps; Throwing the Egg:
    "as if it were a Wall Trap")."""
    board, cells = W[BOARD], W[CELLS]
    while True:
        occ = board[node, B_OCC]
        if occ != NOBODY:
            return occ
        out = outward(W, node)
        if out < 0 or cells[out, C_WALL_IN] != NO_WALL:
            return NOBODY
        node = out


@rule
def list_throws(W, seat, n):
    """Throwing the Egg: ACT_THROW options after ``n`` — a plunderer at the end of a line of
    fire from the carrier's tile outward, with no wall or other figure in between; from the
    Centre (the innermost tile) the lines run out through every cell of the last row open to
    it.  Returns the new option count."""
    cfg, cells, figs, options = W[CFG], W[CELLS], W[FIGS], W[OPTIONS]
    node = figs[seat, F_POS]
    centre = cfg[CFG_CENTRE]
    if not (is_ring_cell(W, node) or node == centre):
        return n
    update_adjacency(W)
    adj = W[ADJ]
    lines = adj[node, 0] if node == centre else 1
    for j in range(lines):
        start = adj[node, 1 + j] if node == centre else outward(W, node)
        if start < 0 or (node != centre and cells[start, C_WALL_IN] != NO_WALL):
            continue
        target = first_on_line(W, start)
        if 0 <= target < cfg[CFG_PLAYERS] and target != seat and n < MAX_OPTIONS:
            options[n, OPT_ACT], options[n, OPT_A], options[n, OPT_B] = (
                ACT_THROW,
                target,
                figs[target, F_POS],
            )
            n += 1
    return n


@allocating
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
        if (
            dist[other] == best
            and (occ == NOBODY or figs[occ, F_KIND] == PLUNDERER)
            and n < MAX_OPTIONS
        ):
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


@rule
def bfs_local(W, dist, source):
    """Distances from ``source`` over walkable ring cells and the Centre (no jungle)."""
    board, queue = W[BOARD], W[QUEUE]
    update_adjacency(W)
    adj = W[ADJ]
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
