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
    find_rule,
    has,
    lazy,
    trajectory,
    value_counts,
    with_player_columns,
)
from simulator.core.stats import Z95

# Rulebook "Tax Brackets" (Know Your Player Board), in dollars; used when a dataset's rules
# do not carry the tables under recognisable keys.
STANDARD_TAX_USD = (5_000, 15_000, 30_000, 60_000, 90_000, 120_000, 150_000, 180_000)
SMART_TAX_USD = (0, 5_000, 10_000, 30_000, 50_000, 70_000, 90_000, 110_000)
ACCOUNTANT_USD = 10_000  # Hire Accountant: $10,000 per year
LOAN_CAP_USD = 200_000  # Loan Odds 'n Ends: never more than $200,000 in loans
BRACKET_MAX_USD = (25_000, 50_000, 100_000, 150_000, 200_000, 250_000, 300_000)  # Tax Brackets
PEAK_LOANS = ("peak_loans_usd", "peak_loans_outstanding_usd")  # accepted names of that column
RANK_TITLES = (
    (2_000_000, "Elite"),
    (1_500_000, "Expert"),
    (1_000_000, "Novice"),
    (500_000, "Amateur"),
)  # Game End rank chart; below $500,000: "Unranked"


def _usd(values) -> list[float]:
    """Tables printed in thousands (all entries < 1,000) become dollars."""
    values = [float(v) for v in values]
    return [v * 1000 for v in values] if values and max(values) < 1000 else values


def tax_table_keys(rules: dict) -> tuple[str, str] | None:
    """Dotted keys of the (standard, smart) tax tables in ``rules``, or None when not found.

    The smart table is the list under a key containing "smart"; the standard one is a list of
    the same length in the same section (a key with "standard", else "tax").
    """
    smart = find_rule(rules, "smart", kind=list)
    if smart is None or not all(isinstance(v, (int, float)) for v in smart[1]):
        return None
    section = smart[0].rsplit(".", 1)[0]
    for words in (("standard",), ("tax",), ()):
        for key, value in _lists(rules):
            low = key.lower()
            if (
                key != smart[0]
                and key.startswith(section + ".")
                and all(w in low for w in words)
                and len(value) == len(smart[1])
                and all(isinstance(v, (int, float)) for v in value)
                and "bracket" not in low.rsplit(".", 1)[-1]
                and "income" not in low
            ):
                return key, smart[0]
    return None


def _lists(rules: dict, path: str = ""):
    for k, v in rules.items():
        key = f"{path}.{k}" if path else str(k)
        if isinstance(v, dict):
            yield from _lists(v, key)
        elif isinstance(v, list):
            yield key, v


def rule_value(rules: dict, key: str):
    node = rules
    for part in key.split("."):
        node = node[part]
    return node


def tax_tables(rules: dict) -> tuple[list[float], list[float]]:
    """(standard, smart) tax per bracket in dollars: from the rules when :func:`tax_table_keys`
    finds them (tables printed in thousands are converted), else the rulebook's."""
    keys = tax_table_keys(rules)
    if keys is None:
        return list(map(float, STANDARD_TAX_USD)), list(map(float, SMART_TAX_USD))
    return _usd(rule_value(rules, keys[0])), _usd(rule_value(rules, keys[1]))


def bracket_labels(rules: dict) -> list[str]:
    """Income range of each tax bracket, e.g. ["$0–25k", "$25–50k", ..., "over $300k"], from
    the rules' ``bracket_max`` list (else the rulebook's)."""
    found = find_rule(rules, "bracket", "max", kind=list)
    bounds = _usd(found[1]) if found else [float(b) for b in BRACKET_MAX_USD]

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
    """The loan cap in dollars from the rules (a key with "loan" and "cap"/"max"), else $200,000."""
    for words in (("loan", "cap"), ("loan", "max")):
        found = find_rule(rules, *words, kind=(int, float))
        if found:
            return float(found[1]) * (1000 if found[1] < 1000 else 1)
    return float(LOAN_CAP_USD)


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


