"""One answer per field of players, and whether the answer depends on their strength.

A question is answered once per field (scripted, tuned, adapted, learned; search when
asked), each on its own dataset.  Whether the answer holds at every strength is a test of the
fields' difference, never two decisions that differ (:func:`simulator.core.decisions
.agreement` on the printed value's edges, each subject matched across fields by its scripted
name).  The answer leads with the strongest field that decided.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from simulator.core.decisions import (
    Agreement,
    Choice,
    Decision,
    Edge,
    Side,
    agreement,
    games_to_decide,
    last_look_alpha,
    levels,
)
from simulator.experiments.adapt import Adaptation
from simulator.experiments.rungs import scripted_name
from simulator.experiments.skill import DepthChange
from simulator.experiments.strength import Exploitability
from simulator.studies.recipes.common import Fact, Question, label

# the fields from the weakest to the strongest: the answer leads with the strongest decided
STRENGTH_ORDER = ("scripted", "tuned", "adapted", "learned", "search")


@dataclass
class RungAnswer:
    """The answer of one field: its decision at the last look played, the facts around it,
    the variants that break the game, its games (per value) and looks, and for a field that
    adapts each value's adaptations (one per replicate)."""

    field: str
    folder: str  # its dataset's folder in the ask's output
    decision: Decision
    facts: list[Fact]
    broken: dict[str, str]
    games: int
    looks: list[int]
    planned: int  # looks planned
    budget: int
    lineup: str = ""  # who played, e.g. "tuned field: scholar_tuned, ..."
    settings: dict[str, str] = field(default_factory=dict)  # variant -> its setting as typed
    adaptations: dict[str, list[Adaptation]] = field(default_factory=dict)
    rules: dict[str, dict] = field(default_factory=dict)  # variant -> the rules its players use
    seats: list[str] = field(default_factory=list)  # the line-up
    strong: dict | None = None  # the strong seat's own win rate (common.strong_share)

    def label(self, name: str | None) -> str:
        return label(name or "", self.settings)

    def games_to_decide(self) -> float:
        """Games per value that would decide this field's printed value at today's spread."""
        d = self.decision
        alpha = levels(last_look_alpha(), len(d.printed.edges), len(d.balances))[0]
        return games_to_decide(d.printed, d.printed.margin, alpha)

    def record(self) -> dict:
        d = self.decision.record()
        for name, v in d["values"].items():
            v["label"] = self.label(name)
            if name in self.broken:
                v["breaks_the_game"] = self.broken[name]
        return {
            "field": self.field,
            "dataset": self.folder,
            "players": self.lineup,
            "strong_seat": self.strong,
            "games_per_value": self.games,
            "looks": self.looks,
            "looks_planned": self.planned,
            "games_to_decide": finite(self.games_to_decide()),
            **d,
            "chosen_label": self.label(self.decision.chosen) if self.decision.chosen else None,
            "facts": [{"text": f.text, **f.numbers} for f in self.facts],
            "adaptations": {
                n: [adaptation_record(a) for a in reps] for n, reps in self.adaptations.items()
            },
        }


def finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


@dataclass
class Asked:
    """A question's answers, one per field, and whether they depend on strength."""

    question: Question
    rungs: list[RungAnswer]
    strength: Agreement
    margin: float
    assumed: list = field(default_factory=list)  # (AssumedKey, value) of the rules asked about
    other_assumed: int = 0  # the game's other ASSUMED keys
    exploit: Exploitability | None = None  # what better strategies gain against the decision
    depth: DepthChange | None = None  # how a change moves the skill depth

    def leading(self) -> RungAnswer:
        """The strongest field that decided (else the strongest field)."""
        ranked = sorted(self.rungs, key=lambda r: rank(r.field))
        decided = [r for r in ranked if r.decision.kind != Choice.UNDECIDED]
        return (decided or ranked)[-1]

    def rung(self, name: str) -> RungAnswer:
        return next(r for r in self.rungs if r.field == name)

    def unbalanced_everywhere(self) -> list[Edge]:
        """Every field's worst edge at the printed value when every field shows the printed
        value beyond the margin with the same player's edge of one sign (else [])."""
        worst = [r.decision.printed.worst for r in self.rungs]
        if len(self.rungs) < 2 or any(r.decision.printed.side != Side.BEYOND for r in self.rungs):
            return []
        if len({scripted_name(e.subject) for e in worst}) > 1:
            return []
        if len({e.estimate > 0 for e in worst}) > 1:
            return []
        return worst

    def crossing(self) -> str:
        """Where the leading field's worst edge changes sign between two values tried, in
        words ('' when it does not)."""
        lead = self.leading()
        rows = [b for b in lead.decision.balances if b.worst.measured]
        for a, b in zip(rows, rows[1:]):
            if a.worst.estimate * b.worst.estimate < 0:
                return f"it changes sign between {lead.label(a.value)} and {lead.label(b.value)}"
        return ""

    def exploited(self) -> bool:
        """Whether a strategy tried may gain more than the margin against the value decided
        on (its simultaneous upper bound beyond it): then that value is balanced only for the
        players measured."""
        return self.exploit is not None and not self.exploit.within(self.margin)

    def record(self) -> dict:
        return {
            "decision": self.leading().decision.kind.value,
            "field": self.leading().field,
            "exploitability": self.exploit.record() if self.exploit else None,
            "skill_depth_change": self.depth.record() if self.depth else None,
            **self.strength.record(),
            "rungs": {r.field: r.record() for r in self.rungs},
        }


def rank(name: str) -> int:
    base = name.split(",")[0]
    return STRENGTH_ORDER.index(base) if base in STRENGTH_ORDER else -1


def strength_of(rungs: list[RungAnswer], margin: float, alpha: float) -> Agreement:
    """Whether the printed value's edges differ between the fields (module doc), at level
    ``alpha``: the share of the error of the look the fields stopped at."""
    by_field = []
    names = [scripted_name(e.subject) for e in rungs[0].decision.printed.edges]
    for r in rungs:
        edges = {scripted_name(e.subject): e for e in r.decision.printed.edges}
        by_field.append([edges.get(n, Edge(n, math.nan, math.nan, 0)) for n in names])
    renamed = [[Edge(n, e.estimate, e.se, e.games) for n, e in zip(names, f)] for f in by_field]
    return agreement(renamed, margin, alpha)


def adaptation_record(a: Adaptation) -> dict:
    return {
        "replicate": a.replicate,
        "source": a.source,
        "games": a.games,
        "rounds": len(a.rounds),
        "seconds": a.seconds,
        "moved": {p: {k: list(v) for k, v in knobs.items()} for p, knobs in a.moved.items()},
    }
