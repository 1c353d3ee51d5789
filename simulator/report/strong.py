"""Findings with strong players: a strong field's own flags, each scripted flag measured
again with strong players and each strong flag with scripted ones, and the challenge
evidence of a strong field's dominant policy.

A *strong-field* dataset is one in which no seat plays a built-in scripted policy: every seat
is a knob set (tuned, adapted) or the search player (the study's ``GAME-4p-strong``).  Its
rules raise flags of their own, like a scripted dataset's (a dominant tuned policy, a seat, a
character), named with their field.  Each flag is measured in the other field's dataset of its
game (at the flag's player count, else the nearest) at the same variant, and says whether it
holds at every strength (:class:`~simulator.report.flags.FieldCheck`):

* seat, team and policy win rates against the fair share (a policy is read from its copy in
  the other field: ``NAME_tuned`` for ``NAME``, ``NAME`` for ``NAME_tuned``), a character's or
  the presidency's excess and a variant's paired change against zero: the finding holds when
  the other field's 95% interval lies wholly on the same side as its own number, it *depends
  on player strength* when that interval lies wholly on the other side, and otherwise it is
  not shown there (the interval reaches no effect);
* the round-cap and runaway-leader rates, findings about a level, hold when the other field's
  rate still reaches the flag's threshold.

A strong field's dominant policy is then challenged (``balsim challenge``: re-tuned challengers
and a search seat against a field of it; the study plays one per such flag), and the flag
shows the verdict (:func:`attach_challenges`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from simulator.analysis import Dataset, win_rates
from simulator.core.game import GAME_NAMES, get_game
from simulator.experiments.rungs import COPY_SUFFIXES, scripted_name
from simulator.report.flags import (
    FLIPS,
    HOLDS,
    NOT_SHOWN,
    SIDE_NAMES,
    THRESHOLDS,
    ChallengeCheck,
    FieldCheck,
    Flag,
    Rules,
)
from simulator.report.page import group_text, interval, pct
from simulator.run.outputs import out_record

CHALLENGE_TOOL = "challenge"
STRONG = "strong"  # the field of a strong dataset that records none


def is_strong(ds: Dataset) -> bool:
    """No seat plays a built-in scripted policy (every seat is a knob set or ``search``)."""
    if ds.game not in GAME_NAMES:
        return False
    builtin = {p.name for p in get_game(ds.game).policies} - {"search"}
    seats = ds.manifest.get("seats") or []
    return bool(seats) and not any(s in builtin for s in seats)


@dataclass(frozen=True)
class Measure:
    value: float
    low: float
    high: float
    reference: float  # no effect (or the flag's threshold, for a level)
    level: bool  # a rate that matters above a threshold, not a difference from none
    text: str
    group: str = ""  # a variant's change: the group it is measured in (e.g. "seat=0")

    def compared_with(self, mine: "Measure") -> str:
        """HOLDS, FLIPS or NOT_SHOWN: this measure (in another field) of ``mine``'s finding."""
        if self.level:
            return HOLDS if self.value >= self.reference else NOT_SHOWN
        above, below = self.low > self.reference, self.high < self.reference
        same, other = (above, below) if mine.value >= mine.reference else (below, above)
        return HOLDS if same else FLIPS if other else NOT_SHOWN


def rate_text(value, low, high, prefix="") -> str:
    return f"{prefix}{pct(value)} ({interval(low, high)})"


def points_text(value, low, high, prefix="") -> str:
    return (
        f"{prefix}{100 * value:+.1f} points (95% CI {100 * low:+.1f} to {100 * high:+.1f})"
    ).replace("-", "−")


def row(res: dict, table: str, column: str, value) -> dict | None:
    df = res.get(table)
    if df is None or column not in df.columns:
        return None
    hit = df.filter(pl.col(column).cast(pl.String) == str(value))
    return hit.row(0, named=True) if hit.height else None


def variant_row(res: dict, table: str, variant: str) -> dict | None:
    """A per-variant table's row for ``variant`` (the only row when it has no variants)."""
    df = res.get(table)
    if df is None or df.is_empty():
        return None
    if "variant" not in df.columns:
        return df.row(0, named=True)
    return row(res, table, "variant", variant)


