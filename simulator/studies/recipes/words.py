"""An ``ask`` answer in words: three lines a designer reads first, then the details.

The three lines (:func:`headline`): the decision in plain words with the field it rests on
and whether it holds at every strength; the number behind it at each strength (the worst
edge with its interval); and what to do next.  Everything else (each field's values, the
facts, how the adapted knobs moved) is in :func:`details`, shown with ``--verbose`` and on
the page.  Every interval is at the level the decision used, stated once per answer; every
value is named by its setting as typed (``loans.cap_usd=75000``).
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Callable

from simulator.core.decisions import Balance, Choice, Edge, Strength
from simulator.core.verdicts import EFFECT
from simulator.experiments.rungs import scripted_name
from simulator.report.page import number

if TYPE_CHECKING:
    from simulator.analysis import Dataset
    from simulator.studies.recipes.rungs import Asked, RungAnswer


def points(x: float) -> str:
    """A difference of win rates in points: '+1.2 points'."""
    return f"{100 * x:+.1f} points".replace("-", "−")


def signed(x: float) -> str:
    return f"{100 * x:+.1f}".replace("-", "−")


def interval_text(triple: tuple[float, float, float], level: float, show: Callable) -> str:
    """'(low to high)': the interval of a (mean, low, high); its level is stated once per
    answer, so it is not repeated here (``level`` is the one the triple was computed at)."""
    return f"({show(triple[1])} to {show(triple[2])})"


def edge_text(e: Edge, alpha: float) -> str:
    """'scholar_tuned +10.6 (9.1 to 12.1)', in points."""
    if not e.measured:
        return f"{e.subject}: no game measures it"
    low, high = e.interval(alpha)
    return f"{e.subject} {signed(e.estimate)} ({signed(low)} to {signed(high)})"


def level_text(level: float) -> str:
    """'95%', '98.9%', '99.995%': as many digits as it takes not to read 100%."""
    for digits in range(3, 9):
        text = f"{100 * level:.{digits}g}"
        if text != "100":
            return f"{text}%"
    return f"{100 * level:.8f}%"


def assumed_text(ds: Dataset, key: str, shown: str | None = None) -> str:
    """A rules value in a sentence, marked when the rulebook does not print it: 'an assumed
    10% interest (loans.interest_pct, ASSUMED)'."""
    import json

    from simulator.core.assumed import assumed_keys, value_at
    from simulator.core.game import get_game

    value = shown or f"{key} = {json.dumps(value_at(ds.rules, key))}"
    if key in assumed_keys(get_game(ds.game).rules_path):
        return f"an assumed {value} ({key}, ASSUMED)" if shown else f"the ASSUMED {value}"
    return value


# ---- the three lines --------------------------------------------------------------------------


def wins(e: Edge) -> str:
    """'tycoon wins 3.1 points over its fair share' (or under)."""
    side = "over" if e.estimate >= 0 else "under"
    return f"{e.subject} wins {100 * abs(e.estimate):.1f} points {side} its fair share"


def decision_text(r: RungAnswer, question, margin: float) -> str:
    """One field's decision in plain words."""
    d, label, what, who = r.decision, r.label, question.what, question.who
    p = d.printed
    m = f"±{100 * margin:g} points"
    worst = p.worst
    if d.kind == Choice.KEEP:
        return f"keep {what} at {label(p.value)}: {who} wins within {m} of its fair share"
    if d.kind == Choice.CHANGE:
        return (
            f"change {what} from {label(p.value)} to {label(d.chosen)}: at the printed value "
            f"{wins(worst)}; at {label(d.chosen)} {who} is within {m}"
        )
    if d.kind == Choice.NONE:
        return (
            f"no value tried balances {what}: at each some player is beyond {m} of its fair "
            f"share (at the printed value {wins(worst)})"
        )
    if d.kind == Choice.UNBALANCED:
        return (
            f"change {what}: at {label(p.value)} {wins(worst)}, beyond {m}; no value tried "
            "is shown balanced yet"
        )
    return f"undecided: at {label(p.value)} {wins(worst)}, shown neither within {m} nor beyond"


