"""Karmaggän board geometry: the polar grid, its rotating rings, adjacency and distances.

The static layout (``W[CELLS]``, built from ``[board]`` of the rules by
:func:`build_cells`) stores each ring cell in its ring's own frame; a ring's rotation is one
offset ``W[GAME][G_OFFSET + ring]`` (in columns).  A cell's *physical* column is its frame
column plus that offset, so turning a ring carries its tiles, walls and figures with it and
changes which cells face each other across the ring's edges — nothing else has to move.

Adjacency is orthogonal only (Movement: never diagonally): clockwise / counter-clockwise in a
row (unless a radial wall), and inward / outward to the cell at the same physical column (unless
a wall on the inner side of the outer cell).  The last row touches the Centre; row 0 touches
the jungle node of a hatch at its column when that hatch is open.
"""

import numpy as np

from simulator.core.kernel import rule
from simulator.games.karmaggan.state import (
    ABYSS,
    ACID_WALL,
    ADJ,
    ARROWS_WALL,
    B_OPEN,
    B_TILE,
    BLANK,
    BLOOD_TILE,
    BOARD,
    C_COL,
    C_HATCH,
    C_HATCH_KIND,
    C_RING,
    C_ROW,
    C_START,
    C_TILE0,
    C_WALL_CW,
    C_WALL_IN,
    CELLS,
    CENTRE_TILE,
    CFG,
    CFG_CENTRE,
    CFG_COLS,
    CFG_HATCHES,
    CFG_ROWS,
    DCACHE,
    DCACHE_SLOTS,
    FIRE_WALL,
    G_ADJ_VERSION,
    G_DCACHE_LAST,
    G_DCACHE_NEXT,
    G_DKEY,
    G_OFFSET,
    G_VERSION,
    GAME,
    JUNGLE,
    N_CELL,
    NO_WALL,
    OBJECT_TILE,
    PASSAGE_TILE,
    PLAIN_WALL,
    QUEUE,
    TEMPLE_TILE,
    TILE_CHARS,
)

UNREACHABLE = np.int64(1 << 20)
EXITS = np.int64(-2)  # distance target: the jungle beyond every open hatch
HATCH_CELLS = np.int64(
    -3
)  # distance target: the row-0 cells facing a hatch (waiting for one to open)
TEMPLES = np.int64(-4)  # distance target: every Temple tile and the Centre (to flip Temple cards)

# Invocation tiles are not printed on the board: they appear where a plunderer dies (A New Life)
TILE_CODES = {
    "S": BLANK,
    ".": BLANK,
    "#": ABYSS,
    "O": OBJECT_TILE,
    "T": TEMPLE_TILE,
    "B": BLOOD_TILE,
    "P": PASSAGE_TILE,
}
WALL_CODES = {" ": NO_WALL, "-": PLAIN_WALL, "a": ARROWS_WALL, "c": ACID_WALL, "f": FIRE_WALL}


def build_cells(board: dict) -> np.ndarray:
    """int64[n_nodes, N_CELL] static layout of ``[board]`` (ring cells, Centre, jungle nodes)."""
    cols = board["columns"]
    ring_of_row = [r for r, n in enumerate(board["ring_rows"]) for _ in range(n)]
    rows = len(ring_of_row)
    n_hatches = len(board["hatch_columns"])
    centre = rows * cols
    cells = np.full((centre + 1 + n_hatches, N_CELL), -1, dtype=np.int64)
    start = 0
    for row in range(rows):
        for col in range(cols):
            i = row * cols + col
            ch = board["tiles"][row][col]
            cells[i, C_RING], cells[i, C_ROW], cells[i, C_COL] = ring_of_row[row], row, col
            cells[i, C_TILE0] = TILE_CODES[ch]
            cells[i, C_WALL_CW] = int(board["walls_cw"][row][col] == "|")
            cells[i, C_WALL_IN] = WALL_CODES[board["walls_in"][row][col]]
            if ch == "S":
                cells[i, C_START] = start
                start += 1
    cells[centre, C_RING], cells[centre, C_ROW], cells[centre, C_TILE0] = (
        len(board["ring_rows"]),
        rows,
        CENTRE_TILE,
    )
    cells[centre, C_WALL_CW] = cells[centre, C_WALL_IN] = 0
    for h, (col, kind) in enumerate(zip(board["hatch_columns"], board["hatch_kinds"])):
        j = centre + 1 + h
        cells[j, C_ROW], cells[j, C_COL], cells[j, C_TILE0] = -1, col, JUNGLE
        cells[j, C_HATCH], cells[j, C_HATCH_KIND] = h, 0 if kind == "day" else 1
        cells[j, C_WALL_CW] = cells[j, C_WALL_IN] = 0
    return cells


