"""Shared fixtures: each game's kernels compile once per session, small datasets are reused."""

import os
import shutil
from pathlib import Path

import pytest

from simulator.cli.options import seat_list
from simulator.core.game import GAME_NAMES, get_game
from simulator.run.plan import Plan, Variant
from simulator.run.runner import execute


def small_plan(name: str, n_games: int = 600, chunk_size: int = 150, seed: int = 7) -> Plan:
    game = get_game(name)
    seats = seat_list(game, None, None, None)
    return Plan(
        game=name,
        n_games=n_games,
        n_players=len(seats),
        seats=seats,
        seed=seed,
        chunk_size=chunk_size,
        variants=[Variant("base", game.rules())],
    )


@pytest.fixture(scope="session")
def small_datasets(tmp_path_factory) -> dict[str, Path]:
    """One small dataset per game, played on one process."""
    out = {}
    for name in GAME_NAMES:
        path = tmp_path_factory.mktemp("data") / name
        execute(small_plan(name), path, jobs=1, progress=False)
        out[name] = path
    return out


@pytest.fixture(scope="session")
def ekonos_run(tmp_path_factory) -> Path:
    """A small finished Ekonos dataset a user made with `balsim run` (3 parts of 100 games)."""
    from hostile import SMALL, invoke

    out = tmp_path_factory.mktemp("made") / "ek"
    assert invoke("run", "ekonos", *SMALL, "--out", out).exit_code == 0
    return out


@pytest.fixture
def dataset(ekonos_run, tmp_path) -> Path:
    """A fresh copy of :func:`ekonos_run`, to change at will."""
    return Path(shutil.copytree(ekonos_run, tmp_path / "ds"))


def is_worker(config) -> bool:
    """Whether this process is one of several parallel test workers (pytest-xdist)."""
    return hasattr(config, "workerinput")


@pytest.fixture(scope="session")
def small_study(tmp_path_factory, request) -> dict:
    """The default study at 1% of its size: its dataset folders, its report and what it printed.
    Played once per test run: parallel workers share it (the first to take the lock plays it)."""
    import contextlib
    import fcntl
    import io
    import json

    from simulator.studies.study import run_study

    root = tmp_path_factory.getbasetemp()
    if is_worker(request.config):
        root = root.parent  # the folder holding every worker's temporary folder
    base, record = root / "study", root / "study.json"
    with open(root / "study.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not record.exists():
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                # two jobs: the other test worker often waits for this study meanwhile
                dirs = run_study(
                    base / "runs",
                    base / "reports" / "study.html",
                    jobs=2,
                    progress=False,
                    scale=0.01,
                )
            record.write_text(
                json.dumps({"dirs": [str(d) for d in dirs], "output": printed.getvalue()})
            )
    done = json.loads(record.read_text())
    return {
        "dirs": [Path(d) for d in done["dirs"]],
        "report": base / "reports" / "study.html",
        "output": done["output"],
    }


# The files that take longest (seconds of one worker, from a fresh clone: the study, the
# report, the coverage checks, the documented commands...), handed to the two workers first
# (`--no-loadscope-reorder` in pyproject.toml keeps this order) so that they finish together
LONGEST_FIRST = (
    "test_sensitivity.py",
    "test_report.py",
    "test_coverage.py",
    "test_docs.py",
    "test_learned.py",
    "test_notebooks.py",
    "test_fit.py",
    "test_karmaggan_search.py",
    "test_user_errors.py",
    "test_interrupt.py",
    "test_pool.py",
    "test_cluster.py",
)


@pytest.hookimpl(tryfirst=True)  # before `-m "not slow"` deselects
def pytest_collection_modifyitems(items):
    """A test of the study's own output plays the study (the ``small_study`` fixture, minutes
    of CPU): it is slow, marked or not.  The longest files go first (LONGEST_FIRST)."""
    for item in items:
        if "small_study" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)

    def rank(item) -> int:
        name = item.path.name
        return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)  # stable: each file's tests keep their order


# `BALSIM_TEST_CPU=FILE pytest ...` appends each test's CPU seconds to FILE ("nodeid<TAB>s"):
# its process's, and the processes it runs (worker pools, subprocesses).  The machine the
# suite runs on is shared, so its cost is measured in CPU time, not by the clock.
CPU_LOG = os.environ.get("BALSIM_TEST_CPU")


def cpu_seconds() -> float:
    """CPU seconds of this process, of its children it has waited for, and of the children
    still running (a pool's workers live from test to test)."""
    import psutil

    me = psutil.Process()
    own = me.cpu_times()
    total = own.user + own.system + own.children_user + own.children_system
    for child in me.children(recursive=True):
        try:
            times = child.cpu_times()
        except psutil.Error:  # ended meanwhile: counted with its parent once waited for
            continue
        total += times.user + times.system
    return total


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if not CPU_LOG:
        yield
        return
    start, pid = cpu_seconds(), os.getpid()
    yield
    if os.getpid() != pid:  # a child a test forked, unwinding through pytest: not the test
        return
    with open(CPU_LOG, "a", encoding="utf-8") as log:
        log.write(f"{item.nodeid}\t{cpu_seconds() - start:.2f}\n")
