"""How often `balsim ask`'s decisions are right, on truths known because they are made up.

    python bench/decisions.py [--runs N] [--seed S]

Each run draws games whose subjects' true edges are set here (one winner a game among four
policies, or a team that wins with a set probability), at each question's default budget,
values and looks, and feeds them to the very functions `ask` decides with
(:mod:`simulator.core.decisions`: ``edge_of``, ``replicate_edges``, ``decide`` in
``in_looks``, ``agreement``).  Written to bench/results/decisions.csv, one row per scenario
and rate with its Monte Carlo standard error and the target it is held to, and as a table
into docs/analysis.md between its ``decisions:begin`` and ``decisions:end`` marks.

The engine and the Parquet in between are checked apart (tests/test_recipes.py re-derives
each answer's edges from its dataset); the search's override rate and fit's crossing
coverage have their own scripts (bench/search_override.py, bench/fit_coverage.py), which
``make decisions`` runs too.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from simulator.core.decisions import (  # noqa: E402
    Choice,
    Strength,
    agreement,
    decide,
    edge_of,
    in_looks,
    replicate_edges,
)
from simulator.core.verdicts import WIN_RATE_MARGIN, spent_levels  # noqa: E402
from simulator.studies.recipes import RECIPES, look_sizes  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "decisions.csv"
DOC = ROOT / "docs" / "analysis.md"
BEGIN, END = "<!-- decisions:begin -->", "<!-- decisions:end -->"
M = WIN_RATE_MARGIN
REPLICATES = 3  # an adapted field's independent adaptations of each value
TAU = 0.015  # the spread between adaptations of one value (points of a win rate)


@dataclass(frozen=True)
class Shape:
    """A question's shape: its subjects (4 policies with one winner a game, or one team or
    president whose win is drawn alone), values and budget."""

    question: str
    policies: bool
    n_values: int
    budget: int


def shapes() -> list[Shape]:
    from simulator.core.game import get_game

    out = []
    for q in RECIPES.values():
        game = get_game(q.game)
        n_values = len(q.variants(game, game.rules()))
        out.append(Shape(q.name, q.edges.__name__ == "policy_edges", n_values, q.games))
    return out


def draw(rng, shape: Shape, edges: np.ndarray, n: int, replicates: int = 1):
    """Per-game edges of each subject (columns) in one value with true ``edges``; with
    ``replicates`` > 1, game g played by replicate g mod R whose edges are off by its own
    draw of spread TAU.  Returns (values, replicate of each game)."""
    rep = np.arange(n) % replicates
    offsets = (
        rng.normal(0, TAU, (replicates, len(edges)))
        if replicates > 1
        else np.zeros((1, len(edges)))
    )
    if shape.policies:
        offsets -= offsets.mean(axis=1, keepdims=True)  # a game's win rates still sum to one
        p = np.clip(0.25 + edges + offsets, 0.001, None)
        p /= p.sum(axis=1, keepdims=True)
        cum = p.cumsum(axis=1)[rep]
        winner = (rng.random(n)[:, None] > cum).sum(axis=1)
        values = (np.arange(len(edges))[None, :] == winner[:, None]) - 0.25
    else:
        p = np.clip(0.5 + edges[None, :] + offsets, 0, 1)[rep, 0]
        values = np.where(rng.random(n) < p, 0.5, -0.5)[:, None]
    return values.astype(np.float64), rep


def field_judge(rng, shape: Shape, truth: np.ndarray, replicates: int = 1):
    """One field's ``judge(n, look_alpha)`` for :func:`in_looks`: its decision on the first
    ``n`` games per value drawn from ``truth[value, subject]``."""
    sizes = look_sizes(shape.budget)
    drawn = [draw(rng, shape, truth[v], sizes[-1], replicates) for v in range(len(truth))]
    names = [f"v{v}" for v in range(len(truth))]
    subjects = [f"s{s}" for s in range(truth.shape[1])]

    def judge(n: int, look_alpha: float):
        edges = {name: [] for name in names}
        for s, subject in enumerate(subjects):
            if replicates > 1:
                found = replicate_edges(
                    subject, [x[:n, s] for x, _ in drawn], [r[:n] for _, r in drawn]
                )
            else:
                found = [edge_of(subject, x[:n, s]) for x, _ in drawn]
            for name, e in zip(names, found):
                edges[name].append(e)
        return decide(edges, M, look_alpha, names[1:])

    return judge


def one_field(rng, shape: Shape, truth: np.ndarray):
    """One field's decision in the question's looks."""
    (decision,), _ = in_looks(look_sizes(shape.budget), [field_judge(rng, shape, truth)])
    return decision


def truth_of(shape: Shape, printed: list[float], others: list[list[float]] | None = None):
    """The true edges: the printed value's, then each other value's (default: 5 points off
    for every other value, so a change is never right by accident)."""
    k = 4 if shape.policies else 1
    rows = [np.array(printed[:k], dtype=np.float64)]
    for v in range(1, shape.n_values):
        row = others[v - 1] if others and v - 1 < len(others) else [0.05] + [-0.05 / 3] * 3
        rows.append(np.array(row[:k], dtype=np.float64))
    return np.array(rows)


def spread(worst: float, shape: Shape) -> list[float]:
    """Edges of four policies with ``worst`` for the first and the rest sharing its opposite."""
    return [worst, -worst / 3, -worst / 3, -worst / 3] if shape.policies else [worst]


def rate(hits: int, runs: int) -> tuple[float, float]:
    p = hits / runs
    return p, math.sqrt(max(p * (1 - p), 1e-12) / runs)


def scenarios(shape: Shape) -> list[tuple[str, np.ndarray, str, str, float]]:
    """(scenario, truth, what is counted, comparison, target)."""
    zero = truth_of(shape, spread(0.0, shape), [[0.0] * 4] * (shape.n_values - 1))
    half = truth_of(shape, spread(M / 2, shape))
    over = truth_of(shape, spread(M + 0.005, shape))
    out = [
        ("every edge 0", zero, "keep", ">=", 0.80),
        ("every edge 0", zero, "change", "<=", 0.05),
        ("printed worst edge at half the margin", half, "change", "<=", 0.05),
        ("printed worst edge at the margin + 0.5 points", over, "keep", "<=", 0.05),
    ]
    if shape.policies:
        one = truth_of(shape, [0.008, 0.008, 0.008, -0.024])
        out.append(("three policies +0.8, one -2.4 points", one, "keep", "<=", 0.05))
    return out


def run_decisions(shape: Shape, runs: int, rng) -> list[dict]:
    rows = []
    for name, truth, counted, op, target in scenarios(shape):
        kinds = [one_field(rng, shape, truth).kind for _ in range(runs)]
        want = {"keep": Choice.KEEP, "change": Choice.CHANGE}[counted]
        p, se = rate(sum(k == want for k in kinds), runs)
        rows.append(row(shape, name, f"says {counted}", p, se, runs, op, target))
    rows.append(nearest_choice(shape, runs, rng))
    return rows


def nearest_choice(shape: Shape, runs: int, rng) -> dict:
    """Two values equally balanced (edges 0), the printed one 5 points off: how often the
    nearer of the two is chosen (ties go to the nearer value)."""
    others = [[0.0] * 4, [0.0] * 4] + [[0.05] + [-0.05 / 3] * 3] * (shape.n_values - 3)
    truth = truth_of(shape, spread(0.05, shape), others)
    chosen = [one_field(rng, shape, truth) for _ in range(runs)]
    changes = [d for d in chosen if d.kind == Choice.CHANGE]
    p, se = rate(sum(d.chosen == "v1" for d in changes), max(len(changes), 1))
    return row(
        shape,
        "two values equally balanced, printed 5 points off",
        "the nearer of the two chosen (of the changes)",
        p,
        se,
        len(changes),
        ">=",
        0.5,
    )


def run_strength(shape: Shape, runs: int, rng) -> list[dict]:
    """Three fields with identical truth, stopping together as `ask`'s do and compared at
    the level of the look they stopped at: how often 'depends on player strength' is said,
    with plain fields and with an adapted field (replicates with spread TAU)."""
    truth = truth_of(shape, spread(M / 2, shape))
    rows = []
    for label, reps in (
        ("three fields, identical truth", (1, 1, 1)),
        (
            "scripted, tuned, adapted (3 adaptations, spread 1.5 points), identical truth",
            (1, 1, REPLICATES),
        ),
    ):
        says = 0
        for _ in range(runs):
            judges = [field_judge(rng, shape, truth, r) for r in reps]
            sizes = look_sizes(shape.budget)
            decisions, look = in_looks(sizes, judges)
            printed = [list(d.printed.edges) for d in decisions]
            says += agreement(printed, M, spent_levels(sizes)[look]).kind == Strength.DEPENDS
        p, se = rate(says, runs)
        rows.append(row(shape, label, "says depends on player strength", p, se, runs, "<=", 0.05))
    return rows


def row(shape, scenario, counted, p, se, runs, op, target) -> dict:
    meets = p <= target if op == "<=" else p >= target
    return {
        "question": shape.question,
        "budget": shape.budget,
        "scenario": scenario,
        "rate_of": counted,
        "rate": round(p, 4),
        "mc_se": round(se, 4),
        "runs": runs,
        "target": f"{op} {target:g}",
        "meets": "yes" if meets else "no",
    }


def table(rows: list[dict]) -> str:
    lines = [
        "| question (budget per value) | truth | rate of | rate (± MC s.e.) | target | meets |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['question']} ({r['budget']:,}) | {r['scenario']} | {r['rate_of']} | "
            f"{100 * r['rate']:.1f}% ± {100 * r['mc_se']:.1f} | {r['target']} | {r['meets']} |"
        )
    return "\n".join(lines)


def write_doc(rows: list[dict], runs: int, seed: int) -> None:
    text = DOC.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    body = (
        f"\n`python bench/decisions.py --runs {runs} --seed {seed}` "
        f"(bench/results/decisions.csv):\n\n{table(rows)}\n"
    )
    DOC.write_text(head + BEGIN + body + END + tail, encoding="utf-8")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--only", help="one question's name: its rates printed, nothing written")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    rows = []
    for shape in shapes():
        if args.only and shape.question != args.only:
            continue
        rows += run_decisions(shape, args.runs, rng)
        rows += run_strength(shape, args.runs, rng)
        print(table(rows[-8:]), flush=True)
    if args.only:  # a check of one question: printed, the results of all are kept
        return
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with open(RESULTS, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    write_doc(rows, args.runs, args.seed)


if __name__ == "__main__":
    main()
