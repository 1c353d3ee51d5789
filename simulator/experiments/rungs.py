"""A tool's findings at several rungs of the ladder: does each hold at every strength?

``sweep`` and ``fit`` with several fields in ``--field`` answer once per field, then say for
each finding whether it holds at every strength (the same decision at every rung), depends on
player strength (opposite decisions, each rung's numbers shown), or is inconclusive at a rung
(that rung could not decide).  A policy is named differently on each rung (``scholar``,
``scholar_tuned``, ``scholar_adapted``): findings about it are matched by its scripted name.
"""

from __future__ import annotations

import polars as pl

from simulator.experiments.adapt import ADAPTED_SUFFIX
from simulator.experiments.crossing import BOUNDED
from simulator.experiments.fit import FitResult, listed
from simulator.experiments.strength import TUNED_SUFFIX

COPY_SUFFIXES = (TUNED_SUFFIX, ADAPTED_SUFFIX)  # a scripted policy's knob sets on the rungs


def scripted_name(name: str) -> str:
    """The scripted policy a rung's copy plays (``policy=scholar_tuned`` -> ``policy=scholar``)."""
    for suffix in COPY_SUFFIXES:
        name = name.removesuffix(suffix)
    return name


def sweep_lines(tables: dict[str, pl.DataFrame], limit: int = 8) -> list[str]:
    """Each change a sweep's paired table calls significant (Holm) at some rung, with its
    change at every rung and whether it holds at every strength: significant with one sign at
    every rung; depends on player strength when significant with opposite signs; else
    inconclusive at the rungs where it is not significant.  ``tables``: field -> the table of
    :func:`simulator.analysis.paired.paired_differences`; the largest changes first."""
    rows: dict[tuple, dict[str, dict]] = {}
    for field, table in tables.items():
        if table.is_empty():
            continue
        for r in table.iter_rows(named=True):
            key = (r["variant"], r["metric"], scripted_name(r["group"]))
            rows.setdefault(key, {})[field] = r
    found = [(key, by) for key, by in rows.items() if any(r["significant"] for r in by.values())]
    found.sort(key=lambda kb: -max(abs(r["mean_diff"]) for r in kb[1].values()))
    lines = [f"Over the fields ({', '.join(tables)}): {len(found)} change(s) significant at a rung"]
    for (variant, metric, group), by in found[:limit]:
        signs = {r["mean_diff"] > 0 for r in by.values() if r["significant"]}
        missing = [f for f in tables if f not in by or not by[f]["significant"]]
        if len(signs) > 1:
            verdict = "depends on player strength"
        elif missing:
            verdict = f"inconclusive at {', '.join(missing)}"
        else:
            verdict = "holds at every strength"
        each = "; ".join(f"{f} {change_text(by.get(f))}" for f in tables)
        lines.append(f"  {variant}: {metric} {group}: {verdict} ({each})")
    return lines


def change_text(r: dict | None) -> str:
    if r is None:
        return "not measured"
    shown = f"{r['mean_diff']:+.3g} (95% CI {r['diff_lo']:.3g} .. {r['diff_hi']:.3g})"
    return shown if r["significant"] else f"{shown}, not significant"


def fit_line(results: dict[str, FitResult]) -> str:
    """Whether a fit depends on player strength, from where each field's metric crosses its
    target (:mod:`simulator.experiments.crossing`): it depends when two fields' crossing
    intervals do not overlap (the crossings differ); otherwise it is not decided (an overlap
    is no test of sameness).  Then each field's chosen value, held-out verdict, crossing and
    confidence set."""
    each = "; ".join(
        f"{field}: chosen {', '.join(f'{k} = {v:g}' for k, v in r.best.items())} "
        f"({r.verdict.kind} on held-out games"
        + (f"; {r.readapted.verdict.kind} with the field re-adapted to it" if r.readapted else "")
        + f"), crossing {crossing_text(r)}, confidence set {listed(r.confidence_set)}"
        for field, r in results.items()
    )
    names = ", ".join(results)
    bounded = {
        f: r.crossing for f, r in results.items() if r.crossing and r.crossing.kind == BOUNDED
    }
    apart = [
        (a, b)
        for a in bounded
        for b in bounded
        if a < b and (bounded[a].high < bounded[b].low or bounded[b].high < bounded[a].low)
    ]
    if apart:
        pairs = ", ".join(f"{a} and {b}" for a, b in apart)
        return (
            f"Over the fields ({names}): depends on player strength: the metric crosses its "
            f"target at different values for {pairs} (their intervals do not overlap); {each}."
        )
    return (
        f"Over the fields ({names}): whether it depends on player strength is not decided "
        f"(no two fields' crossings are shown apart); {each}."
    )


def crossing_text(r: FitResult) -> str:
    c = r.crossing
    if c is None or c.kind != BOUNDED:
        return "not placed"
    return f"{c.low:.4g} to {c.high:.4g}"
