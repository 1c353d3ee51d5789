"""The balance flags box: the merged flags as a list, each with its annotations, and the
footer that says how flags are ranked and thresholded."""

from __future__ import annotations

import html

from simulator.report.flags import (
    MAX_ALSO,
    MAX_HEADLINES,
    MIN_BASIS_GAMES,
    THRESHOLDS,
    Flag,
    merge_flags,
)
from simulator.report.whatifs import is_what_if, what_if_text


def flag_item(f: Flag) -> str:
    """One flag as a list item: its sentence, the other player counts and variants where the
    finding holds, its annotations, and a link to its chart."""
    others = [g for g in f.also if g.text != f.text]
    counts = sorted({f.n_players, *(g.n_players for g in others)})
    marks = []
    if others:
        also = "; ".join(f"{g.where}: {g.evidence}" for g in others[:MAX_ALSO])
        more = f"; {len(others) - MAX_ALSO} more" if len(others) > MAX_ALSO else ""
        marks.append(f"Holds at {', '.join(map(str, counts))} players. Also {also}{more}.")
    if f.assumed:
        marks.append(what_if_text(f))
    for note in (f.strong_field, f.challenge, f.sensitivity):
        if note is not None:
            text = note.text()
            marks.append(text[0].upper() + text[1:] + ".")
    if f.games < MIN_BASIS_GAMES:
        marks.append(
            f"Rests on {f.games:,} games per arm, fewer than the {MIN_BASIS_GAMES:,} a flag "
            "of the first screen needs."
        )
    notes = "".join(f"<span class='marks'>{html.escape(m)}</span>" for m in marks)
    field = f.field_name or "scripted"
    return (
        f"<li><b>{html.escape(f.text)}</b> ({html.escape(field)} field, {f.games:,} games) "
        f"<a href='#{f.anchor}'>→ chart: "
        f"{html.escape(f.chart)}</a>{notes}</li>"
    )


def flags_html(flags: list[Flag]) -> str:
    """The balance flags box: the first MAX_HEADLINES merged findings about the printed
    rules, the rest folded, then the what-ifs on assumed data (:func:`is_what_if`)."""
    merged = merge_flags(flags)
    what_ifs = [f for f in merged if is_what_if(f)]
    merged = [f for f in merged if not is_what_if(f)]
    if merged:
        based = [f for f in merged if f.games >= MIN_BASIS_GAMES]
        heads = based[:MAX_HEADLINES]
        rest = [f for f in merged if not any(f is h for h in heads)]
        body = "<ol>" + "".join(flag_item(f) for f in heads) + "</ol>"
        if rest:
            body += (
                f"<details><summary>{len(rest)} more flag(s)</summary>"
                f"<ol start='{MAX_HEADLINES + 1}'>"
                + "".join(flag_item(f) for f in rest)
                + "</ol></details>"
            )
    else:
        body = "<p>No finding about the printed rules crossed a threshold.</p>"
    if what_ifs:
        body += (
            f"<div class='whatifs'><h3>What-ifs on assumed data</h3><p class='note'>"
            f"{len(what_ifs)} finding(s) that rest on values the rulebook does not print "
            f"(marked ASSUMED in the rules data): what the game would do if the invented "
            f"cards and rules were the real ones. They never count among the flags above.</p>"
            "<ol>" + "".join(flag_item(f) for f in what_ifs) + "</ol></div>"
        )
    return (
        f"<div class='flags'><h2>Balance flags</h2>{body}<p class='note'>"
        f"{html.escape(footer())}</p></div>"
    )


# each threshold in words, with its value's place marked {}; every key of THRESHOLDS is here
THRESHOLD_WORDS = {
    "seat": "a seat {} off its fair share",
    "seat_p_value": "for a seat, the chi-square test over seats rejecting equal shares at p < {}",
    "dominant_policy": "a policy {} above its fair share",
    "weak_policy": "a scripted policy {} below its fair share",
    "character": "a character's players {} above the same policies' other players",
    "team": "a team {} off its fair share, each player's policy held fixed",
    "neighbour": "sitting after a policy moving its players' win rate by {}",
    "variant": "a rule variant moving a win rate by {}",
    "presidency": "the top company's president {} above the fair share",
    "runaway_rate": "the leader two thirds into the game winning at least {} of games",
    "round_cap_rate": "at least {} of games ending at the round cap",
    "loan_cap_binding": "at least {} of a policy's players reaching the loan cap",
    "delinquency_rate": "at least {} of a policy's players with a delinquent notice",
}


def threshold_text(key: str, value: float) -> str:
    """One threshold in plain words: "a seat 2 points off its fair share"."""
    if key == "seat_p_value":
        shown = f"{value:g}"
    elif key.endswith("_rate") or key == "loan_cap_binding":
        shown = f"{100 * value:g}%"
    else:
        shown = f"{100 * value:g} points"
    return THRESHOLD_WORDS[key].format(shown)


def footer() -> str:
    """How the flags are ranked and when a finding becomes one, in words."""
    shown = "; ".join(threshold_text(k, v) for k, v in THRESHOLDS.items())
    return (
        "Every finding about a win rate is measured on one scale, its effect on that win rate "
        "in points at the end of its 95% interval nearest no effect (the fair share, or no "
        "change), and becomes a flag when that end lies at least its threshold away, the same "
        "way for every rule; flags are ranked by it. Findings about how games run (round "
        "cap, loans) follow, flagged when their interval's lower end reaches their level and "
        "ranked by how far past it. One flag per finding, the player counts where it holds "
        "listed. Intervals take the game as the unit (teammates count once). A fair share is "
        "the win rate of an average player at that player count. The first screen's flags "
        f"each rest on at least {MIN_BASIS_GAMES:,} games per arm; each names the field of "
        f"players it was measured with. Thresholds: {shown}."
    )
