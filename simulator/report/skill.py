"""Skill and luck: each game's rated ladder, from ``balsim skill`` folders (the study writes
one per game, ``runs/skill-GAME``).

Every rung of the ladder (random, the scripted, tuned and adapted fields, the search player
at several budgets) rated on one Plackett–Luce scale in Elo points, random at 0
(:mod:`simulator.experiments.skill`).  The section states each game's skill depth (the steps of
60% from random to the strongest rung) with its interval, the plateau of the search (the
budget from which a doubling is shown to gain less than the margin, an equivalence verdict;
"not reached" or undecided otherwise) and the luck (how often the weakest rung finishes above
the strongest), then each rules variant's change in depth, and the ratings as a chart.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from simulator.experiments.skill import read_skill
from simulator.report.charts import BAR, exporting, figure, inline_svg, styled


def split_skill(dirs: list[Path]) -> tuple[list[Path], list[Path]]:
    """(other folders, skill folders) of the folders given to the report."""
    skill = [Path(d) for d in dirs if read_skill(Path(d)) is not None]
    return [Path(d) for d in dirs if Path(d) not in skill], skill


def steps(x: float) -> str:
    return f"{x:.1f}".replace("-", "−")


def verdict(record: dict, variant: dict | None = None) -> str:
    """One sentence: the skill depth with its interval, the plateau and the luck."""
    v = variant or record["variants"][0]
    d, luck = v["depth"], v["luck"]
    depth = f"skill depth {d['text']}"
    if not d["decided"]:
        depth += f", not yet known within ±{d['precision']:g} step"
    luck_text = (
        f"{luck['weaker']} finished above {luck['stronger']} in {100 * luck['value']:.1f}% of "
        f"the {luck['games']:,} games where they met (95% CI {100 * max(luck['low'], 0):.1f}% "
        f"to {100 * min(luck['high'], 1):.1f}%)"
    )
    plateau = v["plateau"]
    plateau_text = "" if plateau["state"] == "none" else f"; plateau: {plateau['text']}"
    return f"{depth}{plateau_text}; luck: {luck_text}."


def changes(record: dict) -> list[str]:
    """Each variant's change in depth against the base rules, in words."""
    return [c["text"] for c in record["depth_changes"]]


@styled
def ratings_chart(record: dict, variant: int = 0):
    """Each rung's rating (Elo points, random 0) with its 95% interval, weakest at the
    bottom, titled by the skill depth."""
    v = record["variants"][variant]
    rows = v["ratings"]
    names = [r["rung"] for r in rows]
    values = [r["value"] for r in rows]
    known = [x for r in rows for x in (r["value"], r["low"], r["high"]) if x is not None]
    reach = 1.5 * max(max(abs(x) for x in known), 1.0)  # an unbounded end runs off the chart
    errors = [
        [max(0.0, r["value"] - (-reach if r["low"] is None else r["low"])) for r in rows],
        [max(0.0, (reach if r["high"] is None else r["high"]) - r["value"]) for r in rows],
    ]
    fig, ax = figure(6.0, 0.45 * len(rows) + 1.4)
    ax.errorbar(values, range(len(rows)), xerr=errors, fmt="o", color=BAR, capsize=3)
    ax.axvline(0, color="black", linestyle="--", linewidth=1)
    ax.set_yticks(range(len(rows)), names)
    ax.set_xlabel(f"rating (Elo points, {v['reference']} = 0)")
    d = v["depth"]
    ax.set_title(
        f"{steps(d['value'])} steps of {record['step']:.0%} from {v['reference']} "
        f"to {v['strongest']}"
    )
    ax.grid(color="#d9d9d9")
    return fig


def skill_section(folders: list[Path]) -> str:
    """The report's "Skill and luck" section: per game, its depth, plateau and luck."""
    if not folders:
        return ""
    parts = []
    for folder in folders:
        record = read_skill(folder)
        title = f"{record['game']}, {record['n_players']} players"
        with exporting(None, f"skill-{record['game']}-{record['n_players']}p"):
            chart = inline_svg(ratings_chart(record), "ratings")
        variants = "".join(f"<li>{escape(line)}</li>" for line in changes(record))
        parts.append(
            f"<h3>{escape(title)}</h3><p><b>{escape(verdict(record))}</b></p>"
            + (f"<p>Rules variants, on the same games:</p><ul>{variants}</ul>" if variants else "")
            + f"<p>{record['games']:,} games over {len(record['lineups'])} line-ups of rungs in "
            f"balanced seatings. Reproduce: <code>{escape(record['command'])}</code></p>"
            f"<figure class='fig'>{chart}</figure>"
        )
    return (
        "<section class='skill' id='skill'><h2>Skill and luck</h2><p>Every rung of the ladder "
        "(random, the scripted, tuned and adapted fields, the search player at several "
        "budgets) plays the others in balanced seatings and is rated on one Plackett–Luce "
        "scale (<code>balsim skill</code>), in Elo points with random at 0 and 95% "
        "intervals. The skill depth counts the steps of 60% (one rung finishing above the "
        "next in 60% of their meetings) from random to the strongest rung: 0 for a game of "
        "pure luck.</p>" + "".join(parts) + "</section>"
    )
