"""The Parquet dataset: atomic parts, the manifest, and the checks around OUT.

Layout (DESIGN.md): ``OUT/manifest.json``, ``OUT/games/part-NNNNN.parquet``,
``OUT/players/part-NNNNN.parquet`` and one folder per timeline.  A part is written under a
temporary name and renamed when complete, so an interrupted run leaves only whole parts.

balsim only ever deletes what it wrote: a folder is a balsim dataset when its manifest carries
the :data:`FORMAT` marker, and replacing it removes that manifest and the part files of the
tables it lists, never the folder itself nor a file a user put there.  A folder being written
is locked (:class:`Writing`), so a second writer is refused instead of clearing it.  When a
command may write an output folder at all is the rule of :mod:`simulator.run.outputs`.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import socket
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from simulator.core.errors import UserError

MANIFEST = "manifest.json"
LOCK = ".balsim.lock"  # held (flock) by the process writing the dataset; names it for others
FORMAT = "balsim-dataset"  # manifest["format"]: this folder was written by balsim
WRITER = "written_by"  # the command that wrote a dataset (its manifest) or a tool's folder
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
    problem = unwritable(folder)
    if problem:
        raise StoreError(f"{option} {path}: cannot write in {folder} ({problem})")
    return resolved


def unwritable(folder: Path) -> str | None:
    """Why a file cannot be created in ``folder``, or None.  A file is created and removed:
    permission bits do not tell (root may write anywhere but a read-only or virtual
    filesystem such as /proc)."""
    try:
        fd, probe = tempfile.mkstemp(prefix=".balsim-probe-", dir=folder)
    except OSError as e:
        return e.strerror or str(e)
    os.close(fd)
    os.unlink(probe)
    return None


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


def holds_files(out: Path) -> bool:
    """Whether the folder ``out`` holds anything but the lock of the dataset being written."""
    return out.is_dir() and any(p.name != LOCK for p in out.iterdir())


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
    (out / MANIFEST).unlink(missing_ok=True)
    for path in out.glob(f".{MANIFEST}.*.tmp"):
        path.unlink(missing_ok=True)


def remove_temporary_parts(out: Path, tables: tuple[str, ...]) -> None:
    """Delete the temporary files of parts that were being written when their worker was
    stopped (a part is renamed into place only once whole)."""
    for name in tables:
        if (out / name).is_dir():
            for path in (out / name).iterdir():
                if TEMP_FILE.fullmatch(path.name):
                    path.unlink(missing_ok=True)


def remove_dataset(out: Path) -> None:
    """Undo a run that failed before writing a part: its manifest and empty table folders
    (:class:`Writing` then removes the folders the run created, left empty again)."""
    manifest = own_manifest(out)
    if manifest is not None:
        clear_dataset(out, manifest)


class Writing:
    """The lock on a dataset folder while one process writes it.

    Entering creates ``out`` (and its missing parents) and takes an exclusive ``flock`` on
    ``out/.balsim.lock``, writing this process's pid and host into it; a second writer finds
    the lock taken and is refused in one line naming the holder.  The kernel drops the lock
    when its process dies however it dies, so a lock file left by a killed run is stale and
    simply taken over.  Leaving removes the lock file, then the folders this created if they
    are empty again (a run that wrote nothing leaves nothing).
    """

    def __init__(self, out: Path, shown: Path | str | None = None, option: str = "--out"):
        self.out, self.shown = out, shown if shown is not None else out
        self.option = option
        self.created: Path | None = None
        self.fd: int | None = None

    def __enter__(self) -> Writing:
        folder = self.out
        while not folder.exists():
            self.created, folder = folder, folder.parent
        try:
            self.out.mkdir(parents=True, exist_ok=True)
            self.fd = self._lock(self.out / LOCK)
        except BaseException:
            self._remove_created()
            raise
        return self

    def _lock(self, path: Path) -> int:
        while True:
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as e:
                raise self.unlockable(e) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as e:
                holder = os.read(fd, 200).decode("utf-8", "replace").strip() or "starting"
                os.close(fd)
                if e.errno in (errno.EAGAIN, errno.EACCES):
                    raise StoreError(
                        f"{self.option} {self.shown} is being written by another balsim "
                        f"({holder}); wait for it to finish or choose another {self.option}"
                    ) from None
                raise self.unlockable(e) from None
            try:  # the file may have been removed by the writer before us, just now
                same = os.fstat(fd).st_ino == os.stat(path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                since = time.strftime("%Y-%m-%d %H:%M:%S")
                os.ftruncate(fd, 0)
                os.write(fd, f"pid {os.getpid()} on {socket.gethostname()} since {since}".encode())
                return fd
            os.close(fd)

    def unlockable(self, error: OSError) -> StoreError:
        return StoreError(f"{self.option} {self.shown}: cannot lock it ({error.strerror})")

    def __exit__(self, *exc) -> bool:
        if self.fd is not None:
            (self.out / LOCK).unlink(missing_ok=True)
            os.close(self.fd)
            self.fd = None
        self._remove_created()
        return False

    def _remove_created(self) -> None:
        if self.created is None:
            return
        for folder in (self.out, *self.out.parents):
            if not folder.is_dir() or any(folder.iterdir()):
                return
            folder.rmdir()
            if folder == self.created:
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
    """Write ``text`` to ``path`` through a temporary file, so ``path`` is never half-written
    (and two writers never share the temporary file)."""
    tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
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
