"""`make mutants`: apply small rule mutations to the engines, one at a time, and check that the
rule tests kill each one.

Each game lists its mutations in ``tests/mutants/<game>.toml``::

    tests = ["tests/test_ekonos_rules.py"]        # what runs against every mutant of the game

    [[mutant]]
    name = "expansion ignores protection"          # the rule the mutation breaks
    file = "simulator/games/ekonos/engine.py"
    find = "board[s, PROTECTED] == 1"               # must occur exactly once in the file
    replace = "False"
    tests = ["tests/test_ekonos_rules.py::test_x"]  # optional: overrides the game's list

Every mutant is applied to a fresh copy of the sources in a temporary folder and the tests run
there, by default with ``NUMBA_DISABLE_JIT=1`` (no compile per mutant; the rule tests are small
scenarios).  A mutant is *killed* when a test fails on an assertion (mutant_kills.py, a pytest
plugin, tells how each test failed); *not killed* when tests fail only on other exceptions (a
``NameError`` of a mutation written against old code checks no rule) or the run times out;
it *survives* when every test passes, and is *invalid* when the tests cannot even run (an
import or collection error) or its ``find`` text is not found exactly once.  All but a kill
make the run fail, so the list stays honest as the engines change.

    python tests/mutants/run.py [GAME ...] [--jobs N] [--jit] [--timeout S]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import tomllib
from mutant_kills import FAILURES_FILE

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
COPIED = ("simulator", "policies", "tests", "pyproject.toml")
PYTEST_FAILED, PYTEST_OK = 1, 0


@dataclass
class Mutant:
    game: str
    name: str
    file: str
    find: str
    replace: str
    tests: list[str]


def load_mutants(games: list[str]) -> list[Mutant]:
    mutants = []
    for game in games:
        path = HERE / f"{game}.toml"
        if not path.exists():
            sys.exit(f"Error: no mutation list {path.relative_to(ROOT)}")
        spec = tomllib.loads(path.read_text())
        for m in spec.get("mutant", []):
            mutants.append(
                Mutant(
                    game,
                    m["name"],
                    m["file"],
                    m["find"],
                    m["replace"],
                    m.get("tests", spec.get("tests", [f"tests/test_{game}.py"])),
                )
            )
    return mutants


def copy_sources(dest: Path) -> None:
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(
                src,
                dest / name,
                ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache", ".hypothesis"),
            )
        else:
            shutil.copy2(src, dest / name)


def run_tests(folder: Path, tests: list[str], jit: bool, timeout: float) -> str:
    """How the tests run inside ``folder`` end: 'passed', 'killed by TEST' (it failed on an
    assertion), 'errored: ...' (tests failed, none on an assertion), 'timeout', or 'invalid:
    ...' (they could not run)."""
    failures = folder / ".mutant-failures"
    failures.unlink(missing_ok=True)
    plugin_path = [str(folder / "tests" / "mutants"), os.environ.get("PYTHONPATH", "")]
    env = dict(
        os.environ,
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONPATH=os.pathsep.join(filter(None, plugin_path)),
        **{FAILURES_FILE: str(failures)},
    )
    if jit:
        env["NUMBA_CACHE_DIR"] = str(folder / ".numba_cache")
        env.pop("BALSIM_NUMBA_CACHE_DIR", None)
    else:
        env["NUMBA_DISABLE_JIT"] = "1"
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-n",
        "0",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-p",
        "mutant_kills",
        *tests,
    ]  # -n 0: mutants run side by side, each test run in one process
    try:
        done = subprocess.run(cmd, cwd=folder, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout"
    if done.returncode == PYTEST_OK:
        return "passed"
    if done.returncode == PYTEST_FAILED:
        rows = [line.split("\t") for line in failures.read_text().splitlines()]
        killers = [test for kind, test, _ in rows if kind == "assertion"]
        if killers:
            return f"killed by {killers[0]}"
        return f"errored: {rows[0][2]} in {rows[0][1]}" if rows else "errored: nothing recorded"
    output = (done.stdout + done.stderr).decode(errors="replace").strip().splitlines()
    return "invalid: " + (output[-1] if output else f"pytest exit status {done.returncode}")


def try_mutant(m: Mutant, jit: bool, timeout: float) -> tuple[Mutant, str, str, float]:
    """The mutant, its verdict ('killed', 'SURVIVED', 'NOT KILLED' or 'invalid'), what the
    tests did, and the seconds it took."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="balsim-mutant-") as tmp:
        folder = Path(tmp)
        copy_sources(folder)
        target = folder / m.file
        text = target.read_text()
        found = text.count(m.find)
        if found != 1:
            return m, "invalid", f"'find' occurs {found} times in {m.file}", 0.0
        target.write_text(text.replace(m.find, m.replace))
        outcome = run_tests(folder, m.tests, jit, timeout)
    if outcome.startswith("killed"):
        verdict = "killed"
    elif outcome == "passed":
        verdict = "SURVIVED"
    elif outcome.startswith(("errored", "timeout")):
        verdict = "NOT KILLED"
    else:
        verdict = "invalid"
    return m, verdict, outcome, time.perf_counter() - start


def main() -> int:
    known = sorted(p.stem for p in HERE.glob("*.toml"))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", help=f"games to mutate (default: {', '.join(known)})")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="mutants at once")
    parser.add_argument(
        "--jit",
        action="store_true",
        help="compile the mutants instead of running them under NUMBA_DISABLE_JIT=1",
    )
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per mutant")
    args = parser.parse_args()
    mutants = load_mutants(args.games or known)
    games = sorted({m.game for m in mutants})
    print(
        f"{len(mutants)} mutants of {', '.join(games)}; checking the unmutated tests first",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="balsim-mutant-") as tmp:
        copy_sources(Path(tmp))
        tests = sorted({t for m in mutants for t in m.tests})
        baseline = run_tests(Path(tmp), tests, args.jit, args.timeout)
    if baseline != "passed":
        print(f"Error: the rule tests do not pass unmutated ({baseline})")
        return 2
    counts = dict.fromkeys(("killed", "SURVIVED", "NOT KILLED", "invalid"), 0)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for m, verdict, outcome, seconds in pool.map(
            lambda m: try_mutant(m, args.jit, args.timeout), mutants
        ):
            counts[verdict] += 1
            print(f"{verdict:<10} {m.game}: {m.name}  ({seconds:.0f} s)", flush=True)
            if verdict != "killed":
                print(f"{'':<10} {outcome}", flush=True)
    print(
        f"{counts['killed']} of {len(mutants)} mutants killed by an assertion, "
        f"{counts['SURVIVED']} survived, {counts['NOT KILLED']} not killed (an error or a "
        f"timeout, no assertion), {counts['invalid']} invalid"
    )
    return 0 if counts["killed"] == len(mutants) else 1


if __name__ == "__main__":
    sys.exit(main())
