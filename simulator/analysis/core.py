"""Analyses every game shares: win rates, seat advantage, distributions, economy health.

Every function takes polars frames (lazy or not: a :class:`~simulator.analysis.Dataset`'s
``players``/``games``/``timeline(...)``, or a small hand-made frame in a test) and returns a
tidy ``polars.DataFrame`` (``.to_pandas()`` for pandas users).  A function whose columns are
missing returns ``None`` instead of failing, so a game that lacks a column just skips that
piece.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from simulator.analysis.clustered import rates as clustered_rates
from simulator.core.stats import Z95, chi_square_uniform, wilson, wilson_exprs

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


def lazy(frame) -> pl.LazyFrame:
    return frame.lazy() if isinstance(frame, pl.DataFrame) else frame


def columns(frame) -> list[str]:
    return lazy(frame).collect_schema().names()


def has(frame, *names: str) -> bool:
    if frame is None:
        return False
    present = set(columns(frame))
    return all(n in present for n in names)


def as_list(by) -> list[str]:
    if by is None:
        return []
    return [by] if isinstance(by, str) else list(by)


def game_keys(frame) -> list[str]:
    """Columns that identify one game: ``game_id`` plus ``variant`` when present."""
    return ["variant", "game_id"] if has(frame, "variant") else ["game_id"]


def with_player_columns(timeline, players, by) -> pl.LazyFrame:
    """The timeline with the players' ``by`` columns (e.g. policy, team) joined on game and seat."""
    tl = lazy(timeline)
    missing = [b for b in as_list(by) if not has(tl, b)]
    if not missing:
        return tl
    keys = [k for k in game_keys(tl) if has(players, k)] + ["seat"]
    return tl.join(lazy(players).select([*keys, *missing]), on=keys, how="left")


def trajectory(timeline, players, by, step: str, value: str) -> pl.DataFrame:
    """Median, quartiles and mean of ``value`` per ``step`` (year, round), per variant and group."""
    groups = [b for b in as_list(by) if has(timeline, b) or has(players, b)]
    tl = with_player_columns(timeline, players, groups)
    keys = (["variant"] if has(tl, "variant") else []) + groups + [step]
    v = pl.col(value).cast(pl.Float64)
    return (
        tl.group_by(keys)
        .agg(
            pl.len().alias("n"),
            v.quantile(0.25, "linear").alias("q25"),
            v.median().alias("median"),
            v.quantile(0.75, "linear").alias("q75"),
            v.mean().alias("mean"),
        )
        .sort(keys)
        .collect()
    )


def with_n_players(players) -> pl.LazyFrame:
    """Players with an ``n_players`` column (counted per game when the frame lacks one)."""
    lf = lazy(players)
    if has(lf, "n_players"):
        return lf
    return lf.with_columns(pl.len().over(game_keys(lf)).cast(pl.Int8).alias("n_players"))


def rate_columns(k: str, n: str, name: str = "rate") -> list[pl.Expr]:
    """``name`` = k / n with its Wilson 95% bounds ``name_lo``/``name_hi``."""
    return [
        (pl.col(k) / pl.col(n)).alias(name),
        *wilson_exprs(k, n, names=(f"{name}_lo", f"{name}_hi")),
    ]


def win_rates(players, by="seat") -> pl.DataFrame | None:
    """Win rate of each group with its 95% interval, the game as the unit.

    ``by`` is a column or list (``"seat"``, ``"policy"``, ``"character"``, ``"team"``,
    ``"variant"``...).  Groups are split by ``n_players``.  The interval is Wilson's on the
    effective number of player-games (:mod:`simulator.analysis.clustered`): players of one
    game share its outcome, so teammates count about once.  ``n`` is player-games, ``games``
    the games with the group.  ``fair_share`` is the win rate of an average player at that
    player count (and variant, when grouped by it): 1/n when every game has one winner, 1/2
    for two teams; ``excess`` = win_rate - fair_share.
    """
    by = as_list(by)
    if not has(players, "won", *by):
        return None
    lf = with_n_players(players)
    keys = ["n_players", *[b for b in by if b != "n_players"]]
    # the fair share is taken within the player count and, when grouped by it, the variant
    base = ["n_players"] + (["variant"] if "variant" in by else [])
    fair = pl.col("wins").sum().over(base) / pl.col("n").sum().over(base)
    return (
        clustered_rates(lf, keys, pl.col("won"), "win_rate", count="wins")
        .with_columns(fair.alias("fair_share"))
        .with_columns((pl.col("win_rate") - pl.col("fair_share")).alias("excess"))
        .sort(keys)
    )


