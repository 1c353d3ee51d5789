"""The report's charts: matplotlib figures in one colour-blind-safe palette (Okabe–Ito) with
font sizes legible on a slide, whose lines also read in grayscale (line styles and markers),
each drawn from a tidy analysis frame whose numbers sit in a table beside it.

A chart goes into the page as inline SVG (:func:`inline_svg`, text kept as text: a tenth of
a PNG's bytes); inside :func:`exporting` each chart drawn is also written to a folder as SVG
and as PNG at twice its on-page size, named after its section and title, for a slide deck.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import re
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from simulator.run.store import write_atomic

if TYPE_CHECKING:  # matplotlib is imported by the first chart drawn: commands that draw none
    from matplotlib.figure import Figure  # start half a second sooner

# Okabe & Ito's eight colours, distinct to every common colour vision deficiency
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
BAR = PALETTE[0]  # single-series bars
LIGHT = "#d9d9d9"  # grid lines
LINES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1)), (0, (1, 3)), (0, (8, 2)), (0, (3, 1, 1, 1, 1, 1)))
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
# sizes in points for a chart 6 inches wide shown at its size, or on a slide
STYLE = {
    "font.family": ["DejaVu Sans"],
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.titleweight": "bold",
    "axes.labelsize": 11,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "legend.fontsize": 10,
    "legend.frameon": False,
    "axes.prop_cycle": None,  # set from PALETTE on first use (cycler imports matplotlib)
    "axes.spines.top": False,
    "axes.spines.right": False,
    "svg.fonttype": "none",  # text stays text: small files, searchable, editable on a slide
    "svg.hashsalt": "balsim",  # the same chart gives the same file
    # Numbers in full (600000, not 0.6 with 1e6 above the axes), so that nothing but the
    # title is above the axes
    "axes.titley": 1.0,
    "axes.formatter.useoffset": False,
    "axes.formatter.limits": (-9, 15),
}
PNG_DPI = 192  # twice the 96 pixels per inch of a browser at 100%


@contextlib.contextmanager
def style():
    """The charts' look, for drawing and for saving (matplotlib reads some of it at each)."""
    from cycler import cycler
    from matplotlib import rc_context

    with rc_context({**STYLE, "axes.prop_cycle": cycler(color=PALETTE)}):
        yield


def styled(draw):
    """A chart function drawing in the charts' look (its titles, labels and legends read the
    font sizes as they are made)."""

    @functools.wraps(draw)
    def drawn(*args, **kwargs):
        with style():
            return draw(*args, **kwargs)

    return drawn


def figure(width: float = 6.0, height: float = 3.4):
    from matplotlib.figure import Figure

    with style():
        fig = Figure(figsize=(width, height))
        return fig, fig.add_subplot()


# ----------------------------------------------------------------------------- export


@dataclass
class Export:
    """Where the charts drawn go besides the page, and the file names taken so far."""

    folder: Path
    section: str = "report"
    used: set[str] = field(default_factory=set)

    def name(self, title: str) -> str:
        stem = slug(f"{self.section} {title}")
        name, k = stem, 2
        while name in self.used:
            name, k = f"{stem}-{k}", k + 1
        self.used.add(name)
        return name


EXPORT: ContextVar[Export | None] = ContextVar("chart_export", default=None)


def slug(text: str) -> str:
    """A file name from a title: lower case words joined by hyphens, at most 90 characters."""
    words = re.sub(r"[^a-z0-9]+", "-", text.lower().replace("ä", "a")).strip("-")
    return words[:90].rstrip("-") or "chart"


@contextlib.contextmanager
def exporting(folder: Path | None, section: str | None = None):
    """Within it, every chart :func:`inline_svg` draws is also written to ``folder`` (kept
    when ``folder`` is None: an enclosing export goes on, under the new ``section``)."""
    current = EXPORT.get()
    if folder is None and current is None:
        yield
        return
    target = (
        Export(Path(folder), section or "report")
        if folder is not None
        else Export(current.folder, section or current.section, current.used)
    )
    target.folder.mkdir(parents=True, exist_ok=True)
    token = EXPORT.set(target)
    try:
        yield
    finally:
        EXPORT.reset(token)


