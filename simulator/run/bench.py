"""`balsim bench`: games per second per core, engine alone and with the whole pipeline.

``--record FILE`` appends each measurement as a CSV row (date, commit, machine, load, the
configuration and its rates), so figures live in files the benchmark writes:
``bench/results/bench.csv`` for ``make bench``, rendered into ``docs/performance.md`` by
``bench/render.py``.
"""

from __future__ import annotations

import csv
import os
import platform
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from simulator.core.errors import UserError
from simulator.core.game import Game
from simulator.core.rng import game_seeds
from simulator.run.plan import MAX_CHUNK, Plan, Variant, seat_policy_ids
from simulator.run.runner import execute
from simulator.run.warm import compiling

TARGET_SECONDS = 5.0
PROBE_SECONDS = 0.5
MAX_GAMES = 10**9  # bench -n: games are played chunk by chunk, so only time limits it


def per_second(count: int, seconds: float) -> str:
    """A rate for the bench lines: whole numbers, but two decimals below 10 (a search player
    plays about one game a second, which "1" would hide)."""
    rate = count / seconds
    return f"{rate:,.0f}" if rate >= 10 else f"{rate:.2f}"


@dataclass
class Measurement:
    """One benchmark: a configuration and its rates (per CPU second of one core)."""

    game: str
    seats: str  # the line-up, comma-separated, seat 0 first
    games: int
    cpu_seconds: float
    games_per_s: float
    decisions_per_s: float  # the search seats' decisions (0 without one)
    decisions_per_game: float
    # --store: the whole run of as many games with its Parquet output, on one process
    store_games_per_s: float = 0.0


def bench(
    game: Game, rules: dict, seats: list[str], n_games: int | None, store: bool, fixed_seats: bool
) -> tuple[list[str], Measurement]:
    """Lines of a benchmark report (compile/cache time, then a timed run on one core) and the
    measurement they show."""
    n_players = len(seats)
    plan = Plan(
        game=game.name,
        n_games=0,
        n_players=n_players,
        seats=seats,
        seed=1,
        chunk_size=game.chunk_size,
        variants=[Variant("base", rules)],
        fixed_seats=fixed_seats,
    )
    params = game.prepare(rules, n_players)

    decisions = 0

    def play(n: int, first: int = 0) -> float:
        nonlocal decisions
        seconds, decisions = 0.0, 0
        for start in range(first, first + n, MAX_CHUNK):  # chunk by chunk: memory stays flat
            ids = np.arange(start, min(start + MAX_CHUNK, first + n), dtype=np.int64)
            seeds, seat_ids = game_seeds(1, ids), seat_policy_ids(game, plan, ids)
            began = (
                time.process_time()
            )  # CPU time of this one process: per core, even on a busy machine
            raw = game.play(params, seeds, seat_ids)
            seconds += time.process_time() - began
            decisions += int(np.sum(raw["games"].get("search_decisions", 0)))
        return seconds

    with compiling(game):
        warm = play(min(8, n_games or 8))
    probe, first = 8, 8
    while not n_games:  # double a probe until it takes a measurable time, then size the run
        spent = play(probe, first)
        first += probe
        if spent >= PROBE_SECONDS:
            n_games = max(1, int(probe / spent * TARGET_SECONDS))
        probe *= 2
    n = n_games
    seconds = play(n, first)
    lines = [
        f"{game.name}: {n_players} players ({', '.join(seats)})",
        f"  first call (compile or cache load): {warm:.2f} s",
        f"  engine, one core: {n:,} games in {seconds:.2f} CPU s = "
        f"{per_second(n, seconds)} games/s per core",
    ]
    if decisions:
        lines.append(
            f"  search: {decisions:,} decisions = {per_second(decisions, seconds)} decisions/s "
            f"per core ({decisions / n:,.1f} per game)"
        )
    measured = Measurement(
        game.name, ",".join(seats), n, seconds, n / seconds, decisions / seconds, decisions / n
    )
    if store:
        # on one process, so that its CPU time is all of the run's (the writer's threads too)
        plan.n_games = n
        with tempfile.TemporaryDirectory() as tmp:
            began = time.process_time()
            execute(plan, Path(tmp) / "bench", jobs=1, progress=False)
            spent = time.process_time() - began
        lines.append(
            f"  run with Parquet output, one core: {n:,} games in {spent:.2f} CPU s = "
            f"{per_second(n, spent)} games/s per core, {spent / seconds:.2f}x the engine's CPU"
        )
        measured.store_games_per_s = n / spent
    return lines, measured


def check_record(path: Path) -> None:
    """Refuse, before any game, a ``--record`` file that cannot be appended to."""
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as e:
        raise UserError(f"--record {path}: cannot append to it ({e.strerror})") from None


def record(path: Path, measured: Measurement) -> None:
    """Append ``measured`` to the CSV at ``path`` with when, where and at which commit."""
    row = {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M"),
        "commit": commit(),
        "machine": f"{platform.machine()} {os.cpu_count()} cores",
        "load": f"{os.getloadavg()[0]:.1f}",
        **asdict(measured),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    new = not path.exists() or path.stat().st_size == 0
    with open(path, "a", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(row))
        if new:
            writer.writeheader()
        writer.writerow({k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()})


def commit() -> str:
    """The checkout's commit (with ``+`` when it has uncommitted changes), or ``unknown``."""
    here = Path(__file__).resolve().parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=here,
            text=True,
            capture_output=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=here,
            text=True,
            capture_output=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+" if dirty else "")
