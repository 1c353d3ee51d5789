"""The Parquet dataset: atomic parts, the manifest, and the checks around OUT.

Layout (DESIGN.md): ``OUT/manifest.json``, ``OUT/games/part-NNNNN.parquet``,
``OUT/players/part-NNNNN.parquet`` and one folder per timeline.  A part is written under a
temporary name and renamed when complete, so an interrupted run leaves only whole parts.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from simulator.errors import UserError

MANIFEST = "manifest.json"
ROW_GROUP_ROWS = 1 << 20


class StoreError(UserError):
    """A problem with the output folder a user chose; one line."""


def part_name(task: int) -> str:
    return f"part-{task:05d}.parquet"


def write_part(out: Path, table_name: str, task: int, table: pa.Table) -> int:
    folder = out / table_name
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / part_name(task)
    tmp = folder / f".{final.name}.{os.getpid()}.tmp"
    pq.write_table(table, tmp, compression="zstd", row_group_size=ROW_GROUP_ROWS)
    os.replace(tmp, final)
    return table.num_rows


def finished_tasks(out: Path, table_names: tuple[str, ...], tasks: range) -> set[int]:
    """Tasks whose parts exist in every table (a task writes its tables in order)."""
    return {t for t in tasks if all((out / name / part_name(t)).exists() for name in table_names)}


def part_rows(out: Path, table_name: str, task: int) -> int:
    return pq.ParquetFile(out / table_name / part_name(task)).metadata.num_rows


def prepare_out(out: Path, force: bool) -> None:
    """Refuse to overwrite a non-empty OUT unless ``force``; never delete what is not a dataset."""
    if out.exists() and not out.is_dir():
        raise StoreError(f"--out {out} exists and is not a folder")
    if out.exists() and any(out.iterdir()):
        if not force:
            raise StoreError(f"--out {out} is not empty; use --force to overwrite it "
                             "or --resume to finish an interrupted run")
        if not (out / MANIFEST).exists():
            raise StoreError(f"--out {out} is not a balsim dataset (no {MANIFEST}); "
                             "refusing to delete it")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)


def read_manifest(out: Path) -> dict:
    try:
        return json.loads((out / MANIFEST).read_text())
    except FileNotFoundError:
        raise StoreError(f"{out} has no {MANIFEST}: not a balsim dataset") from None
    except json.JSONDecodeError as e:
        raise StoreError(f"{out / MANIFEST} is damaged ({e})") from None


def write_manifest(out: Path, manifest: dict) -> None:
    tmp = out / f".{MANIFEST}.tmp"
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=False) + "\n")
    os.replace(tmp, out / MANIFEST)