def smart_tax_savings(
    years, standard=STANDARD_TAX_USD, smart=SMART_TAX_USD, accountant_usd: float = ACCOUNTANT_USD
) -> pl.DataFrame | None:
    """What the smart table saves, per variant and bracket.

    saving_usd = standard - smart tax of the bracket (before job discounts); smart_years are
    the player-years taxed on the smart table; realised_usd = smart_years x saving_usd;
    net_of_accountant_usd = saving_usd - the accountant's yearly cost.
    """
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
            (pl.col("saving_usd") - accountant_usd).alias("net_of_accountant_usd"),
        )
        .sort([*by, "tax_bracket"])
        .collect()
    )


def loan_summary(players, by="policy", cap_usd: float = LOAN_CAP_USD) -> pl.DataFrame | None:
    """Loans per group: who borrows, how much, how often the cap binds, delinquency, interest.

    Rates carry game-clustered 95% intervals (:mod:`simulator.analysis.clustered`): borrowed
    (loans_taken_usd > 0), cap_binding (peak_loans_usd or peak_loans_outstanding_usd >=
    cap_usd), delinquent (delinquent_notices > 0).  Pieces whose column is missing are left
    out; None when none is present.
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
    peak = next((c for c in PEAK_LOANS if has(lf, c)), None)
    if peak:
        aggs += [
            (pl.col(peak) >= cap_usd).cast(pl.Int64).sum().alias("at_cap"),
            pl.col(peak).mean().alias("mean_peak_loans_usd"),
        ]
        successes["cap_binding"] = pl.col(peak) >= cap_usd
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
    """Count and share of each rank title per group (Game End chart).  Uses ``rank_title``,
    else derives it from the final cash in ``score``."""
    lf = lazy(players)
    if not has(lf, "rank_title"):
        if not has(lf, "score"):
            return None
        title = pl.lit("Unranked")
        for threshold, name in reversed(RANK_TITLES):
            title = pl.when(pl.col("score") >= threshold).then(pl.lit(name)).otherwise(title)
        lf = lf.with_columns(title.alias("rank_title"))
    return value_counts(lf, "rank_title", [b for b in as_list(by) if has(lf, b)])


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
    ones of its base rules, ``base_players``): keys ``karnaxis_*``."""
    years = ds.timeline("years")
    standard, smart = tax_tables(ds.rules)
    out = {
        "karnaxis_taxes": taxes_by_policy(base_players),
        "karnaxis_loans": loan_summary(base_players, "policy", loan_cap(ds.rules)),
        "karnaxis_rank_titles": rank_titles(base_players, "policy"),
    }
    if years is not None:

        def brackets(df):
            return label_brackets(df, ds.rules)

        out.update(
            {
                "karnaxis_tax_by_bracket": brackets(tax_by_bracket(years)),
                "karnaxis_tax_by_year": tax_by_year(years),
                "karnaxis_bracket_shares": brackets(bracket_shares(years, players, "policy")),
                "karnaxis_smart_savings": brackets(smart_tax_savings(years, standard, smart)),
                "karnaxis_cash_by_year": cash_trajectories(years, players, "policy"),
            }
        )
    return out


def flag_values(rules: dict, raw: dict, won: np.ndarray) -> dict[str, np.ndarray]:
    """The loan flags' values of a chunk of games (:mod:`simulator.experiments.flag_values`):
    ``cap_binding`` and ``delinquent``, bool[n, p]."""
    players, out = raw["players"], {}
    peak = next((c for c in PEAK_LOANS if c in players), None)
    if peak:
        out["cap_binding"] = np.asarray(players[peak]) >= loan_cap(rules)
    if "delinquent_notices" in players:
        out["delinquent"] = np.asarray(players["delinquent_notices"]) > 0
    return out
