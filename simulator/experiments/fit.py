"""``balsim fit``: the rules values that bring a balance metric to a target, with a
confidence set and a held-out check.

Three stages, on common random numbers (every candidate of a batch plays the same games):

1. **Candidates.**  One integer key with at most :data:`GRID_MAX` values: every value.
   Otherwise CMA-ES (:mod:`simulator.experiments.optimise`, as ``tune``) minimises ``|metric -
   target|`` with part of the budget; its final mean, the integer values next to it and each
   late generation's best become the candidates.
2. **Race** in looks (:func:`simulator.core.verdicts.looks`: an eighth of an even share of
   the race's games, then doubling while the budget lasts: :func:`race`).  After each look
   every candidate still racing gets a verdict on
   ``metric - target`` at 5% / looks (:func:`simulator.core.verdicts.judge`): *no effect*
   within the margin (it hits the target: it stops playing), an *effect* (its interval
   excludes the target and it is not shown within the margin: it drops out) or
   *inconclusive* (it plays on).  The race is decided when no candidate is left
   inconclusive, else it ends with the budget.  The **confidence set** is every candidate
   whose interval at its last look holds the target: the value that hits the target exactly,
   if it is a candidate, is in it with probability 95% or more (a candidate is excluded at
   most once over the looks, each at 5% / looks).
3. **Held-out check.**  The chosen value (the candidate shown within the margin whose
   estimate is nearest the target, else the nearest of all) plays :data:`HOLD_OUT_SHARE` of
   the budget on new games.  The race's estimate of the value it chose is biased towards the
   target (the choice picked the luckiest); the held-out one is not, and its verdict is the
   answer's.

Key ranges: ``--key K=LO:HI``, or else a quarter to four times the default value, cut to what
the game's checks accept (:func:`simulator.experiments.keys.checked_range`); an integer key moves in
the steps the checks allow (:func:`simulator.experiments.keys.key_step`, e.g. $5,000 for a loan
cap).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from simulator.core.errors import UserError
from simulator.core.limits import VALUE
from simulator.core.rules import RulesError, nest_all, to_toml
from simulator.core.verdicts import (
    ALPHA,
    INCONCLUSIVE,
    LENGTH_MARGIN,
    NO_EFFECT,
    WIN_RATE_MARGIN,
    Verdict,
    alpha_per_look,
    judge,
    looks,
)
from simulator.experiments.crossing import Crossing, crossing, near_target
from simulator.experiments.keys import (
    accepts,
    checked_range,
    key_step,
    lattice_range,
    numeric_value,
    parse_span,
    with_values,
)
from simulator.experiments.lab import HELD_OUT, Design, Lab, batch_ids, round_to
from simulator.experiments.metrics import Estimate, Metric, Outcomes, parse_metric
from simulator.experiments.optimise import Dimension, cma_search, population_size
from simulator.run.outputs import OUT_MARK, writing_result

GRID_MAX = 25  # an integer key with at most this many values is raced value by value
SEARCH_SHARE = 0.5  # of the budget for CMA-ES before the race
HOLD_OUT_SHARE = 0.2  # of the budget for the chosen value's held-out games
GENERATIONS = 8  # aimed for in the CMA-ES stage
FIRST_LOOK = 8  # the race's first look: 1 / FIRST_LOOK of an even share of its games
MIN_BATCH = 100
PLAY_ON = 2  # the crossing's candidates play on to twice the games the busiest of them raced
RACE_OFFSET = 1 << 41  # game ids of the race, apart from the CMA-ES stage's and held-out ones
LATE_GENERATIONS = 3  # the best candidate of each of these last generations is raced
DEFAULT_MARGIN = WIN_RATE_MARGIN  # a rate or an edge within 2 points of the target
MARGINS = {"length": LENGTH_MARGIN, "max_": 0.1}  # metrics in other units: their own margin


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
    """``METRIC=VALUE`` (the metric name may itself hold '='), VALUE a finite number."""
    name, sep, value = text.rpartition("=")
    if not (sep and name.strip()):
        raise UserError(f"--target needs METRIC=VALUE, e.g. first_player_edge=0, got '{text}'")
    return name.strip(), VALUE.check(value, f"--target {name.strip()}")


def default_margin(metric: str) -> float:
    """The equivalence margin of a metric: 2 points for rates and edges, half a year, round
    or turn for a length, 0.1 for a largest share over the fair share (1.0 = even); a mean
    score is in the game's own units, so it needs ``--margin``."""
    if metric.startswith("score:"):
        raise UserError(f"metric '{metric}' is in the game's score units: give --margin")
    for prefix, margin in MARGINS.items():
        if metric.startswith(prefix):
            return margin
    return DEFAULT_MARGIN


