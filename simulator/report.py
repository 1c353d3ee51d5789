"""The playtest report: one self-contained HTML file a designer can mail.

``write_report(dataset_dirs, out)`` analyses each dataset with :mod:`simulator.analysis` and
writes a single HTML page (charts are matplotlib PNGs embedded as base64, CSS inline, no
external asset).  It opens with the **balance flags**: every finding that crosses a threshold
in :data:`THRESHOLDS`, one sentence each with its number, 95% interval and a link to the chart
that shows it, most severe first.  Then one section per game (seat advantage across player
counts) and one per dataset.  Every chart has labelled axes with units, reads in grayscale
(gray levels, hatches, line styles) and sits beside a table of the numbers it draws.
"""

from __future__ import annotations

import base64
import html
import io
import math
import time
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from simulator.analysis import Dataset, summarise

# When a finding becomes a balance flag.  Rates are compared with the "fair share": the win
# rate of an average player at that player count (1/n with one winner per game).
THRESHOLDS = {
    "seat_p_value": 0.001,        # chi-square over seats must reject equal shares ...
    "seat_relative": 0.10,        # ... and a seat must be >= 10% off its fair share, CI excluding it
    "dominant_ratio": 1.3,        # a policy/character whose CI lower bound is >= 1.3x fair share
    "weak_ratio": 0.25,           # a scripted policy whose CI upper bound is < 0.25x fair share
    "team_relative": 0.10,        # a team >= 10% off its fair share, CI excluding it
    "round_cap_rate": 0.01,       # >= 1% of games end at the round cap
    "loan_cap_binding": 0.5,      # the loan cap binds for most players of a policy
    "delinquency_rate": 0.25,     # a quarter of a policy's players get delinquent notices
    "runaway_rate": 0.8,          # the leader two thirds in wins >= 80% of games
    "presidency_ratio": 2.0,      # the top company's president wins >= 2x the fair share
}

GRAYS = ("0.25", "0.55", "0.8", "0.4", "0.65", "0.9", "0.15", "0.7")
HATCHES = ("", "//", "..", "xx", "\\\\", "--", "++", "oo")
LINES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1)), (0, (1, 3)), (0, (8, 2)), (0, (3, 1, 1, 1, 1, 1)))
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
MAX_TABLE_ROWS = 60
PLURAL = {"policy": "policies", "character": "characters", "team": "teams"}
MAX_HEADLINES = 8    # distinct findings listed first; the others fold under "more flags"


@dataclass
class Flag:
    game: str
    n_players: int
    kind: str           # what crossed which threshold; one headline per game and kind
    severity: float     # larger is more urgent; orders the flags
    text: str           # one sentence with the number and its interval
    anchor: str         # id of the chart that shows it
    chart: str          # that chart's title


def write_report(dataset_dirs: list[Path], out: Path) -> Path:
    """Analyse ``dataset_dirs`` and write the playtest report to ``out`` (one HTML file).

    Each directory is a balsim dataset (``manifest.json`` plus ``games/``, ``players/`` and
    timeline parts).  The page starts with the balance flags (thresholds in
    :data:`THRESHOLDS`), then seat advantage by player count per game, then one section per
    dataset: who wins (seat, policy, character, team, variant), scores, game length, margins,
    end reasons, inequality and runaway leaders, and the game's own analyses (Karnaxis taxes
    and loans, Karmaggän blood coins and deaths, Ekonos score split and presidencies).
    Returns ``out``.
    """
    started = time.perf_counter()
    out = Path(out)
    datasets = [Dataset(d) for d in dataset_dirs]
    results = [summarise(ds) for ds in datasets]
    flags: list[Flag] = []
    body = []
    for game in dict.fromkeys(ds.game for ds in datasets):
        members = [(i, ds, r) for i, (ds, r) in enumerate(zip(datasets, results)) if ds.game == game]
        body.append(game_section(game, members))
    for i, (ds, res) in enumerate(zip(datasets, results)):
        body.append(dataset_section(i, ds, res, flags))
    flags.sort(key=lambda f: -f.severity)
    page = render_page(datasets, flags, body, time.perf_counter() - started)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page, encoding="utf-8")
    return out


# ----------------------------------------------------------------------------- formatting

def pct(x: float, digits: int = 1) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if 0 < abs(x) < 0.001:
        digits = 3
    elif 0 < abs(x) < 0.01:
        digits = 2
    return f"{100 * x:.{digits}f}%"


def interval(lo: float, hi: float) -> str:
    return f"95% CI {pct(lo)}–{pct(hi)}"


def p_text(p: float) -> str:
    return "p < 1e-300" if p == 0 else (f"p = {p:.2g}" if p >= 1e-4 else f"p = {p:.1e}")


