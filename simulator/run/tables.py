"""The Arrow tables of one task: the engine's columns plus the contract's common columns
(docs/datasets.md), with string columns decoded from codes and integer columns narrowed.

Columns become Arrow arrays over the numpy arrays' own buffers (:func:`arrow`), not through
``pa.array``: its first call in a process imports pandas to check for pandas types, about a
second of CPU in every worker process of every command, for a table of plain numbers.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from simulator.core.errors import Fault
from simulator.core.game import Game
from simulator.core.seating import neighbour


def arrow(values) -> pa.Array:
    """A 1-d numpy column of numbers or booleans as an Arrow array (numbers share its buffer)."""
    values = np.ascontiguousarray(values)
    if values.dtype.kind not in "biuf":
        return pa.array(values)
    if values.dtype == np.bool_:
        bits = np.packbits(values, bitorder="little")  # Arrow keeps booleans as bits
        return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])
    kind = pa.from_numpy_dtype(values.dtype)
    return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(values)])


def strings(labels, codes) -> pa.Array:
    """Decode int codes into a string column without one Python object per row."""
    encoded = [str(label).encode() for label in labels]
    offsets = np.zeros(len(encoded) + 1, np.int32)
    offsets[1:] = np.cumsum([len(e) for e in encoded])
    dictionary = pa.Array.from_buffers(
        pa.string(), len(encoded), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    )
    return dictionary.take(arrow(np.asarray(codes, np.int32)))


def constant(value, n: int) -> pa.Array:
    if isinstance(value, str):
        return strings([value], np.zeros(n, np.int32))
    return arrow(np.full(n, value))


def narrow(values, dtype, name: str) -> np.ndarray:
    """``values`` as the contract's ``dtype``, refusing to wrap a value that does not fit."""
    values = np.asarray(values)
    info = np.iinfo(dtype)
    if values.size and (values.min() < info.min or values.max() > info.max):
        raise Fault(
            f"games.{name} reached {values.max():,}, beyond the {np.dtype(dtype).name} "
            "column the dataset records it in; these rules make games too long"
        )
    return values.astype(dtype)


def ranks(score: np.ndarray) -> np.ndarray:
    """int8 rank per seat, 1 = best, ties share the better rank."""
    return (1 + (score[:, None, :] > score[:, :, None]).sum(axis=2)).astype(np.int8)


def build_tables(game: Game, variant, game_ids, seeds, seat_ids, raw) -> dict:
    """Arrow tables of one task of ``variant`` (a runner Variant) from the engine's columns plus
    the contract's common columns."""
    n, p = seat_ids.shape
    policy_names = [pol.name for pol in game.policy_set(variant.rules)]

    def column(name, values):
        """Arrow column; ``(codes, labels)`` pairs and ``game.categories`` become strings."""
        if isinstance(values, tuple):
            codes, labels = values
            return strings(labels, np.asarray(codes).reshape(-1))
        values = np.asarray(values).reshape(-1)
        if name in game.categories:
            return strings(game.categories[name], values)
        return arrow(values)

    g = raw["games"]
    games = {
        "game_id": arrow(game_ids.astype(np.int64)),
        "variant": constant(variant.name, n),
        "seed": arrow(seeds),
        "n_players": constant(np.int8(p), n),
        "winner_seat": arrow(g["winner_seat"].astype(np.int8)),
        "length": arrow(narrow(g["length"], np.int16, "length")),
    }
    games.update({k: column(k, v) for k, v in g.items() if k not in games})
    games.update({k: constant(v, n) for k, v in variant.values.items()})
    games["engine_version"] = constant(game.engine_version, n)

    pl = raw["players"]
    score = pl["score"].astype(np.float64)
    players = {
        "game_id": arrow(np.repeat(game_ids.astype(np.int64), p)),
        "variant": constant(variant.name, n * p),
        "seat": arrow(np.tile(np.arange(p, dtype=np.int8), n)),
        "policy": strings(policy_names, seat_ids.reshape(-1)),
        "score": arrow(score.reshape(-1)),
        "rank": arrow(ranks(score).reshape(-1)),
        "won": arrow(pl["won"].astype(bool).reshape(-1)),
    }
    if p > 1:  # the seat that plays just before: neighbour effects (simulator.analysis.neighbours)
        players["left_policy"] = strings(policy_names, neighbour(seat_ids).reshape(-1))
    players.update({k: column(k, v) for k, v in pl.items() if k not in players})

    tables = {"games": pa.table(games), "players": pa.table(players)}
    for name in game.timelines:
        t = raw[name]
        index = np.asarray(t["game_index"])
        cols = {
            "game_id": arrow(game_ids.astype(np.int64)[index]),
            "variant": constant(variant.name, len(index)),
        }
        cols.update({k: column(k, v) for k, v in t.items() if k != "game_index"})
        tables[name] = pa.table(cols)
    return tables
