"""The dask backend on a real cluster: a `dask scheduler` and two `dask worker` processes on
127.0.0.1, started with dask's own command line as a user would (docs/cluster.md), give the
datasets and answers a local run gives; and the cluster options every command shares."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner
from conftest import small_plan

from simulator.cli import cli
from simulator.cli.options import SCHEDULER_VARIABLE
from simulator.run.runner import execute

# end to end: `make test` runs these, `make test-fast` does not (pyproject.toml)
pytestmark = pytest.mark.slow

DASK = Path(sys.executable).with_name("dask")
START_SECONDS = 60  # the scheduler's file and both workers, on a busy machine
STOP_SECONDS = 10
# the commands that play games: each takes the cluster options
PLAYING = ("run", "sweep", "study", "ask", "tune", "skill", "challenge", "fit", "sensitivity")
PLAYING += ("adapt", "matrix")


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    """The address of a scheduler with two single-threaded workers, stopped at the end.  The
    scheduler takes a free port (``--port 0``) and says which in its scheduler file."""
    from distributed import Client

    root = tmp_path_factory.mktemp("cluster")
    file = root / "scheduler.json"
    logs, processes = [], []

    def start(name, *args):
        log = open(root / f"{name}.log", "w")  # noqa: SIM115 (closed below)
        logs.append(log)
        processes.append(
            subprocess.Popen(
                [str(DASK), *args], stdout=log, stderr=subprocess.STDOUT, cwd=root, env=os.environ
            )
        )

    try:
        common = ["--no-dashboard", "--scheduler-file", str(file), "--host", "127.0.0.1"]
        start("scheduler", "scheduler", *common, "--port", "0")
        wait_until(file.exists, "the scheduler's file")
        address = json.loads(file.read_text())["address"]
        for i in range(2):
            start(f"worker{i}", "worker", *common, "--nthreads", "1", "--no-nanny")
        with Client(address, timeout=START_SECONDS) as client:
            client.wait_for_workers(2, timeout=START_SECONDS)
        yield address
    finally:
        for p in reversed(processes):
            p.terminate()
        for p in processes:
            try:
                p.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for log in logs:
            log.close()


def wait_until(ready, what: str) -> None:
    deadline = time.monotonic() + START_SECONDS
    while not ready():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {what} within {START_SECONDS} s")
        time.sleep(0.1)


def invoke(*args, env=None):
    result = CliRunner().invoke(cli, [str(a) for a in args], env=env)
    assert result.exit_code == 0, result.output
    return result


def assert_same_dataset(folder: Path, other: Path) -> None:
    for name, keys in (("games", ()), ("players", ("seat",))):
        mine, theirs = (
            pl.read_parquet(f / name).sort("variant", "game_id", *keys) for f in (folder, other)
        )
        assert mine.equals(theirs), name


def flat(record, prefix: str = "") -> dict:
    """{path: value} of a nested record's leaves (dicts and lists)."""
    if not isinstance(record, (dict, list)):
        return {prefix: record}
    items = record.items() if isinstance(record, dict) else enumerate(record)
    out = {}
    for key, value in items:
        out.update(flat(value, f"{prefix}{key}."))
    return out


def test_the_runner_on_a_cluster_writes_the_local_dataset(scheduler, tmp_path):
    plan = small_plan("ekonos", n_games=300, chunk_size=50)
    manifest = execute(plan, tmp_path / "dask", scheduler=scheduler, progress=False)
    assert manifest["status"] == "complete"
    execute(plan, tmp_path / "local", jobs=1, progress=False)
    assert_same_dataset(tmp_path / "dask", tmp_path / "local")


def test_run_and_sweep_on_the_cluster_equal_local_runs(scheduler, tmp_path):
    run = ("run", "karnaxis", "-n", 240, "--chunk-size", 40, "--seed", 5)
    sweep = ("sweep", "ekonos", "--vary", "setup.start_money=8,12", "-n", 200, "--chunk-size", 50)
    for name, args in (("run", run), ("sweep", (*sweep, "-q"))):
        invoke(*args, "-j", 1, "--out", tmp_path / f"{name}-local")
        remote = invoke(*args, "--scheduler", scheduler, "--out", tmp_path / f"{name}-dask")
        notice = f"dask cluster at {scheduler}: 2 worker(s), 2 thread(s)\n"
        assert remote.stderr.count(notice) == (0 if "-q" in args else 1)  # quiet means quiet
        assert_same_dataset(tmp_path / f"{name}-dask", tmp_path / f"{name}-local")


