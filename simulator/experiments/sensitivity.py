"""``balsim sensitivity``: which rules keys move the balance metrics (Morris screening).

Each key is a *factor* with a range: ``--range 0.5,1.5`` times its value (a list of numbers is
scaled as a whole), or ``K=LOW:HIGH`` given with the key; an integer key keeps to the steps
the game's checks allow (a loan cap in $5,000 notes).  SALib draws Morris trajectories
over the factors (each step of a trajectory moves one key); every run of the screen plays the
same games (common random numbers), so the step from one run to the next is a paired
comparison and a key that does nothing shows no difference at all.

For each balance metric (:func:`simulator.experiments.metrics.balance_metrics`) and key:

* ``mu_star`` (SALib): the mean absolute change of the metric when the key moves across its
  whole range, with a bootstrap 95% interval over trajectories; ``mu`` keeps the sign;
* ``p``: whether the key's steps change the metric more than the games' noise explains — the
  sum of squared paired z-scores of its steps against a chi-square law — and ``p_holm``,
  Holm-corrected over the keys of that metric; ``significant`` = ``p_holm < 0.05``.

Output folder (schema 1): ``balsim.json`` (the screen: game, line-up, seed, factors with their
ranges, keys skipped and why, metrics, games per run), ``effects.parquet`` and
``effects.json`` (one row per metric x key: ``metric, key, rank, mu, mu_star, mu_star_low,
mu_star_high, sigma, chi2, steps, p, p_holm, significant``; rank 1 = largest ``mu_star``
within the metric), ``runs.parquet`` (one row per run: ``run, trajectory``, each key's
position in its range as ``x:KEY`` in [0, 1], each metric's value) and ``sensitivity.png``
(the ranked chart).  :func:`dependencies` and :func:`html_section` read it back.
"""

from __future__ import annotations

import gc
import json
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from scipy.stats import chi2

from simulator.core.assumed import assumed_keys
from simulator.core.errors import UserError
from simulator.core.game import Game
from simulator.core.rules import RulesError
from simulator.experiments.keys import (
    accepts,
    checked_range,
    key_step,
    numeric_value,
    on_lattice,
    parse_span,
    scaled,
    with_values,
)
from simulator.experiments.lab import Design, Lab, batch_ids
from simulator.experiments.metrics import balance_metrics
from simulator.run.outputs import OUT_MARK, finish_out_dir, new_out_dir

LEVELS = 4  # Morris grid levels
ALPHA = 0.05
SCHEMA = 1
HEADLINE = (
    "first_player_edge",
    "max_policy_share",
    "max_character_share",
    "starting_team_edge",
    "length",
    "round_cap_rate",
)  # the chart's panels, where the game has them
MAX_PANELS = 4


ARRAY_ENTRY = "an entry of an array of tables: no rules key names it"


@dataclass(frozen=True)
class Factor:
    """A key and its range: factors on its value (``absolute`` False) or its values."""

    key: str
    default: object  # a number or a list of numbers
    low: float
    high: float
    absolute: bool = False
    step: int = 1  # an integer key's values are default + k * step

    def value(self, x: float):
        """The key's value at position ``x`` in [0, 1] of its range."""
        at = self.low + float(x) * (self.high - self.low)
        if isinstance(self.default, list):
            return scaled(self.default, at)
        value = at if self.absolute else self.default * at
        return (
            on_lattice(value, self.default, self.step) if isinstance(self.default, int) else value
        )


def choose_factors(
    game: Game, rules: dict, named: list[str], assumed: bool, scale: tuple[float, float]
) -> tuple[list[Factor], list[dict]]:
    """The keys the user named (each must be screenable), then with ``assumed`` every other
    ASSUMED key (:func:`simulator.core.assumed.assumed_keys`) that can be screened; returns the
    factors and the keys skipped, with why."""
    if not named and not assumed:
        raise UserError("give --keys K1,K2,.. or --assumed")
    factors, skipped = factors_for(game, rules, named, scale, strict=True) if named else ([], [])
    if assumed:
        chosen = {f.key for f in factors}
        keys = [k for k in assumed_keys(game.rules_path) if k not in chosen]
        entries = [k for k in keys if "[" in k]  # e.g. characters[11].karnaxis
        more, skipped = factors_for(
            game,
            rules,
            [k for k in keys if k not in entries],
            scale,
            strict=False,
            allow_none=bool(factors),
        )
        factors += more
        skipped += [{"key": k, "reason": ARRAY_ENTRY} for k in entries]
    return factors, skipped


