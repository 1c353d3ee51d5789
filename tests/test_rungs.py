"""Every answer at every rung: ask's answers per field and whether they depend on player
strength (a test of the fields' difference), on synthetic data with known answers and on a
rules variant that only matters to players who adapt."""

import json
from dataclasses import replace

import numpy as np
import polars as pl
import pytest
from test_analysis import write_dataset

from simulator.analysis import Dataset
from simulator.core.decisions import Choice, Strength
from simulator.core.verdicts import ALPHA
from simulator.experiments.adapt import REPLICATES, Budget
from simulator.experiments.field import ADAPTED, TUNED, Field
from simulator.studies.recipes import RECIPES, ask, blood_coins, scoring
from simulator.studies.recipes.common import Sizing, field_text, measure, settings
from simulator.studies.recipes.rungs import Asked, RungAnswer, strength_of
from simulator.studies.recipes.words import details, headline

RNG_SEED = 28  # any seed: the synthetic gaps below are many standard errors from the margins
SIZING = Sizing(0.05, 0.05)  # a 5-point margin, one look


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("BALSIM_CACHE_DIR", str(tmp_path / "cache"))


def synthetic_coins(path, rng, n_games: int, gap: float):
    """A Karmaggän-shaped dataset of every count of blood coins whose starting team's true
    win rate is 1/2 + ``gap`` / 2 against the other's 1/2 - ``gap`` / 2, over the games
    someone wins (ties: neither wins, a fifth of games)."""
    players, games, variants = [], [], []
    for coins in blood_coins.BLOOD_COINS:
        name = "printed" if coins == 4 else f"setup.blood_coins_4_6={coins}"
        variants.append(name)
        u = rng.random(n_games)
        start_won, other_won = u < 0.4 + gap / 2, u > 0.6 + gap / 2
        seat = np.tile(np.arange(4), n_games)
        players.append(
            pl.DataFrame(
                {
                    "game_id": np.repeat(np.arange(n_games), 4),
                    "variant": name,
                    "seat": seat,
                    "team": seat % 2,
                    "side": np.where(seat % 2 == 0, "starting", "other"),
                    "policy": "p",
                    "won": np.where(
                        seat % 2 == 0, np.repeat(start_won, 4), np.repeat(other_won, 4)
                    ),
                }
            )
        )
        games.append(
            pl.DataFrame(
                {
                    "game_id": np.arange(n_games),
                    "variant": name,
                    "length": 10.0,
                    "winner_seat": np.where(start_won, 0, np.where(other_won, 1, -1)),
                }
            )
        )
    order = ["printed"] + [v for v in variants if v != "printed"]
    rules = {
        name: {"setup": {"blood_coins_4_6": coins}}
        for name, coins in zip(variants, blood_coins.BLOOD_COINS)
    }
    tables = {"games": pl.concat(games), "players": pl.concat(players)}
    path = write_dataset(path, "karmaggan", 4, tables, variants=order, variant_rules=rules)
    return Dataset(path)


def coins_rung(path, gap: float, n_games: int = 10_000) -> RungAnswer:
    """The blood-coins answer on synthetic games whose starting team's true edge over the
    other is ``gap`` (its edge over its fair share half that)."""
    ds = synthetic_coins(path, np.random.default_rng(RNG_SEED), n_games, gap)
    decision = measure(RECIPES["blood-coins"], ds, SIZING)
    return RungAnswer(
        path.name,
        path.name,
        decision,
        [],
        {},
        n_games,
        [n_games],
        1,
        n_games,
        field_text(ds),
        settings(ds),
    )


def asked_of(rungs) -> Asked:
    strength = strength_of(rungs, SIZING.margin, ALPHA)  # one look: the whole error
    return Asked(RECIPES["blood-coins"], rungs, strength, SIZING.margin)


@pytest.mark.slow
def test_an_answer_holds_at_every_strength_when_the_fields_are_shown_alike(tmp_path):
    even = [coins_rung(tmp_path / name, 0.0, 40_000) for name in ("scripted", "tuned")]
    assert [r.decision.kind for r in even] == [Choice.KEEP, Choice.KEEP]
    asked = asked_of(even)
    assert asked.strength.kind == Strength.HOLDS
    assert "every field decides the same, holds at every strength" in headline(asked)[0]


