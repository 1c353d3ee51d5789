"""The first screen: the designer's four questions, one sentence each with number and interval.

A change or an edge is stated with its verdict (:mod:`simulator.core.verdicts`): an effect, no
effect beyond the margin (2 points) by the equivalence test, or inconclusive with the effect
the games could have detected; nothing here is called balanced without the equivalence test.

* Karnaxis tax brackets: where players sit, what the smart table saves, which bracket change
  moves the balance;
* Karnaxis loan rules: how often the cap binds, delinquency, what the cap does to the leader;
* Karmaggän blood coins: balance and length by starting count;
* Ekonos scoring: cash against holdings, and the presidency.

Each answer reads the dataset that can answer it best (a sweep with the relevant rules
variant, else the game's usual player count) and links to the section with its evidence.  A
question whose game is not in the report is left out.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import polars as pl

from simulator.analysis import Dataset, karnaxis
from simulator.core.assumed import changed_keys
from simulator.core.stats import Z95
from simulator.core.verdicts import NO_EFFECT, WIN_RATE_MARGIN, judge
from simulator.report.flags import anchor, points
from simulator.report.page import interval, money, pct

DEFAULT_PLAYERS = {"karnaxis": 4, "karmaggan": 4, "ekonos": 4}


@dataclass(frozen=True)
class Answer:
    question: str
    text: str  # one sentence with its numbers and their intervals
    link: str  # id of the block with the evidence


def variants_changing(ds: Dataset, section: str) -> list[str]:
    """Names of the dataset's variants that change a rules key under ``section``."""
    base = ds.variants[0]["rules"] if ds.variants else {}
    return [
        v["name"]
        for v in ds.variants[1:]
        if any(k.startswith(section + ".") for k in changed_keys(base, v["rules"]))
    ]


def pick(members: list, game: str, section: str | None = None):
    """(index, dataset, results) best placed to answer: a sweep varying ``section`` first,
    then the usual player count, then any dataset of the game."""
    mine = [m for m in members if m[1].game == game]
    if not mine:
        return None

    def score(m):
        _, ds, _ = m
        return (
            bool(section and variants_changing(ds, section)),
            ds.n_players == DEFAULT_PLAYERS.get(game),
            -m[0],
        )

    return max(mine, key=score)


def largest_change(ds: Dataset, res: dict, variants: list[str], group: str | None = None) -> str:
    """'variant V moves GROUP's win rate from a to b (change CI ...)' for the largest paired
    change among ``variants`` (restricted to one group when given)."""
    table = res.get("paired_change")
    if table is None or not variants:
        return ""
    rows = table.filter(
        pl.col("variant").is_in(variants)
        & (pl.col("metric") == "win_rate")
        & pl.col("group").str.starts_with("policy=")
    )
    if group:
        rows = rows.filter(pl.col("group") == group)
    if rows.is_empty():
        return ""
    r = rows.sort(pl.col("mean_diff").abs(), descending=True).row(0, named=True)
    return (
        f"variant {r['variant']} moves {r['group'].removeprefix('policy=')}'s win rate from "
        f"{pct(r['base_mean'])} to {pct(r['variant_mean'])} (change "
        f"{interval(r['diff_lo'], r['diff_hi'])}{change_verdict(r)})"
    )


def change_verdict(r: dict) -> str:
    """', significant after Holm's correction' for a change that survives it; else what the
    equivalence test says: no change beyond the margin, or what the games could detect."""
    if r["significant"]:
        return ", significant after Holm's correction"
    if r["se"] == 0:  # every paired game moved alike: no spread to test against
        if r["mean_diff"] == 0:
            return f", the same in each of the {r['n_games']:,} paired games"
        return f", the same change in each of only {r['n_games']:,} paired games: too few"
    v = judge(r["mean_diff"], r["se"], WIN_RATE_MARGIN)
    if v.kind == NO_EFFECT:
        return f", no change beyond ±{100 * WIN_RATE_MARGIN:g} points by the equivalence test"
    return (
        f", not significant after Holm's correction; these games could detect a change of "
        f"about ±{100 * v.detectable:.1f} points"
    )


