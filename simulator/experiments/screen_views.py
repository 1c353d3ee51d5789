"""How a sensitivity screen's effects read: in words (one key's effect, one metric's verdicts)
and as the ranked chart written into the screen's folder."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from simulator.core.verdicts import EFFECT, INCONCLUSIVE, NO_EFFECT

HEADLINE = (
    "first_player_edge",
    "max_policy_share",
    "max_character_share",
    "starting_team_edge",
    "length",
    "round_cap_rate",
)  # the chart's panels, where the game has them
MAX_PANELS = 4
COLOURS = {EFFECT: "C3", NO_EFFECT: "C0", INCONCLUSIVE: "0.7"}


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


def headline(metrics: list[str]) -> list[str]:
    return [m for m in HEADLINE if m in metrics]


def chart(effects, summary: dict, path: Path, top: int = 10) -> None:
    """One panel per headline metric (those a key moves significantly first): the keys ranked
    by size, each effect with its 95% interval, coloured by verdict, the margin shaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import polars as pl

    moved = set(effects.filter(pl.col("size") > 0)["metric"].to_list()) if effects.height else set()
    found = set(effects.filter(pl.col("significant"))["metric"].to_list()) if moved else set()
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
        rows = (
            effects.filter(pl.col("metric") == metric).sort("rank").head(top).reverse()
            if effects.height
            else effects
        )
        if rows.is_empty():
            ax.set_visible(False)
            continue
        y = np.arange(rows.height)
        effect = rows["effect"].to_numpy()
        err = np.clip([effect - rows["low"].to_numpy(), rows["high"].to_numpy() - effect], 0, None)
        colours = [COLOURS[v] for v in rows["verdict"]]
        margin = rows["margin"][0]
        ax.axvspan(-margin, margin, color="0.92", zorder=0)
        ax.barh(y, effect, xerr=err, color=colours, ecolor="0.3", capsize=2)
        ax.set_yticks(y, rows["key"].to_list(), fontsize=7)
        ax.set_title(metric, fontsize=9)
        ax.set_xlabel("change over the key's range (shaded: the margin)", fontsize=7)
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle(
        f"{summary['game']} at {summary['n_players']} players: which keys move the balance "
        f"(red: an effect, blue: none beyond the margin, grey: inconclusive); "
        f"{summary['games']:,} games",
        fontsize=9,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