def factors_for(
    game: Game,
    rules: dict,
    keys: list[str],
    scale: tuple[float, float],
    strict: bool,
    allow_none: bool = False,
) -> tuple[list[Factor], list[dict]]:
    """The factors of ``keys`` (``K`` or ``K=LOW:HIGH``), and the keys skipped with the reason.

    With ``strict`` (keys the user named) a key that cannot be screened is an error; otherwise
    (``--assumed``) it is skipped.  A scaled number the game's checks refuse at an end of its
    range is cut to what they accept."""
    factors, skipped = [], []
    for text in keys:
        key, sep, span = text.partition("=")
        key = key.strip()
        try:
            factors.append(make_factor(game, rules, key, span if sep else None, scale))
        except RulesError as e:
            if strict:
                raise
            skipped.append({"key": key, "reason": str(e).split(": ", 1)[-1]})
    if len({f.key for f in factors}) != len(factors):
        raise UserError("each key may be screened once")
    if not factors and not allow_none:
        raise UserError(
            "no key to screen"
            + (
                f" ({len(skipped)} skipped: "
                + "; ".join(f"{s['key']}: {s['reason']}" for s in skipped)
                + ")"
                if skipped
                else ""
            )
        )
    return factors, skipped


def make_factor(game: Game, rules: dict, key: str, span: str | None, scale) -> Factor:
    default = numeric_value(rules, key)
    step = 1 if isinstance(default, list) else key_step(game, rules, key)
    if span is not None:
        low, high = parse_span(key, span)
        if isinstance(default, list):
            raise RulesError(key, "a list takes --range factors, not LOW:HIGH")
        factor = Factor(key, default, low, high, absolute=True, step=step)
    elif not any(default if isinstance(default, list) else [default]):
        raise RulesError(key, f"its value is 0, so scaling cannot move it; give {key}=LOW:HIGH")
    else:
        factor = Factor(key, default, *scale, step=step)
    ends = [factor.value(0.0), factor.value(1.0)]
    if not all(accepts(game, rules, key, v) for v in ends):
        if isinstance(default, list) or factor.absolute:
            raise RulesError(key, f"the game's checks refuse {ends[0]} or {ends[1]}")
        low, high = checked_range(game, rules, key, *sorted(ends), step)
        factor = Factor(key, default, low, high, absolute=True, step=step)
        ends = [factor.value(0.0), factor.value(1.0)]
    if ends[0] == ends[1]:
        raise RulesError(key, f"its range holds one value ({ends[0]})")
    for x in np.linspace(0, 1, LEVELS)[1:-1]:  # the grid levels inside the range, too
        if not accepts(game, rules, key, factor.value(x)):
            raise RulesError(
                key, f"the game's checks refuse {factor.value(x)}, a level of its range"
            )
    return factor


@dataclass
class Screen:
    design: Design
    factors: list[Factor]
    skipped: list[dict]
    trajectories: int
    games_per_run: int
    effects: list[dict]
    runs: list[dict]
    metrics: list[str]
    games: int


def screen(
    lab: Lab,
    rules: dict,
    design: Design,
    factors: list[Factor],
    trajectories: int,
    games_per_run: int,
    seed: int = 1,
    skipped: list[dict] | None = None,
) -> Screen:
    """Play the Morris design and compute every metric's effects (see the module docstring)."""
    from SALib.analyze import morris as morris_analyze
    from SALib.sample import morris as morris_sample

    names = [f.key for f in factors]
    problem = {"num_vars": len(factors), "names": names, "bounds": [[0.0, 1.0]] * len(factors)}
    x = morris_sample.sample(problem, N=trajectories, num_levels=LEVELS, seed=seed)
    outcomes = lab.play(
        design, [run_rules(lab.game, rules, factors, row) for row in x], batch_ids(0, games_per_run)
    )
    metrics = balance_metrics(
        outcomes[0].present, outcomes[0].end_reasons, tuple(outcomes[0].extra)
    )
    y = np.full((len(x), len(metrics)), np.nan)
    z2 = np.zeros((len(metrics), len(factors)))
    steps = np.zeros(len(factors), dtype=int)
    previous = None
    for run, o in enumerate(outcomes):
        estimates = [m.estimate(o) for m in metrics]
        y[run] = [e.value for e in estimates]
        if run % (len(factors) + 1):
            moved = int(np.argmax(x[run] != x[run - 1]))
            steps[moved] += 1
            z2[:, moved] += [step_z(e - p) ** 2 for e, p in zip(estimates, previous)]
        previous = estimates
    effects = []
    gc.freeze()  # statsmodels' Holm runs a full garbage collection per call: skip what exists
    try:
        for m, metric in enumerate(metrics):
            if not np.all(np.isfinite(y[:, m])):
                continue
            result = morris_analyze.analyze(
                problem,
                x,
                y[:, m],
                num_resamples=1000,
                conf_level=1 - ALPHA,
                num_levels=LEVELS,
                seed=seed,
            )
            effects += metric_effects(metric.name, names, result, z2[m], steps)
    finally:
        gc.unfreeze()
    runs = [
        {
            "run": r,
            "trajectory": r // (len(factors) + 1),
            **{f"x:{k}": float(v) for k, v in zip(names, x[r])},
            **{metric.name: float(y[r, m]) for m, metric in enumerate(metrics)},
        }
        for r in range(len(x))
    ]
    return Screen(
        design,
        factors,
        skipped or [],
        trajectories,
        games_per_run,
        effects,
        runs,
        [m.name for m in metrics],
        lab.played,
    )


