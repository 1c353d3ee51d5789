"""Strong players: the strong field, its checks on the report's flags, skill and challenge."""

from __future__ import annotations

import dataclasses
import re
from html import escape
from types import SimpleNamespace

import numpy as np
import polars as pl
import pytest
import tomllib
from click.testing import CliRunner
from test_analysis import write_dataset
from test_report import contract_tables, flags_text, winners_with_first_seat_share

from simulator.cli import cli
from simulator.core.game import Policy, get_game
from simulator.core.rng import game_seeds
from simulator.core.verdicts import EFFECT, INCONCLUSIVE, NO_EFFECT
from simulator.experiments.lab import Lab, scripted_field
from simulator.experiments.metrics import Estimate, Outcomes
from simulator.experiments.strength import (
    Challenge,
    Challenger,
    challenge,
    has_search,
    knob_curve,
    strong_seats,
    tuned_field,
)
from simulator.report import write_report
from simulator.report.flags import FLIPS, HOLDS, NOT_SHOWN, Flag
from simulator.report.strong import annotate, is_strong
from simulator.studies.study import STRONG, STRONG_PLAYERS, study_plans

EKONOS = get_game("ekonos")
N = 4_000


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def without_tuned_sets(rules: dict) -> dict:
    return {**rules, "policies": {k: v for k, v in rules["policies"].items() if "base" not in v}}


def with_search(game, present: bool):
    """The game with or without a search player, whatever its engine has today."""
    builtins = tuple(p for p in game.policies if p.name != "search")
    extra = (Policy(len(builtins), "search", ""),) if present else ()
    return dataclasses.replace(game, policies=builtins + extra)


# ---- the strong field -----------------------------------------------------------------------


def test_the_strong_field_is_the_tuned_sets_and_a_search_seat_when_the_game_has_one():
    rules = EKONOS.rules()
    plain, searching = with_search(EKONOS, False), with_search(EKONOS, True)
    tuned = tuned_field(plain, rules)
    assert tuned == [f"{p}_tuned" for p in scripted_field(plain)]
    assert strong_seats(plain, rules, 4) == tuned[:4]
    # without tuned sets and without search there is no strong field
    assert strong_seats(plain, without_tuned_sets(rules), 4) is None
    assert has_search(searching) and not has_search(plain)
    assert strong_seats(searching, rules, 4) == ["search", *tuned[:3]]
    assert strong_seats(searching, rules, 4, search=False) == tuned[:4]
    assert strong_seats(searching, without_tuned_sets(rules), 3) == [
        "search",
        *scripted_field(plain)[:2],
    ]


def test_the_study_adds_a_strong_dataset_with_the_same_variants():
    plans = dict(study_plans())
    for game in ("ekonos", "karnaxis", "karmaggan"):
        strong = plans[f"{game}-{STRONG_PLAYERS}p-strong"]
        scripted = plans[f"{game}-{STRONG_PLAYERS}p"]
        # search seats where the study affords them (every game today), tuned copies elsewhere
        assert strong.seats == strong_seats(
            get_game(game),
            get_game(game).rules(),
            STRONG_PLAYERS,
            search=STRONG[game]["search_games"] > 0,
        )
        assert "search" in strong.seats
        assert all(s.endswith("_tuned") for s in strong.seats if s != "search")
        assert [v.name for v in strong.variants] == [v.name for v in scripted.variants]
        assert strong.seed == scripted.seed and strong.n_games < scripted.n_games


def test_the_study_seats_search_in_its_strong_field_once_the_game_has_it(monkeypatch):
    monkeypatch.setattr(
        "simulator.experiments.strength.has_search", lambda game: game.name == "karmaggan"
    )
    monkeypatch.setitem(STRONG, "karmaggan", {**STRONG["karmaggan"], "search_games": 40})
    plans = dict(study_plans())
    strong = plans[f"karmaggan-{STRONG_PLAYERS}p-strong"]
    assert strong.seats[::2] == ["search", "search"]  # one team of search players
    assert strong.n_games == STRONG["karmaggan"]["search_games"]
    assert "search" not in plans[f"ekonos-{STRONG_PLAYERS}p-strong"].seats


# ---- the report's check ---------------------------------------------------------------------


def seat_dataset(path, first_share: float, seats: list[str], seed: int):
    rng = np.random.default_rng(seed)
    winners = winners_with_first_seat_share(rng, N, 4, first_share)
    games, players = contract_tables(rng, N, 4, winners, seats, 3, "final_turn")
    return write_dataset(path, "ekonos", 4, {"games": games, "players": players}, seats=seats)


