"""balsim sensitivity: a key that provably does nothing ranks below one that matters; the
assumed keys; the output folder and the functions the report reads it with."""

import json
import re

import polars as pl
import pytest
from click.testing import CliRunner

from simulator.cli import cli
from simulator.core.assumed import assumed_keys
from simulator.core.game import get_game
from simulator.core.rules import lookup
from simulator.experiments import sensitivity as sens
from simulator.experiments.lab import Design, Lab

EKONOS = get_game("ekonos")
FIELD = ("president_seeker", "value_investor", "market_builder")


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture(scope="module")
def screen_out(tmp_path_factory):
    """A small screen of Ekonos without cash_hoarder at the table: its knob provably does
    nothing, while the market indicators per company set every company's value."""
    out = tmp_path_factory.mktemp("sens") / "screen"
    result = invoke(
        "sensitivity",
        "ekonos",
        "--seats",
        ",".join(FIELD),
        "--keys",
        "policies.cash_hoarder.buy_margin,companies.market_indicators,setup.start_money=0:12",
        "--trajectories",
        4,
        "-n",
        300,
        "-j",
        1,
        "-q",
        "--out",
        out,
    )
    assert result.exit_code == 0, result.output
    return out


def test_a_key_that_does_nothing_ranks_below_one_that_matters(screen_out):
    effects = pl.read_parquet(screen_out / "effects.parquet")
    idle = effects.filter(pl.col("key") == "policies.cash_hoarder.buy_margin")
    busy = effects.filter(pl.col("key") == "companies.market_indicators")
    # every step of the idle key replays the very same games: no change at all
    assert idle["mu_star"].max() == 0.0 and not idle["significant"].any()
    assert (idle["p"] == 1.0).all()
    share = busy.filter(pl.col("metric") == "max_policy_share")
    assert (
        share["significant"].item()
        and share["rank"].item()
        < idle.filter(pl.col("metric") == "max_policy_share")["rank"].item()
    )
    deps = sens.dependencies(screen_out)
    assert all("policies.cash_hoarder.buy_margin" not in keys for keys in deps.values())
    assert "companies.market_indicators" in deps["max_policy_share"]


def test_the_output_folder_follows_its_schema(screen_out):
    summary = json.loads((screen_out / "balsim.json").read_text())
    assert summary["tool"] == "sensitivity" and summary["schema"] == sens.SCHEMA
    assert [f["key"] for f in summary["factors"]] == [
        "policies.cash_hoarder.buy_margin",
        "companies.market_indicators",
        "setup.start_money",
    ]
    assert summary["factors"][2]["absolute"] and (
        summary["factors"][2]["low"],
        summary["factors"][2]["high"],
    ) == (0, 12)
    runs = pl.read_parquet(screen_out / "runs.parquet")
    assert runs.height == summary["runs"] == 4 * (3 + 1)
    assert {"run", "trajectory", "x:setup.start_money", "max_policy_share"} <= set(runs.columns)
    effects = pl.read_parquet(screen_out / "effects.parquet")
    measured = effects["metric"].unique().to_list()  # metrics defined in every run
    assert set(measured) <= set(summary["metrics"]) and effects.height == 3 * len(measured)
    assert json.loads((screen_out / "effects.json").read_text()) == effects.to_dicts()
    for _metric, rows in effects.group_by("metric"):
        assert sorted(rows["rank"]) == [1, 2, 3]
        assert (rows["mu_star_low"] <= rows["mu_star"]).all()
    assert (screen_out / "sensitivity.png").stat().st_size > 0


def test_html_section_shows_the_chart_and_the_significant_effects(screen_out):
    html = sens.html_section(screen_out)
    assert html.startswith("<section") and "data:image/png;base64," in html
    assert "companies.market_indicators" in html and "Sensitivity: ekonos" in html


def test_assumed_takes_the_keys_of_the_rules_marks_and_skips_array_entries():
    game = get_game("karnaxis")
    factors, skipped = sens.choose_factors(game, game.rules(), [], True, (0.5, 1.5))
    marked = list(assumed_keys(game.rules_path))
    assert sorted([f.key for f in factors] + [s["key"] for s in skipped]) == sorted(marked)
    entries = [k for k in marked if "[" in k]
    assert entries and all({"key": k, "reason": sens.ARRAY_ENTRY} in skipped for k in entries)


