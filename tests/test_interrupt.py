"""Stopping a run from outside: SIGTERM and SIGKILL of the real process, its workers, resume.

These start ``balsim`` as a separate process (the engine is loaded from the compiled cache the
session's fixtures filled), wait for its first part, signal it, and check what is left.
"""

import io
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from simulator import KERNEL_CACHE
from simulator.cli import cli
from simulator.run import store
from simulator.run.workers import Progress

BALSIM = [sys.executable, "-c", "from simulator.cli import main; main()"]
LONG_RUN = ["run", "ekonos", "-n", 20_000, "--chunk-size", 200, "-j", 2, "-q", "--seed", 9]


def start(out: Path) -> subprocess.Popen:
    """A long two-worker run, returned once its first part is written."""
    process = subprocess.Popen(
        BALSIM + [str(a) for a in LONG_RUN] + ["--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    first = out / "games" / store.part_name(0)
    while not first.exists():
        assert process.poll() is None, process.communicate()
        time.sleep(0.05)
    return process


def children(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (the joblib workers and their helpers)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def wait_until_gone(pids: list[int], patience: float = 120.0) -> list[int]:
    """The pids still alive after waiting up to ``patience`` seconds for them to exit."""
    deadline = time.monotonic() + patience
    while True:
        alive = [
            p
            for p in pids
            if Path(f"/proc/{p}").exists()
            and "Z" not in Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[:1]
        ]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.2)


def only_whole_parts(out: Path) -> int:
    """Every part left is a readable Parquet file and no temporary file remains; returns the
    number of games parts."""
    assert not list(out.rglob("*.tmp"))
    for name in ("games", "players"):
        assert store.damaged_parts(out, [name]) == []
    return len(list((out / "games").glob("part-*.parquet")))


@pytest.fixture(scope="module")
def compiled(small_datasets):
    """The session's datasets compiled every engine into the cache the subprocesses load."""
    return small_datasets


def test_sigterm_stops_the_workers_and_names_resume(compiled, tmp_path):
    out = tmp_path / "cut"
    process = start(out)
    workers = children(process.pid)
    assert workers
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 1, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr
    assert re.fullmatch(
        rf"Aborted\. [\d,]+ of 20,000 games are saved in {re.escape(str(out))}; "
        rf"`balsim run ekonos --out {re.escape(str(out))} --resume` finishes the "
        r"run",
        lines[0],
    ), lines[0]
    assert wait_until_gone(workers) == []
    saved = int(lines[0].split()[1].replace(",", ""))
    parts = only_whole_parts(out)
    assert saved <= parts * 200 < 20_000
    result = CliRunner().invoke(cli, ["run", "ekonos", "--out", str(out), "--resume", "-q"])
    assert result.exit_code == 0, result.output
    ids = pl.read_parquet(out / "games")["game_id"]
    assert ids.n_unique() == ids.len() == 20_000


def test_sigkill_of_the_parent_stops_its_workers(compiled, tmp_path):
    out = tmp_path / "killed"
    process = start(out)
    workers = children(process.pid)
    assert workers
    process.kill()
    process.communicate(timeout=60)
    assert wait_until_gone(workers) == []
    parts = only_whole_parts(out)
    assert 1 <= parts < 100  # the workers stopped long before the run's 100 parts


def test_an_unwritable_compiled_cache_is_said_once(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x")
    env = {k: v for k, v in os.environ.items() if k != "BALSIM_NUMBA_CACHE_DIR"}
    env["NUMBA_CACHE_DIR"] = str(afile / "cache")
    done = subprocess.run(
        BALSIM + ["policies", "ekonos"], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0 and "president_seeker" in done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"balsim: warning: cannot write compiled engines to {afile}/cache/")
    assert "(Not a directory); every run will compile them again" in lines[0]


def test_the_first_compile_is_announced_once(tmp_path, monkeypatch):
    """A cache folder that has not compiled the engine yet: the run says so before the pause."""
    monkeypatch.setitem(KERNEL_CACHE, "ekonos", str(tmp_path / "cache"))
    runner = CliRunner()
    first = runner.invoke(cli, ["run", "ekonos", "-n", 10, "-j", 1, "-q", "--out", tmp_path / "a"])
    again = runner.invoke(cli, ["run", "ekonos", "-n", 10, "-j", 1, "-q", "--out", tmp_path / "b"])
    assert first.exit_code == again.exit_code == 0
    assert first.stderr == "compiling the Ekonos engine, first run only…\n"
    assert again.stderr == ""
    monkeypatch.setitem(KERNEL_CACHE, "ekonos", str(tmp_path / "other"))
    bench = runner.invoke(cli, ["bench", "ekonos", "-n", 50])
    assert bench.exit_code == 0 and bench.stderr == "compiling the Ekonos engine, first run only…\n"


def test_progress_shows_the_label_and_games_per_second(monkeypatch):
    screen = io.StringIO()
    screen.isatty = lambda: True
    monkeypatch.setattr(sys, "stderr", screen)
    with Progress(1_000, True, "[2/9] ekonos-4p") as bar:
        bar.advance(400)
    last = screen.getvalue().split("\r")[-1]
    assert last.startswith("[2/9] ekonos-4p [############..................] 400/1,000 games")
    assert re.search(r" [\d,]+ games/s ", last)
