"""Karmaggän board geometry: the polar grid, its rotating rings, adjacency and distances.

The static layout (the CELLS block of ``rules``, laid from ``[board]`` of the rules by
:func:`build_cells`) stores each ring cell in its ring's own frame; a ring's rotation is one
offset ``state[G_OFFSET + ring]`` (in columns).  A cell's *physical* column is its frame
column plus that offset, so turning a ring carries its tiles, walls and figures with it and
changes which cells face each other across the ring's edges — nothing else has to move.

Adjacency is orthogonal only (Movement: never diagonally): clockwise / counter-clockwise in a
row (unless a radial wall), and inward / outward to the cell at the same physical column (unless
a wall on the inner side of the outer cell).  The last row touches the Centre; row 0 touches
the jungle node of a hatch at its column when that hatch is open.
"""

import numpy as np

from simulator.core.kernel import layer, rule
from simulator.games.karmaggan import state as S

UNREACHABLE = np.int64(1 << 20)
EXITS = np.int64(-2)  # distance target: the jungle beyond every open hatch
HATCH_CELLS = np.int64(
    -3
)  # distance target: the row-0 cells facing a hatch (waiting for one to open)
TEMPLES = np.int64(-4)  # distance target: every Temple tile and the Centre (to flip Temple cards)

# Invocation tiles are not printed on the board: they appear where a plunderer dies (A New Life)
TILE_CODES = {
    "S": S.BLANK,
    ".": S.BLANK,
    "#": S.ABYSS,
    "O": S.OBJECT_TILE,
    "T": S.TEMPLE_TILE,
    "B": S.BLOOD_TILE,
    "P": S.PASSAGE_TILE,
}
WALL_CODES = {
    " ": S.NO_WALL,
    "-": S.PLAIN_WALL,
    "a": S.ARROWS_WALL,
    "c": S.ACID_WALL,
    "f": S.FIRE_WALL,
}


def build_cells(board: dict, rules: np.ndarray) -> None:
    """Lay the static layout of ``[board]`` (ring cells, Centre, jungle nodes) into the CELLS
    block of ``rules`` (state.py)."""
    cols = board["columns"]
    ring_of_row = [r for r, n in enumerate(board["ring_rows"]) for _ in range(n)]
    rows = len(ring_of_row)
    centre = rows * cols
    rules[S.CELLS : S.CELLS_END] = -1
    start = 0
    for row in range(rows):
        for col in range(cols):
            i = row * cols + col
            ch = board["tiles"][row][col]
            rules[S.C_RING + i], rules[S.C_ROW + i], rules[S.C_COL + i] = ring_of_row[row], row, col
            rules[S.C_TILE0 + i] = TILE_CODES[ch]
            rules[S.C_WALL_CW + i] = int(board["walls_cw"][row][col] == "|")
            rules[S.C_WALL_IN + i] = WALL_CODES[board["walls_in"][row][col]]
            if ch == "S":
                rules[S.C_START + i] = start
                start += 1
    rules[S.C_RING + centre], rules[S.C_ROW + centre] = len(board["ring_rows"]), rows
    rules[S.C_TILE0 + centre] = S.CENTRE_TILE
    rules[S.C_WALL_CW + centre] = rules[S.C_WALL_IN + centre] = 0
    for h, (col, kind) in enumerate(zip(board["hatch_columns"], board["hatch_kinds"])):
        j = centre + 1 + h
        rules[S.C_ROW + j], rules[S.C_COL + j], rules[S.C_TILE0 + j] = -1, col, S.JUNGLE
        rules[S.C_HATCH + j], rules[S.C_HATCH_KIND + j] = h, 0 if kind == "day" else 1
        rules[S.C_WALL_CW + j] = rules[S.C_WALL_IN + j] = 0


@rule
def column_of(state, rules, cols, node):
    """Physical column of a ring cell (its frame column turned by its ring's offset)."""
    return (rules[S.C_COL + node] + state[S.G_OFFSET + rules[S.C_RING + node]]) % cols


@rule
def cell_of(state, rules, cols, row, col):
    """The ring cell of ``row`` now at physical column ``col``."""
    return row * cols + (col - state[S.G_OFFSET + rules[S.C_RING + row * cols]]) % cols


@rule
def phys_col(state, rules, node):
    return column_of(state, rules, rules[S.CFG_COLS], node)


@rule
def cell_at(state, rules, row, col):
    return cell_of(state, rules, rules[S.CFG_COLS], row, col)


@rule
def is_ring_cell(rules, node):
    return 0 <= node < rules[S.CFG_CENTRE]


@rule
def is_jungle(rules, node):
    return node > rules[S.CFG_CENTRE]


