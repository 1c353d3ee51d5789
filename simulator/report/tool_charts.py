"""The charts of the tools' folders (``balsim fit``, ``sensitivity``, ``matrix``, ``skill``),
in the report's palette and fonts (:mod:`simulator.report.charts`), with the metrics under
their plain names and units.

Each is drawn from what its folder holds, so the folder's own chart (``fit.svg`` and
``fit.png``, ``sensitivity.*``, ``matrix.*``, ``skill.*``), a ``--charts DIR`` copy named
after its section and the report's inline chart are the same picture.  The experiments hand
these functions the folder they are writing (``charts=`` of their ``write`` functions): they
compute, this layer draws.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from simulator.core.verdicts import EFFECT, INCONCLUSIVE, NO_EFFECT
from simulator.report.charts import BAR, LIGHT, PALETTE, save, share, slug, styled

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from simulator.experiments.fit import FitResult

VERMILLION, GREY = PALETTE[3], "#b3b3b3"
VERDICT_COLOURS = {EFFECT: VERMILLION, NO_EFFECT: BAR, INCONCLUSIVE: GREY}
# the screen chart's panels, where the game has them, in this order
HEADLINE = (
    "first_player_edge",
    "max_policy_share",
    "max_character_share",
    "starting_team_edge",
    "length",
    "round_cap_rate",
)
MAX_PANELS = 4
TOP_KEYS = 10  # keys per panel of the screen chart
GROUP_WORDS = {"seat": "seat", "policy": "", "character": "", "side": ""}
SIDES = {"starting": "the starting team", "other": "the other team"}


# ---- the metrics in words ---------------------------------------------------------------------


def metric_name(metric: str) -> str:
    """A metric's plain name with its unit: ``first_player_edge`` -> "first player's edge
    (points of win rate)", ``win_rate:seat=0`` -> "seat 0's win rate (%)"."""
    kind, _, subject = metric.partition(":")
    group, _, value = subject.partition("=")
    who = SIDES.get(value, f"{GROUP_WORDS.get(group, group)} {value}".strip())
    if kind.startswith("max_") and kind.endswith("_share"):
        return f"highest {kind[4:-6]} win rate ÷ fair share (1 = even)"
    named = {
        "win_rate": f"{who}'s win rate (%)",
        "score": f"{who}'s mean score",
        "outscore": f"other players {who} outscores (%)",
        "first_player_edge": "first player's edge (points of win rate)",
        "starting_team_edge": "starting team's edge over the other (points of win rate)",
        "length": "game length (years, rounds or turns)",
        "round_cap_rate": "games ended by the round cap (%)",
        "neighbour_excess": f"win rate after {who} over expected (points)",
        "presidency_edge": "presidency edge (points of win rate)",
        "loan_cap_binding": f"{who}'s players at the loan cap (%)",
        "delinquency_rate": f"{who}'s players with a delinquent notice (%)",
        "runaway_rate": "games won by the leader two thirds in (%)",
    }
    return named.get(kind, metric.replace("_", " "))


def scale(metric: str) -> float:
    """What a metric's values are multiplied by to be shown in its unit (percent, points)."""
    name = metric_name(metric)
    return 100.0 if "(%" in name or "(points" in name else 1.0


def change_unit(metric: str) -> str:
    """The unit of a change of the metric: points for rates and edges, else its own."""
    if scale(metric) == 100:
        return "points"
    return "years, rounds or turns" if metric == "length" else "× fair share"


# ---- fit --------------------------------------------------------------------------------------


