"""``balsim fit``: the rules values that bring a balance metric closest to a target.

Two stages, both on common random numbers (every candidate of a batch plays the same games):

1. **Candidates.**  One integer key with at most :data:`GRID_MAX` values: every value.
   Otherwise CMA-ES (:mod:`simulator.experiments.optimise`, as ``tune``) minimises ``|metric -
   target|`` with part of the budget; its final mean, the integer values next to it and each late
   generation's best become the candidates.
2. **Race** (sequential stopping).  The candidates play batches of new games together; after
   each batch, a candidate whose distance to the target is worse than the leader's by more
   than the paired 95% interval (Bonferroni over the candidates) drops out.  Close candidates
   thus keep getting games until one is clearly best or the budget is spent.

Key ranges: ``--key K=LO:HI``, or else a quarter to four times the default value, cut to what
the game's checks accept (:func:`simulator.experiments.keys.checked_range`); an integer key moves in
the steps the checks allow (:func:`simulator.experiments.keys.key_step`, e.g. $5,000 for a loan
cap).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
from scipy.stats import norm

from simulator.core.errors import UserError
from simulator.core.rules import RulesError, nest, to_toml
from simulator.experiments.keys import (
    accepts,
    checked_range,
    key_step,
    lattice_range,
    numeric_value,
    parse_span,
    with_values,
)
from simulator.experiments.lab import Design, Lab, batch_ids, round_to
from simulator.experiments.metrics import Estimate, Metric, Outcomes, parse_metric
from simulator.experiments.optimise import Dimension, cma_search, population_size
from simulator.run.outputs import OUT_MARK, finish_out_dir, new_out_dir

GRID_MAX = 25  # an integer key with at most this many values is raced value by value
SEARCH_SHARE = 0.5  # of the budget for CMA-ES before the race
GENERATIONS = 8  # aimed for in the CMA-ES stage
RACE_ROUNDS = 6  # aimed for in the race: batch size = race budget / (candidates x this)
MIN_BATCH = 100
RACE_OFFSET = 1 << 41  # game ids of the race, apart from the CMA-ES stage's and held-out ones
LATE_GENERATIONS = 3  # the best candidate of each of these last generations is raced


@dataclass(frozen=True)
class KeyRange:
    key: str
    low: float
    high: float
    default: float
    integer: bool
    step: int = 1  # integers: the spacing the game's checks allow

    def dimension(self) -> Dimension:
        return Dimension(self.key, self.low, self.high, self.default, self.integer, self.step)

    def values(self) -> list[int]:
        return list(range(int(self.low), int(self.high) + 1, self.step))


def key_range(game, rules: dict, text: str) -> KeyRange:
    """``K`` or ``K=LO:HI`` as a checked range (RulesError naming the key)."""
    key, sep, span = text.partition("=")
    key = key.strip()
    default = numeric_value(rules, key)
    if isinstance(default, list):
        raise RulesError(key, "a list cannot be fitted; name one number")
    integer = isinstance(default, int)
    step = key_step(game, rules, key)
    if sep:
        low, high = parse_span(key, span)
        if integer:  # inward onto the values the checks allow
            low, high = lattice_range(low, high, default, step)
        for end in (low, high):
            if not accepts(game, rules, key, end):
                raise RulesError(key, f"the game's checks refuse {end:g}")
    elif default == 0:
        raise RulesError(key, f"its default is 0, so give a range: --key {key}=LOW:HIGH")
    else:
        low, high = checked_range(game, rules, key, *sorted((default / 4, default * 4)), step)
    if not high > low:
        raise RulesError(key, f"empty range {low:g}:{high:g}")
    return KeyRange(key, low, high, min(max(default, low), high), integer, step)


def parse_target(text: str) -> tuple[str, float]:
    """``METRIC=VALUE`` (the metric name may itself hold '=')."""
    name, sep, value = text.rpartition("=")
    try:
        if sep and name.strip():
            return name.strip(), float(value)
    except ValueError:
        pass
    raise UserError(f"--target needs METRIC=VALUE, e.g. first_player_edge=0, got '{text}'")


@dataclass
class Evaluation:
    values: dict  # key -> value
    stage: str  # "search" or "race"
    estimate: Estimate  # the metric on this candidate's games
    distance: float  # |metric - target|


@dataclass
class FitResult:
    metric: str
    target: float
    keys: list[KeyRange]
    best: dict
    estimate: Estimate
    evaluations: list[Evaluation] = field(default_factory=list)
    games: int = 0
    decided: bool = False  # True when the race ended with one candidate left

    def summary(self) -> str:
        low, high = self.estimate.interval
        values = ", ".join(f"{k} = {v:g}" for k, v in self.best.items())
        how = "the only candidate left" if self.decided else "the closest when the budget ran out"
        return (
            f"{values}: {self.metric} = {self.estimate.value:.4g} (95% CI {low:.4g} to "
            f"{high:.4g}, {self.estimate.n:,} games), target {self.target:g}; {how}"
        )


def fit(
    lab: Lab,
    rules: dict,
    design: Design,
    keys: list[KeyRange],
    metric_name: str,
    target: float,
    budget: int,
    seed: int = 1,
) -> FitResult:
    """Search ``keys`` for the values whose ``metric_name`` is closest to ``target`` within
    about ``budget`` games (see the module docstring)."""
    names = [k.key for k in keys]
    if len(set(names)) != len(names):
        raise UserError("each --key may be given once")
    candidate = lambda values: with_values(rules, values)  # noqa: E731
    probe = lab.probe(design, rules)
    seated = {**probe.labels, "policy": tuple(dict.fromkeys(design.lineup))}
    metric = parse_metric(metric_name, seated, probe.end_reasons, tuple(probe.extra))
    evaluations: list[Evaluation] = []
    block = design.block(rules)
    if len(keys) == 1 and keys[0].integer and len(keys[0].values()) <= GRID_MAX:
        finalists = [{keys[0].key: v} for v in keys[0].values()]
        race_budget = budget
    else:
        finalists = search_stage(
            lab,
            design,
            candidate,
            keys,
            metric,
            target,
            int(budget * SEARCH_SHARE),
            seed,
            evaluations,
            block,
        )
        race_budget = budget - lab.played
    best, estimate, decided = race(
        lab, design, candidate, finalists, metric, target, race_budget, evaluations, block
    )
    return FitResult(metric_name, target, keys, best, estimate, evaluations, lab.played, decided)


def search_stage(lab, design, candidate, keys, metric, target, budget, seed, evaluations, block):
    """CMA-ES on the distance to the target; returns the candidates to race."""
    population = population_size(len(keys))
    per_candidate = round_to(max(MIN_BATCH, budget // (population * GENERATIONS)), block)
    generations = max(1, budget // (population * per_candidate))
    batches = iter(range(generations))

    def evaluate(candidates):
        outcomes = lab.play(
            design, [candidate(c) for c in candidates], batch_ids(next(batches), per_candidate)
        )
        distances = []
        for values, o in zip(candidates, outcomes):
            e = metric.estimate(o)
            evaluations.append(Evaluation(values, "search", e, abs(e.value - target)))
            distances.append(abs(e.value - target) if np.isfinite(e.value) else np.inf)
        return distances

    mean, history = cma_search([k.dimension() for k in keys], evaluate, generations, seed)
    finalists = (
        [mean]
        + neighbours(mean, keys)
        + [g.candidates[int(np.argmin(g.objective))] for g in history[-LATE_GENERATIONS:]]
    )
    return [dict(t) for t in dict.fromkeys(tuple(f.items()) for f in finalists)]


def neighbours(values: dict, keys: list[KeyRange]) -> list[dict]:
    """The integer keys one step either side of ``values``, one key at a time: the mean of
    the search distribution rounds to a value, and the answer may be next to it."""
    out = []
    for k in keys:
        if k.integer:
            out += [
                {**values, k.key: v}
                for v in (values[k.key] - k.step, values[k.key] + k.step)
                if k.low <= v <= k.high
            ]
    return out


def race(lab, design, candidate, finalists, metric: Metric, target, budget, evaluations, block):
    """Successive elimination on paired distances; returns (best values, its estimate,
    whether it was the last one left)."""
    batch = round_to(max(MIN_BATCH, budget // (len(finalists) * RACE_ROUNDS)), block)
    alive = list(range(len(finalists)))
    games: dict[int, list[Outcomes]] = {i: [] for i in alive}
    spent, round_no, last = 0, 0, {}
    while True:
        outcomes = lab.play(
            design,
            [candidate(finalists[i]) for i in alive],
            batch_ids(round_no, batch, offset=RACE_OFFSET),
        )
        for i, o in zip(alive, outcomes):
            games[i].append(o)
        spent += batch * len(alive)
        round_no += 1
        estimates = {i: metric.estimate(Outcomes.concat(games[i])) for i in alive}
        distances = {i: estimates[i].distance(target) for i in alive}
        last.update({i: (estimates[i], distances[i].value) for i in alive})
        leader = min(alive, key=lambda i: finite(distances[i].value))
        if len(alive) > 1:
            z = norm.ppf(1 - 0.05 / (2 * (len(alive) - 1)))
            alive = [
                i for i in alive if i == leader or not worse(distances[i] - distances[leader], z)
            ]
        if len(alive) == 1 or spent + batch * len(alive) > budget:
            break
    for i, (e, distance) in sorted(last.items()):
        evaluations.append(Evaluation(finalists[i], "race", e, distance))
    return finalists[leader], estimates[leader], len(alive) == 1


def worse(difference: Estimate, z: float) -> bool:
    """The distance difference's lower bound is above zero (or the metric is undefined)."""
    if not np.isfinite(difference.value):
        return True
    se = difference.se
    return difference.value - z * (se if np.isfinite(se) else 0.0) > 0


