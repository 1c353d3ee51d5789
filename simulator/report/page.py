"""HTML of the report: number formats, tables, chart blocks and the page around them.

The page is self-contained (CSS inline, charts as inline SVG, no script) and laid out for a
1,400-pixel-wide window: tables wrap their headers and stack under their chart when they do
not fit beside it, and a table wider than the page scrolls in its own box, so no table is cut
off and the page never widens.
"""

from __future__ import annotations

import html
import math
import time
from typing import TYPE_CHECKING

import polars as pl

from simulator.report.charts import inline_svg
from simulator.report.glossary import glossary_section, link_terms

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


def group_text(group: str) -> str:
    """A paired comparison's players in words: ``policy=tycoon`` -> "tycoon", ``seat=1`` ->
    "seat 1", ``all`` -> "all players"."""
    kind, _, value = group.partition("=")
    if not value:
        return "all players" if kind == "all" else kind
    return f"seat {value}" if kind == "seat" else value


def money(x: float) -> str:
    return f"−${-x:,.0f}" if x < 0 else f"${x:,.0f}"


def is_p_column(name: str) -> bool:
    return name == "p_value" or name.startswith("p_")


# the datasets' columns as a designer reads them, with their units; a column not named here
# is shown by the rules of :func:`column_name`
COLUMNS = {
    "n_players": "players",
    "n_games": "games",
    "games": "games",
    "n": "sample (player-games)",
    "wins": "wins",
    "variant": "variant",
    "seat": "seat",
    "policy": "policy",
    "character": "character",
    "side": "team",
    "level": "level",
    "component": "component",
    "win_rate": "win rate (%)",
    "first_win_rate": "first player's win rate (%)",
    "fair_share": "fair share (%)",
    "first_excess": "first player over fair share (points)",
    "excess": "over expected (points)",
    "best_seat": "best seat",
    "best_win_rate": "best seat's win rate (%)",
    "worst_seat": "worst seat",
    "worst_win_rate": "worst seat's win rate (%)",
    "chi2": "chi-square over seats",
    "dof": "degrees of freedom",
    "p_value": "p-value",
    "p_holm": "p-value (Holm-corrected)",
    "significant": "significant after Holm",
    "odds_ratio": "odds ratio of winning",
    "mean_diff": "mean change",
    "base_mean": "base rules' value",
    "variant_mean": "variant's value",
    "se": "standard error",
    "metric": "measure",
    "group": "players compared",
    "note": "note",
    "raw_rate": "win rate as played (%)",
    "adjusted_rate": "win rate within policy (%)",
    "expected_rate": "expected win rate (%)",
    "confounded": "raw rate confounded",
    "main_stratum": "main policy",
    "main_share": "main policy's share (%)",
    "left_policy": "left neighbour's policy",
    "policy_rate": "policy's own win rate (%)",
    "p5": "5th percentile",
    "p25": "25th percentile",
    "p50": "median",
    "p75": "75th percentile",
    "p95": "95th percentile",
    "q25": "25th percentile",
    "q75": "75th percentile",
    "mean": "mean",
    "median": "median",
    "sd": "standard deviation",
    "min": "minimum",
    "max": "maximum",
    "length": "length",
    "share": "share (%)",
    "end_reason": "how the game ends",
    "rate": "rate (%)",
    "leader_won": "leader won",
    "tax_bracket": "tax bracket",
    "income": "yearly income",
    "player_years": "player-years",
    "share_of_tax": "share of all tax paid (%)",
    "smart_share": "smart table used (% of player-years)",
    "smart_years": "player-years on the smart table",
    "cap_binding": "loan cap reached (% of players)",
    "borrowed": "borrowed (% of players)",
    "delinquent": "delinquent notice (% of players)",
    "keep_rate": "kept when dealt (%)",
    "win_rate_dealt": "win rate when dealt (%)",
    "rank_title": "rank title",
    "death_rate": "die (% of players)",
    "death_round": "round of death",
    "start_blood_coins": "starting blood coins",
    "start_coins": "starting blood coins",
    "edge": "starting team's edge (points)",
    "starting_win_rate": "starting team's win rate (%)",
    "other_win_rate": "other team's win rate (%)",
    "top_share": "most valuable (% of games)",
    "tied_games_share": "games tied for most valuable (%)",
    "measured_at": "measured at",
    "presidencies": "presidencies held",
    "gini": "Gini",
    "source": "source",
    "mean_per_player": "mean per player",
    "main_stratum_share": "main policy's share (%)",
    "q25_final": "final, 25th percentile",
    "q75_final": "final, 75th percentile",
    "median_final": "final, median",
    "mean_final": "final, mean",
    "mean_start": "at the start, mean",
    "n_dealt": "players dealt",
    "name": "name",
}
# the engines' codes that a table shows as values (how a game ended, who presides), in words
VALUE_WORDS = {
    "final_year": "last year played",
    "final_turn": "last turn played",
    "egg_escaped": "the Alien Egg escaped",
    "all_dead": "every plunderer dead",
    "round_cap": "round cap reached",
    "top_president": "top president",
    "co_top_president": "co-top president",
}
POINTS = ("excess", "edge", "mean_diff", "diff")  # differences of rates, shown in points
UNITS = (("_usd", "USD"), ("_mu", "M.U."))


