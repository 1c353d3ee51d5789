"""The search player's game-independent helpers (policies/search.py)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from policies.search import (
    CRITICAL,
    LEVEL,
    MAX_CANDIDATES,
    margin_to_best_other,
    outcome_value,
    paired_choice,
    redeal,
    reseed_chance,
    rollout_seed,
    settled,
    tally,
    top_k,
    win_share,
)
from simulator.core.rng import DICE, N_STREAMS, POLICY, SEARCH, SETUP, rng_new


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


def paired_sums(values):
    """The sums paired_choice reads from ``values[round, candidate]``: each rival's paired
    differences over candidate 0 and their squares, and the pairs counted."""
    gains = values - values[:, :1]
    counts = np.full(values.shape[1], float(values.shape[0]))
    return gains.sum(axis=0), (gains**2).sum(axis=0), counts


def test_paired_choice_is_ttest_rel_at_the_corrected_level():
    """A rival overrides exactly when scipy's paired one-sided t test rejects at LEVEL over
    the number of rivals (Bonferroni): on data drawn with and without real gains."""
    rng = np.random.default_rng(3)
    decided = 0
    for _ in range(300):
        rounds, m = rng.integers(2, 40), rng.integers(2, 6)
        values = rng.normal(0.0, 1.0, (rounds, m)) + rng.normal(0.0, 0.4, m)
        gains, squares, counts = paired_sums(values)
        rivals = m - 1
        tests = [
            stats.ttest_rel(values[:, c], values[:, 0], alternative="greater") for c in range(1, m)
        ]
        significant = [c + 1 for c, t in enumerate(tests) if t.pvalue < LEVEL / rivals]
        expected = max(significant, key=lambda c: gains[c]) if significant else 0
        assert paired_choice(gains, squares, counts, m) == expected
        decided += expected != 0
    assert 0 < decided < 300  # both outcomes were exercised


def override_rate(gain, n_decisions=4000, rounds=16, m=4, seed=5):
    """How often paired_choice leaves candidate 0, on simulated rollouts shaped like the
    games' values (a win share of 0 or 1 plus a tenth of a margin); the last candidate's win
    chance is ``gain`` above the others' (0.3)."""
    rng = np.random.default_rng(seed)
    chance = np.full(m, 0.3)
    chance[-1] += gain
    overrides = found = 0
    for _ in range(n_decisions):
        # common random numbers: half of each candidate's luck is its round's future
        shared, own = rng.random((rounds, 1)), rng.random((rounds, m))
        luck = np.where(rng.random((rounds, m)) < 0.5, shared, own)
        wins = (luck < chance).astype(float)
        values = wins + 0.1 * np.clip(rng.normal(0.0, 0.5, (rounds, m)), -1, 1)
        choice = paired_choice(*paired_sums(values), m)
        overrides += choice != 0
        found += choice == m - 1
    return overrides / n_decisions, found / n_decisions


def test_on_candidates_of_equal_value_a_rival_overrides_at_most_at_the_level():
    """The known answer: no candidate is better, so an override is an error; the rule makes
    it in at most LEVEL of the decisions (plus three standard errors of the estimate)."""
    rate, _ = override_rate(0.0)
    assert rate <= LEVEL + 3 * np.sqrt(LEVEL * (1 - LEVEL) / 4000)


def test_a_clearly_better_candidate_is_found():
    """The known answer: the last candidate wins 50 points more often on the same futures."""
    _, found = override_rate(0.5, n_decisions=400, rounds=32)
    assert found >= 0.9


def test_paired_choice_edge_cases():
    counts = np.array([4.0, 4.0, 4.0])
    # the same gain in every round: no spread, a clear win; the larger mean of two such wins
    steady = (np.array([0.0, 1.0, 2.0]), np.array([0.0, 0.25, 1.0]))
    assert paired_choice(*steady, counts, 3) == 2
    assert paired_choice(*steady, np.array([4.0, 4.0, 1.0]), 3) == 1  # 2: one pair only
    assert paired_choice(np.array([0.0, -2.0]), np.array([0.0, 1.0]), counts, 2) == 0
    assert paired_choice(np.zeros(3), np.zeros(3), counts, 3) == 0  # all ties


VALUES = st.floats(-1.1, 1.1)  # outcome_value's range


@settings(deadline=None)  # the first example compiles the kernels
@given(st.lists(st.tuples(VALUES, VALUES), min_size=2, max_size=4))
def test_a_settled_second_round_never_changes_the_choice(rounds):
    """Two rounds of every candidate's values: whenever the first leaves the search settled,
    the choice after both is candidate 0's, whatever the second gave; a rival that gained in
    the first is never settled.  ``rounds[c]``: candidate c's value in each round."""
    m = len(rounds)
    sums, counts, gains, squares = (np.zeros(m) for _ in range(4))
    for r in range(2):
        base = 0.0
        for c in range(m):
            base = tally(sums, counts, gains, squares, c, rounds[c][r], base)
        if r == 0:
            first = settled(gains, m, 1, 2)
            assert first == all(g <= 0 for g in gains[1:])
            assert not settled(gains, m, 1, 3) and not settled(gains, m, 0, 2)
    if first:
        assert paired_choice(gains, squares, counts, m) == 0


def test_a_rival_that_gained_in_the_first_round_can_still_be_chosen():
    gains, squares, counts = np.array([0.0, 0.5]), np.array([0.0, 0.125]), np.ones(2)
    assert not settled(gains, 2, 1, 2)
    both = (gains * 2, squares * 2, counts * 2)  # the same gain again: no spread, a clear win
    assert paired_choice(*both, 2) == 1


def test_tally_pairs_each_rival_with_candidate_0_of_its_round():
    sums, counts, gains, squares = (np.zeros(3) for _ in range(4))
    base = 0.0
    for round_values in ([0.5, 1.0, 0.0], [1.0, 1.0, 0.5]):
        for c, value in enumerate(round_values):
            base = tally(sums, counts, gains, squares, c, value, base)
    assert list(sums) == [1.5, 2.0, 0.5] and list(counts) == [2.0, 2.0, 2.0]
    assert list(gains) == [0.0, 0.5, -1.0] and list(squares) == [0.0, 0.25, 0.5]


def test_the_critical_values_are_the_t_quantiles_of_the_corrected_level():
    assert CRITICAL[1, 15] == pytest.approx(stats.t.ppf(1 - LEVEL, 15))
    assert CRITICAL[3, 7] == pytest.approx(stats.t.ppf(1 - LEVEL / 3, 7))
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