def save(fig: Figure, folder: Path, name: str, svg: str | None = None) -> list[Path]:
    """``folder/name.svg`` and ``folder/name.png`` (2x) of the chart, cropped to what is drawn
    (``svg``: its SVG file, when already drawn).  Each is written whole under a temporary name
    and renamed into place: a link of that name is replaced, never written through."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"{name}.svg", folder / f"{name}.png"]
    write_atomic(paths[0], svg_file(fig) if svg is None else svg)
    png = folder / f".{name}.png.{os.getpid()}.tmp"
    try:
        with style():
            fig.savefig(png, format="png", dpi=PNG_DPI, bbox_inches="tight")
        os.replace(png, paths[1])
    finally:
        png.unlink(missing_ok=True)
    return paths


def inline_svg(fig: Figure, title: str) -> str:
    """The chart as an ``<svg>`` element for the page, cropped to what is drawn; also saved
    as files named after ``title`` when exporting."""
    svg = svg_file(fig)
    target = EXPORT.get()
    if target is not None:
        save(fig, target.folder, target.name(title), svg)
    return for_page(svg)


def svg_file(fig: Figure) -> str:
    """The chart as an SVG file's text, cropped to what is drawn."""
    buf = io.StringIO()
    with style():
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    return buf.getvalue()


def for_page(svg: str) -> str:
    """An SVG file as an element of an HTML page: no XML prolog, metadata or namespace
    declarations (HTML's parser knows them), coordinates to a tenth of a point."""
    text = METADATA.sub("", svg[svg.index("<svg") :])
    text = NAMESPACES.sub("", text)
    text = GROUP_IDS.sub("", NO_ROTATION.sub("", text))  # ids nothing refers to
    text = TAG.sub(lambda tag: STYLE_SPACE.sub(r"\1", DECIMALS.sub(r"\1", tag.group(0))), text)
    text = unwrap_groups(BETWEEN_TAGS.sub("><", LINE_BREAKS.sub(" ", text)))
    # the page scales a wide chart down to its column instead of overflowing it
    return text.replace("<svg ", "<svg role='img' class='chart' ", 1)


def unwrap_groups(svg: str) -> str:
    """The SVG without its bare ``<g>`` groups (no attribute: they group nothing for the
    browser), their contents kept."""
    out, bare = [], []
    for piece in GROUP_TAGS.split(svg):
        if piece == "<g>":
            bare.append(True)
        elif piece.startswith("<g "):
            bare.append(False)
            out.append(piece)
        elif piece == "</g>":
            if not bare.pop():
                out.append(piece)
        else:
            out.append(piece)
    return "".join(out)


GROUP_TAGS = re.compile(r"(<g>|<g [^>]*>|</g>)")
METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
NAMESPACES = re.compile(r'\s+xmlns(?::\w+)?="[^"]*"')
TAG = re.compile(r"<[^>]+>")
DECIMALS = re.compile(r"(\d\.\d)\d+")
# matplotlib names every group (figure_1, patch_3, xtick_2...); only the hashed ids of clip
# paths, markers and hatches are referred to
GROUP_IDS = re.compile(r'\s+id="(?![a-z][0-9a-f]{10}")[^"]*"')
NO_ROTATION = re.compile(r'\s+transform="rotate\(-0 [^)]*\)"')
STYLE_SPACE = re.compile(r"([:;])\s+")
LINE_BREAKS = re.compile(r"\s*\n\s*")
BETWEEN_TAGS = re.compile(r">\s+<")


# ----------------------------------------------------------------------------- charts


