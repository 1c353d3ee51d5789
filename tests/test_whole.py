"""A dataset proves it is whole: every part carries what identifies it, and every reader
(report, replay --from, --resume, verify, the analysis) checks it against the manifest.

A part from another dataset, a part the manifest does not plan, a task with one of its tables
missing and a hand-edited manifest are each named in one line with the fix, never read.
"""

import json
import re
import shutil
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hostile import SMALL, games, invoke, one_error, snapshot

from simulator.analysis import Dataset
from simulator.core.errors import UserError
from simulator.core.game import get_game
from simulator.run.store import part_name
from simulator.run.whole import PREFIX


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Path]:
    """Small finished datasets of 3 parts of 100 games: Ekonos with seeds 3 and 4, Karnaxis
    (its games parts have as many rows as Ekonos')."""
    base = tmp_path_factory.mktemp("whole")
    out = {}
    for name, game, seed in (("ek", "ekonos", 3), ("ek4", "ekonos", 4), ("kx", "karnaxis", 3)):
        args = [*SMALL[:-1], seed]
        assert invoke("run", game, *args, "-p", 4, "--out", base / name).exit_code == 0
        out[name] = base / name
    return out


@pytest.fixture
def dataset(made, tmp_path) -> Path:
    return Path(shutil.copytree(made["ek"], tmp_path / "ds"))


def resume_fix(out: Path) -> str:
    return f"`balsim run ekonos --out {out} --resume` plays it again"


def readers_refuse(out: Path, tmp_path: Path, message: str) -> None:
    """report, replay --from, verify and the analysis refuse ``out`` with ``message``, and
    change nothing in it."""
    before = snapshot(out)
    one_error(invoke("report", out, "--out", tmp_path / "r.html"), message)
    one_error(invoke("replay", "--from", out, "--game", 0), message)
    one_error(invoke("verify", out), message)
    with pytest.raises(UserError, match="^" + re.escape(message.split(" (")[0])):
        Dataset(out)
    assert snapshot(out) == before and not (tmp_path / "r.html").exists()


def resume(out: Path) -> str:
    result = invoke("run", "ekonos", "--out", out, "--resume", "-j", 1, "-q")
    assert result.exit_code == 0, result.output
    return result.output


def test_every_part_carries_what_identifies_it(dataset):
    manifest = json.loads((dataset / "manifest.json").read_text())
    for table in ("games", "players"):
        meta = pq.read_schema(dataset / table / part_name(2)).metadata
        stamp = {k.decode(): v.decode() for k, v in meta.items() if k.startswith(b"balsim.")}
        assert stamp[f"{PREFIX}game"] == "ekonos"
        assert stamp[f"{PREFIX}engine_version"] == get_game("ekonos").engine_version
        assert stamp[f"{PREFIX}seed"] == "3" == str(manifest["seed"])
        assert stamp[f"{PREFIX}variant"] == "base"
        assert stamp[f"{PREFIX}task"] == "2"
        assert stamp[f"{PREFIX}game_ids"] == "200-299"
        assert len(stamp[f"{PREFIX}plan"]) == 16


# ----------------------------------------------------------------------------- damaged


def test_a_truncated_part_is_refused_by_report_and_replayed_by_resume(dataset, made, tmp_path):
    part = dataset / "players" / "part-00001.parquet"
    part.write_bytes(part.read_bytes()[:500])
    stale = dataset / "players" / ".part-00001.parquet.4242.tmp"  # a worker stopped mid-write
    stale.write_bytes(b"PAR1")
    one_error(
        invoke("report", dataset, "--out", tmp_path / "r.html"),
        f"{part} is damaged (not a complete Parquet file); `balsim run ekonos --out "
        f"{dataset} --resume` plays it again",
    )
    result = invoke("run", "ekonos", "--out", dataset, "--resume", "-j", 1, "-q")
    assert result.exit_code == 0, result.output
    assert "played 100 in" in result.output  # only the damaged task was played again
    assert not stale.exists()
    for table in ("games", "players"):
        assert pl.read_parquet(dataset / table).equals(pl.read_parquet(made["ek"] / table))


def test_resume_replays_a_part_with_the_wrong_row_count(dataset, made):
    part = dataset / "games" / "part-00002.parquet"
    pq.write_table(pq.read_table(part).slice(0, 10), part)
    one_error(
        invoke("report", dataset, "--out", dataset.parent / "r.html"),
        f"{part} has 10 rows instead of 100; " + resume_fix(dataset),
    )
    assert "played 100 in" in resume(dataset)
    assert games(dataset).equals(games(made["ek"]))


