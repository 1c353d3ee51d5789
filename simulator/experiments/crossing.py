"""Where a metric crosses its target: an interval for the rule value, from a race's games.

``balsim fit`` races candidate values of one key on common games; its confidence set lists
the values whose own interval holds the target, and is empty when the balance lies between
two candidates on a steep metric (every candidate is shown to miss).  The crossing point is
found instead by **inverse regression**: a straight line of the metric on the key, fitted to
the raced candidates next to the target, solved for the target.

* **Which candidates.**  The candidates whose interval holds the target and the nearest one
  on each side of them; when none holds it, the two neighbours between which the metric
  changes side of the target (the pair whose estimates are fewest standard errors off it).
  A line is a fair local model only near the crossing, and the race gives those candidates
  the most games.
* **The line and its errors.**  Least squares weighted by each candidate's games.  Every
  candidate played the same leading games of the race (common random numbers: the race plays
  every candidate still racing on the same new ids), so their estimates are correlated; the
  covariance is the cluster-robust one by game, from each game's influence on each estimate
  (:class:`~simulator.experiments.metrics.Estimate` ``psi``): ``cov(m_i, m_j) = sum over the
  games both played of psi_ig psi_jg / (n_i n_j)``, and the line's covariance the sandwich
  ``A V A'``.
* **Fieller's interval** for the crossing ``x* = (target - a) / b``: every x at which the
  fitted metric ``a + b x`` is not significantly off the target, ``(a + b x - target)^2 <=
  z^2 var(a + b x)``.  Why not the delta method: ``x*`` is a ratio whose denominator, the
  slope, can be small next to its error (a flat metric), and then the delta method's
  symmetric interval is far too short; Fieller's inverts a test instead, so it keeps its level
  for any slope, and says so when the slope is not shown to differ from zero: the interval
  is then unbounded (the crossing cannot be placed with these games).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from simulator.core.verdicts import ALPHA, z
from simulator.experiments.metrics import Estimate

BOUNDED, UNBOUNDED, OUTSIDE = "bounded", "unbounded", "outside"
METHOD = "inverse regression, cluster-robust by game, Fieller interval"


@dataclass
class Crossing:
    """Where the metric crosses the target along ``key`` (95% Fieller interval)."""

    key: str
    kind: str  # BOUNDED; UNBOUNDED: the slope is not shown to differ from 0; OUTSIDE: no side
    # change among the values raced (``value`` is then the nearest one)
    value: float  # the crossing's estimate
    low: float  # the interval's ends (-inf / inf when unbounded)
    high: float
    used: list[float]  # the candidate values the line was fitted to
    slope: float = float("nan")  # the metric's change per unit of the key
    slope_se: float = float("nan")
    level: float = 1 - ALPHA
    method: str = METHOD

    def text(self) -> str:
        """One sentence: 'It crosses the target between 12.3 and 12.7 (...)'."""
        at = " and ".join(", ".join(f"{v:g}" for v in self.used).rsplit(", ", 1))
        if self.kind == OUTSIDE:
            return (
                f"No value of {self.key} raced puts the metric on both sides of the target "
                f"(the nearest is {self.value:g}): it crosses it outside the values tried, "
                f"if at all"
            )
        if self.kind == UNBOUNDED:
            return (
                f"Where it crosses the target cannot be placed with these games: the metric's "
                f"slope over {self.key} = {at} is not shown to differ from zero "
                f"({self.slope:+.3g} per unit, standard error {self.slope_se:.2g}; the "
                f"{self.level:.0%} Fieller interval is unbounded)"
            )
        return (
            f"It crosses the target between {self.key} = {self.low:.4g} and {self.high:.4g} "
            f"(at {self.value:.4g}; {self.level:.0%} Fieller interval, inverse regression "
            f"on the race's games at {at})"
        )

    def covers(self, x: float) -> bool:
        return self.kind != OUTSIDE and self.low <= x <= self.high

    def record(self) -> dict:
        out = asdict(self)
        for name in ("low", "high", "slope", "slope_se", "value"):
            out[name] = finite_or_none(out[name])
        return out


def finite_or_none(x: float):
    """A number for JSON: None for an infinite or missing one."""
    return float(x) if math.isfinite(x) else None


def crossing(key: str, points: list[tuple[float, Estimate, float]], target: float) -> Crossing:
    """The crossing of ``target`` along ``key`` from raced candidates ``(value, estimate,
    standard error)``: each estimate's ``psi`` covers the leading games of one common sequence
    (see the module docstring)."""
    points = sorted((p for p in points if math.isfinite(p[1].value)), key=lambda p: p[0])
    window = near_target(points, target)
    if window is None:
        nearest = min(points, key=lambda p: abs(p[1].value - target))
        return Crossing(key, OUTSIDE, float(nearest[0]), math.nan, math.nan, [float(nearest[0])])
    chosen = [points[i] for i in window]
    x = np.array([p[0] for p in chosen], dtype=float)
    if len(set(x)) < 2:  # one value raced: no line
        return Crossing(key, UNBOUNDED, math.nan, -math.inf, math.inf, [float(x[0])])
    m = np.array([p[1].value for p in chosen])
    (a, b), cov = line(x, m, covariance([p[1] for p in chosen], [p[2] for p in chosen]), chosen)
    centre = float(np.average(x, weights=[p[1].n for p in chosen]))
    low, high, kind = fieller(a - target, b, cov, z(1 - ALPHA / 2))
    estimate = centre - (a - target) / b if b != 0 else math.nan
    return Crossing(
        key,
        kind,
        float(estimate),
        centre + low,
        centre + high,
        [float(v) for v in x],
        float(b),
        float(math.sqrt(max(cov[1, 1], 0.0))),
    )


def near_target(points, target: float) -> list[int] | None:
    """Indices (sorted by value) of the candidates to fit: those whose interval holds the
    target and their neighbours, else the closest pair that changes side; None when the
    metric stays on one side of the target at every value raced."""
    z95 = z(1 - ALPHA / 2)
    off = [(p[1].value - target) / p[2] if p[2] > 0 else math.inf for p in points]
    holding = [i for i, o in enumerate(off) if abs(o) <= z95]
    if holding:
        return list(range(max(holding[0] - 1, 0), min(holding[-1] + 2, len(points))))
    changes = [i for i in range(len(points) - 1) if np.sign(off[i]) != np.sign(off[i + 1])]
    if not changes:
        return None
    i = min(changes, key=lambda i: max(abs(off[i]), abs(off[i + 1])))
    return [i, i + 1]


def covariance(estimates: list[Estimate], ses: list[float]) -> np.ndarray:
    """The estimates' covariance, cluster-robust by game: ``sum psi_ig psi_jg / (n_i n_j)``
    over the games both played (the leading ones of one sequence); each variance is the
    verdict's standard error squared (which gives a rate seen 0 or n times its binomial
    spread)."""
    k = len(estimates)
    v = np.empty((k, k))
    for i, ei in enumerate(estimates):
        for j, ej in enumerate(estimates):
            if i == j:
                v[i, j] = ses[i] ** 2
                continue
            common = min(ei.n, ej.n)
            psi = np.nan_to_num(ei.psi[:common]) @ np.nan_to_num(ej.psi[:common])
            v[i, j] = psi / (ei.n * ej.n)
    return v


def line(x: np.ndarray, m: np.ndarray, v: np.ndarray, points) -> tuple[np.ndarray, np.ndarray]:
    """(intercept at the games-weighted mean of x, slope) by least squares weighted by each
    candidate's games, and their sandwich covariance ``A V A'``."""
    w = np.array([p[1].n for p in points], dtype=float)
    xc = x - np.average(x, weights=w)
    design = np.column_stack([np.ones_like(xc), xc])
    weighted = design.T * w
    a = np.linalg.solve(weighted @ design, weighted)  # (X'WX)^-1 X'W
    return a @ m, a @ v @ a.T


def fieller(intercept: float, slope: float, cov: np.ndarray, zq: float) -> tuple[float, float, str]:
    """The x (centred) where ``intercept + slope x`` is within ``zq`` standard errors of 0:
    (low, high, BOUNDED) when the slope is significant, else (-inf, inf, UNBOUNDED)."""
    z2 = zq * zq
    qa = slope * slope - z2 * cov[1, 1]
    qb = 2 * (intercept * slope - z2 * cov[0, 1])
    qc = intercept * intercept - z2 * cov[0, 0]
    disc = qb * qb - 4 * qa * qc
    if qa <= 0 or disc < 0:
        return -math.inf, math.inf, UNBOUNDED
    root = math.sqrt(disc)
    return (-qb - root) / (2 * qa), (-qb + root) / (2 * qa), BOUNDED
