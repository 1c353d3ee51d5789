"""``balsim ask``: the designer's four questions, one command each.

Each recipe plays a small sweep of the rules it asks about — the printed rules and a few
variants, every variant on the same games (common random numbers) — writes the dataset
(``OUT/dataset``, the usual Parquet layout, so ``balsim report`` and polars read it), a short
HTML report (``OUT/report.html``: the answer, a chart and the numbers per variant) and
``OUT/balsim.json`` (the answer and its numbers), and answers in one sentence whose numbers all
come from the dataset:

* every level is the mean over games of a per-game value (a win indicator, a gap between
  teams, a share of players) with the normal 95% interval of a mean over independent games;
* every change between two variants is paired game by game
  (:func:`simulator.analysis.core.paired_difference`);
* "the value that balances" is the swept value whose mean is closest to balance — a grid
  search on common random numbers — with its interval, which says whether balance is reached
  within the noise.
"""

from __future__ import annotations

import html
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import polars as pl

from simulator.analysis import Dataset
from simulator.analysis.core import paired_difference
from simulator.analysis.karnaxis import bracket_labels, loan_cap
from simulator.core.game import Game, get_game
from simulator.core.rules import lookup
from simulator.core.stats import Z95
from simulator.experiments.keys import with_values
from simulator.report.flags import points
from simulator.report.page import block, interval, money, pct, render_page
from simulator.run.outputs import OUT_MARK, finish_out_dir, new_out_dir
from simulator.run.runner import Plan, Variant, execute
from simulator.studies.study import study_seats

SCHEMA = 1
TAX_KEY = "taxes.standard_usd"
TAX_SHAPES = {"flatter": 0.5, "steeper": 1.5}  # spread of the tax table around its mean
TAX_ROUND = 5_000  # table entries in $5,000 steps, as printed
LOAN_CAPS = (25_000, 50_000, 75_000, 100_000, 150_000, 200_000, 300_000)
BLOOD_COINS = (2, 3, 4, 5, 6, 7, 8)
PRESIDENCY_POINTS = (-5, -10, -15, -20, -22, -24, -26, -30)  # scoring.per_presidency tried
CASH_POINTS = (2, 3)  # scoring.per_mu tried
EKONOS_VARIANTS = {  # scoring changes: a presidency costs points, or cash counts more
    **{f"presidency_{v}": {"scoring.per_presidency": v} for v in PRESIDENCY_POINTS},
    **{f"cash_x{v}": {"scoring.per_mu": v} for v in CASH_POINTS},
}


@dataclass
class Answer:
    sentence: str
    numbers: dict  # every number of the sentence, by name (fractions, not percent)
    table: pl.DataFrame  # per variant: the levels the chart draws
    chart: str  # the column of ``table`` to draw against the variants


@dataclass(frozen=True)
class Recipe:
    name: str
    game: str
    players: int
    games: int  # default games per variant
    summary: str  # one line for --help
    variants: Callable[[Game, dict], list[Variant]]
    answer: Callable[[Dataset], Answer]


# ---- per-game values and their intervals ------------------------------------------------------


def mean_ci(frame: pl.DataFrame, value: str, variant: str) -> tuple[float, float, float]:
    """(mean, low, high) of a per-game ``value`` in one variant: the normal 95% interval of a
    mean over independent games."""
    x = frame.filter((pl.col("variant") == variant) & pl.col(value).is_not_null())[value]
    x = x.cast(pl.Float64).to_numpy()
    mean = float(x.mean()) if len(x) else float("nan")
    half = Z95 * float(x.std(ddof=1)) / np.sqrt(len(x)) if len(x) > 1 else float("nan")
    return mean, mean - half, mean + half


def change(frame: pl.DataFrame, value: str, base: str, variant: str) -> tuple[float, float, float]:
    """(mean change, low, high) of a per-game ``value`` from ``base`` to ``variant``, paired
    by game."""
    r = paired_difference(frame.filter(pl.col(value).is_not_null()), value, base, variant).row(
        0, named=True
    )
    if not r["n"]:  # no game has the value in both variants
        return float("nan"), float("nan"), float("nan")
    return r["mean_diff"], r["diff_lo"], r["diff_hi"]


