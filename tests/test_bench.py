"""`balsim bench --record` keeps each measurement in a CSV; bench/render.py tabulates them."""

import csv
import importlib.util
from pathlib import Path

from click.testing import CliRunner

from simulator.cli import cli

ROOT = Path(__file__).resolve().parent.parent


def test_each_measurement_is_a_row_and_the_table_compares_commits(tmp_path):
    results = tmp_path / "bench.csv"
    for _ in range(2):
        out = CliRunner().invoke(cli, ["bench", "ekonos", "-n", "40", "--record", str(results)])
        assert out.exit_code == 0, out.output
    rows = list(csv.DictReader(results.open()))
    assert len(rows) == 2 and {r["game"] for r in rows} == {"ekonos"}
    assert all(int(r["games"]) == 40 and float(r["games_per_s"]) > 0 for r in rows)
    # a later commit's measurement: the table shows its median beside the earlier commit's
    rows[1]["commit"], rows[1]["date"] = "later", "2999-01-01 00:00"
    with results.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    spec = importlib.util.spec_from_file_location("render", ROOT / "bench" / "render.py")
    render = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(render)
    table = render.table(render.rows(results)).splitlines()
    ratio = float(rows[1]["games_per_s"]) / float(rows[0]["games_per_s"])
    assert len(table) == 3 and "| later (" in table[2] and f"{ratio:.2f}×" in table[2]


def test_store_times_a_run_with_its_parquet_against_the_engine_alone(tmp_path):
    results = tmp_path / "bench.csv"
    args = ["bench", "pig", "-n", "3000", "--store", "--record", str(results)]
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 0, out.output
    (row,) = csv.DictReader(results.open())
    engine, whole = float(row["games_per_s"]), float(row["store_games_per_s"])
    # writing Parquet costs CPU of its own: the run is slower per game than the engine alone
    assert 0 < whole < engine
    assert f"{engine / whole:.2f}x the engine's CPU" in out.output
    spec = importlib.util.spec_from_file_location("render", ROOT / "bench" / "render.py")
    render = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(render)
    assert f"| {engine / whole:.2f}× |" in render.table(render.rows(results)).splitlines()[2]


def load_render():
    spec = importlib.util.spec_from_file_location("render", ROOT / "bench" / "render.py")
    render = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(render)
    return render


def test_a_learned_line_up_is_shown_beside_the_search_line_up_it_stands_in_for():
    """Its median rate over the search line-up's at its own commit and at the one before."""

    def row(commit, date, seats, rate):
        return {"commit": commit, "date": date, "game": "karmaggan", "seats": seats,
                "games_per_s": str(rate)}  # fmt: skip

    search, learned = (
        "search,rusher_tuned,search,hunter_tuned",
        "learned,rusher_tuned,learned,hunter_tuned",
    )
    records = [
        row("old", "2026-01-01 00:00", search, 40.0),
        row("old", "2026-01-01 00:10", search, 60.0),
        row("new", "2026-01-02 00:00", search, 80.0),
        row("new", "2026-01-02 00:05", learned, 2000.0),
        row("new", "2026-01-02 00:15", learned, 3000.0),
    ]
    lines = load_render().learned_table(records).splitlines()
    assert len(lines) == 3
    assert lines[2] == (
        f"| karmaggan | `{learned}` | new | 2,500.0 | 80.0 | 31.2× | old | 50.0 | 50.0× |"
    )
    assert load_render().learned_table(records[:3]) == ""  # no learned line-up, no table


def test_the_commit_before_counts_its_runs_made_among_the_newest():
    """Measured together: of the commit before, the runs made within half an hour of the newest
    runs, else (none then) all of its runs."""

    def run(commit, date, rate):
        return {"commit": commit, "date": date, "game": "pig", "seats": "a,b",
                "games_per_s": str(rate), "decisions_per_s": "0", "store_games_per_s": "0",
                "machine": "m", "load": "1"}  # fmt: skip

    earlier = [run("old", "2026-01-01 09:00", 10.0), run("old", "2026-01-01 09:05", 12.0)]
    together = [run("old", "2026-01-02 10:00", 40.0), run("old", "2026-01-02 10:40", 60.0)]
    newest = [run("new", "2026-01-02 10:20", 100.0), run("new", "2026-01-02 10:50", 100.0)]
    render = load_render()
    assert render.beside(earlier + together, newest) == together
    assert render.beside(earlier, newest) == earlier
    line = render.table(earlier + together + newest).splitlines()[2]
    assert line.endswith("| old | 50.0 | 2.00× |")


def test_a_record_file_under_a_file_is_refused_before_any_game(tmp_path):
    target = tmp_path / "file"
    target.write_text("")
    out = CliRunner().invoke(cli, ["bench", "ekonos", "-n", "5", "--record", str(target / "x")])
    assert out.exit_code == 2 and "--record" in out.output
