"""Skill and luck: each game's skill gap, from ``balsim skill`` folders (the study writes one
per game with a search player, ``runs/skill-GAME``).

The skill gap is the search player's win rate at its top rollout budget minus at its lowest,
on the same games against the same fixed field (:mod:`simulator.experiments.strength`), and
its verdict says what it shows: an effect above zero, the game rewards thinking ahead; below
zero, the extra playouts mislead; no effect beyond the margin, the curve is flat (luck
dominates, or this search adds nothing): an equivalence claim, made only when the
equivalence test passes; else inconclusive, with the gap the games could have seen.  A gap
whose interval merely holds zero says nothing about luck.  At one rollout a search that picks
among its candidates on single playouts (Karnaxis's) can play worse than its rollout policy
alone, so part of its gap is that noise; the Ekonos and Karmaggän searches keep their rollout
policy's choice unless paired playouts show a clear gain, so at one rollout they play that
policy.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from simulator.core.verdicts import EFFECT, NO_EFFECT, WIN_RATE_MARGIN, judge
from simulator.experiments.strength import read_curve
from simulator.report.charts import BAR, exporting, figure, inline_svg, share, styled
from simulator.report.page import interval, pct


def split_skill(dirs: list[Path]) -> tuple[list[Path], list[Path]]:
    """(other folders, skill folders) of the folders given to the report."""
    skill = [Path(d) for d in dirs if read_curve(Path(d)) is not None]
    return [Path(d) for d in dirs if Path(d) not in skill], skill


def points(value: float) -> str:
    return f"{100 * value:+.1f}".replace("-", "−")


def verdict(record: dict) -> str:
    """One sentence: the game's skill gap with its interval, and what it says."""
    gap, first, last = record["gap"], record["points"][0], record["points"][-1]
    knob = record["knob"]
    rates = (
        f"{record['policy']} wins {pct(last['value'])} ({interval(last['low'], last['high'])}) "
        f"with {last[knob]:g} {knob} per decision and {pct(first['value'])} "
        f"({interval(first['low'], first['high'])}) with {first[knob]:g}"
    )
    size = (
        f"skill gap {points(gap['value'])} points (95% CI {points(gap['low'])} to "
        f"{points(gap['high'])}) on the same {gap['games']:,} games"
    )
    v = record.get("verdict") or judge(gap["value"], gap["se"], WIN_RATE_MARGIN).record()
    margin = f"±{100 * v['margin']:g} points"
    if v["verdict"] == EFFECT and gap["value"] > 0:
        reading = (
            "the game rewards skill: thinking further ahead wins measurably more (where "
            "the search picks on single playouts at the lowest budget, part of the gap is "
            "that noise)"
        )
    elif v["verdict"] == EFFECT:
        reading = "more rollouts did worse: the search's extra playouts mislead it in this game"
    elif v["verdict"] == NO_EFFECT:
        reading = (
            f"no skill gap beyond {margin} (equivalence test at level {v['alpha']:.2g}): the "
            f"curve is flat, luck dominates or more playouts of this search add nothing"
        )
    else:
        reading = (
            f"inconclusive: these games could detect a gap of about "
            f"±{100 * v['detectable']:.1f} points (level {v['alpha']:.2g}), so they say "
            f"nothing about luck within {margin}"
        )
    return f"{rates}: {size}; {reading}."


@styled
def curve_chart(record: dict):
    """The skill curve: the search player's win rate (%) at each rollout budget, with its 95%
    intervals and the fair share, titled by what it shows."""
    knob, rows = record["knob"], record["points"]
    budgets = [r[knob] for r in rows]
    rates = [100 * r["value"] for r in rows]
    errors = [
        [100 * (r["value"] - r["low"]) for r in rows],
        [100 * (r["high"] - r["value"]) for r in rows],
    ]
    fig, ax = figure(6.0, 3.4)
    ax.errorbar(budgets, rates, yerr=errors, marker="o", color=BAR, capsize=3, label="search")
    ax.axhline(100 * record["fair_share"], color="black", linestyle="--", linewidth=1)
    ax.plot(
        [], [], color="black", linestyle="--", label=f"fair share {share(record['fair_share'])}"
    )
    ax.set_xscale("log", base=2)
    ax.set_xticks(budgets, [f"{b:g}" for b in budgets])
    ax.set_xlabel(f"{knob} per decision (log scale)")
    ax.set_ylabel("search player's win rate (%)")
    ax.set_title(
        f"Search wins {share(rows[-1]['value'])} with {rows[-1][knob]:g} {knob}, "
        f"{share(rows[0]['value'])} with {rows[0][knob]:g}"
    )
    ax.legend(loc="best")
    ax.grid(color="#d9d9d9")
    return fig


def skill_section(folders: list[Path]) -> str:
    """The report's "Skill and luck" section: per game, its curve and its skill gap."""
    if not folders:
        return ""
    parts = []
    for folder in folders:
        record = read_curve(folder)
        field = ", ".join(record["lineup"][1:])
        with exporting(None, f"skill-{record['game']}-{len(record['lineup'])}p"):
            chart = inline_svg(curve_chart(record), "skill curve")
        parts.append(
            f"<h3>{escape(record['game'])}, {len(record['lineup'])} players</h3>"
            f"<p><b>{escape(verdict(record))}</b></p>"
            f"<p>The search player takes one seat (its team in team mode) against {escape(field)}; "
            f"fair share {pct(record['fair_share'])}. Reproduce: <code>{escape(record['command'])}"
            f"</code></p><figure class='fig'>{chart}</figure>"
        )
    return (
        "<section class='skill' id='skill'><h2>Skill and luck</h2><p>The win rate of the "
        "search player (<code>balsim skill</code>) at growing rollout budgets against a fixed "
        "field of tuned policies, every budget on the same games. The skill gap is the rate "
        "at the top budget minus at the lowest.</p>" + "".join(parts) + "</section>"
    )
