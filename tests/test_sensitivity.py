"""balsim sensitivity: a key that provably does nothing shows no effect and one that matters an
effect; switches and choices are paired; the screen is sized by a power calculation checked
by simulation; every assumed key is planned; the report's annotations say "robust" only when
every assumed key was screened and shown within the margin."""

import json
import re

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner
from scipy.stats import chi2

from simulator.cli import cli
from simulator.core.assumed import assumed_keys
from simulator.core.game import GAME_NAMES, get_game
from simulator.core.rules import RulesError
from simulator.experiments import sensitivity as sens
from simulator.experiments.lab import Design, Lab
from simulator.experiments.metrics import Estimate
from simulator.experiments.screening import make_member, plan_screen
from simulator.games.karmaggan.layouts import half_turn
from simulator.report.flags import Flag, Sensitivity
from simulator.report.screens import annotation, html_section, mark_flags

EKONOS = get_game("ekonos")
FIELD = ("president_seeker", "value_investor", "market_builder")
IDLE = "policies.cash_hoarder.buy_margin"  # cash_hoarder is not at the table
KEYS = f"{IDLE},companies.market_indicators,setup.start_money=0:12,shares.presidency_uses_indicator"


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def flag(n_players, kind, subject, game="ekonos"):
    return Flag(game, n_players, kind, subject, 1.0, 0.5, "t", "e", "w", "a", "c")


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
        KEYS,
        "--trajectories",
        4,
        "-n",
        300,
        "--choice-games",
        300,
        "-j",
        1,
        "-q",
        "--out",
        out,
        "--charts",
        out.parent / "slides",
    )
    assert result.exit_code == 0, result.output
    return out


def test_a_key_that_does_nothing_shows_no_effect_and_one_that_matters_an_effect(screen_out):
    effects = pl.read_parquet(screen_out / "effects.parquet")
    idle = effects.filter(pl.col("key") == IDLE)
    busy = effects.filter(pl.col("key") == "companies.market_indicators")
    # every step of the idle key replays the very same games: no change at all, proven
    assert idle["size"].max() == 0.0 and (idle["p"] == 1.0).all()
    assert (idle["verdict"] == "no effect").all() and not idle["significant"].any()
    share = busy.filter(pl.col("metric") == "max_policy_share").row(0, named=True)
    assert share["significant"] and share["verdict"] == "effect"
    assert share["low"] <= share["effect"] <= share["high"] and share["high"] < 0
    assert share["rank"] < idle.filter(pl.col("metric") == "max_policy_share")["rank"].item()
    deps = sens.dependencies(screen_out)
    assert all(IDLE not in keys for keys in deps.values())
    assert "companies.market_indicators" in deps["max_policy_share"]


def test_the_output_folder_follows_its_schema(screen_out):
    summary = json.loads((screen_out / "balsim.json").read_text())
    assert summary["tool"] == "sensitivity" and summary["schema"] == sens.SCHEMA
    assert [f["key"] for f in summary["factors"]] == [
        IDLE,
        "companies.market_indicators",
        "setup.start_money",
    ]
    start = summary["factors"][2]["members"][0]
    assert start["absolute"] and (start["low"], start["high"]) == (0, 12)
    assert summary["choices"] == [
        {
            "key": "shares.presidency_uses_indicator",
            "default": True,
            "alternatives": [False],
            "companions": [],
        }
    ]
    assert set(summary["rests_on"]) == set(
        k.label for k in assumed_keys(EKONOS.rules_path).values()
    )
    runs = pl.read_parquet(screen_out / "runs.parquet")
    assert runs.height == summary["runs"] == 4 * (3 + 1)
    assert {"run", "trajectory", "x:setup.start_money", "max_policy_share"} <= set(runs.columns)
    effects = pl.read_parquet(screen_out / "effects.parquet")
    measured = effects["metric"].unique().to_list()  # metrics defined in every run
    assert set(measured) <= set(summary["metrics"]) and effects.height == 4 * len(measured)
    assert json.loads((screen_out / "effects.json").read_text()) == effects.to_dicts()
    for _metric, rows in effects.group_by("metric"):
        assert sorted(rows["rank"]) == [1, 2, 3, 4]
    alternatives = pl.read_parquet(screen_out / "alternatives.parquet")
    switch = effects.filter(pl.col("kind") == "choice")
    assert alternatives.height == switch.height and set(alternatives["alternative"]) == {"false"}
    assert (alternatives["games"] == summary["choice_games"]).all()
    assert (screen_out / "sensitivity.png").read_bytes()[:4] == b"\x89PNG"
    assert (screen_out / "sensitivity.svg").read_text().startswith("<?xml")


