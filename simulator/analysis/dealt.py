"""Cards dealt at random: how each does in the hands it is dealt to, chance alone.

Where a game deals cards and each player keeps one (a character at set-up), a kept card's win
rate mixes the card with the choosing policy; being *dealt* a card is chance alone, so the win
rate of the players dealt it, against those not dealt it, is a randomised estimate of its
worth.  Reads the players' ``character`` and ``dealt_character_<k>`` columns (one per card
dealt, "none" where fewer were dealt); None without them.
"""

from __future__ import annotations

import re

import polars as pl

from simulator.analysis.clustered import cluster_keys, rates, with_rates
from simulator.analysis.core import as_list, columns, has, lazy
from simulator.core.stats import Z95

DEALT = re.compile(r"dealt_character_\d+$")  # the characters dealt at Game Setup, one column each


def dealt_characters(players, by=None) -> pl.DataFrame | None:
    """Which dealt characters are kept, and how each does when merely dealt.

    Game Setup deals characters and the player keeps one, so a kept character's win rate
    mixes the card with the choosing policy; being *dealt* a character is chance alone.  Per
    character (and ``by``, e.g. policy): n_dealt (players dealt it), kept, keep_rate (kept /
    n_dealt), win_rate_dealt (wins among the players dealt it) and win_rate_kept (wins among
    those who kept it), each with a game-clustered 95% interval; and ``dealt_effect``, the
    randomised estimate: win_rate_dealt minus the win rate of the players (of the same
    ``by`` group) not dealt it, with its interval (``dealt_effect_lo``/``_hi``).  Being dealt
    a card is an offer, not a holding, so the effect of keeping it is about dealt_effect
    divided by the keep rate.  Needs the ``dealt_character_<k>`` columns (one per card dealt;
    "none" where fewer were dealt); None without them.
    """
    dealt_columns = [c for c in columns(players) if DEALT.match(c)] if players is not None else []
    if not dealt_columns or not has(players, "character", "won"):
        return None
    by = [b for b in as_list(by) if has(players, b)]
    lf = lazy(players).with_columns(pl.col("character").cast(pl.String)).with_row_index("_player")
    games = cluster_keys(lf) or ["_player"]
    dealt = (
        pl.concat(
            [
                lf.select(
                    *dict.fromkeys([*games, "_player"]),
                    *by,
                    "won",
                    pl.col(c).cast(pl.String).alias("character_dealt"),
                    (pl.col(c).cast(pl.String) == pl.col("character")).alias("kept"),
                )
                for c in dealt_columns
            ]
        )
        .filter(pl.col("character_dealt") != "none")
        .unique(["_player", "character_dealt"], keep="first", maintain_order=True)
    )
    groups = ["character_dealt", *by]
    won = pl.col("won").cast(pl.Int64)
    counts = (
        dealt.group_by(groups)
        .agg(
            n_dealt=pl.len(),
            kept=pl.col("kept").cast(pl.Int64).sum(),
            wins_dealt=won.sum(),
            wins_kept=(won * pl.col("kept").cast(pl.Int64)).sum(),
        )
        .collect()
    )
    out = with_rates(
        counts, dealt, groups, {"keep_rate": pl.col("kept"), "win_rate_dealt": pl.col("won")}
    )
    kept = rates(dealt.filter(pl.col("kept")), groups, pl.col("won"), "win_rate_kept")
    out = out.join(
        kept.select(*groups, "win_rate_kept", "win_rate_kept_lo", "win_rate_kept_hi"),
        on=groups,
        how="left",
    )
    effect = dealt_effects(lf, dealt, games, by)
    return (
        out.join(effect, on=groups, how="left")
        .rename({"character_dealt": "character"})
        .sort("character", *by)
    )


def dealt_effects(lf: pl.LazyFrame, dealt: pl.LazyFrame, games: list[str], by: list[str]):
    """Per dealt character (and ``by``): the win rate of its players minus the others', the
    game the unit (each game's influences on both rates, summed before squaring)."""
    groups = ["character_dealt", *by]
    everyone = lf.group_by(*by, *games).agg(
        K=pl.col("won").cast(pl.Float64).sum(), N=pl.len().cast(pl.Float64)
    )
    offered = dealt.group_by(*groups, *games).agg(
        kd=pl.col("won").cast(pl.Float64).sum(), nd=pl.len().cast(pl.Float64)
    )
    characters = dealt.select("character_dealt").unique()
    grid = (
        everyone.join(characters, how="cross")
        .join(offered, on=[*groups, *games], how="left")
        .with_columns(pl.col("kd", "nd").fill_null(0.0))
        .with_columns(ko=pl.col("K") - pl.col("kd"), no=pl.col("N") - pl.col("nd"))
    )
    sums = grid.group_by(groups).agg(
        pl.col("kd", "nd", "ko", "no").sum().name.suffix("_all"), G=pl.len()
    )
    rate_dealt, rate_other = (
        pl.col("kd_all") / pl.col("nd_all"),
        pl.col("ko_all") / pl.col("no_all"),
    )
    psi = (pl.col("kd") - rate_dealt * pl.col("nd")) / pl.col("nd_all") - (
        pl.col("ko") - rate_other * pl.col("no")
    ) / pl.col("no_all")
    g = pl.col("G").cast(pl.Float64)
    se = ((g / (g - 1)) * pl.col("S")).sqrt()
    return (
        grid.join(sums, on=groups)
        .group_by(groups)
        .agg(
            dealt_effect=(rate_dealt - rate_other).first(),
            S=(psi**2).sum(),
            G=pl.col("G").first(),
        )
        .with_columns(se.alias("se"))
        .select(
            *groups,
            "dealt_effect",
            dealt_effect_lo=pl.col("dealt_effect") - Z95 * pl.col("se"),
            dealt_effect_hi=pl.col("dealt_effect") + Z95 * pl.col("se"),
        )
        .collect()
    )