def test_a_seat_flag_says_whether_it_holds_with_strong_players(tmp_path):
    scripted = ["value_investor", "president_seeker", "market_builder", "cash_hoarder"]
    tuned = [f"{p}_tuned" for p in scripted]
    biased = seat_dataset(tmp_path / "scripted", 0.5, scripted, 1)
    fair = seat_dataset(tmp_path / "strong-fair", 0.25, tuned, 2)
    still = seat_dataset(tmp_path / "strong-biased", 0.5, tuned, 3)
    from simulator.analysis import Dataset

    assert is_strong(Dataset(fair)) and not is_strong(Dataset(biased))

    text = flags_text(write_report([biased, fair], tmp_path / "a.html").read_text())
    found = re.search(
        r"Not shown with the strong field: (\S+)% \(95% CI [^)]*\) with the strong field "
        r"\(its interval reaches no effect\), (\S+)% \(95% CI [^)]*\) with the scripted field",
        text,
    )
    assert found, text
    assert abs(float(found.group(1)) - 25) < 3 and abs(float(found.group(2)) - 50) < 3
    assert "Holds at every strength: " in flags_text(
        write_report([biased, still], tmp_path / "b.html").read_text()
    )
    # the strong field raises flags of its own: a fair scripted field beside a biased strong
    # one flags the strong field's first player, not the scripted field's
    text = flags_text(
        write_report(
            [seat_dataset(tmp_path / "s2", 0.25, scripted, 4), still], tmp_path / "c.html"
        ).read_text()
    )
    assert "ekonos, 4 players (strong-biased), strong field: the first player wins more" in text
    assert "(s2): the first player wins" not in text


def flag(kind: str, subject: str) -> Flag:
    return Flag("ekonos", 4, kind, subject, 1.0, 0.5, "text", "ev", "4 players (x)", "a", "c")


def policy_rates(rows: dict[str, tuple[float, float, float]]) -> dict:
    return {
        "win_rate_policy": pl.DataFrame(
            [
                {
                    "policy": k,
                    "win_rate": v,
                    "win_rate_lo": lo,
                    "win_rate_hi": hi,
                    "fair_share": 0.25,
                }
                for k, (v, lo, hi) in rows.items()
            ]
        )
    }


def test_a_policy_finding_is_read_from_the_tuned_copy_in_the_strong_field():
    ds = SimpleNamespace(game="ekonos", n_players=4, variants=[{"name": "base"}], manifest={})
    scripted = policy_rates({"cash_hoarder": (0.0, 0.0, 0.01)})
    weak = flag("weak policy", "cash_hoarder")
    annotate(
        [weak],
        [(0, ds, scripted)],
        [(1, ds, policy_rates({"cash_hoarder_tuned": (0.33, 0.31, 0.35)}))],
    )
    # far below its fair share with scripted players, far above it with strong ones
    assert weak.strong_field.verdict == FLIPS and weak.strong_field.other.startswith(
        "cash_hoarder_tuned 33.0%"
    )
    still = flag("weak policy", "cash_hoarder")
    annotate(
        [still],
        [(0, ds, scripted)],
        [(1, ds, policy_rates({"cash_hoarder_tuned": (0.02, 0.01, 0.03)}))],
    )
    assert still.strong_field.verdict == HOLDS
    # a finding the strong field cannot measure is left alone
    other = flag("left neighbour", "cash_hoarder")
    annotate([other], [(0, ds, scripted)], [(1, ds, scripted)])
    assert other.strong_field is None


def test_a_level_finding_holds_while_the_strong_field_reaches_its_threshold():
    ds = SimpleNamespace(game="karmaggan", n_players=4, variants=[{"name": "base"}], manifest={})

    def capped(rate):
        return {
            "round_cap": pl.DataFrame(
                {
                    "variant": ["base"],
                    "games": [1000],
                    "rate": [rate],
                    "rate_lo": [rate * 0.8],
                    "rate_hi": [rate * 1.2],
                }
            )
        }

    checks = []
    for strong_rate in (0.2, 0.001):
        f = Flag("karmaggan", 6, "round_cap", "", 1.0, 0.5, "t", "e", "6 players (x)", "a", "c")
        annotate([f], [(0, ds, capped(0.3))], [(1, ds, capped(strong_rate))])
        checks.append(f.strong_field)
    assert [c.verdict for c in checks] == [HOLDS, NOT_SHOWN]
    assert checks[0].other.endswith("at 4 players")  # measured at the strong field's count