def cell(name: str, value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if name == "p_value":
            return f"{value:.2e}"
        if any(k in name for k in ("rate", "share", "excess")) or name.endswith(("_lo", "_hi")):
            return pct(value)
        if "usd" in name:
            return f"${value:,.0f}"
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        return f"{value:.3g}" if abs(value) < 100 else f"{value:.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return html.escape(str(value))


def table_html(df: pl.DataFrame | None, keep: list[str] | None = None) -> str:
    if df is None:
        return ""
    if keep:
        df = df.select([c for c in keep if c in df.columns])
    rows = df.head(MAX_TABLE_ROWS).rows()
    head = "".join(f"<th>{html.escape(c)}</th>" for c in df.columns)
    body = "".join("<tr>" + "".join(f"<td>{cell(c, v)}</td>" for c, v in zip(df.columns, r)) + "</tr>"
                   for r in rows)
    more = f"<p class='note'>first {MAX_TABLE_ROWS} of {df.height} rows</p>" if df.height > MAX_TABLE_ROWS else ""
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}"


def png(fig: Figure) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=96, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def block(anchor: str, title: str, fig: Figure | None, table: pl.DataFrame | None,
          caption: str = "", keep: list[str] | None = None) -> str:
    """A titled chart with its numbers in a table beside it."""
    img = f"<img alt='{html.escape(title)}' src='data:image/png;base64,{png(fig)}'>" if fig else ""
    cap = f"<p class='note'>{caption}</p>" if caption else ""
    return (f"<div class='block' id='{anchor}'><h4>{html.escape(title)}</h4>{cap}"
            f"<div class='pair'><div class='fig'>{img}</div>"
            f"<div class='tab'>{table_html(table, keep)}</div></div></div>")


def figure(width: float = 6.0, height: float = 3.4):
    fig = Figure(figsize=(width, height))
    return fig, fig.add_subplot()


# ----------------------------------------------------------------------------- charts

def rate_bars(df: pl.DataFrame, label: str, rate: str, xlabel: str, fair: float | None = None,
              title: str = "") -> Figure:
    """Horizontal bars of a rate with Wilson error bars and a dashed fair-share line."""
    labels = [str(v) for v in df[label].to_list()]
    vals = [100 * v for v in df[rate].to_list()]
    lo = [100 * v for v in df[f"{rate}_lo"].to_list()]
    hi = [100 * v for v in df[f"{rate}_hi"].to_list()]
    fig, ax = figure(6.0, max(1.8, 0.45 * len(labels) + 1.0))
    ax.barh(range(len(labels)), vals, color="0.7", edgecolor="black", hatch=None,
            xerr=[[max(0.0, v - a) for v, a in zip(vals, lo)],
                  [max(0.0, b - v) for v, b in zip(vals, hi)]],
            error_kw={"ecolor": "black", "capsize": 3})
    ax.set_yticks(range(len(labels)), labels)
    ax.invert_yaxis()
    if fair is not None:
        ax.axvline(100 * fair, color="black", linestyle="--", linewidth=1,
                   label=f"fair share {100 * fair:.1f}%")
        ax.legend(loc="lower right", fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", color="0.85")
    return fig


def diff_bars(df: pl.DataFrame, label: str, xlabel: str, title: str = "") -> Figure:
    """Horizontal bars of paired mean differences with their 95% intervals around zero."""
    labels = [str(v) for v in df[label].to_list()]
    vals = df["mean_diff"].to_list()
    lo, hi = df["diff_lo"].to_list(), df["diff_hi"].to_list()
    fig, ax = figure(6.0, max(1.8, 0.4 * len(labels) + 1.0))
    ax.barh(range(len(labels)), vals, color="0.7", edgecolor="black",
            xerr=[[max(0.0, v - a) for v, a in zip(vals, lo)], [max(0.0, b - v) for v, b in zip(vals, hi)]],
            error_kw={"ecolor": "black", "capsize": 3})
    ax.axvline(0, color="black", linewidth=1)
    ax.set_yticks(range(len(labels)), labels)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", color="0.85")
    return fig


def box_chart(df: pl.DataFrame, label: str, ylabel: str, title: str = "") -> Figure:
    """Boxes from precomputed quantiles: whiskers p5/p95, box p25/p75, line median."""
    stats = [{"label": str(r.get(label, "")), "whislo": r["p5"], "q1": r["p25"], "med": r["p50"],
              "q3": r["p75"], "whishi": r["p95"], "mean": r["mean"], "fliers": []}
             for r in df.iter_rows(named=True)]
    fig, ax = figure(6.0, 3.2)
    ax.bxp(stats, showmeans=True, patch_artist=True,
           boxprops={"facecolor": "0.85", "edgecolor": "black"},
           medianprops={"color": "black"},
           meanprops={"marker": "D", "markerfacecolor": "white", "markeredgecolor": "black"})
    ax.set_ylabel(ylabel)
    ax.set_title(title + " (box 25–75%, whiskers 5–95%, ◇ mean)", fontsize=9)
    ax.grid(axis="y", color="0.85")
    if len(stats) > 4:
        ax.tick_params(axis="x", labelrotation=30)
    return fig


def count_bars(x, y, xlabel: str, ylabel: str, title: str = "") -> Figure:
    fig, ax = figure(6.0, 3.0)
    ax.bar([str(v) for v in x], y, color="0.6", edgecolor="black")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", color="0.85")
    return fig


def lines_chart(df: pl.DataFrame, x: str, y: str, group: str | None, xlabel: str, ylabel: str,
                band: tuple[str, str] | None = None, title: str = "") -> Figure:
    """One line per group (distinct line style and marker), optional quartile band."""
    fig, ax = figure(6.4, 3.6)
    groups = df.partition_by(group, as_dict=False, maintain_order=True) if group else [df]
    for k, part in enumerate(groups):
        name = str(part[group][0]) if group else y
        ax.plot(part[x].to_list(), part[y].to_list(), color="black", linestyle=LINES[k % len(LINES)],
                marker=MARKERS[k % len(MARKERS)], markersize=4, label=name)
        if band:
            ax.fill_between(part[x].to_list(), part[band[0]].to_list(), part[band[1]].to_list(),
                            color=GRAYS[k % len(GRAYS)], alpha=0.25, linewidth=0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(color="0.88")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if abs(v) >= 1000 else f"{v:g}"))
    if group:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


