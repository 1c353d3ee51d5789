"""balsim tune: a deliberately bad knob gets better, ranges, line-ups, the overlay, errors."""

import polars as pl
import pytest
import tomllib
from click.testing import CliRunner

from simulator.cli import cli
from simulator.core.game import get_game
from simulator.core.rules import RulesError
from simulator.experiments.lab import Lab
from simulator.experiments.tune import knob_range, knob_space, line_up, tune

EKONOS = get_game("ekonos")


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_tuning_repairs_a_deliberately_bad_knob():
    # the default hoarder buys only at a margin of 4 M.U. and never wins against the other
    # scripted policies; the tuned copy must do significantly better in the same seat
    rules = EKONOS.rules()
    with Lab(EKONOS, jobs=1) as lab:
        result = tune(lab, rules, "cash_hoarder", 4, budget=3_000, seed=5)
    assert result.before["buy_margin"] == 4.0
    assert result.change.interval[0] > 0
    assert result.tuned.value > result.original.value
    assert result.lineup == (
        "cash_hoarder_tuned",
        "president_seeker",
        "value_investor",
        "market_builder",
    )


def test_ranges_come_from_knob_ranges_with_integer_bounds_for_on_off_knobs():
    rules = EKONOS.rules()
    assert knob_range(rules, "expand_early", 1.0) == (0.0, 1.0, True)
    assert knob_range(rules, "buy_margin", 1.0) == (-2.0, 8.0, False)
    # not listed: around the value, kept non-negative when the value is
    assert knob_range({}, "k", 6.0) == (0.0, 12.0, False)
    assert knob_range({}, "k", 0.5) == (0.0, 1.5, False)
    assert knob_range({}, "k", -1.0) == (-2.0, 0.0, False)
    with pytest.raises(RulesError, match="knob_ranges.k"):
        knob_range({"knob_ranges": {"k": [3.0, 1.0]}}, "k", 2.0)


def test_the_space_is_the_knobs_the_base_policy_lists():
    space = knob_space(EKONOS, EKONOS.rules(), "value_investor")
    assert [d.name for d in space] == ["buy_margin", "sell_margin", "expand_early"]
    assert [d.integer for d in space] == [False, False, True]


def test_line_up_puts_the_tuned_set_in_one_seat_or_across_its_team():
    assert line_up({}, "t", ["a", "b"], 4) == ("t", "a", "b", "a")
    assert line_up({"game": {"mode": "team"}}, "t", ["a", "b"], 6) == ("t", "a", "t", "b", "t", "a")


def test_tune_command_writes_an_overlay_that_seats_the_tuned_set(tmp_path):
    out = tmp_path / "tuned.toml"
    result = invoke(
        "tune",
        "ekonos",
        "--policy",
        "market_builder",
        "--budget",
        2_000,
        "--field",
        "value_investor",
        "-p",
        3,
        "-j",
        1,
        "-q",
        "--out",
        out,
    )
    assert result.exit_code == 0, result.output
    assert "market_builder_tuned wins" in result.output and "held-out games" in result.output
    table = tomllib.loads(out.read_text())["policies"]["market_builder_tuned"]
    assert table["base"] == "market_builder"
    assert set(table) == {"base", "description", "place_weight", "buy_margin", "expand_early"}
    run = invoke(
        "run",
        "ekonos",
        "--rules",
        out,
        "--seats",
        "market_builder_tuned,market_builder,value_investor",
        "-n",
        60,
        "-j",
        1,
        "-q",
        "--out",
        tmp_path / "run",
    )
    assert run.exit_code == 0, run.output
    policies = set(pl.read_parquet(tmp_path / "run" / "players")["policy"])
    assert policies == {"market_builder_tuned", "market_builder", "value_investor"}


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "give --policy NAME (repeatable) or --all"),
        (["--policy", "gambler"], "unknown ekonos policy 'gambler'"),
        (["--policy", "random"], "policy 'random' has no numeric knobs to tune"),
        (["--policy", "cash_hoarder", "--field", "gambler"], "unknown ekonos policy 'gambler'"),
        (
            ["--policy", "cash_hoarder", "--budget", 300],
            "--budget 300 is too small to tune 3 knobs",
        ),
        (
            ["--policy", "cash_hoarder", "--name", "market_builder"],
            "the tuned set needs a new name",
        ),
        (["--policy", "cash_hoarder", "-p", 9], "ekonos is played by 3-6 players, not 9"),
    ],
)
def test_tune_command_errors_are_one_line_with_status_2(tmp_path, args, message):
    result = invoke("tune", "ekonos", *args, "-q", "--out", tmp_path / "t.toml")
    assert result.exit_code == 2
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "t.toml").exists()


def test_tune_command_does_not_overwrite_without_force(tmp_path):
    out = tmp_path / "t.toml"
    out.write_text("# mine\n")
    for force in ((), ("--force",)):  # a file tune did not write, never replaced
        result = invoke("tune", "ekonos", "--policy", "cash_hoarder", "--out", out, *force)
        assert result.exit_code == 2 and "was not written by balsim" in result.output
    assert out.read_text() == "# mine\n"
