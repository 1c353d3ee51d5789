"""balsim skill: the ladder rated on one scale, known answers by construction and by handicap."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from click.testing import CliRunner

from simulator.cli import cli
from simulator.core.game import get_game
from simulator.core.rng import game_seeds
from simulator.experiments.lab import Lab
from simulator.experiments.metrics import Outcomes
from simulator.experiments.ratings import ELO, STEP_THETA, choices, fit, gap_interval
from simulator.experiments.skill import rate_ladder, read_skill, write_skill
from simulator.experiments.tournament import RANDOM, Rung, Table, lineups
from simulator.run.plan import Variant

EKONOS = get_game("ekonos")


class StrengthLab:
    """A stand-in for Lab: each seat's score is its policy's strength plus a Gumbel draw (a
    Plackett–Luce ranking with those strengths), the draw a hash of (game, seat): the same
    for every candidate (variant).  Strengths by variant: ``strengths[v][policy]``."""

    def __init__(self, strengths: list[dict]):
        self.strengths, self.played = strengths, 0
        self.game = SimpleNamespace(name="coin")

    def play_groups(self, groups):
        out = []
        for design, candidates, ids in groups:
            table = Table(design, list(range(design.n_players)), 0)
            positions = table.owners({}, ids)  # the line-up position at each seat
            names = np.asarray(design.lineup)[positions]
            n, p = names.shape
            draws = (np.asarray(ids, np.int64)[:, None] * p + np.arange(p)).ravel()
            u = (game_seeds(7, draws) / 2.0**64).reshape(n, p)
            gumbel = -np.log(-np.log(np.clip(u, 1e-12, 1 - 1e-12)))
            found = []
            for v, _ in enumerate(candidates):
                strength = np.vectorize(self.strengths[v].get)(names)
                score = strength + gumbel
                won = score == score.max(axis=1, keepdims=True)
                groups_ = {"seat": (np.broadcast_to(np.arange(p), (n, p)), tuple("0123"[:p]))}
                found.append(
                    Outcomes(won, score, np.ones(n), np.zeros(n, np.int16), ("end",), groups_)
                )
            self.played += n * len(candidates)
            out.append(found)
        return out


THETA = {"random": 0.0, "a": 0.4, "b": 0.8, "c1": 1.6, "c2": 1.6, "d": 2.4}
RUNGS = [
    Rung("random", ("random",)),
    Rung("a", ("a",)),
    Rung("b", ("b",)),
    Rung("c", ("c1", "c2")),  # a rung of two policies, played in turn
    Rung("d", ("d",)),
]


def test_ratings_recover_known_strengths_within_their_intervals():
    """Plackett–Luce rankings drawn from known strengths: each rung's rating lies within its
    interval of the truth (a few standard errors), and so does the depth, in 60% steps."""
    lab = StrengthLab([THETA])
    skill = rate_ladder(lab, [Variant("base", {})], RUNGS, 4, 4_000)
    base = skill.base
    truth = [0.0, 0.4, 0.8, 1.6, 2.4]
    for i, t in enumerate(truth):
        e = base.rating(i)
        assert abs(e.value - ELO * t) <= 3 * max(e.se, 1e-9), (RUNGS[i].name, e.value)
    assert [RUNGS[i].name for i in np.argsort(base.ratings.theta)] == ["random", "a", "b", "c", "d"]
    depth = base.depth()
    assert abs(depth.value - 2.4 / STEP_THETA) <= 3 * depth.se
    luck = base.luck()  # counted in the games where random and d met
    assert abs(luck.value - 1 / (1 + np.exp(2.4))) <= 3 * luck.se
    meet = sum("random" in t and "d" in t for t in skill.lineups)
    assert luck.n == meet * skill.games // len(skill.lineups)
    assert skill.games <= 4_000 + sum(24 for _ in skill.lineups)


def test_the_sandwich_intervals_cover_the_truth():
    """Coverage of the ratings' 95% intervals on rankings drawn from known strengths."""
    rng = np.random.default_rng(11)
    theta = np.array([0.0, 0.5, 1.0, 1.5, 2.5])
    covered = []
    for _ in range(60):
        places = np.full((600, 5), np.nan)
        for g in range(600):
            table = rng.choice(5, 3, replace=False)
            order = table[np.argsort(-(theta[table] + rng.gumbel(size=3)))]
            places[g, order] = [1, 2, 3]
        r = fit(choices(places))
        covered += [abs(r.of(a).value - theta[a]) <= 1.96 * r.of(a).se for a in range(1, 5)]
    assert np.mean(covered) >= 0.92  # 240 intervals at 95%


