"""Balance metrics: known values, Wilson and delta-method intervals, paired differences."""

import math

import numpy as np
import pytest

from simulator.core.errors import UserError
from simulator.core.stats import Z95, wilson
from simulator.experiments.metrics import Outcomes, balance_metrics, metric_help_text, parse_metric

POLICIES = ("random", "a", "b")


def outcomes(won, policy=None, side=None, length=None, end=None) -> Outcomes:
    """Outcomes of hand-written games: ``won`` [games][seats] of 0/1."""
    won = np.asarray(won, dtype=bool)
    n, p = won.shape
    groups = {
        "seat": (np.broadcast_to(np.arange(p), (n, p)), tuple(str(s) for s in range(p))),
        "policy": (
            np.asarray(policy if policy is not None else np.ones((n, p)), np.int16),
            POLICIES,
        ),
    }
    if side is not None:  # 0: on the starting team (seat 0's), 1: the other
        groups["side"] = (np.asarray(side), ("starting", "other"))
    return Outcomes(
        won,
        won.astype(float),
        np.asarray(length if length is not None else np.ones(n), float),
        np.asarray(end if end is not None else np.zeros(n), np.int16),
        ("final", "round_cap"),
        groups,
    )


def test_the_95_percent_quantile_is_scipys():
    from scipy.stats import norm

    assert Z95 == float(norm.ppf(0.975))


def test_win_rate_of_a_seat_is_its_share_of_games_with_the_wilson_interval():
    # seat 0 wins 3 of 8 games
    o = outcomes([[1, 0]] * 3 + [[0, 1]] * 5)
    e = o.metric("win_rate:seat=0").estimate(o)
    assert e.value == pytest.approx(3 / 8)
    low, high = wilson(3, 8)
    assert e.interval == pytest.approx((float(low), float(high)))


def test_delta_method_standard_error_of_a_proportion_is_the_binomial_one():
    o = outcomes([[1, 0]] * 30 + [[0, 1]] * 70)
    e = o.metric("win_rate:seat=0").estimate(o)
    # the influence sd uses n - 1: sqrt(p (1 - p) n / (n - 1) / n)
    assert e.se == pytest.approx(math.sqrt(0.3 * 0.7 / 99), rel=1e-6)


def test_policy_win_rate_counts_every_seat_it_played():
    # policy a (id 1) sits in both seats of game 0 and seat 0 of game 1; b (id 2) elsewhere
    o = outcomes([[1, 0], [0, 1]], policy=[[1, 1], [1, 2]])
    assert o.metric("win_rate:policy=a").estimate(o).value == pytest.approx(1 / 3)
    assert o.metric("win_rate:policy=b").estimate(o).value == pytest.approx(1.0)


def test_max_policy_share_is_the_best_rate_over_the_fair_share():
    # two seats, one winner a game: fair share 1/2; a wins 1 of 3 seats, b 1 of 1
    o = outcomes([[1, 0], [0, 1]], policy=[[1, 1], [1, 2]])
    assert o.metric("max_policy_share").estimate(o).value == pytest.approx(1.0 / 0.5)


def test_first_player_edge_and_starting_team_edge():
    # 4 games, 4 seats in two teams (seat parity); the starting team wins 3 games
    won = [[1, 0, 1, 0]] * 3 + [[0, 1, 0, 1]]
    o = outcomes(won, side=[[0, 1, 0, 1]] * 4)
    assert o.metric("first_player_edge").estimate(o).value == pytest.approx(0.75 - 0.5)
    assert o.metric("starting_team_edge").estimate(o).value == pytest.approx(0.75 - 0.25)


def test_outscore_is_the_share_of_other_seats_beaten_with_ties_half():
    o = outcomes([[0, 0, 0]])
    o.score[:] = [[5.0, 5.0, 1.0]]  # seat 0 beats seat 2 and ties seat 1
    assert o.metric("outscore:seat=0").estimate(o).value == pytest.approx(0.75)
    assert o.metric("outscore:seat=2").estimate(o).value == pytest.approx(0.0)


def test_length_and_round_cap_rate():
    o = outcomes([[1, 0]] * 4, length=[10, 20, 30, 40], end=[0, 1, 1, 0])
    assert o.metric("length").estimate(o).value == pytest.approx(25.0)
    assert o.metric("round_cap_rate").estimate(o).value == pytest.approx(0.5)