@styled
def rate_bars(
    df: pl.DataFrame,
    label: str,
    rate: str,
    xlabel: str,
    fair: float | None = None,
    title: str = "",
    fairs: list[float] | None = None,
) -> Figure:
    """Horizontal bars of a rate with Wilson error bars and a dashed fair-share line (one
    across the chart, or ``fairs``: one per bar)."""
    labels = [str(v) for v in df[label].to_list()]
    vals = [100 * v for v in df[rate].to_list()]
    lo = [100 * v for v in df[f"{rate}_lo"].to_list()]
    hi = [100 * v for v in df[f"{rate}_hi"].to_list()]
    fig, ax = figure(6.0, max(1.8, 0.45 * len(labels) + 1.0))
    ax.barh(
        range(len(labels)),
        vals,
        color=BAR,
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
        ax.legend(loc="lower right")
    if fairs is not None:
        for k, f in enumerate(fairs):
            ax.plot([100 * f] * 2, [k - 0.4, k + 0.4], color="black", linestyle="--", linewidth=1)
        ax.plot([], [], color="black", linestyle="--", label="fair share")
        ax.legend(loc="lower right")
    ax.set_xlabel(xlabel)
    ax.set_title(title, wrap=True)
    ax.grid(axis="x", color=LIGHT)
    return fig


@styled
def diff_bars(df: pl.DataFrame, label: str, xlabel: str, title: str = "") -> Figure:
    """Horizontal bars of paired mean differences with their 95% intervals around zero."""
    labels = [str(v) for v in df[label].to_list()]
    vals = df["mean_diff"].to_list()
    lo, hi = df["diff_lo"].to_list(), df["diff_hi"].to_list()
    fig, ax = figure(6.0, max(1.8, 0.4 * len(labels) + 1.0))
    ax.barh(
        range(len(labels)),
        vals,
        color=BAR,
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
    ax.set_title(title, wrap=True)
    ax.grid(axis="x", color=LIGHT)
    return fig


@styled
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
        boxprops={"facecolor": PALETTE[5], "edgecolor": "black"},
        medianprops={"color": "black"},
        meanprops={"marker": "D", "markerfacecolor": "white", "markeredgecolor": "black"},
    )
    ax.set_ylabel(ylabel)
    ax.set_title(title + " (box 25–75%, whiskers 5–95%, ◇ mean)", wrap=True)
    ax.grid(axis="y", color=LIGHT)
    if len(stats) > 4:
        ax.tick_params(axis="x", labelrotation=30)
    return fig


@styled
def count_bars(x, y, xlabel: str, ylabel: str, title: str = "") -> Figure:
    fig, ax = figure(6.0, 3.0)
    labels = [str(v) for v in x]
    ax.bar(labels, y, color=BAR)
    if sum(len(label) for label in labels) > 40:  # long labels (income ranges) would overlap
        ax.tick_params(axis="x", labelrotation=30)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, wrap=True)
    ax.grid(axis="y", color=LIGHT)
    return fig


@styled
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
            color=PALETTE[k % len(PALETTE)],
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
                color=PALETTE[k % len(PALETTE)],
                alpha=0.2,
                linewidth=0,
            )
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, wrap=True)
    ax.grid(color=LIGHT)
    ax.yaxis.set_major_formatter(
        FuncFormatter(lambda v, _: f"{v:,.0f}" if abs(v) >= 1000 else f"{v:g}")
    )
    if group:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


@styled
def stacked_bars(labels, parts: dict[str, list[float]], ylabel: str, title: str = "") -> Figure:
    fig, ax = figure(6.0, 3.2)
    bottom = [0.0] * len(labels)
    for k, (name, vals) in enumerate(parts.items()):
        ax.bar(
            [str(v) for v in labels],
            vals,
            bottom=bottom,
            color=PALETTE[k % len(PALETTE)],
            edgecolor="white",
            label=name,
        )
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_ylabel(ylabel)
    ax.set_title(title, wrap=True)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    if len(labels) > 3:
        ax.tick_params(axis="x", labelrotation=20)
    return fig


@styled
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
        color=BAR,
        ecolor=BAR,
        capsize=2,
        markersize=4,
    )
    ax.axvline(1.0, color="black", linestyle="--", linewidth=1)
    ax.set_xscale("log")
    ax.set_yticks(range(len(labels)), labels)
    ax.invert_yaxis()
    ax.set_xlabel("odds ratio of winning (log scale; 1 = no effect)")
    ax.set_title(title, wrap=True)
    ax.grid(axis="x", color=LIGHT)
    return fig


@styled
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
    ax.legend(loc="lower right")
    return fig


# ----------------------------------------------------------------------------- titles


def share(x: float) -> str:
    """A rate for a chart's title: 38%, 4.5%, 0.18%."""
    value = 100 * x
    digits = 0 if abs(value) >= 10 else (1 if abs(value) >= 1 else 2)
    return f"{value:.{digits}f}%"


def most_title(df: pl.DataFrame, label: str, rate: str, verb: str, fair: float | None) -> str:
    """'<the top row's label> <verb> most: 38% (fair share 25%)' for a chart of rates."""
    if df.is_empty():
        return ""
    top = df.sort(rate, descending=True, nulls_last=True).row(0, named=True)
    low = df.sort(rate, nulls_last=True).row(0, named=True)
    text = f"{top[label]} {verb} most, {share(top[rate])}"
    if df.height > 1:
        text += f"; {low[label]} least, {share(low[rate])}"
    return text + (f" (fair share {share(fair)})" if fair is not None else "")


def peak_title(df: pl.DataFrame, label: str, value: str, text: str) -> str:
    """``text`` formatted with the label and the value of the row where ``value`` is largest."""
    r = df.sort(value, descending=True).row(0, named=True)
    return text.format(r[label], r[value])
