"""Every number a user gives is finite and in its range (simulator/core/limits.py), checked
before any game with one line and exit status 2, and every command's --help shows each numeric
option's range."""

import click
import pytest
from hostile import fail_if_called, invoke, one_error

from simulator.cli import cli
from simulator.cli.options import Bounded
from simulator.core.errors import UserError
from simulator.core.limits import Range

NUMERIC = (click.types.IntParamType, click.types.FloatParamType)


def numeric_options():
    for name, command in sorted(cli.commands.items()):
        for param in command.params:
            if isinstance(param, click.Option) and isinstance(param.type, NUMERIC):
                yield name, param


def test_every_numeric_option_shows_its_range_in_its_help():
    checked = 0
    for name, param in numeric_options():
        assert isinstance(param.type, click.types._NumberRangeBase), (name, param.opts)
        shown = param.type._describe_range()
        assert "x" in shown or "by game" in shown, (name, param.opts, shown)
        help_text = " ".join(invoke(name, "--help").output.split())
        assert f"{shown}]" in help_text or f"{shown};" in help_text, (name, param.opts, shown)
        checked += 1
    assert checked > 40  # every command that plays games has several


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e400"])
def test_no_numeric_option_takes_a_number_that_is_not_finite(value):
    for _, param in numeric_options():
        with pytest.raises(click.BadParameter):
            param.type.convert(value, param, None)
        if isinstance(param.type, Bounded):  # the one check, with its range
            with pytest.raises(UserError, match="is not"):
                param.type.bounds.check(value)


def test_a_range_says_what_it_takes():
    margin = Range(0, 50, low_open=True)
    assert str(margin) == "0<x<=50" and margin.check("2.5") == 2.5
    games = Range(1, 10**8, integer=True)
    assert str(games) == "1<=x<=100,000,000" and games.check("400") == 400
    for text, message in (
        ("0", "0 is not in the range 0<x<=50"),
        ("nan", "nan is not in the range"),
        ("lots", "'lots' is not a number"),
    ):
        with pytest.raises(UserError, match=f"^--margin: {message}"):
            margin.check(text, "--margin")
    with pytest.raises(UserError, match="'1.5' is not a whole number"):
        games.check("1.5")


FIT = ["fit", "ekonos", "--key", "setup.start_money=0:9", "--out", "{tmp}/f"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["ask", "loans", "--margin", "inf"], "inf is not in the range 0<x<=50"),
        (["ask", "loans", "--margin", "nan"], "nan is not in the range 0<x<=50"),
        (["skill", "ekonos", "--margin", "nan"], "nan is not in the range 0<x<=50"),
        (
            FIT + ["--target", "first_player_edge=nan"],
            "--target first_player_edge: nan is not in the range -10,000,000<=x<=10,000,000",
        ),
        (FIT + ["--target", "length=inf"], "--target length: inf is not in the range"),
        (
            [
                "fit",
                "ekonos",
                "--key",
                "setup.start_money=0:inf",
                "--target",
                "length=5",
                "-o",
                "f",
            ],
            "rules key 'setup.start_money': inf is not in the range",
        ),
        (FIT + ["--target", "length=5", "--margin", "inf"], "inf is not in the range 0<x<="),
        (["study", "--scale", "nan"], "nan is not in the range 0<x<=1,000"),
        (["study", "--scale", "inf"], "inf is not in the range 0<x<=1,000"),
        (["study", "--screen-scale", "nan"], "nan is not in the range 0<x<=1,000"),
        (["study", "--adapt-budget", "10" * 12], "is not in the range 1<=x<=100,000,000"),
        (["ask", "loans", "--adapt-budget", "10" * 12], "is not in the range 1<=x<=100,000,000"),
        (["matrix", "ekonos", "-n", "9" * 20], "is not in the range 1<=x<=100,000,000"),
        (["tune", "ekonos", "--all", "--budget", "9" * 20, "--out", "t.toml"], "is not in"),
        (["challenge", "ekonos", "--incumbent", "x", "--budget", "9" * 20], "is not in the"),
        (["sensitivity", "ekonos", "--assumed", "--range", "0,inf", "--out", "s"], "inf is not"),
        (["sensitivity", "ekonos", "--assumed", "--margin", "nan", "--out", "s"], "nan is not"),
        (["skill", "ekonos", "--budgets", "1,999999999"], "--budgets: 999999999 is not in the"),
        (["run", "ekonos", "-j", "9" * 20], "is not -1 (every core) or in the range 1<=x<=4,096"),
        (["run", "ekonos", "--seed", "-1"], "-1 is not in the range 0<=x<="),
    ],
)
def test_bad_numbers_stop_before_any_game(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("simulator.run.runner.play_runs", fail_if_called)
    monkeypatch.setattr("simulator.experiments.lab.Lab.__enter__", fail_if_called)
    monkeypatch.setattr("simulator.studies.study.warm_engines", fail_if_called)
    result = invoke(*[a.replace("{tmp}", str(tmp_path)) for a in args])
    one_error(result, message)
    assert list(tmp_path.iterdir()) == []


def test_a_rules_value_that_is_not_finite_is_refused():
    for value in ("nan", "inf", "-inf"):
        one_error(
            invoke("run", "ekonos", "--set", f"setup.start_money={value}"),
            f"rules key 'setup.start_money': {value} is not a finite number",
        )