@pytest.mark.parametrize(
    "manifest, message",
    [
        ("{}", "was not written by balsim"),
        ("[1, 2]", "was not written by balsim"),
        ("not json", "is damaged"),
        ('{"format": "balsim-dataset", "game": "ekonos"}', "is damaged (no n_games, n_players"),
        (
            '{"format": "balsim-dataset", "game": "ekonos", "n_games": 3, "n_players": 4, '
            '"variants": [], "tables": ["games"]}',
            "manifest.json is damaged (no 'seats')",
        ),
    ],
)
def test_a_foreign_or_damaged_manifest(dataset, tmp_path, manifest, message):
    (dataset / "manifest.json").write_text(manifest)
    before = snapshot(dataset)
    one_error(invoke("report", dataset, "--out", tmp_path / "r.html"), message)
    one_error(invoke("replay", "--from", dataset, "--game", 1), message)
    one_error(invoke("run", "ekonos", "--out", dataset, "--resume"), message)
    assert snapshot(dataset) == before


def test_a_dataset_without_parts(dataset, tmp_path):
    manifest = json.loads((dataset / "manifest.json").read_text())
    manifest["status"] = "running"
    del manifest["parts"]
    (dataset / "manifest.json").write_text(json.dumps(manifest))
    for table in ("games", "players"):
        shutil.rmtree(dataset / table)
    one_error(
        invoke("report", dataset, "--out", tmp_path / "r.html"),
        "holds no games yet (its run stopped before the first part was written)",
    )
    assert not (tmp_path / "r.html").exists()


# ----------------------------------------------------------------------------- foreign, stray


def swap_in(dataset: Path, other: Path, task: int = 1) -> None:
    for table in ("games", "players"):
        shutil.copy(other / table / part_name(task), dataset / table / part_name(task))


def test_a_part_of_another_seed_is_refused_and_replayed_by_resume(dataset, made, tmp_path):
    swap_in(dataset, made["ek4"])  # same game, rows and names: only its seed differs
    part = dataset / "games" / part_name(1)
    readers_refuse(
        dataset,
        tmp_path,
        f"{part} belongs to another dataset (its seed is 4, this dataset's 3) (and 1 more); "
        + resume_fix(dataset),
    )
    assert "played 100 in" in resume(dataset)
    assert games(dataset).equals(games(made["ek"]))
    assert invoke("report", dataset, "--out", tmp_path / "r.html").exit_code == 0


def test_a_part_of_another_game_with_as_many_rows_is_refused(dataset, made, tmp_path):
    assert pq.read_metadata(made["kx"] / "games" / part_name(0)).num_rows == 100
    shutil.copy(made["kx"] / "games" / part_name(0), dataset / "games" / part_name(0))
    readers_refuse(
        dataset,
        tmp_path,
        f"{dataset / 'games' / part_name(0)} belongs to another dataset (its game is karnaxis, "
        f"this dataset's ekonos); " + resume_fix(dataset),
    )
    assert "played 100 in" in resume(dataset)
    assert games(dataset).equals(games(made["ek"]))


def test_a_part_of_other_rules_is_refused(dataset, tmp_path):
    other = tmp_path / "other"
    args = ["--set", "setup.start_money=5", "--out", other]
    assert invoke("run", "ekonos", *SMALL, "-p", 4, *args).exit_code == 0
    swap_in(dataset, other, task=2)
    readers_refuse(
        dataset,
        tmp_path,
        f"{dataset / 'games' / part_name(2)} was played with other seats or rules than this "
        "dataset's (and 1 more); " + resume_fix(dataset),
    )


def test_a_stray_part_is_refused_until_moved_out(dataset, tmp_path):
    stray = dataset / "games" / part_name(3)
    shutil.copy(dataset / "games" / part_name(0), stray)  # game ids 0-99 a second time
    message = (
        f"{stray} is not one of this dataset's parts (its manifest plans 3 per table); "
        f"move it out of {dataset}"
    )
    readers_refuse(dataset, tmp_path, message)
    one_error(
        invoke("run", "ekonos", "--out", dataset, "--resume"),
        message + " and --resume again",
    )
    assert pl.scan_parquet(dataset / "games" / "part-*.parquet").collect().height == 400
    stray.unlink()
    assert invoke("verify", dataset).exit_code == 0


def edit_manifest(out: Path, **changes) -> None:
    manifest = json.loads((out / "manifest.json").read_text())
    (out / "manifest.json").write_text(json.dumps({**manifest, **changes}))


def test_a_manifest_with_fewer_games_than_its_parts(dataset, tmp_path):
    edit_manifest(dataset, n_games=200)
    readers_refuse(
        dataset,
        tmp_path,
        f"{dataset / 'games' / part_name(2)} is not one of this dataset's parts (its manifest "
        f"plans 2 per table) (and 1 more); move it out of {dataset}",
    )


