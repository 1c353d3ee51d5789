"""Sweeps (common random numbers across variants) and sequential stopping."""

import json

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner
from conftest import small_plan

from simulator.cli import cli
from simulator.run.runner import execute


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_sweep_grid_labels_rows_and_shares_seeds(tmp_path):
    out = tmp_path / "sw"
    result = invoke(
        "sweep",
        "ekonos",
        "--vary",
        "setup.start_money=0,6",
        "--vary",
        "companies.market_indicators=10,12",
        "-n",
        300,
        "-j",
        1,
        "--out",
        out,
    )
    assert result.exit_code == 0, result.output
    games = pl.read_parquet(out / "games")
    assert games["variant"].n_unique() == 4 and games.height == 4 * 300
    assert {"setup_start_money", "companies_market_indicators"} <= set(games.columns)
    base = games.filter(pl.col("variant") == "base")
    assert base["setup_start_money"].unique().to_list() == [0]
    # common random numbers: game k has the same seed in every variant
    seeds = games.group_by("game_id").agg(pl.col("seed").n_unique().alias("k"))
    assert (seeds["k"] == 1).all()
    # start money reaches every player's final cash accounting
    players = pl.read_parquet(out / "players")
    dealt = players.group_by("variant").agg(pl.col("money_dealt").min()).sort("money_dealt")
    assert dealt["money_dealt"].to_list() == [36, 36, 42, 42]


