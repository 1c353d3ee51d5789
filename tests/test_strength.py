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
from simulator.core.game import GAME_NAMES, Policy, get_game
from simulator.experiments.lab import Lab, scripted_field
from simulator.experiments.metrics import Estimate
from simulator.experiments.strength import (
    Challenge,
    Challenger,
    challenge,
    has_search,
    strong_seats,
    tuned_field,
)
from simulator.report import write_report
from simulator.report.flags import FLIPS, HOLDS, NOT_SHOWN, Flag
from simulator.report.strong import annotate, is_strong
from simulator.studies.study import STRONG_PLAYERS, study_plans

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
            search=get_game(game).study.strong_search_games > 0,
        )
        assert "search" in strong.seats
        assert all(s.endswith("_tuned") for s in strong.seats if s != "search")
        assert [v.name for v in strong.variants] == [v.name for v in scripted.variants]
        assert strong.seed == scripted.seed and strong.n_games < scripted.n_games


def test_the_study_seats_search_in_its_strong_field_once_the_game_has_it(monkeypatch):
    monkeypatch.setattr(
        "simulator.experiments.strength.has_search", lambda game: game.name == "karmaggan"
    )
    plain = get_game("karmaggan")
    searching = dataclasses.replace(
        plain, study=dataclasses.replace(plain.study, strong_search_games=40)
    )
    monkeypatch.setattr(
        "simulator.studies.study.get_game",
        lambda name: searching if name == "karmaggan" else get_game(name),
    )
    plans = dict(study_plans())
    strong = plans[f"karmaggan-{STRONG_PLAYERS}p-strong"]
    assert strong.seats[::2] == ["search", "search"]  # one team of search players
    assert strong.n_games == 40
    assert "search" not in plans[f"ekonos-{STRONG_PLAYERS}p-strong"].seats


# ---- the report's check ---------------------------------------------------------------------


def seat_dataset(path, first_share: float, seats: list[str], seed: int):
    rng = np.random.default_rng(seed)
    winners = winners_with_first_seat_share(rng, N, 4, first_share)
    games, players = contract_tables(rng, N, 4, winners, seats, 3, "final_turn")
    return write_dataset(path, "ekonos", 4, {"games": games, "players": players}, seats=seats)


@pytest.mark.slow
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


@pytest.mark.slow
def test_the_study_reports_each_games_skill_depth(small_study):
    """Every game gets a rated ladder, and the report states its depth with its interval."""
    from simulator.experiments.skill import read_skill
    from simulator.report.skill import verdict
    from simulator.studies.study import skill_folder

    page = small_study["report"].read_text()
    assert "Skill and luck" in page
    runs = small_study["dirs"][0].parent
    studied = [name for name in GAME_NAMES if get_game(name).study.skill_games]
    assert studied
    for name in studied:
        record = read_skill(runs / skill_folder(name))
        rungs = [r["name"] for r in record["rungs"]]
        assert rungs[:4] == ["random", "scripted", "tuned", "adapted"]
        assert len([r for r in rungs if r.startswith("search_")]) == 3 * has_search(get_game(name))
        depth = record["variants"][0]["depth"]
        high = np.inf if depth["high"] is None else depth["high"]  # None: random never won
        assert depth["low"] <= high and depth["low"] > 0
        assert escape(verdict(record)) in page


@pytest.mark.slow
def test_report_takes_a_skill_folder(small_study, tmp_path):
    from simulator.studies.study import skill_folder

    runs = small_study["dirs"][0].parent
    out = tmp_path / "r.html"
    result = invoke("report", runs / "ekonos-4p", runs / skill_folder("ekonos"), "-o", out)
    assert result.exit_code == 0, result.output
    assert "Skill and luck" in out.read_text()


@pytest.mark.parametrize("budgets", ["1,1", "4,1", "0,4", "a,b", "16"])
def test_skill_budgets_must_rise(budgets):
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


# ---- exploitability -------------------------------------------------------------------------


def test_the_exploitability_bound_holds_for_every_challenger_at_once():
    from simulator.core.verdicts import z
    from simulator.experiments.strength import Exploitability

    def rate(value, se, n=400):
        psi = np.resize([se * np.sqrt(n - 1), -se * np.sqrt(n - 1)], n)  # standard error se
        return Estimate(value, psi)

    challengers = [Challenger("a", rate(0.27, 0.01), None), Challenger("b", rate(0.24, 0.03), None)]
    e = Exploitability("ekonos", ["x"], 4, 0.25, challengers)
    assert e.best.name == "a" and e.gain(e.best) == pytest.approx(0.02)
    # Bonferroni over two challengers, one-sided: b's wider interval sets the bound
    q = z(1 - 0.05 / 2)
    assert e.upper == pytest.approx(max(0.02 + q * 0.01, -0.01 + q * 0.03), rel=1e-3)
    assert e.within(0.05) and not e.within(0.045)  # +4.9 points
    assert "no strategy tried gains more than +4.9 points" in e.text()
    assert e.record()["upper"] == pytest.approx(e.upper)


def test_a_random_field_is_exploited_by_every_challenger():
    from simulator.experiments.strength import exploitability

    with Lab(EKONOS, jobs=1) as lab:
        e = exploitability(lab, EKONOS.rules(), ["random"], 3, budget=1_500, search_games=6)
    searching = ["search"] if has_search(EKONOS) else []
    assert [c.name for c in e.challengers] == [
        f"{p}_challenger" for p in scripted_field(EKONOS)
    ] + searching
    assert e.gain(e.best) > 0.3 and e.upper >= e.gain(e.best) and not e.within(0.02)
