"""The report's charts: matplotlib figures that read in grayscale (gray levels, hatches, line
styles), each drawn from a tidy analysis frame whose numbers sit in a table beside it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:  # matplotlib is imported by the first chart drawn: commands that draw none
    from matplotlib.figure import Figure  # start half a second sooner

GRAYS = ("0.25", "0.55", "0.8", "0.4", "0.65", "0.9", "0.15", "0.7")
HATCHES = ("", "//", "..", "xx", "\\\\", "--", "++", "oo")
LINES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1)), (0, (1, 3)), (0, (8, 2)), (0, (3, 1, 1, 1, 1, 1)))
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def figure(width: float = 6.0, height: float = 3.4):
    from matplotlib import rc_context
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    # Numbers in full (600000, not 0.6 with 1e6 above the axes), so that nothing but the
    # title is above the axes: it sits there at once, without matplotlib measuring every tick
    # label of the chart to place it (a tenth of the report's time)
    with rc_context(
        {"axes.titley": 1.0, "axes.formatter.useoffset": False, "axes.formatter.limits": (-9, 15)}
    ):
        return fig, fig.add_subplot()


# ----------------------------------------------------------------------------- charts


def rate_bars(
    df: pl.DataFrame, label: str, rate: str, xlabel: str, fair: float | None = None, title: str = ""
) -> Figure:
    """Horizontal bars of a rate with Wilson error bars and a dashed fair-share line."""
    labels = [str(v) for v in df[label].to_list()]
    vals = [100 * v for v in df[rate].to_list()]
    lo = [100 * v for v in df[f"{rate}_lo"].to_list()]
    hi = [100 * v for v in df[f"{rate}_hi"].to_list()]
    fig, ax = figure(6.0, max(1.8, 0.45 * len(labels) + 1.0))
    ax.barh(
        range(len(labels)),
        vals,
        color="0.7",
        edgecolor="black",
        hatch=None,
        xerr=[
            [max(0.0, v - a) for v, a in zip(vals, lo)],
            [max(0.0, b - v) for v, b in zip(vals, hi)],
        ],
        error_kw={"ecolor": "black", "capsize": 3},
    )
    ax.set_yticks(range(len(labels)), labels)
    ax.invert_yaxis()
    if fair is not None:
        ax.axvline(
            100 * fair,
            color="black",
            linestyle="--",
            linewidth=1,
            label=f"fair share {100 * fair:.1f}%",
        )
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
    ax.barh(
        range(len(labels)),
        vals,
        color="0.7",
        edgecolor="black",
        xerr=[
            [max(0.0, v - a) for v, a in zip(vals, lo)],
            [max(0.0, b - v) for v, b in zip(vals, hi)],
        ],
        error_kw={"ecolor": "black", "capsize": 3},
    )
    ax.axvline(0, color="black", linewidth=1)
    ax.set_yticks(range(len(labels)), labels)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", color="0.85")
    return fig


def box_chart(df: pl.DataFrame, label: str, ylabel: str, title: str = "") -> Figure:
    """Boxes from precomputed quantiles: whiskers p5/p95, box p25/p75, line median."""
    stats = [
        {
            "label": str(r.get(label, "")),
            "whislo": r["p5"],
            "q1": r["p25"],
            "med": r["p50"],
            "q3": r["p75"],
            "whishi": r["p95"],
            "mean": r["mean"],
            "fliers": [],
        }
        for r in df.iter_rows(named=True)
    ]
    fig, ax = figure(6.0, 3.2)
    ax.bxp(
        stats,
        showmeans=True,
        patch_artist=True,
        boxprops={"facecolor": "0.85", "edgecolor": "black"},
        medianprops={"color": "black"},
        meanprops={"marker": "D", "markerfacecolor": "white", "markeredgecolor": "black"},
    )
    ax.set_ylabel(ylabel)
    ax.set_title(title + " (box 25–75%, whiskers 5–95%, ◇ mean)", fontsize=9)
    ax.grid(axis="y", color="0.85")
    if len(stats) > 4:
        ax.tick_params(axis="x", labelrotation=30)
    return fig


def count_bars(x, y, xlabel: str, ylabel: str, title: str = "") -> Figure:
    fig, ax = figure(6.0, 3.0)
    labels = [str(v) for v in x]
    ax.bar(labels, y, color="0.6", edgecolor="black")
    if sum(len(label) for label in labels) > 40:  # long labels (income ranges) would overlap
        ax.tick_params(axis="x", labelrotation=30)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", color="0.85")
    return fig


def lines_chart(
    df: pl.DataFrame,
    x: str,
    y: str,
    group: str | None,
    xlabel: str,
    ylabel: str,
    band: tuple[str, str] | None = None,
    title: str = "",
) -> Figure:
    """One line per group (distinct line style and marker), optional quartile band."""
    from matplotlib.ticker import FuncFormatter

    fig, ax = figure(6.4, 3.6)
    groups = df.partition_by(group, as_dict=False, maintain_order=True) if group else [df]
    for k, part in enumerate(groups):
        name = str(part[group][0]) if group else y
        ax.plot(
            part[x].to_list(),
            part[y].to_list(),
            color="black",
            linestyle=LINES[k % len(LINES)],
            marker=MARKERS[k % len(MARKERS)],
            markersize=4,
            label=name,
        )
        if band:
            ax.fill_between(
                part[x].to_list(),
                part[band[0]].to_list(),
                part[band[1]].to_list(),
                color=GRAYS[k % len(GRAYS)],
                alpha=0.25,
                linewidth=0,
            )
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(color="0.88")
    ax.yaxis.set_major_formatter(
        FuncFormatter(lambda v, _: f"{v:,.0f}" if abs(v) >= 1000 else f"{v:g}")
    )
    if group:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


def stacked_bars(labels, parts: dict[str, list[float]], ylabel: str, title: str = "") -> Figure:
    fig, ax = figure(6.0, 3.2)
    bottom = [0.0] * len(labels)
    for k, (name, vals) in enumerate(parts.items()):
        ax.bar(
            [str(v) for v in labels],
            vals,
            bottom=bottom,
            color=GRAYS[k % len(GRAYS)],
            edgecolor="black",
            hatch=HATCHES[k % len(HATCHES)],
            label=name,
        )
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    if len(labels) > 3:
        ax.tick_params(axis="x", labelrotation=20)
    return fig


def odds_chart(df: pl.DataFrame, title: str = "") -> Figure:
    """Odds ratios with their 95% intervals on a log axis (a forest plot), 1 = no effect."""
    rows = df.filter(pl.col("or_lo").is_finite() & pl.col("or_hi").is_finite())
    labels = [f"{c}: {lev}" for c, lev in zip(rows["component"], rows["level"])]
    vals, lo, hi = rows["odds_ratio"].to_list(), rows["or_lo"].to_list(), rows["or_hi"].to_list()
    fig, ax = figure(6.0, max(1.8, 0.3 * len(labels) + 1.0))
    ax.errorbar(
        vals,
        range(len(labels)),
        xerr=[[v - a for v, a in zip(vals, lo)], [b - v for v, b in zip(vals, hi)]],
        fmt="o",
        color="black",
        ecolor="black",
        capsize=2,
        markersize=4,
    )
    ax.axvline(1.0, color="black", linestyle="--", linewidth=1)
    ax.set_xscale("log")
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("odds ratio of winning (log scale; 1 = no effect)")
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", color="0.85")
    return fig


def adjusted_bars(df: pl.DataFrame, fair: float | None, title: str = "") -> Figure:
    """Win rate within policy (bars with 95% intervals) with the raw rate as an open diamond."""
    chart = df.rename(
        {"adjusted_rate": "r", "adjusted_rate_lo": "r_lo", "adjusted_rate_hi": "r_hi"}
    )
    fig = rate_bars(chart, "level", "r", "win rate (% of player-games)", fair, title)
    ax = fig.axes[0]
    ax.plot(
        [100 * v for v in df["raw_rate"].to_list()],
        range(df.height),
        linestyle="none",
        marker="D",
        markerfacecolor="white",
        markeredgecolor="black",
        label="raw rate",
    )
    ax.legend(fontsize=8, loc="lower right")
    return fig