def stacked_bars(labels, parts: dict[str, list[float]], ylabel: str, title: str = "") -> Figure:
    fig, ax = figure(6.0, 3.2)
    bottom = [0.0] * len(labels)
    for k, (name, vals) in enumerate(parts.items()):
        ax.bar([str(v) for v in labels], vals, bottom=bottom, color=GRAYS[k % len(GRAYS)],
               edgecolor="black", hatch=HATCHES[k % len(HATCHES)], label=name)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    if len(labels) > 3:
        ax.tick_params(axis="x", labelrotation=20)
    return fig


# ----------------------------------------------------------------------------- sections

def game_section(game: str, members: list) -> str:
    """Seat advantage across the player counts of one game's datasets."""
    frames = [r["seat_advantage"] for _, _, r in members if "seat_advantage" in r]
    if not frames:
        return ""
    seat = pl.concat([f.with_columns(pl.col("variant").cast(pl.String)) if "variant" in f.columns else f
                      for f in frames], how="diagonal_relaxed").sort("n_players")
    anchor = f"game-{game}-seats"
    labels = [f"{n}p" + (f" {v}" if seat["variant"].n_unique() > 1 else "")
              for n, v in zip(seat["n_players"], seat["variant"] if "variant" in seat.columns
                              else [""] * seat.height)]
    chart = seat.with_columns(pl.Series("players", labels))
    fig = rate_bars(chart.rename({"first_win_rate": "r", "first_win_rate_lo": "r_lo",
                                  "first_win_rate_hi": "r_hi"}),
                    "players", "r", "first player's win rate (%)",
                    title="First player (seat 0) win rate by player count")
    ax = fig.axes[0]
    for k, f in enumerate(chart["fair_share"].to_list()):
        ax.plot([100 * f] * 2, [k - 0.4, k + 0.4], color="black", linestyle="--", linewidth=1)
    ax.plot([], [], color="black", linestyle="--", label="fair share")
    ax.legend(fontsize=8, loc="lower right")
    keep = ["n_players", "variant", "n_games", "chi2", "dof", "p_value", "first_win_rate",
            "first_win_rate_lo", "first_win_rate_hi", "fair_share", "first_excess",
            "best_seat", "best_win_rate", "worst_seat", "worst_win_rate"]
    return (f"<section><h2 id='game-{game}'>{html.escape(game.capitalize())}: seat advantage by "
            f"player count</h2>"
            + block(anchor, "Seat advantage by player count", fig, seat,
                    "Chi-square of wins over seats against equal shares, and the first player's "
                    "win rate against the fair share (average win rate at that player count).",
                    keep) + "</section>")