@rule
def outward(state, rules, node):
    """The cell just outside ``node`` at the same physical column, ignoring walls (-1 at the
    outer edge); the wall between them is ``rules[C_WALL_IN + outer]``."""
    row = rules[S.C_ROW + node]
    if row <= 0 or node == rules[S.CFG_CENTRE]:
        return -1
    return cell_at(state, rules, row - 1, phys_col(state, rules, node))


@rule
def hatch_cell(state, rules, h):
    """Row-0 cell now facing hatch ``h``."""
    return cell_at(state, rules, 0, rules[S.C_COL + rules[S.CFG_CENTRE] + 1 + h])


@rule
def update_adjacency(state, rules):
    """Bring the adjacency block (``adj_row(rules, node)``: the node's degree, then its
    neighbours, :func:`raw_neighbours`) up to date after the board changed (``G_VERSION``).
    A node's neighbours depend only on the offsets of its own ring and of the rings of the
    rows beside it, and a jungle node's or a row-0 cell's on the hatches: so only the rows a
    changed ring or hatch reaches are built again (a new Invocation tile, which also moves
    ``G_VERSION``, changes none), the whole block when the game has not built it yet."""
    if state[S.G_ADJ_VERSION] == state[S.G_VERSION] + 1:
        return
    cols, rows, centre = rules[S.CFG_COLS], rules[S.CFG_ROWS], rules[S.CFG_CENTRE]
    whole = state[S.G_ADJ_VERSION] == 0
    hatches = open_hatch_bits(state, rules)
    hatches_moved = whole or hatches != state[S.G_ADJ_HATCHES]
    ring_moved = 0
    for ring in range(rules[S.CFG_RINGS]):
        if whole or state[S.G_OFFSET + ring] != state[S.G_ADJ_OFFSET + ring]:
            ring_moved |= 1 << ring
            state[S.G_ADJ_OFFSET + ring] = state[S.G_OFFSET + ring]
    state[S.G_ADJ_HATCHES] = hatches
    for row in range(rows):
        near = (1 << ring_of_row(rules, row)) | (1 << ring_of_row(rules, max(row - 1, 0)))
        near |= 1 << ring_of_row(rules, min(row + 1, rows - 1))
        if ring_moved & near or (row == 0 and hatches_moved):
            for node in range(row * cols, (row + 1) * cols):
                build_neighbours(state, rules, node)
    if whole:
        build_neighbours(state, rules, centre)
    if hatches_moved or ring_moved & 1 << ring_of_row(rules, 0):
        for node in range(centre + 1, rules[S.CFG_NODES]):
            build_neighbours(state, rules, node)
    state[S.G_ADJ_VERSION] = state[S.G_VERSION] + 1
    state[S.G_DCACHE_WRITTEN] |= S.ADJ_WRITTEN


@rule
def build_neighbours(state, rules, node):
    at = S.adj_row(rules, node)
    state[at] = raw_neighbours(
        state,
        rules,
        node,
        at + 1,
        rules[S.CFG_COLS],
        rules[S.CFG_ROWS],
        rules[S.CFG_CENTRE],
        rules[S.CFG_HATCHES],
    )


@rule
def ring_of_row(rules, row):
    return rules[S.C_RING + row * rules[S.CFG_COLS]]


@rule
def open_hatch_bits(state, rules):
    """The open hatches as a bit set (bit h: hatch h)."""
    bits = 0
    for h in range(rules[S.CFG_HATCHES]):
        bits |= state[S.B_OPEN + rules[S.CFG_CENTRE] + 1 + h] << h
    return bits


@rule
def raw_neighbours(state, rules, node, at, cols, rows, centre, n_hatches):
    """Nodes orthogonally adjacent to ``node`` with no wall between (Board: walls are
    impassable); jungle nodes only through an open hatch.  Writes them from ``state[at]`` on;
    returns the count."""
    n = 0
    if node == centre:
        last = (rows - 1) * cols
        for i in range(last, last + cols):
            if rules[S.C_WALL_IN + i] == S.NO_WALL:
                state[at + n] = i
                n += 1
        return n
    if node > centre:
        if state[S.B_OPEN + node] == 1:
            state[at + 0] = cell_of(state, rules, cols, 0, rules[S.C_COL + node])
            return 1
        return 0
    row, col = rules[S.C_ROW + node], rules[S.C_COL + node]
    base = row * cols
    cw = base + (col + 1) % cols
    ccw = base + (col - 1) % cols
    if rules[S.C_WALL_CW + node] == 0:
        state[at + n] = cw
        n += 1
    if rules[S.C_WALL_CW + ccw] == 0:
        state[at + n] = ccw
        n += 1
    p = column_of(state, rules, cols, node)
    if rules[S.C_WALL_IN + node] == S.NO_WALL:
        state[at + n] = centre if row == rows - 1 else cell_of(state, rules, cols, row + 1, p)
        n += 1
    if row > 0:
        out = cell_of(state, rules, cols, row - 1, p)
        if rules[S.C_WALL_IN + out] == S.NO_WALL:
            state[at + n] = out
            n += 1
    else:
        for h in range(n_hatches):
            j = centre + 1 + h
            if rules[S.C_COL + j] == p and state[S.B_OPEN + j] == 1:
                state[at + n] = j
                n += 1
    return n


