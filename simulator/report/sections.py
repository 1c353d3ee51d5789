"""The report's sections: seat advantage per game, then one section per dataset (who wins,
what moves the win rate with the rest held fixed, scores and length, the game's own parts)."""

from __future__ import annotations

import html

import polars as pl

from simulator.analysis import Dataset
from simulator.report.charts import (
    adjusted_bars,
    box_chart,
    count_bars,
    diff_bars,
    exporting,
    most_title,
    odds_chart,
    rate_bars,
    share,
)
from simulator.report.page import VALUE_WORDS, block, column_name

ATTRIBUTION_NOTE = (
    "Logistic regression of winning on seat, policy, the left neighbour's policy and the game's "
    "components (statsmodels Logit, standard errors clustered by game). A factor's odds ratio "
    "compares a level with the average level of that factor, others held fixed; a count's is "
    "per unit. Holm-corrected: over the table. A level that never wins has no finite "
    "odds ratio; a factor the others determine (e.g. a team, on the starting team or not, "
    "where the teams are the seats' parity) is 'aliased'."
)
STRATIFIED_NOTE = (
    "Bars: the win rate within policy with its interval; diamonds: the win rate as played; "
    "dashed: fair share. Within policy: the level's win rate within each policy, averaged "
    "with the whole field's policy mix (95% normal interval). Confounded: each lies outside "
    "the other's interval, so the rate as played reflects who picks the level. Expected: what "
    "players of the same policies win without the level; over expected: as played minus "
    "expected, with its interval (the effect among those who hold it). Main policy: the "
    "policy most of the level's players use, and its share."
)
NEIGHBOUR_NOTE = (
    "The players seated just after each policy (the left neighbour plays just before "
    "them), against the rate their own policies have after any neighbour: the difference "
    "with a normal 95% interval, Holm-corrected over the table. The table under it: each "
    "policy after each left neighbour, with a chi-square test per policy (Holm-corrected)."
)


def game_section(game: str, members: list, field_of=lambda ds: "scripted") -> str:
    """Seat advantage across the player counts of one game's datasets, every field played
    side by side (``field_of(dataset)`` names a dataset's), and whether the line-ups the
    counts compare differ."""
    frames = [
        r["seat_advantage"].with_columns(pl.lit(field_of(ds)).alias("field"))
        for _, ds, r in members
        if "seat_advantage" in r
    ]
    if not frames:
        return ""
    seat = pl.concat(
        [
            f.with_columns(pl.col("variant").cast(pl.String)) if "variant" in f.columns else f
            for f in frames
        ],
        how="diagonal_relaxed",
    ).sort("n_players", "field")
    anchor = f"game-{game}-seats"
    several = seat["field"].n_unique() > 1
    labels = [
        f"{n}p"
        + (f" {f}" if several else "")
        + (f" {v}" if "variant" in seat.columns and seat["variant"].n_unique() > 1 else "")
        for n, f, v in zip(
            seat["n_players"],
            seat["field"],
            seat["variant"] if "variant" in seat.columns else [""] * seat.height,
        )
    ]
    chart = seat.with_columns(pl.Series("players", labels))
    fig = rate_bars(
        chart.rename(
            {"first_win_rate": "r", "first_win_rate_lo": "r_lo", "first_win_rate_hi": "r_hi"}
        ),
        "players",
        "r",
        "first player's win rate (%)",
        title=first_player_title(seat),
        fairs=chart["fair_share"].to_list(),
    )
    keep = [
        "n_players",
        "field",
        "variant",
        "n_games",
        "chi2",
        "dof",
        "p_value",
        "first_win_rate",
        "first_win_rate_lo",
        "first_win_rate_hi",
        "fair_share",
        "first_excess",
        "best_seat",
        "best_win_rate",
        "worst_seat",
        "worst_win_rate",
    ]
    with exporting(None, f"{game}-all-player-counts"):
        chart_block = block(
            anchor,
            "Seat advantage by player count",
            fig,
            seat,
            "Chi-square of wins over seats against equal shares, and the first player's "
            "win rate against the fair share (average win rate at that player count)."
            + (" Each field played is a row of its own." if several else ""),
            keep,
        )
    return (
        f"<section><h2 id='game-{game}'>{html.escape(game.capitalize())}: seat advantage by "
        f"player count</h2>{lineups_note(members, field_of)}{chart_block}</section>"
    )


def lineups_note(members: list, field_of) -> str:
    """Which policies sit at each player count of a field, when they differ between counts:
    a comparison across counts then compares tables of other players too."""
    notes = []
    for field in dict.fromkeys(field_of(ds) for _, ds, _ in members):
        mix = {
            ds.n_players: ", ".join(sorted(set(ds.manifest.get("seats") or [])))
            for _, ds, _ in sorted(members, key=lambda m: m[1].n_players)
            if field_of(ds) == field
        }
        if len(set(mix.values())) > 1:
            each = "; ".join(f"{n} players: {policies}" for n, policies in mix.items())
            notes.append(
                f"The {field} line-ups differ between player counts ({each}), so a change "
                "across counts is the count's and the policy mix's together."
            )
    return "".join(f"<p class='note'>{html.escape(n)}</p>" for n in notes)