def dataset_section(i: int, ds: Dataset, res: dict, flags: list[Flag]) -> str:
    pid = f"ds{i}"
    parts = [f"<section><h2 id='{pid}'>{html.escape(ds.label)}</h2>", dataset_facts(ds)]
    unit = ds.length_unit
    if len(ds.variants) > 1:
        parts.append(f"<p class='note'>{len(ds.variants)} variants: the charts by seat, policy, "
                     f"character or team and the game's own analyses describe the first, "
                     f"<b>{html.escape(ds.variants[0]['name'])}</b>; the variants are compared in "
                     f"'Win rate by variant', 'Change against the base rules' and the "
                     f"distributions split by variant.</p>")
    parts.append("<h3>Who wins</h3>")
    for group in ("seat", "policy", "character", "team", "variant"):
        df = res.get(f"win_rate_{group}")
        if df is None:
            continue
        anchor = f"{pid}-win-{group}"
        title = f"Win rate by {group}"
        fig = rate_bars(df, group, "win_rate", "win rate (% of player-games)",
                        df["fair_share"][0], title=f"{ds.label}")
        parts.append(block(anchor, title, fig, df, "Bars: win rate with Wilson 95% interval; "
                           "dashed: fair share.", [group, "n", "wins", "win_rate", "win_rate_lo",
                                                   "win_rate_hi", "fair_share", "excess"]))
        win_flags(ds, group, df, anchor, title, flags)
    seat_flags(ds, res.get("seat_advantage"), f"{pid}-win-seat", "Win rate by seat", flags)

    df = res.get("paired_change")
    if df is not None:
        rates = df.filter(pl.col("metric") == "win_rate").with_columns(
            pl.format("{} · {}{}", "variant", "group",
                      pl.when("significant").then(pl.lit(" *")).otherwise(pl.lit(""))).alias("label"))
        parts.append(block(f"{pid}-paired", "Change against the base rules", diff_bars(
            rates, "label", f"change of win rate against {ds.variants[0]['name']} (fraction)",
            ds.label), df, "Paired by game (same deals and rolls): mean difference with a "
            "normal 95% interval; * and 'significant' = survives Holm's correction over the "
            "whole table at 5%."))
        variant_flags(ds, df, f"{pid}-paired", flags)
    parts.append("<h3>Scores and game length</h3>")
    if "score_by_policy" in res:
        df = res["score_by_policy"]
        parts.append(block(f"{pid}-score", "Final score by policy",
                           box_chart(df, "policy", score_unit(ds), ds.label), df))
    if "margin" in res:
        df = res["margin"]
        parts.append(block(f"{pid}-margin", "Margin of victory (winner minus runner-up)",
                           box_chart(df, "variant", score_unit(ds), ds.label), df))
    if "length_counts" in res:
        df = res["length_counts"]
        fig = count_bars(df["length"].to_list(), [100 * s for s in df["share"].to_list()],
                         f"game length ({unit})", "% of games", ds.label)
        parts.append(block(f"{pid}-length", f"Game length ({unit})", fig, res.get("length")))
    if "end_reasons" in res:
        df = res["end_reasons"]
        anchor = f"{pid}-end"
        fig = rate_bars(df.with_columns(pl.col("end_reason").cast(pl.String)), "end_reason",
                        "share", "% of games", title=ds.label)
        parts.append(block(anchor, "How games end", fig, df))
        cap = res.get("round_cap")
        if cap is not None:
            for r in cap.iter_rows(named=True):
                if r["rate"] >= THRESHOLDS["round_cap_rate"]:
                    flags.append(Flag(ds.game, ds.n_players, "round_cap", 10 * r["rate"], f"{ds.label}: {pct(r['rate'])} of games "
                                      f"end at the round cap ({interval(r['rate_lo'], r['rate_hi'])}, "
                                      f"{r['games']:,} games{variant_note(r, ds)}).", anchor,
                                      "How games end"))
    if "gini" in res:
        df = res["gini"]
        parts.append(block(f"{pid}-gini", "Inequality of final scores (Gini per game)",
                           box_chart(df, "variant", "Gini (0 = equal, 1 = one takes all)", ds.label),
                           df))
    if "runaway_leader" in res:
        df = res["runaway_leader"]
        anchor = f"{pid}-runaway"
        lab = "variant" if "variant" in df.columns else None
        chart = df.with_columns(pl.col("variant").cast(pl.String)) if lab else \
            df.with_columns(pl.lit("all").alias("variant"))
        fig = rate_bars(chart, "variant", "rate", "% of games the leader at 2/3 wins",
                        df["fair_share"][0], ds.label)
        measure = {"karnaxis": "cash", "karmaggan": "blood coins"}.get(ds.game, "score")
        parts.append(block(anchor, "Runaway leader: does the leader two thirds in win?", fig, df,
                           f"Leader: the seat with the most {measure} two thirds of the way "
                           f"through the game (e.g. year 8 of 12); dashed: fair share."))
        for r in df.iter_rows(named=True):
            if r["rate"] >= THRESHOLDS["runaway_rate"]:
                flags.append(Flag(ds.game, ds.n_players, "runaway", r["rate"] / max(r["fair_share"], 1e-9) - 1,
                                  f"{ds.label}: the leader two thirds into the game wins "
                                  f"{pct(r['rate'])} of games ({interval(r['rate_lo'], r['rate_hi'])}, "
                                  f"{r['games']:,} games){variant_note(r, ds)}: the end is decided early.",
                                  anchor, "Runaway leader"))
    if ds.game == "karnaxis":
        parts.append(karnaxis_parts(pid, ds, res, flags))
    elif ds.game == "karmaggan":
        parts.append(karmaggan_parts(pid, ds, res, flags))
    elif ds.game == "ekonos":
        parts.append(ekonos_parts(pid, ds, res, flags))
    parts.append("</section>")
    return "".join(parts)


def score_unit(ds: Dataset) -> str:
    return {"karnaxis": "final cash (USD)", "ekonos": "final score (M.U.)"}.get(ds.game, "score")


def variant_note(row: dict, ds: Dataset) -> str:
    v = row.get("variant")
    return f", variant {v}" if v not in (None, "") and len(ds.variants) > 1 else ""


def dataset_facts(ds: Dataset) -> str:
    m = ds.manifest
    variants = ", ".join(v["name"] + (f" ({v['values']})" if v.get("values") else "")
                         for v in ds.variants) or "–"
    facts = [("game", ds.game), ("players", ds.n_players), ("games", f"{ds.n_games:,}"),
             ("seats (policies)", ", ".join(m.get("seats", [])) +
              (" — as listed in every game" if m.get("fixed_seats") else " — balanced seat orders")),
             ("variants", variants), ("seed", m.get("seed")),
             ("engine", m.get("engine_version")), ("folder", str(ds.path))]
    rows = "".join(f"<tr><th>{k}</th><td>{html.escape(str(v))}</td></tr>" for k, v in facts)
    return f"<table class='facts'>{rows}</table>"


# ----------------------------------------------------------------------------- flags


def variant_flags(ds: Dataset, df: pl.DataFrame, anchor: str, flags: list[Flag]) -> None:
    """A rule variant that changes a win rate significantly (after Holm's correction)."""
    changed = df.filter(pl.col("significant") & (pl.col("metric") == "win_rate"))
    if changed.is_empty():
        return
    top = changed.sort(pl.col("mean_diff").abs(), descending=True).row(0, named=True)
    more = f" ({changed.height - 1} more such changes in the table)" if changed.height > 1 else ""
    flags.append(Flag(ds.game, ds.n_players, "variant", abs(top["mean_diff"]) * 10,
                      f"{ds.label}: variant {top['variant']} moves the win rate of {top['group']} "
                      f"from {pct(top['base_mean'])} to {pct(top['variant_mean'])} "
                      f"(change {interval(top['diff_lo'], top['diff_hi'])}, Holm p = "
                      f"{top['p_holm']:.2g}){more}.", anchor, "Change against the base rules"))

def win_flags(ds: Dataset, group: str, df: pl.DataFrame, anchor: str, chart: str,
              flags: list[Flag]) -> None:
    """Dominant or hopeless policies/characters (one flag per group naming every member that
    crosses the threshold, strongest first), and a team that wins too often."""
    if group in ("seat", "variant"):
        return
    fair = df["fair_share"][0]
    if not fair:
        return

    def evidence(r):
        return f"{pct(r['win_rate'])} ({interval(r['win_rate_lo'], r['win_rate_hi'])}, n = {r['n']:,})"

    rows = sorted(df.iter_rows(named=True), key=lambda r: -r["win_rate"])
    if group == "team":
        # the team that wins too often (with two teams the other one is its mirror)
        for r in rows:
            if r["win_rate_lo"] > fair and (r["win_rate"] - fair) / fair >= THRESHOLDS["team_relative"]:
                flags.append(Flag(ds.game, ds.n_players, "team", (r["win_rate"] - fair) / fair,
                                  f"{ds.label}: team {r[group]} wins {evidence(r)} of games against "
                                  f"a fair {pct(fair)}.", anchor, chart))
        return
    strong = [r for r in rows if r["win_rate_lo"] >= THRESHOLDS["dominant_ratio"] * fair]
    if strong:
        top = strong[0]["win_rate"]
        if len(strong) == 1:
            text = (f"{ds.label}: {group} {strong[0][group]} wins {evidence(strong[0])} of its games, "
                    f"{top / fair:.1f}× its fair share of {pct(fair)}.")
        else:
            names = "; ".join(f"{r[group]} {evidence(r)}" for r in strong)
            text = (f"{ds.label}: {len(strong)} {PLURAL.get(group, group)} win far more than their fair share "
                    f"of {pct(fair)} (up to {top / fair:.1f}×): {names}.")
        flags.append(Flag(ds.game, ds.n_players, f"dominant {group}", top / fair - 1, text, anchor, chart))
    weak = [r for r in rows[::-1] if group == "policy" and r[group] != "random"
            and r["win_rate_hi"] < THRESHOLDS["weak_ratio"] * fair]
    if weak:
        names = "; ".join(f"{r[group]} {evidence(r)}" for r in weak)
        flags.append(Flag(ds.game, ds.n_players, f"weak {group}", 0.5 * (1 - weak[0]["win_rate"] / fair),
                          f"{ds.label}: scripted {PLURAL.get(group, group)} that almost never win, "
                          f"against a fair share of {pct(fair)}: {names}.", anchor, chart))