def test_charts_dir_gets_the_ranked_chart_named_after_its_section(screen_out):
    """``--charts DIR``: the chart as SVG and 2x PNG, named after the report's section, with
    the metrics under their plain names and in the palette (a verdict's colour per bar)."""
    from PIL import Image

    slides = screen_out.parent / "slides"
    stem = "sensitivity-ekonos-3p-ranked-effects"
    assert sorted(p.name for p in slides.iterdir()) == [f"{stem}.png", f"{stem}.svg"]
    svg = (slides / f"{stem}.svg").read_text()
    assert "highest policy win rate ÷ fair share" in svg and "max_policy_share" not in svg
    assert "#d55e00" in svg.lower()  # the palette's vermillion: an effect
    inches = float(svg.split('width="')[1].split("pt")[0]) / 72
    assert Image.open(slides / f"{stem}.png").size[0] >= 1.9 * 96 * inches


def test_html_section_says_what_was_screened_and_what_it_could_see(screen_out):
    html = html_section(screen_out)
    assert html.startswith("<section") and "<svg role='img' class='chart'" in html
    assert "<img" not in html and "max_policy_share" not in html
    assert "Sensitivity: ekonos at 3 players" in html and "companies.market_indicators" in html
    assert "3 factors by Morris screening" in html and "1 switches and choices paired" in html
    assert "Sized to detect, with 80% power" in html


def test_a_switch_that_makes_the_notices_and_a_text_nothing_reads_are_told_apart(tmp_path):
    """Karnaxis: notices below the loan cap make most delinquency notices (off, cash pays what
    it can), while Nadia's karnaxis_job is read only for a "job" Karnaxis, which hers is not:
    each of its alternatives replays the very same games."""
    out = tmp_path / "screen"
    result = invoke(
        "sensitivity",
        "karnaxis",
        "--keys",
        "loans.notices_below_cap,characters[Nadia].karnaxis_job",
        "--choice-games",
        480,
        "-j",
        1,
        "-q",
        "--out",
        out,
    )
    assert result.exit_code == 0, result.output
    judged = sens.verdicts(out)
    notices = judged["delinquency_rate:policy=tycoon"]["loans.notices_below_cap"]
    assert notices["verdict"] == "effect" and notices["high"] < 0
    assert notices["alternative"] == "false"
    for rows in judged.values():
        job = rows["characters[Nadia].karnaxis_job"]
        assert job["verdict"] == "no effect" and job["size"] == 0.0 and job["tests"] == 4
    alternatives = pl.read_parquet(out / "alternatives.parquet")
    job = alternatives.filter(pl.col("key") == "characters[Nadia].karnaxis_job")
    assert set(job["alternative"]) == {
        '"Tax Collector"',
        '"Pro Athlete"',
        '"Rocket Scientist"',
        '"Professor"',
    }  # the jobs the other cards name


def test_every_run_of_a_screen_plays_the_same_games():
    rules = EKONOS.rules()
    design = Design("ekonos", FIELD, seed=9)
    with Lab(EKONOS, jobs=1) as lab:
        a, b = lab.play(design, [rules, rules], [3, 4, 5, 6])
    assert (a.won == b.won).all() and (a.score == b.score).all()


