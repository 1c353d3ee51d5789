"""Where a command may write: the one rule every output follows, checked before any work.

An output folder (a dataset of ``run``, ``sweep`` or the study; the result folder of ``fit``,
``sensitivity``, ``skill``, ``matrix``, ``ask`` or the study's screens, skill curves and
challenges) is claimed (:class:`Claim`, :func:`claim`) before anything is played:

* it can be written (every existing ancestor a folder, a file can be created in it), it is not
  inside a dataset, and only a dataset's writer may take a dataset's folder;
* a name the command chose itself (``OUT/FIELD``, the study's ``runs/ekonos-4p``, a tool's
  ``dataset-scripted``) is never a symbolic link: balsim writes through no link it did not
  make (the folder a user names may be one);
* a folder holding files is balsim's own output of the same kind (a dataset's
  ``manifest.json``, a tool's ``balsim.json`` naming the tool), whoever wrote it, and is
  replaced only with ``--force`` (the study replaces what it wrote itself without it); what
  is not balsim's, or another kind of output, is refused, ``--force`` or not;
* it is locked while the command writes it (:class:`simulator.run.store.Writing`), so a
  second writer is refused in one line; temporary folders a killed writer left in it go.

Each output records the command that wrote it (:data:`~simulator.run.store.WRITER`).  A tool
writes its result into a temporary folder and moves it into place whole
(:func:`writing_result`), replacing only the files its last record lists: a file a user added
stays, and so does the folder.  A file output is never a dataset's file, and an existing one is
replaced only when it starts like one its command writes (its marker); a user's file of that
name is refused, ``--force`` or not.  ``--charts DIR`` is checked like a folder output
(:func:`check_charts_dir`), but several commands may export charts into one folder.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

from simulator.core.errors import Fault, Interrupted, UserError
from simulator.run.store import (
    LOCK,
    MANIFEST,
    WRITER,
    StoreError,
    Writing,
    checked_path,
    holds_files,
    inside_dataset,
    own_manifest,
    write_atomic,
)

OUT_MARK = "balsim.json"  # every output folder of these tools holds this file
HEAD_BYTES = 1024  # a file's marker is looked for in its first KiB
DATASET = "dataset"  # the kind of output of run, sweep and the study's datasets
LEFTOVER = re.compile(r"\..+\.new-[a-z0-9_]{8}")  # the temporary folders of new_out_dir


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


def check_charts_dir(path: Path, option: str = "--charts") -> Path:
    """Check a folder that charts are exported into, before any work: writable, not a
    dataset nor inside one, not a file.  Returns the absolute path."""
    target = checked_path(path, option)
    dataset = inside_dataset(target)
    if dataset is not None:
        where = "is a balsim dataset" if dataset == target else f"is inside the dataset {dataset}"
        raise UserError(f"{option} {path} {where}; write the charts elsewhere")
    if target.exists() and not target.is_dir():
        raise UserError(f"{option} {path} exists and is not a folder")
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


def owner(folder: Path) -> tuple[str, str | None] | None:
    """(kind, writer) of the balsim output in ``folder`` (kind :data:`DATASET` or a tool's
    name; writer None when an older balsim did not record it), or None when it holds none."""
    manifest = own_manifest(folder)
    if manifest is not None:
        return DATASET, manifest.get(WRITER)
    record = out_record(folder)
    if record is None or not isinstance(record.get("tool"), str):
        return None
    return record["tool"], record.get(WRITER, record["tool"])


def described(kind: str, writer: str | None = None) -> str:
    what = "a balsim dataset" if kind == DATASET else f"a balsim {kind} result"
    if writer is None:
        return what
    return f"{what} written by balsim {writer}"


def place(out: Path, kind: str, option: str = "--out", own_name: bool = False) -> Path:
    """The absolute folder ``out`` names, once it is certain that ``kind`` may be written
    there (the first half of :func:`claim`, before anything is created or locked)."""
    if own_name and out.is_symlink():
        raise StoreError(
            f"{out} is a symbolic link balsim did not make; refusing to write through it "
            f"(remove the link or choose another {option})"
        )
    target = checked_path(out, option)
    dataset = inside_dataset(target)
    if dataset == target and kind != DATASET:
        raise StoreError(f"{option} {out} is a balsim dataset, not a folder for {kind}'s result")
    if dataset is not None and dataset != target:
        raise StoreError(f"{option} {out} is inside the dataset {dataset}; write it elsewhere")
    if target.exists() and not target.is_dir():
        raise StoreError(f"{option} {out} exists and is not a folder")
    return target


def owned(
    target: Path,
    kind: str,
    writer: str,
    force: bool,
    option: str = "--out",
    named: str | None = None,
    replaces_own: bool = False,
) -> None:
    """Refuse ``target`` (absolute; ``named`` in messages) unless ``writer`` may write
    ``kind`` there: empty, or balsim's output of that kind, replaced with ``force`` (or without
    it when ``replaces_own`` and ``writer`` wrote it), never through a link among the files its
    record lists."""
    named = named or f"{option} {target}"
    if not holds_files(target):
        return
    found = owner(target)
    again = " or --resume to finish an interrupted run" if kind == DATASET else ""
    replace = "overwrite it" if kind == DATASET else f"replace {kind}'s result"
    if found is None:
        if not (force or replaces_own):
            raise StoreError(f"{named} is not empty; use --force to {replace}{again}")
        if kind == DATASET:
            raise StoreError(
                f"{named} is not a balsim dataset (no {MANIFEST} written by balsim); "
                "refusing to delete anything in it"
            )
        raise StoreError(
            f"{named} was not written by balsim (no {OUT_MARK}); refusing to write into it"
        )
    found_kind, found_writer = found
    if found_kind != kind:
        wanted = "a dataset" if kind == DATASET else f"{kind}'s"
        raise StoreError(
            f"{named} holds {described(found_kind)}, not {wanted}; name another folder"
        )
    if not (force or (replaces_own and found_writer == writer)):
        if replaces_own:
            raise StoreError(
                f"{named} holds {described(found_kind, found_writer)}, and the {writer} replaces "
                f"only what it wrote: use --force to replace it, or choose another {option}"
            )
        raise StoreError(f"{named} is not empty; use --force to {replace}{again}")
    if kind != DATASET:
        linked = linked_names(target, recorded_files(target))
        if linked:
            raise StoreError(
                f"{linked[0]} is a symbolic link balsim did not make; refusing to write through "
                f"it (remove the link or choose another {option})"
            )


def claim(
    out: Path,
    kind: str,
    writer: str,
    force: bool,
    option: str = "--out",
    own_name: bool = False,
    replaces_own: bool = False,
) -> Path:
    """The output rule (module docstring) for a folder ``out`` that ``writer`` (a command)
    writes ``kind`` into: checked, not locked (:class:`Claim` locks it too).  ``own_name``:
    the command chose the name itself; ``replaces_own``: what ``writer`` wrote there before is
    replaced without ``force``.  Returns the absolute path; raises a one-line UserError."""
    target = place(out, kind, option, own_name)
    owned(target, kind, writer, force, option, naming(out, option, own_name), replaces_own)
    return target


def naming(out: Path, option: str, own_name: bool) -> str:
    """How messages name a folder: by its option when the user named it, else by its path."""
    return str(out) if own_name else f"{option} {out}"


class Claim(Writing):
    """:func:`claim` of a tool's ``--out``, then the folder locked until the context ends
    (created when missing, removed again if it is left empty), and the temporary folders a
    killed writer left in it removed; entering returns the absolute path."""

    def __init__(self, out: Path, tool: str, force: bool, own_name: bool = False):
        self.rule = (tool, force, own_name)
        super().__init__(Path(out), out)

    def __enter__(self) -> Path:
        tool, force, own_name = self.rule
        self.out = place(Path(self.shown), tool, self.option, own_name)
        super().__enter__()
        try:
            remove_leftovers(self.out)
            named = naming(Path(self.shown), self.option, own_name)
            owned(self.out, tool, tool, force, self.option, named)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self.out


def remove_leftovers(folder: Path) -> None:
    """Delete the temporary folders (:func:`new_out_dir`) that a writer of ``folder`` killed
    before it finished left there, when the folder holds nothing else or balsim's output:
    whoever holds the folder's lock owns them."""
    leftovers, others = [], []
    for path in folder.iterdir():
        if LEFTOVER.fullmatch(path.name) and path.is_dir() and not path.is_symlink():
            leftovers.append(path)
        elif path.name != LOCK:
            others.append(path)
    if leftovers and (not others or owner(folder) is not None):
        for path in leftovers:
            shutil.rmtree(path, ignore_errors=True)


