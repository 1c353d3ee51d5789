"""The search player's game-independent helpers (policies/search.py)."""

import importlib.util
import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policies.search import (
    GAIN_BOUND,
    LEVEL,
    MAX_CANDIDATES,
    PAIRED_ROWS,
    PAIRED_WIDTH,
    RESEED_SALT,
    RESEED_SALTS,
    candidate_at,
    flip_tail,
    margin_to_best_other,
    outcome_value,
    paired_choice,
    paired_scale,
    redeal,
    reseed_chance,
    rollout_seed,
    settled,
    tally,
    to_candidate_order,
    top_k,
    win_share,
)
from simulator.core.rng import DICE, N_STREAMS, POLICY, SEARCH, SETUP, rng_new

BENCH = Path(__file__).resolve().parent.parent / "bench" / "search_override.py"


def test_a_win_outweighs_any_margin_and_ties_share_the_win():
    scores = np.array([10.0, 10.0, 3.0, 9.0])
    assert win_share(scores, 4, 0) == 0.5 and win_share(scores, 4, 3) == 0.0
    assert win_share(np.array([1.0, 5.0, 2.0]), 3, 1) == 1.0
    assert margin_to_best_other(scores, 4, 3) == -1.0
    worst_win = outcome_value(1.0, -1e9, 1.0)
    best_loss = outcome_value(0.0, 1e9, 1.0)
    assert worst_win > best_loss
    assert outcome_value(0.0, 5.0, 10.0) == 0.05


def test_top_k_takes_the_best_scores_best_first_ties_to_the_lower_index():
    out = np.zeros(8, np.int64)
    scores = np.array([1.0, 7.0, 3.0, 7.0, -2.0])
    assert top_k(scores, 5, 3, out) == 3 and list(out[:3]) == [1, 3, 2]
    assert top_k(scores, 5, 9, out) == 5 and list(out[:5]) == [1, 3, 2, 0, 4]
    assert top_k(scores, 2, 0, out) == 1 and out[0] == 1


def load_bench():
    """bench/search_override.py: the simulated decisions its rates are measured on."""
    spec = importlib.util.spec_from_file_location("search_override", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def brute_tail(gains, scale):
    """flip_tail by listing every sign flip of the gains' cells."""
    cells = np.round(np.minimum(np.abs(gains), GAIN_BOUND) * scale)
    observed = np.sum(np.where(gains > 0, cells, -cells))
    sums = np.array(
        [np.dot(signs, cells) for signs in itertools.product((-1, 1), repeat=len(cells))]
    )
    return np.mean(sums > observed), np.mean(sums == observed), observed


def test_flip_tail_is_the_exact_sign_flip_distribution_ties_included():
    """The known answer, by enumeration: gains drawn with ties (equal sizes, zeros) and
    without, at coarse and fine cells."""
    rng = np.random.default_rng(3)
    ways = np.zeros(PAIRED_WIDTH)
    for _ in range(200):
        n = rng.integers(1, 11)
        gains = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0, 0.03, -0.03], n)
        gains += (rng.random(n) < 0.5) * rng.normal(0.0, 0.05, n)
        scale = float(rng.choice([10.0, 37.5, paired_scale(n)]))
        greater, equal, lead = flip_tail(gains, scale, ways)
        expected = brute_tail(gains, scale)
        assert greater == pytest.approx(expected[0], abs=1e-12)
        assert equal == pytest.approx(expected[1], abs=1e-12)
        assert lead == expected[2]


def override_rate(outcomes, rounds, m, gain, n_decisions, seed):
    bench = load_bench()
    row = bench.measure(outcomes, rounds, m, gain, n_decisions, seed)
    return row["override_rate"], row["mc_se"]


@pytest.mark.parametrize(
    "outcomes, rounds, m",
    [("wins", 8, 2), ("wins", 12, 4), ("wins and margins", 2, 2), ("wins and margins", 12, 2)],
)
def test_on_candidates_of_equal_value_a_rival_overrides_at_most_at_the_level(outcomes, rounds, m):
    """The known answer: no candidate is better, so an override is an error; the rule makes
    it in at most LEVEL of the decisions (plus three Monte Carlo standard errors), also when
    the values tie (wins alone: the paired t test overrode 24.6% of 8-round decisions)."""
    rate, se = override_rate(outcomes, rounds, m, 0.0, 3000, seed=5)
    assert rate <= LEVEL + 3 * max(se, np.sqrt(LEVEL * (1 - LEVEL) / 3000))


def test_a_clearly_better_candidate_is_found():
    """The known answer: the last candidate wins 50 points more often on the same futures."""
    found, _ = override_rate("wins and margins", 12, 3, 0.5, 300, seed=6)
    assert found >= 0.9


def test_paired_choice_edge_cases():
    paired = np.zeros((PAIRED_ROWS, PAIRED_WIDTH))
    scale = paired_scale(4)
    paired[1, :4] = paired[2, :4] = 0.0
    assert paired_choice(paired, 3, 4, scale, 0.0) == 0  # all ties: nothing to pass
    paired[1, :4], paired[2, :4] = 0.5, 1.0  # both gain every round: the larger mean
    assert paired_choice(paired, 3, 4, scale, 0.0) == 2
    paired[1, :4], paired[2, :4] = -0.5, [1.0, 1.0, 1.0, -1.0]
    # 1 of 16 flips beats +2 and 4 reach it: p = (1 + 4u) / 16 against a level of 0.1
    assert paired_choice(paired, 3, 4, scale, 0.5) == 0
    assert paired_choice(paired, 3, 4, scale, 0.0) == 2
    # two rounds that both favour the rival: the p-value is u / 4, so it passes for u <= 0.8
    paired[1, :2] = [0.3, 0.7]
    scale = paired_scale(2)
    assert paired_choice(paired, 2, 2, scale, 0.79) == 1
    assert paired_choice(paired, 2, 2, scale, 0.81) == 0
    assert paired_choice(paired, 2, 1, scale, 0.0) == 1  # one round: p = u / 2


