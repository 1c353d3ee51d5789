"""Sensitivity screens in the playtest report: one section per screen, and each balance flag
of the same game annotated from the screen at its player count.

A flag's finding is matched to the screen metric that measures it: a seat's win rate
(``win_rate:seat=S``), a policy's, a character's or a team's (``win_rate:GROUP=NAME``), the
round-cap rate, the excess after a left neighbour (``neighbour_excess:policy=NAME``), the
presidency edge, the runaway-leader rate, a policy's loan-cap or delinquency rate (named by
the flag).  The annotation (:class:`simulator.report.flags.Sensitivity`) names the ASSUMED
keys the finding depends on, with their effects; it says "robust to the assumed values" only
when every ASSUMED key in play at the flag's player count was screened there and each shows
no effect beyond the screen's margin (an equivalence test); otherwise it says how many keys
were inconclusive (and what the screen could detect) and which were not screened.  A flag at
a player count no screen played is never called robust; a variant's flag is not screened (the
screen moves keys under the base rules only); a flag whose metric the screen does not have
says so rather than be given a verdict about another number.
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path

from simulator.report.flags import SIDE_NAMES, Flag
from simulator.report.whatifs import Sensitivity
from simulator.run.outputs import OUT_MARK

GROUP_OF_KIND = {
    "dominant policy": "policy",
    "weak policy": "policy",
    "dominant character": "character",
}
KIND_METRICS = {"presidency": "presidency_edge", "runaway": "runaway_rate"}
VARIANT_REASON = (
    "a variant's effect is a difference between two rule sets, and the screen "
    "moves the assumed keys under the base rules only (screening it would replay "
    "every run under each variant)"
)


def is_screen(path: Path) -> bool:
    """Whether ``path`` is a ``balsim sensitivity`` output folder."""
    try:
        return (
            json.loads((Path(path) / OUT_MARK).read_text(encoding="utf-8")).get("tool")
            == "sensitivity"
        )
    except (OSError, ValueError):
        return False


def split_screens(dirs: list[Path]) -> tuple[list[Path], list[Path]]:
    """(dataset folders, sensitivity folders) of the folders given to the report."""
    screens = [Path(d) for d in dirs if is_screen(Path(d))]
    return [Path(d) for d in dirs if Path(d) not in screens], screens


def flag_metric(flag: Flag) -> str | None:
    """The screen metric that measures the flag's finding, or None."""
    if flag.kind == "seat":
        return f"win_rate:seat={flag.subject.removeprefix('seat ')}"
    if flag.kind == "team":
        side = next(k for k, v in SIDE_NAMES.items() if v == flag.subject)
        return f"win_rate:side={side}"
    if flag.kind in GROUP_OF_KIND:
        return f"win_rate:{GROUP_OF_KIND[flag.kind]}={flag.subject}"
    if flag.kind == "round_cap":
        return "round_cap_rate"
    if flag.kind == "left neighbour":
        return f"neighbour_excess:policy={flag.subject}"
    return KIND_METRICS.get(flag.kind, flag.metric or None)


def mark_flags(flags: list[Flag], screens: list[Path]) -> None:
    """Fill ``Flag.sensitivity`` from the screen of the flag's game at the flag's player count
    (else from the screen of the nearest count, which is named and never gives "robust")."""
    from simulator.experiments.sensitivity import read, verdicts

    found: dict[str, dict[int, tuple]] = {}
    for path in screens:
        summary, _ = read(path)
        found.setdefault(summary["game"], {})[summary["n_players"]] = (summary, verdicts(path))
    for flag in flags:
        by_count = found.get(flag.game, {})
        if not by_count:
            continue
        players = min(by_count, key=lambda n: (abs(n - flag.n_players), n))
        summary, judged = by_count[players]
        flag.sensitivity = annotation(flag, summary, judged, players)


