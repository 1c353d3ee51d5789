"""Helpers of the tests that drive commands the way a hostile or careless user would: run
in-process (CliRunner), then check the exit status, the one line on stderr, and that no file
was deleted, overwritten or half-written."""

import hashlib
import json
from pathlib import Path

import polars as pl
from click.testing import CliRunner

from simulator.cli import cli

SMALL = ("-n", 300, "--chunk-size", 100, "-j", 1, "-q", "--seed", 3)  # 3 parts of 100 games


def invoke(*args, **kwargs):
    return CliRunner().invoke(cli, [str(a) for a in args], **kwargs)


def one_error(result, message: str, code: int = 2) -> None:
    """The command failed with ``code`` and exactly one stderr line ``Error: ...message...``."""
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == code, result.output
    assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0], result.stderr
    assert "Traceback" not in result.output


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with a hash of its bytes: equal snapshots, nothing touched."""
    return {
        str(p.relative_to(folder)): hashlib.sha1(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def games(out: Path) -> pl.DataFrame:
    return pl.read_parquet(out / "games" / "part-*.parquet").sort("game_id")


def fail_if_called(*args, **kwargs):
    raise AssertionError("the check should have come first")


def write_result(out: Path, files: dict[str, str], tool: str = "fit") -> None:
    """A tool's result written as the tools write theirs (simulator.run.outputs)."""
    from simulator.run.outputs import OUT_MARK, writing_result

    with writing_result(out) as tmp:
        for name, text in files.items():
            (tmp / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp / name).write_text(text)
        (tmp / OUT_MARK).write_text(json.dumps({"tool": tool}))


def stop_on_task(task: int, error):
    from simulator.run.runner import play_task

    def play(plan, params, t, *args):
        if t == task:
            raise error
        return play_task(plan, params, t, *args)

    return play