def tax_answer(members) -> Answer | None:
    found = pick(members, "karnaxis", "taxes")
    if found is None or "karnaxis_tax_by_bracket" not in found[2]:
        return None
    i, ds, res = found
    base = ds.variants[0]["name"] if ds.variants else None
    brackets = res["karnaxis_tax_by_bracket"]
    if "variant" in brackets.columns and base:
        brackets = brackets.filter(pl.col("variant") == base)
    total = int(brackets["player_years"].sum())
    top = brackets.sort("player_years", descending=True).head(2)
    sits = [
        f"{r.get('income', r['tax_bracket'])} ({pct(r['share'])}, "
        f"{interval(r['share_lo'], r['share_hi'])})"
        for r in top.iter_rows(named=True)
    ]
    text = f"most player-years fall in {' and '.join(sits)}"
    smart = res.get("karnaxis_smart_savings")
    if smart is not None:
        if "variant" in smart.columns and base:
            smart = smart.filter(pl.col("variant") == base)
        used = int(smart["smart_years"].sum())
        if used:
            saved = float(smart["realised_usd"].sum()) / used
            text += (
                f"; the smart table, used in {pct(used / total)} of player-years, saves "
                f"{money(saved)} a year where used ({money(saved - karnaxis.ACCOUNTANT_USD)} "
                f"after the accountant)"
            )
    change = largest_change(ds, res, variants_changing(ds, "taxes"))
    text += f"; {change}" if change else "; no tax-table variant was played"
    return Answer(
        f"Karnaxis tax brackets ({ds.n_players} players)", text + ".", anchor(i, "brackets")
    )


def loan_answer(members) -> Answer | None:
    found = pick(members, "karnaxis", "loans")
    if found is None:
        return None
    i, ds, res = found
    base = ds.variants[0]["name"] if ds.variants else None
    players = ds.players.filter(pl.col("variant").cast(pl.String) == base) if base else ds.players
    cap = karnaxis.loan_cap(ds.rules)
    overall = karnaxis.loan_summary(players, None, cap)
    if overall is None or "cap_binding" not in overall.columns:
        return None
    r = overall.row(0, named=True)
    text = (
        f"the {money(cap)} cap binds for {pct(r['cap_binding'])} of players "
        f"({interval(r['cap_binding_lo'], r['cap_binding_hi'])})"
    )
    if "delinquent" in overall.columns:
        text += (
            f" and {pct(r['delinquent'])} get a delinquent notice "
            f"({interval(r['delinquent_lo'], r['delinquent_hi'])})"
        )
    policies = res.get("win_rate_policy")
    if policies is not None:
        leader = policies.sort("win_rate", descending=True)["policy"][0]
        change = largest_change(ds, res, variants_changing(ds, "loans"), f"policy={leader}")
        text += (
            f"; for the leading policy, {change}" if change else "; no loan-cap variant was played"
        )
    return Answer(f"Karnaxis loan rules ({ds.n_players} players)", text + ".", anchor(i, "loans"))


def edge_text(r: dict) -> str:
    return (
        f"{points(r['edge'])} (95% CI {points(r['edge_lo']).removesuffix(' points')} to "
        f"{points(r['edge_hi']).removesuffix(' points')}, {r['games']:,} games)"
    )


def edge_verdict(r: dict) -> str:
    """The starting team's edge judged against none (its normal 95% interval's se)."""
    v = judge(r["edge"], (r["edge_hi"] - r["edge_lo"]) / (2 * Z95), WIN_RATE_MARGIN)
    return v.describe(points, "edge")


