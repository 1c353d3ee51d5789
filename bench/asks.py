"""The four `balsim ask` questions at their defaults: what each decides at every strength,
how many games it took and what it cost.

    python bench/asks.py [--jobs J] [--only QUESTION ...] [--quick | --field RUNGS]

Each question runs as a user runs it (`balsim ask QUESTION -q --out DIR`, every default; with
``--quick``, `balsim ask QUESTION --quick`: the tuned field alone; with ``--field RUNGS``,
those fields alone, e.g. the three fields without the learned one), one after the other;
its wall and CPU seconds (the whole process tree) are measured around it.
Written to bench/results/asks.csv (one row per question and run) and as a table into
docs/ladder.md between its ``asks:begin`` and ``asks:end`` marks (the newest run of each
question).  The machine's speed and load move the seconds; the decisions do not.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "asks.csv"
DOC = ROOT / "docs" / "ladder.md"
BEGIN, END = "<!-- asks:begin -->", "<!-- asks:end -->"
QUESTIONS = ("tax-brackets", "loans", "blood-coins", "scoring")
FIELDS = (
    "question",
    "commit",
    "date",
    "load",
    "wall_s",
    "cpu_s",
    "decision",
    "strength",
    "games_per_value",
    "answer",
)


def commit() -> str:
    out = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    )
    return out.stdout.strip() or "unknown"


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(question: str, jobs: int, options: list[str]) -> dict:
    """One ask of ``question`` with ``options`` (none: every default), measured."""
    balsim = Path(sys.executable).with_name("balsim")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / question
        cpu, start = children_cpu(), time.perf_counter()
        env = {**os.environ, "BALSIM_CACHE_DIR": str(Path(tmp) / "cache")}
        subprocess.run(
            [str(balsim), "ask", question, "-q", "-j", str(jobs), "--out", str(out), *options],
            check=True,
            stdout=subprocess.DEVNULL,
            env=env,
        )
        wall, cpu = time.perf_counter() - start, children_cpu() - cpu
        summary = json.loads((out / "balsim.json").read_text())
    rungs = summary["rungs"]
    return {
        "question": " ".join([question, *options]),
        "commit": commit(),
        "date": time.strftime("%Y-%m-%d"),
        "load": f"{os.getloadavg()[0]:.1f}",
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "decision": " / ".join(f"{f}: {r['decision']}" for f, r in rungs.items()),
        "strength": summary["strength"],
        "games_per_value": " / ".join(f"{r['games_per_value']:,}" for r in rungs.values()),
        "answer": " ".join(summary["answer"][:2]),
    }


def table(rows: list[dict]) -> str:
    lines = [
        "| ask | each field's decision | games per value at the decision | across the fields "
        "| the answer's first two lines | wall s | CPU s | commit, load |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| `{r['question']}` | {r['decision']} | {r['games_per_value']} | {r['strength']} "
            f"| {r['answer']} | {r['wall_s']} | {r['cpu_s']} | {r['commit']}, {r['load']} |"
        )
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", nargs="*", default=list(QUESTIONS))
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--quick", action="store_true", help="ask with --quick")
    how.add_argument("--field", help="ask with --field RUNGS (a comma list)")
    args = parser.parse_args(argv)
    options = ["--quick"] if args.quick else ["--field", args.field] if args.field else []
    rows = [run(q, args.jobs, options) for q in args.only]
    old = []
    if RESULTS.exists():
        with open(RESULTS, encoding="utf-8") as f:
            old = list(csv.DictReader(f))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with open(RESULTS, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(old + rows)
    newest = {r["question"]: r for r in old + rows}
    shown = [*QUESTIONS, *(f"{q} --quick" for q in QUESTIONS)]
    shown += [q for q in newest if q.split()[0] in QUESTIONS and q not in shown]
    text = DOC.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    body = (
        f"\n`python bench/asks.py --jobs {args.jobs}`, `... --quick` and `... --field RUNGS` "
        "(bench/results/asks.csv; "
        "every default, an empty adaptation cache: the shipped adaptations only):\n\n"
        f"{table([newest[q] for q in shown if q in newest])}\n"
    )
    DOC.write_text(head + BEGIN + body + END + tail, encoding="utf-8")
    print(table(rows))


if __name__ == "__main__":
    main()