def test_named_variant_files(tmp_path):
    flat = tmp_path / "rich.toml"
    flat.write_text("[setup]\nstart_money = 20\n")
    out = tmp_path / "named"
    result = invoke(
        "sweep", "ekonos", "--variant", f"rich={flat}", "-n", 100, "-j", 1, "--out", out
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert [v["name"] for v in manifest["variants"]] == ["base", "rich"]
    assert manifest["variants"][1]["rules"]["setup"]["start_money"] == 20


def test_until_ci_stops_by_itself_and_says_why(tmp_path):
    out = tmp_path / "ci"
    result = invoke(
        "run", "ekonos", "-p", 3, "--until-ci", 0.1, "--chunk-size", 100, "-j", 1, "--out", out
    )
    assert result.exit_code == 0, result.output
    assert "stopped: interval width reached" in result.output
    manifest = json.loads((out / "manifest.json").read_text())
    stopped = manifest["stopped"]
    assert stopped["reason"] == "interval width reached" and stopped["widest_interval"] <= 0.1
    # it stops at the first wave boundary where the intervals are narrow enough
    assert manifest["n_games"] % 400 == 0 and manifest["n_games"] < manifest["games_budget"]
    assert pl.read_parquet(out / "games").height == manifest["n_games"]


@pytest.mark.slow
def test_until_ci_budget_and_jobs_independence(tmp_path):
    plan = small_plan("ekonos", n_games=1000, chunk_size=100)
    plan.until_ci = 0.001
    one = execute(plan, tmp_path / "one", jobs=1, progress=False)
    two = execute(plan, tmp_path / "two", jobs=2, progress=False)
    assert one["stopped"]["reason"] == "game budget reached" and one["n_games"] == 1000
    assert one["stopped"] == two["stopped"]
    plan.until_ci = 0.2
    a = execute(plan, tmp_path / "a", jobs=1, progress=False)
    b = execute(plan, tmp_path / "b", jobs=2, progress=False)
    assert a["n_games"] == b["n_games"] < 1000
    assert (
        pl.read_parquet(tmp_path / "a" / "players")
        .sort("game_id", "seat")
        .equals(pl.read_parquet(tmp_path / "b" / "players").sort("game_id", "seat"))
    )


def test_paired_differences_against_base(tmp_path):
    from simulator.analysis.paired import paired_differences
    from simulator.core.stats import holm

    same = tmp_path / "same.toml"
    same.write_text("[setup]\nstart_money = 0\n")  # identical to the base rules
    rich = tmp_path / "rich.toml"
    rich.write_text("[setup]\nstart_money = 40\n")
    out = tmp_path / "paired"
    result = invoke(
        "sweep",
        "ekonos",
        "--variant",
        f"same={same}",
        "--variant",
        f"rich={rich}",
        "-n",
        2000,
        "-j",
        1,
        "--out",
        out,
    )
    assert result.exit_code == 0
    assert "paired differences survive Holm's correction:" in result.output
    assert "rich: mean_score" in result.output and "same:" not in result.output
    table = paired_differences(out)
    same_rows = table.filter(pl.col("variant") == "same")
    # the same rules on the same seeds: every difference is exactly zero
    assert (same_rows["mean_diff"] == 0).all() and (same_rows["diff_lo"] == 0).all()
    assert not same_rows["significant"].any()
    rich_score = table.filter((pl.col("variant") == "rich") & (pl.col("metric") == "mean_score"))
    # 40 more M.U. each: scores rise, clearly
    assert (rich_score["mean_diff"] > 20).all() and rich_score["significant"].all()
    assert set(table["group"].unique()) >= {"seat=0", "policy=cash_hoarder", "all"}
    np.testing.assert_allclose(holm(np.array([0.01, 0.04, 0.03])), [0.03, 0.06, 0.06])


def test_a_change_without_spread_is_weighed_by_how_many_games_agree():
    """Two games that moved by the same amount prove nothing; twenty do (a sign test, not an
    infinite z); a change with spread keeps its normal p-value."""
    from scipy import stats

    from simulator.analysis.paired import change_p_values

    p = change_p_values(np.array([1.0, 1.0, 0.0, 0.3]), np.zeros(4), np.array([2, 20, 20, 20]))
    np.testing.assert_allclose(p, [0.5, 2.0**-19, 1.0, 2.0**-19])
    spread = change_p_values(np.array([0.3]), np.array([0.1]), np.array([20]))
    np.testing.assert_allclose(spread, [2 * stats.norm.sf(3.0)])


def test_the_summary_reads_each_table_once_and_pairs_as_two_variants_do(tmp_path, monkeypatch):
    """One query for every variant at once (a thousand-variant sweep summarises in seconds),
    with the numbers of the comparison of each variant alone with the base."""
    import polars.testing

    from simulator.analysis import Dataset
    from simulator.analysis.core import paired_difference
    from simulator.analysis.paired import COMPARISONS, paired_differences

    out = tmp_path / "three"
    result = invoke(
        "sweep", "ekonos", "--vary", "setup.start_money=0,5,20", "-n", 300, "-j", 1, "--out", out
    )
    assert result.exit_code == 0, result.output
    ds = Dataset(out)
    queries = []
    collect, collect_all = pl.LazyFrame.collect, pl.collect_all
    monkeypatch.setattr(
        pl.LazyFrame, "collect", lambda *a, **k: queries.append(1) or collect(*a, **k)
    )
    monkeypatch.setattr(
        pl, "collect_all", lambda q, **k: queries.append(len(q)) or collect_all(q, **k)
    )
    table = paired_differences(ds)
    monkeypatch.undo()
    assert queries == [len(COMPARISONS)]  # one collect of all five comparisons
    tables = {"players": ds.players, "games": ds.games}
    for variant in ("setup.start_money=5", "setup.start_money=20"):
        for metric, name, value, by in COMPARISONS:
            alone = paired_difference(tables[name], value, "base", variant, by).drop("sd", "se")
            rows = table.filter(
                (pl.col("variant") == variant)
                & (pl.col("metric") == metric)
                & pl.col("group").str.starts_with(f"{by}=" if by else "all")
            )
            polars.testing.assert_frame_equal(
                rows.select(alone.columns[1 if by else 0 :]),
                alone.select(alone.columns[1 if by else 0 :]),
                check_exact=False,
                rel_tol=1e-12,
            )