def game_values(ds: Dataset, leader: str | None = None) -> pl.DataFrame:
    """One row per (variant, game): ``fair`` (the average seat's wins), ``seat0_edge`` (the
    starting seat's win minus fair), ``leader_edge`` (the ``leader`` policy's seats' wins minus
    fair) and ``length``."""
    won = pl.col("won").cast(pl.Float64)
    aggs = [
        won.mean().alias("fair"),
        (won.filter(pl.col("seat") == 0).mean() - won.mean()).alias("seat0_edge"),
    ]
    if leader:
        aggs.append(
            (won.filter(pl.col("policy") == leader).mean() - won.mean()).alias("leader_edge")
        )
    players = ds.players.with_columns(pl.col("variant").cast(pl.String))
    games = ds.games.select(
        pl.col("variant").cast(pl.String), "game_id", pl.col("length").cast(pl.Float64)
    )
    return (
        players.group_by("variant", "game_id")
        .agg(aggs)
        .join(games, on=["variant", "game_id"])
        .sort("variant", "game_id")
        .collect()
    )


def leading_policy(ds: Dataset, variant: str) -> str:
    """The policy with the highest win rate in ``variant``."""
    return (
        ds.players.filter(pl.col("variant").cast(pl.String) == variant)
        .group_by("policy")
        .agg(pl.col("won").cast(pl.Float64).mean().alias("rate"))
        .sort("rate", "policy", descending=[True, False])
        .collect()["policy"][0]
    )


def levels(
    frame: pl.DataFrame, values: list[str], variants: list[str], labels: dict
) -> pl.DataFrame:
    """The report's table: per variant, each value's mean and 95% interval."""
    rows = []
    for v in variants:
        row = {"variant": labels.get(v, v)}
        for value in values:
            row[value], row[f"{value}_lo"], row[f"{value}_hi"] = mean_ci(frame, value, v)
        rows.append(row)
    return pl.DataFrame(rows)


def points_ci(lo: float, hi: float) -> str:
    return f"95% CI {100 * lo:+.1f} to {100 * hi:+.1f}".replace("-", "−")


def balanced(lo: float, hi: float) -> str:
    return "balanced within the noise" if lo <= 0 <= hi else "still off balance"


def record(
    numbers: dict, name: str, triple: tuple[float, float, float]
) -> tuple[float, float, float]:
    numbers[name], numbers[f"{name}_lo"], numbers[f"{name}_hi"] = triple
    return triple


def variant_names(ds: Dataset) -> list[str]:
    return [v["name"] for v in ds.variants]


# ---- 1. Karnaxis tax brackets ---------------------------------------------------------------


def tax_table(printed: list[int], spread: float) -> list[int]:
    """The printed table pulled towards its mean (spread < 1: flatter) or pushed away
    (spread > 1: steeper), in $5,000 steps and never below 0; its order stays."""
    mean = sum(printed) / len(printed)
    return [
        max(0, int(round((mean + spread * (t - mean)) / TAX_ROUND)) * TAX_ROUND) for t in printed
    ]


def tax_variants(game: Game, rules: dict) -> list[Variant]:
    printed = lookup(rules, TAX_KEY)
    out = [Variant("printed", rules, {"tax_table": str(printed)})]
    for name, spread in TAX_SHAPES.items():
        table = tax_table(printed, spread)
        out.append(Variant(name, with_values(rules, {TAX_KEY: table}), {"tax_table": str(table)}))
    return out