def team_game(players) -> bool:
    """Whether players of one game share outcomes by team (a ``team`` column with more than
    one player in some team of some game)."""
    if not has(players, "team", "game_id"):
        return False
    keys = game_keys(players)
    size = lazy(players).group_by([*keys, "team"]).agg(pl.len().alias("size"))
    return bool(size.select(pl.col("size").max()).collect().item() > 1)


def seat_advantage(players) -> pl.DataFrame | None:
    """Seat balance per player count (and variant): chi-square of wins over seats against
    equal shares, and the first player's (seat 0) win rate and excess over 1/n with intervals.

    The unit is the game: in team games (:func:`team_game`) teammates win together, so the
    chi-square counts each team's wins once, the starting team's (seat 0's, ``side``) against
    the other's (1 degree of freedom), and ``unit`` says "team"; else wins over seats.

    Columns: n_players, [variant], unit, n_games, chi2, dof, p_value, first_win_rate
    (+_lo/_hi), fair_share, first_excess (+_lo/_hi), best_seat, best_win_rate (+_lo/_hi),
    worst_seat, worst_win_rate (+_lo/_hi).
    """
    if not has(players, "seat", "won"):
        return None
    lf = with_n_players(players)
    keys = ["n_players"] + (["variant"] if has(lf, "variant") else [])
    per_seat = (
        lf.group_by([*keys, "seat"])
        .agg(n=pl.len(), wins=pl.col("won").cast(pl.Int64).sum())
        .sort([*keys, "seat"])
        .collect()
    )
    teams = team_wins(lf, keys) if team_game(lf) and has(lf, "side") else None
    rows = []
    for key, part in per_seat.group_by(keys, maintain_order=True):
        wins, n = part["wins"].to_numpy(), part["n"].to_numpy()
        counted = wins
        if teams is not None:
            counted = teams.filter(
                pl.all_horizontal(pl.col(k) == v for k, v in zip(keys, key))
            ).row(0)[len(keys) :]
        chi2, dof, p = chi_square_uniform(counted)
        fair = wins.sum() / n.sum()
        rate = wins / n
        first = int(np.flatnonzero(part["seat"].to_numpy() == 0)[0]) if 0 in part["seat"] else 0
        best, worst = int(np.argmax(rate)), int(np.argmin(rate))
        rows.append(
            {
                **dict(zip(keys, key)),
                "unit": "seat" if teams is None else "team",
                "n_games": int(n.max()),
                "chi2": chi2,
                "dof": dof,
                "p_value": p,
                "first_wins": int(wins[first]),
                "first_n": int(n[first]),
                "fair_share": float(fair),
                "best_seat": int(part["seat"][best]),
                "best_win_rate": float(rate[best]),
                "worst_seat": int(part["seat"][worst]),
                "worst_win_rate": float(rate[worst]),
            }
        )
        for which, k in (("best", best), ("worst", worst)):
            lo, hi = wilson(wins[k], n[k])
            rows[-1][f"{which}_win_rate_lo"], rows[-1][f"{which}_win_rate_hi"] = (
                float(lo),
                float(hi),
            )
    out = pl.DataFrame(rows).with_columns(*rate_columns("first_wins", "first_n", "first_win_rate"))
    return out.with_columns(
        (pl.col(c) - pl.col("fair_share")).alias(c.replace("win_rate", "excess"))
        for c in ("first_win_rate", "first_win_rate_lo", "first_win_rate_hi")
    )


def team_wins(lf: pl.LazyFrame, keys: list[str]) -> pl.DataFrame:
    """Per ``keys``: the games the starting team won and those the other team won."""
    won = pl.col("won")
    return (
        lf.group_by([*keys, *(k for k in game_keys(lf) if k not in keys)])
        .agg(
            starting=won.filter(pl.col("side").cast(pl.String) == "starting").any(),
            other=won.filter(pl.col("side").cast(pl.String) == "other").any(),
        )
        .group_by(keys)
        .agg(pl.col("starting").cast(pl.Int64).sum(), pl.col("other").cast(pl.Int64).sum())
        .collect()
    )


def describe(frame, value: str, by=None) -> pl.DataFrame | None:
    """n, mean, sd, min, 5/25/50/75/95% quantiles and max of ``value`` per group."""
    by = as_list(by)
    if not has(frame, value, *by):
        return None
    v = pl.col(value).cast(pl.Float64)
    aggs = [
        pl.len().alias("n"),
        v.mean().alias("mean"),
        v.std().alias("sd"),
        v.min().alias("min"),
        *[v.quantile(q, "linear").alias(f"p{round(q * 100)}") for q in QUANTILES],
        v.max().alias("max"),
    ]
    lf = lazy(frame)
    out = lf.group_by(by).agg(aggs).sort(by) if by else lf.select(aggs)
    return out.collect()


