"""Karmaggän analyses: blood coins, deaths, damage by source, spawns, starting-coin effects.

Players columns used when present: side (on the starting team, seat 0's, or the other:
the team label itself is drawn each game), start_blood_coins, final_blood_coins, died,
death_round, blood_lost_<source> (arrows, acid, fire, piston, rollers, combat),
turns_as_spawn, turns_holding_egg.  Games: length, end_reason, winning_team.  The ``rounds``
timeline (``round``, ``seat``, ``blood_coins``) gives blood coins per round.  Missing columns
skip their piece.
"""

from __future__ import annotations

import polars as pl

from simulator.analysis.clustered import with_rates
from simulator.analysis.core import (
    as_list,
    columns,
    describe,
    game_keys,
    has,
    lazy,
    rate_columns,
    trajectory,
    value_counts,
    with_n_players,
)
from simulator.core.stats import Z95

DAMAGE_SOURCES = ("arrows", "acid", "fire", "piston", "rollers", "combat")


def _groups(frame, by) -> list[str]:
    return [b for b in as_list(by) if has(frame, b)]


def blood_coins(players, by="side") -> pl.DataFrame | None:
    """Per group: mean starting and final blood coins, quartiles of the final count and the
    share of players who end with none (its interval game-clustered, as every rate over
    players here: :mod:`simulator.analysis.clustered`)."""
    if not has(players, "final_blood_coins"):
        return None
    lf, by = lazy(players), _groups(players, by)
    v = pl.col("final_blood_coins").cast(pl.Float64)
    aggs = [
        pl.len().alias("n"),
        v.mean().alias("mean_final"),
        v.quantile(0.25, "linear").alias("q25_final"),
        v.median().alias("median_final"),
        v.quantile(0.75, "linear").alias("q75_final"),
        (v <= 0).cast(pl.Int64).sum().alias("broke"),
    ]
    if has(lf, "start_blood_coins"):
        aggs.insert(1, pl.col("start_blood_coins").cast(pl.Float64).mean().alias("mean_start"))
    out = (lf.group_by(by).agg(aggs).sort(by) if by else lf.select(aggs)).collect()
    return with_rates(out, lf, by, {"broke_share": v <= 0})


def blood_by_round(timeline, players=None, by="side") -> pl.DataFrame | None:
    """Median and quartiles of blood coins held per round and group (side, seat or policy),
    from the ``rounds`` timeline."""
    if timeline is None or not has(timeline, "round", "seat", "blood_coins"):
        return None
    return trajectory(timeline, players, by, "round", "blood_coins")


def deaths(players, by="side") -> pl.DataFrame | None:
    """Per group: death rate (Wilson interval) and when deaths happen (mean, median round)."""
    if not has(players, "died"):
        return None
    lf, by = lazy(players), _groups(players, by)
    aggs = [pl.len().alias("n"), pl.col("died").cast(pl.Int64).sum().alias("deaths")]
    if has(lf, "death_round"):
        r = pl.col("death_round").filter(pl.col("died")).cast(pl.Float64)
        aggs += [r.mean().alias("mean_death_round"), r.median().alias("median_death_round")]
    out = (lf.group_by(by).agg(aggs).sort(by) if by else lf.select(aggs)).collect()
    return with_rates(out, lf, by, {"death_rate": pl.col("died")})


def death_rounds(players) -> pl.DataFrame | None:
    """How many deaths happen in each round (count and share of all deaths)."""
    if not has(players, "died", "death_round"):
        return None
    return value_counts(lazy(players).filter(pl.col("died")), "death_round")


def damage_by_source(players, by=None) -> pl.DataFrame | None:
    """Blood coins lost per source: mean per player, total and share of all damage (tidy:
    one row per group x source)."""
    sources = [s for s in DAMAGE_SOURCES if has(players, f"blood_lost_{s}")]
    sources += [
        c[len("blood_lost_") :]
        for c in columns(players)
        if c.startswith("blood_lost_") and c[len("blood_lost_") :] not in sources
    ]
    if not sources:
        return None
    lf, by = lazy(players), _groups(players, by)
    aggs = [pl.len().alias("n")] + [
        pl.col(f"blood_lost_{s}").cast(pl.Float64).sum().alias(s) for s in sources
    ]
    wide = lf.group_by(by).agg(aggs) if by else lf.select(aggs)
    long = wide.unpivot(index=[*by, "n"], on=sources, variable_name="source", value_name="total")
    share = (
        pl.col("total") / pl.col("total").sum().over(by)
        if by
        else pl.col("total") / pl.col("total").sum()
    )
    return (
        long.with_columns(
            (pl.col("total") / pl.col("n")).alias("mean_per_player"), share.alias("share")
        )
        .sort([*by, "total"], descending=[False] * len(by) + [True])
        .collect()
    )


