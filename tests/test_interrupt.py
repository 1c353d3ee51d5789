"""Stopping a run from outside: SIGTERM and SIGKILL of the real process, its workers, resume.

These start ``balsim`` as a separate process (the engine is loaded from the compiled cache the
session's fixtures filled), wait for its first part, signal it, and check what is left.
"""

import io
import os
import re
import shutil
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
from simulator.run.checks import dataset_survey
from simulator.run.plan import plan_from_manifest
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
    """Every part left is whole and the dataset's own, no temporary file remains and the lock
    is free; returns the number of games parts."""
    assert not list(out.rglob("*.tmp"))
    manifest = store.read_manifest(out)
    found = dataset_survey(out, manifest, plan_from_manifest(manifest))
    assert [p.text for p in found.problems if "is missing" not in p.text] == []
    with store.Writing(out):
        pass
    return len(list((out / "games").glob("part-*.parquet")))


@pytest.fixture(scope="module")
def compiled(small_datasets):
    """The session's datasets compiled every engine into the cache the subprocesses load."""
    return small_datasets


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_a_second_writer_of_a_running_dataset_is_refused(compiled, tmp_path):
    out = tmp_path / "busy"
    process = start(out)
    try:
        for args in (["run", "ekonos", "-n", 100, "--force"], ["run", "ekonos", "--resume"]):
            result = CliRunner().invoke(cli, [*args, "-q", "--out", str(out)])
            assert result.exit_code == 2
            assert result.stderr.startswith(
                f"Error: --out {out} is being written by another balsim (pid {process.pid} on "
            ), result.stderr
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=300)
    only_whole_parts(out)  # the first run's parts, untouched by the second
    result = CliRunner().invoke(cli, ["run", "ekonos", "--out", str(out), "--resume", "-q"])
    assert result.exit_code == 0, result.output  # the lock went with its process


@pytest.mark.slow
def test_sigkill_of_report_stops_its_workers(compiled, tmp_path):
    datasets = [str(compiled[name]) for name in ("ekonos", "karnaxis", "karmaggan")]
    process = subprocess.Popen(
        BALSIM + ["report", *datasets, "-j", "2", "--out", str(tmp_path / "r.html")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 240
    while len(children(process.pid)) < 2:  # its two workers drawing sections
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.1)
    workers = children(process.pid)
    process.kill()
    process.wait(timeout=60)
    assert wait_until_gone(workers, patience=60) == []
    assert not (tmp_path / "r.html").exists()


def study_stopped(tmp_path, monkeypatch, where: str, error) -> str:
    """What ``balsim study`` says when ``error`` stops it at ``where`` (nothing is played)."""
    import simulator.studies.study as study

    def stops(*args, **kwargs):
        raise error

    monkeypatch.setattr(study, "warm_engines", lambda *a: None)
    if where == "execute_all":
        monkeypatch.setattr(study, "execute_all", stops)
    else:
        monkeypatch.setattr(study, "execute_all", lambda *a, **k: [])
        # no dataset to answer from or to challenge: the questions' own games are not played
        monkeypatch.setattr(study, "study_answers", lambda *a: [])
        monkeypatch.setattr(study, "run_challenges", lambda *a: [])
        if where.endswith("write_report"):  # the screens and skill curves play no game either
            monkeypatch.setattr(study, "run_screens", lambda *a: [])
            monkeypatch.setattr(study, "run_skill", lambda *a: [])
        monkeypatch.setattr(where, stops)
    runs, report = tmp_path / "runs", tmp_path / "study.html"
    result = CliRunner().invoke(cli, ["study", "--out", runs, "--report", report, "-j", 1, "-q"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    return lines[0].replace(str(tmp_path), "TMP")


FINISH = "`balsim study --out TMP/runs --report TMP/study.html --resume` finishes the study"


def test_an_interrupted_study_says_how_to_finish_it(tmp_path, monkeypatch):
    from simulator.core.errors import Interrupted
    from simulator.studies.study import study_plans

    n = len(study_plans())
    stopped = Interrupted(f"Aborted. 2,000 of 50,000 games are saved in {n} datasets")
    assert study_stopped(tmp_path, monkeypatch, "execute_all", stopped) == (
        f"Aborted while playing the datasets (2,000 of 50,000 games are saved in {n} "
        f"datasets); {FINISH}, keeping what it finished"
    )


@pytest.mark.parametrize(
    "where, phase",
    [
        ("simulator.experiments.sensitivity.screen", "in the sensitivity screens"),
        ("simulator.studies.study.write_report", "while writing the report"),
    ],
)
def test_a_study_interrupted_after_its_datasets_says_how_to_finish_it(
    tmp_path, monkeypatch, where, phase
):
    assert study_stopped(tmp_path, monkeypatch, where, KeyboardInterrupt()) == (
        f"Aborted {phase}; {FINISH}, keeping what it finished"
    )


@pytest.mark.slow
def test_a_resumed_study_keeps_what_it_finished(small_study, tmp_path, monkeypatch):
    import json

    import simulator.studies.study as study

    runs = Path(shutil.copytree(small_study["dirs"][0].parent, tmp_path / "runs"))
    cut = runs / "ekonos-4p"  # stopped in its second part (its variant's)
    manifest = json.loads((cut / "manifest.json").read_text())
    (cut / "manifest.json").write_text(json.dumps({**manifest, "status": "running"}))
    for table in manifest["tables"]:
        (cut / table / store.part_name(1)).unlink()
    played = []

    def execute_all(targets, *args):
        played.extend((t.out.name, t.plan is None and t.resume) for t in targets)
        return real_execute_all(targets, *args)

    real_execute_all = study.execute_all
    monkeypatch.setattr(study, "execute_all", execute_all)
    monkeypatch.setattr("simulator.studies.recipes.in_study.ask", fail_if_called)  # moved, kept
    monkeypatch.setattr("simulator.experiments.sensitivity.screen", fail_if_called)
    monkeypatch.setattr("simulator.experiments.skill.rate_ladder", fail_if_called)
    reported = []  # the report of every folder, kept or finished (its pages: small_study)
    monkeypatch.setattr(study, "write_report", lambda folders, *a: reported.extend(folders))
    study.run_study(runs, tmp_path / "study.html", jobs=1, progress=False, scale=0.01, resume=True)
    assert played == [(cut.name, True)]  # only the cut dataset, finished from where it was
    assert CliRunner().invoke(cli, ["verify", str(cut)]).exit_code == 0
    assert sorted(Path(f).name for f in reported) == sorted(f.name for f in runs.iterdir())


def fail_if_called(*args, **kwargs):
    raise AssertionError("a finished part of the study was played again")


def test_a_worker_whose_parent_is_gone_ends_itself():
    """How every command's local workers stop after a SIGKILL of the command: a worker's
    task runs beside a thread that ends the process once its parent is no longer the one
    that started it (here a parent it never had)."""
    code = "from simulator.run.workers import in_worker; import time; in_worker(1, time.sleep, 900)"
    done = subprocess.run([sys.executable, "-c", code], timeout=300)  # not the 900 s task
    assert done.returncode == 1