def seat_flags(ds: Dataset, seat: pl.DataFrame | None, anchor: str, chart: str,
               flags: list[Flag]) -> None:
    """A seat whose win rate is significantly and noticeably off the fair share."""
    if seat is None:
        return
    for r in seat.iter_rows(named=True):
        if not (r["p_value"] < THRESHOLDS["seat_p_value"]):
            continue
        fair = r["fair_share"]
        first_off = (r["first_win_rate_lo"] > fair or r["first_win_rate_hi"] < fair) and \
            abs(r["first_win_rate"] - fair) / fair >= THRESHOLDS["seat_relative"]
        if first_off:
            what = "more" if r["first_win_rate"] > fair else "less"
            flags.append(Flag(ds.game, ds.n_players, "seat", abs(r["first_win_rate"] - fair) / fair,
                              f"{ds.label}: the first player wins {what} than a fair share: "
                              f"{pct(r['first_win_rate'])} "
                              f"({interval(r['first_win_rate_lo'], r['first_win_rate_hi'])}) against "
                              f"{pct(fair)} (chi-square over seats {p_text(r['p_value'])}, "
                              f"{r['n_games']:,} games{variant_note(r, ds)}).", anchor, chart))
            continue
        which = max(("best", "worst"), key=lambda w: abs(r[f"{w}_win_rate"] - fair))
        rate, lo, hi = (r[f"{which}_win_rate{s}"] for s in ("", "_lo", "_hi"))
        if (lo > fair or hi < fair) and abs(rate - fair) / fair >= THRESHOLDS["seat_relative"]:
            flags.append(Flag(ds.game, ds.n_players, "seat", abs(rate - fair) / fair,
                              f"{ds.label}: seat {r[f'{which}_seat']} wins {pct(rate)} "
                              f"({interval(lo, hi)}) against a fair {pct(fair)} (chi-square over "
                              f"seats {p_text(r['p_value'])}, {r['n_games']:,} "
                              f"games{variant_note(r, ds)}).", anchor, chart))


# ----------------------------------------------------------------------------- games

def karnaxis_parts(pid: str, ds: Dataset, res: dict, flags: list[Flag]) -> str:
    parts = ["<h3>Karnaxis: taxes, loans, ranks</h3>"]
    df = res.get("karnaxis_tax_by_bracket")
    if df is not None:
        v0 = df.filter(pl.col("variant") == df["variant"][0]) if "variant" in df.columns else df
        fig = count_bars(v0["tax_bracket"].to_list(), [100 * s for s in v0["share"].to_list()],
                         "tax bracket (index into the table)", "% of player-years",
                         f"{ds.label}" + (f", variant {v0['variant'][0]}" if "variant" in v0.columns else ""))
        parts.append(block(f"{pid}-brackets", "Tax paid per bracket", fig, df))
    df = res.get("karnaxis_tax_by_year")
    if df is not None:
        group = "variant" if "variant" in df.columns and df["variant"].n_unique() > 1 else None
        fig = lines_chart(df.with_columns(pl.col("variant").cast(pl.String)) if group else df,
                          "year", "mean_tax_usd", group, "year", "mean tax paid (USD per player)",
                          title=ds.label)
        parts.append(block(f"{pid}-tax-year", "Tax paid per year", fig, df))
    df = res.get("karnaxis_smart_savings")
    if df is not None:
        v0 = df.filter(pl.col("variant") == df["variant"][0]) if "variant" in df.columns else df
        fig = count_bars(v0["tax_bracket"].to_list(), v0["saving_usd"].to_list(),
                         "tax bracket", "smart-table saving (USD per year)", ds.label)
        parts.append(block(f"{pid}-smart", "What the smart table saves", fig, df,
                           "Saving = standard minus smart tax of the bracket; the accountant "
                           "costs $10,000 a year."))
    df = res.get("karnaxis_bracket_shares")
    if df is not None and "policy" in df.columns:
        piv = df.with_columns(pl.col("tax_bracket").cast(pl.String))
        if "variant" in piv.columns:
            piv = piv.filter(pl.col("variant") == piv["variant"][0])
        wide = piv.pivot(on="tax_bracket", index="policy", values="share").fill_null(0.0)
        brackets = sorted((c for c in wide.columns if c != "policy"), key=int)
        fig = stacked_bars(wide["policy"].to_list(),
                           {f"bracket {b}": [100 * x for x in wide[b].to_list()] for b in brackets},
                           "% of player-years", ds.label)
        parts.append(block(f"{pid}-bracket-shares", "Share of player-years in each bracket",
                           fig, wide))
    df = res.get("karnaxis_loans")
    if df is not None and "policy" in df.columns:
        anchor = f"{pid}-loans"
        rate = next((r for r in ("cap_binding", "borrowed", "delinquent") if r in df.columns), None)
        fig = rate_bars(df, "policy", rate, f"{rate.replace('_', ' ')} (% of players)",
                        title=ds.label) if rate else None
        parts.append(block(anchor, "Loans: borrowing, cap binding, delinquency, interest", fig, df,
                           "cap_binding: peak loans reached the loan cap."))
        for rate, kind, what in (("cap_binding", "loan_cap_binding", "the loan cap binds for"),
                                 ("delinquent", "delinquency_rate", "delinquent payment notices hit")):
            hit = sorted((r for r in df.iter_rows(named=True)
                          if r.get(rate) is not None and r[rate] >= THRESHOLDS[kind]),
                         key=lambda r: -r[rate])
            if hit:
                names = "; ".join(f"{pct(r[rate])} of {r['policy']} players "
                                  f"({interval(r[rate + '_lo'], r[rate + '_hi'])}, n = {r['n']:,})"
                                  for r in hit)
                flags.append(Flag(ds.game, ds.n_players, kind, hit[0][rate],
                                  f"{ds.label}: {what} {names}.", anchor, "Loans"))
    df = res.get("karnaxis_rank_titles")
    if df is not None and "policy" in df.columns:
        wide = df.pivot(on="rank_title", index="policy", values="share").fill_null(0.0)
        titles = [t for t in ("Unranked", "Amateur", "Novice", "Expert", "Elite") if t in wide.columns]
        titles += [t for t in wide.columns if t not in titles and t != "policy"]
        fig = stacked_bars(wide["policy"].to_list(),
                           {t: [100 * x for x in wide[t].to_list()] for t in titles},
                           "% of players", ds.label)
        parts.append(block(f"{pid}-ranks", "Rank titles", fig, wide.select(["policy", *titles])))
    df = res.get("karnaxis_cash_by_year")
    if df is not None:
        chart = df.filter(pl.col("variant") == df["variant"][0]) if "variant" in df.columns else df
        group = "policy" if "policy" in chart.columns else None
        fig = lines_chart(chart, "year", "median", group, "year", "cash (USD), median and quartiles",
                          band=("q25", "q75"), title=ds.label)
        parts.append(block(f"{pid}-cash", "Cash trajectories by year and policy", fig, df))
    return "".join(parts)


