"""Paired comparisons of sweep variants against the base rules.

Game k of every variant has the same seed (common random numbers), so each variant is compared
with the base game by game: the difference of a metric is averaged over the paired games, with
a normal 95% interval from the paired differences' spread, a two-sided p-value, and Holm's
correction over all the comparisons of the table (``significant`` survives it at 5%).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl

from simulator.stats import Z95

BASE = "base"


def _paired(joined: pl.LazyFrame, by: list[str], metric: str, value: str) -> pl.LazyFrame:
    diff = pl.col(value).cast(pl.Float64) - pl.col(f"{value}_base").cast(pl.Float64)
    return (joined.group_by(["variant", *by])
            .agg(pl.len().alias("n"),
                 pl.col(f"{value}_base").cast(pl.Float64).mean().alias("base_mean"),
                 pl.col(value).cast(pl.Float64).mean().alias("variant_mean"),
                 diff.mean().alias("diff"), diff.std().alias("sd"))
            .with_columns(pl.lit(metric).alias("metric"),
                          (pl.concat_str([pl.lit(f"{by[0]}="), pl.col(by[0]).cast(pl.String)])
                           if by else pl.lit("all")).alias("group"))
            .drop(by))


def paired_differences(dataset: str | Path, base: str = BASE) -> pl.DataFrame:
    """Each variant minus ``base`` per metric: win rate by seat and by policy, mean score by
    seat, mean game length.  Columns: variant, metric, group, n, base_mean, variant_mean, diff,
    ci_low, ci_high, p_value, p_holm, significant."""
    dataset = Path(dataset)
    players = pl.scan_parquet(dataset / "players" / "*.parquet").select(
        "variant", "game_id", "seat", "policy", "won", "score")
    games = pl.scan_parquet(dataset / "games" / "*.parquet").select("variant", "game_id", "length")

    def against_base(frame, keys):
        reference = frame.filter(pl.col("variant") == base).drop("variant")
        reference = reference.rename({c: f"{c}_base" for c in reference.collect_schema().names()
                                      if c not in keys})
        return frame.filter(pl.col("variant") != base).join(reference, on=keys)

    p = against_base(players, ["game_id", "seat"])
    g = against_base(games, ["game_id"])
    parts = [_paired(p, ["seat"], "win_rate", "won"), _paired(p, ["policy"], "win_rate", "won"),
             _paired(p, ["seat"], "mean_score", "score"), _paired(g, [], "mean_length", "length")]
    table = pl.concat([part.collect() for part in parts], how="diagonal_relaxed")
    if table.is_empty():
        return table
    se = (table["sd"].fill_null(0.0) / np.sqrt(table["n"].to_numpy())).to_numpy()
    diff = table["diff"].to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, np.abs(diff) / se, np.where(diff == 0, 0.0, np.inf))
    p_value = np.array([math.erfc(v / math.sqrt(2)) for v in z])
    return (table.with_columns(ci_low=pl.Series(diff - Z95 * se), ci_high=pl.Series(diff + Z95 * se),
                               p_value=pl.Series(p_value), p_holm=pl.Series(holm(p_value)))
            .with_columns(significant=pl.col("p_holm") < 0.05)
            .select("variant", "metric", "group", "n", "base_mean", "variant_mean", "diff",
                    "ci_low", "ci_high", "p_value", "p_holm", "significant")
            .sort("variant", "metric", "group"))


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm–Bonferroni adjusted p-values (monotone, capped at 1)."""
    p = np.asarray(p_values, dtype=np.float64)
    order = np.argsort(p)
    m = len(p)
    adjusted = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted
