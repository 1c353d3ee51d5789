"""Sensitivity screens in the playtest report: one section per screen, and each balance flag of
the same game and player count marked robust to the screened keys or dependent on named ones.

A flag's finding is matched to the screen metric that measures it: a seat's win rate
(``win_rate:seat=S``), a policy's, a character's or a team's (``win_rate:GROUP=NAME``), the
round-cap rate, the excess after a left neighbour (``neighbour_excess:policy=NAME``), the
presidency edge, the runaway-leader rate, a policy's loan-cap or delinquency rate (named by the
flag).  A variant's flag is marked as not screened, with why: the screen moves keys under the
base rules only.  A flag whose metric the screen does not have (a seat beyond its player
count, a policy outside its line-up) says so rather than be given a verdict about another
number.
"""

from __future__ import annotations

import json
from pathlib import Path

from simulator.report.flags import SIDE_NAMES, Flag, Sensitivity
from simulator.run.outputs import OUT_MARK

GROUP_OF_KIND = {
    "dominant policy": "policy",
    "weak policy": "policy",
    "dominant character": "character",
}
KIND_METRICS = {"presidency": "presidency_edge", "runaway": "runaway_rate"}
VARIANT_REASON = (
    "a variant's effect is a difference between two rule sets, and the screen "
    "moves the assumed keys under the base rules only (screening it would replay "
    "every run under each variant)"
)


def is_screen(path: Path) -> bool:
    """Whether ``path`` is a ``balsim sensitivity`` output folder."""
    try:
        return (
            json.loads((Path(path) / OUT_MARK).read_text(encoding="utf-8")).get("tool")
            == "sensitivity"
        )
    except (OSError, ValueError):
        return False


def split_screens(dirs: list[Path]) -> tuple[list[Path], list[Path]]:
    """(dataset folders, sensitivity folders) of the folders given to the report."""
    screens = [Path(d) for d in dirs if is_screen(Path(d))]
    return [Path(d) for d in dirs if Path(d) not in screens], screens


def flag_metric(flag: Flag) -> str | None:
    """The screen metric that measures the flag's finding, or None."""
    if flag.kind == "seat":
        return f"win_rate:seat={flag.subject.removeprefix('seat ')}"
    if flag.kind == "team":
        side = next(k for k, v in SIDE_NAMES.items() if v == flag.subject)
        return f"win_rate:side={side}"
    if flag.kind in GROUP_OF_KIND:
        return f"win_rate:{GROUP_OF_KIND[flag.kind]}={flag.subject}"
    if flag.kind == "round_cap":
        return "round_cap_rate"
    if flag.kind == "left neighbour":
        return f"neighbour_excess:policy={flag.subject}"
    return KIND_METRICS.get(flag.kind, flag.metric or None)


def mark_flags(flags: list[Flag], screens: list[Path]) -> None:
    """Fill ``Flag.sensitivity`` from the screen of the flag's game, at the flag's player count
    when there is one (else the screen's count is named)."""
    from simulator.experiments.sensitivity import dependencies, read

    found: dict[str, dict[int, tuple]] = {}
    for path in screens:
        summary, _ = read(path)
        keys = tuple(f["key"] for f in summary["factors"])
        found.setdefault(summary["game"], {})[len(summary["lineup"])] = (
            dependencies(path),
            keys,
            summary["metrics"],
        )
    for flag in flags:
        metric, by_count = flag_metric(flag), found.get(flag.game, {})
        players = flag.n_players if flag.n_players in by_count else min(by_count, default=0)
        if not players:
            continue
        depends, keys, metrics = by_count[players]
        other = 0 if players == flag.n_players else players
        if metric in depends:
            flag.sensitivity = Sensitivity(tuple(depends[metric]), keys, other)
        elif flag.kind == "variant":
            flag.sensitivity = Sensitivity((), keys, other, VARIANT_REASON)
        elif metric in metrics:
            flag.sensitivity = Sensitivity(
                (),
                keys,
                other,
                f"{metric} is undefined in some of the screen's runs (none of their games has it)",
            )
        else:
            flag.sensitivity = Sensitivity(
                (),
                keys,
                other,
                f"the screen at {players} players has no {metric or 'metric of it'}",
            )


def screen_sections(screens: list[Path]) -> list[str]:
    from simulator.experiments.sensitivity import html_section

    return [html_section(path) for path in screens]