def run_rules(game: Game, rules: dict, factors: list[Factor], row) -> dict:
    """The rules of one run; keys whose ranges the checks refuse together are an error
    naming the combination, before any game is played."""
    values = {f.key: f.value(v) for f, v in zip(factors, row)}
    try:
        out = with_values(rules, values)
        game.validate(out)
    except RulesError as e:
        named = ", ".join(f"{k} = {v}" for k, v in values.items() if k == e.key or k in str(e))
        raise UserError(
            f"{e} (in a run with {named}); narrow the ranges with KEY=LOW:HIGH"
        ) from None
    return out


def step_z(difference) -> float:
    """A paired step's z-score; a step that changed no game is 0."""
    if difference.value == 0:
        return 0.0
    se = difference.se
    return difference.value / se if se > 0 else np.inf


def metric_effects(
    metric: str, names: list[str], result, z2: np.ndarray, steps: np.ndarray
) -> list[dict]:
    from statsmodels.stats.multitest import multipletests

    p = np.array([chi2.sf(z2[k], steps[k]) if steps[k] else 1.0 for k in range(len(names))])
    p_holm = multipletests(p, method="holm")[1]
    order = np.argsort(-np.asarray(result["mu_star"]), kind="stable")
    rank = np.empty(len(names), dtype=int)
    rank[order] = np.arange(1, len(names) + 1)
    rows = []
    for k, key in enumerate(names):
        mu_star, conf = float(result["mu_star"][k]), float(result["mu_star_conf"][k])
        rows.append(
            {
                "metric": metric,
                "key": key,
                "rank": int(rank[k]),
                "mu": float(result["mu"][k]),
                "mu_star": mu_star,
                "mu_star_low": max(0.0, mu_star - conf),
                "mu_star_high": mu_star + conf,
                "sigma": float(result["sigma"][k]),
                "chi2": float(z2[k]),
                "steps": int(steps[k]),
                "p": float(p[k]),
                "p_holm": float(p_holm[k]),
                "significant": bool(p_holm[k] < ALPHA),
            }
        )
    return sorted(rows, key=lambda r: r["rank"])


def write(result: Screen, out: Path, command: str, seconds: float) -> None:
    """The output folder (module docstring), written whole or not at all."""
    import polars as pl

    tmp = new_out_dir(out)
    try:
        effects = pl.DataFrame(result.effects)
        effects.write_parquet(tmp / "effects.parquet")
        (tmp / "effects.json").write_text(json.dumps(result.effects, indent=1) + "\n")
        pl.DataFrame(result.runs).write_parquet(tmp / "runs.parquet")
        summary = {
            "tool": "sensitivity",
            "schema": SCHEMA,
            "command": command,
            "game": result.design.game,
            "lineup": list(result.design.lineup),
            "seed": result.design.seed,
            "method": "morris",
            "levels": LEVELS,
            "trajectories": result.trajectories,
            "games_per_run": result.games_per_run,
            "runs": len(result.runs),
            "games": result.games,
            "seconds": round(seconds, 1),
            "factors": [asdict(f) for f in result.factors],
            "skipped": result.skipped,
            "metrics": result.metrics,
        }
        (tmp / OUT_MARK).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
        chart(effects, summary, tmp / "sensitivity.png")
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finish_out_dir(tmp, out)


def read(out: str | Path):
    """``(summary dict, effects DataFrame)`` of a sensitivity folder (UserError if it is not
    one)."""
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
    return summary, pl.read_parquet(out / "effects.parquet")


