"""``balsim sensitivity``: which rules keys move the balance metrics, and which do not.

What is varied is planned in :mod:`simulator.experiments.screening`: numbers as Morris
factors (a card's ASSUMED numbers together), switches and choices paired.

* **Morris** (SALib draws the trajectories): each step of a trajectory moves one factor by
  ``DELTA`` (2/3) of its range.  Trajectory t plays its own games, every run of it the same
  ones (common random numbers), so each step is a paired comparison and a key that does
  nothing shows no difference at all.
* **Choices**: every alternative against the printed value on the same games.  A key's games
  are shared out among its alternatives (contiguous slices of whole seat-order rounds), so
  every key costs the same games however many alternatives it has.

For each balance metric (:func:`simulator.experiments.metrics.balance_metrics`) and key:

* ``effect``: numbers, the mean elementary effect (``mu``: the change of the metric when the key
  moves across its whole range, averaged over the trajectories); choices, the change of the
  alternative that moves it most (named in ``alternative``); with its standard error from the
  paired games, ``low``/``high`` its 95% interval;
* ``chi2``, ``p``: whether the steps (the alternatives) change the metric more than the games'
  noise explains: the sum of squared paired z-scores against a chi-square law; ``p_holm``
  Holm-corrected over the metric's keys; ``significant`` = ``p_holm < 0.05``;
* ``verdict`` (:mod:`simulator.core.verdicts`): ``no effect`` (of practical size) when the
  change lies within ``margin`` by TOST (every alternative's, for a choice) and either the
  steps are consistent with no change (not significant) or even a number's mean absolute
  elementary effect, which opposite signs cannot cancel, plus 1.645 standard errors lies within
  it; else ``effect`` when significant; else ``inconclusive``, with ``detectable``: the
  smallest effect the screen finds with 80% power.

**Size.**  A screen sized by :func:`choice_games` and :func:`run_games` detects a change of
``d`` in a win rate (80% power, two-sided 5%): a paired difference of one seat's or team's win
has a variance of at most ``PAIRED_VARIANCE`` = 0.5 per game (games that diverge entirely,
each won with probability p, differ with probability 2p(1 - p) <= 0.5), so a choice needs
``n = 0.5 (1.96 + 0.84)^2 / d^2`` games (1,570 for 5 points), and a Morris factor the same
number of step pairs over its trajectories, scaled by 1 / DELTA^2 because a step spans 2/3 of
the range (``T x G = 3,533`` at 5 points: 4 trajectories of 884 games a run).

Output folder (schema 2): ``balsim.json`` (the screen: game, line-up, seed, factors and their
members' ranges, choices and their alternatives, keys skipped and why, the ASSUMED keys in play
it rests on, metrics, games, margin, the design's detectable effect), ``effects.parquet`` /
``effects.json`` (one row per metric x key: ``metric, key, kind, rank, effect, se, low, high,
alternative, verdict, detectable, margin, size, mu_star, sigma, chi2, tests, p, p_holm,
significant``; rank 1 = largest ``size`` (``mu_star`` or the largest |change| of a choice)),
``alternatives.parquet`` (metric x choice x alternative: ``estimate, se, low, high, verdict,
detectable, games``), ``runs.parquet`` (the Morris runs: ``run, trajectory``, ``x:KEY`` in [0, 1],
each metric's value) and the chart its writer is given (``sensitivity.svg`` and ``.png``, drawn
by :func:`simulator.report.tool_charts.screen_files`).  :func:`dependencies` and
:func:`verdicts` read it back; the report's section is :mod:`simulator.report.screens`.
"""

from __future__ import annotations

import gc
import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

import numpy as np
from scipy.stats import chi2

from simulator.core.errors import UserError
from simulator.core.game import Game
from simulator.core.rules import RulesError
from simulator.core.verdicts import (
    ALPHA,
    EFFECT,
    INCONCLUSIVE,
    LENGTH_MARGIN,
    NO_EFFECT,
    POWER,
    Verdict,
    judge,
    z,
)
from simulator.experiments.keys import with_values
from simulator.experiments.lab import Design, Lab, round_to
from simulator.experiments.metrics import Estimate, Outcomes, balance_metrics
from simulator.experiments.screening import DELTA, LEVELS, Factor, ScreenPlan, same_key
from simulator.run.outputs import OUT_MARK, writing_result

SCHEMA = 2
SCREEN_MARGIN = 0.05  # "no effect" within 5 points of a win rate: what the design can see
PAIRED_VARIANCE = 0.5  # the largest variance of a paired win difference per game (module doc)