# ---- the size of a screen: the power calculation, checked by simulation ----------------------


def test_a_switch_of_the_designed_size_finds_five_points_four_times_in_five():
    """Paired win rates with the largest variance the sizing allows (independent games, each
    won half the time): at choice_games(0.05) games a 5-point change is found ~80% of the
    time, and no change is called an effect ~5% of the time."""
    n = sens.choice_games(0.05)
    assert n == 1570 and abs(sens.detectable_by(n) - 0.05) < 1e-3
    rng = np.random.default_rng(20_261_202)  # fixed seed: the rates below are binomial draws

    def found(effect: float) -> tuple[float, float]:
        hits = nothing = 0
        for _ in range(400):
            a = (rng.random(n) < 0.5 + effect / 2).astype(float)
            b = (rng.random(n) < 0.5 - effect / 2).astype(float)
            d = Estimate(a.mean(), a - a.mean()) - Estimate(b.mean(), b - b.mean())
            hits += chi2.sf(sens.z_of(d) ** 2, 1) < 0.05
            nothing += sens.paired_verdict(d, 0.05).kind == "no effect"
        return hits / 400, nothing / 400

    power, _ = found(0.05)
    false_alarm, equivalent = found(0.0)
    assert 0.72 < power < 0.88 and false_alarm < 0.09 and equivalent > 0.6


def test_a_number_whose_steps_cancel_is_an_effect_and_a_real_but_tiny_one_is_not():
    """Known answers on made-up runs of one factor over 4 trajectories: changes of +10 and
    -10 points average to 0 but are an effect; a sure change of 0.5 points is no effect of
    practical size (within the 5-point margin)."""
    from simulator.experiments.screening import Factor, Member

    rng = np.random.default_rng(7)  # fixed: the made-up games' noise
    factor = [Factor("k", (Member("k", 1.0, 0.5, 1.5),))]
    x = np.array([[0.0], [2 / 3]] * 4)

    def judged(steps):
        runs = []
        for change in steps:
            psi = rng.normal(0, 0.5, 4_000)
            runs.append({"estimates": [Estimate(0.3, psi)]})
            runs.append({"estimates": [Estimate(0.3 + change, psi + rng.normal(0, 0.01, 4_000))]})
        rows, _ = sens.morris_rows(factor, x, runs, ["win_rate:seat=0"], [0.05])
        (row,) = sens.rank_and_correct(rows, ["win_rate:seat=0"])
        return row

    cancel = judged([0.1, -0.1, 0.1, -0.1])
    assert abs(cancel["effect"]) < 1e-9 and cancel["significant"] and cancel["verdict"] == "effect"
    tiny = judged([0.005] * 4)
    assert tiny["significant"] and tiny["verdict"] == "no effect"


def test_a_morris_factor_of_the_designed_size_sees_the_same_effect():
    runs = sens.run_games(0.05, 4)
    assert runs == 884 and sens.detectable_by(4 * runs, sens.DELTA) <= 0.05


# ---- what is screened --------------------------------------------------------------------------


def test_a_card_is_one_factor_of_its_numbers():
    game = get_game("karnaxis")
    plan = plan_screen(game, game.rules(), ["characters[Nadia]"], False, (0.5, 1.5), 4)
    (factor,) = plan.factors
    assert factor.key == "characters[Nadia]"
    assert {m.key for m in factor.members} == {
        "characters[Nadia].attributes",
        "characters[Nadia].ability_value",
        "characters[Nadia].karnaxis_value",
    }
    assert factor.values(1.0)["characters[Nadia].ability_value"] == 7500


