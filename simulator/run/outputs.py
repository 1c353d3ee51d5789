"""The output files and folders of the commands that do not write a dataset (``tune``,
``fit``, ``sensitivity``, ``skill``, ``ask``, the study's screens): checked before any work,
written atomically."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from simulator.core.errors import UserError


def check_out_file(path: Path, force: bool) -> None:
    if path.exists() and not force:
        raise UserError(f"--out {path} exists; use --force to overwrite it")
    if path.exists() and path.is_dir():
        raise UserError(f"--out {path} is a folder, expected a file")


def write_text_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


OUT_MARK = "balsim.json"  # every output folder of these tools holds this file


def check_out_dir(out: Path, force: bool) -> None:
    """Refuse a non-empty OUT unless ``force``, and never delete a folder these tools did not
    write."""
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} exists and is not a folder")
    if out.exists() and any(out.iterdir()):
        if not force:
            raise UserError(f"--out {out} is not empty; use --force to overwrite it")
        if not (out / OUT_MARK).exists():
            raise UserError(
                f"--out {out} was not written by balsim (no {OUT_MARK}); refusing to delete it"
            )


def new_out_dir(out: Path) -> Path:
    """A temporary folder beside OUT to write into; :func:`finish_out_dir` puts it in place."""
    out.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))


def finish_out_dir(tmp: Path, out: Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    os.replace(tmp, out)


def add_to_record(out: Path, **values) -> None:
    """Add ``values`` to the ``balsim.json`` record of an output folder (written atomically)."""
    import json

    path = Path(out) / OUT_MARK
    record = json.loads(path.read_text(encoding="utf-8"))
    write_text_atomic(path, json.dumps({**record, **values}, indent=2) + "\n")