def test_assumed_screens_every_assumed_number_it_can_and_says_why_not_the_others():
    rules = EKONOS.rules()
    factors, skipped = sens.choose_factors(EKONOS, rules, [], True, (0.5, 1.5))
    reasons = {s["key"]: s["reason"] for s in skipped}
    assumed = list(assumed_keys(EKONOS.rules_path))
    assert sorted([f.key for f in factors] + list(reasons)) == sorted(assumed)
    for key in assumed:
        value = lookup(rules, key)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            assert reasons[key] == "not a number (only numeric keys can be varied)"
        elif value == 0:
            assert reasons[key] == (
                f"its value is 0, so scaling cannot move it; give {key}=LOW:HIGH"
            )
        else:
            assert key in [f.key for f in factors]
    assert reasons["setup.start_money"].startswith("its value is 0")


def test_a_scaled_range_the_checks_refuse_is_cut_to_what_they_accept():
    # growth_small must stay below growth_large (6): 4 x 1.5 = 6 is cut to 5
    factor = sens.make_factor(EKONOS, EKONOS.rules(), "companies.growth_small", None, (0.5, 1.5))
    assert (factor.value(0.0), factor.value(1.0)) == (2, 5)


def test_every_run_of_a_screen_plays_the_same_games():
    rules = EKONOS.rules()
    design = Design("ekonos", FIELD, seed=9)
    with Lab(EKONOS, jobs=1) as lab:
        a, b = lab.play(design, [rules, rules], [3, 4, 5, 6])
    assert (a.won == b.won).all() and (a.score == b.score).all()


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "give --keys K1,K2,.. or --assumed"),
        (["--keys", "setup.nope"], "rules key 'setup.nope': unknown key"),
        (["--keys", "board.layout"], "rules key 'board.layout': not a number"),
        (["--keys", "setup.start_money"], "its value is 0, so scaling cannot move it"),
        (["--keys", "setup.start_money=0:x"], "expected setup.start_money=LOW:HIGH"),
        (["--keys", "companies.market_indicators=0:5"], "the game's checks refuse 0 or 5"),
        (["--assumed", "--range", "1.5,0.5"], "--range needs 0 <= LOW < HIGH"),
        (["--assumed", "--range", "x"], "--range needs LOW,HIGH factors"),
    ],
)
def test_sensitivity_errors_are_one_line_with_status_2(tmp_path, args, message):
    result = invoke("sensitivity", "ekonos", *args, "-q", "--out", tmp_path / "s")
    assert result.exit_code == 2
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "s").exists()


def test_a_folder_not_written_by_balsim_is_never_replaced(tmp_path):
    (tmp_path / "mine.txt").write_text("keep")
    result = invoke("sensitivity", "ekonos", "--assumed", "--force", "-q", "--out", tmp_path)
    assert result.exit_code == 2 and "was not written by balsim" in result.output
    assert (tmp_path / "mine.txt").read_text() == "keep"


def test_flags_of_the_screened_game_are_marked_from_its_dependencies(screen_out):
    from simulator.report.flags import Flag
    from simulator.report.screens import mark_flags

    def flag(n_players, kind, subject):
        return Flag("ekonos", n_players, kind, subject, 1.0, 0.5, "t", "e", "w", "a", "c")

    deps = sens.dependencies(screen_out)
    screened = (
        "policies.cash_hoarder.buy_margin",
        "companies.market_indicators",
        "setup.start_money",
    )
    policy, seat, elsewhere, runaway, other_game, neighbour, presidency, variant, outside = (
        flag(3, "dominant policy", FIELD[0]),
        flag(3, "seat", "seat 0"),
        flag(5, "weak policy", FIELD[1]),
        flag(3, "runaway", ""),
        flag(3, "seat", "seat 0"),
        flag(3, "left neighbour", FIELD[1]),
        flag(3, "presidency", ""),
        flag(3, "variant", "x"),
        flag(3, "dominant policy", "cash_hoarder"),
    )
    other_game.game = "karnaxis"
    mark_flags(
        [policy, seat, elsewhere, runaway, other_game, neighbour, presidency, variant, outside],
        [screen_out],
    )
    assert policy.sensitivity.keys == tuple(deps[f"win_rate:policy={FIELD[0]}"])
    assert seat.sensitivity.keys == tuple(deps["win_rate:seat=0"])
    assert neighbour.sensitivity.keys == tuple(deps[f"neighbour_excess:policy={FIELD[1]}"])
    assert presidency.sensitivity.keys == tuple(deps["presidency_edge"])
    assert policy.sensitivity.screened == screened and policy.sensitivity.players == 0
    assert elsewhere.sensitivity.players == 3  # the screen's count is named
    assert other_game.sensitivity is None  # no screen of that game
    # Ekonos records no timeline, a variant is a second rule set, cash_hoarder did not play:
    # each says why it is not screened instead of borrowing another number's verdict
    assert runaway.sensitivity.text() == (
        "not screened against the assumed values: the screen at 3 players has no runaway_rate"
    )
    assert variant.sensitivity.text().startswith(
        "not screened against the assumed values: a variant's effect"
    )
    assert "no win_rate:policy=cash_hoarder" in outside.sensitivity.text()
    text = policy.sensitivity.text()
    assert text.startswith(
        "depends on " if policy.sensitivity.keys else "robust to the assumed values"
    )
    assert "(3 keys screened)" in text


