"""Every variant of a sweep against the base rules, with a multiple-comparison correction.

Game k of every variant has the same seed (common random numbers), so each variant is compared
with the base game by game, as :func:`simulator.analysis.core.paired_difference` does.  This module
lists the comparisons a designer reads first — win rate by seat and by policy, mean score by
seat, game length — adds a two-sided p-value to each paired mean difference and Holm's
correction over the whole table: ``significant`` differences survive it at 5%.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from simulator.analysis.core import as_list, has, pair_stats, paired_rows
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

    Columns: variant, metric, group, n, n_games, base_mean, variant_mean, mean_diff, se,
    diff_lo, diff_hi, p_value, p_holm, significant; intervals and p-values clustered by game.  Empty
    when the dataset has one variant.  Each table is read once: the base rows are joined with
    every other variant's at once and each comparison is one group-by (a sweep of a thousand
    variants summarises in seconds)."""
    ds = dataset if isinstance(dataset, Dataset) else Dataset(dataset)
    names = [v["name"] for v in ds.variants]
    base = base or names[0]
    order = {name: i for i, name in enumerate(v for v in names if v != base)}
    if not order:
        return pl.DataFrame()
    frames = {"players": ds.players, "games": ds.games}
    queries, shown = [], []
    for table, frame in frames.items():
        wanted = [c for c in COMPARISONS if c[1] == table and has(frame, c[2], *as_list(c[3]))]
        if not wanted or not has(frame, "variant", "game_id"):
            continue
        values = list(dict.fromkeys(c[2] for c in wanted))
        joined = paired_rows(frame, base, values, [b for c in wanted for b in as_list(c[3])])
        for metric, _, value, by in wanted:
            queries.append(pair_stats(joined, value, as_list(by)))
            shown.append((len(shown), metric, by))
    if not queries:
        return pl.DataFrame()
    rows = []
    for (index, metric, by), result in zip(shown, pl.collect_all(queries)):
        group = (pl.format(f"{by}={{}}", pl.col(by)) if by else pl.lit("all")).alias("group")
        rows.append(
            result.with_columns(
                pl.col("variant").replace_strict(order, return_dtype=pl.Int64).alias("order")
            ).select(
                "order",
                pl.lit(index).alias("comparison"),
                "variant",
                pl.lit(metric).alias("metric"),
                group,
                "n",
                "n_games",
                "base_mean",
                "variant_mean",
                "mean_diff",
                "se",
                "diff_lo",
                "diff_hi",
            )
        )
    table = (
        pl.concat(rows, how="vertical_relaxed")
        .sort("order", "comparison", maintain_order=True)
        .drop("order", "comparison")
    )
    p_value = change_p_values(
        table["mean_diff"].to_numpy(), table["se"].to_numpy(), table["n_games"].to_numpy()
    )
    return table.with_columns(
        p_value=pl.Series(p_value), p_holm=pl.Series(holm(p_value))
    ).with_columns(significant=pl.col("p_holm") < 0.05)


def change_p_values(diff, se, n_games) -> np.ndarray:
    """Two-sided p-values of paired changes from their game-clustered standard errors.

    With no spread at all (se 0) every game moved by the same amount: the normal z would be
    infinite however few the games, so such a change is weighed by a sign test instead, every
    one of ``n_games`` games agreeing (p = 2^(1 - n)): two games prove nothing, twenty do."""
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, np.abs(diff) / se, 0.0)
    all_agree = np.minimum(1.0, 2.0 ** (1.0 - np.asarray(n_games, dtype=np.float64)))
    return np.where(se > 0, two_sided_p(z), np.where(diff == 0, 1.0, all_agree))


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
