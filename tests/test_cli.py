"""The command line: every command documented, a user's mistakes give exit 2 and one line."""

import click
import polars as pl
import pytest
import tomllib
from click.testing import CliRunner

from simulator.cli import cli
from simulator.core.game import get_game


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_every_command_has_help_text():
    for name, command in cli.commands.items():
        assert command.help and len(command.help) > 20, name
        result = invoke(name, "--help")
        assert result.exit_code == 0, name
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"{name} {param.opts}"


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "ekonos", "--set", "nope.key=1"], "rules key 'nope.key': unknown key"),
        (
            ["run", "ekonos", "--set", "setup.start_money=lots"],
            "rules key 'setup.start_money': 'lots' is not a TOML value (quote strings)",
        ),
        (
            ["run", "ekonos", "--set", "setup.start_money=1.5"],
            "rules key 'setup.start_money': expected an integer, got a number 1.5",
        ),
        (
            ["run", "ekonos", "--set", "setup.start_money=-3"],
            "rules key 'setup.start_money': must be >= 0",
        ),
        (
            ["run", "ekonos", "--set", "companies.growth_large=3"],
            "rules key 'companies.growth_large': must exceed companies.growth_small",
        ),
        (["run", "ekonos", "--set", "setup"], "rules key 'setup': expected KEY=VALUE"),
        (["run", "ekonos", "--policy", "gambler"], "unknown ekonos policy 'gambler'"),
        (["run", "ekonos", "-p", "9"], "ekonos is played by 3-6 players, not 9"),
        (
            ["run", "ekonos", "--seats", "random,random", "-p", "3"],
            "--seats names 2 policies but --players is 3",
        ),
        (
            ["run", "ekonos", "--seats", "random,random,random", "--policy", "random"],
            "give --policy or --seats, not both",
        ),
        (["run", "ekonos", "--rules", "missing.toml"], "rules key 'missing.toml': file not found"),
        (["run", "ekonos", "--resume"], "has no manifest.json: not a balsim dataset"),
        (["run", "ekonos", "--jobs", "0"], "0 is not -1 (every core) or in the range 1<=x<=4,096"),
        (["run", "ekonos", "--backend", "dask"], "--backend dask needs --scheduler"),
        (["replay", "--game", "3"], "name a GAME or give --from DATASET"),
        (["sweep", "ekonos"], "sweep needs at least one --vary"),
        (["sweep", "ekonos", "--vary", "setup.start_money=0,x"], "'x' is not a TOML value"),
    ],
)
def test_bad_input_exits_2_with_one_line(args, message, tmp_path):
    out = tmp_path / "out"
    result = invoke(*args, "--out", out) if args[0] in ("run", "sweep") else invoke(*args)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.output
    assert not out.exists()  # nothing half-written


def test_unknown_game_is_a_usage_error():
    result = invoke("run", "monopoly")
    assert result.exit_code == 2
    assert result.output.strip().startswith("Error: unknown game 'monopoly' (known: ekonos")
    assert len(result.output.strip().splitlines()) == 1
    result = invoke("run", "ekonos", "--jobz", "2")
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert "No such option '--jobz'. Did you mean '--jobs'?" in result.output


def test_rules_file_of_the_wrong_shape(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[setup]\nturns = 3\n")
    result = invoke("run", "ekonos", "--rules", bad, "--out", tmp_path / "o")
    assert result.exit_code == 2
    assert "rules key 'setup.turns': expected a list, got an integer" in result.output


def test_run_refuses_to_overwrite_then_forces(tmp_path):
    out = tmp_path / "ek"
    assert invoke("run", "ekonos", "-n", 200, "-j", 1, "--out", out).exit_code == 0
    again = invoke("run", "ekonos", "-n", 200, "-j", 1, "--out", out)
    assert again.exit_code == 2 and "is not empty; use --force" in again.output
    forced = invoke("run", "ekonos", "-n", 300, "-j", 1, "--out", out, "--force")
    assert forced.exit_code == 0
    assert pl.read_parquet(out / "games").height == 300


def test_force_never_deletes_a_folder_that_is_not_a_dataset(tmp_path):
    (tmp_path / "notes.txt").write_text("precious")
    result = invoke("run", "ekonos", "-n", 10, "--out", tmp_path, "--force")
    assert result.exit_code == 2 and "not a balsim dataset" in result.output
    assert (tmp_path / "notes.txt").read_text() == "precious"


def test_rules_prints_effective_toml_that_reads_back():
    result = invoke("rules", "ekonos", "--set", "setup.start_money=7")
    assert result.exit_code == 0
    printed = tomllib.loads(result.output)
    expected = get_game("ekonos").rules(sets=("setup.start_money=7",))
    assert printed == expected and printed["setup"]["start_money"] == 7


def test_policies_lists_names_descriptions_and_knobs():
    result = invoke("policies", "ekonos")
    assert result.exit_code == 0
    for policy in get_game("ekonos").policies:
        assert policy.name in result.output and policy.description in result.output
    assert "policies.cash_hoarder.buy_margin = 4.0" in result.output


def test_replay_from_a_dataset_matches_its_seats(tmp_path):
    out = tmp_path / "ek"
    invoke("run", "ekonos", "-n", 20, "-j", 1, "--out", out, "--seed", 5)
    from_dataset = invoke("replay", "--from", out, "--game", 6)
    direct = invoke("replay", "ekonos", "--seed", 5, "--game", 6)
    assert from_dataset.exit_code == 0 and from_dataset.output == direct.output
    players = pl.read_parquet(out / "players").filter(pl.col("game_id") == 6).sort("seat")
    for seat, policy, score in players.select("seat", "policy", "score").iter_rows():
        assert f"{seat}={policy}" in direct.output.splitlines()[0]
        assert f"final seat {seat}: " in direct.output
        assert direct.output.count(f"= score {int(score)}") >= 1


@pytest.mark.parametrize("command", ["report", "ask", "fit", "sensitivity", "skill"])
def test_every_command_that_draws_a_chart_exports_it_for_slides(command):
    """`--charts DIR` on each command that draws a chart, said in its help."""
    options = {o for p in cli.commands[command].params for o in getattr(p, "opts", ())}
    assert "--charts" in options
    help_text = invoke(command, "--help").output
    assert "--charts DIR" in help_text and "2x PNG" in help_text
