"""Named knob sets: a tuned copy of a policy seated beside the original, under its own name."""

import polars as pl
import pytest
from click.testing import CliRunner

from simulator.cli import cli
from simulator.core.game import GAME_NAMES, KNOB_BEHAVIOUR, get_game, policy_knobs
from simulator.run.plan import Plan, Variant
from simulator.run.runner import execute


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def knob_set_rules(tmp_path, text: str):
    path = tmp_path / "sets.toml"
    path.write_text(text)
    return path


def test_a_knob_set_takes_its_base_knobs_and_overrides_its_own(tmp_path):
    game = get_game("ekonos")
    rules = game.rules(
        (
            str(
                knob_set_rules(
                    tmp_path,
                    """
[policies.hoarder_bold]
base = "cash_hoarder"
buy_margin = 0.0
""",
                )
            ),
        )
    )
    policies = game.policy_set(rules)
    bold, hoarder = policies[-1], game.policy("cash_hoarder")
    # after the built-ins and the default rules' own sets
    assert bold.name == "hoarder_bold" and bold.id == len(game.policy_set()) > len(game.policies)
    assert bold.behaviour == hoarder.id
    knobs = policy_knobs(rules, policies, game.knob_names)
    column = {name: 1 + k for k, name in enumerate(game.knob_names)}
    assert knobs[bold.id, KNOB_BEHAVIOUR] == hoarder.id
    assert knobs[bold.id, column["buy_margin"]] == 0.0
    assert (
        knobs[hoarder.id, column["buy_margin"]]
        == rules["policies"]["cash_hoarder"]["buy_margin"]
        != 0.0
    )
    assert knobs[bold.id, column["sell_margin"]] == knobs[hoarder.id, column["sell_margin"]]


@pytest.mark.parametrize("name", GAME_NAMES)
def test_an_untuned_copy_plays_exactly_like_its_base(name, tmp_path):
    """Seats run their policy's behaviour with its knobs: a copy without overrides plays the
    very same games as the original, recorded under its own name."""
    game = get_game(name)
    base = next(p.name for p in game.policies if p.id != 0)
    rules = game.rules(sets=(f'policies.{base}_copy.base="{base}"',))
    frames = {}
    for seat in (base, f"{base}_copy"):
        seats = [seat] + [base] * (game.default_players - 1)
        plan = Plan(
            game=name,
            n_games=40,
            n_players=len(seats),
            seats=seats,
            seed=3,
            chunk_size=40,
            variants=[Variant("base", rules)],
        )
        execute(plan, tmp_path / seat, jobs=1, progress=False)
        frames[seat] = pl.read_parquet(tmp_path / seat / "players")
    copy = frames[f"{base}_copy"]
    assert set(copy["policy"]) == {base, f"{base}_copy"}
    # the same games; only the names differ (the copy's own and its right neighbour's left_policy)
    names = ["policy", "left_policy"]
    assert copy.drop(names).equals(frames[base].drop(names))


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "[policies.bold]\nbuy_margin = 0.0\n",
            "rules key 'policies.bold.base': a knob set needs base",
        ),
        (
            '[policies.bold]\nbase = "gambler"\n',
            "rules key 'policies.bold.base': a knob set needs base",
        ),
        (
            '[policies.bold]\nbase = "cash_hoarder"\nnerve = 1.0\n',
            "rules key 'policies.bold.nerve': unknown knob",
        ),
        (
            '[policies.bold]\nbase = "cash_hoarder"\nbuy_margin = "lots"\n',
            "rules key 'policies.bold.buy_margin': no policy named 'lots'",
        ),
        (
            '[policies.bold]\nbase = "cash_hoarder"\nbuy_margin = true\n',
            "rules key 'policies.bold.buy_margin': expected a number",
        ),
    ],
)
def test_bad_knob_sets_exit_2_with_one_line(tmp_path, text, message):
    result = invoke(
        "run", "ekonos", "--rules", knob_set_rules(tmp_path, text), "--out", tmp_path / "out"
    )
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.output
    assert not (tmp_path / "out").exists()


def test_policies_lists_knob_sets_and_seats_accept_them(tmp_path):
    sets = knob_set_rules(
        tmp_path,
        '[policies.hoarder_bold]\nbase = "cash_hoarder"\n'
        'description = "a hoarder that buys at par"\nbuy_margin = 0.0\n',
    )
    listed = invoke("policies", "ekonos", "--rules", sets)
    assert listed.exit_code == 0, listed.output
    line = next(x for x in listed.output.splitlines() if x.startswith("hoarder_bold "))
    assert line.split(None, 1)[1] == "a hoarder that buys at par [runs cash_hoarder]"
    assert "policies.hoarder_bold.buy_margin = 0.0" in listed.output
    unknown = invoke(
        "run", "ekonos", "--seats", "hoarder_bold,random,random,random", "--out", tmp_path / "no"
    )
    assert unknown.exit_code == 2 and "unknown ekonos policy 'hoarder_bold'" in unknown.output


def test_a_sweep_variant_cannot_change_the_knob_sets(tmp_path):
    variant = knob_set_rules(tmp_path, '[policies.hoarder_bold]\nbase = "cash_hoarder"\n')
    result = invoke(
        "sweep", "ekonos", "--variant", f"bold={variant}", "-n", 10, "--out", tmp_path / "out"
    )
    assert result.exit_code == 2, result.output
    assert "a variant cannot add or remove knob sets" in result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("game_name", ["ekonos", "karnaxis"])
@pytest.mark.parametrize(
    "text, message",
    [
        (
            "[policies.search]\nrollouts = -1\n",
            "rules key 'policies.search.rollouts': must be a whole number",
        ),
        (
            '[policies.deep]\nbase = "search"\nhorizon = 2.5\n',
            "rules key 'policies.deep.horizon': must be a whole number",
        ),
        (
            "[policies.search]\ntop_k = 1000000\n",
            "rules key 'policies.search.top_k': must be a whole number",
        ),
        (
            '[policies.search]\nrollout_policy = "search"\n',
            "rules key 'policies.search.rollout_policy': must name a scripted policy",
        ),
        (
            '[policies.deep]\nbase = "search"\nrollouts = -3\n',
            "rules key 'policies.deep.rollouts': must be a whole number",
        ),
    ],
)
def test_a_search_budget_the_driver_cannot_play_exits_2_with_one_line(
    tmp_path, game_name, text, message
):
    out = tmp_path / "out"
    result = invoke("run", game_name, "--rules", knob_set_rules(tmp_path, text), "--out", out)
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"Error: {message}") and result.output.count("\n") == 1
    assert not out.exists()