GAIN = st.floats(-1.2, 1.2) | st.sampled_from([0.0, 1.0, -1.0, 0.5])  # ties likely


@settings(deadline=None)  # the first example compiles the kernels
@given(st.integers(2, 3), st.integers(2, 6), st.floats(0.0, 0.999), st.data())
def test_a_settled_decision_never_changes_the_choice(m, rounds, u, data):
    """Whenever the rounds played leave the search settled, the choice after every round is
    candidate 0's with the same uniform number, whatever the rounds left give."""
    gains = data.draw(
        st.lists(st.lists(GAIN, min_size=rounds, max_size=rounds), min_size=m - 1, max_size=m - 1)
    )
    paired = np.zeros((PAIRED_ROWS, PAIRED_WIDTH))
    paired[1:m, :rounds] = gains
    scale = paired_scale(rounds)
    for played in range(rounds + 1):
        if settled(paired, m, played, rounds, scale, u):
            assert paired_choice(paired, m, rounds, scale, u) == 0


def test_the_first_of_two_rounds_lost_by_every_rival_settles_a_decision():
    paired = np.zeros((PAIRED_ROWS, PAIRED_WIDTH))
    scale = paired_scale(2)
    paired[1, 0] = -0.01
    assert settled(paired, 2, 1, 2, scale, 0.0)
    paired[1, 0] = 0.0  # a tie: a second round won passes when u / 2 <= 0.2
    assert not settled(paired, 2, 1, 2, scale, 0.4) and settled(paired, 2, 1, 2, scale, 0.41)
    paired[1, 1] = 0.5
    assert paired_choice(paired, 2, 2, scale, 0.4) == 1
    assert paired_choice(paired, 2, 2, scale, 0.41) == 0
    assert not settled(paired, 2, 0, 2, scale, 0.99)


def test_tally_pairs_each_rival_with_candidate_0_of_its_round():
    sums, counts = np.zeros(3), np.zeros(3)
    paired = np.zeros((PAIRED_ROWS, PAIRED_WIDTH))
    for r, round_values in enumerate(([0.5, 1.0, 0.0], [1.0, 1.0, 0.5])):
        base = 0.0
        for c, value in enumerate(round_values):
            base = tally(sums, counts, paired, c, r, value, base)
    assert list(sums) == [1.5, 2.0, 0.5] and list(counts) == [2.0, 2.0, 2.0]
    assert list(paired[1, :2]) == [0.5, 0.0] and list(paired[2, :2]) == [-0.5, -0.5]


def test_at_most_max_candidates_are_weighed():
    out = np.zeros(MAX_CANDIDATES + 10, np.int64)
    assert top_k(np.arange(200.0), 200, 100, out) == MAX_CANDIDATES


def test_a_redeal_depends_on_which_cards_are_unseen_not_on_their_hidden_order():
    seed = np.uint64(99)
    deals = []
    for hidden in ([4, 9, 1, 7, 3], [7, 3, 9, 1, 4]):
        rng = rng_new(np.uint64(5))
        reseed_chance(rng, seed)
        cards = np.array(hidden + [-1, -1], np.int64)
        redeal(cards, 5, rng)
        deals.append(list(cards))
    assert deals[0] == deals[1] and sorted(deals[0][:5]) == [1, 3, 4, 7, 9]
    assert deals[0][5:] == [-1, -1]


def test_reseeding_replaces_every_chance_stream_and_draws_only_from_search():
    real = rng_new(np.uint64(11))
    before = real.copy()
    seed = rollout_seed(real)
    changed = [s for s in range(N_STREAMS) if real[s] != before[s]]
    assert changed == [SEARCH]
    work = before.copy()
    reseed_chance(work, seed)
    assert all(work[s] != before[s] for s in (SETUP, DICE, POLICY, SEARCH))


def test_reseeding_wraps_the_seed_arithmetic_without_a_warning():
    """The streams' salts, (stream + 1) x RESEED_SALT modulo 2^64, are a table computed in
    Python integers: the kernel run as plain Python (NUMBA_DISABLE_JIT) multiplies nothing in
    numpy's uint64, which would warn of the overflow it means."""
    import warnings

    assert [int(s) for s in RESEED_SALTS] == [(k + 1) * RESEED_SALT % 2**64 for k in range(4)]
    compiled, plain = np.zeros(N_STREAMS, np.uint64), np.zeros(N_STREAMS, np.uint64)
    reseed_chance(compiled, np.uint64(2**64 - 5))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(reseed_chance, "py_func", reseed_chance)(plain, np.uint64(2**64 - 5))
    assert [str(w.message) for w in caught if w.filename.endswith("search.py")] == []
    assert plain.tolist() == compiled.tolist() and len(set(plain.tolist())) == N_STREAMS


def test_the_kept_candidate_is_weighed_first_and_the_tallies_come_back_in_order():
    """A search reading the learned value weighs the learned pick first (the base of the
    paired gains) and the others in their order; its sums go back to the candidates' order."""
    for m in range(1, 7):
        for first in range(m):
            order = [candidate_at(rank, first) for rank in range(m)]
            assert order[0] == first and sorted(order) == list(range(m))
            assert order[1:] == [c for c in range(m) if c != first]
            by_rank = np.array(order, np.float64)  # each rank's tally: its candidate's index
            to_candidate_order(by_rank, first)
            assert by_rank.tolist() == list(range(m))