@styled
def fit_chart(result: FitResult) -> Figure:
    """The metric against each key: the search's candidates as grey dots, the raced ones with
    their 95% intervals (filled: in the confidence set), the chosen value's held-out estimate
    ringed, the target as a dashed line; titled by the value chosen."""
    from matplotlib.figure import Figure

    k, f = result.keys, scale(result.metric)
    fig = Figure(figsize=(min(12.0, 4.6 * len(k) + 1.4), 3.8))
    axes = fig.subplots(1, len(k), squeeze=False)[0]
    for ax, key in zip(axes, (r.key for r in k)):
        searched = [
            e for e in result.evaluations if e.stage == "search" and np.isfinite(e.estimate.value)
        ]
        if searched:
            ax.scatter(
                [e.values[key] for e in searched],
                [f * e.estimate.value for e in searched],
                color=GREY,
                s=14,
                label=f"searched ({len(searched)})",
                zorder=3,
            )
        for in_set, fill in ((True, BAR), (False, "white")):
            shown = [e for e in result.raced if e.in_set == in_set]
            if not shown:
                continue
            x = np.array([e.values[key] for e in shown], dtype=float)
            y = f * np.array([e.estimate.value for e in shown])
            low, high = f * np.array([e.estimate.interval for e in shown]).T
            ax.errorbar(x, y, yerr=np.clip([y - low, high - y], 0, None), fmt="none", ecolor=BAR)
            what = "raced, in the 95% confidence set" if in_set else "raced, excluded"
            ax.scatter(x, y, s=34, facecolors=fill, edgecolors=BAR, label=f"{what} ({len(shown)})")
        ax.axhline(
            f * result.target,
            color=VERMILLION,
            linestyle="--",
            linewidth=1,
            label=f"target {f * result.target:g}",
        )
        ax.scatter(
            [result.best[key]],
            [f * result.estimate.value],
            s=150,
            facecolors="none",
            edgecolors=VERMILLION,
            linewidths=2,
            label="chosen, on held-out games",
            zorder=4,
        )
        ax.set_xlabel(f"rules key {key}")
        ax.set_ylabel(metric_name(result.metric))
        ax.grid(color=LIGHT)
    axes[0].legend(loc="best", fontsize=9)
    values = ", ".join(f"{key} = {v:g}" for key, v in result.best.items())
    fig.suptitle(
        f"{values} gives {f * result.estimate.value:.3g} (target {f * result.target:g})",
        fontsize=12,
        fontweight="bold",
    )
    fig.tight_layout()
    return fig


def fit_files(figure):
    """What ``fit``'s write calls with its folder: the chart (``fit_chart``'s figure, drawn
    once for the folder and ``--charts``) as ``fit.svg`` and ``fit.png``."""
    return lambda folder: save(figure, Path(folder), "fit")


def fit_chart_name(game: str, metric: str, field: str = "") -> str:
    """The chart's file name in ``--charts DIR``: its section, ``fit-GAME-METRIC[-FIELD]``."""
    return slug(f"fit {game} {metric} {field}")


# ---- sensitivity ------------------------------------------------------------------------------


def screen_panels(effects: pl.DataFrame, metrics: list[str]) -> list[str]:
    """The metrics drawn: the headline metrics a key moves (those with a significant effect
    first), else any the keys move, else the first."""
    moved = set(effects.filter(pl.col("size") > 0)["metric"].to_list()) if effects.height else set()
    found = set(effects.filter(pl.col("significant"))["metric"].to_list()) if moved else set()
    heads = [m for m in HEADLINE if m in metrics and m in moved]
    return (
        sorted(heads, key=lambda m: m not in found)[:MAX_PANELS]
        or sorted(moved)[:MAX_PANELS]
        or metrics[:1]
    )