def choice_games(detectable: float) -> int:
    """Games a paired comparison needs to detect a change of ``detectable`` in a win rate with
    probability POWER at level ALPHA (two-sided): ``v (z_{1-a/2} + z_power)^2 / d^2``."""
    return math.ceil(PAIRED_VARIANCE * (z(1 - ALPHA / 2) + z(POWER)) ** 2 / detectable**2)


def run_games(detectable: float, trajectories: int) -> int:
    """Games per Morris run for the same power on a factor's effect over its range: its
    ``trajectories`` steps each span DELTA of the range."""
    return math.ceil(choice_games(detectable) / (trajectories * DELTA**2))


def detectable_by(pairs: int, span: float = 1.0) -> float:
    """The win-rate change that ``pairs`` paired games detect (POWER, ALPHA two-sided), each
    pair spanning ``span`` of the key's range: the inverse of :func:`choice_games`."""
    return (z(1 - ALPHA / 2) + z(POWER)) * math.sqrt(PAIRED_VARIANCE / pairs) / span


@dataclass
class Screen:
    design: Design
    plan: ScreenPlan
    trajectories: int
    games_per_run: int
    choice_games: int
    margin: float
    effects: list[dict]
    alternatives: list[dict]
    runs: list[dict]
    metrics: list[str]
    games: int


