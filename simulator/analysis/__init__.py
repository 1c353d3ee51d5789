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
    find_rule,
    gini_by_game,
    gini_summary,
    has,
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
from simulator.analysis.neighbours import neighbour_effects, neighbour_summary
from simulator.analysis.paired import paired_differences
from simulator.core.stats import chi2_sf, chi_square_uniform, gini, holm, wilson, wilson_exprs
from simulator.games.ekonos import analysis as ekonos
from simulator.games.karmaggan import analysis as karmaggan
from simulator.games.karnaxis import analysis as karnaxis

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
    "find_rule",
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
    "karnaxis",
    "karmaggan",
    "ekonos",
]

# Grouping columns for win rates, in report order; each is used when the players table has it.
WIN_RATE_GROUPS = ("seat", "policy", "character", "side", "variant")
# Components whose win rate is also shown within policy (stratified), beside the raw rate.
STRATIFIED = ("character", "side")


def summarise(ds: Dataset) -> dict[str, pl.DataFrame]:
    """Every analysis that applies to ``ds``, keyed by name (absent pieces are left out).

    Keys: ``win_rate_<group>`` for each of WIN_RATE_GROUPS present, ``seat_advantage``,
    ``score``, ``score_by_policy``, ``length``, ``length_counts``, ``margin``, ``end_reasons``,
    ``round_cap``, ``gini``, ``runaway_leader``, ``attribution`` (effects on the win rate
    and odds ratios, other things held fixed), ``stratified_<component>`` for each of
    STRATIFIED present, ``neighbours`` and ``neighbour_summary`` (win rate by left
    neighbour), then the game's own (``karnaxis_*``, ``karmaggan_*``, ``ekonos_*``).  With
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
    scored = ds.game != "karmaggan"  # Karmaggän's score is only 1/0 for the winning side
    if scored:
        out["score"] = describe(players, "score", variant)
        out["score_by_policy"] = describe(base_players, "score", ["policy"])
        out["margin"] = margin_of_victory(players, variant)
        out["gini"] = gini_summary(players)
    out["length"] = describe(games, "length", variant)
    out["length_counts"] = value_counts(games, "length", variant)
    out["end_reasons"] = end_reasons(games)
    out["round_cap"] = round_cap_rate(games)
    if ds.game == "karnaxis":
        out.update(_karnaxis(ds, players, base_players))
    elif ds.game == "karmaggan":
        out.update(_karmaggan(ds, players, games, base_players))
    elif ds.game == "ekonos":
        out.update(_ekonos(ds, base_players, base_games))
    return {k: v for k, v in out.items() if v is not None and v.height > 0}


def _karnaxis(ds: Dataset, players, base_players) -> dict:
    years = ds.timeline("years")
    standard, smart = karnaxis.tax_tables(ds.rules)
    out = {
        "karnaxis_taxes": karnaxis.taxes_by_policy(base_players),
        "karnaxis_loans": karnaxis.loan_summary(
            base_players, "policy", karnaxis.loan_cap(ds.rules)
        ),
        "karnaxis_rank_titles": karnaxis.rank_titles(base_players, "policy"),
        "karnaxis_dealt": karnaxis.dealt_characters(base_players),
    }
    if years is not None:

        def brackets(df):
            return karnaxis.label_brackets(df, ds.rules)

        out.update(
            {
                "runaway_leader": runaway_leader(years, players, "year", "cash_usd"),
                "karnaxis_tax_by_bracket": brackets(karnaxis.tax_by_bracket(years)),
                "karnaxis_tax_by_year": karnaxis.tax_by_year(years),
                "karnaxis_bracket_shares": brackets(
                    karnaxis.bracket_shares(years, players, "policy")
                ),
                "karnaxis_smart_savings": brackets(
                    karnaxis.smart_tax_savings(years, standard, smart)
                ),
                "karnaxis_cash_by_year": karnaxis.cash_trajectories(years, players, "policy"),
            }
        )
    return out


def _karmaggan(ds: Dataset, players, games, base_players) -> dict:
    timelines = {name: ds.timeline(name) for name in ds.timelines}
    blood = karmaggan.blood_timeline_name(timelines)
    by = "side" if has(players, "side") else "policy"
    return {
        "karmaggan_blood_coins": karmaggan.blood_coins(base_players, by),
        "karmaggan_blood_by_round": karmaggan.blood_by_round(timelines[blood], players, by)
        if blood
        else None,
        "karmaggan_deaths": karmaggan.deaths(base_players, by),
        "karmaggan_death_rounds": karmaggan.death_rounds(base_players),
        "karmaggan_damage": karmaggan.damage_by_source(base_players),
        "karmaggan_spawn_turns": karmaggan.spawn_turns(base_players, by),
        "karmaggan_length_by_start_coins": karmaggan.length_by_start_coins(games, players),
        "karmaggan_starting_team_edge": karmaggan.starting_team_edge(players),
        "runaway_leader": runaway_leader(
            timelines[blood],
            players,
            "round",
            next(c for c in timelines[blood].collect_schema().names() if "blood" in c),
        )
        if blood
        else None,
    }


def _presidency_within_policy(games, players):
    frame = ekonos.with_presidency(games, players)
    return stratified_rates(frame, "presidency") if frame is not None else None


def _ekonos(ds: Dataset, players, games) -> dict:
    names = ds.rules.get("companies", {}).get("names")
    return {
        "ekonos_score_split": ekonos.score_split(players, "policy"),
        "ekonos_score_split_winners": ekonos.score_split(players, "won"),
        "ekonos_holdings_share": ekonos.holdings_share(players),
        "ekonos_company_values": ekonos.company_values(games, names),
        "ekonos_presidency": ekonos.presidency_advantage(games, players),
        "ekonos_presidency_within_policy": _presidency_within_policy(games, players),
        "ekonos_presidencies_held": ekonos.presidencies_held(players),
    }
