"""No command loses data, every user mistake is one line, a failed run leaves nothing behind.

Each test drives the CLI in-process (CliRunner) and checks the exit status, the one line on
stderr, and that no file was deleted, overwritten or half-written.
"""

import json
import os
from pathlib import Path

import pytest
from hostile import (
    SMALL,
    fail_if_called,
    games,
    invoke,
    one_error,
    snapshot,
    stop_on_task,
    write_result,
)

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


IN_DATASET = ["manifest.json", "games/part-00000.parquet", "games/r.html", "r.html"]


@pytest.mark.parametrize("target", IN_DATASET)
def test_no_command_writes_a_file_into_a_dataset(dataset, target):
    before = snapshot(dataset)
    inside = f"is inside the dataset {dataset.resolve()}; write it elsewhere"
    one_error(invoke("report", dataset, "--out", dataset / target), inside)
    for force in ((), ("--force",)):
        tune = ["tune", "ekonos", "--policy", "cash_hoarder", "--out", dataset / target]
        one_error(invoke(*tune, *force), inside)
        challenge = ["challenge", "ekonos", "--incumbent", "cash_hoarder"]
        one_error(invoke(*challenge, "--out", dataset / target, *force), inside)
        one_error(invoke("assumed", "ekonos", "--template", dataset / target, *force), inside)
    assert snapshot(dataset) == before


FOLDER_COMMANDS = {
    "run": ["run", "ekonos", "-n", 10],
    "sweep": ["sweep", "ekonos", "--vary", "setup.start_money=1,2", "-n", 10],
    "fit": ["fit", "ekonos", "--key", "setup.start_money=0:9", "--target", "first_player_edge=0"],
    "sensitivity": ["sensitivity", "ekonos", "--keys", "setup.start_money=0:9"],
    "skill": ["skill", "ekonos"],
    "ask": ["ask", "scoring"],
    "matrix": ["matrix", "ekonos"],
    "study": ["study", "--report", "{tmp}/s.html"],
}


@pytest.mark.parametrize("command", FOLDER_COMMANDS)
def test_no_command_writes_a_folder_into_a_dataset(dataset, tmp_path, command, monkeypatch):
    monkeypatch.setattr("simulator.studies.study.warm_engines", fail_if_called)
    args = [str(a).replace("{tmp}", str(tmp_path)) for a in FOLDER_COMMANDS[command]]
    before = snapshot(dataset)
    for force in ((), ("--force",)) if command != "study" else ((),):
        for inside in (dataset / "games", dataset / "games" / "new"):
            one_error(
                invoke(*args, "--out", inside, *force),
                f"{inside} is inside the dataset {dataset.resolve()}",
            )
    if command not in ("run", "sweep", "study"):  # those replace a dataset, with --force
        one_error(
            invoke(*args, "--out", dataset, "--force"),
            f"--out {dataset} is a balsim dataset, not a folder for {command}'s result",
        )
    assert snapshot(dataset) == before and not (tmp_path / "s.html").exists()


def test_study_refuses_a_report_inside_a_folder_it_writes(tmp_path, monkeypatch):
    monkeypatch.setattr("simulator.studies.study.warm_engines", fail_if_called)
    runs = tmp_path / "st"
    for inside in ("ekonos-3p/games/part-00000.parquet", "sens-ekonos/r.html", "skill-ekonos/r"):
        one_error(
            invoke("study", "--out", runs, "--report", runs / inside),
            f"--report {runs / inside} is inside the study's folder {runs / inside.split('/')[0]}",
        )
    assert not runs.exists()


@pytest.mark.slow
def test_report_replaces_a_report_but_no_other_file(dataset, tmp_path):
    other = tmp_path / "notes.html"
    other.write_text("<html>my notes</html>")
    one_error(
        invoke("report", dataset, "--out", other),
        f"--out {other} exists and was not written by balsim; refusing to overwrite it",
    )
    assert other.read_text() == "<html>my notes</html>"
    report = tmp_path / "r.html"
    assert invoke("report", dataset, "--out", report).exit_code == 0
    assert "balsim playtest report" in report.read_text()
    report.write_text(report.read_text().replace("</body>", "<p>old</p></body>"))
    assert invoke("report", dataset, "--out", report).exit_code == 0  # a report: replaced
    assert "<p>old</p>" not in report.read_text()
    assert not list(tmp_path.glob(".*.tmp"))