# ---- skill ----------------------------------------------------------------------------------


def test_skill_refuses_a_game_without_a_search_player(monkeypatch):
    monkeypatch.setattr("simulator.experiments.strength.has_search", lambda game: False)
    result = invoke("skill", "karmaggan", "-p", 4)
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "Error: karmaggan has no 'search' policy yet: skill measures a search player's win rate by "
        "rollout budget"
    ]


def test_a_knob_curve_finds_a_knob_that_matters():
    # the hoarder's buy margin of 4 M.U. keeps it from ever winning; at 0 it competes
    with Lab(EKONOS, jobs=1) as lab:
        curve = knob_curve(
            lab,
            EKONOS.rules(),
            "cash_hoarder",
            "buy_margin",
            (4.0, 0.0),
            4,
            400,
            ["president_seeker", "value_investor", "market_builder"],
            seed=3,
        )
    assert curve.lineup[0] == "cash_hoarder" and curve.rates[0].n == curve.rates[1].n
    assert curve.gap.interval[0] > 0 and curve.verdict.kind == EFFECT
    assert curve.rates[0].value < curve.fair_share


class KnobLab:
    """A stand-in for Lab: policy p (seat 0) beats q with probability win(k), k its knob;
    each candidate's games are drawn on their own (a hash of the knob and the game)."""

    def __init__(self, win):
        self.win, self.played = win, 0
        self.game = SimpleNamespace(name="coin", policy=lambda name, rules: None)

    def probe(self, design, rules):
        return self._outcomes(rules, np.arange(4))

    def play(self, design, candidates, game_ids):
        self.played += len(game_ids) * len(candidates)
        return [self._outcomes(rules, game_ids) for rules in candidates]

    def _outcomes(self, rules, game_ids):
        k = rules["policies"]["p"]["k"]
        u = game_seeds(1000 + k, np.asarray(game_ids, np.int64)) / 2.0**64
        won0 = u < self.win(k)
        won = np.stack([won0, ~won0], axis=1)
        n = len(game_ids)
        groups = {
            "seat": (np.broadcast_to(np.arange(2), (n, 2)), ("0", "1")),
            "policy": (np.broadcast_to(np.arange(2, dtype=np.int16), (n, 2)), ("p", "q")),
        }
        return Outcomes(won, won.astype(float), np.ones(n), np.zeros(n, np.int16), ("end",), groups)


def curve_of(win, budget):
    rules = {"policies": {"p": {"k": 1}}}
    return knob_curve(KnobLab(win), rules, "p", "k", (1, 2), 2, budget, ["q"])


def test_a_flat_curve_is_luck_only_when_the_equivalence_test_passes():
    """The issue's case: a skill gap whose interval holds zero was read as "luck dominates",
    though 120 games could only see gaps above about 12 points.  A knob that does nothing is
    inconclusive at 120 games, with what it could have seen, and no effect beyond 2 points
    with enough games; a knob worth 10 points is an effect."""
    small = curve_of(lambda k: 0.5, 120)
    assert small.verdict.kind == INCONCLUSIVE and small.verdict.detectable > 0.12
    flat = curve_of(lambda k: 0.5, 40_000)
    assert flat.verdict.kind == NO_EFFECT and "luck dominates" not in small.lines()[-1]
    steep = curve_of(lambda k: 0.5 + 0.1 * (k - 1), 4_000)
    assert steep.verdict.kind == EFFECT and steep.gap.value == pytest.approx(0.1, abs=0.04)
    # decided early: the looks stop once the verdict is reached
    assert steep.rates[0].n < 4_000


def skill_record(kind: str, value: float, low: float, high: float) -> dict:
    point = {"rollouts": 1, "value": 0.2, "low": 0.1, "high": 0.3, "se": 0.05, "games": 96}
    verdict = {"verdict": kind, "margin": 0.02, "alpha": 0.0125, "detectable": 0.14}
    return {
        "tool": "skill",
        "game": "ekonos",
        "policy": "search",
        "knob": "rollouts",
        "lineup": ["search", "a", "b", "c"],
        "fair_share": 0.25,
        "command": "balsim skill",
        "points": [point, {**point, "rollouts": 64}],
        "gap": {"value": value, "low": low, "high": high, "se": 0.05, "games": 96},
        "verdict": verdict,
    }


