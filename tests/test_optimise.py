"""The CMA-ES loop of tune and fit on objectives with a known minimum."""

import pytest

from simulator.experiments.optimise import Dimension, cma_search, population_size


def test_cma_search_finds_the_minimum_of_a_bowl_with_an_integer_and_an_on_off_dimension():
    space = [
        Dimension("x", -5.0, 5.0, start=4.0),
        Dimension("k", 0, 20, start=0, integer=True),
        Dimension("on", 0, 1, start=0, integer=True),
    ]
    seen = []

    def evaluate(candidates):
        seen.append(len(candidates))
        return [(c["x"] - 1.5) ** 2 + (c["k"] - 13) ** 2 + 3 * (1 - c["on"]) for c in candidates]

    best, history = cma_search(space, evaluate, generations=60, seed=3)
    assert best["x"] == pytest.approx(1.5, abs=0.05)
    assert best["k"] == 13 and best["on"] == 1
    assert isinstance(best["k"], int)
    assert seen == [population_size(3)] * 60 and len(history) == 60


def test_candidates_stay_inside_their_ranges():
    space = [Dimension("x", 2.0, 3.0, start=2.0), Dimension("n", 1, 4, start=4, integer=True)]
    inside = []

    def evaluate(candidates):
        inside.extend(2.0 <= c["x"] <= 3.0 and 1 <= c["n"] <= 4 for c in candidates)
        return [-c["x"] - c["n"] for c in candidates]  # pushes against the upper bounds

    cma_search(space, evaluate, generations=10, seed=1)
    assert inside and all(inside)


def test_a_stepped_dimension_only_proposes_its_steps():
    space = [Dimension("cap", 50_000, 300_000, start=200_000, integer=True, step=5_000)]
    seen = []

    def evaluate(candidates):
        seen.extend(c["cap"] for c in candidates)
        return [abs(c["cap"] - 123_456) for c in candidates]

    best, _ = cma_search(space, evaluate, generations=40, seed=2)
    assert all(v % 5_000 == 0 and 50_000 <= v <= 300_000 for v in seen)
    assert best["cap"] == 125_000


def test_an_empty_range_is_refused():
    with pytest.raises(ValueError, match="empty range"):
        Dimension("x", 1.0, 1.0, start=1.0)