def test_a_card_number_scaling_cannot_move_takes_the_values_other_cards_print():
    game = get_game("karnaxis")
    plan = plan_screen(game, game.rules(), ["jobs[Cashier]"], False, (0.5, 1.5), 4)
    members = {m.key: m for m in plan.factors[0].members}
    assert members["jobs[Cashier].players"].levels == (1, 3, 5)
    assert members["jobs[Cashier].college_years"].levels == (0, 1, 2, 3, 4)
    assert [members["jobs[Cashier].players"].value(x) for x in (0, 0.5, 1)] == [1, 3, 5]


@pytest.mark.parametrize("name", GAME_NAMES)
@pytest.mark.slow
def test_assumed_plans_every_assumed_key_in_play_and_says_why_not_the_others(name):
    game = get_game(name)
    rules = game.rules()
    plan = plan_screen(game, rules, [], True, (0.5, 1.5), 4)
    labels = [k.label for k in assumed_keys(game.rules_path).values()]
    skipped = {s["key"]: s["reason"] for s in plan.skipped}
    assert sorted([*plan.keys, *skipped]) == sorted(plan.rests_on)
    assert set(plan.rests_on) <= set(labels)
    for key in set(labels) - set(plan.rests_on):  # only other counts' start layouts
        assert key.startswith("board.start_points.") or key == "game.extra_player", key
    for choice in plan.choices:
        assert choice.alternatives and choice.default not in choice.alternatives
    numbers = {m.key for f in plan.factors for m in f.members}
    assert not any(isinstance(rules_value(rules, k), (bool, str)) for k in numbers)


def rules_value(rules, key):
    from simulator.core.rules import lookup

    return lookup(rules, key)


def test_switches_and_card_text_are_paired_choices():
    game = get_game("karnaxis")
    plan = plan_screen(game, game.rules(), [], True, (0.5, 1.5), 4)
    choices = {c.key: c for c in plan.choices}
    assert choices["loans.notices_below_cap"].alternatives == (False,)
    ability = choices["characters[Nadia].ability"]
    assert "franchise_discount" not in ability.alternatives and len(ability.alternatives) == 14
    # another card's text comes with that card's number: Wes's growth bonus of $1,000
    wes = ability.alternatives.index("growth_bonus")
    assert ability.values(wes) == {
        "characters[Nadia].ability": "growth_bonus",
        "characters[Nadia].ability_value": 1000,
    }
    lawsuit = choices["events[Lawsuit].effect"]  # an event's effect takes its amount along
    assert lawsuit.label(lawsuit.alternatives.index("lottery")) == '"lottery", value = 50000'


def test_karmaggan_start_layouts_are_the_mirrored_ones_and_odd_counts_switch_the_extra_player():
    game = get_game("karmaggan")
    rules = game.rules()
    four = plan_screen(game, rules, ["board.start_points.4"], False, (0.5, 1.5), 4)
    (layouts,) = four.choices
    turn = half_turn(rules["board"])
    assert len(layouts.alternatives) == 11  # seat 0 on point 0: 6 teammates x 2 orders, less 1
    for layout in layouts.alternatives:
        assert layout[0] == 0 and {turn[p] for p in layout[0::2]} == set(layout[1::2])
    three = plan_screen(game, rules, [], True, (0.5, 1.5), 3)
    reasons = {s["key"]: s["reason"] for s in three.skipped}
    assert "no mirrored layout" in reasons["board.start_points.3"]
    (extra,) = [c for c in three.choices if c.key == "game.extra_player"]
    assert (extra.default, list(extra.alternatives)) == ("starting", ["other"])
    with pytest.raises(RulesError, match="no other mirrored layout keeps seat 0 on point 0"):
        plan_screen(game, rules, ["board.start_points.2"], False, (0.5, 1.5), 2)


def test_a_scaled_range_the_checks_refuse_is_cut_to_what_they_accept():
    # growth_small must stay below growth_large (6): 4 x 1.5 = 6 is cut to 5
    member = make_member(EKONOS, EKONOS.rules(), "companies.growth_small", None, (0.5, 1.5))
    assert (member.value(0.0), member.value(1.0)) == (2, 5)


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "give --keys K1,K2,.. or --assumed"),
        (["--keys", "setup.nope"], "rules key 'setup.nope': unknown key"),
        (["--keys", "board.layout"], "rules key 'board.layout': no alternative the rules data"),
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