@rule
def column_of(cells, game, cols, node):
    """Physical column of a ring cell (its frame column turned by its ring's offset)."""
    return (cells[node, C_COL] + game[G_OFFSET + cells[node, C_RING]]) % cols


@rule
def cell_of(cells, game, cols, row, col):
    """The ring cell of ``row`` now at physical column ``col``."""
    return row * cols + (col - game[G_OFFSET + cells[row * cols, C_RING]]) % cols


@rule
def phys_col(W, node):
    return column_of(W[CELLS], W[GAME], W[CFG][CFG_COLS], node)


@rule
def cell_at(W, row, col):
    return cell_of(W[CELLS], W[GAME], W[CFG][CFG_COLS], row, col)


@rule
def is_ring_cell(W, node):
    return 0 <= node < W[CFG][CFG_CENTRE]


@rule
def is_jungle(W, node):
    return node > W[CFG][CFG_CENTRE]


@rule
def outward(W, node):
    """The cell just outside ``node`` at the same physical column, ignoring walls (-1 at the
    outer edge); the wall between them is ``cells[outer, C_WALL_IN]``."""
    cells = W[CELLS]
    row = cells[node, C_ROW]
    if row <= 0 or node == W[CFG][CFG_CENTRE]:
        return -1
    return cell_at(W, row - 1, phys_col(W, node))


@rule
def hatch_cell(W, h):
    """Row-0 cell now facing hatch ``h``."""
    cfg, cells = W[CFG], W[CELLS]
    return cell_at(W, 0, cells[cfg[CFG_CENTRE] + 1 + h, C_COL])


@rule
def update_adjacency(W):
    """Bring ``W[ADJ]`` (int64[n_nodes, 1 + max_degree]: row ``node`` holds its degree then its
    neighbours, :func:`raw_neighbours`) up to date: rebuilt only after the board changed
    (``G_VERSION``).  Callers then read ``W[ADJ]`` (a kernel compiled without reference
    counting cannot return an array it did not receive)."""
    game, adj = W[GAME], W[ADJ]
    if game[G_ADJ_VERSION] != game[G_VERSION] + 1:
        cfg, cells, board = W[CFG], W[CELLS], W[BOARD]
        cols, rows, centre, n_hatches = (
            cfg[CFG_COLS],
            cfg[CFG_ROWS],
            cfg[CFG_CENTRE],
            cfg[CFG_HATCHES],
        )
        for node in range(adj.shape[0]):
            adj[node, 0] = raw_neighbours(
                node, adj[node, 1:], cells, board, game, cols, rows, centre, n_hatches
            )
        game[G_ADJ_VERSION] = game[G_VERSION] + 1


@rule
def raw_neighbours(node, buf, cells, board, game, cols, rows, centre, n_hatches):
    """Nodes orthogonally adjacent to ``node`` with no wall between (Board: walls are
    impassable); jungle nodes only through an open hatch.  Fills ``buf``, returns the count."""
    n = 0
    if node == centre:
        last = (rows - 1) * cols
        for i in range(last, last + cols):
            if cells[i, C_WALL_IN] == NO_WALL:
                buf[n] = i
                n += 1
        return n
    if node > centre:
        if board[node, B_OPEN] == 1:
            buf[0] = cell_of(cells, game, cols, 0, cells[node, C_COL])
            return 1
        return 0
    row, col = cells[node, C_ROW], cells[node, C_COL]
    base = row * cols
    cw = base + (col + 1) % cols
    ccw = base + (col - 1) % cols
    if cells[node, C_WALL_CW] == 0:
        buf[n] = cw
        n += 1
    if cells[ccw, C_WALL_CW] == 0:
        buf[n] = ccw
        n += 1
    p = column_of(cells, game, cols, node)
    if cells[node, C_WALL_IN] == NO_WALL:
        buf[n] = centre if row == rows - 1 else cell_of(cells, game, cols, row + 1, p)
        n += 1
    if row > 0:
        out = cell_of(cells, game, cols, row - 1, p)
        if cells[out, C_WALL_IN] == NO_WALL:
            buf[n] = out
            n += 1
    else:
        for h in range(n_hatches):
            j = centre + 1 + h
            if cells[j, C_COL] == p and board[j, B_OPEN] == 1:
                buf[n] = j
                n += 1
    return n


