"""What moves the win rate with the rest held fixed: logistic regression and stratified rates.

A raw win rate mixes a component with whatever comes with it: Karnaxis policies pick their
characters, so a character's raw rate is partly its pickers' strength.  Three answers separate
them (DESIGN.md "Analysis and reports"; STYLE.md "Experiments"):

* :func:`attribution`: a logistic regression (statsmodels ``Logit``) of ``won`` on what comes
  before play: seat, policy, the left neighbour's policy and the game's dealt or chosen
  components (:data:`FACTORS`).  Counts that play produces (jobs held, businesses bought,
  presidencies at the end) are consequences of a character or a policy, not causes beside
  it, so they are left out: holding them fixed would hide what they carry.  Each level's
  effect is an *average marginal effect* in points of win rate: the mean predicted win rate
  were every player to hold that level, the rest of each player as played, minus the field's
  (``effect``, its interval by the delta method); the odds ratio against the average level
  (deviation coding) stands beside it.  Standard errors are clustered by game (players of
  one game, teammates above all, share an outcome), intervals are 95%, and p-values are
  Holm-corrected over the table.
* :func:`stratified_rates`: each level's win rate within each policy, averaged with the
  weights of the whole field (direct standardisation), beside the raw rate, and the excess of
  its players over players of the same policies without it, with game-clustered intervals
  (:mod:`simulator.analysis.clustered`).  ``confounded`` marks a level whose raw rate lies
  outside the adjusted interval and vice versa.
* where cards are dealt at random (Karnaxis characters), the win rate of the players *dealt*
  a card against those not dealt it is a randomised estimate
  (:func:`simulator.analysis.dealt.dealt_characters`).

A level that never wins (or always wins) has no finite odds ratio: its rows are left out of
the fit (as the maximum-likelihood limit would) and the table says so.  A factor that the
others determine (Karmaggän's side, on the starting team or not, is the seat's parity; with fixed
seats the policy fixes the seat) is left out as ``aliased``.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl

from simulator.analysis.clustered import cluster_keys, per_game
from simulator.analysis.clustered import rates as clustered_rates
from simulator.analysis.core import columns, has, lazy
from simulator.core.stats import Z95, holm, two_sided_p

FACTORS = ("policy", "character", "side", "seat", "left_policy")  # fitted in this order
MAX_ROWS = 400_000  # larger datasets are fitted on their first games (seeds are hashed)
ALIASED = "aliased with the terms before it"


def components(players) -> list[str]:
    """The factors of ``players`` that the regression uses, in :data:`FACTORS` order."""
    cols = columns(players)
    return [f for f in FACTORS if f in cols]


def model_frame(players, variant: str | None = None) -> pl.DataFrame | None:
    """The rows the regression reads: one per player, the first ``MAX_ROWS`` in game order."""
    if not has(players, "won", "game_id"):
        return None
    lf = lazy(players)
    if variant is not None and has(lf, "variant"):
        lf = lf.filter(pl.col("variant").cast(pl.String) == variant)
    factors = components(lf)
    df = lf.select("game_id", "won", *factors).sort("game_id", maintain_order=True)
    df = df.head(MAX_ROWS).collect()
    return df.with_columns(pl.col(f).cast(pl.String) for f in factors)


SCHEMA = {
    "component": pl.String,
    "level": pl.String,
    "n": pl.Int64,
    "wins": pl.Int64,
    "win_rate": pl.Float64,
    "effect": pl.Float64,
    "effect_lo": pl.Float64,
    "effect_hi": pl.Float64,
    "odds_ratio": pl.Float64,
    "or_lo": pl.Float64,
    "or_hi": pl.Float64,
    "p_value": pl.Float64,
    "note": pl.String,
}


def attribution(players, variant: str | None = None) -> pl.DataFrame | None:
    """Every level of every factor: its average marginal effect on the win rate and its odds
    ratio, the other factors held fixed (see the module docstring).

    Columns: component, level, n, wins, win_rate, effect (points of win rate as a fraction:
    the level's predicted rate for every player minus the field's), effect_lo, effect_hi,
    odds_ratio, or_lo, or_hi, p_value (of the effect), p_holm, significant, note.
    ``variant`` restricts to one variant of a sweep.  None without data.
    """
    from statsmodels.discrete.discrete_model import Logit

    df = model_frame(players, variant)
    if df is None or df.height == 0:
        return None
    factors = components(df)
    separated = separated_levels(df, factors)
    fit_df = df
    for f, level in separated:
        fit_df = fit_df.filter(pl.col(f) != level)
    blocks, labels = [np.ones((fit_df.height, 1))], [("intercept", None)]
    for term in factors:
        block, levels_of = design_block(fit_df, term)
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
    for term in factors:
        index = [i for i, (t, _) in enumerate(names) if t == term]
        if term in aliased:
            rows.append(table_row(df, term, None, None, None, ALIASED))
            continue
        fitted = [names[i][1] for i in index]
        fit_levels = levels(fit_df, term)
        for level in levels(df, term):
            if (term, level) in separated:
                rows.append(table_row(df, term, level, None, None, separated[(term, level)]))
                continue
            # deviation coding: a fitted level's own column; the last is minus their sum
            w = np.zeros(len(coef))
            if level in fitted:
                w[index[fitted.index(level)]] = 1.0
            elif index and level == fit_levels[-1]:
                w[index] = -1.0
            else:  # nothing to compare it with once separated levels are left out
                continue
            effect = marginal_effect(X, coef, cov, index, w[index])
            rows.append(table_row(df, term, level, (w @ coef, w @ cov @ w), effect))
    if not rows:
        return None
    out = pl.DataFrame(rows, orient="row", schema=SCHEMA)
    p = out["p_value"].to_numpy()
    adjusted = np.full(len(p), np.nan)
    finite = np.isfinite(p)
    adjusted[finite] = holm(p[finite])
    return (
        out.with_columns(p_holm=pl.Series(adjusted))
        .with_columns(significant=pl.col("p_holm").fill_nan(1.0) < 0.05)
        .select(*[c for c in SCHEMA if c != "note"], "p_holm", "significant", "note")
    )


def marginal_effect(X, coef, cov, index: list[int], coding: np.ndarray) -> tuple[float, float]:
    """(average marginal effect, its variance) of setting a factor's columns ``index`` to
    ``coding`` for every row: the mean predicted win rate so, minus the mean as fitted."""
    from scipy.special import expit

    counterfactual = X.copy()
    counterfactual[:, index] = coding
    p_as_fitted, p_so = expit(X @ coef), expit(counterfactual @ coef)
    effect = float(p_so.mean() - p_as_fitted.mean())
    gradient = (p_so * (1 - p_so)) @ counterfactual / len(X) - (
        p_as_fitted * (1 - p_as_fitted)
    ) @ X / len(X)
    return effect, float(gradient @ cov @ gradient)


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


def design_block(df: pl.DataFrame, term: str):
    """Deviation-coded columns of a factor (one per level but the last, which is minus their
    sum); (None, None) when the factor has one level."""
    names = levels(df, term)
    if len(names) < 2:
        return None, None
    values = df[term].to_numpy()
    last = (values == names[-1]).astype(float)
    return np.column_stack([(values == lev).astype(float) - last for lev in names[:-1]]), names[:-1]


def table_row(df: pl.DataFrame, term: str, level, log_odds, effect, note: str = "") -> list:
    """component, level, n, wins, win_rate, effect and its interval, odds ratio and its
    interval, p, note (:data:`SCHEMA`).

    ``log_odds`` is (log odds ratio, its variance) and ``effect`` (average marginal effect,
    its variance), None for a level without them (separated, or the factor aliased)."""
    subset = df.filter(df[term] == level) if level is not None else df
    n, wins = subset.height, int(subset["won"].sum())
    label = level if level is not None else "all"
    odds = lo = hi = p = ame = ame_lo = ame_hi = np.nan
    if log_odds is None:  # no finite odds ratio: 0 or infinite when separated, none if aliased
        odds = np.nan if note == ALIASED else (0.0 if wins == 0 else np.inf)
    else:
        beta, se = float(log_odds[0]), np.sqrt(max(float(log_odds[1]), 0.0))
        odds, lo, hi = np.exp(beta), np.exp(beta - Z95 * se), np.exp(beta + Z95 * se)
        ame, se = float(effect[0]), np.sqrt(max(float(effect[1]), 0.0))
        ame_lo, ame_hi = ame - Z95 * se, ame + Z95 * se
        p = float(two_sided_p(ame / se)) if se > 0 else np.nan
    return [
        term,
        label,
        n,
        wins,
        wins / n if n else np.nan,
        float(ame),
        float(ame_lo),
        float(ame_hi),
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

    Intervals are 95%, the game the unit (:func:`clustered_variances`): the raw rate's
    Wilson on its effective player-games, the others normal.  Columns: component, level, n,
    wins, raw_rate (+ _lo/_hi), adjusted_rate (+ _lo/_hi), expected_rate, excess
    (+ _lo/_hi), main_stratum and main_stratum_share (where the level's players come from),
    confounded (raw and adjusted rates each outside the other's interval).
    """
    lf = lazy(players)
    if variant is not None and has(lf, "variant"):
        lf = lf.filter(pl.col("variant").cast(pl.String) == variant)
    if not has(lf, "won", component, strata) or component == strata:
        return None
    rows = lf.select(
        *cluster_keys(lf),
        pl.col(component).cast(pl.String).alias("level"),
        pl.col(strata).cast(pl.String).alias("stratum"),
        "won",
    )
    by_game = per_game(rows, ["level", "stratum"], pl.col("won")).collect()
    cells = by_game.group_by("level", "stratum").agg(
        n=pl.col("n").sum().cast(pl.Int64), wins=pl.col("k").sum().cast(pl.Int64)
    )
    totals = cells.group_by("stratum").agg(N=pl.col("n").sum(), WINS=pl.col("wins").sum())
    totals = totals.with_columns(w=pl.col("N") / pl.col("N").sum())
    smoothed = (pl.col("wins") + 0.5) / (pl.col("n") + 1)
    others_n, others_wins = pl.col("N") - pl.col("n"), pl.col("WINS") - pl.col("wins")
    others_smoothed = (others_wins + 0.5) / (others_n + 1)
    degenerate = lambda k, n: (k == 0) | (k == n)  # noqa: E731
    cells = cells.join(totals, on="stratum").with_columns(
        rate=pl.col("wins") / pl.col("n"),
        # a cell that never (or always) wins has no spread over games: its binomial
        # variance, smoothed, keeps it from counting as certain
        floor=pl.when(degenerate(pl.col("wins"), pl.col("n")))
        .then(smoothed * (1 - smoothed) / pl.col("n"))
        .otherwise(0.0),
        others_rate=others_wins / others_n,
        others_floor=pl.when(degenerate(others_wins, others_n))
        .then(others_smoothed * (1 - others_smoothed) / others_n)
        .otherwise(0.0),
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
            floor=(pl.col("w") ** 2 * pl.col("floor")).sum(),
            m=comparable_n.sum(),
            held=pl.col("wins").filter(pl.col("comparable")).sum(),
            expected=(comparable_n * pl.col("others_rate").filter(pl.col("comparable"))).sum(),
            excess_floor=(
                comparable_n**2
                * (pl.col("floor") + pl.col("others_floor")).filter(pl.col("comparable"))
            ).sum(),
            main_stratum=pl.col("stratum").first(),
            main_n=pl.col("n").first(),
        )
    )
    per_level = per_level.join(clustered_variances(by_game, cells, per_level), on="level")
    half = Z95 * (pl.col("adjusted_var") + pl.col("floor") / pl.col("W") ** 2).sqrt()
    excess_half = Z95 * (pl.col("excess_var") + pl.col("excess_floor") / pl.col("m") ** 2).sqrt()
    out = per_level.with_columns(
        adjusted_rate=pl.col("weighted") / pl.col("W"),
        expected_rate=pl.col("expected") / pl.col("m"),
        excess=(pl.col("held") - pl.col("expected")) / pl.col("m"),
        main_stratum_share=pl.col("main_n") / pl.col("n"),
    )
    raw = clustered_rates(rows, ["level"], pl.col("won"), "raw_rate").select(
        "level", "raw_rate", "raw_rate_lo", "raw_rate_hi"
    )
    out = out.join(raw, on="level").with_columns(
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


def clustered_variances(
    by_game: pl.DataFrame, cells: pl.DataFrame, per_level: pl.DataFrame
) -> pl.DataFrame:
    """Per level, the game-clustered variances of its adjusted rate and its excess.

    Both are smooth functions of cell counts (the cells' wins and players, and so the field's
    weights and the level's own mix of strata), so game g moves each by its influence psi_g,
    a sum over the level's strata of coefficients times that game's wins and players in the
    cell and in its stratum (:mod:`simulator.analysis.clustered`); the others' rate in a
    stratum takes the stratum's players of that game less the level's.  The influences of one
    game are summed before squaring: rivals in one game, whose wins exclude each other, are
    compared as they played.  var = G / (G - 1) x sum over games of psi_g^2."""
    keys = [c for c in by_game.columns if c not in ("level", "stratum", "k", "n")]
    everyone = float(cells["n"].sum())
    level = per_level.select(
        "level",
        "W",
        "m",
        adjusted_rate=pl.col("weighted") / pl.col("W"),
        excess=(pl.col("held") - pl.col("expected")) / pl.col("m"),
    )
    coefficients = cells.join(level, on="level").select(
        "level",
        "stratum",
        "rate",
        "others_rate",
        # the adjusted rate: the cell's rate, and the stratum's weight in the field
        adjusted=pl.col("w") / (pl.col("W") * pl.col("n")),
        weight=(pl.col("rate") - pl.col("adjusted_rate")) / (pl.col("W") * everyone),
        # the excess: the level's wins beyond its stratum's others' rate, and that rate
        own=pl.when(pl.col("comparable")).then(1.0 / pl.col("m")).otherwise(0.0),
        beyond=pl.col("others_rate") + pl.col("excess"),
        others=pl.when(pl.col("comparable"))
        .then(pl.col("n") / (pl.col("m") * (pl.col("N") - pl.col("n"))))
        .otherwise(0.0),
    )
    own_rows = by_game.join(coefficients, on=["level", "stratum"]).select(
        *keys,
        "level",
        adjusted=pl.col("adjusted") * (pl.col("k") - pl.col("rate") * pl.col("n")),
        excess=pl.col("own") * (pl.col("k") - pl.col("beyond") * pl.col("n"))
        + pl.col("others") * (pl.col("k") - pl.col("others_rate") * pl.col("n")),
    )
    strata = by_game.group_by(*keys, "stratum").agg(pl.col("k").sum(), pl.col("n").sum())
    others_rows = strata.join(coefficients, on="stratum").select(
        *keys,
        "level",
        adjusted=pl.col("weight") * pl.col("n"),
        excess=-pl.col("others") * (pl.col("k") - pl.col("others_rate") * pl.col("n")),
    )
    games = strata.select(keys).unique().height
    factor = games / (games - 1) if games > 1 else float("nan")
    return (
        pl.concat([own_rows, others_rows])
        .group_by(*keys, "level")
        .agg(pl.col("adjusted").sum(), pl.col("excess").sum())
        .group_by("level")
        .agg(
            adjusted_var=(pl.col("adjusted") ** 2).sum() * factor,
            excess_var=(pl.col("excess") ** 2).sum() * factor,
        )
    )