def screen(
    lab: Lab,
    rules: dict,
    design: Design,
    plan: ScreenPlan,
    trajectories: int,
    games_per_run: int,
    games_per_choice: int,
    seed: int = 1,
    margin: float = SCREEN_MARGIN,
) -> Screen:
    """Play the Morris design and the choices, and judge every metric's keys (module doc).

    Factors whose values the checks refuse together in some run are dropped (skipped, with
    the checks' reason) before any game is played."""
    block = design.block(rules)
    games_per_run = round_to(games_per_run, block) if plan.factors else 0
    x, run_rules = morris_runs(lab.game, rules, plan, trajectories, seed)
    k = len(plan.factors)
    batches = [
        (r, np.arange((i // (k + 1)) * games_per_run, (i // (k + 1) + 1) * games_per_run))
        for i, r in enumerate(run_rules)
    ]
    offset = trajectories * games_per_run
    slices = [
        (c, choice_slices(len(c.alternatives), games_per_choice, block)) for c in plan.choices
    ]
    base_games = max((len(s) * g for _, (s, g) in slices), default=0)
    if plan.choices:
        batches.append((rules, np.arange(offset, offset + base_games)))
    for choice, (starts, size) in slices:
        for j, start in enumerate(starts):
            ids = np.arange(offset + start, offset + start + size)
            batches.append((with_values(rules, choice.values(j)), ids))
    names = metric_names(lab.probe(design, rules), design)
    base_slices = sorted({(start, size) for _, (starts, size) in slices for start in starts})
    measures = [partial(measure, names)] * len(run_rules)
    measures += [partial(measure, names, base_slices)] * bool(plan.choices)
    measures += [partial(measure, names)] * (len(batches) - len(measures))
    groups = [(design, [candidate], ids) for candidate, ids in batches]
    measured = [found for (found,) in lab.play_groups(groups, measures)]
    fair = measured[0]["fair"]
    margins = [metric_margin(name, margin, fair) for name in names]
    rows, y = morris_rows(plan.factors, x, measured[: len(run_rules)], names, margins)
    alternatives: list[dict] = []
    if plan.choices:
        base, rest = measured[len(run_rules)], iter(measured[len(run_rules) + 1 :])
        for choice, (starts, size) in slices:
            bases = [base["slices"][(start, size)] for start in starts]
            played = [next(rest)["estimates"] for _ in choice.alternatives]
            found, alts = choice_rows(choice, bases, played, names, margins)
            rows += found
            alternatives += alts
    effects = rank_and_correct(rows, names)
    factors = [f.key for f in plan.factors]
    runs = [
        {
            "run": r,
            "trajectory": r // (k + 1),
            **{f"x:{key}": float(v) for key, v in zip(factors, x[r])},
            **{name: float(y[r, m]) for m, name in enumerate(names)},
        }
        for r in range(len(x))
    ]
    return Screen(
        design,
        plan,
        trajectories,
        games_per_run,
        games_per_choice,
        margin,
        effects,
        alternatives,
        runs,
        names,
        lab.played,
    )


def metric_names(probe: Outcomes, design: Design) -> list[str]:
    """The balance metrics a screen judges: those of every label the games can record (seat,
    character, side), the line-up's policies."""
    labels = {**probe.labels, "policy": tuple(dict.fromkeys(design.lineup))}
    return [m.name for m in balance_metrics(labels, probe.end_reasons, tuple(probe.extra))]


def measure(names: list[str], *args) -> dict:
    """What a worker returns for one candidate's Outcomes (the last argument): each metric's
    estimate, the fair share and, given ``slices`` ((start, size) pairs) before it, the
    estimates on each slice of its games (the printed value's, one per alternative)."""
    *slices, outcomes = args

    def estimates(o: Outcomes) -> list[Estimate]:
        return [o.metric(name).estimate(o) for name in names]

    out = {"fair": float(np.mean(outcomes.won.sum(axis=1))) / outcomes.n_players}
    if slices:
        out["slices"] = {
            (start, size): estimates(outcomes.subset(slice(start, start + size)))
            for start, size in slices[0]
        }
    else:
        out["estimates"] = estimates(outcomes)
    return out


def morris_runs(game: Game, rules: dict, plan: ScreenPlan, trajectories: int, seed: int):
    """The Morris sample and each run's rules; a factor the checks refuse in some run (with
    the other factors where that run puts them) is dropped and the sample drawn again."""
    from SALib.sample import morris as morris_sample

    while plan.factors:
        names = [f.key for f in plan.factors]
        problem = {"num_vars": len(names), "names": names, "bounds": [[0.0, 1.0]] * len(names)}
        x = morris_sample.sample(problem, N=trajectories, num_levels=LEVELS, seed=seed)
        try:
            return x, [run_rules(game, rules, plan.factors, row) for row in x]
        except RulesError as e:
            culprit = next(
                (f for f in plan.factors if any(same_key(rules, m.key, e.key) for m in f.members)),
                None,
            ) or next(
                (f for f in plan.factors if any(within(m.key, e.key) for m in f.members)), None
            )
            if culprit is None:
                raise UserError(f"{e} (in a Morris run); narrow the ranges") from None
            plan.factors.remove(culprit)
            plan.skip(culprit.key, f"the checks refuse it with other keys' values ({e})")
    return np.zeros((0, 0)), []


def within(member: str, key: str) -> bool:
    """Whether ``member`` lies in the table or array ``key`` that a check names."""
    return member.startswith((key + ".", key + "["))


def run_rules(game: Game, rules: dict, factors: list[Factor], row) -> dict:
    values = {}
    for factor, x in zip(factors, row):
        values.update(factor.values(x))
    out = with_values(rules, values)
    game.validate(out)
    return out


def choice_slices(n_alternatives: int, games: int, block: int) -> tuple[list[int], int]:
    """The first game of each alternative's slice and the slice's size: ``games`` shared out,
    each slice whole rounds of seat orders."""
    size = round_to(-(-games // n_alternatives), block)
    return [j * size for j in range(n_alternatives)], size


def metric_margin(name: str, margin: float, fair: float) -> float:
    """The equivalence margin of a metric: ``margin`` on rates and edges, half a year / round /
    turn on the length, and ``margin`` over the fair share on a largest-share ratio."""
    if name == "length":
        return LENGTH_MARGIN
    if name.startswith("max_") and name.endswith("_share"):
        return margin / fair if fair > 0 else margin
    return margin


def paired_verdict(difference: Estimate, margin: float, scale: float = 1.0) -> Verdict:
    """The verdict on a paired difference (times ``scale``); one that changed no game is no
    effect, exactly."""
    if difference.value == 0 and not np.any(difference.psi):
        return Verdict(NO_EFFECT, 0.0, 0.0, 0.0, margin)
    return judge(difference.value * scale, difference.se * abs(scale), margin)


def z_of(difference: Estimate) -> float:
    if difference.value == 0 and not np.any(difference.psi):
        return 0.0
    se = difference.se
    return difference.value / se if se > 0 else np.inf


def morris_rows(factors, x, runs: list[dict], names: list[str], margins):
    """One row per metric x factor from the Morris runs' estimates, and each run's values."""
    k = len(factors)
    y = np.full((len(runs), len(names)), np.nan)
    steps: dict = {}  # (metric, factor) -> [(elementary effect, its se, z)]
    previous: list[Estimate] = []
    for r, measured in enumerate(runs):
        estimates = measured["estimates"]
        y[r] = [e.value for e in estimates]
        if r % (k + 1):
            moved = int(np.argmax(x[r] != x[r - 1]))
            delta = float(x[r, moved] - x[r - 1, moved])
            for m, (e, p) in enumerate(zip(estimates, previous)):
                d = e - p
                steps.setdefault((m, moved), []).append((d.value / delta, d.se / DELTA, z_of(d)))
        previous = estimates
    rows = []
    for m, name in enumerate(names):
        if not np.all(np.isfinite(y[:, m])):
            continue  # undefined in some run: no verdict about it
        for f, factor in enumerate(factors):
            ee, se, zs = (np.array(v) for v in zip(*steps.get((m, f), [(0.0, 0.0, 0.0)])))
            identical = not np.any(zs) and not np.any(ee)
            mu = float(ee.mean())
            mu_se = float(np.sqrt(np.sum(se**2)) / len(se))
            mu_star = float(np.abs(ee).mean())
            verdict = (
                Verdict(NO_EFFECT, 0.0, 0.0, 0.0, margins[m])
                if identical
                else judge(mu, mu_se, margins[m])
            )
            # even the mean |change| (which opposite signs cannot cancel), plus its noise,
            # lies within the margin: no effect of practical size, significant or not
            small = identical or mu_star + z(1 - ALPHA) * mu_se < margins[m]
            rows.append(
                row(name, factor.key, "numbers", verdict, "", mu_star)
                | {
                    "tost": verdict.kind == NO_EFFECT,
                    "small": small,
                    "mu_star": mu_star,
                    "sigma": float(ee.std(ddof=1)) if len(ee) > 1 else 0.0,
                    "chi2": float(np.sum(zs**2)),
                    "tests": len(zs),
                }
            )
    return rows, y


def choice_rows(choice, bases, played, names, margins):
    """One row per metric for a choice key, and one per metric x alternative, from the
    estimates on each alternative's games (``played``) and the printed value's (``bases``)."""
    rows, alternatives = [], []
    for m, name in enumerate(names):
        found = []
        for j, (b, o) in enumerate(zip(bases, played)):
            d = o[m] - b[m]
            if not np.isfinite(d.value):
                break
            found.append((choice.label(j), d, paired_verdict(d, margins[m])))
        else:
            top = max(found, key=lambda f: abs(f[1].value))
            kinds = {v.kind for _, _, v in found}
            detectable = max(v.detectable for _, _, v in found)
            verdict = top[2]
            if kinds == {NO_EFFECT}:
                verdict = Verdict(NO_EFFECT, top[2].estimate, top[2].se, 0.0, margins[m])
            record = row(name, choice.key, "choice", verdict, top[0])
            rows.append(
                record
                | {
                    "size": abs(top[1].value),
                    "detectable": detectable,
                    "tost": kinds == {NO_EFFECT},  # each alternative's change in the margin
                    "small": kinds == {NO_EFFECT},
                    "mu_star": float(np.mean([abs(d.value) for _, d, _ in found])),
                    "sigma": 0.0,
                    "chi2": float(sum(z_of(d) ** 2 for _, d, _ in found)),
                    "tests": len(found),
                }
            )
            for alternative, d, v in found:
                alternatives.append(
                    {
                        "metric": name,
                        "key": choice.key,
                        "alternative": alternative,
                        "estimate": v.estimate,
                        "se": v.se,
                        "low": v.low,
                        "high": v.high,
                        "verdict": v.kind,
                        "detectable": v.detectable,
                        "games": d.n,
                    }
                )
    return rows, alternatives


def row(metric: str, key: str, kind: str, v: Verdict, alternative: str, size=None) -> dict:
    return {
        "metric": metric,
        "key": key,
        "kind": kind,
        "effect": v.estimate,
        "se": v.se,
        "low": v.low,
        "high": v.high,
        "alternative": alternative,
        "verdict": v.kind,
        "detectable": v.detectable,
        "margin": v.margin,
        "size": abs(v.estimate) if size is None else size,
    }


def rank_and_correct(rows: list[dict], metrics: list[str]) -> list[dict]:
    """Each metric's keys: chi-square p, Holm over the metric's keys, rank by size, and the
    final verdict (an effect only when significant; no effect only when not)."""
    from statsmodels.stats.multitest import multipletests

    out = []
    gc.freeze()  # statsmodels' Holm runs a full garbage collection per call: skip what exists
    try:
        for metric in metrics:
            part = [r for r in rows if r["metric"] == metric]
            if not part:
                continue
            p = np.array([chi2.sf(r["chi2"], r["tests"]) if r["tests"] else 1.0 for r in part])
            p_holm = multipletests(p, method="holm")[1]
            order = np.argsort([-r["size"] for r in part], kind="stable")
            for rank, i in enumerate(order, start=1):
                r = part[i]
                significant = bool(p_holm[i] < ALPHA)
                # no effect of practical size: the change (each alternative's) within the
                # margin by TOST, and the steps consistent with none or all of them small
                tost, small = r.pop("tost"), r.pop("small")
                verdict = (
                    NO_EFFECT
                    if small or (tost and not significant)
                    else EFFECT
                    if significant
                    else INCONCLUSIVE
                )
                out.append(
                    r
                    | {
                        "rank": rank,
                        "p": float(p[i]),
                        "p_holm": float(p_holm[i]),
                        "significant": significant,
                        "verdict": verdict,
                    }
                )
    finally:
        gc.unfreeze()
    return out


def summary_of(result: Screen, command: str, seconds: float) -> dict:
    plan, design = result.plan, result.design
    pairs = result.games_per_run * result.trajectories
    return {
        "tool": "sensitivity",
        "schema": SCHEMA,
        "command": command,
        "game": design.game,
        "lineup": list(design.lineup),
        "n_players": design.n_players,
        "seed": design.seed,
        "method": "morris and paired choices",
        "levels": LEVELS,
        "trajectories": result.trajectories,
        "games_per_run": result.games_per_run,
        "choice_games": result.choice_games,
        "runs": len(result.runs),
        "games": result.games,
        "seconds": round(seconds, 1),
        "margin": result.margin,
        "detectable": {
            "numbers": detectable_by(pairs, DELTA) if plan.factors else None,
            "choice": detectable_by(result.choice_games) if plan.choices else None,
        },
        "factors": [
            {"key": f.key, "members": [asdict(m) for m in f.members]} for f in plan.factors
        ],
        "choices": [
            {
                "key": c.key,
                "default": c.default,
                "alternatives": list(c.alternatives),
                "companions": list(c.companions),
            }
            for c in plan.choices
        ],
        "screened": plan.keys,
        "skipped": plan.skipped,
        "rests_on": plan.rests_on,
        "metrics": result.metrics,
    }


def write(
    result: Screen, out: Path, command: str, seconds: float, charts: Callable | None = None
) -> None:
    """The output folder (module docstring), written whole or not at all; ``charts(folder)``
    draws the folder's charts from its files (the report layer's)."""
    import polars as pl

    with writing_result(out) as tmp:
        effects = pl.DataFrame(result.effects, infer_schema_length=None)
        effects.write_parquet(tmp / "effects.parquet")
        (tmp / "effects.json").write_text(json.dumps(result.effects, indent=1) + "\n")
        pl.DataFrame(result.alternatives, schema=ALTERNATIVE_SCHEMA).write_parquet(
            tmp / "alternatives.parquet"
        )
        pl.DataFrame(result.runs).write_parquet(tmp / "runs.parquet")
        summary = summary_of(result, command, seconds)
        (tmp / OUT_MARK).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
        if charts is not None:
            charts(tmp)


ALTERNATIVE_SCHEMA = {
    "metric": str,
    "key": str,
    "alternative": str,
    "estimate": float,
    "se": float,
    "low": float,
    "high": float,
    "verdict": str,
    "detectable": float,
    "games": int,
}


def read(out: str | Path):
    """``(summary dict, effects DataFrame)`` of a sensitivity folder (UserError if it is not
    one, or one of an older schema)."""
    import polars as pl

    out = Path(out)
    try:
        summary = json.loads((out / OUT_MARK).read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        raise UserError(
            f"{out} is not a balsim sensitivity folder (no readable {OUT_MARK})"
        ) from None
    if summary.get("tool") != "sensitivity":
        raise UserError(
            f"{out} holds a balsim {summary.get('tool')} result, not a sensitivity screen"
        )
    if summary.get("schema") != SCHEMA:
        raise UserError(
            f"{out} is a sensitivity screen of schema {summary.get('schema')}, not {SCHEMA}: "
            "run the screen again"
        )
    return summary, pl.read_parquet(out / "effects.parquet")


def dependencies(out: str | Path) -> dict[str, list[str]]:
    """For each metric of a screen, the keys it depends on significantly (Holm-corrected),
    largest effect first; a metric left out was undefined in some run."""
    return {
        metric: [k for k, r in rows.items() if r["significant"]]
        for metric, rows in verdicts(out).items()
    }


def verdicts(out: str | Path) -> dict[str, dict[str, dict]]:
    """For each metric of a screen, each key's row of ``effects`` (its verdict, effect,
    interval and detectable effect), largest effect first."""
    _, effects = read(out)
    found: dict[str, dict[str, dict]] = {}
    for r in effects.sort("metric", "rank").iter_rows(named=True) if effects.height else ():
        found.setdefault(r["metric"], {})[r["key"]] = r
    return found
