"""What moves the win rate with the rest held fixed: logistic regression and stratified rates.

A raw win rate mixes a component with whatever comes with it: Karnaxis policies pick their
characters, so a character's raw rate is partly its pickers' strength.  Two answers separate
them (DESIGN.md "Analysis and reports"; STYLE.md "Experiments"):

* :func:`attribution`: a logistic regression (statsmodels ``Logit``) of ``won`` on seat,
  policy, the left neighbour's policy and the game's components found in ``players``
  (:data:`FACTORS`, :data:`COUNTS`, Ekonos' ``company{c}_president``).  Factors use deviation
  coding, so each level's odds ratio compares it with the average level of its factor (the
  average character, the average seat); a count's odds ratio is per unit.  Standard errors are
  clustered by game (players of one game, teammates above all, share an outcome), intervals
  are 95%, and p-values are Holm-corrected over the table.
* :func:`stratified_rates`: each level's win rate within each policy, averaged with the
  weights of the whole field (direct standardisation), beside the raw rate, and the excess of
  its players over players of the same policies without it.  ``confounded`` marks a level
  whose raw rate lies outside the adjusted interval and vice versa.

A level that never wins (or always wins) has no finite odds ratio: its rows are left out of
the fit (as the maximum-likelihood limit would) and the table says so.  A factor that the
others determine (Karmaggän's side, on the starting team or not, is the seat's parity; with fixed
seats the policy fixes the seat) is left out as ``aliased``.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import polars as pl

from simulator.analysis.core import columns, has, lazy
from simulator.core.stats import Z95, holm, two_sided_p, wilson

FACTORS = ("policy", "character", "side", "seat", "left_policy")  # fitted in this order
COUNTS = ("jobs_held", "businesses", "franchises", "karnaxis_cards_bought", "objects_played")
PRESIDENT = re.compile(r"company(\d+)_president$")
MAX_ROWS = 400_000  # larger datasets are fitted on their first games (seeds are hashed)
ALIASED = "aliased with the terms before it"


def components(players) -> tuple[list[str], list[str]]:
    """(factors, numeric terms) of ``players`` that the regression uses."""
    cols = columns(players)
    factors = [f for f in FACTORS if f in cols]
    numeric = [c for c in COUNTS if c in cols] + [c for c in cols if PRESIDENT.match(c)]
    return factors, numeric


def model_frame(players, variant: str | None = None) -> pl.DataFrame | None:
    """The rows the regression reads: one per player, the first ``MAX_ROWS`` in game order."""
    if not has(players, "won", "game_id"):
        return None
    lf = lazy(players)
    if variant is not None and has(lf, "variant"):
        lf = lf.filter(pl.col("variant").cast(pl.String) == variant)
    factors, numeric = components(lf)
    df = lf.select("game_id", "won", *factors, *numeric).sort("game_id", maintain_order=True)
    df = df.head(MAX_ROWS).collect()
    return df.with_columns(pl.col(f).cast(pl.String) for f in factors)


def attribution(players, variant: str | None = None) -> pl.DataFrame | None:
    """Odds ratios of winning for every level of every factor and per unit of every count.

    Columns: component, level, n, wins, win_rate, odds_ratio, or_lo, or_hi, p_value, p_holm,
    significant, note.  ``variant`` restricts to one variant of a sweep.  None without data.
    """
    from statsmodels.discrete.discrete_model import Logit

    df = model_frame(players, variant)
    if df is None or df.height == 0:
        return None
    factors, numeric = components(df)
    separated = separated_levels(df, factors)
    fit_df = df
    for f, level in separated:
        fit_df = fit_df.filter(pl.col(f) != level)
    blocks, labels = [np.ones((fit_df.height, 1))], [("intercept", None)]
    for term in factors + numeric:
        block, levels_of = design_block(fit_df, term, term in factors)
        if block is not None:
            blocks.append(block)
            labels += [(term, label) for label in levels_of]
    X = np.hstack(blocks)
    keep, aliased = independent_terms(X.T @ X, [t for t, _ in labels])
    X, names = X[:, keep], [labels[i] for i in keep]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # near-separation warnings: the intervals show it
        fit = Logit(fit_df["won"].cast(pl.Float64).to_numpy(), X).fit(
            method="newton",
            maxiter=100,
            disp=False,
            cov_type="cluster",
            cov_kwds={"groups": fit_df["game_id"].to_numpy()},
        )
    coef, cov = np.asarray(fit.params), np.asarray(fit.cov_params())
    rows = []
    for term in factors + numeric:
        index = [i for i, (t, _) in enumerate(names) if t == term]
        if term in aliased:
            rows.append(table_row(df, term, None, None, ALIASED))
        elif term in numeric:
            if index:
                rows.append(table_row(df, term, None, (coef[index[0]], cov[index[0], index[0]])))
        else:
            fitted = [names[i][1] for i in index]
            fit_levels = levels(fit_df, term)
            for level in levels(df, term):
                if (term, level) in separated:
                    rows.append(table_row(df, term, level, None, separated[(term, level)]))
                    continue
                # deviation coding: a fitted level's own column; the last is minus their sum
                w = np.zeros(len(coef))
                if level in fitted:
                    w[index[fitted.index(level)]] = 1.0
                elif index and level == fit_levels[-1]:
                    w[index] = -1.0
                else:  # nothing to compare it with once separated levels are left out
                    continue
                rows.append(table_row(df, term, level, (w @ coef, w @ cov @ w)))
    if not rows:
        return None
    out = pl.DataFrame(
        rows,
        orient="row",
        schema={
            "component": pl.String,
            "level": pl.String,
            "n": pl.Int64,
            "wins": pl.Int64,
            "win_rate": pl.Float64,
            "odds_ratio": pl.Float64,
            "or_lo": pl.Float64,
            "or_hi": pl.Float64,
            "p_value": pl.Float64,
            "note": pl.String,
        },
    )
    p = out["p_value"].to_numpy()
    adjusted = np.full(len(p), np.nan)
    finite = np.isfinite(p)
    adjusted[finite] = holm(p[finite])
    return (
        out.with_columns(p_holm=pl.Series(adjusted))
        .with_columns(significant=pl.col("p_holm").fill_nan(1.0) < 0.05)
        .select(
            "component",
            "level",
            "n",
            "wins",
            "win_rate",
            "odds_ratio",
            "or_lo",
            "or_hi",
            "p_value",
            "p_holm",
            "significant",
            "note",
        )
    )


def independent_terms(gram: np.ndarray, terms: list[str]) -> tuple[list[int], set[str]]:
    """Columns of the terms that add to the rank of those before them (from the design's
    Gram matrix X'X), and the terms left out because earlier ones determine them."""
    keep, aliased = [], set()
    for term in dict.fromkeys(terms):
        columns = [i for i, t in enumerate(terms) if t == term]
        trial = keep + columns
        if np.linalg.matrix_rank(gram[np.ix_(trial, trial)]) < len(trial):
            aliased.add(term)
        else:
            keep = trial
    return keep, aliased


def separated_levels(df: pl.DataFrame, factors: list[str]) -> dict[tuple[str, str], str]:
    """Factor levels whose players never (or always) win: no finite odds ratio."""
    out = {}
    for f in factors:
        counts = df.group_by(f).agg(n=pl.len(), wins=pl.col("won").cast(pl.Int64).sum())
        for r in counts.iter_rows(named=True):
            if r["wins"] == 0:
                out[(f, r[f])] = "never wins"
            elif r["wins"] == r["n"]:
                out[(f, r[f])] = "always wins"
    return out


def levels(df: pl.DataFrame, term: str) -> list[str]:
    """A factor's levels, numbers (seats, teams) in numeric order."""
    values = df[term].drop_nulls().unique().to_list()
    return sorted(values, key=lambda v: (0, int(v), "") if v.lstrip("-").isdigit() else (1, 0, v))


def design_block(df: pl.DataFrame, term: str, factor: bool):
    """Deviation-coded columns of a factor (one per level but the last, which is minus their
    sum) or the centred column of a numeric term; (None, None) when the term does not vary."""
    if not factor:
        x = df[term].cast(pl.Float64).to_numpy()
        return (None, None) if x.std() == 0 else ((x - x.mean())[:, None], [None])
    names = levels(df, term)
    if len(names) < 2:
        return None, None
    values = df[term].to_numpy()
    last = (values == names[-1]).astype(float)
    return np.column_stack([(values == lev).astype(float) - last for lev in names[:-1]]), names[:-1]


def table_row(df: pl.DataFrame, term: str, level, estimate, note: str = "") -> list:
    """component, level, n, wins, win_rate, odds ratio and its interval, p, note.

    ``estimate`` is (log odds ratio, its variance), None for a level without a finite one.
    A factor level counts its own players; a numeric term counts every player, and a true/false
    one (presides company c) the players for whom it is true."""
    column = df[term]
    if level is not None:
        subset = df.filter(column == level)
    elif column.dtype == pl.Boolean:
        subset = df.filter(column)
    else:
        subset = df
    n, wins = subset.height, int(subset["won"].sum())
    label = (
        level
        if level is not None
        else (
            "true vs false"
            if column.dtype == pl.Boolean
            else "all"
            if note == ALIASED
            else "per unit"
        )
    )
    if estimate is None:  # no finite odds ratio: 0 or infinite when separated, none if aliased
        odds = np.nan if note == ALIASED else (0.0 if wins == 0 else np.inf)
        lo, hi, p = np.nan, np.nan, np.nan
    else:
        beta, var = float(estimate[0]), float(estimate[1])
        se = np.sqrt(max(var, 0.0))
        odds, lo, hi = np.exp(beta), np.exp(beta - Z95 * se), np.exp(beta + Z95 * se)
        p = float(two_sided_p(beta / se)) if se > 0 else np.nan
    return [
        term,
        label,
        n,
        wins,
        wins / n if n else np.nan,
        float(odds),
        float(lo),
        float(hi),
        float(p),
        note,
    ]


def stratified_rates(
    players, component: str, strata: str = "policy", variant: str | None = None
) -> pl.DataFrame | None:
    """Each level's raw win rate beside its rate within ``strata`` (policy).

    * adjusted_rate: direct standardisation, sum over strata s of w_s x rate(level, s) / W,
      w_s the share of stratum s among all players and W the sum of w_s over the strata in
      which the level occurs: the level's rate were every policy to hold it as often as the
      field plays that policy;
    * expected_rate: what the level's own players' policies win without it, sum over s of
      n(level, s) x rate(others, s) / n(level), and excess = raw_rate - expected_rate: the
      effect among those who hold the level (over the strata that also have other levels).

    Intervals are normal 95% (a cell's variance from (wins + 0.5) / (n + 1), so a cell with
    no win still counts), the raw rate's Wilson.  Columns: component, level, n, wins, raw_rate
    (+ _lo/_hi), adjusted_rate (+ _lo/_hi), expected_rate, excess (+ _lo/_hi), main_stratum
    and main_stratum_share (where the level's players come from), confounded (raw and
    adjusted rates each outside the other's interval).
    """
    lf = lazy(players)
    if variant is not None and has(lf, "variant"):
        lf = lf.filter(pl.col("variant").cast(pl.String) == variant)
    if not has(lf, "won", component, strata) or component == strata:
        return None
    level = pl.col(component).cast(pl.String).alias("level")
    cells = (
        lf.group_by(level, pl.col(strata).cast(pl.String).alias("stratum"))
        .agg(n=pl.len(), wins=pl.col("won").cast(pl.Int64).sum())
        .collect()
    )
    totals = cells.group_by("stratum").agg(N=pl.col("n").sum(), WINS=pl.col("wins").sum())
    totals = totals.with_columns(w=pl.col("N") / pl.col("N").sum())
    smoothed = (pl.col("wins") + 0.5) / (pl.col("n") + 1)
    others_n, others_wins = pl.col("N") - pl.col("n"), pl.col("WINS") - pl.col("wins")
    others_smoothed = (others_wins + 0.5) / (others_n + 1)
    cells = cells.join(totals, on="stratum").with_columns(
        rate=pl.col("wins") / pl.col("n"),
        var=smoothed * (1 - smoothed) / pl.col("n"),
        others_rate=others_wins / others_n,
        others_var=others_smoothed * (1 - others_smoothed) / others_n,
        comparable=others_n > 0,
    )
    comparable_n = pl.col("n").filter(pl.col("comparable"))
    per_level = (
        cells.sort("n", descending=True)
        .group_by("level")
        .agg(
            n=pl.col("n").sum(),
            wins=pl.col("wins").sum(),
            W=pl.col("w").sum(),
            weighted=(pl.col("w") * pl.col("rate")).sum(),
            var=(pl.col("w") ** 2 * pl.col("var")).sum(),
            m=comparable_n.sum(),
            held=pl.col("wins").filter(pl.col("comparable")).sum(),
            expected=(comparable_n * pl.col("others_rate").filter(pl.col("comparable"))).sum(),
            excess_var=(
                comparable_n**2
                * (pl.col("var") + pl.col("others_var")).filter(pl.col("comparable"))
            ).sum(),
            main_stratum=pl.col("stratum").first(),
            main_n=pl.col("n").first(),
        )
    )
    half = Z95 * pl.col("var").sqrt() / pl.col("W")
    excess_half = Z95 * pl.col("excess_var").sqrt() / pl.col("m")
    out = per_level.with_columns(
        raw_rate=pl.col("wins") / pl.col("n"),
        adjusted_rate=pl.col("weighted") / pl.col("W"),
        expected_rate=pl.col("expected") / pl.col("m"),
        excess=(pl.col("held") - pl.col("expected")) / pl.col("m"),
        main_stratum_share=pl.col("main_n") / pl.col("n"),
    )
    lo, hi = wilson(out["wins"].to_numpy(), out["n"].to_numpy())
    out = out.with_columns(
        raw_rate_lo=pl.Series(lo),
        raw_rate_hi=pl.Series(hi),
        adjusted_rate_lo=(pl.col("adjusted_rate") - half).clip(0, 1),
        adjusted_rate_hi=(pl.col("adjusted_rate") + half).clip(0, 1),
        excess_lo=pl.col("excess") - excess_half,
        excess_hi=pl.col("excess") + excess_half,
    )
    outside = (
        (pl.col("raw_rate") < pl.col("adjusted_rate_lo"))
        | (pl.col("raw_rate") > pl.col("adjusted_rate_hi"))
    ) & (
        (pl.col("adjusted_rate") < pl.col("raw_rate_lo"))
        | (pl.col("adjusted_rate") > pl.col("raw_rate_hi"))
    )
    order = levels(out.select(pl.col("level").alias(component)), component)
    return (
        out.with_columns(confounded=outside, component=pl.lit(component))
        .with_columns(pl.col("level").replace_strict(order, list(range(len(order)))).alias("_o"))
        .sort("_o")
        .select(
            "component",
            "level",
            "n",
            "wins",
            "raw_rate",
            "raw_rate_lo",
            "raw_rate_hi",
            "adjusted_rate",
            "adjusted_rate_lo",
            "adjusted_rate_hi",
            "expected_rate",
            "excess",
            "excess_lo",
            "excess_hi",
            "main_stratum",
            "main_stratum_share",
            "confounded",
        )
    )
