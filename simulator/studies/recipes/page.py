"""The short report of one ``balsim ask`` answer (``OUT/report.html``): the verdict over the
fields, what the answer rests on (the players of each field and the ASSUMED values of the
rules it asks about), a chart of the balance value by variant for every field side by side,
then each field's table of every value, under plain names with their units."""

from __future__ import annotations

import html
import math

import numpy as np
import polars as pl

from simulator.core.assumed import AssumedKey
from simulator.report.charts import BAR, LIGHT, MARKERS, PALETTE, figure, styled
from simulator.report.page import block, number, pct, points_text, render_page
from simulator.studies.recipes.common import CHANGE, INCONCLUSIVE, KEEP, NONE, Answer, Recipe
from simulator.studies.recipes.rungs import HOLDS, Asked

# each per-game value of an answer's table: its plain name ({leader}: the leading policy) and
# its unit; "points" and "%" values are fractions shown times 100
VALUES = {
    "leader_edge": ("{leader}'s edge over its fair share", "points"),
    "seat0_edge": ("first player's edge over the fair share", "points"),
    "starting_team_edge": ("starting team's edge over the other team", "points"),
    "president_edge": ("edge of the top company's president over the fair share", "points"),
    "cap_binding": ("players whose loans reach the cap", "%"),
    "delinquent": ("players with a delinquent notice", "%"),
    "winner_holdings": ("winners' final score held in shares", "%"),
    "length": ("game length", "rounds"),
    "mean_bracket": ("mean tax bracket of player-years", "0 = the lowest"),
}
VARIANT = "rules variant"
DECISIONS = {
    KEEP: "keep the printed {shown}",
    CHANGE: "change to the {shown}",
    NONE: "no value tried is balanced",
    INCONCLUSIVE: "no decision yet",
}


def value_name(value: str, answer: Answer) -> str:
    """A value's plain name with its unit: "tycoon's edge over its fair share (points)"."""
    name, unit = VALUES.get(value, (value.replace("_", " "), ""))
    name = name.format(leader=answer.numbers.get("leader", "the leading policy"))
    return f"{name} ({unit})" if unit else name


def scale(value: str) -> float:
    return 100.0 if VALUES.get(value, ("", ""))[1] in ("points", "%") else 1.0


def shown_value(value: str, mean: float, low: float, high: float) -> str:
    """A value with its 95% interval: points signed, rates in percent, other numbers to two
    decimals."""
    unit = VALUES.get(value, ("", ""))[1]
    if not math.isfinite(mean):  # e.g. a presidency edge where nobody presides
        return "not measurable (no game to measure it in)"
    if unit == "points":
        return f"{points_text(mean)} ({points_text(low)} to {points_text(high)})"
    if unit == "%":
        return f"{pct(mean)} ({pct(low)}–{pct(high)})"
    return f"{number(mean)} ({number(low)}–{number(high)})"


def shown(answer: Answer) -> pl.DataFrame:
    """A field's table as text: each value's mean and 95% interval under its plain name."""
    table = answer.table
    values = [c for c in table.columns if c != "variant" and not c.endswith(("_lo", "_hi"))]
    out = {VARIANT: table["variant"]}
    for v in values:
        rows = zip(table[v], table[f"{v}_lo"], table[f"{v}_hi"])
        out[value_name(v, answer)] = [shown_value(v, *r) for r in rows]
    return pl.DataFrame(out)


def side_by_side(asked: Asked) -> pl.DataFrame:
    """The balance value of every field, one column per field, one row per variant."""
    first = asked.rungs[0].answer
    out = {VARIANT: first.table["variant"]}
    for r in asked.rungs:
        t, y = r.answer.table, r.answer.chart
        out[f"{r.field} field"] = [
            shown_value(y, *row) for row in zip(t[y], t[f"{y}_lo"], t[f"{y}_hi"])
        ]
    return pl.DataFrame(out)


def decision_words(answer: Answer) -> str:
    d = answer.decision
    return DECISIONS[d.kind].format(shown=answer.shown.get(d.variant, d.variant or ""))


def chart_title(asked: Asked) -> str:
    """What the chart shows a designer: the decision, at every strength or field by field."""
    if asked.kind == HOLDS:
        text = decision_words(asked.rungs[0].answer)
        return f"{text[0].upper()}{text[1:]}, at every strength tried"
    text = "; ".join(f"{r.field} field: {decision_words(r.answer)}" for r in asked.rungs)
    return text[0].upper() + text[1:]