@rule
def bfs(state, rules, dist, n_sources):
    """Multi-source breadth-first distances over walkable nodes (not Abyss).  The first
    ``n_sources`` entries of the queue block are the sources; fills ``dist`` (UNREACHABLE where
    no path)."""
    update_adjacency(state, rules)
    queue = rules[S.CFG_QUEUE]
    dist[:] = UNREACHABLE
    for i in range(n_sources):
        dist[state[queue + i]] = 0
    head, tail = 0, n_sources
    while head < tail:
        node = state[queue + head]
        head += 1
        at = S.adj_row(rules, node)
        for j in range(1, state[at] + 1):
            nxt = state[at + j]
            if dist[nxt] == UNREACHABLE and state[S.B_TILE + nxt] != S.ABYSS:
                dist[nxt] = dist[node] + 1
                state[queue + tail] = nxt
                tail += 1


@rule
def distance_slot(state, rules, target):
    """The slot of the distance map to ``target`` (a node, EXITS,
    HATCH_CELLS or TEMPLES): int64[n_nodes] steps, cached per board version (rotations, hatch
    changes and new Invocation tiles bump ``G_VERSION``).  The map stays valid until the second
    next miss; it starts at ``dcache_row(rules, slot)`` (a kernel compiled without reference
    counting cannot return an array it did not receive)."""
    version = state[S.G_VERSION]
    for s in range(S.DCACHE_SLOTS):
        if state[S.G_DKEY + 2 * s] == version and state[S.G_DKEY + 2 * s + 1] == target:
            state[S.G_DCACHE_LAST] = s
            return s
    # round-robin replacement, sparing the map returned last: a caller may hold two at once
    s = state[S.G_DCACHE_NEXT]
    if s == state[S.G_DCACHE_LAST]:
        s = (s + 1) % S.DCACHE_SLOTS
    state[S.G_DCACHE_NEXT] = (s + 1) % S.DCACHE_SLOTS
    state[S.G_DCACHE_LAST] = s
    state[S.G_DCACHE_WRITTEN] |= 1 << s
    n = 0
    if target >= 0:
        state[rules[S.CFG_QUEUE]] = target
        n = 1
    elif target == TEMPLES:
        for node in range(rules[S.CFG_CENTRE] + 1):
            if state[S.B_TILE + node] == S.TEMPLE_TILE or state[S.B_TILE + node] == S.CENTRE_TILE:
                state[rules[S.CFG_QUEUE] + n] = node
                n += 1
    else:
        centre = rules[S.CFG_CENTRE]
        for h in range(rules[S.CFG_HATCHES]):
            j = centre + 1 + h
            if target == EXITS and state[S.B_OPEN + j] == 1:
                state[rules[S.CFG_QUEUE] + n] = j
                n += 1
            elif target == HATCH_CELLS:
                state[rules[S.CFG_QUEUE] + n] = hatch_cell(state, rules, h)
                n += 1
    at = S.dcache_row(rules, s)
    bfs(state, rules, state[at : at + rules[S.CFG_NODES]], n)
    state[S.G_DKEY + 2 * s] = version
    state[S.G_DKEY + 2 * s + 1] = target
    return s


@layer
def distance_map(state, rules, target):
    """The distance map to ``target`` (:func:`distance_slot`) as a view int64[n_nodes] of its
    row of the DCACHE block (a layer: inlined, it may hand its caller a view)."""
    at = S.dcache_row(rules, distance_slot(state, rules, target))
    return state[at : at + rules[S.CFG_NODES]]


def draw_rows(W, figures: dict | None = None) -> list[str]:
    """The board as text, one line per row at physical columns (outer row first), then the
    Centre: tiles as TILE_CHARS ('@' Centre), '|' radial walls, figures from ``figures``
    (node -> char) drawn over their tile; ``W`` a Python world (game.World).  Used by tests."""
    state, rules = W.state, W.rules
    cols, rows = int(rules[S.CFG_COLS]), int(rules[S.CFG_ROWS])
    figures = figures or {}
    lines = []
    for row in range(rows):
        text = ""
        for col in range(cols):
            node = int(cell_at(state, rules, row, col))
            text += figures.get(node, S.TILE_CHARS[state[S.B_TILE + node]])
            text += "|" if rules[S.C_WALL_CW + node] else " "
        lines.append(text.rstrip())
    centre = int(rules[S.CFG_CENTRE])
    lines.append("centre " + figures.get(centre, S.TILE_CHARS[state[S.B_TILE + centre]]))
    return lines
