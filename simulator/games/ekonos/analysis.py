"""Ekonos analyses: where scores come from (cash vs holdings), company values, presidencies.

Columns used: players ``cash``, ``holdings_value``, ``company{c}_shares``,
``company{c}_president`` and ``company{c}_president_mid``; games ``company{c}_value`` and
``company{c}_value_mid``.

The presidency is read at mid-game (``_mid``: the engine records who presides each company,
and what each is worth, halfway through the turns) wherever the dataset has it.  At the end
it would condition on the outcome: the president of the most valuable company at the end
holds the most shares of what made the most points, so its win mixes the title's edge with
the value of the shares that make the title.  Datasets without the mid-game columns fall
back to the end, and the tables say which (``measured_at``).
"""

from __future__ import annotations

import re

import numpy as np
import polars as pl

from simulator.analysis.attribution import stratified_rates
from simulator.analysis.clustered import rates
from simulator.analysis.core import as_list, columns, game_keys, has, lazy, seat_frame
from simulator.core.stats import Z95


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
    aggs = [
        pl.len().alias("n"),
        pl.col("cash").cast(pl.Float64).mean().alias("mean_cash"),
        pl.col("holdings_value").cast(pl.Float64).mean().alias("mean_holdings"),
    ]
    if has(lf, "score"):
        aggs.append(pl.col("score").mean().alias("mean_score"))
    if has(lf, "won"):
        aggs.append(pl.col("won").cast(pl.Float64).mean().alias("win_rate"))
    out = lf.group_by(by).agg(aggs).sort(by) if by else lf.select(aggs)
    total = pl.col("mean_cash") + pl.col("mean_holdings")
    return out.with_columns((pl.col("mean_holdings") / total).alias("holdings_share")).collect()


def holdings_share(players) -> pl.DataFrame | None:
    """How much of a final score is held in shares, for winners and the others.

    Per group of ``won``: n players (with a positive score), mean share of the score held in
    shares (holdings_value / score) and its normal 95% interval ``share_lo``/``share_hi``.
    """
    if not has(players, "holdings_value", "score", "won"):
        return None
    share = (pl.col("holdings_value").cast(pl.Float64) / pl.col("score")).alias("s")
    out = (
        lazy(players)
        .filter(pl.col("score") > 0)
        .with_columns(share)
        .group_by("won")
        .agg(n=pl.len(), share=pl.col("s").mean(), sd=pl.col("s").std())
        .sort("won", descending=True)
        .collect()
    )
    half = Z95 * out["sd"].fill_null(0.0) / out["n"].cast(pl.Float64).sqrt()
    return out.with_columns(share_lo=out["share"] - half, share_hi=out["share"] + half).drop("sd")


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
        aggs += [
            v.mean().alias(f"{c}|mean"),
            v.quantile(0.25, "linear").alias(f"{c}|q25"),
            v.median().alias(f"{c}|median"),
            v.quantile(0.75, "linear").alias(f"{c}|q75"),
            v.max().alias(f"{c}|max"),
            (pl.col(col) == top).cast(pl.Float64).mean().alias(f"{c}|top_share"),
        ]
    row = lf.select(aggs).collect().row(0, named=True)
    names = list(names or [])
    out = [
        {
            "company": c,
            "name": names[c] if c < len(names) else f"company{c}",
            **{k.split("|")[1]: row[k] for k in row if k.split("|")[0] == str(c)},
        }
        for c in idx
    ]
    return pl.DataFrame(out)


MID = "_mid"  # suffix of the mid-game presidency and value columns
MEASURED_AT = {MID: "mid-game", "": "end"}


def presidency_time(players) -> str:
    """``"_mid"`` when ``players`` records the presidencies at mid-game, else ``""`` (end)."""
    return MID if companies(players, "president" + MID) else ""


def top_companies(games, at: str = "") -> pl.LazyFrame | None:
    """Per game, the value of the most valuable company and how many companies share it
    (``top_value``, ``n_top``), with ``top{c}`` true for each company at that value; ``at``
    is ``"_mid"`` for the values at mid-game."""
    idx = companies(games, "value" + at)
    if not idx:
        return None
    cols = [f"company{c}_value{at}" for c in idx]
    lf = lazy(games)
    top = pl.max_horizontal(cols)
    flags = [(pl.col(col) == top).alias(f"top{c}") for c, col in zip(idx, cols)]
    return lf.select([*game_keys(lf), top.alias("top_value"), *flags]).with_columns(
        pl.sum_horizontal([pl.col(f"top{c}").cast(pl.Int32) for c in idx]).alias("n_top")
    )


PRESIDENCY_KINDS = ("top_president", "co_top_president", "other")


