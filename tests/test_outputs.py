"""One rule for every output folder (simulator/run/outputs.py): a command writes only where
it may, through no link it did not make, over no output it did not write without --force,
one writer at a time; a stopped tool leaves its folder as it was and offers no command that
cannot work.

Each case is refused before any work: the function that would do the work fails the test if
it is reached.
"""

import json
import os
import shutil
from pathlib import Path

import pytest
from hostile import fail_if_called, invoke, one_error, snapshot, stop_on_task, write_result

# each tool's command, and the function that does its work (never reached when refused)
TOOLS = {
    "ask": (["ask", "scoring", "--field", "scripted"], "simulator.studies.recipes.ask"),
    "fit": (
        ["fit", "ekonos", "--key", "setup.start_money=0:9", "--target", "first_player_edge=0"],
        "simulator.experiments.fit.fit",
    ),
    "sensitivity": (
        ["sensitivity", "ekonos", "--keys", "setup.start_money=0:9"],
        "simulator.experiments.sensitivity.screen",
    ),
    "skill": (["skill", "ekonos"], "simulator.experiments.skill.rate_ladder"),
    "matrix": (
        ["matrix", "ekonos", "--field", "scripted"],
        "simulator.experiments.matrix.play_matrix",
    ),
}


def no_work(monkeypatch, *targets: str) -> None:
    monkeypatch.setattr("simulator.studies.study.warm_engines", fail_if_called)
    for target in targets:
        monkeypatch.setattr(target, fail_if_called)


# ----------------------------------------------------------------------------- the study


def test_the_study_replaces_only_what_it_wrote(dataset, tmp_path, monkeypatch):
    runs, report = tmp_path / "runs", tmp_path / "s.html"
    runs.mkdir()
    shutil.copytree(dataset, runs / "ekonos-4p")
    write_result(runs / "sens-karnaxis", {"effects.json": "{}"}, "sensitivity")  # the user's own
    before = snapshot(runs)
    no_work(monkeypatch)
    for again in ((), ("--resume",)):
        one_error(
            invoke("study", "--out", runs, "--report", report, *again),
            f"{runs / 'ekonos-4p'} holds a balsim dataset written by balsim run, and the study "
            "replaces only what it wrote: use --force to replace it, or choose another --out",
        )
    shutil.rmtree(runs / "ekonos-4p")
    one_error(
        invoke("study", "--out", runs, "--report", report),
        f"{runs / 'sens-karnaxis'} holds a balsim sensitivity result written by balsim "
        "sensitivity, and the study replaces only what it wrote",
    )
    assert snapshot(runs) == {k: v for k, v in before.items() if not k.startswith("ekonos-4p")}
    # --force gets past the check (the study then stops as it starts compiling)
    monkeypatch.setattr("simulator.studies.study.warm_engines", stop)
    result = invoke("study", "--out", runs, "--report", report, "--force", "-q")
    assert result.exit_code == 1 and result.stderr.startswith("Aborted while compiling"), (
        result.stderr
    )
    assert "--force --resume` finishes the study" in result.stderr
    assert not (runs / ".balsim.lock").exists() and not report.exists()


def stop(*args, **kwargs):
    raise KeyboardInterrupt


def test_the_studys_own_folders_are_replaced_without_force(small_study, tmp_path, monkeypatch):
    from simulator.run.store import WRITER
    from simulator.studies.study import check_study_outputs, study_plans

    runs = Path(shutil.copytree(small_study["dirs"][0].parent, tmp_path / "runs"))
    manifest = json.loads((runs / "ekonos-4p" / "manifest.json").read_text())
    assert manifest[WRITER] == "study"
    assert json.loads((runs / "sens-ekonos" / "balsim.json").read_text())[WRITER] == "study"
    folders = [folder for folder, _ in study_plans(0.01)]
    assert check_study_outputs(runs, tmp_path / "s.html", folders) == runs.resolve()


# ----------------------------------------------------------------------------- links


def test_a_name_balsim_chose_is_never_a_link(dataset, tmp_path, monkeypatch):
    """The folder a user names may be a link; OUT/FIELD, the study's folders and a tool's own
    subfolders are names balsim chose, and a link there is refused, --force or not."""
    before = snapshot(dataset)
    no_work(monkeypatch, "simulator.experiments.fit.fit", "simulator.run.runner.play_runs")
    linked = "is a symbolic link balsim did not make; refusing to write through it"
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "ekonos-3p").symlink_to(dataset, target_is_directory=True)
    one_error(invoke("study", "--out", runs, "--report", tmp_path / "s.html", "--force"), linked)
    two = tmp_path / "two"
    two.mkdir()
    (two / "tuned").symlink_to(dataset, target_is_directory=True)
    run = ["run", "ekonos", "-n", 10, "--field", "scripted,tuned", "--out", two, "--force"]
    one_error(invoke(*run), f"{two / 'tuned'} {linked}")
    fit = [*TOOLS["fit"][0], "--field", "scripted", "--field", "tuned", "--out", two, "--force"]
    one_error(invoke(*fit), f"{two / 'tuned'} {linked}")
    assert snapshot(dataset) == before