def copies(name: str) -> list[str]:
    """``name`` and the names of the same policy on the other rungs, ``name`` first."""
    base = scripted_name(name)
    return list(dict.fromkeys([name, *(base + s for s in COPY_SUFFIXES), base]))


def policy_name(res: dict, name: str) -> str:
    """The policy a finding about ``name`` is read from: itself, else its copy on another
    rung (``scholar`` -> ``scholar_tuned`` in a tuned field, and back)."""
    found = [n for n in copies(name) if row(res, "win_rate_policy", "policy", n) is not None]
    return found[0] if found else name


def measure(flag: Flag, res: dict, variant: str, like: Measure | None = None) -> Measure | None:
    """The number behind ``flag`` in one dataset's results, or None if it has none.  ``like``
    is the flag's own field's measure when this is the other field's."""
    kind, subject = flag.kind, flag.subject
    if kind == "seat":
        r = row(res, "win_rate_seat", "seat", subject.removeprefix("seat "))
        return r and Measure(
            r["win_rate"],
            r["win_rate_lo"],
            r["win_rate_hi"],
            r["fair_share"],
            False,
            rate_text(r["win_rate"], r["win_rate_lo"], r["win_rate_hi"]),
        )
    if kind in ("dominant policy", "weak policy"):
        name = policy_name(res, subject)
        r = row(res, "win_rate_policy", "policy", name)
        return r and Measure(
            r["win_rate"],
            r["win_rate_lo"],
            r["win_rate_hi"],
            r["fair_share"],
            False,
            rate_text(r["win_rate"], r["win_rate_lo"], r["win_rate_hi"], f"{name} "),
        )
    if flag.within:  # a level's win rate over the same policies' other players
        table, level = flag.within
        r = row(res, table, "level", level)
        return r and Measure(
            r["excess"],
            r["excess_lo"],
            r["excess_hi"],
            0.0,
            False,
            points_text(r["excess"], r["excess_lo"], r["excess_hi"]),
        )
    if kind == "team":
        level = next(k for k, v in SIDE_NAMES.items() if v == subject)
        r, raw = row(res, "stratified_side", "level", level), res.get("win_rate_side")
        return (
            r
            and raw is not None
            and Measure(
                r["adjusted_rate"],
                r["adjusted_rate_lo"],
                r["adjusted_rate_hi"],
                raw["fair_share"][0],
                False,
                rate_text(r["adjusted_rate"], r["adjusted_rate_lo"], r["adjusted_rate_hi"]),
            )
        )
    if kind == "variant":
        return variant_change(res, subject, like)
    if kind in ("round_cap", "runaway"):
        table, limit = (
            ("round_cap", "round_cap_rate")
            if kind == "round_cap"
            else ("runaway_leader", "runaway_rate")
        )
        r = variant_row(res, table, variant)
        return r and Measure(
            r["rate"],
            r["rate_lo"],
            r["rate_hi"],
            THRESHOLDS[limit],
            True,
            rate_text(r["rate"], r["rate_lo"], r["rate_hi"]),
        )
    return None


def variant_change(res: dict, variant: str, like: Measure | None) -> Measure | None:
    """The variant's largest significant win-rate change in the flag's own field (the one it
    names); in the other field, the change in the same group (a policy's copy there)."""
    df = res.get("paired_change")
    if df is None or "variant" not in df.columns:
        return None
    rows = df.filter((pl.col("variant") == variant) & (pl.col("metric") == "win_rate"))
    if like is None:
        rows = rows.filter(pl.col("significant"))
    else:
        group = like.group
        if group.startswith("policy="):
            there = [g for g in copies(group) if g in rows["group"]]
            group = there[0] if there else group
        rows = rows.filter(pl.col("group") == group)
    if rows.is_empty():
        return None
    r = rows.sort(pl.col("mean_diff").abs(), descending=True).row(0, named=True)
    return Measure(
        r["mean_diff"],
        r["diff_lo"],
        r["diff_hi"],
        0.0,
        False,
        f"{group_text(r['group'])} {pct(r['base_mean'])} → {pct(r['variant_mean'])} "
        f"(change {interval(r['diff_lo'], r['diff_hi'])})",
        r["group"],
    )