def recorded_files(folder: Path, unlisted=()) -> list[str]:
    """The files the record in ``folder`` lists (those a new result replaces), each inside it;
    ``unlisted`` when it has no list."""
    listed = (out_record(folder) or {}).get("files", unlisted)
    if not isinstance(listed, (list, tuple)):
        return []
    return [f for f in listed if isinstance(f, str) and own_name(f)]


def linked_names(folder: Path, names) -> list[Path]:
    """The symbolic links met on the way from ``folder`` to each of ``names`` (the files
    themselves excepted: a link in a file's place is replaced, not written through)."""
    found = []
    for name in names:
        path = folder
        for part in Path(name).parts[:-1]:
            path = path / part
            if path.is_symlink() and path not in found:
                found.append(path)
                break
    return found


def new_out_dir(out: Path) -> Path:
    """A temporary folder to write OUT's files into (inside OUT when it exists, else beside
    it); :func:`finish_out_dir` puts them in place."""
    out = Path(os.path.abspath(out))
    where = out if out.is_dir() else out.parent
    where.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=where))


@contextmanager
def writing_result(out: Path):
    """A temporary folder (:func:`new_out_dir`) for a tool's result, moved into ``out`` when
    the block ends (:func:`finish_out_dir`), removed when it fails: ``out`` is then as it was.
    A stop (Ctrl-C, a full disk) says so, never offering to resume what is gone."""
    tmp = new_out_dir(out)
    try:
        yield tmp
    except KeyboardInterrupt:
        shutil.rmtree(tmp, ignore_errors=True)
        raise Interrupted(
            f"Aborted; {out} is as it was (a result is written whole or not at all)"
        ) from None
    except Fault as e:  # its own advice (resume a dataset) was about the folder just removed
        shutil.rmtree(tmp, ignore_errors=True)
        raise Fault(f"{str(e).split('; ')[0]}; {out} is as it was") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finish_out_dir(tmp, out)