def test_ask_and_tune_on_the_cluster_give_the_local_answers(scheduler, tmp_path):
    ask = ("ask", "scoring", "-n", 48, "--field", "scripted,tuned")
    invoke(*ask, "-q", "-j", 1, "--out", tmp_path / "ask-local")
    asked = invoke(*ask, "--scheduler", scheduler, "--out", tmp_path / "ask-dask")
    # one client for the whole command (every look of both fields): said once
    assert asked.stderr.count(f"dask cluster at {scheduler}: 2 worker(s)") == 1
    local, remote = (
        json.loads((tmp_path / f"ask-{where}" / "balsim.json").read_text())
        for where in ("local", "dask")
    )
    folders = sorted(f.name for f in (tmp_path / "ask-local").glob("dataset-*"))
    assert folders and folders == sorted(f.name for f in (tmp_path / "ask-dask").glob("dataset-*"))
    for name in folders:
        assert_same_dataset(tmp_path / "ask-dask" / name, tmp_path / "ask-local" / name)
    # the analysis sums in parallel (polars), so even two local runs differ in the last digit;
    # an edge no game measures (no president when a presidency costs 20 points) is nan in both
    mine, theirs = flat({**remote, "command": ""}), flat({**local, "command": ""})
    assert mine.keys() == theirs.keys()
    for key, value in mine.items():
        exact = not isinstance(value, float)
        assert value == (theirs[key] if exact else pytest.approx(theirs[key], nan_ok=True)), key

    tune = ("tune", "ekonos", "--policy", "market_builder", "--budget", 600, "-p", 3, "-q")
    tune += ("--field", "value_investor", "--games-per-candidate", 30)
    local = invoke(*tune, "-j", 1, "--out", tmp_path / "local.toml")
    # the scheduler from the environment, as a cluster's users set it once
    remote = invoke(*tune, "--out", tmp_path / "dask.toml", env={SCHEDULER_VARIABLE: scheduler})
    assert "dask cluster" not in remote.output  # quiet
    assert remote.stdout.replace("dask", "local") == local.stdout
    overlays = [(tmp_path / f"{w}.toml").read_text().splitlines() for w in ("local", "dask")]
    assert [x for x in overlays[1] if "balsim tune" not in x] == [
        x for x in overlays[0] if "balsim tune" not in x
    ]


@pytest.mark.parametrize("command", PLAYING)
def test_every_command_that_plays_takes_the_cluster_options(command):
    help_text = invoke(command, "--help").output
    assert "--scheduler" in help_text and "--backend" in help_text, command
    assert "--worker-timeout" in help_text, command


@pytest.fixture
def lonely_scheduler(tmp_path):
    """The address of a scheduler no worker ever joins."""
    file, log = tmp_path / "lonely.json", open(tmp_path / "lonely.log", "w")  # noqa: SIM115
    args = ["scheduler", "--no-dashboard", "--scheduler-file", str(file), "--host", "127.0.0.1"]
    process = subprocess.Popen([str(DASK), *args, "--port", "0"], stdout=log, stderr=log)
    try:
        wait_until(file.exists, "the scheduler's file")
        yield json.loads(file.read_text())["address"]
    finally:
        process.terminate()
        process.wait(STOP_SECONDS)
        log.close()


def test_a_cluster_with_no_worker_is_waited_for_then_ends_in_one_line(lonely_scheduler, tmp_path):
    out = tmp_path / "run"
    for quiet in ((), ("-q",)):
        args = ["run", "ekonos", "-n", "10", *quiet, "--scheduler", lonely_scheduler]
        result = CliRunner().invoke(cli, [*args, "--worker-timeout", "1", "--out", str(out)])
        assert result.exit_code == 1
        waiting = (
            f"dask cluster at {lonely_scheduler}: no worker yet; waiting up to 1 s for one "
            "(--worker-timeout)"
        )
        said = [waiting] if not quiet else []
        assert result.stderr.splitlines() == [
            *said,
            f"Error: no dask worker joined the cluster at {lonely_scheduler} within 1 s "
            "(--worker-timeout)",
        ]
        assert not any(out.glob("*/*.parquet")) and not (out / "manifest.json").exists()


def test_the_environment_names_the_scheduler_of_every_command(tmp_path):
    env = {SCHEDULER_VARIABLE: "nowhere"}
    result = CliRunner().invoke(cli, ["run", "ekonos", "-q", "--out", str(tmp_path / "x")], env=env)
    assert result.exit_code == 2 and "--scheduler 'nowhere' is not a scheduler address" in (
        result.output
    )
    assert not (tmp_path / "x").exists()


def test_backend_joblib_plays_locally_whatever_the_environment_says(tmp_path):
    env = {SCHEDULER_VARIABLE: "tcp://127.0.0.1:1"}  # nothing listens there
    args = ("run", "ekonos", "-n", 20, "-j", 1, "-q", "--out", tmp_path / "local")
    result = invoke(*args, "--backend", "joblib", env=env)
    assert "dask cluster" not in result.output and (tmp_path / "local" / "games").is_dir()


# ---- the study at a cluster's size ----------------------------------------------------------


def test_study_scale_multiplies_every_budget(monkeypatch, tmp_path):
    from simulator.studies import study

    single, triple = dict(study.study_plans(1.0)), dict(study.study_plans(3.0))
    assert single.keys() == triple.keys()
    for folder, plan in single.items():  # the datasets and the strong fields
        assert triple[folder].n_games == 3 * plan.n_games, folder
    called = {}
    monkeypatch.setattr(study, "run_study", lambda *a, **kw: called.update(kw))
    invoke("study", "--scale", 3, "--out", tmp_path / "runs", "--report", tmp_path / "r.html")
    # the screens and the skill curves take their games from the same scale (run_study)
    assert called["scale"] == 3 and called["scheduler"] is None