@dataclass
class Evaluation:
    values: dict  # key -> value
    stage: str  # "search", "race" or "held-out"
    estimate: Estimate  # the metric on this candidate's games
    distance: float  # |metric - target|
    verdict: Verdict | None = None  # race and held-out: on metric - target
    in_set: bool = False  # race: its interval at its last look holds the target


@dataclass
class FitResult:
    metric: str
    target: float
    keys: list[KeyRange]
    best: dict  # the chosen values
    estimate: Estimate  # the chosen values' metric on held-out games
    evaluations: list[Evaluation] = field(default_factory=list)
    games: int = 0
    decided: bool = False  # True when the race left no candidate inconclusive
    margin: float = DEFAULT_MARGIN
    verdict: Verdict | None = None  # the held-out verdict on metric - target
    crossing: Crossing | None = None  # one key: where the metric crosses the target

    @property
    def raced(self) -> list[Evaluation]:
        return [e for e in self.evaluations if e.stage == "race"]

    @property
    def confidence_set(self) -> list[dict]:
        """The raced values whose interval at their last look holds the target."""
        return [e.values for e in self.raced if e.in_set]

    @property
    def readapted(self) -> Evaluation | None:
        """The chosen values re-measured with the field re-adapted to them, if it was."""
        return next((e for e in self.evaluations if e.stage == "re-adapted"), None)

    @property
    def hits(self) -> list[dict]:
        """The raced values shown within the margin of the target."""
        return [e.values for e in self.raced if e.verdict and e.verdict.kind == NO_EFFECT]

    def summary(self) -> str:
        values = ", ".join(f"{k} = {v:g}" for k, v in self.best.items())
        low, high = self.estimate.interval
        found = (
            f"the values shown within ±{self.margin:g} of the target: {listed(self.hits)}"
            if self.hits
            else f"no value tried is shown within ±{self.margin:g} of the target"
        )
        race = (
            "the race decided every candidate"
            if self.decided
            else "the budget ended with candidates undecided"
        )
        return (
            f"{values}: {self.metric} = {self.estimate.value:.4g} (95% CI {low:.4g} to "
            f"{high:.4g}) on {self.estimate.n:,} held-out games, target {self.target:g}: "
            f"{self.verdict.describe(lambda x: f'{x:+.4g}', 'off the target by')}. "
            f"{readapted_text(self.readapted)}In the race, "
            f"{found}; the 95% confidence set of {', '.join(k.key for k in self.keys)} (every "
            f"value raced whose interval holds the target): {listed(self.confidence_set)}; "
            f"{race} ({self.games:,} games in all)."
            + (f" {self.crossing.text()}." if self.crossing else "")
        )


def readapted_text(e: Evaluation | None) -> str:
    """'With the field re-adapted to these values: ... . ' (empty when it was not)."""
    if e is None:
        return ""
    low, high = e.estimate.interval
    return (
        f"With the field re-adapted to these values: {e.estimate.value:.4g} (95% CI "
        f"{low:.4g} to {high:.4g}) on the same games: "
        f"{e.verdict.describe(lambda x: f'{x:+.4g}', 'off the target by')}. "
    )


def readapted_record(e: Evaluation | None) -> dict | None:
    return None if e is None else {"estimate": e.estimate.record(), "verdict": e.verdict.record()}


def listed(values: list[dict]) -> str:
    """'4; 5' for one key, '(4, 0.1); (5, 0.2)' for several; 'empty' for none."""
    if not values:
        return "empty"
    one = lambda v: ", ".join(f"{x:g}" for x in v.values())  # noqa: E731
    return "; ".join(one(v) if len(v) == 1 else f"({one(v)})" for v in values)


