"""HTML of the report: number formats, tables, chart blocks and the page around them.

The page is self-contained (CSS inline, charts as base64 PNGs, no script) and laid out for a
1,400-pixel-wide window: tables wrap their headers and stack under their chart when they do
not fit beside it, so no table is cut off.
"""

from __future__ import annotations

import base64
import html
import io
import math
import time
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

if TYPE_CHECKING:  # matplotlib takes half a second to import: only the charts need it
    from matplotlib.figure import Figure

MAX_TABLE_ROWS = 60
WRAP_TEXT = 24  # longer text cells may wrap; shorter ones and numbers never do
P_FLOOR = 1e-300  # smaller p-values are below what a double holds reliably


def pct(x: float, digits: int = 1) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if 0 < abs(x) < 0.001:
        digits = 3
    elif 0 < abs(x) < 0.01:
        digits = 2
    return f"{100 * x:.{digits}f}%".replace("-", "−")


def interval(lo: float, hi: float) -> str:
    return f"95% CI {pct(lo)}–{pct(hi)}"


def p_number(p: float) -> str:
    """A p-value as text: '< 1e-300' below the floor, never a bare 0."""
    if p is None or math.isnan(p):
        return "–"
    if p < P_FLOOR:
        return "< 1e-300"
    return f"{p:.2g}" if p >= 1e-4 else f"{p:.1e}"


