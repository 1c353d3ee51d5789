"""Small statistics shared by the runner (sequential stopping) and the analysis."""

from __future__ import annotations

import numpy as np

Z95 = 1.959963984540054


def wilson_interval(successes, trials, z: float = Z95):
    """Wilson score interval (lower, upper) for a binomial proportion; arrays broadcast."""
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return np.where(n > 0, centre - half, 0.0), np.where(n > 0, centre + half, 1.0)
