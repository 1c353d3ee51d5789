"""Neighbour effects: does a policy win more or less depending on who plays just before it?

Balanced seating (:mod:`simulator.core.seating`) seats every policy after every other equally
often, and the runner records ``left_policy``: the policy of the seat that plays just before
(seat s - 1, wrapping round).  In Ekonos the player after a cash hoarder collects the sales the
hoarder never makes; a fixed or rotated seating would hide that inside a policy's win rate.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from simulator.analysis.core import has, rate_columns, with_n_players
from simulator.core.stats import Z95, chi_square_independence, holm, two_sided_p


def neighbour_effects(players) -> pl.DataFrame | None:
    """Win rate of each policy after each left neighbour, and a test per policy.

    Columns: n_players, policy, left_policy, n, wins, win_rate (+ Wilson _lo/_hi),
    policy_rate (the policy's rate after any neighbour), excess (win_rate - policy_rate),
    p_value (chi-square: are the policy's wins independent of its left neighbour?), p_holm
    (Holm over the policies tested) and significant.  A policy that cannot be tested (one
    left neighbour only, or no win at all) keeps its rows with p_value null.  None without
    ``left_policy`` or when no policy can be tested.
    """
    if not has(players, "policy", "left_policy", "won"):
        return None
    cells = (
        with_n_players(players)
        .group_by("n_players", "policy", "left_policy")
        .agg(n=pl.len(), wins=pl.col("won").cast(pl.Int64).sum())
        .with_columns(pl.col("policy").cast(pl.String), pl.col("left_policy").cast(pl.String))
        .sort("n_players", "policy", "left_policy")
        .collect()
    )
    tests = []
    for (n_players, policy), part in cells.group_by("n_players", "policy", maintain_order=True):
        wins, n = part["wins"].to_numpy(), part["n"].to_numpy()
        _, _, p = chi_square_independence(np.column_stack([wins, n - wins]))
        tests.append({"n_players": n_players, "policy": policy, "p_value": p})
    tests = pl.DataFrame(tests).filter(pl.col("p_value").is_not_nan())
    if tests.is_empty():
        return None
    tests = tests.with_columns(p_holm=pl.Series(holm(tests["p_value"].to_numpy())))
    policy_rate = (pl.col("wins").sum() / pl.col("n").sum()).over("n_players", "policy")
    return (
        cells.join(tests, on=["n_players", "policy"], how="left")
        .with_columns(*rate_columns("wins", "n", "win_rate"), policy_rate.alias("policy_rate"))
        .with_columns(
            (pl.col("win_rate") - pl.col("policy_rate")).alias("excess"),
            (pl.col("p_holm") < 0.05).fill_null(False).alias("significant"),
        )
        .select(
            "n_players",
            "policy",
            "left_policy",
            "n",
            "wins",
            "win_rate",
            "win_rate_lo",
            "win_rate_hi",
            "policy_rate",
            "excess",
            "p_value",
            "p_holm",
            "significant",
        )
    )


def neighbour_summary(players) -> pl.DataFrame | None:
    """Per left neighbour: do the players seated after it win more than their own policies do?

    A player never sits after itself, so the players after a strong policy are the others,
    who win less anyway; each is therefore compared with its own policy's rate.  Columns:
    n_players, left_policy, n, win_rate (of the players seated after it), expected_rate (the
    rate their policies have after any neighbour), excess = win_rate - expected_rate with its
    normal 95% interval ``excess_lo``/``excess_hi``, p_value and p_holm (over the table).
    """
    cells = neighbour_effects(players)
    if cells is None:
        return None
    rate = pl.col("wins") / pl.col("n")
    out = (
        cells.group_by("n_players", "left_policy", maintain_order=True)
        .agg(
            wins=pl.col("wins").sum(),
            total=pl.col("n").sum(),
            expected=(pl.col("n") * pl.col("policy_rate")).sum(),
            var=(pl.col("n") * rate * (1 - rate)).sum(),
        )
        .with_columns(
            win_rate=pl.col("wins") / pl.col("total"),
            expected_rate=pl.col("expected") / pl.col("total"),
            se=pl.col("var").sqrt() / pl.col("total"),
        )
        .with_columns(excess=pl.col("win_rate") - pl.col("expected_rate"))
        .sort("n_players", "left_policy")
    )
    z = (out["excess"] / out["se"]).fill_nan(0.0).to_numpy()
    p = two_sided_p(z)
    return (
        out.with_columns(
            excess_lo=pl.col("excess") - Z95 * pl.col("se"),
            excess_hi=pl.col("excess") + Z95 * pl.col("se"),
            p_value=pl.Series(p),
            p_holm=pl.Series(holm(p)),
        )
        .rename({"total": "n"})
        .select(
            "n_players",
            "left_policy",
            "n",
            "win_rate",
            "expected_rate",
            "excess",
            "excess_lo",
            "excess_hi",
            "p_value",
            "p_holm",
        )
    )
