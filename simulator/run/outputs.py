"""The output files and folders of the commands that do not write a dataset (``report``,
``tune``, ``challenge``, ``fit``, ``sensitivity``, ``skill``, ``ask``, the study's screens):
checked before any work, written whole, and replacing only what the same command wrote.

A file output is never a dataset's file, and an existing one is replaced only when it starts
like one its command writes (its marker); a user's file of that name is refused, ``--force``
or not.  A folder output holds :data:`OUT_MARK`, the record of the tool that wrote it and of
every file it wrote there; writing it again replaces those files only, so a file a user added
stays, and the folder itself is never deleted.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from simulator.core.errors import UserError
from simulator.run.store import checked_path, holds_files, inside_dataset, write_atomic

OUT_MARK = "balsim.json"  # every output folder of these tools holds this file
HEAD_BYTES = 1024  # a file's marker is looked for in its first KiB


def check_out_file(path: Path, force: bool, option: str, marker: bytes, replace=False) -> Path:
    """Check a file ``option`` before any work: writable, never a dataset's file, and an
    existing file only when ``marker`` is in its head (written by the same command), and then
    only with ``force`` unless ``replace``.  Returns the absolute path."""
    target = checked_path(path, option)
    dataset = inside_dataset(target)
    if dataset is not None:
        raise UserError(f"{option} {path} is inside the dataset {dataset}; write it elsewhere")
    if target.is_dir():
        raise UserError(f"{option} {path} is a folder; name the file to write")
    if not target.exists():
        return target
    if not target.is_file():  # a FIFO or a device: opening it could wait forever
        raise UserError(f"{option} {path} exists and is not a regular file")
    try:
        with open(target, "rb") as f:
            head = f.read(HEAD_BYTES)
    except OSError as e:
        raise UserError(f"{option} {path}: cannot read it ({e.strerror})") from None
    if marker not in head:
        raise UserError(
            f"{option} {path} exists and was not written by balsim; refusing to overwrite it "
            "(move it away or name another file)"
        )
    if not (force or replace):
        raise UserError(f"{option} {path} exists; use --force to replace it")
    return target


def write_text_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text)


def out_record(folder: Path) -> dict | None:
    """The :data:`OUT_MARK` record of a tool's output folder, or None when it holds none."""
    try:
        record = json.loads((folder / OUT_MARK).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def check_out_dir(out: Path, force: bool, tool: str, option: str = "--out") -> Path:
    """Check a folder ``option`` for ``tool``'s result before any work: writable, not in or a
    dataset, and when it holds files, a folder ``tool`` wrote and ``force``.  Returns the
    absolute path."""
    target = checked_path(out, option)
    dataset = inside_dataset(target)
    if dataset == target:
        raise UserError(f"{option} {out} is a balsim dataset, not a folder for {tool}'s result")
    if dataset is not None:
        raise UserError(f"{option} {out} is inside the dataset {dataset}; write it elsewhere")
    if target.exists() and not target.is_dir():
        raise UserError(f"{option} {out} exists and is not a folder")
    if holds_files(target):
        if not force:
            raise UserError(f"{option} {out} is not empty; use --force to replace {tool}'s result")
        record = out_record(target)
        if record is None:
            raise UserError(
                f"{option} {out} was not written by balsim (no {OUT_MARK}); "
                "refusing to write into it"
            )
        if record.get("tool") != tool:
            raise UserError(
                f"{option} {out} holds a balsim {record.get('tool')} result, not {tool}'s; "
                "name another folder"
            )
    return target


def new_out_dir(out: Path) -> Path:
    """A temporary folder to write OUT's files into (inside OUT when it exists, else beside
    it); :func:`finish_out_dir` puts them in place."""
    out = Path(os.path.abspath(out))
    where = out if out.is_dir() else out.parent
    where.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=where))


def finish_out_dir(tmp: Path, out: Path) -> None:
    """Move the files written in ``tmp`` into ``out``: a new ``out`` at once; an existing one
    file by file, after removing the files its last record lists (a file a user added stays),
    the record last.  The record gains the list of files, for the next time."""
    out = Path(os.path.abspath(out))
    files = sorted(
        p.relative_to(tmp).as_posix() for p in tmp.rglob("*") if p.is_file() and p.name != OUT_MARK
    )
    record = out_record(tmp) or {}
    write_atomic(tmp / OUT_MARK, json.dumps({**record, "files": files}, indent=2) + "\n")
    if not out.exists():
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)  # a folder of the user's, not mkdtemp's private one
        os.replace(tmp, out)
        return
    old = out_record(out) or {}
    written = [f for f in old.get("files", files) if isinstance(f, str) and own_name(f)]
    for name in written:
        path = out / name
        if path.is_file() and not path.is_symlink():
            path.unlink()
    for name in files:
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp / name, out / name)
    os.replace(tmp / OUT_MARK, out / OUT_MARK)
    for name in written:  # folders of the old files left empty (an old dataset's tables)
        for folder in (out / name).parents:
            if folder == out or not folder.is_dir() or any(folder.iterdir()):
                break
            folder.rmdir()
    shutil.rmtree(tmp)


def own_name(name: str) -> bool:
    """Whether a recorded file name stays inside its folder (a hand-edited record could say
    otherwise)."""
    parts = Path(name).parts
    return bool(parts) and not Path(name).is_absolute() and ".." not in parts


def add_to_record(out: Path, **values) -> None:
    """Add ``values`` to the ``balsim.json`` record of an output folder (written atomically)."""
    import json

    path = Path(out) / OUT_MARK
    record = json.loads(path.read_text(encoding="utf-8"))
    write_text_atomic(path, json.dumps({**record, **values}, indent=2) + "\n")
