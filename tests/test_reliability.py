"""No command loses data, every user mistake is one line, a failed run leaves nothing behind.

Each test drives the CLI in-process (CliRunner) and checks the exit status, the one line on
stderr, and that no file was deleted, overwritten or half-written.
"""

import hashlib
import json
import os
import shutil
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from simulator.cli import cli
from simulator.run import store

SMALL = ("-n", 300, "--chunk-size", 100, "-j", 1, "-q", "--seed", 3)


def invoke(*args, **kwargs):
    return CliRunner().invoke(cli, [str(a) for a in args], **kwargs)


def one_error(result, message: str, code: int = 2) -> None:
    """The command failed with ``code`` and exactly one stderr line ``Error: ...message...``."""
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == code, result.output
    assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0], result.stderr
    assert "Traceback" not in result.output


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with a hash of its bytes: equal snapshots, nothing touched."""
    return {
        str(p.relative_to(folder)): hashlib.sha1(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def ekonos_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("made") / "ek"
    assert invoke("run", "ekonos", *SMALL, "--out", out).exit_code == 0
    return out


@pytest.fixture
def dataset(ekonos_run, tmp_path) -> Path:
    """A fresh copy of a small finished Ekonos dataset (3 parts of 100 games)."""
    return Path(shutil.copytree(ekonos_run, tmp_path / "ds"))


def games(out: Path) -> pl.DataFrame:
    return pl.read_parquet(out / "games" / "part-*.parquet").sort("game_id")


# ----------------------------------------------------------------------------- data loss


def test_force_refuses_a_folder_whose_manifest_is_not_ours(tmp_path):
    app = tmp_path / "app"
    app.mkdir()
    (app / "manifest.json").write_text('{"name": "my web app", "start_url": "/"}')
    (app / "index.js").write_text("console.log(1)")
    before = snapshot(app)
    one_error(
        invoke("run", "ekonos", "-n", 10, "--out", app, "--force"),
        "is not a balsim dataset (no manifest.json written by balsim); refusing to delete",
    )
    assert snapshot(app) == before


def test_force_deletes_only_what_balsim_wrote(dataset):
    (dataset / "notes.txt").write_text("mine")
    (dataset / "games" / "my-query.sql").write_text("select 1")
    result = invoke(
        "run", "ekonos", "-n", 150, "--chunk-size", 100, "-j", 1, "-q", "--out", dataset, "--force"
    )
    assert result.exit_code == 0, result.output
    assert (dataset / "notes.txt").read_text() == "mine"
    assert (dataset / "games" / "my-query.sql").read_text() == "select 1"
    assert sorted(p.name for p in (dataset / "games").glob("part-*")) == [
        "part-00000.parquet",
        "part-00001.parquet",
    ]  # the old third part is gone
    assert games(dataset).height == 150


def test_force_in_the_dataset_folder_itself_keeps_the_folder(dataset, monkeypatch):
    monkeypatch.chdir(dataset)
    result = invoke(
        "run", "ekonos", "-n", 100, "--chunk-size", 100, "-j", 1, "-q", "--out", ".", "--force"
    )
    assert result.exit_code == 0, result.output
    assert games(dataset).height == 100 and (dataset / "manifest.json").exists()


def test_force_from_inside_a_table_folder_keeps_the_working_folder(dataset, monkeypatch):
    monkeypatch.chdir(dataset / "players")
    result = invoke(
        "run", "ekonos", "-n", 100, "--chunk-size", 100, "-j", 1, "-q", "--out", "..", "--force"
    )
    assert result.exit_code == 0, result.output
    assert Path.cwd().exists() and games(dataset).height == 100


def test_out_through_a_symbolic_link(dataset, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(dataset, target_is_directory=True)
    result = invoke(
        "run", "ekonos", "-n", 100, "--chunk-size", 100, "-j", 1, "-q", "--out", link, "--force"
    )
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and games(dataset).height == 100
    broken = tmp_path / "broken"
    broken.symlink_to(tmp_path / "nowhere")
    one_error(invoke("run", "ekonos", "-n", 10, "--out", broken), "is a broken symbolic link")
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize(
    "target", ["manifest.json", "games/part-00000.parquet", "games/r.html", "r.html"]
)
def test_report_never_writes_into_a_dataset(dataset, target):
    before = snapshot(dataset)
    for force in ((), ("--force",)):
        one_error(
            invoke("report", dataset, "--out", dataset / target, *force),
            f"is inside the dataset {dataset.resolve()}; write it elsewhere",
        )
    assert snapshot(dataset) == before


def test_report_overwrites_a_report_but_not_another_file(dataset, tmp_path):
    other = tmp_path / "notes.html"
    other.write_text("<html>my notes</html>")
    one_error(
        invoke("report", dataset, "--out", other),
        "exists and was not written by balsim; use --force",
    )
    assert other.read_text() == "<html>my notes</html>"
    assert invoke("report", dataset, "--out", other, "--force").exit_code == 0
    first = other.read_text()
    assert "balsim playtest report" in first
    assert invoke("report", dataset, "--out", other).exit_code == 0  # a report: replaced
    assert not list(tmp_path.glob(".*.tmp"))


# ----------------------------------------------------------------------------- one line, exit 2


@pytest.mark.parametrize(
    "content", [b"\x00\x01\x02binary\xff\xfe", "[setup]\nstart_money = 3\n".encode("utf-16")]
)
def test_binary_and_utf16_rules_and_variant_files(tmp_path, content):
    bad = tmp_path / "bad.toml"
    bad.write_bytes(content)
    out = tmp_path / "out"
    one_error(invoke("run", "ekonos", "--rules", bad, "--out", out), "not UTF-8 text")
    one_error(invoke("sweep", "ekonos", "--variant", f"v={bad}", "--out", out), "not UTF-8 text")
    assert not out.exists()


def test_out_under_a_file_or_with_a_too_long_name(dataset, tmp_path, monkeypatch):
    afile = tmp_path / "afile"
    afile.write_text("x")
    long = "a" * 300
    for command in (
        ("run", "ekonos", "-n", 10),
        ("sweep", "ekonos", "--vary", "setup.start_money=1,2", "-n", 10),
    ):
        one_error(invoke(*command, "--out", afile / "sub"), f"{afile} is a file, not a folder")
        one_error(invoke(*command, "--out", tmp_path / long), "is too long")
    # report and study check their outputs before analysing or playing anything
    monkeypatch.setattr("simulator.report.write_report", fail_if_called)
    monkeypatch.setattr("simulator.studies.study.execute", fail_if_called)
    one_error(invoke("report", dataset, "--out", afile / "r.html"), "is a file, not a folder")
    one_error(invoke("report", dataset, "--out", tmp_path / f"{long}.html"), "is too long")
    one_error(
        invoke("study", "--out", afile / "runs", "--report", tmp_path / "s.html"),
        "is a file, not a folder",
    )
    one_error(invoke("study", "--report", afile / "s.html"), "is a file, not a folder")
    assert afile.read_text() == "x" and sorted(tmp_path.iterdir()) == [afile, dataset]


def fail_if_called(*args, **kwargs):
    raise AssertionError("the check should have come first")


def test_a_truncated_part_is_refused_by_report_and_replayed_by_resume(
    dataset, ekonos_run, tmp_path
):
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
        assert pl.read_parquet(dataset / table).equals(pl.read_parquet(ekonos_run / table))


def test_resume_replays_a_part_with_the_wrong_row_count(dataset, ekonos_run):
    part = dataset / "games" / "part-00002.parquet"
    pq.write_table(pq.read_table(part).slice(0, 10), part)
    assert store.part_problem(part, 100) == "has 10 rows instead of 100"
    result = invoke("run", "ekonos", "--out", dataset, "--resume", "-j", 1, "-q")
    assert result.exit_code == 0 and "played 100 in" in result.output
    assert games(dataset).equals(games(ekonos_run))


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


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["run", "ekonos", "--set", "setup.start_money=9223372036854775000"],
            "rules key 'setup.start_money': 9223372036854775000 is beyond the largest magnitude",
        ),
        (
            ["run", "ekonos", "--set", "setup.start_money=99999999999999999999999"],
            "is beyond the largest magnitude",
        ),
        (
            ["run", "ekonos", "--set", "setup.money_per_turn=[1, 2, 3, 4000000000]"],
            "rules key 'setup.money_per_turn[3]': 4000000000 is beyond",
        ),
        (
            ["run", "ekonos", "--set", "policies.value_investor.buy_margin=1e300"],
            "rules key 'policies.value_investor.buy_margin': 1e+300 is beyond",
        ),
        (["sweep", "ekonos", "--vary", "setup.start_money=1,10000000000"], "is beyond"),
        (["run", "ekonos", "-n", "99999999999999999999999"], "parts; at most 100,000"),
        (["run", "ekonos", "-n", "1000000000000"], "raise --chunk-size or lower -n"),
        (["run", "ekonos", "--chunk-size", "10000000000"], "is not in the range 1<=x<=100000"),
        (["run", "ekonos", "--seed", "99999999999999999999999"], "is not in the range"),
        (["run", "ekonos", "-p", "0"], "ekonos is played by 3-6 players, not 0"),
        (["run", "ekonos", "-p", "-4"], "ekonos is played by 3-6 players, not -4"),
        (["run", "ekonos", "--until-ci", "nan"], "'nan' is not a width in (0, 1]"),
        (
            ["run", "ekonos", "--backend", "dask", "--scheduler", "nonsense"],
            "--scheduler 'nonsense' is not a scheduler address like tcp://HOST:8786",
        ),
        (
            ["run", "ekonos", "--backend", "dask", "--scheduler", "tcp://host:port"],
            "is not a scheduler address",
        ),
        (
            ["run", "ekonos", "--scheduler", "tcp://127.0.0.1:8786"],
            "--scheduler needs --backend dask",
        ),
        (["run", "ekonos", "--resume", "--force"], "give --resume (finish the dataset) or --force"),
        (
            ["sweep", "ekonos", "--vary", "setup.start_money=5,5"],
            "rules key 'setup.start_money': --vary lists the value 5 twice",
        ),
        (["sweep", "ekonos", "--vary", "setup.start_money=5,5.0"], "lists the value 5.0 twice"),
        (
            ["sweep", "ekonos", "--vary", "setup.start_money=5", "--vary", "setup.start_money=6"],
            "rules key 'setup.start_money': given in two --vary options; list all its values in "
            "one",
        ),
        (["replay", "ekonos", "--game", "99999999999999999999999"], "is not in the range"),
        (["replay", "ekonos", "--game", "3", "--variant", "v"], "--variant needs --from DATASET"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(args, message, tmp_path):
    out = tmp_path / "out"
    result = invoke(*args, "--out", out) if args[0] in ("run", "sweep") else invoke(*args)
    one_error(result, message)
    assert not out.exists()


def test_an_unreachable_scheduler_is_one_line(tmp_path):
    import socket

    import dask

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        result = invoke(
            "run",
            "ekonos",
            "-n",
            10,
            "--backend",
            "dask",
            "--scheduler",
            f"tcp://127.0.0.1:{port}",
            "--out",
            tmp_path / "out",
        )
    one_error(result, f"cannot reach the dask scheduler at tcp://127.0.0.1:{port}")
    assert not (tmp_path / "out").exists()


def test_jobs_beyond_the_cores_are_capped_saying_so(tmp_path):
    result = invoke("run", "ekonos", "-n", 20, "-j", 1000, "-q", "--out", tmp_path / "o")
    cores = os.cpu_count()
    assert result.exit_code == 0, result.output
    assert (
        f"note: --jobs 1000 is more than this machine's {cores} cores; using {cores}"
        in result.stderr
    )


# ----------------------------------------------------------------------------- replay --from


def test_replay_from_a_dataset_refuses_what_it_does_not_hold(dataset):
    one_error(
        invoke("replay", "--from", dataset, "--game", 300),
        f"{dataset} does not hold game 300 (its games are 0 to 299)",
    )
    one_error(
        invoke("replay", "karnaxis", "--from", dataset, "--game", 5),
        f"{dataset} holds ekonos games, not karnaxis",
    )
    for option in (
        ["--seed", 4],
        ["-p", 3],
        ["--policy", "random"],
        ["--fixed-seats"],
        ["--set", "setup.start_money=3"],
    ):
        one_error(
            invoke("replay", "--from", dataset, "--game", 5, *option),
            "cannot be given with --from: the dataset fixes its seed, seats and rules",
        )
    (dataset / "games" / "part-00001.parquet").unlink()  # an unfinished chunk
    one_error(invoke("replay", "--from", dataset, "--game", 150), "does not hold game 150")
    assert invoke("replay", "ekonos", "--from", dataset, "--game", 299).exit_code == 0


# ----------------------------------------------------------------------------- --resume


@pytest.mark.parametrize(
    "option, message",
    [
        (["--seed", 4], "--seed 4 (dataset: 3)"),
        (["-n", 400], "-n 400 (dataset: 300)"),
        (["-p", 5], "--players 5 (dataset: 4)"),
        (
            ["--policy", "random"],
            "--policy/--seats random,random,random,random (dataset: "
            "president_seeker,value_investor,market_builder,cash_hoarder)",
        ),
        (
            ["--seats", "random,random,random,random"],
            "--policy/--seats random,random,random,random",
        ),
        (["--chunk-size", 50], "--chunk-size 50 (dataset: 100)"),
        (["--fixed-seats"], "--fixed-seats (dataset: --balanced-seats)"),
        (["--until-ci", 0.1], "--until-ci 0.1 (dataset: none)"),
        (["--set", "setup.start_money=5"], "--rules/--set/--vary/--variant give other rules"),
    ],
)
def test_resume_refuses_options_that_disagree_with_the_dataset(dataset, option, message):
    before = snapshot(dataset)
    one_error(
        invoke("run", "ekonos", "--out", dataset, "--resume", *option),
        f"--resume finishes {dataset} as it was started, but {message}",
    )
    assert snapshot(dataset) == before


def test_resume_refuses_another_game_and_accepts_agreeing_options(dataset):
    one_error(
        invoke("run", "karnaxis", "--out", dataset, "--resume"), "GAME karnaxis (dataset: ekonos)"
    )
    one_error(
        invoke("sweep", "ekonos", "--out", dataset, "--resume", "--vary", "setup.start_money=1,2"),
        "give other rules",
    )
    result = invoke(
        "run",
        "ekonos",
        "--out",
        dataset,
        "--resume",
        "--seed",
        3,
        "-n",
        300,
        "--chunk-size",
        100,
        "-p",
        4,
        "-q",
    )
    assert result.exit_code == 0 and "played 0 in" in result.output


def test_resume_refuses_a_dataset_of_another_engine_version(dataset):
    manifest = json.loads((dataset / "manifest.json").read_text())
    manifest["engine_version"] = "ekonos-0"
    (dataset / "manifest.json").write_text(json.dumps(manifest))
    one_error(
        invoke("run", "ekonos", "--out", dataset, "--resume"),
        "was played by ekonos engine ekonos-0",
    )


# ----------------------------------------------------------------------------- failures


def test_an_interrupted_run_says_how_to_resume_and_report_marks_it(
    ekonos_run, tmp_path, monkeypatch
):
    out = tmp_path / "cut"
    monkeypatch.setattr("simulator.run.runner.play_task", stop_on_task(1, KeyboardInterrupt))
    result = invoke("run", "ekonos", *SMALL, "--out", out)
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        f"Aborted. 100 of 300 games are saved in {out}; "
        f"`balsim run ekonos --out {out} --resume` finishes the run"
    )
    monkeypatch.undo()
    report = invoke("report", out, "--out", tmp_path / "r.html")
    assert report.exit_code == 0
    assert f"warning: {out} is incomplete (an interrupted run)" in report.stderr
    assert (
        "INCOMPLETE: interrupted run, 100 of 300 games played" in (tmp_path / "r.html").read_text()
    )
    assert invoke("run", "ekonos", "--out", out, "--resume", "-q").exit_code == 0
    assert games(out).equals(games(ekonos_run))
    assert "INCOMPLETE" not in invoke("report", out, "--out", tmp_path / "r.html").stderr


def stop_on_task(task: int, error):
    from simulator.run.runner import play_task

    def play(plan, params, t, *args):
        if t == task:
            raise error
        return play_task(plan, params, t, *args)

    return play


@pytest.mark.parametrize(
    "error, message",
    [
        (OSError(28, "No space left on device"), "cannot write the dataset in"),
        (MemoryError(), "out of memory (lower --chunk-size or --jobs)"),
        (RuntimeError("boom"), "unexpected RuntimeError: boom (a bug in balsim"),
    ],
)
def test_a_run_that_fails_before_its_first_part_leaves_nothing(
    tmp_path, monkeypatch, error, message
):
    monkeypatch.setattr("simulator.run.runner.play_task", stop_on_task(0, error))
    out = tmp_path / "new" / "deeper"
    one_error(invoke("run", "ekonos", *SMALL, "--out", out), message, code=1)
    assert not (tmp_path / "new").exists()
    existing = tmp_path / "empty"
    existing.mkdir()
    one_error(invoke("run", "ekonos", *SMALL, "--out", existing), message, code=1)
    assert existing.is_dir() and not any(existing.iterdir())


def test_a_run_that_fails_later_keeps_its_parts_and_says_how_to_finish(tmp_path, monkeypatch):
    monkeypatch.setattr(
        "simulator.run.runner.play_task", stop_on_task(2, OSError(28, "No space left on device"))
    )
    out = tmp_path / "full"
    one_error(
        invoke("run", "ekonos", *SMALL, "--out", out),
        f"No space left on device; 200 of 300 games are saved, `balsim run ekonos --out "
        f"{out} --resume` finishes the run",
        code=1,
    )
    assert json.loads((out / "manifest.json").read_text())["status"] == "running"
    assert not list(out.rglob("*.tmp"))


def test_a_signal_while_stopping_ends_at_once_with_one_line(monkeypatch):
    from simulator.cli.group import Stop

    exits, written = [], []
    monkeypatch.setattr(os, "_exit", exits.append)
    monkeypatch.setattr(os, "write", lambda fd, data: written.append((fd, data)))
    stop = Stop()
    with pytest.raises(KeyboardInterrupt):
        stop.handle(15, None)  # the first SIGTERM stops the command
    stop.handle(2, None)  # Ctrl-C while it cleans up
    assert exits == [1] and written == [(2, b"Aborted.\n")]
    stop.finished(0)
    stop.handle(2, None)  # Ctrl-C during interpreter shutdown
    assert exits == [1, 0] and len(written) == 1


def test_a_bug_shows_its_traceback_on_request(tmp_path, monkeypatch):
    monkeypatch.setattr("simulator.run.runner.play_task", stop_on_task(0, RuntimeError("boom")))
    monkeypatch.setenv("BALSIM_TRACEBACK", "1")
    result = invoke("run", "ekonos", *SMALL, "--out", tmp_path / "o")
    assert isinstance(result.exception, RuntimeError) and str(result.exception) == "boom"


def test_a_game_longer_than_its_column_is_refused_not_wrapped():
    import numpy as np

    from simulator.core.errors import Fault
    from simulator.run.runner import narrow

    assert narrow(np.array([3, 32_767]), np.int16, "length").dtype == np.int16
    with pytest.raises(Fault, match="games.length reached 40,000, beyond the int16 column"):
        narrow(np.array([3, 40_000]), np.int16, "length")