def base_of(name: str) -> str:
    """The column an interval bound belongs to (``win_rate_lo`` -> ``win_rate``)."""
    stem = name.removesuffix("_lo").removesuffix("_hi")
    return {"or": "odds_ratio", "diff": "mean_diff"}.get(stem, stem)


def column_name(name: str) -> str:
    """A plain header for a column: its name in :data:`COLUMNS`, else its words with the unit
    its name carries (``mean_tax_usd`` -> "mean tax (USD)", ``keep_rate`` -> "keep rate (%)")."""
    if name in COLUMNS:
        return COLUMNS[name]
    for suffix, unit in UNITS:
        if name.endswith(suffix):
            return f"{name.removesuffix(suffix).replace('_', ' ')} ({unit})"
    words = name.replace("_", " ")
    if is_rate(name):
        return f"{words} (%)"
    if is_points(name):
        return f"{words} (points)"
    return words


def is_rate(name: str) -> bool:
    plain = COLUMNS.get(name, "")
    return "(%" in plain or (
        name not in COLUMNS and any(k in name for k in ("rate", "share")) and not is_points(name)
    )


def is_points(name: str) -> bool:
    return any(k in name for k in POINTS) and not name.startswith("or_")


def points_text(x: float) -> str:
    """A difference of two rates in percentage points: +3.1, −0.4."""
    return f"{100 * x:+.1f}".replace("-", "−")


def number(x: float) -> str:
    """A plain number rounded for reading: 3 significant digits, thousands separated."""
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if abs(x) >= 100:
        return f"{x:,.0f}".replace("-", "−")
    return f"{x:.3g}".replace("-", "−")