def first_player_title(seat: pl.DataFrame) -> str:
    """'First player wins 38% at 3 players, fair share 34.5%' at the count farthest from it."""
    r = seat.sort((pl.col("first_win_rate") - pl.col("fair_share")).abs(), descending=True).row(
        0, named=True
    )
    return (
        f"First player wins {share(r['first_win_rate'])} at {r['n_players']} players, "
        f"fair share {share(r['fair_share'])}"
    )


GROUP_NAMES = {"seat": "seat", "policy": "policy", "character": "character", "side": "team"}


def dataset_section(i: int, ds: Dataset, res: dict) -> str:
    pid = f"ds{i}"
    parts = [f"<section><h2 id='{pid}'>{html.escape(ds.label)}</h2>", dataset_facts(ds)]
    unit = ds.length_unit
    if len(ds.variants) > 1:
        parts.append(
            f"<p class='note'>{len(ds.variants)} variants: the charts by seat, policy, "
            f"character or side and the game's own analyses describe the first, "
            f"<b>{html.escape(ds.variants[0]['name'])}</b>; the variants are compared in "
            f"'Change against the base rules' and the distributions split by variant.</p>"
        )
    parts.append("<h3>Who wins</h3>")
    # by variant, every variant's players win the fair share on average: no chart of it
    for group in ("seat", "policy", "character", "side"):
        df = res.get(f"win_rate_{group}")
        if df is None:
            continue
        if group == "seat":
            df = df.with_columns(pl.format("seat {}", "seat").alias("seat"))
        df = df.with_columns(pl.col(group).cast(pl.String))
        anchor = f"{pid}-win-{group}"
        title = (
            "Win rate of the starting team (seat 0's) and the other"
            if group == "side"
            else f"Win rate by {group}"
        )
        fig = rate_bars(
            df,
            group,
            "win_rate",
            "win rate (% of player-games)",
            df["fair_share"][0],
            title=most_title(df, group, "win_rate", "wins", df["fair_share"][0]),
        )
        parts.append(
            block(
                anchor,
                title,
                fig,
                df,
                "Bars: win rate with Wilson 95% interval; dashed: fair share.",
                [
                    group,
                    "n",
                    "wins",
                    "win_rate",
                    "win_rate_lo",
                    "win_rate_hi",
                    "fair_share",
                    "excess",
                ],
            )
        )
    parts.append(attribution_parts(pid, ds, res))

    df = res.get("paired_change")
    if df is not None:
        rates = df.filter(pl.col("metric") == "win_rate").with_columns(
            pl.format(
                "{} · {}{}",
                "variant",
                pl.col("group").str.replace("^[a-z_]+=", ""),
                pl.when("significant").then(pl.lit(" *")).otherwise(pl.lit("")),
            ).alias("label"),
            *[(100 * pl.col(c)).alias(c) for c in ("mean_diff", "diff_lo", "diff_hi")],
        )
        parts.append(
            block(
                f"{pid}-paired",
                "Change against the base rules",
                diff_bars(
                    rates,
                    "label",
                    f"change of win rate against {ds.variants[0]['name']} (points)",
                    largest_change_title(rates),
                ),
                paired_table(df),
                "Paired by game (same deals and rolls): mean difference with a "
                "normal 95% interval; * and 'significant' = survives Holm's correction over the "
                "whole table at 5%.",
            )
        )
    parts.append("<h3>Scores and game length</h3>")
    if "score_by_policy" in res:
        df = res["score_by_policy"]
        parts.append(
            block(
                f"{pid}-score",
                "Final score by policy",
                box_chart(df, "policy", score_unit(ds), top_median_title(df, "policy", "scores")),
                df,
            )
        )
    if "margin" in res:
        df = res["margin"]
        parts.append(
            block(
                f"{pid}-margin",
                "Margin of victory (winner minus runner-up)",
                box_chart(
                    df,
                    "variant",
                    score_unit(ds),
                    f"The winner leads the runner-up by a median of {df['p50'][0]:,.3g}",
                ),
                df,
            )
        )
    if "length_counts" in res:
        df = base_variant(res["length_counts"], ds)
        lengths = res.get("length")
        median = base_variant(lengths, ds)["p50"][0] if lengths is not None else None
        fig = count_bars(
            df["length"].to_list(),
            [100 * s for s in df["share"].to_list()],
            f"game length ({unit})",
            "% of games",
            f"Games last a median of {median:g} {unit}" if median is not None else "",
        )
        parts.append(block(f"{pid}-length", f"Game length ({unit})", fig, res.get("length")))
    if "end_reasons" in res:
        df = res["end_reasons"]
        anchor = f"{pid}-end"
        ends = pl.col("end_reason").cast(pl.String).replace(VALUE_WORDS)
        chart = df.with_columns(
            (
                pl.format("{}: {}", "variant", ends)
                if "variant" in df.columns and df["variant"].n_unique() > 1
                else ends
            ).alias("ends")
        )
        fig = rate_bars(
            chart, "ends", "share", "% of games", title=most_title(chart, "ends", "share", "", None)
        )
        parts.append(block(anchor, "How games end", fig, df))
    if "gini" in res:
        df = res["gini"]
        parts.append(
            block(
                f"{pid}-gini",
                "Inequality of final scores (Gini per game)",
                box_chart(
                    df,
                    "variant",
                    "Gini (0 = equal, 1 = one takes all)",
                    f"Final scores' inequality: median Gini {df['p50'][0]:.2f}",
                ),
                df,
            )
        )
    if "runaway_leader" in res:
        df = res["runaway_leader"]
        anchor = f"{pid}-runaway"
        lab = "variant" if "variant" in df.columns else None
        chart = (
            df.with_columns(pl.col("variant").cast(pl.String))
            if lab
            else df.with_columns(pl.lit("all").alias("variant"))
        )
        fig = rate_bars(
            chart,
            "variant",
            "rate",
            "% of games the leader at 2/3 wins",
            df["fair_share"][0],
            f"The leader two thirds in wins {share(chart['rate'][0])} of games "
            f"(fair share {share(df['fair_share'][0])})",
        )
        leader = ds.engine.leader if ds.engine else None
        measure = leader.words if leader else "score"
        parts.append(
            block(
                anchor,
                "Runaway leader: does the leader two thirds in win?",
                fig,
                df,
                f"Leader: the seat with the most {measure} two thirds of the way "
                f"through the game (e.g. year 8 of 12); dashed: fair share.",
            )
        )
    own = ds.engine.hook("report") if ds.engine else None
    if own is not None:
        parts.append(own.sections(pid, ds, res))
    parts.append("</section>")
    return "".join(parts)