def test_fields_shown_apart_depend_on_player_strength(tmp_path):
    # balanced with one field, a 15-point edge for the starting team with the other
    flip = [coins_rung(tmp_path / "scripted", 0.0), coins_rung(tmp_path / "tuned", 0.3)]
    assert [r.decision.kind for r in flip] == [Choice.KEEP, Choice.NONE]
    asked = asked_of(flip)
    assert asked.strength.kind == Strength.DEPENDS
    assert "depends on player strength" in headline(asked)[0]
    for r in flip:  # each field's own number, with its interval, in the second line
        assert (
            f"{100 * r.decision.printed.worst.estimate:+.1f}".replace("-", "−")
            in headline(asked)[1]
        )
    # the same decision (no count balances) with edges of opposite signs depends on strength
    sides = [coins_rung(tmp_path / "up", 0.3), coins_rung(tmp_path / "down", -0.3)]
    assert [r.decision.kind for r in sides] == [Choice.NONE, Choice.NONE]
    assert asked_of(sides).strength.kind == Strength.DEPENDS


def test_decisions_that_differ_by_chance_are_no_dependence(tmp_path):
    """The same truth, one field with too few games to decide: the decisions differ, which
    said "depends on player strength" before; the test of the difference does not."""
    rungs = [coins_rung(tmp_path / "scripted", 0.0), coins_rung(tmp_path / "tuned", 0.0, 200)]
    assert [r.decision.kind for r in rungs] == [Choice.KEEP, Choice.UNDECIDED]
    asked = asked_of(rungs)
    assert asked.strength.kind == Strength.UNDECIDED
    assert "whether it depends on strength is not decided" in headline(asked)[0]
    assert asked.leading().field == "scripted"  # the strongest field that decided leads


# cash counts three points a M.U.: the policies weigh a price three times over and buy less, but
# with their tuned knobs (margins set for the printed scoring); players who adapt re-tune them
CASH_X3 = "scoring.per_mu=3"
SMALL = Budget(12_000, rounds=1)


def two_scorings(game, rules):
    return [v for v in scoring.variants(game, rules) if v.name in ("printed", CASH_X3)]


def play_columns(ds_path, variant: str) -> pl.DataFrame:
    columns = ["game_id", "seat", "policy", "cash", "holdings_value", "company0_president_mid"]
    players = pl.read_parquet(ds_path / "players").with_columns(pl.col("variant").cast(pl.String))
    return players.filter(pl.col("variant") == variant).select(columns).sort("game_id", "seat")


@pytest.mark.slow
def test_a_scoring_variant_is_measured_with_players_re_tuned_under_it(tmp_path):
    """The tuned field plays every scoring with the same knob sets (its policies read the
    scoring, their knobs stay); the adapted field plays each scoring with knob sets re-tuned
    under it, so its knobs, its games and its answer differ from the field that does not
    adapt, and its details show how the knobs moved."""
    question = replace(RECIPES["scoring"], variants=two_scorings)
    out = tmp_path / "scoring"
    fields = [Field(TUNED), Field(ADAPTED)]
    asked = ask(
        question,
        out,
        240,
        3,
        jobs=1,
        progress=False,
        exploit=False,
        fields=fields,
        adapt_budget=SMALL,
    )
    tuned, adapted = asked.rung(TUNED), asked.rung(ADAPTED)
    # the tuned field: the same knob sets under both scorings, nobody re-tunes
    tuned_manifest = json.loads((out / "dataset-tuned" / "manifest.json").read_text())
    tuned_sets = {v["name"]: v["rules"]["policies"] for v in tuned_manifest["variants"]}
    assert tuned_sets[CASH_X3] == tuned_sets["printed"]
    assert not tuned.adaptations
    # the adapted field: the knob sets re-tuned under cash x3 differ from the tuned ones
    moved = adapted.adaptations[CASH_X3][0].moved
    assert moved
    manifest = json.loads((out / "dataset-adapted" / "manifest.json").read_text())
    sets = {v["name"]: v["rules"]["policies"] for v in manifest["variants"]}
    for name, knobs in moved.items():
        assert {k: sets[CASH_X3][name][k] for k in knobs} == {k: b for k, (_, b) in knobs.items()}
        assert all(sets["printed"][name][k] != b for k, (_, b) in knobs.items())
    assert not play_columns(out / "dataset-adapted", CASH_X3).equals(
        play_columns(out / "dataset-adapted", "printed")
    )
    # the adapted knobs play other games than the tuned knobs under the same scoring
    assert not (
        play_columns(out / "dataset-adapted", CASH_X3)
        .drop("policy")
        .equals(play_columns(out / "dataset-tuned", CASH_X3).drop("policy"))
    )
    text = "\n".join(details(asked))
    policy, knobs = next(iter(moved.items()))
    note = text.split(f"adapted to {CASH_X3} replicate 1: {policy} ")[1]  # replicate 0's
    assert any(note.startswith(f"{k} ") for k in knobs)
    # a different answer than the field that does not adapt: the president's edge under cash x3
    assert (
        adapted.decision.balance(CASH_X3).worst.estimate
        != tuned.decision.balance(CASH_X3).worst.estimate
    )
    summary = json.loads((out / "balsim.json").read_text())
    assert summary["fields"] == [TUNED, ADAPTED] and summary["answer"] == headline(asked)
    records = summary["rungs"][ADAPTED]["adaptations"][CASH_X3]
    assert [r["replicate"] for r in records] == list(range(REPLICATES)) and records[0]["moved"]