def headline(asked: Asked) -> list[str]:
    """The three lines (module doc)."""
    q, rungs = asked.question, asked.rungs
    lead = asked.leading()
    first = decision_text(lead, q, asked.margin)
    first = f"{first[0].upper()}{first[1:]} ({lead.field} field"
    same = all(
        r.decision.kind == lead.decision.kind and r.decision.chosen == lead.decision.chosen
        for r in rungs
    )
    if len(rungs) > 1:
        tail = {
            Strength.HOLDS: "holds at every strength",
            Strength.DEPENDS: "depends on player strength",
            Strength.UNDECIDED: "whether it depends on strength is not decided",
        }[asked.strength.kind]
        first += f"; {'every field decides the same, ' if same else ''}{tail})."
    else:
        first += ")."
    worst = asked.unbalanced_everywhere()
    if worst:
        each = ", ".join(f"{points(e.estimate)} ({r.field})" for e, r in zip(worst, rungs))
        name = scripted_name(worst[0].subject)
        first = f"At every strength the printed value is unbalanced: {name} {each}. {first}"
    level = level_text(rungs[0].decision.printed.level)
    each = "; ".join(
        f"{r.field}: {edge_text(r.decision.printed.worst, r.decision.printed.alpha)}" for r in rungs
    )
    second = f"Worst edge at {lead.label(lead.decision.printed.value)}, in points: {each}"
    if lead.decision.kind == Choice.CHANGE:
        b = lead.decision.balance(lead.decision.chosen)
        second += f"; at {lead.label(b.value)} ({lead.field}): {edge_text(b.worst, b.alpha)}"
    second += f" ({level} intervals, margin ±{100 * asked.margin:g} points)."
    if asked.depth is not None and asked.depth.kind == EFFECT:
        second += f" Skill: {asked.depth.text()} (random, scripted and tuned players rated)."
    if asked.exploit is not None:
        first = first[:-1] + f"; {exploit_text(asked)}."
    return [first, second, "Next: " + next_step(asked)]


def exploit_text(asked: Asked) -> str:
    """Whether a better strategy breaks the value decided on, in a clause."""
    x = asked.exploit
    best = x.best
    if asked.exploited():
        return (
            f"but it is balanced only for these players: {best.name} gains "
            f"{points(x.gain(best))} against them (no strategy tried gains more than "
            f"{points(x.upper)})"
        )
    return f"no strategy tried gains more than {points(x.upper)} against it"


def rests_on(asked: Asked) -> str:
    """Who played and which ASSUMED values the answer rests on, in one line."""
    players = "; ".join(r.lineup for r in asked.rungs)
    keys = ", ".join(f"{k.label} = {json.dumps(value)}" for k, value in asked.assumed)
    game = asked.question.game
    assumed = f"the ASSUMED {keys} and " if keys else ""
    return (
        f"Measured with the {players}. Rests on {assumed}{asked.other_assumed} other ASSUMED "
        f"values every game plays by (`balsim assumed {game}`)."
    )


def next_step(asked: Asked) -> str:
    """What to do next: the games that would decide, the values to try, or nothing."""
    undecided = [r for r in asked.rungs if r.decision.kind in (Choice.UNDECIDED, Choice.UNBALANCED)]
    if undecided:
        parts = []
        for r in undecided:
            n = r.games_to_decide()
            if math.isfinite(n):
                reach = "within" if n <= r.budget else "beyond"
                parts.append(
                    f"{r.field} needs about {number(n)} games per value ({reach} its budget "
                    f"of {r.budget:,})"
                )
            else:
                parts.append(f"{r.field}'s worst edge sits on the margin: no budget decides it")
        return "; ".join(parts) + f": `balsim ask {asked.question.name} --games N`."
    lead = asked.leading()
    if lead.decision.kind == Choice.NONE:
        return f"try values beyond those tried ({asked.crossing() or 'none changes sign'})."
    if asked.strength.kind == Strength.DEPENDS:
        return (
            "the fields disagree: decide with the field that plays like your players "
            "(`--verbose` for each)."
        )
    if asked.exploited():
        return (
            f"playtest against {asked.exploit.best.name}'s strategy (`balsim challenge "
            f"{asked.question.game}`); `--verbose` for every value's edges."
        )
    if lead.decision.kind == Choice.CHANGE:
        return f"playtest {lead.label(lead.decision.chosen)}; `--verbose` for every value's edges."
    return "nothing to change; `--verbose` for every value's edges and facts."


