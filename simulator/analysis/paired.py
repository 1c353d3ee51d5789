"""Every variant of a sweep against the base rules, with a multiple-comparison correction.

Game k of every variant has the same seed (common random numbers), so each variant is compared
with the base game by game (:func:`simulator.analysis.core.paired_difference`).  This module
lists the comparisons a designer reads first — win rate by seat and by policy, mean score by
seat, game length — adds a two-sided p-value to each paired mean difference and Holm's
correction over the whole table: ``significant`` differences survive it at 5%.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from simulator.analysis.core import paired_difference
from simulator.analysis.dataset import Dataset
from simulator.core.stats import holm, two_sided_p

COMPARISONS = (  # (metric, table, value column, group column)
    ("win_rate", "players", "won", "seat"),
    ("win_rate", "players", "won", "policy"),
    ("mean_score", "players", "score", "seat"),
    ("mean_score", "players", "score", "policy"),
    ("mean_length", "games", "length", None),
)


def paired_differences(dataset, base: str | None = None) -> pl.DataFrame:
    """Each variant minus ``base`` (default: the first variant) per comparison.

    Columns: variant, metric, group, n, base_mean, variant_mean, mean_diff, diff_lo, diff_hi,
    p_value, p_holm, significant.  Empty when the dataset has one variant."""
    ds = dataset if isinstance(dataset, Dataset) else Dataset(dataset)
    names = [v["name"] for v in ds.variants]
    base = base or names[0]
    tables = {"players": ds.players, "games": ds.games}
    rows = []
    for variant in (v for v in names if v != base):
        for metric, table, value, by in COMPARISONS:
            result = paired_difference(tables[table], value, base, variant, by)
            if result is None:
                continue
            group = (pl.format(f"{by}={{}}", pl.col(by)) if by else pl.lit("all")).alias("group")
            rows.append(
                result.select(
                    pl.lit(variant).alias("variant"),
                    pl.lit(metric).alias("metric"),
                    group,
                    pl.exclude(by) if by else pl.all(),
                )
            )
    if not rows:
        return pl.DataFrame()
    table = pl.concat(rows, how="vertical_relaxed")
    se = (table["sd"] / np.sqrt(table["n"].to_numpy())).to_numpy()
    diff = table["mean_diff"].to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, np.abs(diff) / se, np.where(diff == 0, 0.0, np.inf))
    p_value = two_sided_p(z)
    return (
        table.drop("sd")
        .with_columns(p_value=pl.Series(p_value), p_holm=pl.Series(holm(p_value)))
        .with_columns(significant=pl.col("p_holm") < 0.05)
    )


def summary_lines(table: pl.DataFrame, limit: int = 8) -> list[str]:
    """The significant changes of a paired table, largest first, one readable line each."""
    if table.is_empty():
        return []
    changed = table.filter("significant").sort(
        pl.col("mean_diff").abs() / pl.col("base_mean").abs().clip(lower_bound=1e-9),
        descending=True,
    )
    lines = [
        f"{changed.height} of {table.height} paired differences survive Holm's correction"
        + (":" if changed.height else ".")
    ]
    for r in changed.head(limit).iter_rows(named=True):
        lines.append(
            f"  {r['variant']}: {r['metric']} {r['group']} {r['base_mean']:.4g} -> "
            f"{r['variant_mean']:.4g} (95% CI of change {r['diff_lo']:.3g} .. "
            f"{r['diff_hi']:.3g})"
        )
    return lines
