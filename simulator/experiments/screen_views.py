"""How a sensitivity screen's effects read in words: one key's effect, one metric's verdicts
(the ranked chart is the report layer's: :mod:`simulator.report.tool_charts`)."""

from __future__ import annotations

from simulator.core.verdicts import EFFECT, INCONCLUSIVE, NO_EFFECT


def show(metric: str, value: float) -> str:
    """A change of a metric in its units: points of a rate, else the number."""
    if metric == "length" or (metric.startswith("max_") and metric.endswith("_share")):
        return f"{value:+.3g}".replace("-", "−")
    return f"{100 * value:+.1f} points".replace("-", "−")


def effect_text(r: dict) -> str:
    """One key's effect on one metric: ``K (+3.1 points over its range, 95% CI ...)``; a
    number whose changes go both ways (its mean change's interval holding 0) by its mean
    absolute change."""
    metric = r["metric"]
    if r["kind"] == "numbers" and r["low"] <= 0 <= r["high"]:
        size = show(metric, r["mu_star"]).lstrip("+")
        return f"{r['key']} (moves it by {size} on average over its range, either way)"
    what = "over its range" if r["kind"] == "numbers" else f"with {r['alternative']}"
    low, high = (show(metric, r[end]).removesuffix(" points") for end in ("low", "high"))
    return f"{r['key']} ({show(metric, r['effect'])} {what}, 95% CI {low} to {high})"


def metric_line(rows: dict[str, dict]) -> str:
    """What a screen says about one metric: the keys it depends on, how many keys show no
    effect beyond their margin, and how many are inconclusive with what they could detect."""
    effects = [r for r in rows.values() if r["verdict"] == EFFECT]
    none = [r for r in rows.values() if r["verdict"] == NO_EFFECT]
    unclear = [r for r in rows.values() if r["verdict"] == INCONCLUSIVE]
    parts = ["depends on " + ", ".join(effect_text(r) for r in effects)] if effects else []
    if none:
        limit = show(none[0]["metric"], none[0]["margin"]).lstrip("+")
        parts.append(f"{len(none)} keys no effect beyond ±{limit}")
    if unclear:
        worst = max(r["detectable"] for r in unclear)
        parts.append(
            f"{len(unclear)} inconclusive (could detect about "
            f"±{show(unclear[0]['metric'], worst).lstrip('+')})"
        )
    return "; ".join(parts) or "no key screened"
