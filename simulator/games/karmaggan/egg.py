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
    B_OCC,
    B_TILE,
    C_WALL_IN,
    CFG_CENTRE,
    CFG_NODES,
    CFG_PLAYERS,
    CFG_QUEUE,
    EGG_DEST,
    EGG_FLUNG,
    EGG_PICKUP,
    EV_EGG,
    F_KIND,
    F_POS,
    G_EGG_CARRIER,
    G_EGG_POS,
    G_SEAT,
    MAX_OPTIONS,
    NO_WALL,
    NOBODY,
    OPT_B,
    PLUNDERER,
    adj_row,
    set_option,
)


@rule
def pick_up_egg(state, rules, trace, fig):
    """The Alien Egg: a plunderer on the Egg's tile picks it up automatically."""
    if state[G_EGG_CARRIER] >= 0:
        return
    if fig < rules[CFG_PLAYERS] and state[G_EGG_POS] == state[F_POS + fig]:
        state[G_EGG_CARRIER] = fig
        state[G_EGG_POS] = -1
        record(state, trace, EV_EGG, fig, state[F_POS + fig], EGG_PICKUP, 0, 0)
        egg_moved(state, rules)


@rule
def give_egg(state, rules, trace, giver, receiver, how):
    """Passing / Throwing the Egg, or the winner of a combat taking it."""
    state[G_EGG_CARRIER] = receiver
    state[G_EGG_POS] = -1
    record(state, trace, EV_EGG, giver, receiver, how, 0, 0)
    egg_moved(state, rules)


@rule
def first_on_line(state, rules, node):
    """The first figure on the line of fire that runs outward from ``node`` (``node`` included)
    to the outer edge, or NOBODY: walls stop it, Abysses do not (Ring Traps; Throwing the Egg:
    "as if it were a Wall Trap")."""
    while True:
        occ = state[B_OCC + node]
        if occ != NOBODY:
            return occ
        out = outward(state, rules, node)
        if out < 0 or rules[C_WALL_IN + out] != NO_WALL:
            return NOBODY
        node = out


@rule
def list_throws(state, rules, seat, n):
    """Throwing the Egg: ACT_THROW options after ``n`` — a plunderer at the end of a line of
    fire from the carrier's tile outward, with no wall or other figure in between; from the
    Centre (the innermost tile) the lines run out through every cell of the last row open to
    it.  Returns the new option count."""
    node = state[F_POS + seat]
    centre = rules[CFG_CENTRE]
    if not (is_ring_cell(rules, node) or node == centre):
        return n
    update_adjacency(state, rules)
    lines = state[adj_row(rules, node) + 0] if node == centre else 1
    for j in range(lines):
        start = (
            state[adj_row(rules, node) + 1 + j] if node == centre else outward(state, rules, node)
        )
        if start < 0 or (node != centre and rules[C_WALL_IN + start] != NO_WALL):
            continue
        target = first_on_line(state, rules, start)
        if 0 <= target < rules[CFG_PLAYERS] and target != seat and n < MAX_OPTIONS:
            set_option(state, n, ACT_THROW, target, state[F_POS + target])
            n += 1
    return n


@allocating
def fling_egg(state, rules, knobs, rng, trace, node):
    """Throwing the Egg: a Spawn that kills (or beats) the carrier throws the Egg 1 tile, one
    more while the tile holds a Spawn; a plunderer there picks it up.  ASSUMED: the swarm's
    player chooses among the nearest such tiles."""
    dist = np.empty(rules[CFG_NODES], dtype=np.int64)
    state[rules[CFG_QUEUE] + 0] = node
    bfs_local(state, rules, dist, node)
    best = 1 << 20
    for other in range(rules[CFG_CENTRE] + 1):
        occ = state[B_OCC + other]
        if dist[other] >= 1 and (occ == NOBODY or state[F_KIND + occ] == PLUNDERER):
            best = min(best, dist[other])
    n = 0
    for other in range(rules[CFG_CENTRE] + 1):
        occ = state[B_OCC + other]
        if (
            dist[other] == best
            and (occ == NOBODY or state[F_KIND + occ] == PLUNDERER)
            and n < MAX_OPTIONS
        ):
            set_option(state, n, ACT_MOVE, -1, other)
            n += 1
    if n == 0:
        state[G_EGG_POS] = node
        return
    dest = state[OPT_B + choose(state, rules, knobs, rng, EGG_DEST, state[G_SEAT], n)]
    state[G_EGG_POS] = dest
    record(state, trace, EV_EGG, state[G_SEAT], dest, EGG_FLUNG, 0, 0)
    occ = state[B_OCC + dest]
    if occ != NOBODY:
        pick_up_egg(state, rules, trace, occ)
    egg_moved(state, rules)


@rule
def bfs_local(state, rules, dist, source):
    """Distances from ``source`` over walkable ring cells and the Centre (no jungle)."""
    update_adjacency(state, rules)
    dist[:] = 1 << 20
    dist[source] = 0
    state[rules[CFG_QUEUE] + 0] = source
    head, tail = 0, 1
    while head < tail:
        node = state[rules[CFG_QUEUE] + head]
        head += 1
        for j in range(1, state[adj_row(rules, node) + 0] + 1):
            nxt = state[adj_row(rules, node) + j]
            if dist[nxt] == 1 << 20 and state[B_TILE + nxt] != ABYSS and not is_jungle(rules, nxt):
                dist[nxt] = dist[node] + 1
                state[rules[CFG_QUEUE] + tail] = nxt
                tail += 1
    return tail
