"""The search player's game-independent helpers (policies/search.py)."""

import numpy as np

from policies.search import (
    best_mean,
    clear_gain,
    margin_to_best_other,
    outcome_value,
    redeal,
    reseed_chance,
    rollout_seed,
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


def test_best_mean_ignores_unvisited_candidates_and_keeps_the_earlier_on_a_tie():
    sums, counts = np.array([3.0, 4.0, 9.0]), np.array([3, 4, 0])
    assert best_mean(sums, counts, 3) == 0
    assert best_mean(np.array([1.0, 3.0]), np.array([2, 2]), 2) == 1


def test_clear_gain_keeps_the_own_choice_unless_another_beats_it_clearly():
    """Candidate 0 is the rollout policy's choice; the others carry paired differences."""
    counts = np.array([4.0, 4.0, 4.0])
    # candidate 1 gains 0.25 on average but spreads over -1..1: not one standard error
    noisy = (np.array([0.0, 1.0, 0.0]), np.array([0.0, 2.5, 0.0]))
    assert clear_gain(*noisy, counts, 3, 1.0) == 0
    # the same mean gain every time is clear; with two clear ones, the larger mean wins
    steady = (np.array([0.0, 1.0, 2.0]), np.array([0.0, 0.25, 1.0]))
    assert clear_gain(*steady, counts, 3, 1.0) == 2
    assert clear_gain(np.array([0.0, -2.0]), np.array([0.0, 1.0]), counts, 2, 0.0) == 0
    assert clear_gain(*steady, np.array([4.0, 4.0, 1.0]), 3, 1.0) == 1  # 2: one pair only


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
