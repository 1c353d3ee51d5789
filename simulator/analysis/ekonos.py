"""Ekonos analyses: where scores come from (cash vs holdings), company values, presidencies.

Columns used: players ``cash``, ``holdings_value``, ``company{c}_shares``,
``company{c}_president``; games ``company{c}_value``.
"""

from __future__ import annotations

import re

import polars as pl

from simulator.analysis.core import as_list, columns, game_keys, has, lazy, rate_columns


def companies(frame, suffix: str) -> list[int]:
    """Company indices c for which ``company{c}_{suffix}`` is a column of ``frame``."""
    pattern = re.compile(rf"company(\d+)_{suffix}$")
    return sorted(int(m.group(1)) for c in columns(frame) if (m := pattern.match(c)))


def score_split(players, by="policy") -> pl.DataFrame | None:
    """Per group: mean score, cash and holdings value, the share of the score held in shares,
    and the win rate."""
    if not has(players, "cash", "holdings_value"):
        return None
    lf, by = lazy(players), [b for b in as_list(by) if has(players, b)]
    aggs = [pl.len().alias("n"), pl.col("cash").cast(pl.Float64).mean().alias("mean_cash"),
            pl.col("holdings_value").cast(pl.Float64).mean().alias("mean_holdings")]
    if has(lf, "score"):
        aggs.append(pl.col("score").mean().alias("mean_score"))
    if has(lf, "won"):
        aggs.append(pl.col("won").cast(pl.Float64).mean().alias("win_rate"))
    out = lf.group_by(by).agg(aggs).sort(by) if by else lf.select(aggs)
    total = pl.col("mean_cash") + pl.col("mean_holdings")
    return out.with_columns((pl.col("mean_holdings") / total).alias("holdings_share")).collect()


def company_values(games, names=None) -> pl.DataFrame | None:
    """Final value of each company (mean, quartiles, max) and how often it is the most valuable
    (ties counted for each tied company)."""
    idx = companies(games, "value")
    if not idx:
        return None
    lf = lazy(games)
    cols = [f"company{c}_value" for c in idx]
    top = pl.max_horizontal(cols)
    aggs = []
    for c, col in zip(idx, cols):
        v = pl.col(col).cast(pl.Float64)
        aggs += [v.mean().alias(f"{c}|mean"), v.quantile(0.25, "linear").alias(f"{c}|q25"),
                 v.median().alias(f"{c}|median"), v.quantile(0.75, "linear").alias(f"{c}|q75"),
                 v.max().alias(f"{c}|max"), (pl.col(col) == top).cast(pl.Float64).mean().alias(f"{c}|top_share")]
    row = lf.select(aggs).collect().row(0, named=True)
    names = list(names or [])
    out = [{"company": c, "name": names[c] if c < len(names) else f"company{c}",
            **{k.split("|")[1]: row[k] for k in row if k.split("|")[0] == str(c)}} for c in idx]
    return pl.DataFrame(out)


def top_company(games) -> pl.LazyFrame | None:
    """Per game, the index of the most valuable company (lowest index on ties) and its value."""
    idx = companies(games, "value")
    if not idx:
        return None
    cols = [f"company{c}_value" for c in idx]
    lf = lazy(games)
    top = pl.max_horizontal(cols)
    first_top = pl.coalesce([pl.when(pl.col(col) == top).then(pl.lit(c, dtype=pl.Int32))
                             for c, col in zip(idx, cols)])
    return lf.select([*game_keys(lf), first_top.alias("top_company"), top.alias("top_value")])


def presidency_advantage(games, players) -> pl.DataFrame | None:
    """Does the president of the most valuable company win?

    One row per kind of player: ``top_president`` (presides the most valuable company),
    ``other`` (every other player); with n, wins, win_rate (+ Wilson interval) and the
    fair_share of an average player.
    """
    idx = companies(players, "president")
    top = top_company(games)
    if top is None or not idx or not has(players, "won"):
        return None
    keys = [k for k in game_keys(players) if has(games, k)]
    presides_top = pl.any_horizontal([(pl.col("top_company") == c) & pl.col(f"company{c}_president")
                                      for c in idx])
    lf = (lazy(players).join(top, on=keys)
          .with_columns(presides_top.alias("top_president")))
    fair = pl.col("wins").sum() / pl.col("n").sum()
    return (lf.group_by("top_president")
            .agg(pl.len().alias("n"), pl.col("won").cast(pl.Int64).sum().alias("wins"))
            .with_columns(*rate_columns("wins", "n", "win_rate"), fair.alias("fair_share"))
            .with_columns(pl.when(pl.col("top_president")).then(pl.lit("top_president"))
                          .otherwise(pl.lit("other")).alias("player"))
            .select("player", "n", "wins", "win_rate", "win_rate_lo", "win_rate_hi", "fair_share")
            .sort("player", descending=True).collect())


def presidencies_held(players) -> pl.DataFrame | None:
    """Win rate by the number of presidencies a player holds at the end."""
    idx = companies(players, "president")
    if not idx or not has(players, "won"):
        return None
    count = pl.sum_horizontal([pl.col(f"company{c}_president").cast(pl.Int32) for c in idx])
    return (lazy(players).with_columns(count.alias("presidencies"))
            .group_by("presidencies").agg(pl.len().alias("n"),
                                          pl.col("won").cast(pl.Int64).sum().alias("wins"))
            .with_columns(*rate_columns("wins", "n", "win_rate")).sort("presidencies").collect())
