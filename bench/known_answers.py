"""How often `balsim ask`'s decisions are right end to end, on a game whose answers are exact.

    python bench/known_answers.py [--runs N] [--games G]

Pig's seat advantage is known exactly for every rule value (simulator/games/pig/exact.py:
dynamic programming over the scores), so `ask head-start` can be run as a designer runs it,
engine, Parquet and decision, against the truth.  Each scenario prints a head start (and a
target) whose exact first-seat edge is set by the rules, runs `ask` N times on fresh seeds
(the scripted field, G games per value, its looks and spent error as at the defaults) and
counts the decisions.  Written to bench/results/known-answers.csv and as a table into
docs/analysis.md between its ``known-answers:begin`` and ``known-answers:end`` marks.

bench/decisions.py measures the same rates on made-up per-game data for the four questions;
this script checks that nothing between the engine and the decision (the columns, the
Parquet, the edges' reading) moves them.  What it cannot measure: "depends on player
strength", since Pig's tuned field is its scripted one (no tuned knob sets are shipped).
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from simulator.core.decisions import Choice  # noqa: E402
from simulator.core.verdicts import WIN_RATE_MARGIN  # noqa: E402
from simulator.experiments.field import SCRIPTED, Field  # noqa: E402
from simulator.experiments.keys import with_values  # noqa: E402
from simulator.games.pig import exact  # noqa: E402
from simulator.games.pig.game import GAME  # noqa: E402
from simulator.games.pig.studies import HEAD_STARTS, KEY, QUESTION  # noqa: E402
from simulator.studies.recipes import ask  # noqa: E402
from simulator.studies.recipes.common import setting, swept  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "known-answers.csv"
DOC = ROOT / "docs" / "analysis.md"
BEGIN, END = "<!-- known-answers:begin -->", "<!-- known-answers:end -->"
LINEUP = ("banker", "chaser")  # the seats every command gives two players of Pig
# (scenario, target, printed head start, [(what is counted, comparison, target rate)])
SCENARIOS = (
    ("exact edge near 0", 30, 5, [("keep", ">=", 0.80), ("change", "<=", 0.05)]),
    ("exact edge just within the margin", 30, 4, [("change", "<=", 0.05)]),
    ("exact edge just beyond the margin", 24, 3, [("keep", "<=", 0.05)]),
    ("exact edge far beyond the margin", 30, 0, [("change to the exact fairest", ">=", 0.80)]),
)


def question_at(target: int, points: int):
    """`ask head-start` with the target and the printed head start set."""
    return replace(
        QUESTION,
        variants=lambda game, rules: swept(KEY, HEAD_STARTS)(
            game, with_values(rules, {"setup.target": target, KEY: points})
        ),
    )


def counted(what: str, decision, fairest: str) -> bool:
    if what == "keep":
        return decision.kind == Choice.KEEP
    if what == "change":
        return decision.kind == Choice.CHANGE
    return decision.kind == Choice.CHANGE and decision.chosen == fairest


def fairest_tried(target: int) -> tuple[str, list[float]]:
    """The value among those the question tries whose exact edge is nearest 0, and the exact
    edges of the tried values."""
    rules = with_values(GAME.rules(), {"setup.target": target})
    edges = [exact.first_seat_edge(with_values(rules, {KEY: v}), LINEUP) for v in HEAD_STARTS]
    best = min(range(len(edges)), key=lambda i: abs(edges[i]))
    return setting(KEY, HEAD_STARTS[best]), edges


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--games", type=int, default=QUESTION.games)
    args = parser.parse_args(argv)
    rows = []
    for name, target, points, counts in SCENARIOS:
        fairest, edges = fairest_tried(target)
        decisions = []
        for run in range(args.runs):
            with tempfile.TemporaryDirectory() as tmp:
                asked = ask(
                    question_at(target, points),
                    Path(tmp) / "ask",
                    args.games,
                    seed=1_000 + run,
                    jobs=1,
                    progress=False,
                    fields=[Field(SCRIPTED)],
                    exploit=False,
                )
            decisions.append(asked.leading().decision)
        for what, op, goal in counts:
            p = sum(counted(what, d, fairest) for d in decisions) / args.runs
            se = math.sqrt(max(p * (1 - p), 1e-12) / args.runs)
            meets = p <= goal if op == "<=" else p >= goal
            rows.append(
                {
                    "scenario": name,
                    "rules": f"setup.target={target}, {setting(KEY, points)} (printed)",
                    "exact_edge_points": round(100 * edges[HEAD_STARTS.index(points)], 2),
                    "rate_of": f"says {what}",
                    "rate": round(p, 4),
                    "mc_se": round(se, 4),
                    "runs": args.runs,
                    "games_per_value": args.games,
                    "target": f"{op} {goal:g}",
                    "meets": "yes" if meets else "no",
                }
            )
            print(rows[-1], flush=True)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with open(RESULTS, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    write_doc(rows, args)


def write_doc(rows: list[dict], args) -> None:
    lines = [
        f"`python bench/known_answers.py --runs {args.runs} --games {args.games}` "
        f"(bench/results/known-answers.csv; margin ±{100 * WIN_RATE_MARGIN:g} points):",
        "",
        "| rules | exact first-seat edge | rate of | rate (± MC s.e.) | target | meets |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['scenario']}: {r['rules']} | {r['exact_edge_points']:+.2f} points | "
            f"{r['rate_of']} | {100 * r['rate']:.1f}% ± {100 * r['mc_se']:.1f} | "
            f"{r['target']} | {r['meets']} |"
        )
    text = DOC.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    DOC.write_text(head + BEGIN + "\n" + "\n".join(lines) + "\n" + END + tail, encoding="utf-8")


if __name__ == "__main__":
    main()