def base_variant(df: pl.DataFrame, ds: Dataset) -> pl.DataFrame:
    """The rows of the dataset's first variant (all rows when it has one)."""
    if "variant" not in df.columns or len(ds.variants) < 2:
        return df
    return df.filter(pl.col("variant").cast(pl.String) == ds.variants[0]["name"])


def paired_table(df: pl.DataFrame) -> pl.DataFrame:
    """The paired changes as text: a win rate's in percent and points, another measure's in
    its own unit."""
    from simulator.report.page import number, p_number, pct, points_text

    rows = []
    for r in df.iter_rows(named=True):
        rate = r["metric"].endswith("rate")
        value = pct if rate else number
        change = points_text if rate else (lambda x: f"{x:+.3g}".replace("-", "−"))
        rows.append(
            {
                "variant": r["variant"],
                "measure": r["metric"].replace("_", " ") + (" (points)" if rate else ""),
                "players compared": r["group"].replace("=", " ").replace("_", " "),
                "games": r["n"],
                "base rules": value(r["base_mean"]),
                "variant's": value(r["variant_mean"]),
                "change": change(r["mean_diff"]),
                "95% interval": f"{change(r['diff_lo'])} to {change(r['diff_hi'])}",
                "p-value (Holm)": p_number(r["p_holm"]) if "p_holm" in r else "–",
                "significant after Holm": r.get("significant", False),
            }
        )
    return pl.DataFrame(rows)


def largest_change_title(rates: pl.DataFrame) -> str:
    """The paired change farthest from zero, in points (``rates`` already in points)."""
    if rates.is_empty():
        return ""
    r = rates.sort(pl.col("mean_diff").abs(), descending=True).row(0, named=True)
    return f"Largest change: {r['label'].rstrip(' *')}, {r['mean_diff']:+.1f} points"


def top_median_title(df: pl.DataFrame, label: str, verb: str) -> str:
    r = df.sort("p50", descending=True).row(0, named=True)
    return f"{r[label]} {verb} highest, median {r['p50']:,.3g}"


def score_unit(ds: Dataset) -> str:
    return (ds.engine.score_unit if ds.engine else None) or "score"


def incomplete(ds: Dataset) -> str:
    """What to say of a dataset whose run was interrupted ("" when it is complete)."""
    if ds.manifest.get("status") == "complete":
        return ""
    planned = ds.manifest["n_games"] * max(len(ds.variants), 1)
    return f"INCOMPLETE: interrupted run, {ds.n_games:,} of {planned:,} games played"