def with_presidency(games, players, at: str | None = None) -> pl.LazyFrame | None:
    """The players with a ``presidency`` column: ``top_president`` (presides the single most
    valuable company), ``co_top_president`` (presides one of several companies tied for most
    valuable) or ``other``; and ``n_top``, the number of companies tied for most valuable.
    ``at``: ``"_mid"`` (mid-game) or ``""`` (end); by default mid-game when recorded."""
    at = presidency_time(players) if at is None else at
    idx = companies(players, "president" + at)
    top = top_companies(games, at)
    if top is None or not idx:
        return None
    keys = [k for k in game_keys(players) if has(games, k)]
    presides_top = pl.any_horizontal(
        [pl.col(f"top{c}") & pl.col(f"company{c}_president{at}") for c in idx]
    )
    kind = (
        pl.when(presides_top & (pl.col("n_top") == 1))
        .then(pl.lit(PRESIDENCY_KINDS[0]))
        .when(presides_top)
        .then(pl.lit(PRESIDENCY_KINDS[1]))
        .otherwise(pl.lit(PRESIDENCY_KINDS[2]))
    )
    return (
        lazy(players)
        .join(top.select(*keys, "n_top", *[f"top{c}" for c in idx]), on=keys)
        .with_columns(kind.alias("presidency"))
        .drop([f"top{c}" for c in idx])
    )


def presidency_advantage(games, players) -> pl.DataFrame | None:
    """Does the president of the most valuable company win?

    Read at mid-game where recorded (see the module docstring; ``measured_at`` says which).
    Ties for most valuable are common, so games are split (see :func:`with_presidency`): one
    row per kind of player, ``top_president``, ``co_top_president`` and ``other``, with n,
    wins, win_rate (+ game-clustered interval), fair_share (the average player's win rate)
    and tied_games_share (share of games whose top value is shared by several companies).
    """
    lf = with_presidency(games, players)
    if lf is None or not has(players, "won"):
        return None
    shares = (
        lf.select(
            fair_share=pl.col("won").cast(pl.Float64).mean(),
            tied_games_share=(pl.col("n_top") > 1).cast(pl.Float64).mean(),
        )
        .collect()
        .row(0, named=True)
    )
    order = pl.col("player").replace_strict(PRESIDENCY_KINDS, [0, 1, 2], return_dtype=pl.Int8)
    return (
        rates(lf.rename({"presidency": "player"}), ["player"], pl.col("won"), "win_rate", "wins")
        .select("player", "n", "wins", "win_rate", "win_rate_lo", "win_rate_hi")
        .with_columns(
            pl.lit(shares["fair_share"]).alias("fair_share"),
            pl.lit(shares["tied_games_share"]).alias("tied_games_share"),
            pl.lit(MEASURED_AT[presidency_time(players)]).alias("measured_at"),
        )
        .sort(order)
    )


def presidencies_held(players) -> pl.DataFrame | None:
    """Win rate by the number of presidencies a player holds (at mid-game where recorded,
    else at the end: ``measured_at``), with game-clustered intervals."""
    at = presidency_time(players)
    idx = companies(players, "president" + at)
    if not idx or not has(players, "won"):
        return None
    count = pl.sum_horizontal([pl.col(f"company{c}_president{at}").cast(pl.Int32) for c in idx])
    return (
        rates(
            lazy(players).with_columns(count.alias("presidencies")),
            ["presidencies"],
            pl.col("won"),
            "win_rate",
            "wins",
        )
        .select("presidencies", "n", "wins", "win_rate", "win_rate_lo", "win_rate_hi")
        .with_columns(pl.lit(MEASURED_AT[at]).alias("measured_at"))
    )


def summarise(ds, players, games, base_players, base_games) -> dict:
    """The Ekonos analyses of a dataset's base rules for :func:`simulator.analysis.summarise`:
    keys ``ekonos_*``."""
    names = ds.rules.get("companies", {}).get("names")
    frame = with_presidency(base_games, base_players)
    return {
        "ekonos_score_split": score_split(base_players, "policy"),
        "ekonos_score_split_winners": score_split(base_players, "won"),
        "ekonos_holdings_share": holdings_share(base_players),
        "ekonos_company_values": company_values(base_games, names),
        "ekonos_presidency": presidency_advantage(base_games, base_players),
        "ekonos_presidency_within_policy": stratified_rates(frame, "presidency")
        if frame is not None
        else None,
        "ekonos_presidencies_held": presidencies_held(base_players),
    }


def flag_values(rules: dict, raw: dict, won: np.ndarray) -> dict[str, np.ndarray]:
    """The presidency flag's value of a chunk of games (:mod:`simulator.experiments.flag_values`):
    ``top_president`` bool[n, p], the seat presides the single most valuable company (at
    mid-game where the engine records it)."""
    players, games = raw["players"], raw["games"]
    presidents = {k: v for k, v in players.items() if k.endswith(("_president", "_president_mid"))}
    if not presidents:
        return {}
    values = {
        k: np.asarray(v)
        for k, v in games.items()
        if k.startswith("company") and k.endswith(("_value", "_value_mid"))
    }
    seats = seat_frame(np.zeros(won.shape, bool), presidents)
    frame = with_presidency(pl.DataFrame({"game_id": np.arange(won.shape[0]), **values}), seats)
    kinds = frame.sort("game_id", "seat").collect()["presidency"].to_numpy()
    return {"top_president": (kinds == PRESIDENCY_KINDS[0]).reshape(won.shape)}