def cell(name: str, value, unit: str = "") -> str:
    """A value as text: rates in percent, differences of rates in points, money in dollars,
    p-values as p-values, other numbers rounded to 3 significant digits."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float | int) and not isinstance(value, bool):
        if is_p_column(name):
            return html.escape(p_number(float(value)))
        if unit == "%" or (not unit and is_rate(name)):
            return pct(value)
        if unit == "points" or (not unit and is_points(name) and "rate" not in name):
            return points_text(value)
        if "usd" in name:
            return money(value)
        if isinstance(value, int):
            return f"{value:,}"
        return number(value)
    return html.escape(VALUE_WORDS.get(str(value), str(value)))


def header(name: str) -> str:
    """A plain column header that may wrap after its words."""
    return html.escape(column_name(name))


def td(text: str, value) -> str:
    """A table cell; numbers and short words stay on one line, long text may wrap, and a name
    (e.g. a tuned policy's) may break after its underscores."""
    long = isinstance(value, str) and len(value) > WRAP_TEXT
    if long:
        return f"<td class='wrap'>{text}</td>"
    if isinstance(value, str) and "_" in value:
        return f"<td class='name'>{text.replace('_', '_<wbr>')}</td>"
    return f"<td>{text}</td>"


def columns_shown(df: pl.DataFrame) -> list[tuple[str, str | None]]:
    """(column, its upper bound) per column shown: an interval's two bounds as one column."""
    shown = []
    for c in df.columns:
        if c.endswith("_hi") and c.removesuffix("_hi") + "_lo" in df.columns:
            continue
        hi = c.removesuffix("_lo") + "_hi"
        shown.append((c, hi) if c.endswith("_lo") and hi in df.columns else (c, None))
    return shown


def interval_cell(lo_name: str, lo, hi) -> str:
    base = base_of(lo_name)
    unit = "%" if is_rate(base) else ("points" if is_points(base) else "")
    if lo is None or hi is None:
        return "–"
    return f"{cell(base, lo, unit)}–{cell(base, hi, unit)}"


def table_html(df: pl.DataFrame | None, keep: list[str] | None = None) -> str:
    if df is None:
        return ""
    if keep:
        df = df.select([c for c in keep if c in df.columns])
    shown = columns_shown(df)
    several = sum(hi is not None for _, hi in shown) > 1
    heads = [
        (f"95% interval of {column_name(base_of(c))}" if several else "95% interval")
        if hi
        # text a caller formatted carries its own units
        else column_name(c)
        if df.schema[c].is_numeric()
        else c.replace("_", " ")
        for c, hi in shown
    ]
    rows = df.head(MAX_TABLE_ROWS).to_dicts()
    head = "".join(f"<th>{html.escape(h)}</th>" for h in heads)
    body = "".join(
        "<tr>"
        + "".join(
            f"<td>{interval_cell(c, r[c], r[hi])}</td>" if hi else td(cell(c, r[c]), r[c])
            for c, hi in shown
        )
        + "</tr>"
        for r in rows
    )
    more = (
        f"<p class='note'>first {MAX_TABLE_ROWS} of {df.height} rows</p>"
        if df.height > MAX_TABLE_ROWS
        else ""
    )
    return (
        f"<div class='scroll'><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody>"
        f"</table></div>{more}"
    )


WIDE_TABLE_COLUMNS = 9  # wider tables go under their chart, across the whole page


def block(
    anchor: str,
    title: str,
    fig: Figure | None,
    table: pl.DataFrame | None,
    caption: str = "",
    keep: list[str] | None = None,
) -> str:
    """A titled chart with its numbers in a table beside it (under it when the table is wide);
    the chart inline as SVG, and saved as files when the charts are exported
    (:func:`simulator.report.charts.exporting`)."""
    img = f"<figure>{inline_svg(fig, title)}</figure>" if fig else ""
    cap = f"<p class='note'>{caption}</p>" if caption else ""
    if table is not None and keep:
        table = table.select([c for c in keep if c in table.columns])
    columns = len(columns_shown(table)) if table is not None else 0
    layout = "pair wide" if columns > WIDE_TABLE_COLUMNS else "pair"
    return (
        f"<div class='block' id='{anchor}'><h4>{html.escape(title)}</h4>{cap}"
        f"<div class='{layout}'><div class='fig'>{img}</div>"
        f"<div class='tab'>{table_html(table)}</div></div></div>"
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
.fig figure{margin:0} .fig svg.chart{max-width:640px;height:auto;display:block}
figure.full{margin:.5em 0} figure.full svg.chart{max-width:100%;height:auto;display:block}
.fig img{max-width:640px} a.term{color:inherit;text-decoration:underline dotted}
.glossary dt{font-weight:600;margin-top:.5em} .glossary dd{margin:0 0 0 1.5em;max-width:60em}
.tab{max-width:100%;flex:1 1 420px}
.scroll{max-width:100%;overflow-x:auto}
table{border-collapse:collapse;font-size:12px}
th,td{border:1px solid #bbb;padding:2px 5px;text-align:right}
th{background:#e6e6e6;font-weight:600} td:first-child,th:first-child{text-align:left}
td{white-space:nowrap} td.wrap{white-space:normal;min-width:12em} td.name{white-space:normal}
table.facts th{text-align:left} table.facts td{white-space:normal;text-align:left}
.note{color:#444;font-size:12px;margin:.2em 0}
"""


def render_page(
    title_games: list[str], meta: str, answers_html: str, flags_html: str, toc: str, body: list[str]
) -> str:
    """The whole page: answers first, then the balance flags, the datasets and their sections,
    the glossary at the end (linked from the first use of each of its terms)."""
    games = ", ".join(title_games)
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>balsim playtest report: {html.escape(games)}</title>"
        f"<style>{CSS}</style></head><body>"
        f"<h1>balsim playtest report</h1><p class='note'>{meta} Generated "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. Words in dotted underline "
        "are explained in the <a href='#glossary'>glossary</a> at the end.</p>"
        # the answers stay verbatim sentences: the terms are linked from the flags on
        + answers_html
        + link_terms(f"{flags_html}<h2>Datasets</h2><ul>{toc}</ul>" + "".join(body))
        + glossary_section()
        + "</body></html>"
    )
