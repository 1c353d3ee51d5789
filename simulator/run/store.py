"""The Parquet dataset: atomic parts, the manifest, and the checks around OUT.

Layout (DESIGN.md): ``OUT/manifest.json``, ``OUT/games/part-NNNNN.parquet``,
``OUT/players/part-NNNNN.parquet`` and one folder per timeline.  A part is written under a
temporary name and renamed when complete, so an interrupted run leaves only whole parts.

balsim only ever deletes what it wrote: a folder is a balsim dataset when its manifest carries
the :data:`FORMAT` marker, and ``--force`` removes that manifest and the part files of the
tables it lists, never the folder itself nor a file a user put there.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from simulator.core.errors import UserError

MANIFEST = "manifest.json"
FORMAT = "balsim-dataset"  # manifest["format"]: this folder was written by balsim
ROW_GROUP_ROWS = 1 << 20
PART_FILE = re.compile(r"part-\d{5,}\.parquet")
TEMP_FILE = re.compile(r"\.part-\d{5,}\.parquet\.\d+\.tmp")
TABLE_NAME = re.compile(r"[a-z][a-z0-9_]*")
# manifests written before the format marker existed carry all of these
LEGACY_KEYS = frozenset({"balsim_version", "engine_version", "game", "variants", "tables"})
REQUIRED_KEYS = ("game", "n_games", "n_players", "variants", "tables")  # what every reader needs


class StoreError(UserError):
    """A problem with the output folder a user chose; one line."""


def part_name(task: int) -> str:
    return f"part-{task:05d}.parquet"


def write_part(out: Path, table_name: str, task: int, table: pa.Table) -> int:
    folder = out / table_name
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / part_name(task)
    tmp = folder / f".{final.name}.{os.getpid()}.tmp"
    try:
        pq.write_table(table, tmp, compression="zstd", row_group_size=ROW_GROUP_ROWS)
        os.replace(tmp, final)
    finally:
        tmp.unlink(missing_ok=True)
    return table.num_rows


def part_problem(path: Path, rows: int | None = None) -> str | None:
    """Why the part at ``path`` is not a whole part (``rows`` rows when given), or None."""
    try:
        found = pq.ParquetFile(path).metadata.num_rows
    except FileNotFoundError:
        return "is missing"
    except (OSError, pa.ArrowException):
        return "is damaged (not a complete Parquet file)"
    if rows is not None and found != rows:
        return f"has {found:,} rows instead of {rows:,}"
    return None


def finished_tasks(out: Path, expected: dict[str, dict[int, int | None]]) -> set[int]:
    """Tasks whose parts are whole in every table.

    ``expected[table][task]`` is the rows the part must hold (None: any); each part's Parquet
    footer is read, so a truncated or foreign part counts as not finished and is played again.
    """
    tables = list(expected.values())
    return {
        task
        for task in tables[0]
        if all(
            part_problem(out / name / part_name(task), rows[task]) is None
            for name, rows in expected.items()
        )
    }


def damaged_parts(out: Path, tables: list[str]) -> list[str]:
    """``table/part: problem`` for every part of ``tables`` whose footer cannot be read."""
    found = []
    for name in tables:
        for path in sorted((out / name).glob("part-*.parquet")):
            problem = part_problem(path)
            if problem:
                found.append(f"{path} {problem}")
    return found


def part_rows(out: Path, table_name: str, task: int) -> int:
    return pq.ParquetFile(out / table_name / part_name(task)).metadata.num_rows


def checked_path(path: Path | str, option: str) -> Path:
    """The absolute path ``path`` names, symbolic links followed, once it is certain that it
    can be created and written: every existing ancestor a folder, the nearest one writable, no
    name too long.  Creates nothing; raises StoreError naming ``option`` otherwise."""
    path = Path(path)
    try:
        longest = os.pathconf(".", "PC_NAME_MAX")
        for name in path.parts:
            if len(os.fsencode(name)) > longest:
                raise StoreError(
                    f"{option}: the name '{name[:24]}…' is too long (at most {longest} bytes)"
                )
        if path.is_symlink() and not path.exists():
            raise StoreError(f"{option} {path} is a broken symbolic link")
        resolved = path.resolve()
        existing = resolved
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
    except (OSError, RuntimeError) as e:
        raise StoreError(f"{option} {path}: {getattr(e, 'strerror', None) or e}") from None
    if existing != resolved and not existing.is_dir():
        raise StoreError(f"{option} {path}: {existing} is a file, not a folder")
    folder = existing if existing.is_dir() else existing.parent
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StoreError(f"{option} {path}: cannot write in {folder} (permission denied)")
    return resolved


def is_balsim_manifest(manifest) -> bool:
    return isinstance(manifest, dict) and (
        manifest.get("format") == FORMAT or LEGACY_KEYS <= manifest.keys()
    )


def own_manifest(folder: Path) -> dict | None:
    """The manifest of the balsim dataset in ``folder``, or None when it holds none."""
    try:
        return read_manifest(folder)
    except StoreError:
        return None


def prepare_out(out: Path, force: bool) -> Path | None:
    """Make ``out`` ready for a new dataset; returns the outermost folder this created, if any.

    A non-empty ``out`` is refused unless ``force``; with ``force`` only a balsim dataset is
    cleared, and only of what balsim wrote there (see :func:`clear_dataset`).
    """
    if out.exists() and not out.is_dir():
        raise StoreError(f"--out {out} exists and is not a folder")
    if out.exists() and any(out.iterdir()):
        if not force:
            raise StoreError(
                f"--out {out} is not empty; use --force to overwrite it "
                "or --resume to finish an interrupted run"
            )
        check_replaceable(out)
        clear_dataset(out, own_manifest(out))
    created, folder = None, out
    while not folder.exists():
        created, folder = folder, folder.parent
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StoreError(f"--out {out}: {e.strerror}") from None
    return created


def check_replaceable(out: Path) -> None:
    """Raise unless ``out`` is absent, an empty folder or a balsim dataset: what a run may
    replace (only balsim's own files in it) when forced."""
    if out.exists() and not out.is_dir():
        raise StoreError(f"--out {out} exists and is not a folder")
    if out.exists() and any(out.iterdir()) and own_manifest(out) is None:
        raise StoreError(
            f"--out {out} is not a balsim dataset (no {MANIFEST} written by "
            "balsim); refusing to delete anything in it"
        )


def clear_dataset(out: Path, manifest: dict) -> None:
    """Delete the manifest and every part (and leftover temporary part) of the tables the
    manifest lists; table folders left empty go too.  Other files stay, and so does ``out``."""
    tables = [
        t
        for t in manifest.get("tables") or ("games", "players")
        if isinstance(t, str) and TABLE_NAME.fullmatch(t)
    ]
    for name in tables:
        folder = out / name
        if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
            raise StoreError(
                f"{folder} is not a folder balsim made; refusing to delete the dataset around it"
            )
        if not folder.exists():
            continue
        for path in folder.iterdir():
            if path.is_file() and (
                PART_FILE.fullmatch(path.name) or TEMP_FILE.fullmatch(path.name)
            ):
                path.unlink()
        cwd = Path.cwd().resolve()
        if not any(folder.iterdir()) and folder != cwd and folder not in cwd.parents:
            folder.rmdir()
    for name in (MANIFEST, f".{MANIFEST}.tmp"):
        (out / name).unlink(missing_ok=True)


def remove_temporary_parts(out: Path, tables: tuple[str, ...]) -> None:
    """Delete the temporary files of parts that were being written when their worker was
    stopped (a part is renamed into place only once whole)."""
    for name in tables:
        if (out / name).is_dir():
            for path in (out / name).iterdir():
                if TEMP_FILE.fullmatch(path.name):
                    path.unlink(missing_ok=True)


def remove_dataset(out: Path, created: Path | None) -> None:
    """Undo a run that failed before writing a part: its manifest, its empty table folders,
    and the folders the run created (``created`` and those under it) left empty again."""
    manifest = own_manifest(out)
    if manifest is not None:
        clear_dataset(out, manifest)
    if created is None:
        return
    for folder in (out, *out.parents):
        if not folder.is_dir() or any(folder.iterdir()):
            return
        folder.rmdir()
        if folder == created:
            return


def read_manifest(out: Path) -> dict:
    path = out / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StoreError(f"{out} has no {MANIFEST}: not a balsim dataset") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise StoreError(f"{path} is damaged ({e})") from None
    except OSError as e:
        raise StoreError(f"cannot read {path}: {e.strerror}") from None
    if not is_balsim_manifest(manifest):
        raise StoreError(f"{path} was not written by balsim: {out} is not a balsim dataset")
    missing = [k for k in REQUIRED_KEYS if k not in manifest]
    if missing:
        raise StoreError(f"{path} is damaged (no {', '.join(missing)})")
    return manifest


def write_manifest(out: Path, manifest: dict) -> None:
    write_atomic(out / MANIFEST, json.dumps(manifest, indent=2, sort_keys=False) + "\n")


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file, so ``path`` is never half-written."""
    tmp = path.parent / f".{path.name}.tmp"
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def inside_dataset(path: Path) -> Path | None:
    """The balsim dataset folder that ``path`` (absolute) is in or names, if any."""
    for folder in (path, *path.parents):
        if folder.is_dir() and (folder / MANIFEST).exists() and own_manifest(folder) is not None:
            return folder
    return None


def check_file_out(path: Path, force: bool, option: str, marker: bytes) -> Path:
    """Check a file ``--out`` before any work: writable, never a dataset's file, and an existing
    file only when it starts like one of ours (``marker`` in its first KiB) or with ``force``.
    Returns the absolute path."""
    target = checked_path(path, option)
    dataset = inside_dataset(target)
    if dataset is not None:
        raise StoreError(f"{option} {path} is inside the dataset {dataset}; write it elsewhere")
    if target.is_dir():
        raise StoreError(f"{option} {path} is a folder; name the file to write")
    if target.exists() and not force:
        with open(target, "rb") as f:
            head = f.read(1024)
        if marker not in head:
            raise StoreError(
                f"{option} {path} exists and was not written by balsim; use --force to overwrite it"
            )
    return target