@styled
def screen_chart(summary: dict, effects: pl.DataFrame) -> Figure:
    """One panel per metric drawn (:func:`screen_panels`): the keys ranked by the size of their
    effect, each with its 95% interval, coloured by verdict, the margin shaded."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    panels = screen_panels(effects, summary["metrics"])
    keys = max((effects.filter(pl.col("metric") == m).height for m in panels), default=1)
    fig = Figure(figsize=(min(13.0, 3.9 * len(panels) + 2.6), 0.34 * min(keys, TOP_KEYS) + 2.4))
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, metric in zip(axes, panels):
        rows = (
            effects.filter(pl.col("metric") == metric).sort("rank").head(TOP_KEYS).reverse()
            if effects.height
            else effects
        )
        if rows.is_empty():
            ax.set_visible(False)
            continue
        f, y = scale(metric), np.arange(rows.height)
        effect = f * rows["effect"].to_numpy()
        err = np.clip(
            [effect - f * rows["low"].to_numpy(), f * rows["high"].to_numpy() - effect], 0, None
        )
        margin = f * rows["margin"][0]
        ax.axvspan(-margin, margin, color="#eeeeee", zorder=0)
        ax.barh(
            y,
            effect,
            xerr=err,
            color=[VERDICT_COLOURS[v] for v in rows["verdict"]],
            ecolor="#333333",
            capsize=2,
        )
        ax.set_yticks(y, rows["key"].to_list(), fontsize=8)
        ax.set_title(metric_name(metric), fontsize=10, wrap=True)
        ax.set_xlabel(f"change over the key's range ({change_unit(metric)})", fontsize=9)
        ax.grid(axis="x", color=LIGHT)
    legend = [
        Patch(color=VERDICT_COLOURS[EFFECT], label="an effect"),
        Patch(color=VERDICT_COLOURS[NO_EFFECT], label="none beyond the margin (shaded)"),
        Patch(color=VERDICT_COLOURS[INCONCLUSIVE], label="inconclusive"),
    ]
    fig.legend(handles=legend, loc="lower center", ncols=3, bbox_to_anchor=(0.5, 0.0))
    moving = effects.filter(pl.col("verdict") == EFFECT)["key"].n_unique() if effects.height else 0
    fig.suptitle(
        f"{summary['game']} at {summary['n_players']} players: {moving} of "
        f"{len(summary['screened'])} keys screened move a balance measure "
        f"({summary['games']:,} games)",
        fontsize=12,
        fontweight="bold",
    )
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig


def screen_section(summary: dict) -> str:
    """The screen's section name: ``sensitivity-GAME-Np``."""
    return f"sensitivity-{summary['game']}-{summary['n_players']}p"


def screen_chart_name(summary: dict) -> str:
    """The chart's file name in ``--charts DIR`` and in the report's export."""
    return slug(f"{screen_section(summary)} ranked effects")


def screen_files(folder: Path) -> None:
    """What ``sensitivity``'s write calls with its folder: ``sensitivity.svg`` and ``.png``."""
    from simulator.experiments.sensitivity import read

    save(screen_chart(*read(folder)), Path(folder), "sensitivity")


# ---- matrix -----------------------------------------------------------------------------------


@styled
def matrix_chart(record: dict) -> Figure:
    """The heat map: win rate (%) of each entrant (row) against each field (column), from
    white to the palette's blue, titled by the dominant agent (or none)."""
    from matplotlib.colors import LinearSegmentedColormap
    from matplotlib.figure import Figure

    names = [a["name"] for a in record["agents"]]
    k, index = len(names), {n: i for i, n in enumerate(names)}
    m = np.full((k, k), np.nan)
    for c in record["cells"]:
        m[index[c["entrant"]], index[c["field"]]] = 100 * c["value"]
    fig = Figure(figsize=(max(6.0, 2.8 + 0.62 * k), max(4.2, 2.4 + 0.5 * k)))
    ax = fig.add_subplot()
    blues = LinearSegmentedColormap.from_list("balsim", ["#ffffff", BAR])
    image = ax.imshow(m, cmap=blues, vmin=0, vmax=100)
    for i in range(k):
        for j in range(k):
            ax.text(
                j,
                i,
                f"{m[i, j]:.0f}",
                ha="center",
                va="center",
                fontsize=9,
                color="white" if m[i, j] > 55 else "black",
            )
    ax.set_xticks(range(k), names, rotation=50, ha="right", fontsize=9)
    ax.set_yticks(range(k), names, fontsize=9)
    ax.set_xlabel("field (every other seat)")
    ax.set_ylabel("entrant (one seat or its team)")
    dominant = record["dominant"]
    head = f"{' and '.join(dominant)} dominates" if dominant else "No agent dominates"
    ax.set_title(
        f"{head}: win rate (%) against each field, fair share {share(record['fair_share'])}",
        wrap=True,
    )
    fig.colorbar(image, ax=ax, label="win rate (%)", shrink=0.8)
    fig.tight_layout()
    return fig


def matrix_files(folder: Path) -> None:
    """What ``matrix``'s write calls with its folder: ``matrix.svg`` and ``matrix.png``."""
    from simulator.experiments.matrix import read_matrix

    save(matrix_chart(read_matrix(Path(folder))), Path(folder), "matrix")


def skill_files(folder: Path) -> None:
    """What ``skill``'s write calls with its folder: ``skill.svg`` and ``skill.png``."""
    from simulator.experiments.skill import read_skill
    from simulator.report.skill import ratings_chart

    save(ratings_chart(read_skill(Path(folder))), Path(folder), "skill")