def test_a_complete_manifest_with_more_games_than_its_parts(dataset, tmp_path):
    edit_manifest(dataset, n_games=400)  # status still "complete"
    readers_refuse(
        dataset,
        tmp_path,
        f"{dataset / 'games' / part_name(3)} is missing (and 1 more); " + resume_fix(dataset),
    )
    assert "played 100 in" in resume(dataset)
    assert games(dataset).height == 400 and invoke("verify", dataset).exit_code == 0


def test_a_changed_seed_replays_every_part_with_it(dataset, made, tmp_path):
    edit_manifest(dataset, seed=4, status="running")
    readers_refuse(
        dataset,
        tmp_path,
        f"{dataset / 'games' / part_name(0)} belongs to another dataset (its seed is 3, this "
        "dataset's 4) (and 5 more); " + resume_fix(dataset),
    )
    assert "played 300 in" in resume(dataset)  # one seed throughout, the manifest's
    assert games(dataset).equals(games(made["ek4"]))


def test_a_task_stopped_between_its_tables(dataset, made, tmp_path):
    edit_manifest(dataset, status="running")
    (dataset / "players" / part_name(1)).unlink()  # its games part was written, then the stop
    readers_refuse(
        dataset,
        tmp_path,
        f"{dataset / 'players' / part_name(1)} is missing; " + resume_fix(dataset),
    )
    assert "played 100 in" in resume(dataset)
    assert (
        pl.read_parquet(dataset / "players")
        .sort("game_id", "seat")
        .equals(pl.read_parquet(made["ek"] / "players").sort("game_id", "seat"))
    )


def test_a_part_that_is_not_a_regular_file_is_refused_not_waited_on(dataset, tmp_path):
    import os

    part = dataset / "players" / part_name(0)
    part.unlink()
    os.mkfifo(part)  # reading it would wait for a writer that never comes
    readers_refuse(dataset, tmp_path, f"{part} is not a regular file; " + resume_fix(dataset))


def test_verify_says_a_whole_dataset_is_whole(dataset, tmp_path):
    engine = get_game("ekonos").engine_version
    result = invoke("verify", dataset)
    assert result.exit_code == 0 and result.stderr == ""
    assert result.output == (
        f"{dataset}: whole; ekonos, 300 games in 3 parts per table (1 variant, seed 3, "
        f"engine {engine})\n"
    )
    edit_manifest(dataset, status="running")
    (dataset / "games" / part_name(2)).unlink()
    (dataset / "players" / part_name(2)).unlink()
    assert invoke("verify", dataset).output.endswith(
        f"unfinished: 200 of 300 games played, `balsim run ekonos --out {dataset} --resume` "
        "finishes it\n"
    )


def test_verify_reads_the_rows_too(dataset):
    """A part whose footer is right but whose rows were edited: only verify reads rows."""
    part = dataset / "games" / part_name(1)
    table = pq.read_table(part)
    seeds = table["seed"].to_numpy().copy()
    seeds[5] += 1
    edited = table.set_column(table.schema.get_field_index("seed"), "seed", pa.array(seeds))
    pq.write_table(edited, part)  # the schema's metadata (its stamp) is kept
    one_error(
        invoke("verify", dataset),
        f"{part} holds games of other seeds than this dataset's; " + resume_fix(dataset),
    )


def test_verify_checks_and_reports_every_dataset_it_is_given(made, tmp_path):
    """A bad dataset among several: each is checked and reported, the bad one on stderr."""
    first, bad, last = (Path(shutil.copytree(made[n], tmp_path / n)) for n in ("ek", "kx", "ek4"))
    part = bad / "games" / part_name(1)
    part.write_bytes(part.read_bytes()[:100])
    result = invoke("verify", first, bad, last, tmp_path / "missing")
    assert result.exit_code == 2
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == [str(first), str(last)]
    errors = result.stderr.splitlines()
    assert len(errors) == 2 and all(e.startswith("Error: ") for e in errors), result.stderr
    assert str(part) in errors[0] and f"{tmp_path / 'missing'} has no manifest.json" in errors[1]
    assert invoke("verify", first, last).exit_code == 0


def test_parts_of_an_older_balsim_are_checked_on_their_game(dataset, tmp_path):
    """Parts written before the stamps carried only the game and engine version."""
    for table in ("games", "players"):
        for part in (dataset / table).glob("part-*.parquet"):
            t = pq.read_table(part)
            keep = {
                k: v for k, v in t.schema.metadata.items() if k.endswith((b".game", b"_version"))
            }
            pq.write_table(t.replace_schema_metadata(keep), part)
    assert invoke("report", dataset, "--out", tmp_path / "r.html").exit_code == 0
    part = dataset / "players" / part_name(0)
    t = pq.read_table(part)
    pq.write_table(t.replace_schema_metadata({b"balsim.game": b"karnaxis"}), part)
    one_error(invoke("verify", dataset), f"{part} belongs to another dataset (its game is karnaxis")