def blood_coin_answer(members) -> Answer | None:
    """The starting team's (seat 0's) edge over the other at each player count studied, then
    by starting blood coins in the sweep that varies them."""
    found = pick(members, "karmaggan", "setup")
    if found is None or "karmaggan_starting_team_edge" not in found[2]:
        return None
    i, ds, res = found
    base_coins = base_start_coins(ds)
    edges = res["karmaggan_starting_team_edge"]
    at_base = edges.filter(pl.col("start_coins") == base_coins)
    if at_base.is_empty():
        return None
    r = at_base.row(0, named=True)
    text = (
        f"with the printed {base_coins} coins the starting team (seat 0's) wins "
        f"{pct(r['starting_win_rate'])} "
        f"({interval(r['starting_win_rate_lo'], r['starting_win_rate_hi'])}) against "
        f"{pct(r['other_win_rate'])} for the other, an edge of {edge_text(r)}: "
        f"{edge_verdict(r)}"
    )
    others = []
    for _, other_ds, other_res in members:
        table = other_res.get("karmaggan_starting_team_edge")
        if other_ds.game != "karmaggan" or other_ds is ds or table is None:
            continue
        row = table.filter(pl.col("start_coins") == base_start_coins(other_ds))
        if not row.is_empty():
            others.append((other_ds.n_players, row.row(0, named=True)))
    if others:
        text += "; at " + ", at ".join(f"{n} players {edge_text(o)}" for n, o in sorted(others))
    if edges.height > 1:
        few, many = edges.row(0, named=True), edges.row(-1, named=True)
        best = edges.sort(pl.col("edge").abs()).row(0, named=True)
        text += (
            f"; at {ds.n_players} players its edge runs from {points(few['edge'])} with "
            f"{few['start_coins']} coins to {points(many['edge'])} with "
            f"{many['start_coins']} and is smallest with {best['start_coins']}: "
            f"{edge_text(best)}"
        )
    lengths = res.get("karmaggan_length_by_start_coins")
    if lengths is not None and lengths.height > 1:
        first, last = lengths.row(0, named=True), lengths.row(-1, named=True)
        text += (
            f"; games last a median of {first['p50']:g} rounds with {first['start_blood_coins']} "
            f"coins and {last['p50']:g} with {last['start_blood_coins']}"
        )
    return Answer(
        f"Karmaggän blood coins ({ds.n_players} players)", text + ".", anchor(i, "team-coins")
    )


def base_start_coins(ds: Dataset) -> int:
    """The starting blood coins of the dataset's base rules (its first variant)."""
    players = ds.players
    if ds.variants:
        players = players.filter(pl.col("variant").cast(pl.String) == ds.variants[0]["name"])
    return int(players.select(pl.col("start_blood_coins").max()).collect().item())


def scoring_answer(members) -> Answer | None:
    found = pick(members, "ekonos")
    if found is None:
        return None
    i, ds, res = found
    shares, pres = res.get("ekonos_holdings_share"), res.get("ekonos_presidency")
    parts = []
    if shares is not None and shares.height == 2:
        w, o = shares.row(0, named=True), shares.row(1, named=True)
        parts.append(
            f"winners hold {pct(w['share'])} of their final score in shares "
            f"({interval(w['share_lo'], w['share_hi'])}) against {pct(o['share'])} for "
            f"the others, so holdings, not cash, win"
        )
    within = res.get("ekonos_presidency_within_policy")
    if pres is not None:
        top = pres.filter(pl.col("player") == "top_president")
        if top.height:
            r = top.row(0, named=True)
            text = (
                f"the president of the single most valuable company at "
                f"{r.get('measured_at', 'end')} wins {pct(r['win_rate'])} "
                f"({interval(r['win_rate_lo'], r['win_rate_hi'])})"
            )
            fixed = (
                within.filter(pl.col("level") == "top_president") if within is not None else None
            )
            if fixed is not None and fixed.height:
                a = fixed.row(0, named=True)
                text += (
                    f" against {pct(a['expected_rate'])} for players of the same policies who "
                    f"do not preside it"
                )
            parts.append(
                f"{text} and a fair share of {pct(r['fair_share'])} "
                f"({pct(r['tied_games_share'])} of games tie for most valuable and are "
                f"counted apart)"
            )
    if not parts:
        return None
    return Answer(
        f"Ekonos scoring ({ds.n_players} players)", "; ".join(parts) + ".", anchor(i, "split")
    )


def answers_html(members: list) -> str:
    """The answers box; ``members`` are (index, dataset, results) of every dataset."""
    found = [
        a
        for a in (
            tax_answer(members),
            loan_answer(members),
            blood_coin_answer(members),
            scoring_answer(members),
        )
        if a is not None
    ]
    if not found:
        return ""
    items = "".join(
        f"<li><b>{html.escape(a.question)}:</b> {html.escape(a.text)} "
        f"<a href='#{a.link}'>→ evidence</a></li>"
        for a in found
    )
    return f"<div class='answers'><h2>Answers</h2><ul>{items}</ul></div>"
