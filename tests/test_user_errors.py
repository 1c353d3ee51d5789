"""Every user mistake is one line ``Error: ...`` with exit status 2 and writes nothing; a
failure of the machine (a full disk) is one line too, worded as what it is; nothing hangs.

Each case drives the CLI as a user would; those that could wait forever (a FIFO, a server
that never answers) run in a child process with a time limit, so a regression fails instead
of hanging the tests.
"""

import errno
import os
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import polars as pl
import pytest
from hostile import fail_if_called, invoke, one_error

BALSIM = [sys.executable, "-c", "from simulator.cli import main; main()"]


@pytest.fixture
def dataset(small_datasets, tmp_path) -> Path:
    """A copy of the session's small Ekonos dataset (conftest.py)."""
    return Path(shutil.copytree(small_datasets["ekonos"], tmp_path / "ds"))


def child(*args, timeout: float = 120) -> subprocess.CompletedProcess:
    """``balsim ARGS`` in a child process; fails the test (not hangs it) past ``timeout``."""
    return subprocess.run(
        BALSIM + [str(a) for a in args], capture_output=True, text=True, timeout=timeout
    )


def one_line(done: subprocess.CompletedProcess, message: str, code: int = 2) -> None:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == code, done.stderr
    assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0], done.stderr


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
    monkeypatch.setattr("simulator.studies.study.execute_all", fail_if_called)
    one_error(invoke("report", dataset, "--out", afile / "r.html"), "is a file, not a folder")
    one_error(invoke("report", dataset, "--out", tmp_path / f"{long}.html"), "is too long")
    one_error(
        invoke("study", "--out", afile / "runs", "--report", tmp_path / "s.html"),
        "is a file, not a folder",
    )
    one_error(invoke("study", "--report", afile / "s.html"), "is a file, not a folder")
    assert afile.read_text() == "x" and sorted(tmp_path.iterdir()) == [afile, dataset]


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
        (
            ["run", "ekonos", "-n", "99999999999999999999999"],
            "99999999999999999999999 is not in the range 1<=x<=10,000,000,000",
        ),
        (
            ["run", "ekonos", "-n", "10000000000", "--chunk-size", "1000"],
            "parts; at most 100,000 (raise --chunk-size or lower -n)",
        ),
        (["run", "ekonos", "--chunk-size", "10000000000"], "is not in the range 1<=x<=100,000"),
        (["run", "ekonos", "--seed", "99999999999999999999999"], "is not in the range"),
        (["run", "ekonos", "-p", "0"], "ekonos is played by 3-6 players, not 0"),
        (["run", "ekonos", "-p", "-4"], "ekonos is played by 3-6 players, not -4"),
        (["run", "ekonos", "--until-ci", "nan"], "nan is not in the range 0<x<=1"),
        (
            ["run", "ekonos", "--backend", "dask", "--scheduler", "nonsense"],
            "--scheduler 'nonsense' is not a scheduler address like tcp://HOST:8786",
        ),
        (
            ["run", "ekonos", "--backend", "dask", "--scheduler", "tcp://host:port"],
            "is not a scheduler address",
        ),
        (
            ["run", "ekonos", "--backend", "joblib", "--scheduler", "tcp://127.0.0.1:8786"],
            "--scheduler plays on a dask cluster: leave out --backend joblib",
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


def test_jobs_beyond_the_cores_are_capped_saying_so(tmp_path):
    result = invoke("run", "ekonos", "-n", 20, "-j", 1000, "-q", "--out", tmp_path / "o")
    cores = os.cpu_count()
    assert result.exit_code == 0, result.output
    assert (
        f"note: --jobs 1000 is more than this machine's {cores} cores; using {cores}"
        in result.stderr
    )


# ----------------------------------------------------------------------------- unwritable outputs


def test_outputs_that_cannot_be_written_are_refused_before_any_work(dataset, tmp_path, monkeypatch):
    """Checked by writing there, so even root is told before the work (/proc takes no file)."""
    monkeypatch.setattr("simulator.report.write_report", fail_if_called)
    monkeypatch.setattr("simulator.experiments.fit.fit", fail_if_called)
    one_error(invoke("report", dataset, "--out", "/proc/r.html"), "--out /proc/r.html: cannot")
    fit = ["fit", "ekonos", "--key", "setup.start_money=0:9", "--target", "first_player_edge=0"]
    one_error(invoke(*fit, "--out", "/proc/balsim-fit"), "--out /proc/balsim-fit: cannot")
    afile = tmp_path / "afile"
    afile.write_text("x")
    tune = ["tune", "ekonos", "--policy", "cash_hoarder"]
    one_error(invoke(*tune, "--out", afile / "x.toml"), f"{afile} is a file, not a folder")
    one_error(invoke(*fit, "--out", afile / "fit"), f"{afile} is a file, not a folder")
    assert afile.read_text() == "x"


@pytest.mark.parametrize(
    "command",
    [
        ["run", "ekonos", "--out"],
        ["sweep", "ekonos", "--vary", "setup.start_money=1,2", "--out"],
        ["report", "{ds}", "--out"],
        ["study", "--out"],
        ["study", "--report"],
        ["tune", "ekonos", "--policy", "cash_hoarder", "--out"],
        ["challenge", "ekonos", "--incumbent", "cash_hoarder", "--out"],
        ["fit", "ekonos", "--key", "setup.start_money=0:9", "--target", "length=5", "--out"],
        ["sensitivity", "ekonos", "--assumed", "--out"],
        ["skill", "ekonos", "--out"],
        ["ask", "scoring", "--out"],
        ["matrix", "ekonos", "--out"],
        ["run", "ekonos", "--rules"],
        ["bench", "ekonos", "--record"],
        ["replay", "--game", 1, "--from"],
        ["report"],
        ["verify"],
    ],
)
def test_an_empty_path_is_refused_not_taken_for_the_default(dataset, command, monkeypatch):
    monkeypatch.chdir(dataset.parent)
    before = sorted(os.listdir("."))
    args = [str(a).replace("{ds}", str(dataset)) for a in command]
    one_error(invoke(*args, ""), "is empty; name a file or folder")
    assert sorted(os.listdir(".")) == before


@pytest.mark.slow
def test_bench_records_only_into_a_bench_csv(tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text("# my notes\n")
    one_error(
        invoke("bench", "ekonos", "-n", 5, "--record", notes),
        f"--record {notes} exists and was not written by balsim",
    )
    assert notes.read_text() == "# my notes\n"
    fifo = tmp_path / "bench.csv"
    os.mkfifo(fifo)  # appending to it would wait for a reader
    one_line(child("bench", "ekonos", "-n", 5, "--record", fifo), "is not a regular file")


# ----------------------------------------------------------------------------- rules input


def test_a_line_break_in_set_is_refused_not_half_applied(tmp_path):
    one_error(
        invoke(
            "run",
            "ekonos",
            "--set",
            "setup.start_money=1\nscoring.per_mu=7",
            "--out",
            tmp_path / "o",
        ),
        "rules key 'setup.start_money': the value holds more than one assignment; give each its "
        "own --set",
    )
    one_error(
        invoke("sweep", "ekonos", "--vary", "setup.start_money=1,2\nscoring.per_mu=7"),
        "holds more than one assignment",
    )
    assert not (tmp_path / "o").exists()


def test_deeply_nested_rules_are_refused(tmp_path):
    deep = "[" * 5000 + "]" * 5000
    one_error(
        invoke("run", "ekonos", "--set", f"setup.money_per_turn={deep}"),
        "rules key 'setup.money_per_turn': the value is nested more than 24 deep",
    )
    table = "{a = " * 3000 + "1" + "}" * 3000
    one_error(invoke("run", "ekonos", "--set", f"policies.mine={table}"), "nested more than 24")
    rules = tmp_path / "deep.toml"
    rules.write_text(f"[setup]\nmoney_per_turn = {deep}\n")
    one_error(invoke("run", "ekonos", "--rules", rules), f"'{rules}': nested more than 24 deep")
    rules.write_text("[policies.mine]\nbase = 'random'\nx = " + "[" * 30 + "]" * 30 + "\n")
    one_error(invoke("sweep", "ekonos", "--variant", f"v={rules}"), "nested more than 24 deep")


@pytest.mark.slow
def test_a_rules_file_that_is_not_a_regular_file_is_refused_not_read(tmp_path):
    fifo = tmp_path / "rules.toml"
    os.mkfifo(fifo)  # opening it to read would wait for a writer
    one_line(child("run", "ekonos", "--rules", fifo, "--out", tmp_path / "o"), "not a regular file")
    one_line(child("run", "ekonos", "--rules", "/dev/zero"), "'/dev/zero': not a regular file")
    big = tmp_path / "big.toml"
    big.write_bytes(b"# " + b"x" * (1 << 22) + b"\n")
    one_error(invoke("run", "ekonos", "--rules", big), "bytes; a rules file has at most 4,194,304")
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_report_to_a_fifo_is_refused_not_waited_on(dataset, tmp_path):
    fifo = tmp_path / "r.html"
    os.mkfifo(fifo)
    one_line(child("report", dataset, "--out", fifo), f"--out {fifo} exists and is not a regular")


# ----------------------------------------------------------------------------- the machine


@pytest.mark.slow
def test_a_full_disk_is_said_as_it_is(dataset, tmp_path, monkeypatch):
    def full(path, text):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr("simulator.report.write_atomic", full)
    out = tmp_path / "r.html"
    one_error(
        invoke("report", dataset, "--out", out, "-j", 1),
        f"Error: {out}: No space left on device; free some space or write elsewhere",
        code=1,
    )
    assert not out.exists()


@pytest.mark.slow
def test_the_file_size_limit_ends_like_a_full_disk(small_datasets, tmp_path):
    """ulimit -f: a part larger than the limit cannot be written (EFBIG; Python ignores
    SIGXFSZ).  The games part of the first task fits, its players part does not: the line says
    how --resume finishes the dataset, which then equals an uninterrupted run."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (40_000, 40_000))

    run = ["run", "ekonos", "-n", 4000, "--chunk-size", 1000, "-j", 1, "-q", "--seed", 3]
    out = tmp_path / "big"
    done = subprocess.run(
        BALSIM + [str(a) for a in run] + ["--out", str(out)],
        preexec_fn=limit,
        capture_output=True,
        text=True,
        timeout=300,
    )
    one_line(
        done,
        f"File too large; 0 of 4,000 games are saved, `balsim run ekonos --out {out} --resume` "
        "finishes the run",
        code=1,
    )
    assert (out / "games" / "part-00000.parquet").exists()
    assert invoke("run", "ekonos", "--out", out, "--resume", "-q").exit_code == 0
    assert invoke(*run, "--out", tmp_path / "whole").exit_code == 0
    read = lambda d: pl.read_parquet(d / "players").sort("game_id", "seat")  # noqa: E731
    assert read(out).equals(read(tmp_path / "whole"))


def server(answer: bytes | None) -> int:
    """A TCP server on 127.0.0.1 that accepts every connection and never answers (or sends
    ``answer`` and then nothing); returns its port."""
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen(8)
    kept = []

    def serve():
        while True:
            conn, _ = listening.accept()
            kept.append(conn)
            if answer:
                conn.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    return listening.getsockname()[1]


def nobody() -> int:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize(
    "scheduler, message",
    [
        (nobody, "cannot reach the dask scheduler at tcp://127.0.0.1:{port}"),
        (
            lambda: server(None),  # accepts, and waits: dask's own client would wait forever
            "cannot reach the dask scheduler at tcp://127.0.0.1:{port} (no answer within 2 s)",
        ),
        (lambda: server(b"\xff" * 64 + b"garbage" * 50), "did not answer as a dask scheduler"),
    ],
    ids=["unreachable", "silent", "garbage"],
)
def test_a_scheduler_that_cannot_be_used_is_one_line(tmp_path, scheduler, message):
    import dask

    port = scheduler()
    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        result = invoke(
            *("run", "ekonos", "-n", 10, "--backend", "dask"),
            *("--scheduler", f"tcp://127.0.0.1:{port}", "--out", tmp_path / "o"),
        )
    one_error(result, message.format(port=port))
    assert not (tmp_path / "o").exists()