def test_a_tool_writes_nothing_through_a_link_in_its_folder(dataset, tmp_path, monkeypatch):
    """A tool's own subfolder (ask's dataset-scripted) swapped for a link to a user's dataset:
    refused before the work, and never written through even when the link comes later."""
    from simulator.core.errors import UserError

    out = tmp_path / "asked"
    write_result(out, {"dataset-scripted/games/part-00000.parquet": "x", "report.html": "r"}, "ask")
    shutil.rmtree(out / "dataset-scripted")
    (out / "dataset-scripted").symlink_to(dataset, target_is_directory=True)
    before, record = snapshot(dataset), (out / "balsim.json").read_text()
    no_work(monkeypatch, TOOLS["ask"][1])
    one_error(
        invoke(*TOOLS["ask"][0], "--out", out, "--force"),
        f"{out / 'dataset-scripted'} is a symbolic link balsim did not make",
    )
    with pytest.raises(UserError, match="is a symbolic link balsim did not make"):
        write_result(out, {"dataset-scripted/games/part-00000.parquet": "y"}, "ask")
    assert snapshot(dataset) == before and (out / "balsim.json").read_text() == record
    assert not [p for p in out.iterdir() if ".new-" in p.name]


# ----------------------------------------------------------------------------- one writer


@pytest.mark.parametrize("tool", TOOLS)
def test_a_result_folder_being_written_is_refused_to_a_second_writer(tmp_path, tool, monkeypatch):
    from simulator.run.store import Writing

    args, work = TOOLS[tool]
    out = tmp_path / "busy"
    write_result(out, {"old.txt": "old"}, tool)
    before = snapshot(out)
    no_work(monkeypatch, work)
    with Writing(out):
        holder = (out / ".balsim.lock").read_text()
        one_error(
            invoke(*args, "--out", out, "--force"),
            f"--out {out} is being written by another balsim ({holder}); wait for it to finish "
            "or choose another --out",
        )
    assert snapshot(out) == before


def test_a_killed_writers_leftovers_go_at_the_next_start(tmp_path):
    """What a SIGKILLed tool leaves: its hidden temporary folder, half written."""
    out = tmp_path / "sens"
    write_result(out, {"effects.json": "{}"}, "sensitivity")
    (out / "NOTES.md").write_text("mine")
    leftover = out / ".sens.new-ab12cd34"
    (leftover / "dataset-scripted" / "games").mkdir(parents=True)
    (leftover / "dataset-scripted" / "games" / "part-00000.parquet").write_text("half")
    screen = ["sensitivity", "ekonos", "--keys", "setup.start_money=0:9", "--trajectories", 2]
    result = invoke(*screen, "-n", 10, "-j", 1, "-q", "--out", out, "--force")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == []
    assert (out / "NOTES.md").read_text() == "mine" and (out / "effects.parquet").exists()


# ----------------------------------------------------------------------------- stopping


@pytest.mark.parametrize(
    "error, message, code",
    [
        (KeyboardInterrupt(), "Aborted; {out} is as it was", 1),
        (OSError(28, "No space left on device"), "No space left on device; {out} is as it was", 1),
    ],
    ids=["ctrl-c", "full-disk"],
)
def test_a_stopped_tool_names_no_command_that_cannot_work(
    tmp_path, monkeypatch, error, message, code
):
    """ask plays its datasets in a temporary folder it removes when stopped: the runner's
    `--resume` advice about that folder is not passed on."""
    monkeypatch.setattr("simulator.run.runner.play_task", stop_on_task(1, error))
    out = tmp_path / "asked"
    result = invoke("ask", "scoring", "-n", 24, "--field", "scripted", "-j", 1, "-q", "--out", out)
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == code and len(lines) == 1, result.stderr
    assert message.format(out=out) in lines[0] and "--resume" not in lines[0]
    assert list(tmp_path.iterdir()) == []  # nothing left, not even the hidden folder's


# ----------------------------------------------------------------------------- --charts


CHARTS = {
    "report": (["report", "{ds}", "--out", "{tmp}/r.html"], "simulator.report.write_report"),
    "ask": (TOOLS["ask"][0] + ["--out", "{tmp}/a"], TOOLS["ask"][1]),
    "fit": (TOOLS["fit"][0] + ["--out", "{tmp}/f"], TOOLS["fit"][1]),
    "sensitivity": (TOOLS["sensitivity"][0] + ["--out", "{tmp}/s"], TOOLS["sensitivity"][1]),
    "skill": (TOOLS["skill"][0], TOOLS["skill"][1]),
}


@pytest.mark.parametrize("command", CHARTS)
def test_charts_go_only_where_an_output_may(dataset, tmp_path, command, monkeypatch):
    args, work = CHARTS[command]
    args = [a.replace("{ds}", str(dataset)).replace("{tmp}", str(tmp_path)) for a in args]
    no_work(monkeypatch, work)
    afile = tmp_path / "afile"
    afile.write_text("x")
    before = snapshot(dataset)
    for charts, message in (
        (dataset, f"--charts {dataset} is a balsim dataset; write the charts elsewhere"),
        (dataset / "games" / "slides", f"is inside the dataset {dataset.resolve()}"),
        (afile / "slides", f"--charts {afile / 'slides'}: {afile} is a file, not a folder"),
        ("/proc/slides", "--charts /proc/slides: cannot write in /proc"),
    ):
        one_error(invoke(*args, "--charts", charts), message)
    assert snapshot(dataset) == before and afile.read_text() == "x"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "ds"]


def test_an_exported_chart_replaces_a_link_never_writes_through_it(tmp_path):
    from simulator.report.charts import figure, save

    mine = tmp_path / "mine.svg"
    mine.write_text("<svg>my own drawing</svg>")
    slides = tmp_path / "slides"
    slides.mkdir()
    (slides / "c.svg").symlink_to(mine)
    fig, ax = figure()
    ax.plot([0, 1], [0, 1])
    save(fig, slides, "c")
    assert mine.read_text() == "<svg>my own drawing</svg>"
    assert not (slides / "c.svg").is_symlink() and (slides / "c.png").exists()
    assert sorted(os.listdir(slides)) == ["c.png", "c.svg"]