def dependencies(out: str | Path) -> dict[str, list[str]]:
    """For each metric of a screen, the keys it depends on significantly (Holm-corrected),
    largest effect first; a metric with an empty list is robust to every key screened."""
    _, effects = read(out)
    # a metric with no effects (not finite in some run) is left out: no verdict about it
    found = {
        metric: [] for metric in (effects["metric"].unique().to_list() if effects.height else [])
    }
    for row in effects.sort("metric", "rank").iter_rows(named=True):
        if row["significant"]:
            found[row["metric"]].append(row["key"])
    return found


def headline(metrics: list[str]) -> list[str]:
    return [m for m in HEADLINE if m in metrics]


def chart(effects, summary: dict, path: Path, top: int = 10) -> None:
    """One panel per headline metric (those a key moves significantly first): the keys ranked
    by mu_star with 95% intervals, the significant ones in colour."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import polars as pl

    moved = set(effects.filter(pl.col("mu_star") > 0)["metric"].to_list())
    found = set(effects.filter(pl.col("significant"))["metric"].to_list())
    panels = (
        sorted(
            (m for m in headline(summary["metrics"]) if m in moved), key=lambda m: m not in found
        )[:MAX_PANELS]
        or sorted(moved)[:MAX_PANELS]
        or summary["metrics"][:1]
    )
    fig, axes = plt.subplots(
        1, len(panels), figsize=(4.2 * len(panels), 0.35 * top + 1.6), squeeze=False
    )
    for ax, metric in zip(axes[0], panels):
        rows = effects.filter(pl.col("metric") == metric).sort("rank").head(top).reverse()
        if rows.is_empty():
            ax.set_visible(False)
            continue
        y = np.arange(rows.height)
        mu = rows["mu_star"].to_numpy()
        err = np.clip(
            [mu - rows["mu_star_low"].to_numpy(), rows["mu_star_high"].to_numpy() - mu], 0, None
        )
        colours = ["C3" if s else "0.7" for s in rows["significant"]]
        ax.barh(y, mu, xerr=err, color=colours, ecolor="0.3", capsize=2)
        ax.set_yticks(y, rows["key"].to_list(), fontsize=7)
        ax.set_title(metric, fontsize=9)
        ax.set_xlabel("mean |change| over the key's range", fontsize=7)
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle(
        f"{summary['game']}: which keys move the balance (red: significant, Holm "
        f"{ALPHA:g}); {summary['runs']} runs x {summary['games_per_run']:,} games",
        fontsize=9,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def html_section(out: str | Path) -> str:
    """A self-contained HTML section of a sensitivity screen (title, ranked chart, table of
    the significant effects) for the playtest report."""
    import base64
    from html import escape

    import polars as pl

    summary, effects = read(out)
    image = base64.b64encode((Path(out) / "sensitivity.png").read_bytes()).decode("ascii")
    keys = [f["key"] for f in summary["factors"]]
    found = effects.filter(pl.col("significant")).sort("metric", "rank")
    rows = "".join(
        f"<tr><td>{escape(r['metric'])}</td><td>{escape(r['key'])}</td><td>{r['mu_star']:.4g}</td>"
        f"<td>{r['mu_star_low']:.4g}–{r['mu_star_high']:.4g}</td><td>{r['mu']:+.4g}</td>"
        f"<td>{r['p_holm']:.2g}</td></tr>"
        for r in found.iter_rows(named=True)
    )
    robust = [m for m, ks in dependencies(out).items() if not ks]
    skipped = "".join(
        f"<li>{escape(s['key'])}: {escape(s['reason'])}</li>" for s in summary["skipped"]
    )
    return (
        f"<section class='sensitivity'><h2>Sensitivity: {escape(summary['game'])}, "
        f"{len(keys)} keys</h2>"
        f"<p>Morris screening ({summary['trajectories']} trajectories, {summary['runs']} runs of "
        f"{summary['games_per_run']:,} games on the same seeds; line-up "
        f"{escape(', '.join(summary['lineup']))}). Keys: {escape(', '.join(keys))}. An effect is "
        f"the mean absolute change of the metric when the key moves across its range; "
        f"significant means beyond the games' noise (Holm-corrected p &lt; {ALPHA:g}).</p>"
        f"<img alt='ranked effects' style='max-width:100%' src='data:image/png;base64,{image}'>"
        + (
            f"<table><tr><th>metric</th><th>key</th><th>effect</th><th>95% CI</th>"
            f"<th>mean change</th><th>Holm p</th></tr>{rows}</table>"
            if rows
            else "<p>No key moves any metric beyond the noise.</p>"
        )
        + (f"<p>Robust to every key screened: {escape(', '.join(robust))}.</p>" if robust else "")
        + (f"<p>Not screened:</p><ul>{skipped}</ul>" if skipped else "")
        + "</section>"
    )