def tax_answer(ds: Dataset) -> Answer:
    names = variant_names(ds)
    base = names[0]
    leader = leading_policy(ds, base)
    frame = game_values(ds, leader)
    years = ds.timeline("years").with_columns(pl.col("variant").cast(pl.String))
    shares = (
        years.group_by("variant", "game_id")
        .agg(
            pl.col("tax_bracket").cast(pl.Float64).mean().alias("mean_bracket"),
            *[
                (pl.col("tax_bracket") == b).cast(pl.Float64).mean().alias(f"bracket_{b}")
                for b in range(len(bracket_labels(ds.rules)))
            ],
        )
        .collect()
    )
    frame = frame.join(shares, on=["variant", "game_id"])
    labels = bracket_labels(ds.rules)
    numbers = {"leader": leader}
    counts = {b: mean_ci(frame, f"bracket_{b}", base)[0] for b in range(len(labels))}
    top = max(counts, key=counts.get)
    share = record(numbers, "top_bracket_share", mean_ci(frame, f"bracket_{top}", base))
    numbers["top_bracket"] = top
    edge = record(numbers, "leader_edge:printed", mean_ci(frame, "leader_edge", base))
    parts = [
        f"with the printed table most player-years fall in the {labels[top]} bracket "
        f"({pct(share[0])}, {ci(share)}) and {leader}, the leading policy, wins "
        f"{points(edge[0])} over the fair share ({points_ci(*edge[1:])})"
    ]
    for name in names[1:]:
        moved = record(
            numbers, f"leader_edge_change:{name}", change(frame, "leader_edge", base, name)
        )
        bracket = record(
            numbers, f"mean_bracket_change:{name}", change(frame, "mean_bracket", base, name)
        )
        table = ds.variants[names.index(name)]["rules"]["taxes"]["standard_usd"]
        parts.append(
            f"a {name} table ({', '.join(money(t) for t in table)}) changes {leader}'s "
            f"edge by {points(moved[0])} ({points_ci(*moved[1:])}) and the mean bracket "
            f"by {bracket[0]:+.2f} (95% CI {bracket[1]:+.2f} to {bracket[2]:+.2f})".replace(
                "-", "−"
            )
        )
    sentence = (
        f"Karnaxis tax brackets ({ds.n_players} players, {games_per_variant(ds):,} games "
        f"per table on the same seeds): " + "; ".join(parts) + "."
    )
    return Answer(
        sentence, numbers, levels(frame, ["leader_edge", "mean_bracket"], names, {}), "leader_edge"
    )


def ci(triple: tuple[float, float, float]) -> str:
    """The interval of a (mean, low, high) rate."""
    return interval(*triple[1:])


def games_per_variant(ds: Dataset) -> int:
    return ds.n_games // max(len(ds.variants), 1)


# ---- 2. Karnaxis loan rules -----------------------------------------------------------------


def swept(key: str, values, label: Callable) -> Callable[[Game, dict], list[Variant]]:
    """Variants of one key: the printed value first (named 'printed'), then the others."""
    column = key.rsplit(".", 1)[-1]

    def variants(game: Game, rules: dict) -> list[Variant]:
        printed = lookup(rules, key)
        out = [Variant("printed", rules, {column: printed})]
        for v in values:
            if v != printed:
                out.append(Variant(label(v), with_values(rules, {key: v}), {column: v}))
        return out

    return variants


def swept_values(ds: Dataset, key: str) -> dict[str, float]:
    """Each variant's value of ``key``, from the rules the dataset recorded."""
    return {v["name"]: lookup(v["rules"], key) for v in ds.variants}


