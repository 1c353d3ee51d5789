"""How often the search player's decision rule overrides its rollout policy's choice: on
candidates of equal value (the rule's error, at most policies.search.LEVEL) and on a rival
that is better (its power), from simulated decisions with known answers.

    python bench/search_override.py [OUT.csv] [--decisions N]

Each decision plays ``rounds`` rounds of ``candidates`` candidates as the search driver does
(policies/search_driver.py: paired gains tallied round by round, the rounds left skipped once
``settled``, then ``paired_choice`` with a uniform number of its own).  A candidate's value in
a round is shaped like the games' (policies.search.outcome_value): a win (1), a shared win
(1/2) or a loss, plus a tenth of a clipped margin, or the win alone (values tied whenever two
candidates both win or both lose); candidates share their round's future in part (common
random numbers).  Written for each scenario: the decisions, the override rate with its Monte
Carlo standard error and Wilson 95% interval, the level, and the rate of the paired one-sided
t test at the same corrected level (the rule before; scipy.stats.ttest_rel), which ties made
pass equal candidates above its level.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import numpy as np
from scipy import stats

from policies.search import (
    LEVEL,
    MARGIN_WEIGHT,
    PAIRED_ROWS,
    PAIRED_WIDTH,
    paired_choice,
    paired_scale,
    settled,
    tally,
)

OUT = Path(__file__).resolve().parent / "results" / "search-override.csv"
BASE_CHANCE = 0.3  # every candidate's chance to win a round, but the better rival's
SHARED_FUTURE = 0.6  # the chance that a candidate's round is decided by the round's future
SHARED_WIN = 0.1  # the chance that a win is shared with one other seat (worth 1/2)
# (outcomes, rounds, candidates, the last candidate's extra chance to win): the defaults'
# rounds (Karnaxis 2, Ekonos 8, Karmaggän 12), a larger budget, more candidates, and power
SCENARIOS = [
    *((o, r, 2, 0.0) for o in ("wins", "wins and margins") for r in (2, 8, 12, 32)),
    ("wins", 8, 4, 0.0),
    ("wins and margins", 8, 4, 0.0),
    ("wins and margins", 2, 2, 0.3),
    ("wins and margins", 8, 2, 0.2),
    ("wins and margins", 12, 2, 0.2),
    ("wins and margins", 12, 4, 0.2),
]
FIELDS = [
    "outcomes",
    "rounds",
    "candidates",
    "rival_gain",
    "decisions",
    "override_rate",
    "mc_se",
    "wilson_low",
    "wilson_high",
    "level",
    "t_test_rate",
]


def simulate(outcomes: str, rounds: int, m: int, gain: float, n: int, seed: int) -> np.ndarray:
    """``values[decision, round, candidate]`` of ``n`` simulated decisions."""
    rng = np.random.default_rng(seed)
    chance = np.full(m, BASE_CHANCE)
    chance[-1] += gain
    shape = (n, rounds, m)
    shared = rng.random((n, rounds, 1))
    luck = np.where(rng.random(shape) < SHARED_FUTURE, shared, rng.random(shape))
    win = (luck < chance).astype(float)
    values = np.where(rng.random(shape) < SHARED_WIN, win / 2, win)
    if outcomes == "wins and margins":
        margin = np.clip(rng.normal(0.0, 0.5, shape) + 0.5 * (luck < chance), -1.0, 1.0)
        values = values + MARGIN_WEIGHT * margin
    return values


def decide(values: np.ndarray, u: float, paired: np.ndarray) -> int:
    """The candidate the search plays on ``values[round, candidate]``: its driver's loop."""
    rounds, m = values.shape
    scale = paired_scale(rounds)
    sums, counts = np.zeros(m), np.zeros(m)
    played = 0
    for r in range(rounds):
        if settled(paired, m, played, rounds, scale, u):
            break
        base = 0.0
        for c in range(m):
            base = tally(sums, counts, paired, c, r, values[r, c], base)
        played += 1
    return paired_choice(paired, m, played, scale, u)


def t_test_overrides(values: np.ndarray) -> np.ndarray:
    """Whether the paired one-sided t test at LEVEL over the rivals overrode each decision."""
    m = values.shape[2]
    gains = values[:, :, 1:] - values[:, :, :1]
    p = stats.ttest_rel(values[:, :, 1:], values[:, :, :1], axis=1, alternative="greater").pvalue
    passes = np.nan_to_num(p, nan=1.0) < LEVEL / (m - 1)
    return passes.any(axis=1) & (gains.mean(axis=1).max(axis=1) > 0)


def measure(outcomes: str, rounds: int, m: int, gain: float, n: int, seed: int) -> dict:
    values = simulate(outcomes, rounds, m, gain, n, seed)
    u = np.random.default_rng(seed + 1).random(n)
    paired = np.zeros((PAIRED_ROWS, PAIRED_WIDTH))
    choices = np.array([decide(values[d], u[d], paired) for d in range(n)])
    hits = int((choices != 0).sum() if gain == 0 else (choices == m - 1).sum())
    rate = hits / n
    low, high = wilson(hits, n)
    return {
        "outcomes": outcomes,
        "rounds": rounds,
        "candidates": m,
        "rival_gain": gain,
        "decisions": n,
        "override_rate": rate,
        "mc_se": np.sqrt(rate * (1 - rate) / n),
        "wilson_low": low,
        "wilson_high": high,
        "level": LEVEL,
        "t_test_rate": float(t_test_overrides(values).mean()),
    }


def wilson(hits: int, n: int) -> tuple[float, float]:
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(hits, n, alpha=0.05, method="wilson")
    return float(low), float(high)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, default=OUT)
    parser.add_argument("--decisions", type=int, default=20_000)
    args = parser.parse_args(argv)
    rows = [
        measure(*scenario, args.decisions, seed=101 + k) for k, scenario in enumerate(SCENARIOS)
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    for r in rows:
        what = "override" if r["rival_gain"] == 0 else "finds the better rival"
        print(
            f"{r['outcomes']:>16}, {r['rounds']:2} rounds, {r['candidates']} candidates, "
            f"gain {r['rival_gain']:.1f}: {what} {r['override_rate']:.2%} "
            f"± {r['mc_se']:.2%} (t test {r['t_test_rate']:.2%})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
