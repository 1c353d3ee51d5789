"""Shared fixtures: each game's kernels compile once per session, small datasets are reused."""

from pathlib import Path

import pytest

from simulator.cli.options import seat_list
from simulator.game import GAME_NAMES, get_game
from simulator.runner import Plan, Variant, execute


def small_plan(name: str, n_games: int = 600, chunk_size: int = 150, seed: int = 7) -> Plan:
    game = get_game(name)
    seats = seat_list(game, None, None, None)
    return Plan(game=name, n_games=n_games, n_players=len(seats), seats=seats, seed=seed,
                chunk_size=chunk_size, variants=[Variant("base", game.rules())])


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
def small_study(tmp_path_factory) -> dict:
    """The default study at 1% of its size: its dataset folders, its report and what it printed."""
    import contextlib
    import io

    from simulator.study import run_study
    base = tmp_path_factory.mktemp("study")
    report = base / "reports" / "study.html"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        dirs = run_study(base / "runs", report, jobs=1, progress=False, scale=0.01)
    return {"dirs": dirs, "report": report, "output": printed.getvalue()}
