"""A field's strong seat (a learned or search player) is never a subject of a balance question:
its edge is its skill.  Each subject is measured among the other players, whose fair share is
what the strong seat leaves.  Known answers on synthetic games whose wins are laid out in exact
cycles, so every rate below is exact."""

import numpy as np
import polars as pl
import pytest
from test_analysis import write_dataset

from simulator.analysis import Dataset
from simulator.core.decisions import Side
from simulator.core.game import get_game
from simulator.experiments.field import ASK_RUNGS, playable
from simulator.games.pig.game import GAME as PIG
from simulator.studies.recipes import blood_coins, loans, scoring
from simulator.studies.recipes.common import (
    PRINTED,
    Sizing,
    field_text,
    measure,
    policy_edges,
    strong_share,
)

SEATS = ("learned", "scholar_tuned", "tycoon_tuned", "speculator_tuned")
STRONG_WINS = 11  # of every 20 games: the learned seat wins 55%, its fair share being 25%
CYCLE = 20


def winners(n: int, others: list[int]) -> np.ndarray:
    """Seat 0 (the strong seat) wins 11 games of every 20, the other seats take the other 9
    in the counts ``others`` (summing to 9), in a fixed cycle."""
    pattern = [0] * STRONG_WINS + [s for s, k in enumerate(others, start=1) for _ in range(k)]
    assert len(pattern) == CYCLE
    return np.array(pattern)[np.arange(n) % CYCLE]


def players_frame(winner: np.ndarray, extra: dict | None = None) -> pl.DataFrame:
    n = len(winner)
    seat = np.tile(np.arange(4), n)
    return pl.DataFrame(
        {
            "game_id": np.repeat(np.arange(n), 4),
            "variant": PRINTED,
            "seat": seat,
            "policy": np.array(SEATS)[seat],
            "won": seat == np.repeat(winner, 4),
            "score": 1.0,
            **(extra or {}),
        }
    )


def dataset(tmp_path, game, players, games, field="learned"):
    return Dataset(
        write_dataset(
            tmp_path / "d",
            game,
            4,
            {"games": games, "players": players},
            variants=(PRINTED,),
            seats=SEATS,
            field=field,
        )
    )


def games_frame(n: int, **columns) -> pl.DataFrame:
    return pl.DataFrame(
        {"game_id": np.arange(n), "variant": PRINTED, "length": 10.0, "winner_seat": 0, **columns}
    )


def policy_dataset(tmp_path, others, field="learned", n=6_000):
    winner = winners(n, others)
    return dataset(tmp_path, "karnaxis", players_frame(winner), games_frame(n), field)


def test_a_strong_seat_s_skill_is_not_imbalance_of_the_rules(tmp_path):
    """The learned seat wins 55% and the other three 15% each: every one of them is exactly at
    its fair share of what the learned seat leaves, and the loan cap is shown balanced.
    Counting the learned seat as a subject (+30 points) would call it unbalanced."""
    ds = policy_dataset(tmp_path, [3, 3, 3])
    frame = policy_edges(ds)
    assert "learned" not in frame.columns
    for policy in SEATS[1:]:
        assert frame[policy].mean() == pytest.approx(0.0, abs=1e-12)
    decision = measure(loans.QUESTION, ds, Sizing())
    assert {e.subject for e in decision.printed.edges} == set(SEATS[1:])
    assert decision.printed.side == Side.WITHIN
    share = strong_share(ds)
    assert share["win_rate"] == pytest.approx(0.55, abs=1e-3)
    assert share["fair_share"] == 0.25 and share["low"] < 0.55 < share["high"]
    text = field_text(ds, share)
    assert text.startswith("learned field: learned, scholar_tuned")
    assert "the learned seat's own wins (55.0% with the printed rules" in text


def test_a_policy_truly_ahead_of_the_others_is_found_beside_a_strong_seat(tmp_path):
    """The others share the 45% the learned seat leaves as 25%, 10%, 10%: against their mean
    of 15% scholar_tuned is 10 points ahead and the other two 5 behind."""
    ds = policy_dataset(tmp_path, [5, 2, 2])
    frame = policy_edges(ds)
    expected = {"scholar_tuned": 0.10, "tycoon_tuned": -0.05, "speculator_tuned": -0.05}
    for policy, edge in expected.items():
        assert frame[policy].mean() == pytest.approx(edge, abs=1e-12)
    assert measure(loans.QUESTION, ds, Sizing()).printed.side == Side.BEYOND


def test_a_field_without_a_strong_seat_counts_every_seat(tmp_path):
    """The same games recorded as played by the tuned field: the learned seat is a policy like
    any other, a subject at its +30 points."""
    ds = policy_dataset(tmp_path, [3, 3, 3], field="tuned")
    frame = policy_edges(ds)
    assert frame["learned"].mean() == pytest.approx(0.30, abs=1e-12)
    assert frame["scholar_tuned"].mean() == pytest.approx(-0.10, abs=1e-12)
    assert strong_share(ds) is None