def spawn_turns(players, by="side") -> pl.DataFrame | None:
    """Per group: turns spent as a spawn (mean, share who ever were one) and turns holding the
    Egg."""
    lf, by = lazy(players), _groups(players, by)
    aggs = [pl.len().alias("n")]
    if has(lf, "turns_as_spawn"):
        aggs += [
            pl.col("turns_as_spawn").cast(pl.Float64).mean().alias("mean_turns_as_spawn"),
            (pl.col("turns_as_spawn") > 0).cast(pl.Int64).sum().alias("ever_spawn"),
        ]
    if has(lf, "turns_holding_egg"):
        aggs.append(
            pl.col("turns_holding_egg").cast(pl.Float64).mean().alias("mean_turns_holding_egg")
        )
    if len(aggs) == 1:
        return None
    out = (lf.group_by(by).agg(aggs).sort(by) if by else lf.select(aggs)).collect()
    if has(lf, "turns_as_spawn"):
        out = with_rates(out, lf, by, {"spawn_share": pl.col("turns_as_spawn") > 0})
    return out


def start_coins_per_game(games, players) -> pl.LazyFrame | None:
    """Games with their ``start_blood_coins`` (the most any seat started with)."""
    if not has(players, "start_blood_coins"):
        return None
    keys = [k for k in game_keys(players) if has(games, k)]
    start = lazy(players).group_by(keys).agg(pl.col("start_blood_coins").max())
    return lazy(games).join(start, on=keys)


def length_by_start_coins(games, players) -> pl.DataFrame | None:
    """Game length distribution and round-cap rate per number of starting blood coins."""
    lf = start_coins_per_game(games, players)
    if lf is None or not has(games, "length"):
        return None
    by = ["start_blood_coins"]
    out = describe(lf, "length", by)
    if has(games, "end_reason"):
        capped = (
            lf.group_by(by)
            .agg(
                pl.len().alias("games"),
                (pl.col("end_reason") == "round_cap").cast(pl.Int64).sum().alias("capped"),
            )
            .with_columns(*rate_columns("capped", "games", "round_cap_rate"))
            .collect()
        )
        out = out.join(capped, on=by)
    return out.sort(by)


def starting_team_edge(players) -> pl.DataFrame | None:
    """Per player count and number of starting blood coins: the win rates of the starting team
    (seat 0's: its label is drawn each game) and of the other, with Wilson intervals, and the
    starting team's edge, the mean over games of (starting team won) - (other team won), with
    its normal 95% interval over games (a game at the round cap counts 0 for both)."""
    if not has(players, "side", "won", "start_blood_coins"):
        return None
    keys = game_keys(players)
    won = pl.col("won")
    per_game = (
        with_n_players(players)
        .group_by(keys)
        .agg(
            pl.col("n_players").first(),
            pl.col("start_blood_coins").max().alias("start_coins"),
            won.filter(pl.col("side") == "starting").any().cast(pl.Int64).alias("starting"),
            won.filter(pl.col("side") == "other").any().cast(pl.Int64).alias("other"),
        )
        .with_columns((pl.col("starting") - pl.col("other")).alias("d"))
    )
    by = ["n_players", "start_coins"]
    half = Z95 * pl.col("d").std() / pl.len().sqrt()
    return (
        per_game.group_by(by)
        .agg(
            pl.len().alias("games"),
            pl.col("starting").sum().alias("starting_wins"),
            pl.col("other").sum().alias("other_wins"),
            pl.col("d").mean().alias("edge"),
            (pl.col("d").mean() - half).alias("edge_lo"),
            (pl.col("d").mean() + half).alias("edge_hi"),
        )
        .with_columns(
            *rate_columns("starting_wins", "games", "starting_win_rate"),
            *rate_columns("other_wins", "games", "other_win_rate"),
        )
        .sort(by)
        .collect()
    )


def summarise(ds, players, games, base_players, base_games) -> dict:
    """The Karmaggän analyses of a dataset for :func:`simulator.analysis.summarise` (the
    per-group ones of its base rules, ``base_players``): keys ``karmaggan_*``."""
    by = "side" if has(players, "side") else "policy"
    return {
        "karmaggan_blood_coins": blood_coins(base_players, by),
        "karmaggan_blood_by_round": blood_by_round(ds.timeline("rounds"), players, by),
        "karmaggan_deaths": deaths(base_players, by),
        "karmaggan_death_rounds": death_rounds(base_players),
        "karmaggan_damage": damage_by_source(base_players),
        "karmaggan_spawn_turns": spawn_turns(base_players, by),
        "karmaggan_length_by_start_coins": length_by_start_coins(games, players),
        "karmaggan_starting_team_edge": starting_team_edge(players),
    }