def value_counts(frame, value: str, by=None) -> pl.DataFrame | None:
    """Count and share of each value of ``value`` per group (for discrete columns)."""
    by = as_list(by)
    if not has(frame, value, *by):
        return None
    keys = [*by, value]
    share = pl.col("n") / pl.col("n").sum().over(by) if by else pl.col("n") / pl.col("n").sum()
    return (
        lazy(frame)
        .group_by(keys)
        .agg(n=pl.len())
        .with_columns(share.alias("share"))
        .sort(keys)
        .collect()
    )


def histogram(frame, value: str, bins: int = 30, by=None) -> pl.DataFrame | None:
    """Equal-width histogram of ``value``: bin_lo, bin_hi, n, share (per group)."""
    by = as_list(by)
    if not has(frame, value, *by):
        return None
    lf = lazy(frame).select([*by, pl.col(value).cast(pl.Float64)]).drop_nulls(value)
    lo, hi = (
        lf.select(pl.col(value).min().alias("lo"), pl.col(value).max().alias("hi")).collect().row(0)
    )
    if lo is None:
        return None
    width = (hi - lo) / bins if hi > lo else 1.0
    b = ((pl.col(value) - lo) / width).floor().clip(0, bins - 1).cast(pl.Int32).alias("bin")
    share = pl.col("n") / pl.col("n").sum().over(by) if by else pl.col("n") / pl.col("n").sum()
    return (
        lf.group_by([*by, b])
        .agg(n=pl.len())
        .with_columns(
            (lo + pl.col("bin") * width).alias("bin_lo"),
            (lo + (pl.col("bin") + 1) * width).alias("bin_hi"),
            share.alias("share"),
        )
        .sort([*by, "bin"])
        .collect()
    )


def margins(players) -> pl.LazyFrame | None:
    """Per game: the winning score, the runner-up's and the margin of victory (lazy).

    Uses the contract's ``rank`` column (1 = best, ties share) so the per-game step is a plain
    aggregation; a tie for first is a margin of 0.
    """
    if not has(players, "game_id", "score"):
        return None
    lf = lazy(players)
    keys = game_keys(lf)
    if not has(lf, "rank"):
        best = pl.col("score").max().over(keys)
        lf = lf.with_columns(pl.when(pl.col("score") == best).then(1).otherwise(2).alias("rank"))
    other = pl.when(pl.col("rank") > 1).then(pl.col("score")).otherwise(None)
    return (
        lf.group_by(keys)
        .agg(
            top=pl.col("score").max(),
            runner_up=other.max(),
            tied=(pl.col("rank") == 1).cast(pl.Int32).sum(),
        )
        .with_columns(
            pl.when(pl.col("tied") > 1)
            .then(pl.col("top"))
            .otherwise(pl.col("runner_up"))
            .alias("second")
        )
        .with_columns((pl.col("top") - pl.col("second")).alias("margin"))
        .drop("runner_up", "tied")
    )


def margin_of_victory(players, by=None) -> pl.DataFrame | None:
    """Distribution of the margin between the best and the second score (see :func:`describe`)."""
    per_game = margins(players)
    if per_game is None:
        return None
    by = as_list(by) or (["variant"] if has(players, "variant") else [])
    return describe(per_game, "margin", by)


def end_reasons(games) -> pl.DataFrame | None:
    """How games ended: n and share (with Wilson interval) of each end_reason per variant."""
    if not has(games, "end_reason"):
        return None
    by = ["variant"] if has(games, "variant") else []
    total = pl.col("n").sum().over(by) if by else pl.col("n").sum()
    return (
        lazy(games)
        .group_by([*by, "end_reason"])
        .agg(n=pl.len())
        .with_columns(total.alias("games"))
        .with_columns(*rate_columns("n", "games", "share"))
        .sort([*by, "end_reason"])
        .collect()
    )


def round_cap_rate(games, reason: str = "round_cap") -> pl.DataFrame | None:
    """Share of games ended by the round cap, per variant, with its Wilson interval."""
    if not has(games, "end_reason"):
        return None
    by = ["variant"] if has(games, "variant") else []
    capped = (pl.col("end_reason") == reason).cast(pl.Int64).sum().alias("capped")
    lf = lazy(games)
    out = (
        lf.group_by(by).agg(pl.len().alias("games"), capped)
        if by
        else lf.select(pl.len().alias("games"), capped)
    )
    return out.with_columns(*rate_columns("capped", "games", "rate")).sort(by or "games").collect()