def fit(
    lab: Lab,
    rules: dict,
    design: Design,
    keys: list[KeyRange],
    metric_name: str,
    target: float,
    budget: int,
    seed: int = 1,
    margin: float | None = None,
) -> FitResult:
    """Search ``keys`` for the values whose ``metric_name`` hits ``target`` within ``margin``
    (default: :func:`default_margin`), in about ``budget`` games (see the module docstring)."""
    margin = default_margin(metric_name) if margin is None else margin
    names = [k.key for k in keys]
    if len(set(names)) != len(names):
        raise UserError("each --key may be given once")
    candidate = lambda values: with_values(rules, values)  # noqa: E731
    probe = lab.probe(design, rules)
    seated = {**probe.labels, "policy": tuple(dict.fromkeys(design.lineup))}
    metric = parse_metric(metric_name, seated, probe.end_reasons, tuple(probe.extra))
    evaluations: list[Evaluation] = []
    block = design.block(rules)
    held_out = round_to(max(MIN_BATCH, int(budget * HOLD_OUT_SHARE)), block)
    if len(keys) == 1 and keys[0].integer and len(keys[0].values()) <= GRID_MAX:
        finalists = [{keys[0].key: v} for v in keys[0].values()]
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
    race_budget = max(budget - lab.played - held_out, block * len(finalists))
    aim = (target, margin)
    best, decided, games, spare = race(
        lab, design, candidate, finalists, metric, aim, race_budget, evaluations, block
    )
    chosen = held_out_check(lab, design, candidate(best), best, metric, target, margin, held_out)
    evaluations.append(chosen)
    located = None
    if len(keys) == 1:
        located = locate(
            lab, design, candidate, keys[0].key, finalists, games, metric, target, spare
        )
    return FitResult(
        metric_name,
        target,
        keys,
        best,
        chosen.estimate,
        evaluations,
        lab.played,
        decided,
        margin,
        chosen.verdict,
        located,
    )


def held_out_check(lab, design, rules, values, metric, target, margin, n, stage="held-out"):
    """``metric`` of ``values`` (played by ``rules``) on ``n`` held-out games, judged against
    ``target`` within ``margin``."""
    (outcome,) = lab.play(design, [rules], batch_ids(0, n, offset=HELD_OUT))
    estimate = metric.estimate(outcome)
    verdict = judge(estimate.value - target, spread(estimate), margin)
    return Evaluation(values, stage, estimate, abs(estimate.value - target), verdict)


def readapted_check(lab: Lab, design: Design, rules: dict, result: FitResult) -> Evaluation:
    """The chosen values on the same held-out games with ``rules``: the field re-adapted to
    them (the race plays knobs adapted to the base rules; a designer who adopts the values
    faces players who adapt to them).  Added to ``result``, which then reports both."""
    probe = lab.probe(design, rules)
    seated = {**probe.labels, "policy": tuple(dict.fromkeys(design.lineup))}
    metric = parse_metric(result.metric, seated, probe.end_reasons, tuple(probe.extra))
    n = result.estimate.n
    check = held_out_check(
        lab, design, rules, result.best, metric, result.target, result.margin, n, "re-adapted"
    )
    result.evaluations.append(check)
    result.games += lab.played
    return check


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


