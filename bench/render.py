"""Render the figures ``make bench`` recorded (bench/results/bench.csv) into the table of
docs/performance.md, between its ``bench:begin`` and ``bench:end`` marks.

Each configuration gets one row: the median rate of its runs at the newest commit measured,
the same at the commit measured before it, and their ratio.  Rates are per CPU second of one
core; the machine's speed drifts by a fifth or more from one day to the next, so a ratio means most
when both commits were measured together, alternating (``make bench`` on each): the commit
before is counted by its runs made among the newest runs when it has any (:func:`beside`).
"""

from __future__ import annotations

import csv
import statistics
import sys
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"
TOGETHER = timedelta(minutes=30)  # beside(): runs this close to the newest were made with them


def rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(f))


def beside(before: list[dict], newest: list[dict]) -> list[dict]:
    """The runs of the commit measured before that were made among the newest runs (within
    TOGETHER of their first and last: measured together, alternating), when there are any,
    else all of them."""
    times = [datetime.fromisoformat(r["date"]) for r in newest]
    start, end = min(times) - TOGETHER, max(times) + TOGETHER
    together = [r for r in before if start <= datetime.fromisoformat(r["date"]) <= end]
    return together or before


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
            runs = beside(by_commit[order[-2]], new)
            old = statistics.median(float(r["games_per_s"]) for r in runs)
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


def learned_table(records: list[dict]) -> str:
    """Each learned line-up (``make bench``: a learned seat where a search line-up has its search
    seat, the same others) beside that search line-up: the median rates at the learned
    line-up's newest commit, and the search's at the commit measured before it (docs/search.md:
    a learned player is to play at 20 times the search's games/s or more)."""
    lines = [
        "| game | learned line-up | commit | games/s | search games/s there | × "
        "| before: commit | search games/s | × |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    by: dict[tuple, dict[str, list[dict]]] = {}
    for r in records:
        by.setdefault((r["game"], r["seats"]), {}).setdefault(r["commit"], []).append(r)

    def median(runs):
        return statistics.median(float(r["games_per_s"]) for r in runs)

    def last(runs):
        return max(r["date"] for r in runs)

    for (game, seats), learned in by.items():
        if "learned" not in seats.split(","):
            continue
        search = by.get((game, seats.replace("learned", "search")), {})
        newest = max(learned, key=lambda c: last(learned[c]))
        rate = median(learned[newest])
        cells = [f"{game}", f"`{seats}`", newest, f"{rate:,.1f}"]
        here = search.get(newest)
        cells += [f"{median(here):,.1f}", f"{rate / median(here):.1f}×"] if here else ["", ""]
        older = sorted(
            (c for c in search if c != newest and last(search[c]) < last(learned[newest])),
            key=lambda c: last(search[c]),
        )
        if older:
            old = median(beside(search[older[-1]], learned[newest]))
            cells += [older[-1], f"{old:,.1f}", f"{rate / old:.1f}×"]
        else:
            cells += ["", "", ""]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) if len(lines) > 2 else ""


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
    body = "(no measurement yet)"
    if results.exists():
        body = table(rows(results))
        learned = learned_table(rows(results))
        if learned:
            body += (
                "\n\nThe learned line-ups beside the search line-ups they stand in for:\n\n"
                + learned
            )
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(f"{head}{BEGIN}\n{body}\n{END}{tail}", encoding="utf-8")
    print(f"wrote {page} from {results}", file=sys.stderr)


if __name__ == "__main__":
    main()
