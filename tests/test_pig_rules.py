"""Pig rules, one test per rulebook section (docs/games/pig.md, "Rulebook"), each stating the
rulebook's own numbers; tests/mutants/pig.toml lists the mutations they must catch.

Small batches of games and their traces, so the tests also run as plain Python (the mutants
run them with NUMBA_DISABLE_JIT=1).
"""

from __future__ import annotations

import numpy as np
import pytest

from simulator.core.rng import game_seeds
from simulator.games.pig import state as S
from simulator.games.pig.game import GAME, trace_game

GAMES = 300


def play(sets=(), seats=("banker", "chaser"), n=GAMES):
    rules = GAME.rules(sets=tuple(sets))
    ids = [GAME.policy(name, rules).id for name in seats]
    lineup = np.tile(np.array(ids, np.int8), (n, 1))
    return GAME.play(GAME.prepare(rules, 2), game_seeds(5, np.arange(n)), lineup)


def traces(sets=(), seats=("banker", "chaser"), n=20):
    """The trace rows of n games, one array each."""
    rules = GAME.rules(sets=tuple(sets))
    params = GAME.prepare(rules, 2)
    ids = np.array([GAME.policy(name, rules).id for name in seats], np.int8)
    return [trace_game(params, int(seed), ids) for seed in game_seeds(9, np.arange(n))]


def test_the_printed_rules():
    rules = GAME.default_rules()
    assert rules["setup"]["target"] == 30
    assert rules["setup"]["second_player_points"] == 0
    assert rules["die"]["sides"] == 6 and rules["die"]["bust_face"] == 1


def test_1_setup_the_second_player_starts_with_its_points_and_the_first_plays_first():
    out = play(["setup.second_player_points=7"])["players"]
    assert (out["start_points"] == [0, 7]).all()
    assert (out["score"][:, 1] >= 7).all()
    for rows in traces(["setup.second_player_points=7"]):
        assert rows[0, 2] == 0  # seat 0 plays the first turn
        holds = rows[(rows[:, 0] == S.EV_HOLD) & (rows[:, 2] == 1)]
        assert (holds[:, 4] - np.cumsum(holds[:, 3]) == 7).all()  # banked on top of 7


def test_2_a_roll_of_1_loses_the_turn_total_and_ends_the_turn():
    for bust_face in (1, 6):
        sets = [] if bust_face == 1 else [f"die.bust_face={bust_face}"]
        for rows in traces(sets):
            rolls, busts = rows[rows[:, 0] == S.EV_ROLL], rows[rows[:, 0] == S.EV_BUST]
            assert (rolls[:, 3] != bust_face).all() and (busts[:, 3] == bust_face).all()
            first = np.nonzero(rows[:, 1] != np.roll(rows[:, 1], 1))[0]  # each turn's first row
            opening = rows[first][rows[first, 0] == S.EV_ROLL]
            assert (opening[:, 4] == opening[:, 3]).all()  # a turn starts from no points
            for k in np.nonzero(rows[:, 0] == S.EV_BUST)[0]:
                before = rows[k - 1]  # what the turn had rolled, lost
                lost = before[4] if before[0] == S.EV_ROLL and before[1] == rows[k, 1] else 0
                assert rows[k, 4] == lost
                assert k + 1 == len(rows) or rows[k + 1, 1] == rows[k, 1] + 1  # turn over
    out = play()["players"]
    assert (out["points_lost"] > 0).any() and (out["busts"] > 0).any()


def test_2_the_die_has_six_faces():
    rows = np.concatenate(traces(n=60))
    faces = rows[np.isin(rows[:, 0], [S.EV_ROLL, S.EV_BUST]), 3]
    assert set(faces) == {1, 2, 3, 4, 5, 6}


def test_2_the_first_roll_of_a_turn_is_not_a_choice():
    """A policy that holds whenever asked still rolls once in each turn."""
    out = play(["policies.banker.hold_at=0"], ("banker", "banker"))["players"]
    assert (out["rolls"] == out["turns"]).all()
    assert (out["holds"] + out["busts"] == out["turns"]).all()


def test_3_holding_banks_the_turn_total_at_the_policys_choice():
    for rows in traces():
        score = [0, 0]
        for k in np.nonzero(rows[:, 0] == S.EV_HOLD)[0]:
            seat, banked = rows[k, 2], rows[k, 3]
            assert rows[k - 1, 0] == S.EV_ROLL and banked == rows[k - 1, 4]
            score[seat] += banked
            assert rows[k, 4] == score[seat]
            won = k + 1 < len(rows) and rows[k + 1, 0] == S.EV_WIN
            if seat == 0 and not won:  # banker banks once its turn total reaches 10
                assert banked >= 10 and banked - rows[k - 1, 3] < 10


def test_4_reaching_30_wins_at_once():
    """Players who never hold: the winner's score is 30 to 35 (30 itself counts), the
    loser's below 30, and every game ends with a winner."""
    out = play(["policies.banker.hold_at=100", "policies.chaser.hold_at=100"])
    won, score = out["players"]["won"], out["players"]["score"]
    assert (out["games"]["winner_seat"] >= 0).all() and (won.sum(axis=1) == 1).all()
    assert (score[won] >= 30).all() and (score[won] <= 35).all() and (score[~won] < 30).all()
    assert (score[won] == 30).any()


@pytest.mark.parametrize("target", [10, 45])
def test_4_the_target_is_the_rules(target):
    out = play([f"setup.target={target}"])["players"]
    assert (out["score"][out["won"]] >= target).all() and (out["score"][~out["won"]] < target).all()


def test_5_the_turn_cap_ends_a_game_without_a_winner():
    out = play(["setup.turn_cap=3", "policies.banker.hold_at=100", "policies.chaser.hold_at=100"])
    capped = out["games"]["end_reason"] == S.END_TURN_CAP
    assert capped.any()
    assert (out["games"]["length"][capped] == 3).all()
    assert (out["games"]["winner_seat"][capped] == -1).all()
    assert not out["players"]["won"][capped].any()
    assert (out["games"]["length"] <= 3).all()
