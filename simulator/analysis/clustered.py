"""The game as the unit: rates over players who share games (DESIGN.md "Verdicts").

Players of one game are not independent draws: teammates share one outcome, and in a
free-for-all one player's win is the others' loss.  A rate over player-games (wins divided by
player-games) is a ratio of two sums over games, so its uncertainty comes from the games.
Game g adds k_g successes out of n_g rows; the ratio r = K / N moves with game g by its
*influence* (k_g - r n_g) / N, and

    var(r) = sum over games of influence^2

is the cluster-robust ("sandwich") variance, the one statsmodels' GLM gives with
``cov_type="cluster"`` and the games as groups (without its small-sample correction; the
tests check they agree).  With one row per game it is the binomial variance r (1 - r) / N;
teammates who always win together make it twice as large at two players a team.  A mean of
differences takes G / (G - 1) times the same sum, which with one row per game is the usual
standard error of a mean (sample sd over sqrt(G)).

A rate's interval is Wilson's on the *effective* number of player-games, r (1 - r) / var(r),
so it stays inside [0, 1] and equals Wilson's on player-games when players are independent.
A rate of 0 or 1 has no variance to estimate; it counts its games, not its players (a team
that never wins in G games is G observations, not 2 G).  Differences of rates (an excess, a
paired change) add their influences game by game before squaring, which is what keeps the
negative correlation of rivals in one game.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from simulator.core.stats import wilson

LARGEST_N = 1e15  # effective trials of a rate with no variance (a mirror match's exact 1/2)


def cluster_keys(frame) -> list[str]:
    """The columns naming one game (``variant`` and ``game_id``), empty when the frame has no
    game ids (each row is then its own unit)."""
    names = set(
        frame.collect_schema().names() if isinstance(frame, pl.LazyFrame) else frame.columns
    )
    if "game_id" not in names:
        return []
    return ["variant", "game_id"] if "variant" in names else ["game_id"]


def per_game(lf: pl.LazyFrame, by: list[str], success: pl.Expr) -> pl.LazyFrame:
    """Per group and game: k (rows where ``success`` holds) and n (rows).  Without game ids
    every row is its own game."""
    keys = [k for k in cluster_keys(lf) if k not in by]
    if not cluster_keys(lf):
        lf = lf.with_row_index("_row")
        keys = ["_row"]
    return lf.group_by([*by, *keys]).agg(
        k=success.cast(pl.Float64).sum(), n=pl.len().cast(pl.Float64)
    )


def rates(
    lf: pl.LazyFrame,
    by: list[str],
    success: pl.Expr,
    name: str,
    count: str = "k",
    total: str = "n",
) -> pl.DataFrame:
    """The rate of ``success`` per group with its game-clustered 95% interval.

    Columns: ``by``..., ``total`` (rows), ``count`` (rows where success holds), ``games``
    (games with the group), ``name`` and ``name_lo``/``name_hi``, ``name_se`` and
    ``n_effective`` (the player-games a Wilson interval of independent players would need for
    the same width)."""
    groups = by or ["_all"]
    if not by:
        lf = lf.with_columns(_all=pl.lit(0))
    k, n = pl.col("k"), pl.col("n")
    out = (
        per_game(lf, groups, success)
        .group_by(groups)
        .agg(K=k.sum(), N=n.sum(), G=pl.len(), S=((k - k.sum() / n.sum() * n) ** 2).sum())
        .sort(groups)
        .collect()
    )
    K, N, G, S = (out[c].to_numpy().astype(np.float64) for c in ("K", "N", "G", "S"))
    rate, se, lo, hi, n_eff = rate_interval(K, N, G, S)
    return out.select(
        *by,
        pl.Series(total, N.astype(np.int64)),
        pl.Series(count, K.astype(np.int64)),
        pl.Series("games", G.astype(np.int64)),
        pl.Series(name, rate),
        pl.Series(f"{name}_lo", lo),
        pl.Series(f"{name}_hi", hi),
        pl.Series(f"{name}_se", se),
        pl.Series("n_effective", n_eff),
    )


def with_rates(out: pl.DataFrame, lf: pl.LazyFrame, by: list[str], successes: dict) -> pl.DataFrame:
    """``out`` (one row per group of ``by``) with each rate ``name`` of ``successes`` (name ->
    expression over ``lf``'s rows) and its game-clustered interval ``name_lo``/``name_hi``."""
    for name, success in successes.items():
        found = rates(lf, by, success, name).select(*by, name, f"{name}_lo", f"{name}_hi")
        out = (
            out.join(found, on=by, how="left") if by else pl.concat([out, found], how="horizontal")
        )
    return out


def rate_interval(K, N, G, S):
    """(rate, se, lo, hi, effective n) of ratios K / N from their games' spread ``S`` (the
    sum over games of (k_g - r n_g)^2) over ``G`` games (arrays)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(N > 0, K / N, np.nan)
        var = np.where(G > 1, S / N**2, np.nan)
        extreme = (rate <= 0) | (rate >= 1)
        n_eff = np.where(extreme, G, np.where(var > 0, rate * (1 - rate) / var, LARGEST_N)).astype(
            np.float64
        )
        n_eff = np.where(np.isfinite(var) | extreme, np.minimum(n_eff, LARGEST_N), np.nan)
        lo, hi = wilson(rate * np.nan_to_num(n_eff), np.nan_to_num(n_eff))
        se = np.sqrt(var)
    return rate, se, lo, hi, n_eff
