"""The report's glossary: the words a designer meets in it, explained once at the end of the
page and linked from the first place each is used."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    anchor: str
    word: str
    pattern: str  # the first text of the page that matches links to the entry
    meaning: str


TERMS = (
    Term(
        "g-fair-share",
        "fair share",
        r"\bfair share\b",
        "The win rate each player would have if seat, policy and cards did not matter: the "
        "average win rate of a player at that player count, 1 ÷ players, a little more where "
        "some games end in a shared win (26.1% at 4 players when a few games are tied).",
    ),
    Term(
        "g-points",
        "points",
        r"\bpoints\b",
        "Percentage points: the difference of two percentages. A first player who wins 38% "
        "where the fair share is 34.5% is 3.5 points above it.",
    ),
    Term(
        "g-interval",
        "95% interval",
        r"95% (?:CI|interval)",
        "The range of values the games played are consistent with: a study repeated with new "
        "games would find the true value inside it 95 times in 100. More games, narrower "
        "interval. CI: confidence interval.",
    ),
    Term(
        "g-paired",
        "paired games",
        r"\b[Pp]aired\b",
        "Two rule sets compared on the very same games: the same seeds deal the same cards and "
        "roll the same dice under each (common random numbers), so what differs is the rules' "
        "doing, not luck's, and far fewer games tell the difference apart.",
    ),
    Term(
        "g-scripted",
        "scripted players",
        r"\bscripted\b",
        "Hand-written policies (one that borrows to build, one that hoards cash...) playing "
        "their rules of thumb with the knobs as written. The weakest field of players, and the "
        "fastest.",
    ),
    Term(
        "g-tuned",
        "tuned players",
        r"\btuned\b",
        "The scripted policies with knob sets tuned to win under the printed rules (shipped in "
        "each game's rules.toml).",
    ),
    Term(
        "g-adapted",
        "adapted players",
        r"\badapted\b",
        "The tuned policies tuned again under the rules being measured, one adaptation per "
        "variant: a rule change is judged with players who have learnt to play it.",
    ),
    Term(
        "g-search",
        "search player",
        r"\bsearch\b",
        "A player that tries each of its options by playing the game out many times (rollouts) "
        "and picks the one that wins most: the strongest player, and the slowest.",
    ),
    Term(
        "g-assumed",
        "ASSUMED",
        r"\bASSUMED\b",
        "A value the rulebook does not print (a card's number, a rule it is silent on): balsim "
        "plays an assumption, marked ASSUMED with its reason in the game's rules.toml. A "
        "finding that rests on one is a what-if until the designer confirms the value; the "
        "sensitivity screens say which findings move with it.",
    ),
    Term(
        "g-effect",
        "effect",
        r"(?<!no )\beffects?\b",
        "A verdict: the difference is real, its 95% interval (after Holm's correction where many "
        "are tested together) excludes zero.",
    ),
    Term(
        "g-no-effect",
        "no effect within a margin",
        r"\bno (?:effect|change beyond|skill gap)\b",
        "A verdict: an equivalence test (two one-sided tests) places the difference within the "
        "stated margin, e.g. ±2 points of a win rate. Only this verdict calls a rule balanced.",
    ),
    Term(
        "g-inconclusive",
        "inconclusive",
        r"\binconclusive\b|\bnot significant\b",
        "A verdict: neither an effect nor within the margin. The games could have seen an "
        "effect of the size stated (at 80% power); more games would tell.",
    ),
)
# text inside these elements is never linked (links, charts, headings, code, the head)
SKIPPED = ("a", "svg", "style", "title", "code", "h1", "h2", "h3", "h4", "summary")
TAG = re.compile(r"(<[^>]*>)")


def link_terms(page: str) -> str:
    """``page`` with the first use of each term in its text linked to its glossary entry."""
    pieces = TAG.split(page)
    open_skipped: list[str] = []
    todo = list(TERMS)
    for k, piece in enumerate(pieces):
        if not todo:
            break
        if k % 2:  # a tag
            name = re.match(r"</?\s*([a-zA-Z0-9]+)", piece)
            if name and name.group(1).lower() in SKIPPED and not piece.endswith("/>"):
                if piece.startswith("</"):
                    if open_skipped:
                        open_skipped.pop()
                else:
                    open_skipped.append(name.group(1).lower())
            continue
        if open_skipped or not piece.strip():
            continue
        pieces[k], todo = link_first(piece, todo)
    return "".join(pieces)


def link_first(text: str, todo: list[Term]) -> tuple[str, list[Term]]:
    """The text with its first match of each pending term linked; the terms still pending."""
    found = []
    for term in todo:
        m = re.search(term.pattern, text)
        if m:
            found.append((m.start(), m.end(), term))
    found.sort(key=lambda f: f[0])
    out, at, done = [], 0, set()
    for start, end, term in found:
        if start < at:  # overlaps a term just linked: left for a later text
            continue
        out += [text[at:start], f"<a class='term' href='#{term.anchor}'>{text[start:end]}</a>"]
        at = end
        done.add(term.anchor)
    out.append(text[at:])
    return "".join(out), [t for t in todo if t.anchor not in done]


def glossary_section() -> str:
    entries = "".join(
        f"<dt id='{t.anchor}'>{html.escape(t.word)}</dt><dd>{html.escape(t.meaning)}</dd>"
        for t in TERMS
    )
    return f"<section class='glossary' id='glossary'><h2>Glossary</h2><dl>{entries}</dl></section>"