def loan_answer(ds: Dataset) -> Answer:
    names = variant_names(ds)
    base = names[0]
    leader = leading_policy(ds, base)
    caps = swept_values(ds, "loans.cap_usd")
    frame = game_values(ds, leader)
    players = ds.players.with_columns(pl.col("variant").cast(pl.String))
    cap = pl.col("variant").replace_strict(caps, return_dtype=pl.Float64)
    loans = (
        players.group_by("variant", "game_id")
        .agg(
            (pl.col("peak_loans_outstanding_usd") >= cap)
            .cast(pl.Float64)
            .mean()
            .alias("cap_binding"),
            (pl.col("delinquent_notices") > 0).cast(pl.Float64).mean().alias("delinquent"),
        )
        .collect()
    )
    frame = frame.join(loans, on=["variant", "game_id"])
    numbers = {"leader": leader}
    binding = record(numbers, "cap_binding:printed", mean_ci(frame, "cap_binding", base))
    late = record(numbers, "delinquent:printed", mean_ci(frame, "delinquent", base))
    edge = record(numbers, "leader_edge:printed", mean_ci(frame, "leader_edge", base))
    edges = {n: mean_ci(frame, "leader_edge", n) for n in names}
    best = min(names, key=lambda n: abs(edges[n][0]))
    record(numbers, "leader_edge:best", edges[best])
    numbers["best_cap"] = caps[best]
    best_binding = record(numbers, "cap_binding:best", mean_ci(frame, "cap_binding", best))
    interest = ds.rules["loans"].get("interest_pct")
    sentence = (
        f"Karnaxis loan rules ({ds.n_players} players, {games_per_variant(ds):,} games per cap on "
        f"the same seeds): at the printed {money(loan_cap(ds.rules))} cap"
        + (f" with {interest}% interest" if interest is not None else "")
        + f" the cap binds for {pct(binding[0])} of players ({ci(binding)}) and {pct(late[0])} "
        f"get a delinquent notice ({ci(late)}), and {leader}, the leading policy, wins "
        f"{points(edge[0])} over the fair share ({points_ci(*edge[1:])}); of caps "
        f"{', '.join(money(c) for c in sorted(caps.values()))} the one that brings {leader} "
        f"closest to the fair share is {money(caps[best])}{edge_of_grid(caps, best)}: "
        f"{points(edges[best][0])} "
        f"({points_ci(*edges[best][1:])}, {balanced(*edges[best][1:])}), where the cap binds for "
        f"{pct(best_binding[0])} of players ({ci(best_binding)})"
        f"{crossing(caps, {n: e[0] for n, e in edges.items()}, money)}."
    )
    labels = {n: money(caps[n]) for n in names}
    table = levels(
        frame, ["leader_edge", "cap_binding", "delinquent"], sorted(names, key=caps.get), labels
    )
    return Answer(sentence, numbers, table, "leader_edge")


def crossing(values: dict, means: dict, show: Callable) -> str:
    """'; it changes sign between A (x) and B (y)' for the first two neighbouring values tried
    whose means lie on either side of zero: the balancing value lies between them."""
    order = sorted(values, key=values.get)
    for a, b in zip(order, order[1:]):
        if means[a] * means[b] < 0:
            return (
                f"; it changes sign between {show(values[a])} ({points(means[a])}) and "
                f"{show(values[b])} ({points(means[b])})"
            )
    return ""


def edge_of_grid(values: dict, best: str) -> str:
    """' (the lowest tried)' when the best value is at an end of the values tried: the
    balancing value may lie beyond it."""
    if values[best] == min(values.values()):
        return " (the lowest tried)"
    if values[best] == max(values.values()):
        return " (the highest tried)"
    return ""


# ---- 3. Karmaggän blood coins ---------------------------------------------------------------


