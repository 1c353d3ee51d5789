"""Does a balance flag hold with strong players?  Fills :attr:`Flag.strong_field`.

A *strong-field* dataset is one in which no seat plays a built-in scripted policy: every seat
is a tuned knob set or the search player (the study's ``GAME-4p-strong``).  Each flag about
the rules, seats, characters, teams or policies of a game is measured again in the game's
strong-field dataset (the one at the flag's player count, else the nearest) and, for a fair
comparison, in the scripted dataset at that same player count and variant.

The verdict compares the strong field with what *no effect* would be:

* seat, team and policy win rates against the fair share (a policy's finding is read from its
  tuned copy, ``NAME_tuned``, in the strong field), a character's or the presidency's excess
  and a variant's paired change against zero: the finding holds when the strong field's 95%
  interval lies wholly on the same side as the scripted number;
* the round-cap and runaway-leader rates, findings about a level, hold when the strong field's
  rate still reaches the flag's threshold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import polars as pl

from simulator.analysis import Dataset
from simulator.core.game import GAME_NAMES, get_game
from simulator.report.flags import SIDE_NAMES, THRESHOLDS, FieldCheck, Flag
from simulator.report.page import interval, pct

TUNED_SUFFIX = "_tuned"


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

    def holds_like(self, scripted: "Measure") -> bool:
        if self.level:
            return self.value >= self.reference
        if scripted.value >= scripted.reference:
            return self.low > self.reference
        return self.high < self.reference


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


def policy_name(res: dict, name: str, strong: bool) -> str:
    """The policy a finding about ``name`` is read from: its tuned copy in the strong field."""
    if strong and row(res, "win_rate_policy", "policy", name + TUNED_SUFFIX) is not None:
        return name + TUNED_SUFFIX
    return name


def measure(flag: Flag, res: dict, variant: str, like: Measure | None = None) -> Measure | None:
    """The number behind ``flag`` in one dataset's results, or None if it has none.  ``like``
    is the scripted field's measure when this is the strong field's."""
    strong = like is not None
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
        name = policy_name(res, subject, strong)
        r = row(res, "win_rate_policy", "policy", name)
        return r and Measure(
            r["win_rate"],
            r["win_rate_lo"],
            r["win_rate_hi"],
            r["fair_share"],
            False,
            rate_text(r["win_rate"], r["win_rate_lo"], r["win_rate_hi"], f"{name} "),
        )
    if kind in ("dominant character", "presidency"):
        table, level = (
            ("stratified_character", subject)
            if kind == "dominant character"
            else ("ekonos_presidency_within_policy", "top_president")
        )
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
    """The variant's largest significant win-rate change in the scripted field (the one the
    flag names); in the strong field, the change in the same group (a policy's tuned copy)."""
    df = res.get("paired_change")
    if df is None or "variant" not in df.columns:
        return None
    rows = df.filter((pl.col("variant") == variant) & (pl.col("metric") == "win_rate"))
    if like is None:
        rows = rows.filter(pl.col("significant"))
    else:
        tuned = like.group + TUNED_SUFFIX
        group = tuned if like.group.startswith("policy=") and tuned in rows["group"] else like.group
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
        f"{r['group']} {pct(r['base_mean'])} → {pct(r['variant_mean'])} "
        f"(change {interval(r['diff_lo'], r['diff_hi'])})",
        r["group"],
    )


def variant_of(flag: Flag, ds: Dataset) -> str:
    """The variant a flag was found in (named in its ``where``), else the base rules."""
    names = [v["name"] for v in ds.variants]
    found = re.search(r", variant (\S+)\)$", flag.where)
    return found.group(1) if found and found.group(1) in names else (names[0] if names else "")


def annotate(flags: list[Flag], scripted: list[tuple], strong: list[tuple]) -> None:
    """Set ``strong_field`` on every flag the strong-field datasets can check.

    ``scripted`` and ``strong`` are ``(index, dataset, results)`` triples."""
    for flag in flags:
        pairs = [
            (s, m)
            for s in strong
            if s[1].game == flag.game
            for m in scripted
            if m[1].game == flag.game and m[1].n_players == s[1].n_players
        ]
        if not pairs:
            continue
        s, m = min(pairs, key=lambda p: abs(p[0][1].n_players - flag.n_players))
        variant = variant_of(flag, m[1])
        before = measure(flag, m[2], variant)
        after = measure(flag, s[2], variant, before) if before else None
        if not after:
            continue
        where = "" if s[1].n_players == flag.n_players else f" at {s[1].n_players} players"
        flag.strong_field = FieldCheck(
            after.holds_like(before), before.text + where, after.text + where
        )