def test_a_file_output_is_replaced_only_when_its_command_wrote_it(tmp_path):
    from simulator.core.errors import UserError
    from simulator.run.outputs import check_out_file

    mark = b"# Written by: balsim"
    ours, mine = tmp_path / "tuned.toml", tmp_path / "mine.toml"
    ours.write_text("# Written by: balsim tune ekonos --all\n[policies.x_tuned]\n")
    mine.write_text("[policies.x_tuned]\n" + "#" * 2000 + "\n# Written by: balsim\n")
    assert check_out_file(ours, True, "--out", mark) == ours
    with pytest.raises(UserError, match="exists; use --force to replace it"):
        check_out_file(ours, False, "--out", mark)
    for force in (False, True):  # its first KiB does not say balsim wrote it
        with pytest.raises(UserError, match="was not written by balsim; refusing to overwrite"):
            check_out_file(mine, force, "--out", mark)


@pytest.mark.parametrize("where", ["sub/res", "."])
def test_a_result_written_again_keeps_what_a_user_added(tmp_path, monkeypatch, where):
    from simulator.run.outputs import claim

    monkeypatch.chdir(tmp_path)
    out = Path(where)
    (tmp_path / "thesis.md").write_text("mine")  # beside the result, or in it for --out .
    write_result(out, {"fit.toml": "one", "old/evaluations.parquet": "e"})
    (out / "NOTES.md").write_text("my notes")
    (out / "plots").mkdir()
    (out / "plots" / "mine.png").write_text("my chart")
    claim(out, "fit", "fit", True)
    write_result(out, {"fit.toml": "two", "fit.png": "chart"})
    assert (out / "NOTES.md").read_text() == "my notes"
    assert (out / "plots" / "mine.png").read_text() == "my chart"
    assert (tmp_path / "thesis.md").read_text() == "mine"
    assert (out / "fit.toml").read_text() == "two" and (out / "fit.png").read_text() == "chart"
    assert not (out / "old").exists()  # the earlier result's own file and folder are gone
    record = json.loads((out / "balsim.json").read_text())
    assert record == {"tool": "fit", "written_by": "fit", "files": ["fit.png", "fit.toml"]}
    assert not [p for p in tmp_path.rglob("*new-*")]


def test_a_tool_refuses_a_folder_it_did_not_write(tmp_path):
    from simulator.core.errors import UserError
    from simulator.run.outputs import claim

    write_result(tmp_path / "sens", {"effects.json": "{}"}, tool="sensitivity")
    for force in (False, True):  # --force would not help: another tool's result
        with pytest.raises(UserError, match="holds a balsim sensitivity result, not fit's"):
            claim(tmp_path / "sens", "fit", "fit", force)
    with pytest.raises(UserError, match="not empty; use --force to replace sensitivity's result"):
        claim(tmp_path / "sens", "sensitivity", "sensitivity", False)
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "thesis.md").write_text("mine")
    with pytest.raises(UserError, match="was not written by balsim .no balsim.json.; refusing"):
        claim(tmp_path / "notes", "fit", "fit", True)


def test_sensitivity_forced_in_a_folder_of_notes_keeps_them(tmp_path, monkeypatch):
    """The folder a designer works in, written into twice with --out . --force."""
    work = tmp_path / "work"
    (work / "my_work").mkdir(parents=True)
    (work / "my_work" / "thesis.md").write_text("mine")
    monkeypatch.chdir(work)
    screen = ["sensitivity", "ekonos", "--keys", "setup.start_money=0:9", "--trajectories", 2]
    screen += ["-n", 10, "-j", 1, "-q", "--out", "."]
    one_error(invoke(*screen), "--out . is not empty; use --force")
    one_error(invoke(*screen, "--force"), "was not written by balsim (no balsim.json); refusing")
    assert (work / "my_work" / "thesis.md").read_text() == "mine"
    (work / "my_work").rename(tmp_path / "my_work")
    assert invoke(*screen).exit_code == 0  # an empty folder
    (work / "NOTES.md").write_text("my notes")
    (work / "plots").mkdir()
    (work / "plots" / "mine.png").write_text("my chart")
    assert invoke(*screen, "--force").exit_code == 0
    assert (work / "NOTES.md").read_text() == "my notes"
    assert (work / "plots" / "mine.png").read_text() == "my chart"
    assert json.loads((work / "balsim.json").read_text())["tool"] == "sensitivity"
    assert (work / "effects.parquet").exists() and not list(work.glob(".*"))


