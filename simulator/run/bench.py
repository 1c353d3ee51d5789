"""`balsim bench`: games per second per core, engine alone and with the whole pipeline."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import numpy as np

from simulator.core.game import Game
from simulator.core.rng import game_seeds
from simulator.run.runner import MAX_CHUNK, Plan, Variant, execute, seat_policy_ids
from simulator.run.warm import compiling

TARGET_SECONDS = 5.0
PROBE_SECONDS = 0.5
MAX_GAMES = 10**9  # bench -n: games are played chunk by chunk, so only time limits it


def per_second(count: int, seconds: float) -> str:
    """A rate for the bench lines: whole numbers, but two decimals below 10 (a search player
    plays about one game a second, which "1" would hide)."""
    rate = count / seconds
    return f"{rate:,.0f}" if rate >= 10 else f"{rate:.2f}"


def bench(
    game: Game, rules: dict, seats: list[str], n_games: int | None, store: bool, fixed_seats: bool
) -> list[str]:
    """Lines of a benchmark report: compile/cache time, then a timed run on one core."""
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
    if store:
        n_store = max(n, 10 * game.chunk_size)
        plan.n_games = n_store
        cores = os.cpu_count() or 1
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            execute(plan, Path(tmp) / "bench", jobs=cores, progress=False)
            total = time.perf_counter() - start
        lines.append(
            f"  run with Parquet output, {cores} jobs: {n_store:,} games in {total:.2f} s"
            f" = {n_store / total:,.0f} games/s ({n_store / total / cores:,.0f} per core)"
        )
    return lines