def blood_coin_answer(ds: Dataset) -> Answer:
    names = variant_names(ds)
    coins = swept_values(ds, "setup.blood_coins_4_6")
    base = names[0]
    frame = game_values(ds)
    won = pl.col("won").cast(pl.Float64)
    players = ds.players.with_columns(
        pl.col("variant").cast(pl.String), pl.col("side").cast(pl.String)
    )
    # the starting team is seat 0's (its team label is drawn each game)
    teams = (
        players.group_by("variant", "game_id")
        .agg(
            won.filter(pl.col("side") == "starting").mean().alias("starting_team"),
            won.filter(pl.col("side") == "other").mean().alias("other_team"),
        )
        .with_columns((pl.col("starting_team") - pl.col("other_team")).alias("starting_team_edge"))
        .collect()
    )
    frame = frame.join(teams, on=["variant", "game_id"])
    numbers = {}
    starting = record(numbers, "starting_team:printed", mean_ci(frame, "starting_team", base))
    other = record(numbers, "other_team:printed", mean_ci(frame, "other_team", base))
    gaps = {n: mean_ci(frame, "starting_team_edge", n) for n in names}
    record(numbers, "starting_team_edge:printed", gaps[base])
    best = min(names, key=lambda n: abs(gaps[n][0]))
    numbers["best_coins"] = coins[best]
    gap = record(numbers, "starting_team_edge:best", gaps[best])
    edge = record(numbers, "seat0_edge:printed", mean_ci(frame, "seat0_edge", base))
    edge_best = record(numbers, "seat0_edge:best", mean_ci(frame, "seat0_edge", best))
    order = sorted(names, key=coins.get)
    few, many = order[0], order[-1]
    length_few = record(numbers, "length:fewest", mean_ci(frame, "length", few))
    length_many = record(numbers, "length:most", mean_ci(frame, "length", many))
    sentence = (
        f"Karmaggän blood coins ({ds.n_players} players, {games_per_variant(ds):,} games per count "
        f"on the same seeds): with the printed {coins[base]} coins the starting team (seat 0's) "
        f"wins {pct(starting[0])} ({ci(starting)}) against {pct(other[0])} ({ci(other)}); from "
        f"{coins[few]} to {coins[many]} coins its edge runs from {points(gaps[few][0])} at "
        f"{coins[few]} to {points(gaps[many][0])} at {coins[many]} and is smallest at "
        f"{coins[best]} coins{edge_of_grid(coins, best)}: {points(gap[0])} "
        f"({points_ci(*gap[1:])}, {balanced(*gap[1:])})"
        f"{crossing(coins, {n: g[0] for n, g in gaps.items()}, lambda c: f'{c} coins')}; "
        f"the starting seat's edge over the fair "
        f"share is {points(edge[0])} ({points_ci(*edge[1:])}) at {coins[base]} coins and "
        f"{points(edge_best[0])} ({points_ci(*edge_best[1:])}) at {coins[best]}; games last "
        f"{length_few[0]:.1f} rounds (95% CI {length_few[1]:.1f}–{length_few[2]:.1f}) with "
        f"{coins[few]} coins and {length_many[0]:.1f} (95% CI {length_many[1]:.1f}–"
        f"{length_many[2]:.1f}) with {coins[many]}."
    )
    labels = {n: f"{coins[n]} coins" for n in names}
    table = levels(frame, ["starting_team_edge", "seat0_edge", "length"], order, labels)
    return Answer(sentence, numbers, table, "starting_team_edge")


# ---- 4. Ekonos scoring ----------------------------------------------------------------------


def ekonos_variants(game: Game, rules: dict) -> list[Variant]:
    out = [Variant("printed", rules, {"change": ""})]
    for name, values in EKONOS_VARIANTS.items():
        text = "; ".join(f"{k}={json.dumps(v)}" for k, v in values.items())
        out.append(Variant(name, with_values(rules, values), {"change": text}))
    return out


def scoring_answer(ds: Dataset) -> Answer:
    """Cash against holdings (the winner's share of score in holdings) and the presidency edge:
    in games with a single most valuable company, its president's win minus the fair share;
    then each scoring change's edge, and the change whose edge is nearest zero."""
    names = variant_names(ds)
    base = names[0]
    frame = game_values(ds).join(presidency_values(ds), on=["variant", "game_id"])
    numbers = {}
    holdings = record(numbers, "winner_holdings:printed", mean_ci(frame, "winner_holdings", base))
    edge = record(numbers, "president_edge:printed", mean_ci(frame, "president_edge", base))
    edges = {
        n: record(numbers, f"president_edge:{n}", mean_ci(frame, "president_edge", n))
        for n in names[1:]
    }
    best = min(names[1:], key=lambda n: abs(edges[n][0]))
    numbers["best_change"] = describe_change(best)
    points_of = {
        n: lookup(ds.variants[names.index(n)]["rules"], "scoring.per_presidency")
        for n in names[1:]
        if "scoring.per_presidency" in EKONOS_VARIANTS[n]
    }
    parts = [
        f"{points(edges[n][0])} with {describe_change(n)} ({points_ci(*edges[n][1:])})"
        for n in names[1:]
    ]
    low, high = edges[best][1:]
    verdict = (
        f"{describe_change(best)} removes it: {points(edges[best][0])} "
        f"({points_ci(low, high)}, {balanced(low, high)})"
        if low <= 0 <= high
        else f"none of the changes tried removes it; the nearest is {describe_change(best)}: "
        f"{points(edges[best][0])} ({points_ci(low, high)}, {balanced(low, high)})"
    )
    sentence = (
        f"Ekonos scoring ({ds.n_players} players, {games_per_variant(ds):,} games scored each "
        f"way; the scripted policies do not read the scoring keys, so every scoring rescores the "
        f"same games): winners hold {pct(holdings[0])} of their final score in shares "
        f"({ci(holdings)}), so holdings, not cash, win; the president of the single most "
        f"valuable company wins {points(edge[0])} over the fair share ({points_ci(*edge[1:])}) "
        f"with the printed scoring, {', '.join(parts)}"
        f"{crossing(points_of, {n: edges[n][0] for n in points_of}, presidency_points)}; "
        f"{verdict}."
    )
    labels = {n: n for n in names}
    return Answer(
        sentence,
        numbers,
        levels(frame, ["president_edge", "winner_holdings"], names, labels),
        "president_edge",
    )