# ---- the flags' annotations ---------------------------------------------------------------------


def test_flags_of_the_screened_game_are_annotated_from_its_verdicts(screen_out):
    judged = sens.verdicts(screen_out)
    policy, seat, elsewhere, runaway, other_game, variant, outside = (
        flag(3, "dominant policy", FIELD[0]),
        flag(3, "seat", "seat 0"),
        flag(5, "weak policy", FIELD[1]),
        flag(3, "runaway", ""),
        flag(3, "seat", "seat 0", game="karnaxis"),
        flag(3, "variant", "x"),
        flag(3, "dominant policy", "cash_hoarder"),
    )
    mark_flags([policy, seat, elsewhere, runaway, other_game, variant, outside], [screen_out])
    rows = judged[f"win_rate:policy={FIELD[0]}"]
    assert policy.sensitivity.keys == tuple(k for k, r in rows.items() if r["verdict"] == "effect")
    # the three assumed values among the four keys (the idle knob is not an assumed value)
    assert policy.sensitivity.screened == 3 and policy.sensitivity.players == 0
    # board.layout and deck.cards have no alternatives: never "robust"
    assert {"board.layout", "deck.cards"} <= set(policy.sensitivity.unscreened)
    assert (
        not policy.sensitivity.robust and "ASSUMED keys not screened" in policy.sensitivity.text()
    )
    assert elsewhere.sensitivity.players == 3 and elsewhere.sensitivity.text().startswith(
        "not screened at its player count (the screen played 3)"
    )
    assert other_game.sensitivity is None  # no screen of that game
    # Ekonos records no timeline, a variant is a second rule set, cash_hoarder did not play:
    # each says why it is not screened instead of borrowing another number's verdict
    assert runaway.sensitivity.text() == (
        "not screened against the assumed values: the screen at 3 players does not measure "
        "games won by the leader two thirds in"
    )
    assert variant.sensitivity.text().startswith(
        "not screened against the assumed values: a variant's effect"
    )
    assert "does not measure cash_hoarder's win rate" in outside.sensitivity.text()