@styled
def answer_chart(asked: Asked):
    """The balance value by variant, every field side by side with its 95% intervals, the
    equivalence margin shaded around zero."""
    first = asked.rungs[0].answer
    y, margin, f = first.chart, first.sizing.margin, scale(first.chart)
    labels = [str(v) for v in first.table["variant"].to_list()]
    fig, ax = figure(7.0, 3.8)
    x = np.arange(len(labels))
    width = 0.6 / max(len(asked.rungs), 1)
    for k, r in enumerate(asked.rungs):
        t = r.answer.table
        mean = f * t[y].to_numpy()
        err = np.clip(
            [mean - f * t[f"{y}_lo"].to_numpy(), f * t[f"{y}_hi"].to_numpy() - mean], 0, None
        )
        ax.errorbar(
            x + (k - (len(asked.rungs) - 1) / 2) * width,
            mean,
            yerr=err,
            fmt=MARKERS[k % len(MARKERS)],
            color=PALETTE[k % len(PALETTE)],
            capsize=3,
            label=f"{r.field} field",
        )
    ax.axhline(0, color="black", linestyle="--", linewidth=1)
    ax.axhspan(-f * margin, f * margin, color=BAR, alpha=0.12, label=f"±{100 * margin:g} points")
    ax.set_xticks(x, labels)
    if sum(len(label) for label in labels) > 40:  # long variant names would overlap
        ax.tick_params(axis="x", labelrotation=25)
        for label in ax.get_xticklabels():
            label.set_horizontalalignment("right")
    ax.set_ylabel(value_name(y, first), wrap=True)
    ax.set_xlabel(VARIANT)
    ax.set_title(chart_title(asked), wrap=True)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(color=LIGHT)
    return fig


def rests_on_html(
    asked: Asked, game: str, assumed: list[tuple[AssumedKey, object]], others: int
) -> str:
    """The players of each field and the ASSUMED values the answer rests on."""
    fields = "".join(f"<li>{html.escape(r.lineup)}</li>" for r in asked.rungs)
    if assumed:
        keys = "".join(
            f"<li><code>{html.escape(k.label)}</code> = {html.escape(str(value))}: "
            f"{html.escape(k.reason)}</li>"
            for k, value in assumed
        )
        direct = (
            f"<p>It rests on {len(assumed)} ASSUMED value{'s' if len(assumed) > 1 else ''} "
            f"of the rules it asks about, which the rulebook does not print:</p><ul>{keys}</ul>"
        )
    else:
        direct = "<p>None of the rules it asks about is an ASSUMED value.</p>"
    return (
        "<div class='flags'><h2>What this answer rests on</h2>"
        f"<p>The players, one dataset per field:</p><ul>{fields}</ul>{direct}"
        f"<p class='note'>Every game also plays by {others} other ASSUMED values of {game} "
        f"(invented cards and rules): <code>balsim assumed {game}</code> lists them, "
        f"<code>balsim sensitivity {game} --assumed</code> screens them.</p></div>"
    )


def report_page(
    recipe: Recipe,
    asked: Asked,
    budget: int,
    command: str,
    assumed: list[tuple[AssumedKey, object]],
    others: int,
) -> str:
    """The short report (module docstring); ``assumed``: the ASSUMED keys under the question's
    subjects with their values, ``others``: how many other ASSUMED keys the game has."""
    blocks = [
        block(
            "answer-chart",
            "The balance value by rules variant, every field side by side",
            answer_chart(asked),
            side_by_side(asked),
            caption="Each value is the mean over games of a per-game value, with its 95% "
            "interval over games in brackets; edges and gaps are differences of win rates, "
            "in points. The shaded band is the equivalence margin: a value is called balanced "
            "only when the equivalence test places it inside the band at the answer's level "
            "(stricter than 95%, shared by every look and variant). Within a field every "
            "variant played the same games; each field is its own dataset (dataset-FIELD/). "
            "The full analysis: balsim report dataset-FIELD --out full.html.",
        )
    ]
    for r in asked.rungs:
        blocks.append(
            block(f"answer-{r.field}", f"Every value, {r.field} field", None, shown(r.answer))
        )
    answers = "".join(
        f"<h3>{html.escape(r.field)} field</h3><p>{html.escape(r.answer.sentence)}</p>"
        for r in asked.rungs
    )
    answer_box = (
        f"<div class='answers'><h2>{html.escape(recipe.summary)}</h2>"
        f"<p><b>{html.escape(asked.line)}</b></p>{answers}</div>"
        + rests_on_html(asked, recipe.game, assumed, others)
    )
    meta = (
        f"balsim ask {html.escape(recipe.name)}: at most {budget:,} games per variant and "
        f"field, fields {html.escape(', '.join(r.field for r in asked.rungs))}"
        + (f"; command: {html.escape(command)}" if command else "")
        + "."
    )
    folders = "".join(f"<li>{html.escape(r.folder)}/</li>" for r in asked.rungs)
    return render_page([recipe.game], meta, answer_box, "", folders, blocks)