def karmaggan_parts(pid: str, ds: Dataset, res: dict, flags: list[Flag]) -> str:
    parts = ["<h3>Karmaggän: blood coins, deaths, spawns</h3>"]
    df = res.get("karmaggan_blood_coins")
    if df is not None:
        parts.append(block(f"{pid}-blood", "Blood coins at the start and the end", None, df))
    df = res.get("karmaggan_blood_by_round")
    if df is not None:
        group = next((g for g in ("team", "policy", "seat") if g in df.columns), None)
        chart = df.filter(pl.col("variant") == df["variant"][0]) if "variant" in df.columns else df
        if group:
            chart = chart.with_columns(pl.col(group).cast(pl.String))
        fig = lines_chart(chart, "round", "median", group, "round", "blood coins held (median, quartiles)",
                          band=("q25", "q75"), title=ds.label)
        parts.append(block(f"{pid}-blood-round", "Blood coins per round", fig, df))
    df = res.get("karmaggan_deaths")
    if df is not None:
        label = next((g for g in ("team", "policy") if g in df.columns), None)
        fig = rate_bars(df.with_columns(pl.col(label).cast(pl.String)), label, "death_rate",
                        "% of players who die", title=ds.label) if label else None
        parts.append(block(f"{pid}-deaths", "Deaths", fig, df))
    df = res.get("karmaggan_death_rounds")
    if df is not None:
        fig = count_bars(df["death_round"].to_list(), df["n"].to_list(), "round of death",
                         "deaths", ds.label)
        parts.append(block(f"{pid}-death-rounds", "When players die", fig, df))
    df = res.get("karmaggan_damage")
    if df is not None:
        fig = count_bars(df["source"].to_list(), df["mean_per_player"].to_list(), "source",
                         "blood coins lost per player per game", ds.label)
        parts.append(block(f"{pid}-damage", "Damage by source", fig, df))
    df = res.get("karmaggan_spawn_turns")
    if df is not None:
        parts.append(block(f"{pid}-spawn", "Turns as spawn and holding the Egg", None, df))
    df = res.get("karmaggan_length_by_start_coins")
    if df is not None:
        fig = box_chart(df.with_columns(pl.col("start_blood_coins").cast(pl.String)),
                        "start_blood_coins", f"game length ({ds.length_unit})",
                        ds.label + ", by starting blood coins")
        parts.append(block(f"{pid}-length-coins", "Game length against starting blood coins", fig, df))
    df = res.get("karmaggan_team_wins_by_start_coins")
    if df is not None:
        chart = df.with_columns(pl.format("{} coins, team {}", "start_coins", "team").alias("label"))
        fig = rate_bars(chart, "label", "win_rate", "team win rate (% of games)", 0.5, ds.label)
        parts.append(block(f"{pid}-team-coins", "Team win rate against starting blood coins",
                           fig, df))
    return "".join(parts)


def ekonos_parts(pid: str, ds: Dataset, res: dict, flags: list[Flag]) -> str:
    parts = ["<h3>Ekonos: score components, companies, presidencies</h3>"]
    df = res.get("ekonos_score_split")
    if df is not None:
        fig = stacked_bars(df["policy"].to_list(), {"cash": df["mean_cash"].to_list(),
                                                    "holdings": df["mean_holdings"].to_list()},
                           "mean final score (M.U.)", ds.label)
        parts.append(block(f"{pid}-split", "Score split: cash against holdings", fig, df))
    df = res.get("ekonos_company_values")
    if df is not None:
        fig = count_bars(df["name"].to_list(), df["mean"].to_list(), "company",
                         "mean final value (market indicators)", ds.label)
        parts.append(block(f"{pid}-companies", "Company values at the end", fig, df,
                           "top_share: share of games in which the company is (jointly) the most "
                           "valuable."))
    df = res.get("ekonos_presidency")
    if df is not None:
        anchor = f"{pid}-presidency"
        fig = rate_bars(df, "player", "win_rate", "win rate (% of player-games)",
                        df["fair_share"][0], ds.label)
        parts.append(block(anchor, "Presidency advantage: does the president of the most "
                           "valuable company win?", fig, df))
        top = df.filter(pl.col("player") == "top_president")
        if top.height:
            r = top.row(0, named=True)
            if r["win_rate_lo"] >= THRESHOLDS["presidency_ratio"] * r["fair_share"]:
                flags.append(Flag(ds.game, ds.n_players, "presidency", r["win_rate"] / r["fair_share"] - 1,
                                  f"{ds.label}: the president of the most valuable company wins "
                                  f"{pct(r['win_rate'])} of games ({interval(r['win_rate_lo'], r['win_rate_hi'])}, "
                                  f"n = {r['n']:,}), {r['win_rate'] / r['fair_share']:.1f}× the fair "
                                  f"share of {pct(r['fair_share'])}.", anchor, "Presidency advantage"))
    df = res.get("ekonos_presidencies_held")
    if df is not None:
        fig = rate_bars(df.with_columns(pl.col("presidencies").cast(pl.String)), "presidencies",
                        "win_rate", "win rate (% of player-games)", title=ds.label)
        parts.append(block(f"{pid}-held", "Win rate by presidencies held at the end", fig, df))
    return "".join(parts)


