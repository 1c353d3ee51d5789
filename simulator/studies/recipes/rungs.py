"""One answer per rung of the ladder, and whether the rungs agree (docs/ladder.md).

A question is answered once per field of players (scripted, tuned, adapted; search when
asked), each on its own dataset.  The answers agree when every rung decides (none is
inconclusive) and decides the same (keep the printed value, change to the same value, or none
balanced) with the printed value's verdicts agreeing as well (:func:`simulator.core.verdicts
.agree`: all no effect, or effects of one sign).  Only then does the answer hold at every
strength; with a rung inconclusive it is inconclusive there; otherwise it depends on player
strength, and the verdict line gives each rung's numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from simulator.core.verdicts import agree
from simulator.experiments.adapt import Adaptation
from simulator.studies.recipes.common import CHANGE, KEEP, NONE, Answer, verdict_text

HOLDS, DEPENDS, INCONCLUSIVE_AT = "holds", "depends", "inconclusive"


def printed_of(answer: Answer) -> str:
    """The variant of the printed rules: every question's first."""
    return next(iter(answer.verdicts))


@dataclass
class RungAnswer:
    """The answer of one field: its games (per variant) and looks, and for a field that adapts,
    each variant's adaptation."""

    field: str
    folder: str  # its dataset's folder in the ask's output
    answer: Answer
    games: int
    looks: list[int]
    adaptations: dict[str, Adaptation] = field(default_factory=dict)
    lineup: str = ""  # who played, e.g. "scripted field: tycoon, saver, ..."

    def record(self) -> dict:
        return {
            "field": self.field,
            "dataset": self.folder,
            "players": self.lineup,
            "games_per_variant": self.games,
            "looks": self.looks,
            **self.answer.decision.record(),
            "sentence": self.answer.sentence,
            "numbers": self.answer.numbers,
            "adaptations": {n: adaptation_record(a) for n, a in self.adaptations.items()},
        }


@dataclass
class Asked:
    """A question's answers, one per field, and whether they agree (``kind``: HOLDS, DEPENDS
    or INCONCLUSIVE_AT; ``line``: the verdict line)."""

    rungs: list[RungAnswer]
    kind: str
    line: str

    def lines(self) -> list[str]:
        """What ``balsim ask`` prints: one sentence per field, then the verdict line."""
        return [r.answer.sentence for r in self.rungs] + [self.line]

    def rung(self, name: str) -> RungAnswer:
        return next(r for r in self.rungs if r.field == name)


def adaptation_record(a: Adaptation) -> dict:
    return {
        "source": a.source,
        "games": a.games,
        "rounds": len(a.rounds),
        "seconds": a.seconds,
        "moved": {p: {k: list(v) for k, v in knobs.items()} for p, knobs in a.moved.items()},
    }


def decision_words(answer: Answer, printed: str) -> str:
    """The decision in a few words: 'keep the printed 4 coins', 'change to the $75,000 cap'."""
    d, show = answer.decision, answer.shown
    if d.kind == KEEP:
        return f"keep the printed {show.get(printed, printed)}"
    if d.kind == CHANGE:
        return f"change to {show.get(d.variant, d.variant)}"
    if d.kind == NONE:
        return "no value tried is balanced"
    return "no decision"


def rung_numbers(r: RungAnswer, printed: str) -> str:
    """'tuned: keep the printed 4 coins (printed: no effect beyond ±2.0 points (...))'."""
    a = r.answer
    numbers = f"printed: {verdict_text(a.verdicts[printed])}"
    if a.decision.kind == CHANGE:
        chosen = a.decision.variant
        numbers += f"; {a.shown.get(chosen, chosen)}: {verdict_text(a.verdicts[chosen])}"
    return f"{r.field}: {decision_words(a, printed)} ({numbers})"


def agreement(rungs: list[RungAnswer]) -> tuple[str, str]:
    """(HOLDS, DEPENDS or INCONCLUSIVE_AT, the verdict line) over the rungs' answers."""
    printed = printed_of(rungs[0].answer)
    names = ", ".join(r.field for r in rungs)
    undecided = [r.field for r in rungs if not r.answer.decision.decided]
    each = "; ".join(rung_numbers(r, printed) for r in rungs)
    if undecided:
        return INCONCLUSIVE_AT, (
            f"Verdict over the fields ({names}): inconclusive at {', '.join(undecided)}, so "
            f"it is not known whether the answer holds at every strength; {each}."
        )
    decisions = {r.answer.decision for r in rungs}
    base = [r.answer.verdicts[printed] for r in rungs]
    if len(decisions) == 1 and agree(base):
        return HOLDS, (
            f"Verdict over the fields ({names}): holds at every strength: "
            f"{decision_words(rungs[0].answer, printed)}; {each}."
        )
    return DEPENDS, f"Verdict over the fields ({names}): depends on player strength: {each}."


SHOWN_KNOBS = 3  # knobs named per policy in the note (balsim.json lists every one)


def knob_moves(knobs: dict) -> str:
    """'buy_margin -1.42 → 1.3, sell_margin 2.45 → -1.43': the knobs that moved most,
    relative to where they started, and how many more did."""

    def moved(k: str) -> float:
        start, end = knobs[k]
        return abs(end - start) / max(abs(start), 1e-9)

    order = sorted(knobs, key=moved, reverse=True)
    text = ", ".join(f"{k} {knobs[k][0]:.3g} → {knobs[k][1]:.3g}" for k in order[:SHOWN_KNOBS])
    more = len(order) - SHOWN_KNOBS
    return text + (f" and {more} more" if more > 0 else "")


def adaptation_note(r: RungAnswer) -> str:
    """How the adapted knobs moved under each variant, in one sentence ('' without any)."""
    if not r.adaptations:
        return ""
    parts = []
    for name, a in r.adaptations.items():
        moved = "; ".join(f"{p} {knob_moves(knobs)}" for p, knobs in a.moved.items())
        where = {"played": "", "cache": ", cached", "shipped": ", shipped"}[a.source]
        printed = name == printed_of(r.answer)
        shown = "the printed rules" if printed else r.answer.shown.get(name, name)
        parts.append(
            f"{shown}: {moved or 'no knob moved'} "
            f"({a.games:,} games, {len(a.rounds)} round(s){where})"
        )
    return (
        f"The {r.field} field's knobs re-tuned under each variant (from the tuned sets): "
        + "; ".join(parts)
        + "."
    )