def president_dataset(tmp_path, ahead: float):
    """Company 0 is the single most valuable at mid-game.  Its president is seat 0, 1, 2, 3, 0
    in turn (the learned seat presides in 2 games of 5); the winners cycle independently of
    it over 100 games.  When another seat presides it wins ``ahead`` more than the others:
    the 9 wins of 20 the learned seat leaves go 3 + 20*ahead to the president and the rest
    evenly to the other two."""
    n = 6_000
    president = np.array([0, 1, 2, 3, 0])[np.arange(n) % 5]
    cycle = (np.arange(n) // 5) % CYCLE
    winner = np.empty(n, dtype=np.int64)
    for g in range(n):
        others = [s for s in (1, 2, 3) if s != president[g]]
        if president[g] == 0:
            pattern = [0] * STRONG_WINS + [1, 1, 1, 2, 2, 2, 3, 3, 3]
        else:
            mine = 3 + round(CYCLE * ahead)
            rest = (CYCLE - STRONG_WINS - mine) // 2
            pattern = [0] * STRONG_WINS + [president[g]] * mine + others * rest
        winner[g] = pattern[cycle[g]]
    seat = np.tile(np.arange(4), n)
    players = players_frame(
        winner,
        {
            "company0_president_mid": seat == np.repeat(president, 4),
            "company1_president_mid": seat == np.repeat((president + 1) % 4, 4),
            "holdings_value": 0.5,
        },
    )
    games = games_frame(n, company0_value_mid=10, company1_value_mid=5)
    return dataset(tmp_path, "ekonos", players, games)


@pytest.mark.parametrize("ahead", [0.0, 0.10])
def test_the_president_is_measured_where_the_strong_seat_does_not_preside(tmp_path, ahead):
    """Games where the learned seat presides carry its skill and measure nothing; in the others
    the president's edge over the other non-strong seats is exactly what was laid out (counting
    the learned seat's presidencies would add about 7 points)."""
    edges = scoring.president_edges(president_dataset(tmp_path, ahead))["the president"]
    assert edges.null_count() == 2_400  # 2 games of every 5
    assert edges.mean() == pytest.approx(ahead, abs=1e-12)


@pytest.mark.parametrize("starting_edge", [0.0, 0.05])
def test_a_strong_team_sits_on_each_side_alike_and_leaves_the_starting_edge_as_it_is(
    tmp_path, starting_edge
):
    """Karmaggän team mode: the learned team sits on the starting (even) seats in every other
    game and wins 60% of its games, the starting side ``starting_edge`` more than its half:
    the starting team's edge is exactly that, its skill cancelling between the sides."""
    n = 4_000
    learned_starts = np.arange(n) % 2 == 0
    # per block of 40 games (20 of each seating) the learned team wins 24, the starting side
    # 20 + 40 * starting_edge; u orders the games of each seating within the block
    u = (np.arange(n) // 2) % CYCLE
    extra = round(CYCLE * starting_edge)
    learned_wins = np.where(learned_starts, u < 12 + extra, u < 12 - extra)
    seat = np.tile(np.arange(4), n)
    learned_seat = np.where(np.repeat(learned_starts, 4), seat % 2 == 0, seat % 2 == 1)
    players = pl.DataFrame(
        {
            "game_id": np.repeat(np.arange(n), 4),
            "variant": PRINTED,
            "seat": seat,
            "side": np.where(seat % 2 == 0, "starting", "other"),
            "policy": np.where(learned_seat, "learned", "rusher_tuned"),
            "won": learned_seat == np.repeat(learned_wins, 4),
        }
    )
    path = write_dataset(
        tmp_path / "d",
        "karmaggan",
        4,
        {"games": games_frame(n), "players": players},
        variants=(PRINTED,),
        seats=("learned", "rusher_tuned", "learned", "rusher_tuned"),
        field="learned",
    )
    ds = Dataset(path)
    assert blood_coins.team_edges(ds)["the starting team"].mean() == pytest.approx(
        starting_edge, abs=1e-12
    )
    assert strong_share(ds)["win_rate"] == pytest.approx(0.6)


def test_ask_plays_the_learned_rung_by_default_where_the_game_has_a_learned_player():
    """`ask`'s default fields end with the learned rung; a game without a learned player (Pig)
    is asked with the others rather than refused."""
    with_learned = ["scripted", "tuned", "adapted", "learned"]
    for name in ("karnaxis", "ekonos", "karmaggan"):
        assert [f.rung for f in playable(get_game(name), ASK_RUNGS)] == with_learned
    assert [f.rung for f in playable(PIG, ASK_RUNGS)] == with_learned[:3]