def presidency_values(ds: Dataset) -> pl.DataFrame:
    """One row per (variant, game): ``president_edge`` (in a game with a single most valuable
    company, its president's win minus the fair share; null otherwise or without a president)
    and ``winner_holdings`` (the winners' share of their score in holdings)."""
    companies = [
        int(c[len("company") : -len("_value")])
        for c in ds.columns("games")
        if c.startswith("company") and c.endswith("_value")
    ]
    values = [pl.col(f"company{c}_value") for c in companies]
    top = (
        ds.games.with_columns(pl.col("variant").cast(pl.String))
        .with_columns(pl.max_horizontal(values).alias("top_value"))
        .with_columns(
            pl.sum_horizontal([(v == pl.col("top_value")).cast(pl.Int32) for v in values]).alias(
                "n_top"
            ),
            pl.coalesce(
                [
                    pl.when(v == pl.col("top_value")).then(pl.lit(c))
                    for c, v in zip(companies, values)
                ]
            ).alias("top_company"),
        )
        .filter(pl.col("n_top") == 1)
        .select("variant", "game_id", "top_company")
    )
    won = pl.col("won").cast(pl.Float64)
    presides = pl.lit(False)
    for c in companies:
        presides = presides | ((pl.col("top_company") == c) & pl.col(f"company{c}_president"))
    players = ds.players.with_columns(pl.col("variant").cast(pl.String))
    return (
        players.join(top, on=["variant", "game_id"], how="left")
        .group_by("variant", "game_id")
        .agg(
            (won.filter(presides).mean() - won.mean()).alias("president_edge"),
            (pl.col("holdings_value").cast(pl.Float64) / pl.col("score"))
            .filter(pl.col("won") & (pl.col("score") > 0))
            .mean()
            .alias("winner_holdings"),
        )
        .collect()
    )


def presidency_points(v: int) -> str:
    return f"a presidency at {v} points".replace("-", "−")


def describe_change(name: str) -> str:
    return ", ".join(f"{k} = {json.dumps(v)}" for k, v in EKONOS_VARIANTS[name].items())


RECIPES = {
    r.name: r
    for r in (
        Recipe(
            "tax-brackets",
            "karnaxis",
            4,
            6_000,
            "Karnaxis: a flatter and a steeper tax table against the printed one: where "
            "players sit and the leading policy's edge.",
            tax_variants,
            tax_answer,
        ),
        Recipe(
            "loans",
            "karnaxis",
            4,
            4_000,
            "Karnaxis: loan cap binding and delinquency, and the cap that brings the leading "
            "policy closest to its fair share.",
            swept("loans.cap_usd", LOAN_CAPS, lambda v: f"cap_{v}"),
            loan_answer,
        ),
        Recipe(
            "blood-coins",
            "karmaggan",
            4,
            1_500,
            "Karmaggän: team and seat balance and game length by starting blood coins, and "
            "the count that balances the teams.",
            swept("setup.blood_coins_4_6", BLOOD_COINS, lambda v: f"coins_{v}"),
            blood_coin_answer,
        ),
        Recipe(
            "scoring",
            "ekonos",
            4,
            10_000,
            "Ekonos: cash against holdings, the presidency edge, and the scoring change "
            "that removes it.",
            ekonos_variants,
            scoring_answer,
        ),
    )
}