def finish_out_dir(tmp: Path, out: Path) -> None:
    """Move the files written in ``tmp`` into ``out``: a new ``out`` at once; an existing one
    file by file, after removing the files its last record lists (a file a user added stays),
    the record last.  The record gains the list of files, and who wrote them, for the next
    time.  Nothing is written or removed through a symbolic link in ``out``."""
    out = Path(os.path.abspath(out))
    files = sorted(
        p.relative_to(tmp).as_posix() for p in tmp.rglob("*") if p.is_file() and p.name != OUT_MARK
    )
    record = out_record(tmp) or {}
    record = {**record, WRITER: record.get(WRITER, record.get("tool")), "files": files}
    write_atomic(tmp / OUT_MARK, json.dumps(record, indent=2) + "\n")
    if not out.exists():
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)  # a folder of the user's, not mkdtemp's private one
        os.replace(tmp, out)
        return
    written = recorded_files(out, unlisted=files)
    linked = linked_names(out, written + files)
    if linked:
        shutil.rmtree(tmp, ignore_errors=True)
        raise StoreError(
            f"{linked[0]} is a symbolic link balsim did not make; refusing to write through it"
        )
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
    path = Path(out) / OUT_MARK
    record = json.loads(path.read_text(encoding="utf-8"))
    write_text_atomic(path, json.dumps({**record, **values}, indent=2) + "\n")
