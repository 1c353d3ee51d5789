"""Three verdicts for every test that decides something (DESIGN.md "Verdicts").

An estimate with its standard error ends in one of:

* **no effect** of practical size: an equivalence test (TOST, two one-sided tests at level
  alpha) against a margin: the (1 - 2 alpha) interval lies inside ``reference +- margin``.
  "Balanced", "robust to the assumed values", "luck dominates" and "holds with strong
  players" are claims of this kind, so they need it;
* **an effect**: the (1 - alpha) interval excludes the reference; its size is the estimate;
* **inconclusive**: neither, with the smallest effect the sample could have detected (at
  80% power) so a reader knows what a "nothing found" could have seen.

An effect whose whole interval lies inside the margin is both real and too small to matter;
it is reported as no effect of practical size (with its interval), since the question a
verdict answers is whether a designer should act.

The tests are the normal-approximation ones (the intervals of the delta method and of means
over games); ``statsmodels.stats.weightstats.ztost`` gives the same TOST p-value on raw
samples (the tests check it).  Sequential answers look at their data in waves: with K planned
looks each test runs at alpha / K (Bonferroni over the looks), which keeps the chance of any
false verdict at or below alpha whatever the looks' correlation; :func:`spent_levels`
spends alpha over the looks instead (Lan–DeMets, O'Brien–Fleming type), keeping most of it for
the last look, where a decision is usually reached.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import Callable


class Kind(str, Enum):
    """The three verdicts, a closed set; each compares equal to its word ("no effect"), which
    is also how ``balsim.json`` and the datasets of the screens write it."""

    EFFECT = "effect"
    NO_EFFECT = "no effect"
    INCONCLUSIVE = "inconclusive"

    def __str__(self) -> str:
        return self.value


EFFECT, NO_EFFECT, INCONCLUSIVE = Kind.EFFECT, Kind.NO_EFFECT, Kind.INCONCLUSIVE
ALPHA = 0.05  # two-sided level of the effect test; each one-sided test of the TOST
POWER = 0.8  # the power at which the detectable effect is stated

# Default equivalence margins: what counts as "of practical size" for a designer
WIN_RATE_MARGIN = 0.02  # a win rate or an edge within 2 points of its reference
LENGTH_MARGIN = 0.5  # a game length within half a year, round or turn


def _norm():
    from scipy.stats import norm  # scipy is slow to import: only where a verdict is made

    return norm


@lru_cache(maxsize=None)  # a few levels, asked for by every verdict's interval
def z(level: float) -> float:
    """The standard normal quantile ``level`` (0.975 -> 1.96)."""
    return float(_norm().ppf(level))


@dataclass(frozen=True)
class Verdict:
    """What a test decided about ``estimate`` against ``reference`` (see the module doc)."""

    kind: Kind
    estimate: float
    se: float
    reference: float
    margin: float
    alpha: float = ALPHA

    @property
    def low(self) -> float:
        """The lower end of the (1 - alpha) interval."""
        return self.interval(1 - self.alpha)[0]

    @property
    def high(self) -> float:
        return self.interval(1 - self.alpha)[1]

    @property
    def detectable(self) -> float:
        """The smallest |effect| this sample detects with probability POWER at this alpha."""
        return (z(1 - self.alpha / 2) + z(POWER)) * self.se

    @property
    def decided(self) -> bool:
        return self.kind != INCONCLUSIVE

    @property
    def tost_p(self) -> float:
        """The TOST p-value: the larger of the two one-sided tests' p-values."""
        return tost_p(self.estimate, self.se, self.reference, self.margin)

    def record(self) -> dict:
        """The verdict as plain numbers (for ``balsim.json``)."""
        return {
            "verdict": Kind(self.kind).value,
            "estimate": self.estimate,
            "low": self.low,
            "high": self.high,
            "se": self.se,
            "reference": self.reference,
            "margin": self.margin,
            "detectable": self.detectable,
            "alpha": self.alpha,
        }

    def interval(self, level: float) -> tuple[float, float]:
        """The two-sided ``level`` interval of the estimate."""
        half = z(0.5 + level / 2) * self.se
        return self.estimate - half, self.estimate + half

    def describe(self, show: Callable[[float], str], name: str = "") -> str:
        """The verdict in words; ``show`` writes a difference from the reference (e.g.
        ``+1.2 points``).  A no-effect verdict shows the equivalence test's (1 - 2 alpha)
        interval, the one that lies inside the margin; the others the (1 - alpha) one."""
        level = 1 - 2 * self.alpha if self.kind == NO_EFFECT else 1 - self.alpha
        low, high = self.interval(level)
        shown = f"{name} {show(self.estimate - self.reference)}".strip()
        interval = (
            f"{100 * level:.3g}% CI {show(low - self.reference)} to {show(high - self.reference)}"
        )
        if self.kind == NO_EFFECT:
            return f"no effect beyond ±{show(self.margin).lstrip('+')} ({shown}, {interval})"
        if self.kind == EFFECT:
            return f"an effect of {shown} ({interval})"
        return (
            f"inconclusive ({shown}, {interval}): this sample could detect about "
            f"±{show(self.detectable).lstrip('+')}"
        )


