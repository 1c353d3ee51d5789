"""The short report of one ``balsim ask`` answer (``OUT/report.html``)."""

from __future__ import annotations

import html

import numpy as np
import polars as pl

from simulator.report.page import block, pct, render_page
from simulator.studies.recipes.common import Answer, Recipe

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


def report_page(recipe: Recipe, answer: Answer, n_games: int, command: str) -> str:
    """The short report: the answer, then a chart of the main value by variant with its 95%
    intervals and the equivalence margin, beside the table of every value."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t, y = answer.table, answer.chart
    fig, ax = plt.subplots(figsize=(6, 3.2))
    x = np.arange(t.height)
    mean = t[y].to_numpy()
    err = np.clip([mean - t[f"{y}_lo"].to_numpy(), t[f"{y}_hi"].to_numpy() - mean], 0, None)
    ax.errorbar(x, mean, yerr=err, fmt="o", color="k", capsize=4)
    ax.axhline(0, color="0.5", linestyle="--", linewidth=1)
    margin = answer.sizing.margin
    ax.axhspan(-margin, margin, color="C2", alpha=0.12, label=f"±{100 * margin:g} points")
    ax.set_xticks(x, t["variant"].to_list(), fontsize=8)
    ax.set_ylabel(f"{y} (mean per game, 95% CI)", fontsize=8)
    ax.legend(fontsize=7, frameon=False)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    body = block(
        "answer-chart",
        f"{y} by variant",
        fig,
        shown(t),
        caption="Each value is the mean over games of a per-game value, with its 95% "
        "interval over games in brackets; edges and gaps are differences of win rates. The "
        "shaded band is the equivalence margin: a value is called balanced only when the "
        "equivalence test places it inside the band at the answer's level (stricter than "
        "95%, shared by every look and variant). Every variant played the same games. The "
        "full analysis: balsim report dataset --out full.html.",
    )
    plt.close(fig)
    answer_box = (
        f"<div class='answers'><h2>{html.escape(recipe.summary)}</h2>"
        f"<p>{html.escape(answer.sentence)}</p></div>"
    )
    meta = (
        f"balsim ask {html.escape(recipe.name)}: {n_games:,} games per variant"
        + (f"; command: {html.escape(command)}" if command else "")
        + "."
    )
    return render_page([recipe.game], meta, answer_box, "", "<li>dataset/</li>", [body])