def test_a_metric_undefined_in_some_run_gives_no_verdict(screen_out, tmp_path):
    """A metric left out of the effects (not finite in some run) is neither robust nor
    dependent: its flag says why it has no verdict."""
    import shutil

    from simulator.report.flags import Flag
    from simulator.report.screens import mark_flags

    copy = tmp_path / "screen"
    shutil.copytree(screen_out, copy)
    effects = pl.read_parquet(copy / "effects.parquet")
    effects.filter(pl.col("metric") != "presidency_edge").write_parquet(copy / "effects.parquet")
    assert "presidency_edge" not in sens.dependencies(copy)
    presidency = Flag("ekonos", 3, "presidency", "", 1.0, 0.5, "t", "e", "w", "a", "c")
    mark_flags([presidency], [copy])
    assert presidency.sensitivity.text() == (
        "not screened against the assumed values: "
        "presidency_edge is undefined in some of the "
        "screen's runs (none of their games has it)"
    )


def test_a_flag_whose_metric_moves_with_a_key_depends_on_it(tmp_path):
    """Presidencies costing 0 to 30 points rescore the same games (no policy reads the scoring)
    and take the presidency edge away: the presidency flag depends on that key, not on a knob
    of a policy nobody plays."""
    from simulator.report.flags import Flag
    from simulator.report.screens import mark_flags

    out = tmp_path / "screen"
    result = invoke(
        "sensitivity",
        "ekonos",
        "--seats",
        ",".join(FIELD),
        "--keys",
        "scoring.per_presidency=-30:0,policies.cash_hoarder.buy_margin",
        "--trajectories",
        4,
        "-n",
        120,
        "-j",
        1,
        "-q",
        "--out",
        out,
    )
    assert result.exit_code == 0, result.output
    presidency = Flag("ekonos", 3, "presidency", "", 1.0, 0.5, "t", "e", "w", "a", "c")
    mark_flags([presidency], [out])
    assert presidency.sensitivity.keys == ("scoring.per_presidency",)
    assert presidency.sensitivity.text().startswith("depends on scoring.per_presidency (2 keys")


def test_the_report_has_a_section_per_screen(screen_out, small_datasets, tmp_path):
    from simulator.report import write_report

    page = write_report([small_datasets["ekonos"], screen_out], tmp_path / "r.html").read_text()
    assert page.count("<section class='sensitivity'>") == 1 and "Sensitivity: ekonos" in page
    result = invoke("report", screen_out, "--out", tmp_path / "only.html")
    assert result.exit_code == 2 and "at least one dataset" in result.output


def test_the_study_screens_each_game_and_its_report_shows_them(small_study):
    from simulator.core.game import GAME_NAMES

    runs = small_study["dirs"][0].parent
    page = small_study["report"].read_text()
    for name in GAME_NAMES:
        summary = json.loads((runs / f"sens-{name}" / "balsim.json").read_text())
        marked = {s["key"] for s in summary["skipped"]} | {f["key"] for f in summary["factors"]}
        assert marked == set(assumed_keys(get_game(name).rules_path)), name
        assert f"Sensitivity: {name}" in page
        assert re.search(
            rf"sens-{name}: \d+ assumed keys, \d+ runs x [\d,]+ games", small_study["output"]
        )