def annotation(flag: Flag, summary: dict, judged: dict, players: int) -> Sensitivity:
    """What the screen (``summary``, its ``judged`` rows) says about one flag."""
    from simulator.experiments.screen_views import effect_text, show
    from simulator.report.tool_charts import metric_name

    other = 0 if players == flag.n_players else players
    metric = flag_metric(flag)
    if flag.kind == "variant":
        return Sensitivity(players=other, reason=VARIANT_REASON)
    if metric not in summary["metrics"]:
        return Sensitivity(
            players=other,
            reason=f"the screen at {players} players does not measure "
            + (f"{metric_name(metric).split(' (')[0]}" if metric else "it"),
        )
    if metric not in judged:
        return Sensitivity(
            players=other,
            reason=f"{metric_name(metric).split(' (')[0]} is undefined in some of the "
            "screen's runs (none of their games has it)",
        )
    rows = list(judged[metric].values())
    effects = [r for r in rows if r["verdict"] == "effect"]
    unclear = [r for r in rows if r["verdict"] == "inconclusive"]

    def covered(key: str, part: list[dict]) -> bool:  # a row is a key or a card's numbers
        return any(key == r["key"] or key.startswith(r["key"] + ".") for r in part)

    verdict_of = {k: covered(k, rows) for k in summary["rests_on"]}
    screened = set(summary["screened"])
    # screened, yet no verdict on this metric (undefined in some run): neither robust nor not
    unjudged = [k for k, ok in verdict_of.items() if not ok and k in screened]
    return Sensitivity(
        keys=tuple(r["key"] for r in effects),
        depends=tuple(effect_text(r) for r in effects),
        screened=sum(verdict_of.values()),
        unscreened=tuple(k for k, ok in verdict_of.items() if not ok and k not in screened),
        inconclusive=sum(covered(k, unclear) for k in summary["rests_on"]) + len(unjudged),
        detectable=(
            show(metric, max(r["detectable"] for r in unclear)).lstrip("+") if unclear else ""
        ),
        margin=show(metric, rows[0]["margin"]).lstrip("+") if rows else "",
        players=other,
    )


def screen_sections(screens: list[Path]) -> list[str]:
    return [html_section(path) for path in screens]


def html_section(out: str | Path) -> str:
    """A self-contained HTML section of a sensitivity screen (title, what it varied and what
    it could see, the ranked chart, the table of the effects found, and the keys not
    screened) for the playtest report."""
    import polars as pl

    from simulator.experiments.screen_views import effect_text, show
    from simulator.experiments.sensitivity import read
    from simulator.report.charts import exporting, inline_svg
    from simulator.report.page import p_number
    from simulator.report.tool_charts import metric_name, screen_chart, screen_section

    summary, effects = read(out)
    with exporting(None, screen_section(summary)):
        chart = inline_svg(screen_chart(summary, effects), "ranked effects")
    found = effects.filter(pl.col("verdict") == "effect").sort("metric", "rank")
    rows = "".join(
        f"<tr><td class='wrap'>{escape(metric_name(r['metric']))}</td>"
        f"<td class='wrap'>{escape(effect_text(r))}</td><td>{p_number(r['p_holm'])}</td></tr>"
        for r in found.iter_rows(named=True)
    )
    counts = {
        v: effects.filter(pl.col("verdict") == v).height for v in ("no effect", "inconclusive")
    }
    seen = summary["detectable"]
    sizes = [
        f"a number's effect over its range of {show('win_rate', seen['numbers']).lstrip('+')}"
        if seen.get("numbers")
        else "",
        f"a switch's of {show('win_rate', seen['choice']).lstrip('+')} (a choice's alternative: "
        "that times the square root of its number of alternatives)"
        if seen.get("choice")
        else "",
    ]
    skipped = "".join(
        f"<li>{escape(s['key'])}: {escape(s['reason'])}</li>" for s in summary["skipped"]
    )
    return (
        f"<section class='sensitivity'><h2>Sensitivity: {escape(summary['game'])} at "
        f"{summary['n_players']} players, {len(summary['screened'])} keys</h2>"
        f"<p>{len(summary['factors'])} factors by Morris screening ({summary['trajectories']} "
        f"trajectories of {summary['games_per_run']:,} games a run; a card's numbers move "
        f"together) and {len(summary['choices'])} switches and choices paired "
        f"({summary['choice_games']:,} games each, shared among its alternatives), "
        f"{summary['games']:,} games with the line-up "
        f"{escape(', '.join(summary['lineup']))}. Sized to detect, with 80% power, "
        f"{escape(' and '.join(s for s in sizes if s))} on a win rate. An effect is "
        f"significant after Holm's correction over the keys of its metric; no effect means "
        f"within ±{show('win_rate', summary['margin']).lstrip('+')} by TOST. Across all "
        f"metrics: {found.height} effects, {counts['no effect']} no effect, "
        f"{counts['inconclusive']} inconclusive.</p>"
        f"<figure class='full'>{chart}</figure>"
        + (
            f"<details><summary>The {found.height} effects found</summary>"
            f"<div class='scroll'><table><tr>"
            f"<th>measure</th><th>rules key: change (95% CI)</th>"
            f"<th>p-value (Holm-corrected)</th></tr>{rows}</table></div>"
            "</details>"
            if rows
            else "<p>No key moves any metric beyond the noise.</p>"
        )
        + (f"<p>Not screened:</p><ul>{skipped}</ul>" if skipped else "")
        + "</section>"
    )
