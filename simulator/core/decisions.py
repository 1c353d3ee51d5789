"""Decisions on a rule's values: keep the printed one, change to another, or say why not
(DESIGN.md "Verdicts", docs/analysis.md "Decisions").

A question asks about *subjects* (the policies of a line-up, the starting team, the president
of the most valuable company) and measures each one's **edge**: its win rate minus its fair
share, in points, one value per game, so the game is the unit.  A rule value is judged on
every subject at once (:class:`Balance`):

* **within** the margin when every subject's edge is shown within ±margin (an
  intersection–union test: each one's two one-sided tests; the value is balanced only if it is
  balanced for everybody, so the worst edge decides);
* **beyond** the margin when some subject's edge is shown outside it (its one-sided bound
  beyond +margin or below −margin);
* **not shown** either way otherwise.

One interval decides both: a subject's two-sided interval at level 1 - 2 a, where a is the
one-sided level of its tests; the value is within when every subject's interval lies inside
(-margin, +margin), beyond when one lies wholly outside.  ``a`` is the look's share of the
error (:func:`simulator.core.verdicts.spent_levels`) divided over the subjects (Bonferroni, so
that "beyond" errs for no subject more often than the look's share).

The decision (:func:`decide`) tests the printed value first, with the look's whole level;
only once it is shown beyond do the other values matter, and they share the level
(Bonferroni over them).  **Keep** needs the printed value shown within; **change** needs it
shown beyond and goes, among the values shown within, to the one with the smallest worst
edge (values whose worst edges do not differ significantly tie, and the nearest to the
printed value wins the tie); **none balanced** when every other value is shown beyond too.
A look stops the question once nothing more can change: the printed value kept, or shown
beyond with every other value shown one way or the other.

Across fields of players (:func:`agreement`), "depends on player strength" is a test of the
fields' difference (Cochran's Q over the fields' edges of each subject, Holm over the
subjects); "holds at every strength" needs every pair of fields' edges shown within the
margin of each other (each subject's differences, two one-sided tests); otherwise whether
the answer depends on strength is not decided.  The fields stop together (:func:`in_looks`)
and are compared at the share of the error spent at the look they stopped at, so the test
holds its level whichever look that is.

A field whose players are re-tuned for each value (the adapted field) plays several
independent adaptations (replicates); :func:`fold_replicates` counts the spread between them
as a random effect, its variance pooled over the question's values, so an adaptation's luck
widens the intervals instead of reading as an effect.

The error rates of these rules on known truths are measured by ``bench/decisions.py``
(``make decisions``) and written to ``bench/results/decisions.csv``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

import numpy as np

from simulator.core.verdicts import ALPHA, POWER, spent, spent_levels, z


def last_look_alpha() -> float:
    """The share of the error the last of doubling looks tests at: what more games would be
    judged with (0.044 of 0.05).  A function, not a constant, so that importing this module
    does not import scipy (about 1 s of every command's start)."""
    return ALPHA - spent(0.5)


class Side(str, Enum):
    """Where a value's edges lie against the margin."""

    WITHIN = "within"
    BEYOND = "beyond"
    UNSHOWN = "not shown"
    EMPTY = "no games"  # no game measures it (e.g. nobody presides when presiding costs)

    def __str__(self) -> str:
        return self.value


class Choice(str, Enum):
    """A question's decision."""

    KEEP = "keep"  # the printed value is shown within the margin
    CHANGE = "change"  # it is shown beyond, and the chosen value within
    NONE = "none balanced"  # it is shown beyond, and so is every other value tried
    UNBALANCED = "unbalanced"  # it is shown beyond; no other value is shown within yet
    UNDECIDED = "undecided"  # it is shown neither within nor beyond

    def __str__(self) -> str:
        return self.value


class Strength(str, Enum):
    """Whether a question's answer depends on the field of players."""

    HOLDS = "holds at every strength"
    DEPENDS = "depends on player strength"
    UNDECIDED = "strength dependence not decided"

    def __str__(self) -> str:
        return self.value


@lru_cache(maxsize=None)
def quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (normal when inf)."""
    if math.isinf(df):
        return z(p)
    from scipy.stats import t

    return float(t.ppf(p, df))


@dataclass(frozen=True)
class Edge:
    """One subject's edge over its fair share in one value: the mean over ``games`` of a
    per-game value, with its standard error; ``df``: the degrees of freedom of that error
    (inf for a mean over games; finite when it includes an estimated spread between
    adaptations, :func:`fold_replicates`)."""

    subject: str
    estimate: float
    se: float
    games: int
    df: float = math.inf

    @property
    def measured(self) -> bool:
        return self.games > 0 and math.isfinite(self.estimate)

    def interval(self, alpha: float) -> tuple[float, float]:
        """The two-sided (1 - 2 alpha) interval: each end a one-sided bound at ``alpha``."""
        if not (self.measured and math.isfinite(self.se) and self.se > 0):
            return -math.inf, math.inf
        half = quantile(1 - alpha, self.df) * self.se
        return self.estimate - half, self.estimate + half

    def record(self, alpha: float) -> dict:
        low, high = self.interval(alpha)
        return {
            "subject": self.subject,
            "edge": self.estimate,
            "low": low,
            "high": high,
            "se": self.se,
            "games": self.games,
        }


def edge_of(subject: str, values) -> Edge:
    """A subject's edge from its per-game values (NaN where a game does not measure it)."""
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    if len(x) == 0:
        return Edge(subject, math.nan, math.nan, 0)
    se = float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else math.nan
    return Edge(subject, float(x.mean()), se, len(x))


@dataclass(frozen=True)
class Balance:
    """One value's subjects judged against ``margin``, each test at one-sided level
    ``alpha`` (its interval at 1 - 2 alpha)."""

    value: str
    edges: tuple[Edge, ...]
    margin: float
    alpha: float

    @property
    def level(self) -> float:
        return 1 - 2 * self.alpha

    @property
    def worst(self) -> Edge:
        """The subject farthest from its fair share (the value's balance figure)."""
        measured = [e for e in self.edges if e.measured]
        return max(measured or self.edges, key=lambda e: abs(e.estimate) if e.measured else -1)

    @property
    def side(self) -> Side:
        if not any(e.measured for e in self.edges):
            return Side.EMPTY
        bounds = [e.interval(self.alpha) for e in self.edges if e.measured]
        if any(low > self.margin or high < -self.margin for low, high in bounds):
            return Side.BEYOND
        if all(e.measured for e in self.edges) and all(
            -self.margin < low and high < self.margin for low, high in bounds
        ):
            return Side.WITHIN
        return Side.UNSHOWN

    def record(self) -> dict:
        return {
            "side": self.side.value,
            "worst": self.worst.subject,
            "level": self.level,
            "edges": [e.record(self.alpha) for e in self.edges],
        }


@dataclass(frozen=True)
class Decision:
    """What a question decided at one look: ``kind``, the value kept or changed to
    (``chosen``), every value's balance (the printed one first) and whether the question
    is settled (nothing more can change it)."""

    kind: Choice
    chosen: str | None
    balances: tuple[Balance, ...]
    settled: bool

    @property
    def printed(self) -> Balance:
        return self.balances[0]

    def balance(self, value: str) -> Balance:
        return next(b for b in self.balances if b.value == value)

    def record(self) -> dict:
        return {
            "decision": self.kind.value,
            "chosen": self.chosen,
            "settled": self.settled,
            "values": {b.value: b.record() for b in self.balances},
        }


def levels(look_alpha: float, n_subjects: int, n_values: int) -> tuple[float, float]:
    """(the printed value's, every other value's) one-sided level per subject at a look whose
    share of the error is ``look_alpha``."""
    printed = look_alpha / max(n_subjects, 1)
    return printed, printed / max(n_values - 1, 1)


def decide(
    edges: dict[str, list[Edge]],
    margin: float,
    look_alpha: float,
    nearness: list[str],
    broken: frozenset[str] = frozenset(),
) -> Decision:
    """The decision at one look (module doc).  ``edges``: each value's subjects' edges, the
    printed value first; ``look_alpha``: the look's share of the error; ``nearness``: the
    other values, the nearest to the printed one first (for ties); ``broken``: values that
    break the game, never chosen however their edges lie."""
    names = list(edges)
    n_subjects = max(len(e) for e in edges.values())
    first, others = levels(look_alpha, n_subjects, len(names))
    balances = tuple(
        Balance(n, tuple(edges[n]), margin, first if i == 0 else others)
        for i, n in enumerate(names)
    )
    printed, rest = balances[0], balances[1:]
    if printed.side == Side.WITHIN:
        return Decision(Choice.KEEP, printed.value, balances, True)
    if printed.side != Side.BEYOND:
        return Decision(Choice.UNDECIDED, None, balances, False)
    candidates = [b for b in rest if b.value not in broken]
    settled = all(b.side != Side.UNSHOWN for b in candidates)
    within = [b for b in candidates if b.side == Side.WITHIN]
    if within:
        return Decision(Choice.CHANGE, best(within, others, nearness).value, balances, settled)
    if rest and all(b.side in (Side.BEYOND, Side.EMPTY) for b in candidates):
        return Decision(Choice.NONE, None, balances, True)
    return Decision(Choice.UNBALANCED, None, balances, settled)


def best(within: list[Balance], alpha: float, nearness: list[str]) -> Balance:
    """The value with the smallest worst edge; values whose worst edge is not significantly
    larger than the smallest tie, and the nearest to the printed value among them wins."""
    top = min(within, key=lambda b: abs(b.worst.estimate))
    w = top.worst

    def ties(b: Balance) -> bool:
        gap = abs(b.worst.estimate) - abs(w.estimate)
        se = math.hypot(wide_se(b.worst, 1 - alpha), wide_se(w, 1 - alpha))
        return gap <= z(1 - alpha) * se

    tied = [b for b in within if ties(b)]
    return min(tied, key=lambda b: nearness.index(b.value) if b.value in nearness else 0)


def in_looks(sizes: list[int], judges: list) -> tuple[list[Decision], int]:
    """Judge the cumulative ``sizes`` in turn, each at its share of the error
    (:func:`simulator.core.verdicts.spent_levels`), until every judge's decision is settled:
    ``judge(n, look_alpha)`` plays (or reads) the first ``n`` games per value of one field and
    decides.  The fields stop together, at the same look, because :func:`agreement` compares
    them: a field that stopped alone, on the look where its own luck settled it, would bring an
    edge nearer its decision's side than its interval says, and the fields would seem to
    differ more often than the test's level (bench/decisions.py measured 5.5% for 5% when each
    field stopped on its own).  Returns the last decisions and the index of their look."""
    shares = spent_levels(sizes)
    for look in range(len(sizes)):
        decisions = [judge(sizes[look], shares[look]) for judge in judges]
        if all(d.settled for d in decisions):
            break
    return decisions, look


# ---- more games -----------------------------------------------------------------------------


def games_needed(edge: Edge, margin: float, alpha: float, power: float = POWER) -> float:
    """The games that would show ``edge`` within the margin (or beyond it, when it lies
    beyond) with probability ``power`` if its true value were today's estimate, at one-sided
    level ``alpha``; inf when the estimate is the margin itself or nothing is measured."""
    if not (edge.measured and edge.games > 1 and math.isfinite(edge.se)):
        return math.inf
    gap = abs(margin - abs(edge.estimate))
    if gap == 0:
        return math.inf
    sd = wide_se(edge, 1 - alpha) * math.sqrt(edge.games)
    return ((z(1 - alpha) + z(power)) * sd / gap) ** 2


def games_to_decide(balance: Balance, margin: float, alpha: float) -> float:
    """The games per value that would settle ``balance`` (every subject shown within, or its
    worst shown beyond) at today's estimates and spread."""
    worst = balance.worst
    if worst.measured and abs(worst.estimate) > margin:
        return games_needed(worst, margin, alpha)
    return max((games_needed(e, margin, alpha) for e in balance.edges), default=math.inf)


# ---- replicates of an adapted field ---------------------------------------------------------


def fold_replicates(means: np.ndarray, variances: np.ndarray) -> tuple[np.ndarray, ...]:
    """Each value's estimate, standard error and degrees of freedom over its replicates, with
    the spread between replicates as a random effect: ``means[v, r]`` and ``variances[v, r]``
    (the squared standard errors) of value v's replicate r (NaN where a replicate measured
    nothing).

    The between-replicate variance tau^2 is the DerSimonian–Laird estimate pooled over the
    values (each value's Cochran Q and its degrees of freedom summed), since three replicates
    of one value could not estimate it; each value's estimate is the inverse-variance mean
    with weights 1 / (se_r^2 + tau^2).  Its standard error is Hartung and Knapp's, pooled the
    same way: scaled by the replicates' weighted spread around their values' means when that
    is larger than the weights expect (never smaller), with Student's t on the pooled degrees
    of freedom.  Why: with three values of three adaptations the plain random-effects interval
    covered 88% for its 95% (tau^2 is often estimated as 0); this one covers about 95%
    (tests/test_decisions.py)."""
    means = np.asarray(means, dtype=np.float64)
    variances = np.asarray(variances, dtype=np.float64)
    ok = np.isfinite(means) & np.isfinite(variances) & (variances > 0)
    var = np.where(ok, variances, 1.0)
    x = np.where(ok, means, 0.0)

    def weighted_mean(w):
        total = w.sum(axis=1)
        return np.where(total > 0, (w * x).sum(axis=1) / np.maximum(total, 1e-300), np.nan), total

    def spread(w, centre):
        return (w * np.where(ok, (x - np.nan_to_num(centre)[:, None]) ** 2, 0)).sum()

    w = np.where(ok, 1 / var, 0.0)
    fixed, w_sum = weighted_mean(w)
    df = float(np.maximum(ok.sum(axis=1) - 1, 0).sum())
    c = (w_sum - np.where(w_sum > 0, (w**2).sum(axis=1) / np.maximum(w_sum, 1e-300), 0)).sum()
    tau2 = max(0.0, (spread(w, fixed) - df) / c) if df > 0 and c > 0 else 0.0
    w_re = np.where(ok, 1 / (var + tau2), 0.0)
    estimate, total = weighted_mean(w_re)
    scale = max(1.0, spread(w_re, estimate) / df) if df > 0 else 1.0
    se = np.where(total > 0, np.sqrt(scale / np.maximum(total, 1e-300)), np.nan)
    dof = np.full(len(means), df if df > 0 else math.inf)
    return estimate, se, dof


def replicate_edges(
    subject: str, values: list[np.ndarray], replicates: list[np.ndarray]
) -> list[Edge]:
    """One subject's edge in each value over the replicates that played it: ``values[v]``
    its per-game values in value v, ``replicates[v]`` each game's replicate."""
    reps = np.unique(np.concatenate(replicates)) if replicates else np.array([])
    means = np.full((len(values), len(reps)), np.nan)
    variances = np.full_like(means, np.nan)
    games = np.zeros(len(values), dtype=np.int64)
    for i, (x, rep) in enumerate(zip(values, replicates)):
        for j, r in enumerate(reps):
            e = edge_of(subject, x[rep == r])
            means[i, j], variances[i, j] = e.estimate, e.se**2
            games[i] += e.games
    estimate, se, dof = fold_replicates(means, variances)
    return [
        Edge(subject, float(m), float(s), int(g), float(d))
        if g
        else Edge(subject, math.nan, math.nan, 0)
        for m, s, g, d in zip(estimate, se, games, dof)
    ]


# ---- across fields --------------------------------------------------------------------------


@dataclass(frozen=True)
class Agreement:
    """Whether the fields' edges of one value differ: ``kind``; ``p_values`` per subject
    (Cochran's Q, Holm-adjusted); ``largest``: the largest difference between two fields'
    edges of one subject, in the subject's units; ``alpha``: the level it was tested at."""

    kind: Strength
    p_values: dict[str, float]
    largest: float
    alpha: float = ALPHA

    def record(self) -> dict:
        return {
            "strength": self.kind.value,
            "q_p_holm": self.p_values,
            "largest": self.largest,
            "strength_level": self.alpha,
        }


def wide_se(e: Edge, p: float) -> float:
    """An edge's standard error widened so that the normal ``p`` quantile gives its t one:
    how an adapted field's edges (finite df) enter a test built on normal quantiles."""
    return e.se * quantile(p, e.df) / z(p)


def agreement(fields: list[list[Edge]], margin: float, alpha: float = ALPHA) -> Agreement:
    """Whether one value's edges differ between fields: ``fields[f]`` lists field f's edges,
    subject by subject in the same order (module doc), at level ``alpha``: in looks, the
    share of the error spent at the look where the fields stopped (:func:`in_looks`), so that
    the test holds its level whatever look the decisions stop at."""
    from scipy.stats import chi2

    from simulator.core.stats import holm

    subjects = [e.subject for e in fields[0]]
    raw, largest, holds = [], 0.0, True
    for s in range(len(subjects)):
        edges = [f[s] for f in fields if f[s].measured and f[s].se > 0]
        if len(edges) < 2:
            raw.append(math.nan)
            holds = False
            continue
        est = np.array([e.estimate for e in edges])
        # widened at the first Holm step's level, where a finite df's tail matters most
        w = 1 / np.array([wide_se(e, 1 - alpha / (2 * len(subjects))) for e in edges]) ** 2
        q = float((w * (est - (w * est).sum() / w.sum()) ** 2).sum())
        raw.append(float(chi2.sf(q, len(edges) - 1)))
        for i in range(len(edges)):
            for j in range(i + 1, len(edges)):
                d = edges[i].estimate - edges[j].estimate
                se = math.hypot(wide_se(edges[i], 1 - alpha), wide_se(edges[j], 1 - alpha))
                half = z(1 - alpha) * se
                largest = max(largest, abs(d))
                holds &= abs(d) + half < margin
        holds &= len(edges) == len(fields)
    tested = [p for p in raw if math.isfinite(p)]
    adjusted = iter(holm(tested)) if tested else iter(())
    p_values = {
        s: (float(next(adjusted)) if math.isfinite(p) else math.nan) for s, p in zip(subjects, raw)
    }
    if any(p < alpha for p in p_values.values() if math.isfinite(p)):
        kind = Strength.DEPENDS
    elif holds:
        kind = Strength.HOLDS
    else:
        kind = Strength.UNDECIDED
    return Agreement(kind, p_values, largest, alpha)