def p_text(p: float) -> str:
    text = p_number(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def money(x: float) -> str:
    return f"−${-x:,.0f}" if x < 0 else f"${x:,.0f}"


def is_p_column(name: str) -> bool:
    return name == "p_value" or name.startswith("p_")


def cell(name: str, value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if is_p_column(name):
            return html.escape(p_number(value))
        if math.isinf(value):
            return "∞" if value > 0 else "−∞"
        # rates and their bounds are percentages; odds ratios and paired differences (whose
        # unit is the metric's) are plain numbers
        if (
            any(k in name for k in ("rate", "share", "excess"))
            or name.endswith(("_lo", "_hi"))
            and not name.startswith(("or_", "diff_"))
        ):
            return pct(value)
        if "usd" in name:
            return money(value)
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        return f"{value:.3g}" if abs(value) < 100 else f"{value:.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return html.escape(str(value))


def header(name: str) -> str:
    """A column name that may wrap after its underscores."""
    return html.escape(name).replace("_", "_<wbr>")


def td(text: str, value) -> str:
    """A table cell; numbers and short words stay on one line, long text may wrap, and a name
    (e.g. a tuned policy's) may break after its underscores."""
    long = isinstance(value, str) and len(value) > WRAP_TEXT
    if long:
        return f"<td class='wrap'>{text}</td>"
    if isinstance(value, str) and "_" in value:
        return f"<td class='name'>{text.replace('_', '_<wbr>')}</td>"
    return f"<td>{text}</td>"


def table_html(df: pl.DataFrame | None, keep: list[str] | None = None) -> str:
    if df is None:
        return ""
    if keep:
        df = df.select([c for c in keep if c in df.columns])
    rows = df.head(MAX_TABLE_ROWS).rows()
    head = "".join(f"<th>{header(c)}</th>" for c in df.columns)
    body = "".join(
        "<tr>" + "".join(td(cell(c, v), v) for c, v in zip(df.columns, r)) + "</tr>" for r in rows
    )
    more = (
        f"<p class='note'>first {MAX_TABLE_ROWS} of {df.height} rows</p>"
        if df.height > MAX_TABLE_ROWS
        else ""
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}"


DPI = 96
ROOM = 3.0  # inches added around a chart's axes for the labels and legends outside them
PAD = 0.1  # inches of white around what is drawn (savefig's pad_inches)


def png(fig: Figure) -> str:
    """The chart as a base64 PNG cropped to what is drawn, as ``savefig(bbox_inches="tight")``
    writes it, but drawn once instead of twice (a quarter less of the report's chart time):
    drawn with room to spare around the axes, then cropped to its tight box."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    width, height = fig.get_size_inches()
    boxes = [ax.get_position() for ax in fig.axes]
    fig.set_dpi(DPI)
    fig.set_size_inches(width + 2 * ROOM, height + 2 * ROOM)
    for ax, box in zip(fig.axes, boxes):  # the axes keep their size and place in inches
        ax.set_position(
            [
                (box.x0 * width + ROOM) / (width + 2 * ROOM),
                (box.y0 * height + ROOM) / (height + 2 * ROOM),
                box.width * width / (width + 2 * ROOM),
                box.height * height / (height + 2 * ROOM),
            ]
        )
    width, height = width + 2 * ROOM, height + 2 * ROOM
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    box = fig.get_tightbbox(canvas.get_renderer()).padded(PAD)
    buf = io.BytesIO()
    # zlib's fastest level: the report's PNG encoding took about a seventh of its time at the
    # default level, for files under 2% smaller
    if box.x0 < 0 or box.y0 < 0 or box.x1 > width or box.y1 > height:
        # larger than the room (a very long label): let matplotlib draw it to its size
        fig.savefig(
            buf, format="png", dpi=DPI, bbox_inches="tight", pil_kwargs={"compress_level": 1}
        )
    else:
        left, right = math.floor(box.x0 * DPI), math.ceil(box.x1 * DPI)
        top, bottom = math.floor((height - box.y1) * DPI), math.ceil((height - box.y0) * DPI)
        pixels = np.asarray(canvas.buffer_rgba())[top:bottom, left:right]
        Image.fromarray(pixels).save(buf, format="png", compress_level=1, dpi=(DPI, DPI))
    return base64.b64encode(buf.getvalue()).decode("ascii")


WIDE_TABLE_COLUMNS = 9  # wider tables go under their chart, across the whole page


def block(
    anchor: str,
    title: str,
    fig: Figure | None,
    table: pl.DataFrame | None,
    caption: str = "",
    keep: list[str] | None = None,
) -> str:
    """A titled chart with its numbers in a table beside it (under it when the table is wide)."""
    img = f"<img alt='{html.escape(title)}' src='data:image/png;base64,{png(fig)}'>" if fig else ""
    cap = f"<p class='note'>{caption}</p>" if caption else ""
    columns = (
        len([c for c in keep if table is not None and c in table.columns])
        if keep
        else (table.width if table is not None else 0)
    )
    layout = "pair wide" if columns > WIDE_TABLE_COLUMNS else "pair"
    return (
        f"<div class='block' id='{anchor}'><h4>{html.escape(title)}</h4>{cap}"
        f"<div class='{layout}'><div class='fig'>{img}</div>"
        f"<div class='tab'>{table_html(table, keep)}</div></div></div>"
    )


CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:1em auto;
max-width:1320px;color:#111;line-height:1.35;padding:0 1em}
h1{margin:.1em 0 .1em;font-size:1.6em} h2{border-bottom:2px solid #333;margin-top:2em}
h3{margin-top:1.6em} h4{margin:.2em 0}
.answers{border:3px solid #111;padding:.3em 1em .5em;margin:.5em 0}
.answers h2,.flags h2{border:none;margin:.2em 0;font-size:1.2em}
.answers li{margin:.25em 0}
.flags{border:2px solid #111;padding:.3em 1em;background:#f3f3f3;margin:.6em 0}
.flags li{margin:.45em 0} .flags a{color:#000}
.flags .marks{font-size:12px;color:#333;display:block}
.block{margin:1.2em 0;page-break-inside:avoid}
.pair{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}
.pair.wide{flex-direction:column}
.fig img{max-width:620px;border:1px solid #ccc}
.tab{max-width:100%;min-width:0;flex:1 1 420px}
table{border-collapse:collapse;font-size:12px;max-width:100%}
th,td{border:1px solid #bbb;padding:2px 5px;text-align:right}
th{background:#e6e6e6;font-weight:600} td:first-child,th:first-child{text-align:left}
td{white-space:nowrap} td.wrap{white-space:normal;min-width:12em} td.name{white-space:normal}
table.facts th{text-align:left} table.facts td{white-space:normal;text-align:left}
.note{color:#444;font-size:12px;margin:.2em 0}
"""


def render_page(
    title_games: list[str], meta: str, answers_html: str, flags_html: str, toc: str, body: list[str]
) -> str:
    """The whole page: answers first, then the balance flags, the datasets and their sections."""
    games = ", ".join(title_games)
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>balsim playtest report: {html.escape(games)}</title>"
        f"<style>{CSS}</style></head><body>"
        f"<h1>balsim playtest report</h1><p class='note'>{meta} Generated "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.</p>"
        f"{answers_html}{flags_html}"
        f"<h2>Datasets</h2><ul>{toc}</ul>" + "".join(body) + "</body></html>"
    )