@rule
def bfs(W, dist, n_sources):
    """Multi-source breadth-first distances over walkable nodes (not Abyss).  The first
    ``n_sources`` entries of ``W[QUEUE]`` are the sources; fills ``dist`` (UNREACHABLE where
    no path)."""
    update_adjacency(W)
    board, queue, adj = W[BOARD], W[QUEUE], W[ADJ]
    dist[:] = UNREACHABLE
    for i in range(n_sources):
        dist[queue[i]] = 0
    head, tail = 0, n_sources
    while head < tail:
        node = queue[head]
        head += 1
        for j in range(1, adj[node, 0] + 1):
            nxt = adj[node, j]
            if dist[nxt] == UNREACHABLE and board[nxt, B_TILE] != ABYSS:
                dist[nxt] = dist[node] + 1
                queue[tail] = nxt
                tail += 1


@rule
def distance_slot(W, target):
    """The row of ``W[DCACHE]`` holding the distance map to ``target`` (a node, EXITS,
    HATCH_CELLS or TEMPLES): int64[n_nodes] steps, cached per board version (rotations, hatch
    changes and new Invocation tiles bump ``G_VERSION``).  The map stays valid until the second
    next miss.  A row index rather than the row: see :func:`update_adjacency`."""
    game, dcache = W[GAME], W[DCACHE]
    version = game[G_VERSION]
    for s in range(DCACHE_SLOTS):
        if game[G_DKEY + 2 * s] == version and game[G_DKEY + 2 * s + 1] == target:
            game[G_DCACHE_LAST] = s
            return s
    cfg, board, queue = W[CFG], W[BOARD], W[QUEUE]
    # round-robin replacement, sparing the map returned last: a caller may hold two at once
    s = game[G_DCACHE_NEXT]
    if s == game[G_DCACHE_LAST]:
        s = (s + 1) % DCACHE_SLOTS
    game[G_DCACHE_NEXT] = (s + 1) % DCACHE_SLOTS
    game[G_DCACHE_LAST] = s
    n = 0
    if target >= 0:
        queue[0] = target
        n = 1
    elif target == TEMPLES:
        for node in range(cfg[CFG_CENTRE] + 1):
            if board[node, B_TILE] == TEMPLE_TILE or board[node, B_TILE] == CENTRE_TILE:
                queue[n] = node
                n += 1
    else:
        centre = cfg[CFG_CENTRE]
        for h in range(cfg[CFG_HATCHES]):
            j = centre + 1 + h
            if target == EXITS and board[j, B_OPEN] == 1:
                queue[n] = j
                n += 1
            elif target == HATCH_CELLS:
                queue[n] = hatch_cell(W, h)
                n += 1
    bfs(W, dcache[s], n)
    game[G_DKEY + 2 * s] = version
    game[G_DKEY + 2 * s + 1] = target
    return s


def draw_rows(W, figures: dict | None = None) -> list[str]:
    """The board as text, one line per row at physical columns (outer row first), then the
    Centre: tiles as TILE_CHARS ('@' Centre), '|' radial walls, figures from ``figures``
    (node -> char) drawn over their tile.  Used by tests and replays."""
    cfg, cells, board = W[CFG], W[CELLS], W[BOARD]
    cols, rows = int(cfg[CFG_COLS]), int(cfg[CFG_ROWS])
    figures = figures or {}
    lines = []
    for row in range(rows):
        text = ""
        for col in range(cols):
            node = int(cell_at(W, row, col))
            text += figures.get(node, TILE_CHARS[board[node, B_TILE]])
            text += "|" if cells[node, C_WALL_CW] else " "
        lines.append(text.rstrip())
    centre = int(cfg[CFG_CENTRE])
    lines.append("centre " + figures.get(centre, TILE_CHARS[board[centre, B_TILE]]))
    return lines
