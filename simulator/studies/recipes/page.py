"""The short report of one ``balsim ask`` answer (``OUT/report.html``)."""

from __future__ import annotations

import html

import numpy as np
import polars as pl

from simulator.report.page import block, pct, render_page
from simulator.studies.recipes.common import Recipe
from simulator.studies.recipes.rungs import Asked

NOT_RATES = ("length", "mean_bracket")  # per-game values that are not shares of games or players


def shown(table: pl.DataFrame) -> pl.DataFrame:
    """The table as text: each value's mean and 95% interval, rates in percent."""
    values = [c for c in table.columns if c != "variant" and not c.endswith(("_lo", "_hi"))]
    out = {"variant": table["variant"]}
    for v in values:
        rows = zip(table[v], table[f"{v}_lo"], table[f"{v}_hi"])
        if v in NOT_RATES:
            out[v] = [f"{m:.2f} ({lo:.2f}–{hi:.2f})" for m, lo, hi in rows]
        else:
            out[v] = [f"{pct(m)} ({pct(lo)}–{pct(hi)})" for m, lo, hi in rows]
    return pl.DataFrame(out)


def side_by_side(asked: Asked) -> pl.DataFrame:
    """The main value of every field, one column per field, one row per variant."""
    first = asked.rungs[0].answer
    out = {"variant": first.table["variant"]}
    for r in asked.rungs:
        t = r.answer.table
        y = r.answer.chart
        out[r.field] = [
            f"{pct(m)} ({pct(lo)}–{pct(hi)})" for m, lo, hi in zip(t[y], t[f"{y}_lo"], t[f"{y}_hi"])
        ]
    return pl.DataFrame(out)


def report_page(recipe: Recipe, asked: Asked, budget: int, command: str) -> str:
    """The short report: the verdict over the fields, each field's answer, a chart of the main
    value by variant for every field side by side (95% intervals, the equivalence margin),
    then each field's table of every value."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    first = asked.rungs[0].answer
    y, margin = first.chart, first.sizing.margin
    fig, ax = plt.subplots(figsize=(7, 3.4))
    x = np.arange(first.table.height)
    width = 0.6 / max(len(asked.rungs), 1)
    markers = "osD^v"
    for k, r in enumerate(asked.rungs):
        t = r.answer.table
        mean = t[y].to_numpy()
        err = np.clip([mean - t[f"{y}_lo"].to_numpy(), t[f"{y}_hi"].to_numpy() - mean], 0, None)
        shift = (k - (len(asked.rungs) - 1) / 2) * width
        ax.errorbar(
            x + shift,
            mean,
            yerr=err,
            fmt=markers[k % len(markers)],
            color=f"{0.6 * k / 2:.2f}",
            capsize=3,
            label=f"{r.field} field",
        )
    ax.axhline(0, color="0.5", linestyle="--", linewidth=1)
    ax.axhspan(-margin, margin, color="C2", alpha=0.12, label=f"±{100 * margin:g} points")
    ax.set_xticks(x, first.table["variant"].to_list(), fontsize=8)
    ax.set_ylabel(f"{y} (mean per game, 95% CI)", fontsize=8)
    ax.legend(fontsize=7, frameon=False)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    blocks = [
        block(
            "answer-chart",
            f"{y} by variant, every field side by side",
            fig,
            side_by_side(asked),
            caption="Each value is the mean over games of a per-game value, with its 95% "
            "interval over games in brackets; edges and gaps are differences of win rates. "
            "The shaded band is the equivalence margin: a value is called balanced only when "
            "the equivalence test places it inside the band at the answer's level (stricter "
            "than 95%, shared by every look and variant). Within a field every variant played "
            "the same games; each field is its own dataset (dataset-FIELD/). The full "
            "analysis: balsim report dataset-FIELD --out full.html.",
        )
    ]
    plt.close(fig)
    for r in asked.rungs:
        blocks.append(
            block(f"answer-{r.field}", f"Every value, {r.field} field", None, shown(r.answer.table))
        )
    answers = "".join(
        f"<h3>{html.escape(r.field)} field</h3><p>{html.escape(r.answer.sentence)}</p>"
        for r in asked.rungs
    )
    answer_box = (
        f"<div class='answers'><h2>{html.escape(recipe.summary)}</h2>"
        f"<p><b>{html.escape(asked.line)}</b></p>{answers}</div>"
    )
    meta = (
        f"balsim ask {html.escape(recipe.name)}: at most {budget:,} games per variant and "
        f"field, fields {html.escape(', '.join(r.field for r in asked.rungs))}"
        + (f"; command: {html.escape(command)}" if command else "")
        + "."
    )
    folders = "".join(f"<li>{html.escape(r.folder)}/</li>" for r in asked.rungs)
    return render_page([recipe.game], meta, answer_box, "", folders, blocks)
