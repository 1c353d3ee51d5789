"""Render the figures ``make bench`` recorded (bench/results/bench.csv) into the table of
docs/performance.md, between its ``bench:begin`` and ``bench:end`` marks.

Each configuration gets one row: the median rate of its runs at the newest commit measured,
the same at the commit measured before it, and their ratio.  Rates are per CPU second of one
core; the machine's speed drifts by a fifth or more between sessions, so a ratio means most
when both commits were measured together, alternating (``make bench`` on each).
"""

from __future__ import annotations

import csv
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"


def rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(f))


def table(records: list[dict]) -> str:
    configs: dict[tuple, dict[str, list[dict]]] = {}
    for r in records:
        configs.setdefault((r["game"], r["seats"]), {}).setdefault(r["commit"], []).append(r)
    lines = [
        "| game | seats | commit (date, machine, load) | games/s | decisions/s "
        "| with Parquet: CPU × engine | before: commit | games/s | ratio |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (game, seats), by_commit in configs.items():
        order = sorted(by_commit, key=lambda c: max(r["date"] for r in by_commit[c]))
        new = by_commit[order[-1]]
        rate = statistics.median(float(r["games_per_s"]) for r in new)
        decisions = statistics.median(float(r["decisions_per_s"]) for r in new)
        where = f"{order[-1]} ({new[-1]['date']}, {new[-1]['machine']}, load {new[-1]['load']})"
        before = ["", "", ""]
        if len(order) > 1:
            old = statistics.median(float(r["games_per_s"]) for r in by_commit[order[-2]])
            before = [order[-2], f"{old:,.1f}", f"{rate / old:.2f}×"]
        shown = f"{decisions:,.0f}" if decisions else ""
        stored = [r for r in new if float(r["store_games_per_s"])]
        parquet = ""
        if stored:  # a run with its output over the engine alone, CPU per game, run by run
            ratios = (float(r["games_per_s"]) / float(r["store_games_per_s"]) for r in stored)
            parquet = f"{statistics.median(ratios):.2f}×"
        lines.append(
            f"| {game} | `{seats}` | {where} | {rate:,.1f} | {shown} | {parquet} | "
            + " | ".join(before)
            + " |"
        )
    return "\n".join(lines)


def main() -> None:
    results = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "bench" / "results" / "bench.csv"
    page = ROOT / "docs" / "performance.md"
    text = (
        page.read_text(encoding="utf-8") if page.exists() else f"# Performance\n\n{BEGIN}\n{END}\n"
    )
    if BEGIN not in text:
        text += f"\n{BEGIN}\n{END}\n"
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    body = table(rows(results)) if results.exists() else "(no measurement yet)"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(f"{head}{BEGIN}\n{body}\n{END}{tail}", encoding="utf-8")
    print(f"wrote {page} from {results}", file=sys.stderr)


if __name__ == "__main__":
    main()