def test_ask_forced_keeps_a_file_added_to_its_dataset(tmp_path):
    out = tmp_path / "a"
    ask = ["ask", "scoring", "-n", 24, "-j", 1, "-q", "--field", "scripted", "--out", out]
    assert invoke(*ask).exit_code == 0
    dataset = out / "dataset-scripted"
    (dataset / "games" / "my-query.sql").write_text("select 1")
    (out / "mine.txt").write_text("mine")
    assert invoke(*ask, "--seed", 2, "--force").exit_code == 0
    assert (dataset / "games" / "my-query.sql").read_text() == "select 1"
    assert (out / "mine.txt").read_text() == "mine"
    assert json.loads((out / "balsim.json").read_text())["seed"] == 2
    assert invoke("verify", dataset).exit_code == 0  # the new dataset alone, whole


# ----------------------------------------------------------------------------- one writer


def test_a_dataset_being_written_is_refused_to_a_second_writer(dataset):
    from simulator.run.store import Writing

    before = snapshot(dataset)
    with Writing(dataset):
        holder = (dataset / ".balsim.lock").read_text()
        assert holder.startswith(f"pid {os.getpid()} on ")
        for args in (
            ["run", "ekonos", "-n", 10, "--force"],
            ["sweep", "ekonos", "--vary", "setup.start_money=1,2", "-n", 10, "--force"],
            ["run", "ekonos", "--resume"],
        ):
            one_error(
                invoke(*args, "--out", dataset),
                f"--out {dataset} is being written by another balsim ({holder}); wait for it "
                "to finish or choose another --out",
            )
    assert snapshot(dataset) == before


def test_a_stale_lock_is_taken_over(dataset):
    # what a writer killed by SIGKILL leaves: its lock file, no longer locked
    (dataset / ".balsim.lock").write_text("pid 4194305 on elsewhere since 2026-12-01 10:00:00")
    result = invoke("run", "ekonos", *SMALL, "--out", dataset, "--force")
    assert result.exit_code == 0, result.output
    assert not (dataset / ".balsim.lock").exists() and games(dataset).height == 300


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
    manifest = json.loads((dataset / "manifest.json").read_text())
    (dataset / "manifest.json").write_text(json.dumps({**manifest, "status": "running"}))
    for table in ("games", "players"):
        (dataset / table / "part-00001.parquet").unlink()  # an unfinished chunk
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


@pytest.mark.slow
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
    from simulator.run.tables import narrow

    assert narrow(np.array([3, 32_767]), np.int16, "length").dtype == np.int16
    with pytest.raises(Fault, match="games.length reached 40,000, beyond the int16 column"):
        narrow(np.array([3, 40_000]), np.int16, "length")


def test_the_promises_page_names_only_tests_that_exist():
    """docs/promises.md names the test of each promise; a test it names that is renamed or
    gone fails here (a bare name is in the file named last before it)."""
    import ast
    import re

    root = Path(__file__).resolve().parents[1]
    page = (root / "docs" / "promises.md").read_text(encoding="utf-8")
    named, current = [], None
    for ref in re.findall(r"`((?:test_\w+\.py::)?test_\w+\*?)`", page):
        file, _, name = ref.rpartition("::")
        current = file or current
        named.append((current, name))
    assert len(named) > 40
    defined = {}
    for file in {f for f, _ in named}:
        tree = ast.parse((root / "tests" / file).read_text(encoding="utf-8"))
        defined[file] = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    missing = [
        f"{file}::{name}"
        for file, name in named
        if not any(
            d == name or (name.endswith("*") and d.startswith(name[:-1])) for d in defined[file]
        )
    ]
    assert missing == []