def gini_by_game(players, value: str = "score") -> pl.LazyFrame | None:
    """Gini of ``value`` among the players of each game (lazy; negatives counted as 0).

    Same formula as :func:`~simulator.core.stats.gini`: 2 sum(i x_(i)) / (n sum x) -
    (n + 1) / n with i the ascending position of x inside its game.
    """
    if not has(players, "game_id", value):
        return None
    lf = lazy(players)
    keys = game_keys(lf)
    x = pl.col(value).cast(pl.Float64).clip(lower_bound=0.0)
    lf = lf.select([*keys, x.alias("x"), x.rank("ordinal").over(keys).cast(pl.Float64).alias("i")])
    n, total = pl.col("n").cast(pl.Float64), pl.col("total")
    return (
        lf.group_by(keys)
        .agg(
            pl.len().alias("n"),
            pl.col("x").sum().alias("total"),
            (pl.col("i") * pl.col("x")).sum().alias("weighted"),
        )
        .with_columns(
            pl.when(total > 0)
            .then(2.0 * pl.col("weighted") / (n * total) - (n + 1.0) / n)
            .otherwise(None)
            .alias("gini")
        )
        .select([*keys, "gini"])
    )


def gini_summary(players, value: str = "score") -> pl.DataFrame | None:
    """Distribution of the per-game Gini of final scores, per variant."""
    per_game = gini_by_game(players, value)
    if per_game is None:
        return None
    return describe(per_game, "gini", ["variant"] if has(players, "variant") else None)


def runaway_leader(
    timeline, players, time: str, value: str, fraction: float = 2 / 3
) -> pl.DataFrame | None:
    """How often the leader two thirds of the way through a game wins it.

    The checkpoint of a game is its ``ceil(fraction * steps)``-th time step of ``timeline``
    (year 8 of 12); the leader is the seat with the most ``value`` then (lowest seat on ties).
    Returns per variant: games, leader_won, rate (+_lo/_hi) and fair_share (average win rate).
    """
    joined = runaway_games(timeline, players, time, value, fraction)
    if joined is None:
        return None
    keys = game_keys(joined)
    pl_ = lazy(players).select([*keys, "seat", "won"])
    by = ["variant"] if "variant" in keys else []
    agg = [pl.len().alias("games"), pl.col("won").cast(pl.Int64).sum().alias("leader_won")]
    out = joined.group_by(by).agg(agg) if by else joined.select(agg)
    fair = (
        pl_.group_by(by).agg(pl.col("won").mean().alias("fair_share"))
        if by
        else pl_.select(pl.col("won").mean().alias("fair_share"))
    )
    out = out.join(fair, on=by).sort(by) if by else pl.concat([out, fair], how="horizontal")
    return out.with_columns(*rate_columns("leader_won", "games", "rate")).collect()


def runaway_games(
    timeline, players, time: str, value: str, fraction: float = 2 / 3
) -> pl.LazyFrame | None:
    """Per game (:func:`runaway_leader`): the leader's seat at the checkpoint and ``won``,
    whether that seat won; None without the columns."""
    if not (
        has(timeline, "game_id", "seat", time, value) and has(players, "game_id", "seat", "won")
    ):
        return None
    tl = lazy(timeline)
    keys = game_keys(tl) if has(players, "variant") else ["game_id"]
    span = tl.group_by(keys).agg(pl.col(time).min().alias("t0"), pl.col(time).max().alias("t1"))
    checkpoint = pl.col("t0") + ((pl.col("t1") - pl.col("t0") + 1) * fraction).ceil() - 1
    leaders = (
        tl.select([*keys, "seat", time, value])
        .join(span, on=keys)
        .filter(pl.col(time) == checkpoint)
        .sort([*keys, value, "seat"], descending=[False] * len(keys) + [True, False])
        .group_by(keys)
        .agg(pl.col("seat").first())
    )
    return leaders.join(lazy(players).select([*keys, "seat", "won"]), on=[*keys, "seat"])


def checkpoint_step(steps: int, fraction: float = 2 / 3) -> int:
    """1-based time step used by :func:`runaway_leader` for a game of ``steps`` steps."""
    return int(math.ceil(steps * fraction))