@pytest.mark.parametrize(
    "kind, value, low, high, reading",
    [
        (EFFECT, 0.12, 0.05, 0.2, "rewards skill"),
        (INCONCLUSIVE, 0.02, -0.05, 0.1, "inconclusive: these games could detect a gap of about"),
        (NO_EFFECT, 0.001, -0.005, 0.007, "no skill gap beyond ±2 points"),
        (EFFECT, -0.12, -0.2, -0.05, "did worse"),
    ],
)
def test_the_skill_gap_is_read_from_its_verdict(kind, value, low, high, reading):
    from simulator.report.skill import verdict

    text = verdict(skill_record(kind, value, low, high))
    assert reading in text
    assert f"(95% CI {100 * low:+.1f} to {100 * high:+.1f})".replace("-", "−") in text
    assert ("luck dominates" in text) == (kind == NO_EFFECT)


def test_the_study_reports_each_games_skill_gap(small_study):
    """Every game with a search player gets a skill folder, and the report states its gap."""
    from simulator.experiments.strength import read_curve
    from simulator.report.skill import verdict
    from simulator.studies.study import SKILL, skill_folder

    page = small_study["report"].read_text()
    assert "Skill and luck" in page
    runs = small_study["dirs"][0].parent
    searching = [name for name in SKILL if has_search(get_game(name))]
    assert searching
    for name in searching:
        record = read_curve(runs / skill_folder(name))
        assert [p["rollouts"] for p in record["points"]] == list(SKILL[name]["budgets"])
        assert record["gap"]["value"] == pytest.approx(
            record["points"][-1]["value"] - record["points"][0]["value"]
        )
        assert escape(verdict(record)) in page


def test_report_takes_a_skill_folder(small_study, tmp_path):
    from simulator.studies.study import skill_folder

    runs = small_study["dirs"][0].parent
    out = tmp_path / "r.html"
    result = invoke("report", runs / "ekonos-4p", runs / skill_folder("ekonos"), "-o", out)
    assert result.exit_code == 0, result.output
    assert "Skill and luck" in out.read_text()


@pytest.mark.parametrize("budgets", ["1,1", "4,1", "0,4", "a,b", "16"])
def test_skill_budgets_must_rise(budgets, monkeypatch):
    monkeypatch.setattr("simulator.experiments.strength.has_search", lambda game: True)
    result = invoke("skill", "ekonos", "--budgets", budgets)
    assert result.exit_code == 2 and "--budgets" in result.output


# ---- challenge ------------------------------------------------------------------------------


def estimate(rate: float, n: int = 1000) -> Estimate:
    return Estimate(rate, np.zeros(n), float(n))


def test_an_incumbent_is_dominant_only_when_no_challenger_beats_its_fair_share():
    losing = [Challenger("a", estimate(0.20), None), Challenger("b", estimate(0.26), None)]
    assert Challenge("ekonos", "x", 4, 0.25, losing).dominant
    beaten = Challenge(
        "ekonos", "x", 4, 0.25, losing + [Challenger("search", estimate(0.31), None)]
    )
    assert not beaten.dominant and [c.name for c in beaten.winners] == ["search"]
    assert "artefact of the field" in beaten.verdict()


def test_a_weak_incumbent_is_beaten_by_tuned_challengers(tmp_path):
    with Lab(EKONOS, jobs=1) as lab:
        result = challenge(
            lab, EKONOS.rules(), "cash_hoarder", 3, budget=1_500, search_games=6, seed=2
        )
    searching = ["search"] if has_search(EKONOS) else []
    assert [c.name for c in result.challengers] == [
        f"{p}_challenger" for p in scripted_field(EKONOS, exclude="cash_hoarder")
    ] + searching
    assert not result.dominant and result.fair_share == pytest.approx(1 / 3)


def test_challenge_command_writes_the_challengers_and_the_verdict(tmp_path):
    out = tmp_path / "best.toml"
    result = invoke(
        "challenge",
        "ekonos",
        "--incumbent",
        "cash_hoarder",
        "-p",
        3,
        "--budget",
        1_500,
        "--search-games",
        6,
        "-j",
        1,
        "-q",
        "--out",
        out,
    )
    assert result.exit_code == 0, result.output
    assert "cash_hoarder is beatable" in result.output
    text = out.read_text()
    assert "# cash_hoarder is beatable" in text
    assert set(tomllib.loads(text)["policies"]) == {
        f"{p}_challenger" for p in scripted_field(EKONOS, exclude="cash_hoarder")
    }
    bad = invoke("challenge", "ekonos", "--incumbent", "gambler")
    assert bad.exit_code == 2 and "unknown ekonos policy 'gambler'" in bad.output
