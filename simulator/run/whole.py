"""Whether a dataset is whole: what identifies each part, and the survey of a dataset's
folder against the plan its manifest records.

Every part carries in its Parquet metadata (``balsim.*`` keys) the game, engine version,
seed, variant, task and game-id range of its rows, and a digest of the rest of the plan it
was played under (seats and the variant's rules): :func:`part_stamp`.  :func:`survey` reads
the footer of every part file in the dataset's table folders and compares it with the part
the plan expects under that name, so a part that is damaged, cut short, from another dataset
or not planned at all, and a task with some of its tables missing, are each named, never read.
Parts written before the stamps existed carry only the game and engine version, which are
checked.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from simulator.core.rng import game_seeds
from simulator.run.store import PART_FILE, part_name

PREFIX = "balsim."
# the stamp's fields in the order a mismatch is told: the first that differs is named
STAMP_FIELDS = ("game", "engine_version", "seed", "variant", "task", "game_ids", "plan")


def plan_digest(plan, variant) -> str:
    """A digest of what decides a part's games beyond its seed and game ids: the seats, how
    they are seated, and the variant's rules (and its replicates' knob sets, where it has)."""
    replicates = [variant.replicates] if variant.replicates else []
    record = {
        "game": plan.game,
        "seats": list(plan.seats),
        "fixed_seats": bool(plan.fixed_seats),
        "variant": [variant.name, variant.rules, variant.values, *replicates],
    }
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def part_stamp(
    plan, engine_version: str, task: int, variant_index: int, first: int, n: int, digest=None
) -> dict[str, str]:
    """The ``balsim.*`` metadata of the part of ``task`` (``plan`` as in
    :class:`simulator.run.plan.Plan`; ``digest``: its variant's :func:`plan_digest`)."""
    variant = plan.variants[variant_index]
    return {
        "game": plan.game,
        "engine_version": engine_version,
        "seed": str(plan.seed),
        "variant": variant.name,
        "task": str(task),
        "game_ids": f"{first}-{first + n - 1}",
        "plan": digest or plan_digest(plan, variant),
    }


def metadata(stamp: dict[str, str]) -> dict[bytes, bytes]:
    """A stamp as Parquet key-value metadata."""
    return {f"{PREFIX}{k}".encode(): v.encode() for k, v in stamp.items()}


@dataclass(frozen=True)
class Expected:
    """The part of one task: its rows per table (None: any) and its stamp."""

    rows: dict[str, int | None]
    stamp: dict[str, str]


def expected_parts(plan, engine_version: str, tables, played: int | None = None):
    """task -> :class:`Expected` for every task of ``plan`` whose first game is below
    ``played`` (default: all)."""
    digests = [plan_digest(plan, v) for v in plan.variants]
    return {
        task: Expected(
            {
                t: n * plan.n_players if t == "players" else n if t == "games" else None
                for t in tables
            },
            part_stamp(plan, engine_version, task, v, first, n, digests[v]),
        )
        for task, v, first, n in plan.tasks()
        if played is None or first < played
    }


@dataclass(frozen=True)
class Problem:
    """A part that cannot be read as the plan's: ``stray`` when the plan has no such part
    (moving it out is the fix), else playing its task again is."""

    text: str
    stray: bool = False


@dataclass
class Survey:
    whole: set[int]  # tasks whose parts are whole and the plan's in every table
    problems: list[Problem]


def stamp_of(metadata) -> dict[str, str]:
    return {
        k.decode()[len(PREFIX) :]: v.decode("utf-8", "replace")
        for k, v in (metadata or {}).items()
        if k.startswith(PREFIX.encode())
    }


def mismatch(found: dict[str, str], expected: dict[str, str]) -> str | None:
    """How a part's stamp differs from the plan's, or None.  A part of an older balsim
    (no task in its stamp) is checked on its game and engine version only."""
    fields = STAMP_FIELDS if "task" in found else ("game", "engine_version")
    for field in fields:
        if found.get(field) != expected[field]:
            if field == "plan":
                return "was played with other seats or rules than this dataset's"
            shown = field.replace("_", " ")
            return (
                f"belongs to another dataset (its {shown} is {found.get(field, 'not recorded')}, "
                f"this dataset's {expected[field]})"
            )
    return None


def part_check(path: Path, rows: int | None, stamp: dict[str, str]) -> str | None:
    """Why the file at ``path`` is not the part the plan expects there, or None."""
    if path.exists() and not path.is_file():  # a FIFO would make the reader wait forever
        return "is not a regular file"
    try:
        meta = pq.read_metadata(path)
    except FileNotFoundError:
        return "is missing"
    except (OSError, pa.ArrowException):
        return "is damaged (not a complete Parquet file)"
    if rows is not None and meta.num_rows != rows:
        return f"has {meta.num_rows:,} rows instead of {rows:,}"
    return mismatch(stamp_of(meta.metadata), stamp)


def survey(out: Path, tables, expected: dict[int, Expected], required=()) -> Survey:
    """Every part file in ``out``'s ``tables`` checked against ``expected``; a task of
    ``required`` must be there."""
    good: dict[int, set[str]] = {}
    seen: dict[int, set[str]] = {}
    problems = []
    for table in tables:
        folder = out / table
        names = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
        for name in filter(PART_FILE.fullmatch, names):
            path, task = folder / name, int(name[5:-8])
            if task not in expected or name != part_name(task):  # part-000001: a second 1
                problems.append(
                    Problem(
                        f"{path} is not one of this dataset's parts (its manifest plans "
                        f"{len(expected):,} per table)",
                        stray=True,
                    )
                )
                continue
            seen.setdefault(task, set()).add(table)
            problem = part_check(path, expected[task].rows[table], expected[task].stamp)
            if problem:
                problems.append(Problem(f"{path} {problem}"))
            else:
                good.setdefault(task, set()).add(table)
    for task in sorted(expected):
        if task in seen or task in required:
            for table in tables:
                if table not in seen.get(task, ()):
                    problems.append(Problem(f"{out / table / part_name(task)} is missing"))
    whole = {task for task, found in good.items() if len(found) == len(tables)}
    return Survey(whole, problems)


def rows_problem(out: Path, plan, tables, tasks: set[int]) -> str | None:
    """The first part of ``tasks`` whose rows contradict what its task holds, or None: every
    table's game ids within the task's, each game once in ``games`` (with the variant's name,
    the seed the plan derives for it and, for a variant of R replicates, replicate game id
    mod R) and ``n_players`` times in ``players``."""
    for task, v, first, n in plan.tasks():
        if task not in tasks:
            continue
        ids = np.arange(first, first + n, dtype=np.int64)
        replicates = len(plan.variants[v].replicates)
        for table in tables:
            path = out / table / part_name(task)
            columns = ["game_id", "seed", "variant"] if table == "games" else ["game_id"]
            if replicates and table == "games":
                columns.append("replicate")
            try:
                rows = pq.read_table(path, columns=columns)
            except (OSError, pa.ArrowException) as e:
                return f"{path} cannot be read ({e})"
            found = np.sort(rows["game_id"].to_numpy())
            if found.size and (found[0] < first or found[-1] > ids[-1]):
                return f"{path} holds games outside its ids {first}-{ids[-1]}"
            if table == "games":
                by_id = rows.sort_by("game_id")
                if not np.array_equal(found, ids):
                    return f"{path} does not hold each of its games {first}-{ids[-1]} once"
                if not np.array_equal(by_id["seed"].to_numpy(), game_seeds(plan.seed, ids)):
                    return f"{path} holds games of other seeds than this dataset's"
                if set(by_id["variant"].to_pylist()) != {plan.variants[v].name}:
                    return f"{path} holds games of another variant than its own"
                if replicates and not np.array_equal(
                    by_id["replicate"].to_numpy(), ids % replicates
                ):
                    return f"{path} holds games of other replicates than game id mod {replicates}"
            if table == "players":
                counts = np.bincount(found - first, minlength=n)
                if counts.size != n or np.any(counts != plan.n_players):
                    return f"{path} does not hold {plan.n_players} players of each game"
    return None