def ranked(theta: np.ndarray, games: int, per_table: int, seed: int) -> np.ndarray:
    """Places of Plackett–Luce rankings with strengths ``theta``, ``per_table`` agents a game
    in a cyclic design."""
    rng = np.random.default_rng(seed)
    k = len(theta)
    places = np.full((games, k), np.nan)
    for g in range(games):
        table = (g + np.arange(per_table)) % k
        order = table[np.argsort(-(theta[table] + rng.gumbel(size=per_table)))]
        places[g, order] = np.arange(1, per_table + 1)
    return places


def test_the_estimate_is_choix_maximum_likelihood():
    import choix

    c = choices(ranked(np.array([0.0, 0.3, 0.9, 1.4]), 800, 3, seed=2))
    data = [
        (int(w), [int(a) for a in np.flatnonzero(row) if a != w])
        for w, row in zip(c.winner, c.present)
    ]
    theirs = choix.ilsr_top1(4, data, alpha=0.0)
    ours = fit(c).theta
    assert ours == pytest.approx(theirs - theirs[0], abs=2e-3)  # our weak prior: 1e-3


@pytest.mark.slow
def test_a_gap_that_few_games_tell_gets_a_profile_interval_that_covers_it():
    """A rung 5.4 units (13 steps) below every other finishes above one in a handful of 300
    games: the normal interval of its gap covers far less than 95% there; the profile
    likelihood's covers it, and has no upper end when it never finished above anyone."""
    theta = np.array([0.0, 5.4, 5.8, 6.3, 6.6])
    profile_covers, normal_covers = [], []
    for seed in range(40):
        c = choices(ranked(theta, 300, 4, seed))
        r = fit(c)
        gap = r.gap(4, 0)
        low, high = gap_interval(c, 4, 0, gap.value)
        profile_covers.append(low <= 6.6 <= high)
        normal_covers.append(abs(gap.value - 6.6) <= 1.96 * gap.se)
    assert np.mean(profile_covers) >= 0.9 > np.mean(normal_covers)
    orders = np.random.default_rng(1).permuted(np.tile([1.0, 2, 3], (50, 1)), axis=1)
    never = choices(np.column_stack([np.full(50, 4.0), orders]))  # agent 0 always last
    low, high = gap_interval(never, 1, 0, fit(never).gap(1, 0).value)
    assert high == np.inf and 0 < low < 10


def test_a_ranking_is_used_down_to_its_first_tie():
    places = np.array([[1, 2, 2, 4], [1, 1, 3, 4], [2, 1, np.nan, 3]], dtype=float)
    c = choices(places)
    assert c.game.tolist() == [0, 2, 2]  # game 1's first place is shared: nothing
    assert c.winner.tolist() == [0, 1, 0]
    assert c.present.tolist() == [
        [True, True, True, True],
        [True, True, False, True],
        [True, False, False, True],
    ]


def test_lineups_seat_every_rung_equally_and_teams_pair_every_two():
    tables = lineups(RUNGS, 4, teams=False)
    seats = np.bincount([r for t in tables for r in t], minlength=5)
    assert len(tables) == 5 and set(seats) == {4}
    assert len(lineups(RUNGS, 4, teams=True)) == 10


def test_a_variant_that_removes_skill_moves_the_depth_to_zero():
    """Known effect: a variant in which every player plays as `random` (strengths all 0) has
    no skill depth, and its change against the base is the base's depth, shown."""
    flat = {name: 0.0 for name in THETA}
    lab = StrengthLab([THETA, flat])
    skill = rate_ladder(lab, [Variant("base", {}), Variant("luck", {})], RUNGS, 4, 3_000)
    low, high = skill.rated[1].depth_interval(0.95)
    assert low <= 0 <= high and high - low < 1  # no skill: the strongest is random's equal
    (change,) = skill.depth_changes()
    assert change.variant == "luck" and change.kind == "effect" and change.high < -3
    assert change.low <= -2.4 / STEP_THETA <= change.high  # the base's depth, lost