def finite(value: float) -> float:
    return value if np.isfinite(value) else np.inf


def overlay(result: FitResult, command: str) -> str:
    """The best values as a rules overlay for ``--rules``, the evidence in comments."""
    nested: dict = {}
    for key, value in result.best.items():
        nested = merge_new(nested, nest(key, value))
    return f"# Written by: {command}\n# {result.summary()}.\n" + to_toml(nested)


def merge_new(a: dict, b: dict) -> dict:
    """Deep union of two nested dicts of new keys."""
    out = dict(a)
    for k, v in b.items():
        out[k] = merge_new(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def evaluation_rows(result: FitResult) -> list[dict]:
    return [
        {
            "stage": e.stage,
            **{f"key:{k}": float(v) for k, v in e.values.items()},
            **e.estimate.record(),
            "distance": e.distance,
        }
        for e in result.evaluations
    ]


def write(result: FitResult, design: Design, out: Path, command: str) -> None:
    """OUT/balsim.json (summary), evaluations.parquet, fit.toml (overlay), fit.png (chart);
    written to a temporary folder first, so OUT is whole or untouched."""
    import polars as pl

    tmp = new_out_dir(out)
    try:
        rows = evaluation_rows(result)
        pl.DataFrame(rows).write_parquet(tmp / "evaluations.parquet")
        (tmp / "fit.toml").write_text(overlay(result, command), encoding="utf-8")
        chart(result, tmp / "fit.png")
        summary = {
            "tool": "fit",
            "schema": 1,
            "command": command,
            "game": design.game,
            "lineup": list(design.lineup),
            "seed": design.seed,
            "metric": result.metric,
            "target": result.target,
            "games": result.games,
            "decided": result.decided,
            "keys": [asdict(k) for k in result.keys],
            "best": result.best,
            "estimate": result.estimate.record(),
            "summary": result.summary(),
        }
        (tmp / OUT_MARK).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finish_out_dir(tmp, out)


def chart(result: FitResult, path: Path) -> None:
    """The metric against each key: search-stage candidates as dots, raced candidates with
    their 95% intervals, the best ringed, the target as a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = [k.key for k in result.keys]
    fig, axes = plt.subplots(1, len(keys), figsize=(5.5 * len(keys), 4), squeeze=False)
    for ax, key in zip(axes[0], keys):
        for stage, style in (("search", dict(color="0.6", s=12)), ("race", dict(color="C0", s=30))):
            shown = [
                e for e in result.evaluations if e.stage == stage and np.isfinite(e.estimate.value)
            ]
            if not shown:
                continue
            x = np.array([e.values[key] for e in shown], dtype=float)
            y = np.array([e.estimate.value for e in shown])
            ax.scatter(x, y, label=f"{stage} ({len(shown)})", zorder=3, **style)
            if stage == "race":
                low, high = np.array([e.estimate.interval for e in shown]).T
                ax.errorbar(
                    x,
                    y,
                    yerr=np.clip([y - low, high - y], 0, None),
                    fmt="none",
                    ecolor="C0",
                    zorder=2,
                )
        ax.axhline(result.target, color="C3", linestyle="--", label=f"target {result.target:g}")
        ax.scatter(
            [result.best[key]],
            [result.estimate.value],
            s=140,
            facecolors="none",
            edgecolors="C3",
            linewidths=2,
            label="best",
            zorder=4,
        )
        ax.set_xlabel(key)
        ax.set_ylabel(result.metric)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"{result.metric} against {', '.join(keys)}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