def tost_p(estimate: float, se: float, reference: float, margin: float) -> float:
    """p-value of the two one-sided tests that the effect lies within ``reference +- margin``."""
    if not (se > 0 and math.isfinite(estimate)):
        return float("nan")
    norm = _norm()
    lower = norm.sf((estimate - (reference - margin)) / se)  # H0: effect <= -margin
    upper = norm.cdf((estimate - (reference + margin)) / se)  # H0: effect >= +margin
    return float(max(lower, upper))


def judge(
    estimate: float,
    se: float,
    margin: float,
    reference: float = 0.0,
    alpha: float = ALPHA,
) -> Verdict:
    """The verdict on ``estimate`` (with standard error ``se``) against ``reference``.

    ``margin`` is the half-width of "no effect of practical size"; ``alpha`` the level of
    each test (pass ``alpha / looks`` for a sequential design).  An estimate without a finite
    standard error is inconclusive."""
    kind = INCONCLUSIVE
    if se > 0 and math.isfinite(estimate) and math.isfinite(se):
        if tost_p(estimate, se, reference, margin) < alpha:
            kind = NO_EFFECT
        elif abs(estimate - reference) > z(1 - alpha / 2) * se:
            kind = EFFECT
    return Verdict(kind, float(estimate), float(se), float(reference), float(margin), alpha)


def judge_mean(values, margin: float, reference: float = 0.0, alpha: float = ALPHA) -> Verdict:
    """The verdict on the mean of independent values (e.g. one per game, or a paired
    difference per game)."""
    import numpy as np

    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    se = float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else float("nan")
    return judge(float(x.mean()) if len(x) else float("nan"), se, margin, reference, alpha)


def agree(verdicts: list[Verdict]) -> bool:
    """Whether verdicts decide the same way: all no effect, or all effects of one sign."""
    if not verdicts or any(not v.decided for v in verdicts):
        return False
    kinds = {v.kind for v in verdicts}
    if kinds == {NO_EFFECT}:
        return True
    return kinds == {EFFECT} and len({v.estimate > v.reference for v in verdicts}) == 1


# ---- sequential designs ---------------------------------------------------------------------


def looks(first: int, budget: int, growth: int = 2) -> list[int]:
    """Cumulative sample sizes of a sequential design: ``first``, then ``growth`` times the
    previous, up to ``budget`` (the last look is the budget itself)."""
    if first <= 0 or budget <= 0:
        raise ValueError("looks need a positive first wave and budget")
    sizes, n = [], min(first, budget)
    while n < budget:
        sizes.append(n)
        n *= growth
    return sizes + [budget]


def alpha_per_look(n_looks: int, alpha: float = ALPHA) -> float:
    """Each look's level so that any of ``n_looks`` looks errs with probability <= alpha."""
    return alpha / max(n_looks, 1)


def spent(fraction: float, alpha: float = ALPHA) -> float:
    """The error a one-sided test at level ``alpha`` has spent once ``fraction`` of its games
    are played: Lan and DeMets' O'Brien–Fleming-type function 2 (1 - Phi(z_(1-alpha/2) /
    sqrt(t))), which is 0 at t = 0 and ``alpha`` at t = 1, and spends almost nothing early
    (an eighth of the games: 3e-8 of 0.05)."""
    if fraction <= 0:
        return 0.0
    return float(2 * _norm().sf(z(1 - alpha / 2) / math.sqrt(min(fraction, 1.0))))


def spent_levels(sizes: list[int], alpha: float = ALPHA) -> list[float]:
    """Each look's level: the error spent between the previous look and this one, at the
    cumulative ``sizes`` (the last one the budget).  Testing each look at its own increment
    keeps the chance that any look errs at most ``alpha`` whatever the looks' correlation
    (Bonferroni over the looks, so valid without the group-sequential integrals, and close to
    them: the last of four doubling looks keeps 0.044 of 0.05)."""
    fractions = [n / sizes[-1] for n in sizes]
    total = [spent(t, alpha) for t in fractions]
    return [b - a for a, b in zip([0.0, *total], total)]