def dataset_facts(ds: Dataset) -> str:
    m = ds.manifest
    variants = (
        ", ".join(v["name"] + (f" ({v['values']})" if v.get("values") else "") for v in ds.variants)
        or "–"
    )
    facts = [
        ("game", ds.game),
        ("players", ds.n_players),
        ("games", f"{ds.n_games:,}"),
        (
            "seats (policies)",
            ", ".join(m.get("seats", []))
            + (" — as listed in every game" if m.get("fixed_seats") else " — balanced seat orders"),
        ),
        ("variants", variants),
        ("seed", m.get("seed")),
        ("engine", m.get("engine_version")),
        ("folder", str(ds.path)),
    ]
    if incomplete(ds):
        facts.insert(0, ("status", incomplete(ds)))
    rows = "".join(f"<tr><th>{k}</th><td>{html.escape(str(v))}</td></tr>" for k, v in facts)
    return f"<table class='facts'>{rows}</table>"


def attribution_parts(pid: str, ds: Dataset, res: dict) -> str:
    """Odds ratios with seat, policy and components held fixed; component rates within policy."""
    parts = []
    df = res.get("attribution")
    if df is not None:
        df = df.with_columns(
            pl.col("component").map_elements(column_name, return_dtype=pl.String),
        )
        parts.append("<h3>What moves the win rate, other things held fixed</h3>")
        parts.append(
            block(
                f"{pid}-attribution",
                "Attribution: odds ratios of winning",
                odds_chart(df, odds_title(df)),
                df,
                ATTRIBUTION_NOTE,
                [
                    "component",
                    "level",
                    "n",
                    "win_rate",
                    "odds_ratio",
                    "or_lo",
                    "or_hi",
                    "p_holm",
                    "note",
                ],
            )
        )
    titles = {
        "character": "Character win rates within policy",
        "side": "Starting and other team win rates within policy",
    }
    rates = res.get("win_rate_policy")
    for component, title in titles.items():
        df = res.get(f"stratified_{component}")
        if df is not None:
            fair = rates["fair_share"][0] if rates is not None else None
            chart = df.with_columns(pl.col("level").cast(pl.String))
            fig = adjusted_bars(
                df,
                fair,
                most_title(chart, "level", "adjusted_rate", "wins", fair) + " within policy",
            )
            parts.append(
                block(
                    f"{pid}-attribution-{component}",
                    title,
                    fig,
                    df.drop("component"),
                    STRATIFIED_NOTE,
                )
            )
    df = res.get("dealt_character")
    if df is not None:
        fig = rate_bars(
            df,
            "character",
            "win_rate_dealt",
            "win rate when dealt (% of players)",
            title=most_title(df, "character", "win_rate_dealt", "wins", None) + " when dealt",
        )
        parts.append(
            block(
                f"{pid}-dealt",
                "Characters dealt and kept",
                fig,
                df,
                "Being dealt a character is chance alone, so the win rate when dealt is free "
                "of the policy's choice; kept when dealt: how often a player dealt the card "
                "keeps it.",
            )
        )
    df = res.get("neighbour_summary")
    if df is not None:
        chart = df.select(
            "left_policy",
            *[
                (100 * pl.col(a)).alias(b)
                for a, b in (
                    ("excess", "mean_diff"),
                    ("excess_lo", "diff_lo"),
                    ("excess_hi", "diff_hi"),
                )
            ],
        )
        top = chart.sort(pl.col("mean_diff").abs(), descending=True).row(0, named=True)
        fig = diff_bars(
            chart,
            "left_policy",
            "win rate after it minus the players' own rate (points)",
            f"Seated after {top['left_policy']}, players win {top['mean_diff']:+.1f} points",
        )
        parts.append(
            block(f"{pid}-neighbours", "Win rate by left neighbour", fig, df, NEIGHBOUR_NOTE)
        )
        parts.append(
            block(
                f"{pid}-neighbour-table",
                "Each policy by left neighbour",
                None,
                res.get("neighbours"),
                keep=[
                    "policy",
                    "left_policy",
                    "n",
                    "win_rate",
                    "win_rate_lo",
                    "win_rate_hi",
                    "policy_rate",
                    "excess",
                    "p_holm",
                    "significant",
                ],
            )
        )
    return "".join(parts)


def odds_title(df: pl.DataFrame) -> str:
    """The factor whose odds ratio is farthest from 1 (no effect)."""
    import math

    rows = df.filter(pl.col("odds_ratio").is_finite() & (pl.col("odds_ratio") > 0))
    if rows.is_empty():
        return ""
    r = max(rows.iter_rows(named=True), key=lambda r: abs(math.log(r["odds_ratio"])))
    return f"Largest effect: {r['component']} {r['level']}, odds of winning ×{r['odds_ratio']:.2f}"
