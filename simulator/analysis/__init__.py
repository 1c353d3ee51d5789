"""Balance analysis of balsim datasets with polars (DESIGN.md "Analysis and reports").

Open a dataset and ask questions; every answer is a tidy ``polars.DataFrame`` (call
``.to_pandas()`` for pandas)::

    from simulator.analysis import Dataset, win_rates, seat_advantage
    ds = Dataset("runs/ekonos-4p")
    win_rates(ds.players, "policy")       # win rate, game-clustered 95% interval, fair share
    seat_advantage(ds.players)            # chi-square over seats (teams), first player's excess
    attribution(ds.players)               # effects in points, seat, policy, components fixed
    summarise(ds)                         # every analysis that applies, by name

Scans are lazy (``pl.scan_parquet``) and every analysis is a ``group_by``, so 10^7 player rows
take seconds.  Wherever several players of a game are counted, the game is the unit
(:mod:`.clustered`; docs/analysis.md).  Each game's own analyses live in its package
(``simulator.games.GAME.analysis``); each returns None when the dataset lacks its columns.
"""

from __future__ import annotations

import polars as pl

from simulator.analysis.attribution import attribution, stratified_rates
from simulator.analysis.core import (
    describe,
    end_reasons,
    gini_by_game,
    gini_summary,
    histogram,
    margin_of_victory,
    margins,
    paired_difference,
    round_cap_rate,
    runaway_leader,
    seat_advantage,
    value_counts,
    win_rates,
)
from simulator.analysis.dataset import Dataset
from simulator.analysis.dealt import dealt_characters
from simulator.analysis.neighbours import neighbour_effects, neighbour_summary
from simulator.analysis.paired import paired_differences
from simulator.core.stats import chi2_sf, chi_square_uniform, gini, holm, wilson, wilson_exprs

__all__ = [
    "Dataset",
    "summarise",
    "win_rates",
    "seat_advantage",
    "describe",
    "value_counts",
    "histogram",
    "margins",
    "margin_of_victory",
    "paired_difference",
    "end_reasons",
    "round_cap_rate",
    "gini_by_game",
    "gini_summary",
    "runaway_leader",
    "wilson",
    "wilson_exprs",
    "chi2_sf",
    "chi_square_uniform",
    "gini",
    "holm",
    "attribution",
    "stratified_rates",
    "neighbour_effects",
    "neighbour_summary",
    "dealt_characters",
]

# Grouping columns for win rates, in report order; each is used when the players table has it.
WIN_RATE_GROUPS = ("seat", "policy", "character", "side", "variant")
# Components whose win rate is also shown within policy (stratified), beside the raw rate.
STRATIFIED = ("character", "side")


def summarise(ds: Dataset) -> dict[str, pl.DataFrame]:
    """Every analysis that applies to ``ds``, keyed by name (absent pieces are left out).

    Keys: ``win_rate_<group>`` for each of WIN_RATE_GROUPS present, ``seat_advantage``,
    ``score``, ``score_by_policy``, ``length``, ``length_counts``, ``margin``, ``end_reasons``,
    ``round_cap``, ``gini``, ``attribution`` (effects on the win rate
    and odds ratios, other things held fixed), ``stratified_<component>`` for each of
    STRATIFIED present, ``neighbours`` and ``neighbour_summary`` (win rate by left
    neighbour), ``dealt_character`` (cards dealt at random: :mod:`.dealt`), ``runaway_leader``
    where the game names its leader's timeline (``Game.leader``), then the game's own from
    its package (``simulator.games.GAME.analysis.summarise``, keys named after the game).  With
    several variants, the per-policy and game analyses describe the first (base) variant, and
    ``win_rate_variant`` and ``paired_change`` (each variant against the base, paired by game,
    with Holm-corrected significance) compare them.
    """
    players, games = ds.players, ds.games
    names = [v["name"] for v in ds.variants]
    out: dict[str, pl.DataFrame | None] = {}
    if len(names) > 1:
        # per-policy and game analyses describe the base rules (the first variant); variants
        # are compared by their win rates, distributions and paired changes against it
        base = pl.col("variant") == names[0]
        base_players, base_games = players.filter(base), games.filter(base)
        out["win_rate_variant"] = win_rates(players, "variant")
        out["paired_change"] = paired_differences(ds)
    else:
        base_players, base_games = players, games
    for group in WIN_RATE_GROUPS:
        if group != "variant":
            out[f"win_rate_{group}"] = win_rates(base_players, group)
    out["seat_advantage"] = seat_advantage(players)
    out["attribution"] = attribution(base_players)
    for component in STRATIFIED:
        out[f"stratified_{component}"] = stratified_rates(base_players, component)
    out["neighbours"] = neighbour_effects(base_players)
    out["neighbour_summary"] = neighbour_summary(base_players)
    variant = ["variant"] if len(names) > 1 else None
    game = ds.engine
    if game is None or game.score_unit is not None:  # else a score is only 1 for a win
        out["score"] = describe(players, "score", variant)
        out["score_by_policy"] = describe(base_players, "score", ["policy"])
        out["margin"] = margin_of_victory(players, variant)
        out["gini"] = gini_summary(players)
    out["length"] = describe(games, "length", variant)
    out["length_counts"] = value_counts(games, "length", variant)
    out["end_reasons"] = end_reasons(games)
    out["round_cap"] = round_cap_rate(games)
    leader = game.leader if game else None
    if leader is not None and leader.timeline in ds.timelines:
        out["runaway_leader"] = runaway_leader(
            ds.timeline(leader.timeline), players, leader.time, leader.value
        )
    out["dealt_character"] = dealt_characters(base_players)
    own = game.hook("analysis") if game else None
    if own is not None:
        out.update(own.summarise(ds, players, games, base_players, base_games))
    return {k: v for k, v in out.items() if v is not None and v.height > 0}