# ---- the study's strong fields: flags of their own, with challenge evidence ------------------


@pytest.mark.slow
def test_the_studys_tuned_field_flags_its_dominant_policy_with_its_challenge(small_study):
    """A tuned policy whose win rate clears the dominance threshold in Karnaxis' tuned field at
    4 players (recomputed here from the dataset) is a flag of that field, followed by the
    verdict of the challenge the study played against it; one that does not is no such flag."""
    from html import escape

    from simulator.core.stats import wilson
    from simulator.report.flags import THRESHOLDS
    from simulator.run.outputs import out_record
    from simulator.studies.study import challenge_folder

    runs = small_study["dirs"][0].parent
    players = pl.read_parquet(runs / "karnaxis-4p-strong" / "players").with_columns(
        pl.col("variant").cast(pl.String)
    )
    base = players.filter(pl.col("variant") == players["variant"][0])
    page = small_study["report"].read_text()
    record = out_record(runs / challenge_folder("karnaxis"))
    found = {(c["incumbent"], c["field"]): c for c in record["challenges"]} if record else {}
    for policy in sorted(set(base["policy"]) - {"search"}):
        wins = base.filter(pl.col("policy") == policy)["won"]
        low = wilson(float(wins.sum()), float(len(wins)))[0]
        head = f"karnaxis, 4 players (karnaxis-4p-strong), tuned field: policy {policy} wins"
        if low - 0.25 < THRESHOLDS["dominant_policy"]:  # not dominant: no such flag
            assert head not in page, policy
            continue
        challenge = found[(policy, "tuned")]  # dominant: flagged, with its challenge
        assert challenge["n_players"] == 4 and len(challenge["challengers"]) >= 3
        assert challenge["dominant"] == (not any(c["beats"] for c in challenge["challengers"]))
        flag = page[page.index(head) :]
        flag = flag[: flag.index("</li>")]
        assert escape(f"Challenge: {challenge['verdict']}") in flag


# ---- sweep and fit over several fields ------------------------------------------------------


def paired(rows) -> pl.DataFrame:
    """A paired table as paired_differences writes it: (variant, group, change, half-width)."""
    return pl.DataFrame(
        [
            {
                "variant": v,
                "metric": "win_rate",
                "group": g,
                "mean_diff": d,
                "diff_lo": d - h,
                "diff_hi": d + h,
                "significant": abs(d) > h,
            }
            for v, g, d, h in rows
        ]
    )


def test_a_sweeps_change_holds_flips_or_is_inconclusive_between_fields():
    from simulator.experiments.rungs import sweep_lines

    tables = {
        "scripted": paired([("v", "policy=a", 0.10, 0.02), ("v", "policy=b", 0.08, 0.02)]),
        "tuned": paired(
            [("v", "policy=a_tuned", 0.06, 0.02), ("v", "policy=b_tuned", -0.07, 0.02)]
        ),
        "adapted": paired(
            [("v", "policy=a_adapted", 0.05, 0.02), ("v", "policy=b_adapted", 0.01, 0.02)]
        ),
    }
    lines = sweep_lines(tables)
    a = next(line for line in lines if "policy=a:" in line)
    b = next(line for line in lines if "policy=b:" in line)
    assert "holds at every strength" in a
    assert "depends on player strength" in b and "-0.07" in b
    two = sweep_lines({k: tables[k] for k in ("scripted", "adapted")})
    assert "inconclusive at adapted" in next(line for line in two if "policy=b:" in line)


