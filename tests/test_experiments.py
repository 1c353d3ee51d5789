"""The shared core of tune, fit and sensitivity: common games, --jobs independence, key ranges."""

import numpy as np
import pytest

from simulator.core.game import get_game
from simulator.core.rules import RulesError
from simulator.experiments.keys import accepts, checked_range, scaled, with_values
from simulator.experiments.lab import Design, Lab

EKONOS = get_game("ekonos")
LINEUP = ("president_seeker", "value_investor", "market_builder", "cash_hoarder")


@pytest.mark.slow
def test_outcomes_do_not_depend_on_the_number_of_workers():
    rules = EKONOS.rules()
    other = with_values(rules, {"companies.market_indicators": 12})
    design = Design("ekonos", LINEUP, seed=11)
    ids = np.arange(500, 900)
    with Lab(EKONOS, jobs=1) as lab:
        one = lab.play(design, [rules, other], ids)
    with Lab(EKONOS, jobs=2) as lab:
        two = lab.play(design, [rules, other], ids)
        assert lab.played == 2 * len(ids)
    for a, b in zip(one, two):
        assert (a.won == b.won).all() and (a.score == b.score).all()
        assert (a.groups["policy"][0] == b.groups["policy"][0]).all()


def test_seat_orders_are_balanced_over_a_block_of_games():
    design = Design("ekonos", LINEUP, seed=3)
    block = design.block(EKONOS.rules())
    assert block == 24  # four distinct policies: 4! seat orders
    with Lab(EKONOS, jobs=1) as lab:
        (o,) = lab.play(design, [EKONOS.rules()], np.arange(0, 5 * block))
    codes, labels = o.groups["policy"]
    for name in LINEUP:
        seats = (codes == labels.index(name)).sum(axis=0)
        assert seats.tolist() == [30, 30, 30, 30]


def test_a_candidate_the_checks_refuse_stops_before_any_game():
    bad = dict(EKONOS.rules(), companies=dict(EKONOS.rules()["companies"], growth_small=9))
    with Lab(EKONOS, jobs=1) as lab:
        with pytest.raises(RulesError, match="companies.growth_large"):
            lab.play(Design("ekonos", LINEUP), [EKONOS.rules(), bad], np.arange(10))
        assert lab.played == 0


def test_checked_range_is_where_the_checks_accept_the_key():
    rules = EKONOS.rules()
    # growth_small must be >= 1 and below growth_large (6)
    assert checked_range(EKONOS, rules, "companies.growth_small", -10, 50) == (1, 5)
    assert accepts(EKONOS, rules, "companies.growth_small", 5)
    assert not accepts(EKONOS, rules, "companies.growth_small", 6)


def test_scaling_keeps_integers_integers_and_scales_lists_whole():
    assert scaled(10, 0.55) == 6 and isinstance(scaled(10, 0.55), int)
    assert scaled([12, 10], 1.5) == [18, 15]
    assert scaled(2.0, 0.5) == 1.0
