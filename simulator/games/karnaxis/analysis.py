"""Karnaxis analyses: taxes and brackets, the smart table, loans, ranks, cash over the years.

Inputs are the ``players`` table and the ``years`` timeline (one row per game x year x seat:
game_id, variant, year, seat, cash_usd, income_usd, tax_bracket, tax_paid_usd, smart_tax,
loans_outstanding_usd, delinquent_notices).  Each function returns None when its columns are
absent, so a dataset without them simply skips that analysis.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from simulator.analysis.clustered import with_rates
from simulator.analysis.core import (
    as_list,
    describe,
    has,
    lazy,
    trajectory,
    value_counts,
    with_player_columns,
)
from simulator.core.rules import lookup
from simulator.core.stats import Z95

# The rules keys the analyses read, from the dataset's effective rules (every manifest holds
# them): each variant's own values, whatever a designer set
STANDARD_TAX = "taxes.standard_usd"  # tax per bracket, in dollars
SMART_TAX = "taxes.smart_usd"  # the same with an accountant
BRACKET_MAX = "taxes.bracket_max_usd"  # each bracket's highest yearly income
LOAN_CAP = "loans.cap_usd"
ACCOUNTANT = "actions.accountant_usd"  # Hire Accountant, per year
PEAK_LOANS = "peak_loans_outstanding_usd"  # the players column of a player's largest loans


def tax_tables(rules: dict) -> tuple[list[float], list[float]]:
    """(standard, smart) tax per bracket in dollars."""
    return [float(v) for v in lookup(rules, STANDARD_TAX)], [
        float(v) for v in lookup(rules, SMART_TAX)
    ]


def bracket_labels(rules: dict) -> list[str]:
    """Income range of each tax bracket, e.g. ["$0–25k", "$25–50k", ..., "over $300k"]."""
    bounds = [float(b) for b in lookup(rules, BRACKET_MAX)]
    lows = [0.0, *bounds]
    return [f"${lo / 1000:g}–{hi / 1000:g}k" for lo, hi in zip(lows, bounds)] + [
        f"over ${bounds[-1] / 1000:g}k"
    ]


def label_brackets(df: pl.DataFrame | None, rules: dict) -> pl.DataFrame | None:
    """``df`` with an ``income`` column (the bracket's income range) after ``tax_bracket``."""
    if df is None or "tax_bracket" not in df.columns:
        return df
    labels = bracket_labels(rules)
    income = (
        pl.col("tax_bracket")
        .cast(pl.Int64)
        .replace_strict(list(range(len(labels))), labels, default=None, return_dtype=pl.String)
    )
    out = df.with_columns(income.alias("income"))
    at = out.columns.index("tax_bracket") + 1
    return out.select(
        [*out.columns[:at], "income", *[c for c in out.columns[at:] if c != "income"]]
    )


def loan_cap(rules: dict) -> float:
    """The loan cap in dollars."""
    return float(lookup(rules, LOAN_CAP))


def accountant_usd(rules: dict) -> float:
    """What an accountant costs a year, in dollars."""
    return float(lookup(rules, ACCOUNTANT))


def with_policy(years, players, by) -> pl.LazyFrame:
    """The timeline with the players' ``by`` columns (e.g. policy) joined on game and seat."""
    return with_player_columns(
        years, players, [b for b in as_list(by) if b not in ("variant", "year")]
    )


def tax_by_bracket(years) -> pl.DataFrame | None:
    """Per variant and bracket: player-years, their share (with a 95% interval over games:
    the years of one game are not independent), income and tax paid (mean, total), and the
    share of those years taxed on the smart table."""
    if not has(years, "tax_bracket", "tax_paid_usd"):
        return None
    lf = lazy(years)
    by = ["variant"] if has(lf, "variant") else []
    aggs = [
        pl.len().alias("player_years"),
        pl.col("tax_paid_usd").mean().alias("mean_tax_usd"),
        pl.col("tax_paid_usd").sum().alias("total_tax_usd"),
    ]
    if has(lf, "income_usd"):
        aggs.append(pl.col("income_usd").mean().alias("mean_income_usd"))
    if has(lf, "smart_tax"):
        aggs.append(pl.col("smart_tax").cast(pl.Float64).mean().alias("smart_share"))
    share = (
        pl.col("player_years") / pl.col("player_years").sum().over(by)
        if by
        else pl.col("player_years") / pl.col("player_years").sum()
    )
    tax_share = (
        pl.col("total_tax_usd") / pl.col("total_tax_usd").sum().over(by)
        if by
        else pl.col("total_tax_usd") / pl.col("total_tax_usd").sum()
    )
    out = (
        lf.group_by([*by, "tax_bracket"])
        .agg(aggs)
        .with_columns(share.alias("share"), tax_share.alias("share_of_tax"))
    )
    if has(lf, "game_id"):
        out = out.join(share_interval_by_game(lf, by, "tax_bracket"), on=[*by, "tax_bracket"])
    return out.sort([*by, "tax_bracket"]).collect()


def share_interval_by_game(lf: pl.LazyFrame, by: list[str], value: str) -> pl.LazyFrame:
    """95% interval (``share_lo``/``share_hi``) of the share of rows holding each ``value``,
    from its per-game shares (a game without that value counts 0): games are independent,
    rows of one game are not.  ``by`` splits the rows (e.g. by variant)."""
    keys = by or [pl.lit(0).alias("_all")]
    lf = lf.with_columns(*([] if by else keys))
    by = by or ["_all"]
    totals = lf.group_by([*by, "game_id"]).agg(t=pl.len())
    games = totals.group_by(by).agg(g=pl.len().cast(pl.Float64))
    share = pl.col("k") / pl.col("t")
    stats = (
        lf.group_by([*by, "game_id", value])
        .agg(k=pl.len())
        .join(totals, on=[*by, "game_id"])
        .group_by([*by, value])
        .agg(s=share.sum(), s2=(share**2).sum())
        .join(games, on=by)
    )
    mean = pl.col("s") / pl.col("g")
    var = (pl.col("s2") / pl.col("g") - mean**2) * pl.col("g") / (pl.col("g") - 1)
    half = Z95 * (var.clip(lower_bound=0) / pl.col("g")).sqrt()
    out = stats.select(
        *by,
        value,
        (mean - half).clip(0, 1).alias("share_lo"),
        (mean + half).clip(0, 1).alias("share_hi"),
    )
    return out.drop("_all") if by == ["_all"] else out


def tax_by_year(years) -> pl.DataFrame | None:
    """Per variant and year: mean income, mean and median tax paid, mean bracket, smart share."""
    if not has(years, "year", "tax_paid_usd"):
        return None
    lf = lazy(years)
    by = (["variant"] if has(lf, "variant") else []) + ["year"]
    aggs = [
        pl.len().alias("player_years"),
        pl.col("tax_paid_usd").mean().alias("mean_tax_usd"),
        pl.col("tax_paid_usd").median().alias("median_tax_usd"),
    ]
    for col, name in (("income_usd", "mean_income_usd"), ("tax_bracket", "mean_bracket")):
        if has(lf, col):
            aggs.append(pl.col(col).cast(pl.Float64).mean().alias(name))
    if has(lf, "smart_tax"):
        aggs.append(pl.col("smart_tax").cast(pl.Float64).mean().alias("smart_share"))
    return lf.group_by(by).agg(aggs).sort(by).collect()


def bracket_shares(years, players=None, by="policy") -> pl.DataFrame | None:
    """Share of player-years in each tax bracket per variant and ``by`` (needs ``players``
    for columns the timeline lacks, e.g. policy or character)."""
    if not has(years, "tax_bracket"):
        return None
    groups = [b for b in as_list(by) if has(years, b) or has(players, b)]
    lf = with_policy(years, players, groups) if groups else lazy(years)
    keys = (["variant"] if has(lf, "variant") else []) + groups
    return value_counts(lf, "tax_bracket", keys)


def smart_tax_savings(years, rules: dict) -> pl.DataFrame | None:
    """What the smart table saves, per variant and bracket, under ``rules``' tax tables and
    accountant's price.

    saving_usd = standard - smart tax of the bracket (before job discounts); smart_years are
    the player-years taxed on the smart table; realised_usd = smart_years x saving_usd;
    net_of_accountant_usd = saving_usd - the accountant's yearly cost.
    """
    standard, smart = tax_tables(rules)
    accountant = accountant_usd(rules)
    if not has(years, "tax_bracket", "smart_tax"):
        return None
    lf = lazy(years)
    by = ["variant"] if has(lf, "variant") else []
    table = pl.LazyFrame(
        {
            "tax_bracket": list(range(len(standard))),
            "standard_usd": [float(v) for v in standard],
            "smart_usd": [float(v) for v in smart],
        }
    )
    counted = lf.group_by([*by, "tax_bracket"]).agg(
        pl.len().alias("player_years"),
        pl.col("smart_tax").cast(pl.Int64).sum().alias("smart_years"),
    )
    return (
        counted.with_columns(pl.col("tax_bracket").cast(pl.Int64))
        .join(table, on="tax_bracket", how="left")
        .with_columns((pl.col("standard_usd") - pl.col("smart_usd")).alias("saving_usd"))
        .with_columns(
            (pl.col("smart_years") * pl.col("saving_usd")).alias("realised_usd"),
            (pl.col("saving_usd") - accountant).alias("net_of_accountant_usd"),
        )
        .sort([*by, "tax_bracket"])
        .collect()
    )


def loan_summary(players, by, cap_usd: float) -> pl.DataFrame | None:
    """Loans per group: who borrows, how much, how often the cap binds, delinquency, interest.

    Rates carry game-clustered 95% intervals (:mod:`simulator.analysis.clustered`): borrowed
    (loans_taken_usd > 0), cap_binding (peak_loans_outstanding_usd >= ``cap_usd``, the rules'
    :func:`loan_cap`), delinquent (delinquent_notices > 0).  Pieces whose column is missing
    are left out; None when none is present.
    """
    by = [b for b in as_list(by) if has(players, b)]
    lf = lazy(players)
    aggs, successes = [pl.len().alias("n")], {}
    if has(lf, "loans_taken_usd"):
        aggs += [
            (pl.col("loans_taken_usd") > 0).cast(pl.Int64).sum().alias("borrowers"),
            pl.col("loans_taken_usd").mean().alias("mean_loans_taken_usd"),
        ]
        successes["borrowed"] = pl.col("loans_taken_usd") > 0
    if has(lf, PEAK_LOANS):
        peak = pl.col(PEAK_LOANS)
        aggs += [
            (peak >= cap_usd).cast(pl.Int64).sum().alias("at_cap"),
            peak.mean().alias("mean_peak_loans_usd"),
        ]
        successes["cap_binding"] = peak >= cap_usd
    if has(lf, "delinquent_notices"):
        aggs += [
            (pl.col("delinquent_notices") > 0).cast(pl.Int64).sum().alias("delinquents"),
            pl.col("delinquent_notices").mean().alias("mean_notices"),
        ]
        successes["delinquent"] = pl.col("delinquent_notices") > 0
    if has(lf, "interest_paid_usd"):
        aggs.append(pl.col("interest_paid_usd").mean().alias("mean_interest_usd"))
    if len(aggs) == 1:
        return None
    out = (lf.group_by(by).agg(aggs).sort(by) if by else lf.select(aggs)).collect()
    return with_rates(out, lf, by, successes)


def rank_titles(players, by="policy") -> pl.DataFrame | None:
    """Count and share of each rank title per group (Game End chart: the engine's
    ``rank_title``)."""
    if not has(players, "rank_title"):
        return None
    return value_counts(players, "rank_title", [b for b in as_list(by) if has(players, b)])


def cash_trajectories(
    years, players=None, by="policy", value: str = "cash_usd"
) -> pl.DataFrame | None:
    """Median and quartiles of ``value`` by year, per variant and ``by`` (e.g. policy)."""
    if not has(years, "year", value):
        return None
    return trajectory(years, players, by, "year", value)


def taxes_by_policy(players, by="policy") -> pl.DataFrame | None:
    """Distribution of the total taxes a player pays over a game, per group."""
    return describe(players, "taxes_paid_usd", [b for b in as_list(by) if has(players, b)])


def summarise(ds, players, games, base_players, base_games) -> dict:
    """The Karnaxis analyses of a dataset for :func:`simulator.analysis.summarise` (the per-policy
    ones of its base rules, ``base_players``): keys ``karnaxis_*``.  The tables by tax bracket
    read each variant's own rules (brackets, tax tables, the accountant's price)."""
    years = ds.timeline("years")
    out = {
        "karnaxis_taxes": taxes_by_policy(base_players),
        "karnaxis_loans": loan_summary(base_players, "policy", loan_cap(ds.rules)),
        "karnaxis_rank_titles": rank_titles(base_players, "policy"),
    }
    if years is not None:

        def by_variant(analyse) -> pl.DataFrame | None:
            """``analyse(years, rules)`` of each variant's years under its rules, its tax
            brackets labelled, stacked."""
            parts = [
                label_brackets(
                    analyse(years.filter(pl.col("variant") == v["name"]), v["rules"]), v["rules"]
                )
                for v in ds.variants
            ]
            parts = [p for p in parts if p is not None and p.height]
            return pl.concat(parts, how="diagonal_relaxed") if parts else None

        out.update(
            {
                "karnaxis_tax_by_bracket": by_variant(lambda rows, _: tax_by_bracket(rows)),
                "karnaxis_tax_by_year": tax_by_year(years),
                "karnaxis_bracket_shares": by_variant(
                    lambda rows, _: bracket_shares(rows, players, "policy")
                ),
                "karnaxis_smart_savings": by_variant(smart_tax_savings),
                "karnaxis_cash_by_year": cash_trajectories(years, players, "policy"),
            }
        )
    return out


def flag_values(rules: dict, raw: dict, won: np.ndarray) -> dict[str, np.ndarray]:
    """The loan flags' values of a chunk of games (:mod:`simulator.experiments.flag_values`):
    ``cap_binding`` and ``delinquent``, bool[n, p]."""
    players, out = raw["players"], {}
    if PEAK_LOANS in players:
        out["cap_binding"] = np.asarray(players[PEAK_LOANS]) >= loan_cap(rules)
    if "delinquent_notices" in players:
        out["delinquent"] = np.asarray(players["delinquent_notices"]) > 0
    return out