# ---- the details --------------------------------------------------------------------------------


def balance_text(b: Balance, label: Callable[[str], str], broken: dict[str, str]) -> str:
    """'loans.cap_usd=25000: beyond — tycoon +3.1 (2.0 to 4.2), ...'."""
    if b.value in broken:
        return f"{label(b.value)}: breaks the game ({broken[b.value]})"
    edges = ", ".join(
        edge_text(e, b.alpha)
        for e in sorted(b.edges, key=lambda e: -abs(e.estimate) if e.measured else 0)
    )
    return f"{label(b.value)}: {b.side} ({level_text(b.level)}): {edges}"


def details(asked: Asked) -> list[str]:
    """Each field's values, facts and adaptation, under a heading line per field."""
    out = []
    for r in asked.rungs:
        d = r.decision
        out.append(
            f"{r.lineup}; {r.games:,} games per value, {len(r.looks)} of {r.planned} looks: "
            f"{decision_text(r, asked.question, asked.margin)}."
        )
        out += ["  " + balance_text(b, r.label, r.broken) for b in d.balances]
        out += ["  " + f.text for f in r.facts]
        out += ["  " + line for line in adaptation_lines(r)]
    s = asked.strength
    ps = ", ".join(f"{k} p = {p:.2g}" for k, p in s.p_values.items() if math.isfinite(p))
    out.append(
        f"Across the fields ({', '.join(r.field for r in asked.rungs)}): {s.kind}: the printed "
        f"value's edges differ by at most {100 * s.largest:.1f} points"
        + (f"; Cochran's Q, Holm-adjusted, at level {s.alpha:.2g}: {ps}" if ps else "")
        + "."
    )
    if asked.depth is not None:
        out.append(f"Skill (random, scripted and tuned players rated): {asked.depth.text()}.")
    return out


SHOWN_KNOBS = 3  # knobs named per policy (balsim.json lists every one)


def knob_number(x) -> str:
    """A knob's value in its own units, rounded for reading (no scientific notation)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return str(x)
    return number(float(x))


def knob_moves(knobs: dict) -> str:
    """'buy_margin −1.42 → 1.3, ...': the knobs that moved most relative to where they
    started, largest first, and how many more did."""

    def moved(k: str) -> float:
        start, end = knobs[k]
        try:
            return abs(end - start) / max(abs(start), 1e-9)
        except TypeError:
            return 0.0

    order = sorted(knobs, key=moved, reverse=True)
    text = ", ".join(
        f"{k} {knob_number(knobs[k][0])} → {knob_number(knobs[k][1])}" for k in order[:SHOWN_KNOBS]
    )
    more = len(order) - SHOWN_KNOBS
    return text + (f" and {more} more" if more > 0 else "")


def adaptation_lines(r: RungAnswer) -> list[str]:
    """How the adapted knobs moved under each value, one line per value and replicate."""
    out = []
    for name, adaptations in r.adaptations.items():
        for i, a in enumerate(adaptations):
            moved = "; ".join(f"{p} {knob_moves(k)}" for p, k in a.moved.items())
            rep = f" replicate {i + 1}" if len(adaptations) > 1 else ""
            out.append(
                f"adapted to {r.label(name)}{rep}: {moved or 'no knob moved'} "
                f"({a.games:,} games, {len(a.rounds)} round(s), {a.source})"
            )
    return out
