"""Statistics on whole columns, from statsmodels and scipy: Wilson intervals, chi-square, Holm.

Thin wrappers fix our conventions once (95% level, NaN where there is no data, polars
expressions for use inside a query); the formulas are the libraries'.  The Gini coefficient
is ours: neither library has one.
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import polars as pl

# scipy, statsmodels and polars are imported where they are used: scipy.stats alone takes
# about a second to import, which every command and every worker process would pay at start
# (a worker that plays a tune's games reads win rates with numpy alone)

Z95 = 1.959963984540054  # two-sided 95% normal quantile: scipy.stats.norm.ppf(0.975)


def wilson(k, n):
    """Wilson score 95% interval for k successes out of n trials: ``(lo, hi)`` arrays.

    Where ``n`` is 0 both bounds are NaN.  5 of 10 gives (0.2366, 0.7634).
    """
    from statsmodels.stats.proportion import proportion_confint

    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    empty = n <= 0
    # exact ends: none of n gives 0, all of n gives 1 (not a rounding error away from them)
    lo, hi = np.where(k <= 0, 0.0, lo), np.where(k >= n, 1.0, hi)
    return np.where(empty, np.nan, lo), np.where(empty, np.nan, hi)


def wilson_exprs(
    k: str | pl.Expr, n: str | pl.Expr, names: tuple[str, str] = ("lo", "hi")
) -> list[pl.Expr]:
    """The Wilson bounds as two polars expressions (for use inside ``with_columns``)."""
    import polars as pl

    k = pl.col(k) if isinstance(k, str) else k
    n = pl.col(n) if isinstance(n, str) else n
    both = pl.struct(k.cast(pl.Float64).alias("k"), n.cast(pl.Float64).alias("n"))

    def bound(which: int):
        def compute(s: pl.Series) -> pl.Series:
            return pl.Series(
                wilson(s.struct.field("k").to_numpy(), s.struct.field("n").to_numpy())[which]
            )

        return both.map_batches(compute, return_dtype=pl.Float64)

    return [bound(0).alias(names[0]), bound(1).alias(names[1])]


def chi2_sf(x: float, dof: int) -> float:
    """P(X >= x) for a chi-square variable with ``dof`` degrees of freedom."""
    from scipy import stats as scipy_stats

    return float(scipy_stats.chi2.sf(x, dof)) if dof >= 1 else float("nan")


def chi_square_uniform(counts) -> tuple[float, int, float]:
    """Goodness of fit of ``counts`` to equal shares: ``(statistic, dof, p_value)``."""
    from scipy import stats as scipy_stats

    counts = np.asarray(counts, dtype=np.float64)
    if len(counts) < 2 or counts.sum() <= 0:
        return float("nan"), max(len(counts) - 1, 0), float("nan")
    result = scipy_stats.chisquare(counts)
    return float(result.statistic), len(counts) - 1, float(result.pvalue)


def chi_square_independence(table) -> tuple[float, int, float]:
    """Test of independence of a contingency table (rows x columns of counts):
    ``(statistic, dof, p_value)``; rows or columns without counts are dropped first."""
    from scipy import stats as scipy_stats

    table = np.asarray(table, dtype=np.float64)
    table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    if min(table.shape) < 2:
        return float("nan"), 0, float("nan")
    result = scipy_stats.chi2_contingency(table, correction=False)
    return float(result.statistic), int(result.dof), float(result.pvalue)


def two_sided_p(z) -> np.ndarray:
    """Two-sided normal p-value of z statistics (exact down to 1e-308, not rounded to 0)."""
    from scipy import stats as scipy_stats

    return 2.0 * scipy_stats.norm.sf(np.abs(np.asarray(z, dtype=np.float64)))


def holm(p_values) -> np.ndarray:
    """Holm–Bonferroni adjusted p-values (monotone, capped at 1)."""
    from statsmodels.stats.multitest import multipletests

    p = np.asarray(p_values, dtype=np.float64)
    if len(p) == 0:
        return p
    # statsmodels' Holm ends with a full garbage collection: with a report's frames and
    # charts alive that took 0.1 s a call (5 s of the report's 72 s on one process).  The
    # collector skips frozen objects, so it only looks at what was made since.
    gc.freeze()
    try:
        return multipletests(p, method="holm")[1]
    finally:
        gc.unfreeze()


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
