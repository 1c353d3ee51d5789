"""Pig's engine against its exact answers (simulator/games/pig/exact.py): each seat's win
rate over many games lies in a tight interval around the exact probability, for several
policies, head starts, dice and targets, and the exact answers meet a closed form."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simulator.core.rng import game_seeds
from simulator.games.pig import exact
from simulator.games.pig import state as S
from simulator.games.pig.game import GAME

GAMES = 200_000
Z = 4.0  # a rate this many standard errors from the truth is wrong, not unlucky (1 in 15,000)


def first_seat_rate(rules, seats, n=GAMES, seed=3):
    """Seat 0's win rate over n games of ``seats`` as listed, and the games the cap ended."""
    ids = np.array([GAME.policy(name, rules).id for name in seats], np.int8)
    out = GAME.play(GAME.prepare(rules, 2), game_seeds(seed, np.arange(n)), np.tile(ids, (n, 1)))
    capped = int((out["games"]["end_reason"] == S.END_TURN_CAP).sum())
    return float(out["players"]["won"][:, 0].mean()), capped


@pytest.mark.parametrize(
    "sets, seats",
    [
        ((), ("banker", "chaser")),
        ((), ("chaser", "banker")),
        (("setup.second_player_points=5",), ("closer", "random")),
        (("die.sides=4", "die.bust_face=4", "setup.target=20"), ("chaser", "chaser")),
        (("policies.banker.blunder=0.3", "setup.target=45"), ("banker", "closer")),
    ],
)
def test_the_first_seat_wins_as_often_as_the_exact_answer_says(sets, seats):
    rules = GAME.rules(sets=sets)
    truth = exact.first_seat_edge(rules, seats, balanced=False) + 0.5
    rate, capped = first_seat_rate(rules, seats)
    assert abs(rate - truth) < Z * math.sqrt(truth * (1 - truth) / GAMES), (rate, truth)
    assert capped == 0  # the exact answers leave the cap out: no game reached it


def test_a_rule_changed_moves_the_rate_away_from_the_printed_answer():
    """The interval is tight enough to tell the rules apart: a game played with the bust face
    a 6 misses the printed rules' answer."""
    printed = exact.first_seat_edge(GAME.rules(), ("banker", "chaser"), balanced=False) + 0.5
    rate, _ = first_seat_rate(GAME.rules(sets=("die.bust_face=6",)), ("banker", "chaser"))
    assert abs(rate - printed) > Z * math.sqrt(printed * (1 - printed) / GAMES)


def test_a_target_of_1_is_won_by_the_first_non_bust_roll():
    """Closed form: whoever first rolls anything but the bust face wins, whatever the
    policies: seat 0 wins with (5/6) / (1 - (1/6)^2) = 6/7."""
    rules = GAME.rules(sets=("setup.target=1",))
    for seats in (("banker", "chaser"), ("random", "closer")):
        assert exact.first_seat_edge(rules, seats, balanced=False) + 0.5 == pytest.approx(6 / 7)


@pytest.mark.slow
def test_the_exact_edge_of_the_printed_rules_and_its_balancing_head_start():
    rules = GAME.rules()
    assert exact.first_seat_edge(rules, ("banker", "chaser")) == pytest.approx(0.0693, abs=5e-5)
    edges, fairest, crossing = exact.balancing_points(rules, ("banker", "chaser"))
    assert fairest == 5 and crossing == pytest.approx(4.731, abs=1e-3)
    assert edges[4] > 0 > edges[5] and np.all(np.diff(edges[2:12]) < 0)