def test_paired_difference_of_identical_games_is_exactly_zero():
    rng = np.random.default_rng(5)
    won = rng.random((200, 3)) < 0.3
    o = outcomes(won)
    for metric in ("win_rate:seat=1", "first_player_edge", "max_seat_share"):
        e = o.metric(metric).estimate(o)
        d = e - e
        assert d.value == 0.0 and d.se == 0.0


def test_pairing_removes_the_shared_noise():
    # b wins exactly the games a wins plus 10 more: the paired difference is sharp even
    # though each rate alone is uncertain
    rng = np.random.default_rng(2)
    base = rng.random(400) < 0.4
    more = base.copy()
    more[np.flatnonzero(~base)[:10]] = True
    a, b = outcomes(np.stack([base, ~base], 1)), outcomes(np.stack([more, ~more], 1))
    ea, eb = (o.metric("win_rate:seat=0").estimate(o) for o in (a, b))
    d = eb - ea
    assert d.value == pytest.approx(10 / 400)
    assert d.se < 0.5 * ea.se


@pytest.mark.parametrize(
    "name, message",
    [
        ("win_rate:seat=7", "no seat '7' in these games"),
        ("win_rate:colour=red", "unknown group 'colour'"),
        ("starting_team_edge", "this game records no side"),
        ("speed", "unknown metric 'speed'"),
        ("win_rate:seat", "unknown metric 'win_rate:seat'"),
    ],
)
def test_unknown_metrics_are_user_errors_naming_the_problem(name, message):
    o = outcomes([[1, 0]])
    with pytest.raises(UserError, match=message):
        parse_metric(name, o.labels, ("final",))


def test_round_cap_rate_needs_a_round_cap():
    with pytest.raises(UserError, match="has no round cap"):
        parse_metric("round_cap_rate", {"seat": ("0",)}, ("final",))


def test_balance_metrics_cover_every_group_present():
    o = outcomes([[1, 0, 0], [0, 1, 0]], policy=[[1, 2, 1], [2, 1, 1]])
    names = [m.name for m in balance_metrics(o.present, o.end_reasons)]
    assert names == [
        "win_rate:seat=0",
        "win_rate:seat=1",
        "win_rate:seat=2",
        "win_rate:policy=a",
        "win_rate:policy=b",
        "first_player_edge",
        "max_seat_share",
        "max_policy_share",
        "length",
        "round_cap_rate",
        "neighbour_excess:policy=a",
        "neighbour_excess:policy=b",
    ]
    extras = ("top_president", "cap_binding", "delinquent", "leader_won", "has_leader")
    more = [m.name for m in balance_metrics(o.present, o.end_reasons, extras)][len(names) :]
    assert more == [
        "loan_cap_binding:policy=a",
        "loan_cap_binding:policy=b",
        "delinquency_rate:policy=a",
        "delinquency_rate:policy=b",
        "presidency_edge",
        "runaway_rate",
    ]


def test_neighbour_excess_is_the_win_rate_after_a_policy_minus_the_own_policies_rate():
    # seats 0, 1, 2 play a, b, b; the seat after a is seat 1 (b), after b seats 2 (b) and 0 (a)
    o = outcomes([[0, 1, 0], [1, 0, 0], [0, 0, 1], [0, 1, 0]], policy=[[1, 2, 2]] * 4)
    after_a = o.metric("neighbour_excess:policy=a").estimate(o).value
    # seat 1 wins 2 of 4 after a; b's players win 3 of 8 after any neighbour
    assert after_a == pytest.approx(2 / 4 - 3 / 8)
    after_b = o.metric("neighbour_excess:policy=b").estimate(o).value
    # after b: seat 2 (b) wins 1 of 4, seat 0 (a) 1 of 4; expected 4 x 3/8 + 4 x 1/4 over 8
    assert after_b == pytest.approx(2 / 8 - (4 * 3 / 8 + 4 * 1 / 4) / 8)


def test_a_metric_of_values_the_games_do_not_record_is_a_user_error():
    o = outcomes([[1, 0]])
    with pytest.raises(UserError, match="records no top president"):
        o.metric("presidency_edge")


def test_every_metric_family_is_documented_in_the_help():
    text = metric_help_text()
    for family in (
        "win_rate:GROUP=VALUE",
        "outscore:GROUP=VALUE",
        "max_GROUP_share",
        "first_player_edge",
        "starting_team_edge",
        "length",
        "round_cap_rate",
        "score:GROUP=VALUE",
        "neighbour_excess:policy=NAME",
        "presidency_edge",
        "loan_cap_binding:policy=NAME",
        "delinquency_rate:policy=NAME",
        "runaway_rate",
    ):
        assert family in text