def race(lab, design, candidate, finalists, metric: Metric, aim, budget, evaluations, block):
    """The race in looks (see the module docstring); ``aim`` is (target, margin).  Returns
    (the chosen values, whether no candidate was left inconclusive).

    The looks are planned before any game: from an eighth of an even share of ``budget``,
    doubling up to what one candidate could play were the others to stop at the first look;
    a look is played while the budget affords it for every candidate still racing, so the
    candidates near the target get the games the others leave."""
    target, margin = aim
    first = round_to(max(MIN_BATCH, budget // (len(finalists) * FIRST_LOOK)), block)
    most = max(first, budget - first * (len(finalists) - 1))
    sizes = list(dict.fromkeys(round_to(n, block) for n in looks(first, most)))
    alpha = alpha_per_look(len(sizes), ALPHA)
    games: dict[int, list[Outcomes]] = {i: [] for i in range(len(finalists))}
    last: dict[int, tuple[Estimate, Verdict]] = {}
    racing, played, spent = list(range(len(finalists))), 0, 0
    for size in sizes:
        if last and spent + (size - played) * len(racing) > budget:
            break
        ids = np.arange(RACE_OFFSET + played, RACE_OFFSET + size, dtype=np.int64)
        outcomes = lab.play(design, [candidate(finalists[i]) for i in racing], ids)
        spent += (size - played) * len(racing)
        played = size
        for i, o in zip(racing, outcomes):
            games[i].append(o)
            e = metric.estimate(Outcomes.concat(games[i]))
            last[i] = (e, judge(e.value - target, spread(e), margin, alpha=alpha))
        racing = [i for i in racing if last[i][1].kind == INCONCLUSIVE]
        if not racing:
            break
    for i, (e, v) in sorted(last.items()):
        low, high = v.interval(1 - alpha)
        holds = bool(np.isfinite(e.value) and low <= 0 <= high)
        evaluations.append(Evaluation(finalists[i], "race", e, abs(e.value - target), v, holds))
    hits = [i for i, (_, v) in last.items() if v.kind == NO_EFFECT]
    best = min(hits or list(last), key=lambda i: finite(abs(last[i][0].value - target)))
    return finalists[best], not racing, games, budget - spent


def locate(lab, design, candidate, key, finalists, games, metric, target, spare):
    """Where the metric crosses the target along ``key`` (:mod:`simulator.experiments.crossing`).

    The candidates the line is fitted to are first played on to :data:`PLAY_ON` times as many
    games as the one of them that played most, as far as ``spare`` games (what the race left
    of its budget) allow: a candidate stops racing once its verdict is reached, so its
    estimate at that look leans away from the target (or towards it, for one shown within
    the margin); games played on by every candidate whatever its verdict weigh that lean
    down, and give each point of the line the same games."""

    def points(indices):
        out = []
        for i in indices:
            e = metric.estimate(Outcomes.concat(games[i]))
            out.append((finalists[i][key], e, spread(e)))
        return out

    order = sorted(games, key=lambda i: finalists[i][key])
    window = near_target(points(order), target)
    if window is not None:
        chosen = [order[w] for w in window]
        played = {i: sum(o.n_games for o in games[i]) for i in chosen}
        most = level_within(list(played.values()), PLAY_ON * max(played.values()), spare)
        for i in chosen:
            if played[i] < most:
                ids = np.arange(RACE_OFFSET + played[i], RACE_OFFSET + most, dtype=np.int64)
                games[i] += lab.play(design, [candidate(finalists[i])], ids)
    return crossing(key, points(order), target)


def level_within(played: list[int], aim: int, spare: int) -> int:
    """The games every candidate is brought up to: ``aim``, or the highest level that
    bringing them up to costs at most ``spare`` games."""
    cost = lambda level: sum(max(0, level - n) for n in played)  # noqa: E731
    low, high = min(played), max(aim, *played)
    while low < high:  # the highest level whose cost fits
        mid = (low + high + 1) // 2
        low, high = (mid, high) if cost(mid) <= spare else (low, mid - 1)
    return low


EXACT_SE = 1e-12  # the standard error of a metric that does not vary from game to game


def spread(e: Estimate) -> float:
    """The standard error a verdict reads.  A rate that never (or always) happened in these
    games has no spread to measure: it takes the binomial one of (k + 0.5) / (n + 1), so it
    still counts as uncertain; any other metric that does not vary from game to game (a
    Karnaxis game lasts its number of years) is known exactly."""
    if not e.se == 0:
        return e.se
    if e.trials > 0:
        p = (e.value * e.trials + 0.5) / (e.trials + 1)
        return float(np.sqrt(p * (1 - p) / e.trials))
    return EXACT_SE


def finite(value: float) -> float:
    return value if np.isfinite(value) else np.inf


def overlay(result: FitResult, command: str) -> str:
    """The best values as a rules overlay for ``--rules``, the evidence in comments."""
    return f"# Written by: {command}\n# {result.summary()}.\n" + to_toml(nest_all(result.best))


def evaluation_rows(result: FitResult) -> list[dict]:
    return [
        {
            "stage": e.stage,
            **{f"key:{k}": float(v) for k, v in e.values.items()},
            **e.estimate.record(),
            "distance": e.distance,
            "verdict": e.verdict.kind if e.verdict else None,
            "in_confidence_set": e.in_set,
        }
        for e in result.evaluations
    ]


def write(
    result: FitResult, design: Design, out: Path, command: str, charts: Callable | None = None
) -> None:
    """OUT/balsim.json (summary), evaluations.parquet, fit.toml (overlay), and what
    ``charts(folder)`` draws there (the report layer's ``fit.svg`` and ``fit.png``:
    :func:`simulator.report.tool_charts.fit_files`); written to a temporary folder first, so
    OUT is whole or untouched."""
    import polars as pl

    with writing_result(out) as tmp:
        rows = evaluation_rows(result)
        pl.DataFrame(rows).write_parquet(tmp / "evaluations.parquet")
        (tmp / "fit.toml").write_text(overlay(result, command), encoding="utf-8")
        if charts is not None:
            charts(tmp)
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
            "margin": result.margin,
            "keys": [asdict(k) for k in result.keys],
            "best": result.best,
            "estimate": result.estimate.record(),
            "verdict": result.verdict.record(),
            "readapted": readapted_record(result.readapted),
            "confidence_set": result.confidence_set,
            "crossing": result.crossing.record() if result.crossing else None,
            "hits": result.hits,
            "summary": result.summary(),
        }
        (tmp / OUT_MARK).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