def variant_of(flag: Flag, ds: Dataset) -> str:
    """The variant a flag was found in (named in its ``where``), else the base rules."""
    names = [v["name"] for v in ds.variants]
    found = re.search(r", variant (\S+)\)$", flag.where)
    return found.group(1) if found and found.group(1) in names else (names[0] if names else "")


def field_of(ds: Dataset) -> str:
    return ds.manifest.get("field") or STRONG


def strong_flags(strong: list[tuple]) -> list[Flag]:
    """The flags the strong-field datasets raise of their own, each naming its field;
    ``strong`` holds ``(index, dataset, results)`` triples."""
    out = []
    for i, ds, res in strong:
        field = field_of(ds)
        for flag in Rules(i, ds, res).flags():
            flag.field_name = field
            flag.text = flag.text.replace(f"{ds.label}: ", f"{ds.label}, {field} field: ", 1)
            out.append(flag)
    return out


def dominant_policies(ds: Dataset) -> list[str]:
    """The policies a flag calls dominant in ``ds`` (its base rules)."""
    names = [v["name"] for v in ds.variants]
    players = ds.players
    if len(names) > 1:
        players = players.filter(pl.col("variant") == names[0])
    rules = Rules(0, ds, {"win_rate_policy": win_rates(players, "policy")})
    rules.policies()
    return [f.subject for f in rules.out if f.kind == "dominant policy"]


def annotate(flags: list[Flag], scripted: list[tuple], strong: list[tuple]) -> None:
    """Set ``strong_field`` on every flag the other field's datasets can check: a scripted
    flag against the strong datasets, a strong flag against the scripted ones.

    ``scripted`` and ``strong`` are ``(index, dataset, results)`` triples."""
    for flag in flags:
        own = [m for m in (strong if flag.field_name else scripted) if m[1].game == flag.game]
        if flag.field_name:
            own = [m for m in own if field_of(m[1]) == flag.field_name]
        pairs = [
            (o, m)
            for o in (scripted if flag.field_name else strong)
            if o[1].game == flag.game
            for m in own
            if m[1].n_players == o[1].n_players
        ]
        if not pairs:
            continue
        o, m = min(pairs, key=lambda p: abs(p[0][1].n_players - flag.n_players))
        variant = variant_of(flag, m[1])
        mine = measure(flag, m[2], variant)
        other = measure(flag, o[2], variant, mine) if mine else None
        if not other:
            continue
        where = "" if o[1].n_players == flag.n_players else f" at {o[1].n_players} players"
        flag.strong_field = FieldCheck(
            other.compared_with(mine),
            mine.text + where,
            other.text + where,
            flag.field_name or "scripted",
            field_of(o[1]) if not flag.field_name else "scripted",
        )


# ---- challenge evidence -----------------------------------------------------------------


def split_challenges(dirs: list[Path]) -> tuple[list[Path], list[dict]]:
    """(other folders, the records of the ``challenge`` folders) of the report's folders."""
    records = {Path(d): out_record(Path(d)) for d in dirs}
    found = {d: r for d, r in records.items() if r and r.get("tool") == CHALLENGE_TOOL}
    return [Path(d) for d in dirs if Path(d) not in found], list(found.values())


def attach_challenges(flags: list[Flag], records: list[dict]) -> None:
    """Give every dominant-policy flag the challenge played against its policy (same game,
    player count and field); ``records`` are challenge folders' records, each holding the
    ``challenges`` of one game's strong field."""
    played = [c for r in records for c in r["challenges"]]
    for flag in flags:
        if flag.kind != "dominant policy":
            continue
        for r in played:
            if (r["game"], r["incumbent"], r["n_players"], r["field"]) == (
                flag.game,
                flag.subject,
                flag.n_players,
                flag.field_name,
            ):
                best = max(r["challengers"], key=lambda c: c["win"])
                flag.challenge = ChallengeCheck(
                    r["dominant"],
                    r["verdict"],
                    f"{best['name']} {rate_text(best['win'], best['low'], best['high'])} "
                    f"on held-out games",
                )
