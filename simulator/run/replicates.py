"""Playing a variant whose field adapts: game g by the knob sets of replicate g mod R.

An adapted field is adapted to each rules variant R times, with independent seeds
(:mod:`simulator.experiments.adapt`), so that an answer can count the spread between
adaptations.  A dataset of such a field plays every replicate: game g of every variant is
played by replicate ``g mod R`` (the same game, seed and replicate in every variant: common
random numbers), and its ``games`` and ``players`` rows carry ``replicate`` (int8, 0..R-1)
after ``variant``.  Within a task, each replicate's games play in one kernel call with that
replicate's engine arrays, and the rows are put back in game order, so a part depends only on
its game ids, never on ``--jobs``, chunks or backend.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from simulator.core.game import Game
from simulator.run.tables import build_tables

REPLICATE_TABLES = ("games", "players")  # the tables that carry the replicate column


def play_tables(
    game: Game, variant, params: list[tuple], game_ids, seeds, seat_ids
) -> dict[str, pa.Table]:
    """The Arrow tables of one task of ``variant`` (a runner Variant): ``params`` holds the
    engine arrays of each of its replicates (one array set: a variant without replicates)."""
    if not variant.replicates:
        raw = game.play(params[0], seeds, seat_ids)
        return build_tables(game, variant, game_ids, seeds, seat_ids, raw)
    count = len(params)
    parts = []
    for r in range(count):
        pick = np.flatnonzero(game_ids % count == r)
        if pick.size:
            raw = game.play(params[r], seeds[pick], seat_ids[pick])
            tables = build_tables(game, variant, game_ids[pick], seeds[pick], seat_ids[pick], raw)
            parts.append(with_replicate(tables, r))
    out = {}
    for name in parts[0]:  # in game order; a game's timeline rows keep theirs
        table = pa.concat_tables([part[name] for part in parts])
        out[name] = table.take(np.argsort(table["game_id"].to_numpy(), kind="stable"))
    return out


def with_replicate(tables: dict[str, pa.Table], replicate: int) -> dict:
    """``tables`` with the ``replicate`` column after ``variant`` in games and players."""
    out = dict(tables)
    for name in REPLICATE_TABLES:
        table = tables[name]
        column = pa.array(np.full(table.num_rows, replicate, dtype=np.int8))
        out[name] = table.add_column(
            table.schema.get_field_index("variant") + 1, "replicate", column
        )
    return out