# ---- running a recipe -----------------------------------------------------------------------


def ask(
    recipe: Recipe,
    out: Path,
    games: int | None = None,
    seed: int = 1,
    jobs: int = -1,
    progress: bool = True,
    command: str = "",
) -> Answer:
    """Play the recipe's sweep and write OUT (whole or not at all); returns the answer."""
    game = get_game(recipe.game)
    rules = game.rules()
    n_games = games or recipe.games
    variants = recipe.variants(game, rules)
    plan = Plan(
        game=recipe.game,
        n_games=n_games,
        n_players=recipe.players,
        seats=study_seats(game, recipe.players),
        seed=seed,
        chunk_size=max(100, min(game.chunk_size, -(-n_games // 4))),
        variants=variants,
    )
    tmp = new_out_dir(out)
    try:
        execute(
            plan, tmp / "dataset", jobs=jobs, progress=progress, force=True, label=f"{recipe.name}"
        )
        answer = recipe.answer(Dataset(tmp / "dataset"))
        (tmp / "report.html").write_text(
            report_page(recipe, answer, n_games, command), encoding="utf-8"
        )
        summary = {
            "tool": "ask",
            "schema": SCHEMA,
            "command": command,
            "question": recipe.name,
            "game": recipe.game,
            "players": recipe.players,
            "seed": seed,
            "games_per_variant": n_games,
            "sentence": answer.sentence,
            "numbers": answer.numbers,
        }
        (tmp / OUT_MARK).write_text(
            json.dumps(summary, indent=2, default=float) + "\n", encoding="utf-8"
        )
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finish_out_dir(tmp, out)
    return answer


NOT_RATES = ("length", "mean_bracket")  # per-game values that are not shares of games or players


def shown(table: pl.DataFrame) -> pl.DataFrame:
    """The table as text: each value's mean and 95% interval, rates in percent."""
    values = [c for c in table.columns if c != "variant" and not c.endswith(("_lo", "_hi"))]
    out = {"variant": table["variant"]}
    for v in values:
        rows = zip(table[v], table[f"{v}_lo"], table[f"{v}_hi"])
        if v in NOT_RATES:
            out[v] = [f"{m:.2f} ({lo:.2f}–{hi:.2f})" for m, lo, hi in rows]
        else:
            out[v] = [f"{pct(m)} ({pct(lo)}–{pct(hi)})" for m, lo, hi in rows]
    return pl.DataFrame(out)


def report_page(recipe: Recipe, answer: Answer, n_games: int, command: str) -> str:
    """The short report: the answer, then a chart of the main value by variant with its 95%
    intervals beside the table of every value."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t, y = answer.table, answer.chart
    fig, ax = plt.subplots(figsize=(6, 3.2))
    x = np.arange(t.height)
    mean = t[y].to_numpy()
    err = np.clip([mean - t[f"{y}_lo"].to_numpy(), t[f"{y}_hi"].to_numpy() - mean], 0, None)
    ax.errorbar(x, mean, yerr=err, fmt="o", color="k", capsize=4)
    ax.axhline(0, color="0.5", linestyle="--", linewidth=1)
    ax.set_xticks(x, t["variant"].to_list(), fontsize=8)
    ax.set_ylabel(f"{y} (mean per game, 95% CI)", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    body = block(
        "answer-chart",
        f"{y} by variant",
        fig,
        shown(t),
        caption="Each value is the mean over games of a per-game value, with its 95% "
        "interval over games in brackets; edges and gaps are differences of "
        "win rates. Every variant played the same games. The full analysis: "
        "balsim report dataset --out full.html.",
    )
    plt.close(fig)
    answer_box = (
        f"<div class='answers'><h2>{html.escape(recipe.summary)}</h2>"
        f"<p>{html.escape(answer.sentence)}</p></div>"
    )
    meta = (
        f"balsim ask {html.escape(recipe.name)}: {n_games:,} games per variant"
        + (f"; command: {html.escape(command)}" if command else "")
        + "."
    )
    return render_page([recipe.game], meta, answer_box, "", "<li>dataset/</li>", [body])