def handicapped(rules: dict, levels: dict) -> dict:
    """value_investor_tuned copies that blunder (a uniformly random move) with each
    probability."""
    base = dict(rules["policies"]["value_investor_tuned"])
    sets = {name: {**base, "blunder": p} for name, p in levels.items()}
    return {**rules, "policies": {**rules["policies"], **sets}}


def test_a_player_made_weaker_by_a_known_handicap_rates_in_order():
    """The known answer of a handicap: a copy that blunders every move plays exactly as
    random (rating 0 within its interval), one that blunders half its moves between it and
    the copy that never blunders."""
    rules = handicapped(EKONOS.rules(), {"sharp": 0.0, "half": 0.5, "always": 1.0})
    rungs = [Rung(name, (name,)) for name in (RANDOM, "always", "half", "sharp")]
    with Lab(EKONOS, jobs=1) as lab:
        skill = rate_ladder(lab, [Variant("base", rules)], rungs, 4, 960, seed=5)
    r = skill.base
    random_like = r.rating(1)
    assert abs(random_like.value) <= 2.6 * random_like.se
    half, sharp = r.ratings.gap(2, 1), r.ratings.gap(3, 2)
    assert half.interval[0] > 0 and sharp.interval[0] > 0
    assert r.rungs[r.top].name == "sharp"


def test_skill_writes_its_record_and_the_report_reads_it(tmp_path):
    from simulator.report.skill import skill_section, verdict

    lab = StrengthLab([THETA])
    skill = rate_ladder(lab, [Variant("base", {})], RUNGS, 4, 500)
    record = write_skill(skill, tmp_path / "s", "balsim skill coin")
    assert read_skill(tmp_path / "s") == json.loads((tmp_path / "s" / "balsim.json").read_text())
    v = record["variants"][0]
    assert [x["rung"] for x in v["ratings"]] == [r.name for r in RUNGS]
    assert v["depth"]["low"] <= v["depth"]["value"] <= v["depth"]["high"]
    assert v["plateau"]["state"] == "none" and v["luck"]["weaker"] == "random"
    text = verdict(record)
    assert "skill depth" in text and "luck: random finished above d in" in text
    assert "Skill and luck" in skill_section([tmp_path / "s"])


def test_a_knob_a_set_leaves_at_zero_can_be_set():
    rules = EKONOS.rules(sets=("policies.value_investor.blunder=0.25",))
    assert rules["policies"]["value_investor"]["blunder"] == 0.25
    with pytest.raises(Exception, match="a probability between 0 and 1"):
        EKONOS.rules(sets=("policies.value_investor.blunder=2",))
    with pytest.raises(Exception, match="unknown knob"):
        EKONOS.rules(sets=("policies.value_investor.blundr=0.5",))


def test_skill_command_rates_the_rungs_asked_for(tmp_path):
    out = tmp_path / "skill"
    result = CliRunner().invoke(
        cli,
        [
            "skill",
            "ekonos",
            "-p",
            "3",
            "--rungs",
            "random,scripted,tuned",
            "-n",
            "300",
            "-j",
            "1",
            "-q",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "skill depth:" in result.output and "luck:" in result.output
    record = read_skill(out)
    assert [r["name"] for r in record["rungs"]] == ["random", "scripted", "tuned"]
    assert (out / "skill.svg").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--rungs", "random"], "--rungs needs at least two different rungs or policies"),
        (["--rungs", "random,nobody"], "unknown ekonos policy 'nobody', nor a rung"),
        (["--budgets", "4,2"], "--budgets needs at least two rising counts"),
    ],
)
def test_skill_errors_are_one_line_with_status_2(args, message):
    result = CliRunner().invoke(cli, ["skill", "ekonos", "-q", *args])
    assert result.exit_code == 2 and message in result.output