def test_sweep_over_two_fields_prints_each_and_the_agreement(tmp_path):
    from click.testing import CliRunner

    from simulator.cli import cli

    out = tmp_path / "sweep"
    args = ["sweep", "ekonos", "--vary", "setup.start_money=6,14", "-n", "48", "-j", "1", "-q"]
    result = CliRunner().invoke(cli, [*args, "--field", "scripted,tuned", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "field scripted:" in result.output and "field tuned:" in result.output
    assert "Over the fields (scripted, tuned): " in result.output
    assert (out / "scripted" / "manifest.json").exists() and (out / "tuned").exists()


def test_a_fit_depends_on_strength_only_when_the_crossings_are_shown_apart():
    from simulator.core.verdicts import judge
    from simulator.experiments.crossing import BOUNDED, Crossing
    from simulator.experiments.fit import Evaluation, FitResult
    from simulator.experiments.metrics import Estimate
    from simulator.experiments.rungs import fit_line

    def result(chosen: int, in_set: list[int], low: float, high: float) -> FitResult:
        e = Estimate(0.0, np.zeros(10))
        raced = [Evaluation({"k": v}, "race", e, 0.0, None, True) for v in in_set]
        found = FitResult("m", 0.0, [], {"k": chosen}, e, raced, 100, True, 0.02, judge(0, 1, 1))
        found.crossing = Crossing("k", BOUNDED, (low + high) / 2, low, high, [low, high])
        return found

    # confidence sets that overlap are no test of sameness: not decided
    near = fit_line({"scripted": result(3, [3, 4], 3.1, 4.2), "tuned": result(5, [4, 5], 3.9, 5.0)})
    assert "whether it depends on player strength is not decided" in near
    assert "holds at every strength" not in near
    apart = fit_line(
        {"scripted": result(3, [2, 3], 2.2, 3.1), "tuned": result(6, [5, 6], 5.2, 6.0)}
    )
    assert "depends on player strength: the metric crosses its target at different values" in apart
    assert "scripted: chosen k = 3" in apart and "crossing 2.2 to 3.1" in apart


def test_a_finding_measured_in_the_other_field_holds_flips_or_is_not_shown():
    from simulator.report.flags import FLIPS, HOLDS, NOT_SHOWN
    from simulator.report.strong import Measure

    def excess(value, low, high):  # a character's excess in points, against no effect
        return Measure(value, low, high, 0.0, False, f"{value:+}")

    maya = excess(0.067, 0.02, 0.11)  # the case: +6.7 points with scripted players
    assert excess(-0.28, -0.35, -0.21).compared_with(maya) == FLIPS
    assert excess(-0.01, -0.05, 0.03).compared_with(maya) == NOT_SHOWN
    assert excess(0.05, 0.01, 0.09).compared_with(maya) == HOLDS
    weak = excess(-0.15, -0.2, -0.1)  # a finding below no effect flips upwards
    assert excess(0.1, 0.05, 0.15).compared_with(weak) == FLIPS
    assert excess(-0.1, -0.15, -0.05).compared_with(weak) == HOLDS


def test_a_change_of_skill_depth_is_said_only_when_it_is_an_effect(tmp_path):
    from simulator.experiments.skill import DepthChange

    asked = asked_of([coins_rung(tmp_path / "tuned", 0.0, 40_000)])
    asked.depth = DepthChange("setup.blood_coins_4_6=2", -3.0, -5.0, -1.0)
    assert "Skill: setup.blood_coins_4_6=2 changes the skill depth by −3.0" in (
        headline(asked)[1].replace("-3.0", "−3.0")
    )
    asked.depth = DepthChange("setup.blood_coins_4_6=2", -0.1, -0.4, 0.3)  # within ±0.5 step
    assert "Skill" not in headline(asked)[1]
    assert "no change beyond" in details(asked)[-1]


def test_an_interval_level_never_reads_100_percent():
    from simulator.studies.recipes.words import level_text

    assert level_text(0.95) == "95%" and level_text(0.989) == "98.9%"
    assert level_text(0.99995) == "99.995%" and level_text(1 - 2e-7) == "99.99998%"
