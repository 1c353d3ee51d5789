"""The page of one ``balsim ask`` answer (``OUT/report.html``).

Its first screen is the answer: the three lines a terminal prints first and the chart of the
worst edge by value, every field side by side with the intervals its decision used and the
margin shaded.  Then each field's values and facts, how the adapted knobs moved, and what the
answer rests on (the players of each field, the ASSUMED values of the rules it asks about).
"""

from __future__ import annotations

import html

import numpy as np
import polars as pl

from simulator.report.charts import BAR, LIGHT, MARKERS, PALETTE, figure, styled
from simulator.report.page import block, render_page
from simulator.studies.recipes.rungs import Asked
from simulator.studies.recipes.words import (
    adaptation_lines,
    balance_text,
    decision_text,
    edge_text,
    headline,
    level_text,
    rests_on,
)

AXIS = "worst edge over the fair share (points)"
VALUE = "rules value"


@styled
def answer_chart(asked: Asked):
    """Each value's worst edge (the subject farthest from its fair share) by field, with the
    interval its test used; the values on the vertical axis, so their names never overlap."""
    first = asked.rungs[0]
    names = [b.value for b in first.decision.balances]
    labels = [first.label(n) for n in names]
    fig, ax = figure(7.0, 1.2 + 0.42 * len(names) * max(1, len(asked.rungs) / 2))
    y = np.arange(len(names))[::-1].astype(float)
    step = 0.7 / max(len(asked.rungs), 1)
    for k, r in enumerate(asked.rungs):
        rows = [r.decision.balance(n) for n in names]
        mean = np.array([100 * b.worst.estimate for b in rows])
        bounds = np.array([b.worst.interval(b.alpha) for b in rows]) * 100
        err = np.clip([mean - bounds[:, 0], bounds[:, 1] - mean], 0, 100)
        ax.errorbar(
            mean,
            y + ((len(asked.rungs) - 1) / 2 - k) * step,
            xerr=np.nan_to_num(err),
            fmt=MARKERS[k % len(MARKERS)],
            color=PALETTE[k % len(PALETTE)],
            capsize=3,
            label=f"{r.field} field",
        )
    for i, n in enumerate(names):  # a value that breaks the game has no edge: say so on its row
        where = [r.field for r in asked.rungs if n in r.broken]
        if len(where) == len(asked.rungs):
            at, text, align = 0.5, "breaks the game", "center"
        elif where:
            at, text, align = 0.98, f"breaks the game ({', '.join(where)})", "right"
        else:
            continue
        ax.annotate(text, (at, y[i]), xycoords=("axes fraction", "data"), va="center", ha=align)
    m = 100 * asked.margin
    ax.axvline(0, color="black", linestyle="--", linewidth=1)
    ax.axvspan(-m, m, color=BAR, alpha=0.12, label=f"margin ±{m:g} points")
    ax.set_yticks(y, labels)
    ax.set_xlabel(AXIS)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(color=LIGHT, axis="x")
    return fig


def values_table(asked: Asked) -> pl.DataFrame:
    """The chart's numbers: each value's side and worst edge, one column per field."""
    first = asked.rungs[0]
    out: dict[str, list[str]] = {VALUE: [first.label(b.value) for b in first.decision.balances]}
    for r in asked.rungs:
        out[f"{r.field} field"] = [
            f"{b.side}: {edge_text(b.worst, b.alpha)}" if b.value not in r.broken else "breaks"
            for b in r.decision.balances
        ]
    return pl.DataFrame(out)


def levels_note(asked: Asked) -> str:
    printed = {level_text(r.decision.printed.level) for r in asked.rungs}
    others = {level_text(r.decision.balances[-1].level) for r in asked.rungs}
    return (
        f"Intervals at the level each test used: {', '.join(sorted(printed))} for the printed "
        f"value (tested first), {', '.join(sorted(others))} for the others (they share the "
        "error of the change). A value is balanced when every subject's interval lies inside "
        "the shaded margin, unbalanced when one lies wholly outside it."
    )


def rests_on_html(asked: Asked) -> str:
    """The players of each field and the ASSUMED values the answer rests on."""
    game, assumed, others = asked.question.game, asked.assumed, asked.other_assumed
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


def field_html(asked: Asked) -> str:
    """Each field's decision, values, facts and adaptations."""
    out = []
    for r in asked.rungs:
        items = [balance_text(b, r.label, r.broken) for b in r.decision.balances]
        items += [f.text for f in r.facts] + adaptation_lines(r)
        out.append(
            f"<h3>{html.escape(r.field)} field</h3><p>{html.escape(r.lineup)}; "
            f"{r.games:,} games per value, {len(r.looks)} of {r.planned} looks: "
            f"{html.escape(decision_text(r, asked.question, asked.margin))}.</p><ul>"
            + "".join(f"<li>{html.escape(i)}</li>" for i in items)
            + "</ul>"
        )
    s = asked.strength
    out.append(
        f"<p>Across the fields: {html.escape(str(s.kind))} (the printed value's edges differ "
        f"by at most {100 * s.largest:.1f} points).</p>"
    )
    return "".join(out)


def report_page(asked: Asked, budget: int, command: str) -> str:
    """The page (module doc)."""
    q = asked.question
    lines = "".join(f"<p><b>{html.escape(line)}</b></p>" for line in headline(asked))
    lines += f"<p class='note'>{html.escape(rests_on(asked))}</p>"
    chart = block(
        "answer-chart",
        f"{q.what.capitalize()}: {AXIS} by value and field",
        answer_chart(asked),
        None,
        caption=html.escape(levels_note(asked)),
    )
    answer_box = (
        f"<div class='answers' id='answer'><h2>{html.escape(q.summary)}</h2>{lines}</div>" + chart
    )
    body = [
        block("answer-values", "Every value, every field", None, values_table(asked)),
        "<h2>Each field</h2>" + field_html(asked),
        rests_on_html(asked),
    ]
    meta = (
        f"balsim ask {html.escape(q.name)}: at most {budget:,} games per value and field, "
        f"fields {html.escape(', '.join(r.field for r in asked.rungs))}"
        + (f"; command: {html.escape(command)}" if command else "")
        + "."
    )
    folders = "".join(f"<li>{html.escape(r.folder)}/</li>" for r in asked.rungs)
    return render_page([q.game], meta, answer_box, "", folders, body)
