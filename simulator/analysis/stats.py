"""Small statistics with known answers: Wilson intervals, chi-square tail, Gini.

Everything here works on whole columns (numpy arrays or polars expressions), never row by row.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson(k, n, z: float = Z95):
    """Wilson score interval for k successes out of n trials: ``(lo, hi)`` arrays.

    Where ``n`` is 0 both bounds are NaN.  5 of 10 gives (0.2366, 0.7634).
    """
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        z2 = z * z
        denom = 1.0 + z2 / n
        centre = (p + z2 / (2.0 * n)) / denom
        half = z / denom * np.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n))
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def wilson_exprs(k: str | pl.Expr, n: str | pl.Expr, z: float = Z95,
                 names: tuple[str, str] = ("lo", "hi")) -> list[pl.Expr]:
    """The Wilson bounds as two polars expressions (for use inside ``with_columns``)."""
    k = pl.col(k) if isinstance(k, str) else k
    n = pl.col(n) if isinstance(n, str) else n
    k, n = k.cast(pl.Float64), n.cast(pl.Float64)
    p = k / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt()
    return [(centre - half).clip(0.0, 1.0).alias(names[0]),
            (centre + half).clip(0.0, 1.0).alias(names[1])]


def chi2_sf(x: float, dof: int) -> float:
    """P(X >= x) for a chi-square variable with an integer number of degrees of freedom.

    Closed forms (Abramowitz & Stegun 26.4.4-5): a finite Poisson sum for even ``dof`` and the
    normal tail plus a finite sum for odd ``dof``, so no special-function library is needed.
    """
    if dof < 1:
        return float("nan")
    if x <= 0:
        return 1.0
    if dof % 2 == 0:
        term, total = 1.0, 1.0
        for i in range(1, dof // 2):
            term *= (x / 2.0) / i
            total += term
        return min(1.0, math.exp(-x / 2.0) * total)
    total = math.erfc(math.sqrt(x / 2.0))
    if dof > 1:
        term = math.sqrt(2.0 * x / math.pi) * math.exp(-x / 2.0)
        total += term
        for i in range(2, (dof - 1) // 2 + 1):
            term *= x / (2 * i - 1)
            total += term
    return min(1.0, total)


def chi_square_uniform(counts) -> tuple[float, int, float]:
    """Goodness of fit of ``counts`` to equal shares: ``(statistic, dof, p_value)``."""
    counts = np.asarray(counts, dtype=np.float64)
    total, k = counts.sum(), len(counts)
    if k < 2 or total <= 0:
        return float("nan"), max(k - 1, 0), float("nan")
    expected = total / k
    stat = float(((counts - expected) ** 2 / expected).sum())
    return stat, k - 1, chi2_sf(stat, k - 1)


def gini(values) -> float:
    """Gini coefficient of non-negative values (0 = equal, (n-1)/n = one holds everything).

    [0, 0, 0, 1] gives 0.75 and [1, 2, 3, 4] gives 0.25.
    """
    x = np.sort(np.asarray(values, dtype=np.float64))
    n, total = len(x), x.sum()
    if n == 0 or total <= 0:
        return float("nan")
    i = np.arange(1, n + 1)
    return float(2.0 * (i * x).sum() / (n * total) - (n + 1.0) / n)
