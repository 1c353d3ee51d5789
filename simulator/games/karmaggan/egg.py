"""Karmaggän: The Alien Egg — picking it up, passing, throwing, a Spawn flinging it.

Rulebook: shared/rules/karmaggan.md, sections "The Alien Egg", "Passing the Egg", "Throwing the
Egg".
"""

import numpy as np

from simulator.core.kernel import allocating, rule
from simulator.games.karmaggan import board, core, decide
from simulator.games.karmaggan import state as S


@rule
def pick_up_egg(state, rules, trace, fig):
    """The Alien Egg: a plunderer on the Egg's tile picks it up automatically."""
    if state[S.G_EGG_CARRIER] >= 0:
        return
    if fig < rules[S.CFG_PLAYERS] and state[S.G_EGG_POS] == state[S.F_POS + fig]:
        state[S.G_EGG_CARRIER] = fig
        state[S.G_EGG_POS] = -1
        core.record(state, trace, S.EV_EGG, fig, state[S.F_POS + fig], S.EGG_PICKUP, 0, 0)
        core.egg_moved(state, rules)


@rule
def give_egg(state, rules, trace, giver, receiver, how):
    """Passing / Throwing the Egg, or the winner of a combat taking it."""
    state[S.G_EGG_CARRIER] = receiver
    state[S.G_EGG_POS] = -1
    core.record(state, trace, S.EV_EGG, giver, receiver, how, 0, 0)
    core.egg_moved(state, rules)


@rule
def first_on_line(state, rules, node):
    """The first figure on the line of fire that runs outward from ``node`` (``node`` included)
    to the outer edge, or NOBODY: walls stop it, Abysses do not (Ring Traps; Throwing the Egg:
    "as if it were a Wall Trap")."""
    while True:
        occ = state[S.B_OCC + node]
        if occ != S.NOBODY:
            return occ
        out = board.outward(state, rules, node)
        if out < 0 or rules[S.C_WALL_IN + out] != S.NO_WALL:
            return S.NOBODY
        node = out


@rule
def list_throws(state, rules, seat, n):
    """Throwing the Egg: ACT_THROW options after ``n`` — a plunderer at the end of a line of
    fire from the carrier's tile outward, with no wall or other figure in between; from the
    Centre (the innermost tile) the lines run out through every cell of the last row open to
    it.  Returns the new option count."""
    node = state[S.F_POS + seat]
    centre = rules[S.CFG_CENTRE]
    if not (board.is_ring_cell(rules, node) or node == centre):
        return n
    board.update_adjacency(state, rules)
    lines = state[S.adj_row(rules, node) + 0] if node == centre else 1
    for j in range(lines):
        start = (
            state[S.adj_row(rules, node) + 1 + j]
            if node == centre
            else board.outward(state, rules, node)
        )
        if start < 0 or (node != centre and rules[S.C_WALL_IN + start] != S.NO_WALL):
            continue
        target = first_on_line(state, rules, start)
        if 0 <= target < rules[S.CFG_PLAYERS] and target != seat and n < S.MAX_OPTIONS:
            S.set_option(state, n, S.ACT_THROW, target, state[S.F_POS + target])
            n += 1
    return n


@allocating
def fling_egg(state, rules, knobs, rng, trace, node):
    """Throwing the Egg: a Spawn that kills (or beats) the carrier throws the Egg 1 tile, one
    more while the tile holds a Spawn; a plunderer there picks it up.  ASSUMED: the swarm's
    player chooses among the nearest such tiles."""
    dist = np.empty(rules[S.CFG_NODES], dtype=np.int64)
    state[rules[S.CFG_QUEUE] + 0] = node
    bfs_local(state, rules, dist, node)
    best = 1 << 20
    for other in range(rules[S.CFG_CENTRE] + 1):
        occ = state[S.B_OCC + other]
        if dist[other] >= 1 and (occ == S.NOBODY or state[S.F_KIND + occ] == S.PLUNDERER):
            best = min(best, dist[other])
    n = 0
    for other in range(rules[S.CFG_CENTRE] + 1):
        occ = state[S.B_OCC + other]
        if (
            dist[other] == best
            and (occ == S.NOBODY or state[S.F_KIND + occ] == S.PLUNDERER)
            and n < S.MAX_OPTIONS
        ):
            S.set_option(state, n, S.ACT_MOVE, -1, other)
            n += 1
    if n == 0:
        state[S.G_EGG_POS] = node
        return
    dest = state[S.OPT_B + decide.choose(state, rules, knobs, rng, S.EGG_DEST, state[S.G_SEAT], n)]
    state[S.G_EGG_POS] = dest
    core.record(state, trace, S.EV_EGG, state[S.G_SEAT], dest, S.EGG_FLUNG, 0, 0)
    occ = state[S.B_OCC + dest]
    if occ != S.NOBODY:
        pick_up_egg(state, rules, trace, occ)
    core.egg_moved(state, rules)


@rule
def bfs_local(state, rules, dist, source):
    """Distances from ``source`` over walkable ring cells and the Centre (no jungle)."""
    board.update_adjacency(state, rules)
    dist[:] = 1 << 20
    dist[source] = 0
    state[rules[S.CFG_QUEUE] + 0] = source
    head, tail = 0, 1
    while head < tail:
        node = state[rules[S.CFG_QUEUE] + head]
        head += 1
        for j in range(1, state[S.adj_row(rules, node) + 0] + 1):
            nxt = state[S.adj_row(rules, node) + j]
            if (
                dist[nxt] == 1 << 20
                and state[S.B_TILE + nxt] != S.ABYSS
                and not board.is_jungle(rules, nxt)
            ):
                dist[nxt] = dist[node] + 1
                state[rules[S.CFG_QUEUE] + tail] = nxt
                tail += 1
    return tail
