"""One contract for every engine (DESIGN.md): columns, dtypes, every game ends, determinism."""

import json
import os
import subprocess
import sys

import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest
from conftest import small_plan

from simulator.core.game import GAME_NAMES, get_game
from simulator.core.rng import game_seeds
from simulator.run.runner import Target, execute, execute_all

GAMES_COLUMNS = {
    "game_id": pl.Int64,
    "variant": pl.String,
    "seed": pl.UInt64,
    "n_players": pl.Int8,
    "winner_seat": pl.Int8,
    "length": pl.Int16,
    "end_reason": pl.String,
}
PLAYERS_COLUMNS = {
    "game_id": pl.Int64,
    "variant": pl.String,
    "seat": pl.Int8,
    "policy": pl.String,
    "score": pl.Float64,
    "rank": pl.Int8,
    "won": pl.Boolean,
}


def read(path, table):
    return pl.read_parquet(path / table).sort(
        ["game_id", "seat"] if table == "players" else ["game_id"]
    )


@pytest.mark.parametrize("name", GAME_NAMES)
def test_columns_and_dtypes(small_datasets, name):
    games, players = read(small_datasets[name], "games"), read(small_datasets[name], "players")
    for columns, table in ((GAMES_COLUMNS, games), (PLAYERS_COLUMNS, players)):
        for column, dtype in columns.items():
            assert table.schema[column] == dtype, column
    for column in games.columns + players.columns:
        assert column == column.lower() and " " not in column
    assert games.height == 600
    assert players.height == 600 * games["n_players"][0]
    assert games["game_id"].to_list() == list(range(600))


@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_game_ends_with_a_consistent_result(small_datasets, name):
    game = get_game(name)
    games, players = read(small_datasets[name], "games"), read(small_datasets[name], "players")
    n = games["n_players"][0]
    assert games["end_reason"].is_in(list(game.categories["end_reason"])).all()
    assert (games["length"] > 0).all()
    assert games["winner_seat"].is_between(-1, n - 1).all()
    assert (players["rank"].is_between(1, n)).all()
    # a winner has the best rank, and the winning seat is among the winners
    assert (players.filter(pl.col("won"))["rank"] == 1).all()
    winners = games.filter(pl.col("winner_seat") >= 0).join(
        players, left_on=["game_id", "winner_seat"], right_on=["game_id", "seat"]
    )
    assert winners["won"].all()
    # seeds are the documented hash of (master seed, game_id)
    assert games["seed"].to_numpy().tolist() == game_seeds(7, np.arange(600)).tolist()


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.slow
def test_jobs_do_not_change_the_dataset(small_datasets, name, tmp_path):
    execute(small_plan(name), tmp_path / "two", jobs=2, progress=False)
    for table in ["games", "players", *get_game(name).timelines]:
        assert read(tmp_path / "two", table).equals(read(small_datasets[name], table)), table


@pytest.mark.parametrize("name", GAME_NAMES)
def test_resume_finishes_an_interrupted_run_identically(small_datasets, name, tmp_path):
    out = tmp_path / "resumed"
    execute(small_plan(name), out, jobs=1, progress=False)
    (out / "players" / "part-00002.parquet").unlink()  # as if killed mid-run
    (out / "games" / "part-00003.parquet").unlink()
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["status"] = "running"
    (out / "manifest.json").write_text(json.dumps(manifest))
    done = execute(None, out, resume=True, jobs=1, progress=False)
    assert done["status"] == "complete"
    assert done["played_this_run"]["games"] == 300
    for table in ["games", "players", *get_game(name).timelines]:
        assert read(out, table).equals(read(small_datasets[name], table)), table
    assert not list(out.rglob("*.tmp"))


def test_a_batch_of_datasets_writes_each_as_it_is_alone(small_datasets, tmp_path):
    """The study's batch: every game's dataset in one task list on two processes, one of them
    a resumed run missing a part, gives each the dataset played alone."""
    resumed = tmp_path / GAME_NAMES[0]
    execute(small_plan(GAME_NAMES[0]), resumed, jobs=1, progress=False)
    (resumed / "players" / "part-00001.parquet").unlink()
    targets = [Target(None, resumed, resume=True)] + [
        Target(small_plan(name), tmp_path / name) for name in GAME_NAMES[1:]
    ]
    manifests = execute_all(targets, jobs=2, progress=False)
    assert [m["game"] for m in manifests] == list(GAME_NAMES)
    assert manifests[0]["played_this_run"]["games"] == 150
    assert all(m["played_this_run"]["games"] == 600 for m in manifests[1:])
    for name in GAME_NAMES:
        for table in ["games", "players", *get_game(name).timelines]:
            assert read(tmp_path / name, table).equals(read(small_datasets[name], table)), table


def three_games(name: str) -> dict:
    """Every column of three games of ``small_plan(name)`` with a `random` seat beside its
    scripted ones, as arrays by ``table.column``."""
    from simulator.run.plan import seat_policy_ids

    plan = small_plan(name)
    game = get_game(plan.game)
    ids = np.arange(3)
    seats = seat_policy_ids(game, plan, ids)
    seats[:, -1] = 0  # `random`: every built-in behaviour plays
    raw = game.play(
        game.prepare(plan.variants[0].rules, plan.n_players), game_seeds(11, ids), seats
    )
    return {
        f"{t}.{c}": np.asarray(v[0] if isinstance(v, tuple) else v)
        for t, cols in raw.items()
        for c, v in cols.items()
    }


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.slow
def test_jit_equals_pure_python(name, tmp_path):
    """Two implementations, one seed: the same kernels run as plain Python
    (NUMBA_DISABLE_JIT=1, in a process of its own) play identical games, every column of
    every table (the one such test of every engine)."""
    script = f"""
import numpy as np, sys
sys.path.insert(0, {os.path.dirname(__file__)!r})
from test_contract import three_games
np.savez(sys.argv[1], **three_games({name!r}))
"""
    path = tmp_path / "plain.npz"
    subprocess.run(
        [sys.executable, "-c", script, str(path)],
        check=True,
        env=dict(os.environ, NUMBA_DISABLE_JIT="1"),
    )
    jit, plain = three_games(name), np.load(path)
    assert sorted(jit) == sorted(plain.files)
    for key in jit:
        np.testing.assert_array_equal(jit[key], plain[key], err_msg=key)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_parts_are_whole_and_counted(small_datasets, name):
    manifest = json.loads((small_datasets[name] / "manifest.json").read_text())
    assert manifest["status"] == "complete"
    assert manifest["engine_version"] == get_game(name).engine_version
    for _table, parts in manifest["parts"].items():
        assert len(parts) == 4
        for part in parts:
            parquet = pq.ParquetFile(small_datasets[name] / part["file"])
            assert parquet.metadata.num_rows == part["rows"]
            stamp = parquet.schema_arrow.metadata
            assert stamp[b"balsim.engine_version"].decode() == get_game(name).engine_version
    games = read(small_datasets[name], "games")
    assert games["engine_version"].unique().to_list() == [get_game(name).engine_version]