# ----------------------------------------------------------------------------- page

CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:1.5em auto;
max-width:1300px;color:#111;line-height:1.4;padding:0 1em}
h1{margin-bottom:.2em} h2{border-bottom:2px solid #333;margin-top:2em} h3{margin-top:1.6em}
h4{margin:.2em 0}
.flags{border:3px solid #111;padding:.6em 1.2em;background:#f3f3f3}
.flags li{margin:.45em 0} .flags a{color:#000}
.block{margin:1.2em 0;page-break-inside:avoid}
.pair{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}
.fig img{max-width:620px;border:1px solid #ccc}
.tab{overflow-x:auto;max-width:100%;flex:1 1 420px}
table{border-collapse:collapse;font-size:12px}
th,td{border:1px solid #bbb;padding:2px 6px;text-align:right}
th{background:#e6e6e6} td:first-child,th:first-child{text-align:left}
table.facts th{text-align:left}
.note{color:#444;font-size:12px;margin:.2em 0}
"""


def headline_flags(flags: list[Flag]) -> tuple[list[tuple[Flag, list[Flag]]], list[Flag]]:
    """The most severe flag of each (game, kind) with the other flags of that kind, and the rest.

    Flags come sorted by severity, so the first screen shows distinct findings rather than the
    same one at every player count.
    """
    heads: dict[tuple[str, str], tuple[Flag, list[Flag]]] = {}
    rest = []
    for f in flags:
        key = (f.game, f.kind)
        if key in heads:
            heads[key][1].append(f)
            rest.append(f)
        else:
            heads[key] = (f, [])
    return list(heads.values()), rest


def flag_item(f: Flag, also: list[Flag] = ()) -> str:
    counts = sorted({g.n_players for g in also if g.n_players != f.n_players})
    more = f" Also flagged with {', '.join(map(str, counts))} players." if counts else ""
    return (f"<li><b>{html.escape(f.text)}</b>{html.escape(more)} <a href='#{f.anchor}'>→ chart: "
            f"{html.escape(f.chart)}</a></li>")


def render_page(datasets: list[Dataset], flags: list[Flag], body: list[str], seconds: float) -> str:
    if flags:
        heads, rest = headline_flags(flags)
        rest = [f for f, _ in heads[MAX_HEADLINES:]] + rest
        heads = heads[:MAX_HEADLINES]
        flag_html = "<ol>" + "".join(flag_item(f, also) for f, also in heads) + "</ol>"
        if rest:
            flag_html += (f"<details><summary>{len(rest)} more flag(s)</summary>"
                          "<ul>" + "".join(flag_item(f) for f in rest) + "</ul></details>")
    else:
        flag_html = "<p>No finding crossed a threshold.</p>"
    rules = "; ".join(f"{k} = {v}" for k, v in THRESHOLDS.items())
    toc = "".join(f"<li><a href='#ds{i}'>{html.escape(ds.label)}</a> — {ds.n_games:,} games</li>"
                  for i, ds in enumerate(datasets))
    games = sorted({ds.game for ds in datasets})
    total = sum(ds.n_games for ds in datasets)
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>balsim playtest report: {html.escape(', '.join(games))}</title>"
        f"<style>{CSS}</style></head><body>"
        f"<h1>balsim playtest report</h1><p class='note'>{len(datasets)} dataset(s), "
        f"{total:,} simulated games of {html.escape(', '.join(games))}; generated "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} in {seconds:.1f} s.</p>"
        f"<div class='flags'><h2 style='border:none;margin-top:.3em'>Balance flags</h2>{flag_html}"
        f"<p class='note'>Most severe first. Intervals are Wilson 95%. A fair share is the win "
        f"rate of an average player at that player count (1/n with one winner per game). "
        f"Thresholds: {html.escape(rules)}.</p></div>"
        f"<h2>Datasets</h2><ul>{toc}</ul>"
        + "".join(body) + "</body></html>")