def paired_difference(
    frame, value: str, baseline: str, variant: str, by=None
) -> pl.DataFrame | None:
    """Mean change of ``value`` from ``baseline`` to ``variant``, pairing rows by game (and seat,
    for a players table).

    Variants of a sweep replay the same deals and rolls (common random numbers), so pairing
    by ``game_id`` and ``seat`` removes most of the noise.  The game is the unit: the pairs of
    one game (teammates, rivals) are summed before the spread is taken
    (:mod:`simulator.analysis.clustered`).  Returns per group: n pairs, n_games, base_mean,
    variant_mean, mean_diff, its game-clustered standard error ``se`` and normal 95% interval
    ``diff_lo``/``diff_hi``, and ``sd`` = se x sqrt(n), the spread per pair that independent
    pairs would need for that standard error (so sd / sqrt(n) is the standard error).
    """
    by = as_list(by)
    if not has(frame, "variant", "game_id", value, *by):
        return None
    joined = paired_rows(frame, baseline, [value], by, variant)
    return pair_stats(joined, value, by).drop("variant").collect()


def paired_rows(
    frame, base: str, values: list[str], groups: list[str], variant: str | None = None
) -> pl.LazyFrame:
    """Each row of ``variant`` (default: every variant but ``base``) beside the same game's
    (and seat's) row of ``base``: the ``values`` columns as ``a_VALUE`` (base) and
    ``b_VALUE``, the ``groups`` columns as the base has them."""
    lf = lazy(frame).with_columns(pl.col("variant").cast(pl.String))
    keys = ["game_id", "seat"] if has(frame, "seat") else ["game_id"]
    extra = list(dict.fromkeys(g for g in groups if g not in keys))
    a = lf.filter(pl.col("variant") == base).select(
        *keys, *extra, *(pl.col(v).cast(pl.Float64).alias(f"a_{v}") for v in values)
    )
    others = pl.col("variant") != base if variant is None else pl.col("variant") == variant
    b = lf.filter(others).select(
        "variant", *keys, *(pl.col(v).cast(pl.Float64).alias(f"b_{v}") for v in values)
    )
    return a.join(b, on=keys)


PAIR_COLUMNS = (
    "n",
    "n_games",
    "base_mean",
    "variant_mean",
    "mean_diff",
    "sd",
    "se",
    "diff_lo",
    "diff_hi",
)


def pair_stats(joined: pl.LazyFrame, value: str, by: list[str]) -> pl.LazyFrame:
    """Per variant and ``by`` group of :func:`paired_rows`: :data:`PAIR_COLUMNS` of the
    change of ``value``, its standard error clustered by game, sorted by both."""
    keys = ["variant", *by]
    rows = joined.with_columns((pl.col(f"b_{value}") - pl.col(f"a_{value}")).alias("d"))
    totals = rows.group_by(keys).agg(
        pl.len().alias("n"),
        pl.col(f"a_{value}").mean().alias("base_mean"),
        pl.col(f"b_{value}").mean().alias("variant_mean"),
        pl.col("d").mean().alias("mean_diff"),
    )
    games = rows.group_by([*keys, "game_id"]).agg(D=pl.col("d").sum(), m=pl.len())
    spread = (
        games.join(totals, on=keys, nulls_equal=True)
        .group_by(keys)
        .agg(
            n_games=pl.len(),
            S=((pl.col("D") - pl.col("mean_diff") * pl.col("m")) ** 2).sum(),
        )
    )
    n, g = pl.col("n").cast(pl.Float64), pl.col("n_games").cast(pl.Float64)
    se = pl.when(g > 1).then((g / (g - 1) * pl.col("S")).sqrt() / n).otherwise(0.0)
    return (
        totals.join(spread, on=keys, nulls_equal=True)
        .with_columns(se.alias("se"))
        .with_columns(
            (pl.col("se") * n.sqrt()).alias("sd"),
            (pl.col("mean_diff") - Z95 * pl.col("se")).alias("diff_lo"),
            (pl.col("mean_diff") + Z95 * pl.col("se")).alias("diff_hi"),
        )
        .sort(keys)
        .select(*keys, *PAIR_COLUMNS)
    )


def seat_frame(won: np.ndarray, columns: dict) -> pl.DataFrame:
    """One row per (game, seat) of a chunk: game_id (the game's index), seat, won, columns."""
    n, p = won.shape
    return pl.DataFrame(
        {
            "game_id": np.repeat(np.arange(n), p),
            "seat": np.tile(np.arange(p), n),
            "won": won.reshape(-1),
            **{k: np.asarray(v).reshape(-1) for k, v in columns.items()},
        }
    )