def test_robust_only_when_every_assumed_key_was_screened_and_shown_within_the_margin():
    """The annotation's logic on a screen with known verdicts."""
    summary = {
        "metrics": ["win_rate:seat=0"],
        "screened": ["a", "b"],
        "rests_on": ["a", "b"],
    }

    def rows(*verdicts):
        return {
            "win_rate:seat=0": {
                key: {
                    "metric": "win_rate:seat=0",
                    "key": key,
                    "kind": "numbers",
                    "verdict": v,
                    "effect": 0.08 if v == "effect" else 0.0,
                    "low": 0.03,
                    "high": 0.13,
                    "alternative": "",
                    "detectable": 0.09,
                    "margin": 0.05,
                }
                for key, v in zip("ab", verdicts)
            }
        }

    seat = flag(4, "seat", "seat 0")
    robust = annotation(seat, summary, rows("no effect", "no effect"), 4)
    assert robust.robust and robust.text() == (
        "robust to the assumed values: each of the 2 ASSUMED values screened moves it by less "
        "than ±5.0 points (equivalence test)"
    )
    unclear = annotation(seat, summary, rows("no effect", "inconclusive"), 4)
    assert not unclear.robust and unclear.text() == (
        "inconclusive for 1 of the 2 ASSUMED values screened (the screen could detect about "
        "±9.0 points)"
    )
    depends = annotation(seat, summary, rows("effect", "no effect"), 4)
    assert depends.keys == ("a",) and depends.text().startswith(
        "depends on ASSUMED values: a (+8.0 points over its range, 95% CI +3.0 to +13.0)"
    )
    missing = annotation(
        seat, {**summary, "rests_on": ["a", "b", "c"]}, rows(*["no effect"] * 2), 4
    )
    assert not missing.robust and missing.text() == "1 ASSUMED keys not screened (c)"
    elsewhere = annotation(flag(2, "seat", "seat 0"), summary, rows("no effect", "no effect"), 4)
    assert not elsewhere.robust and elsewhere.text() == (
        "not screened at its player count (the screen played 4)"
    )
    # a card's row covers each of its numbers; a value screened without a verdict on the
    # metric (undefined in some run) is not "robust"
    cards = {
        **summary,
        "screened": ["a", "c[X].p", "c[X].q"],
        "rests_on": ["a", "c[X].p", "c[X].q"],
    }
    card_rows = rows("no effect", "no effect")
    card_rows["win_rate:seat=0"]["c[X]"] = card_rows["win_rate:seat=0"].pop("b") | {"key": "c[X]"}
    card = annotation(seat, cards, card_rows, 4)
    assert card.robust and card.screened == 3
    del card_rows["win_rate:seat=0"]["c[X]"]
    unjudged = annotation(seat, cards, card_rows, 4)
    assert not unjudged.robust and unjudged.inconclusive == 2 and not unjudged.unscreened
    assert Sensitivity(reason="why").text() == "not screened against the assumed values: why"
    many = Sensitivity(keys=tuple("abcdef"), depends=tuple(f"{k} (+1)" for k in "abcdef"))
    assert many.text() == "depends on ASSUMED values: a (+1); b (+1); c (+1); d (+1); also on e, f"


def test_a_flag_whose_metric_moves_with_a_key_depends_on_it(tmp_path):
    """Presidencies costing 0 to 30 points rescore the same games (no policy reads the scoring)
    and take the presidency edge away: the presidency flag depends on that key, not on a knob
    of a policy nobody plays."""
    out = tmp_path / "screen"
    result = invoke(
        "sensitivity",
        "ekonos",
        "--seats",
        ",".join(FIELD),
        "--keys",
        f"scoring.per_presidency=-30:0,{IDLE}",
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
    assert re.search(r"presidency_edge: depends on scoring\.per_presidency \(\+", result.output)
    presidency = flag(3, "presidency", "")
    mark_flags([presidency], [out])
    assert presidency.sensitivity.keys == ("scoring.per_presidency",)
    assert presidency.sensitivity.text().startswith(
        "depends on ASSUMED values: scoring.per_presidency ("
    )


@pytest.mark.slow
def test_the_report_has_a_section_per_screen(screen_out, small_datasets, tmp_path):
    from simulator.report import write_report

    page = write_report([small_datasets["ekonos"], screen_out], tmp_path / "r.html").read_text()
    assert page.count("<section class='sensitivity'>") == 1 and "Sensitivity: ekonos" in page
    result = invoke("report", screen_out, "--out", tmp_path / "only.html")
    assert result.exit_code == 2 and "at least one dataset" in result.output


@pytest.mark.slow
def test_the_study_screens_every_assumed_key_of_each_game(small_study):
    from simulator.studies.study import studied_games

    runs = small_study["dirs"][0].parent
    page = small_study["report"].read_text()
    for name in studied_games():
        summary = json.loads((runs / f"sens-{name}" / "balsim.json").read_text())
        covered = set(summary["screened"]) | {s["key"] for s in summary["skipped"]}
        assert covered == set(summary["rests_on"]), name
        assert summary["n_players"] == 4 and summary["choices"] and summary["factors"], name
        assert f"Sensitivity: {name} at 4 players" in page
        assert re.search(
            rf"sens-{name}: \d+ factors by Morris and \d+ switches and choices of \d+ assumed "
            rf"keys at 4 players, [\d,]+ games in [\d.]+ s \(detects ±[\d.]+ points",
            small_study["output"],
        ), name
