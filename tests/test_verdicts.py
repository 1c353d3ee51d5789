"""Verdicts on data with known answers: effect, no effect within a margin, inconclusive."""

import numpy as np
import pytest
from statsmodels.stats.weightstats import ztost

from simulator.core.verdicts import (
    EFFECT,
    INCONCLUSIVE,
    NO_EFFECT,
    agree,
    alpha_per_look,
    judge,
    judge_mean,
    looks,
)

MARGIN = 0.02
RNG_SEED = 20261201  # any seed: the calibration checks below hold for all but rare ones


def points(x: float) -> str:
    return f"{100 * x:+.1f} points"


def test_a_clear_effect_a_clear_equivalence_and_too_few_games():
    assert judge(0.05, 0.01, MARGIN).kind == EFFECT
    assert judge(0.002, 0.004, MARGIN).kind == NO_EFFECT
    unclear = judge(0.01, 0.02, MARGIN)
    assert unclear.kind == INCONCLUSIVE
    # (1.96 + 0.84) standard errors: what 80% power at 5% detects
    assert unclear.detectable == pytest.approx(2.8016 * 0.02, rel=1e-3)
    assert "could detect about ±5.6 points" in unclear.describe(points)


def test_an_effect_inside_the_margin_is_no_effect_of_practical_size():
    v = judge(0.005, 0.001, MARGIN)
    assert v.low > 0 and v.kind == NO_EFFECT
    assert v.describe(points).startswith("no effect beyond ±2.0 points (+0.5 points, 90% CI")


def test_the_reference_is_what_the_estimate_is_compared_with():
    assert judge(0.27, 0.002, MARGIN, reference=0.25).kind == EFFECT
    assert judge(0.251, 0.002, MARGIN, reference=0.25).kind == NO_EFFECT


def test_no_finite_standard_error_is_inconclusive():
    assert judge(0.1, float("nan"), MARGIN).kind == INCONCLUSIVE
    assert judge(0.1, 0.0, MARGIN).kind == INCONCLUSIVE
    assert judge_mean([0.3], MARGIN).kind == INCONCLUSIVE


def test_the_tost_p_value_is_statsmodels_on_the_same_sample():
    rng = np.random.default_rng(RNG_SEED)
    x = rng.normal(0.004, 0.05, 4000)
    v = judge_mean(x, MARGIN)
    p, _, _ = ztost(x, -MARGIN, MARGIN)
    assert v.tost_p == pytest.approx(p, rel=1e-6)


def replicate(effect: float, n: int, reps: int = 2000, alpha: float = 0.05):
    """The share of each verdict over ``reps`` samples of n games, the true effect known."""
    rng = np.random.default_rng(RNG_SEED)
    sd = 0.5
    means = rng.normal(effect, sd / np.sqrt(n), reps)
    kinds = [judge(m, sd / np.sqrt(n), MARGIN, alpha=alpha).kind for m in means]
    return {k: kinds.count(k) / reps for k in (EFFECT, NO_EFFECT, INCONCLUSIVE)}


def test_without_an_effect_an_effect_is_found_at_most_alpha_of_the_time():
    assert replicate(0.0, 400)[EFFECT] <= 0.05 + 0.015  # Monte Carlo error of 2,000 reps


def test_at_the_margin_no_effect_is_claimed_at_most_alpha_of_the_time():
    # the TOST's size: a true effect exactly at the margin passes with probability <= alpha
    assert replicate(MARGIN, 20_000)[NO_EFFECT] <= 0.05 + 0.015


def test_a_small_sample_is_inconclusive_not_balanced():
    # 1,500 games with a per-game sd of 0.5 (se 1.3 points): an equivalence within 2 points
    # cannot be shown, so neither a true +3 nor a +1 gap is ever called "no effect"; the +1
    # gap is mostly not seen at all
    assert replicate(0.03, 1500)[NO_EFFECT] == 0
    small = replicate(0.01, 1500)
    assert small[NO_EFFECT] == 0 and small[INCONCLUSIVE] > 0.8


def test_enough_games_decide_both_ways():
    assert replicate(0.0, 40_000)[NO_EFFECT] > 0.9
    assert replicate(0.05, 40_000)[EFFECT] > 0.99


def test_sequential_looks_with_bonferroni_keep_the_overall_error():
    # five looks at the same growing sample, the true effect 0: any look finding an effect
    # is an error; at alpha / 5 a look, the overall rate stays at or below alpha
    rng = np.random.default_rng(RNG_SEED)
    sizes = looks(250, 4000)
    assert sizes == [250, 500, 1000, 2000, 4000]
    level = alpha_per_look(len(sizes))
    errors = 0
    for _ in range(1000):
        x = rng.normal(0.0, 0.5, sizes[-1])
        errors += any(judge_mean(x[:n], MARGIN, alpha=level).kind == EFFECT for n in sizes)
    assert errors / 1000 <= 0.05 + 0.02


def test_verdicts_agree_only_when_each_decides_the_same_way():
    plus, minus = judge(0.05, 0.01, MARGIN), judge(-0.05, 0.01, MARGIN)
    none, unclear = judge(0.0, 0.002, MARGIN), judge(0.01, 0.02, MARGIN)
    assert agree([plus, plus]) and agree([none, none])
    assert not agree([plus, minus]) and not agree([plus, none]) and not agree([plus, unclear])
