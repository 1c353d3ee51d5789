"""Findings and assumed data: a finding that rests on an ASSUMED value the designer has not
replaced is a *what-if* (reported apart from the flags about the printed rules), and a
sensitivity screen's note on a finding (:class:`Sensitivity`) says which ASSUMED values it
depends on, or whether it is robust to them.  ``f`` below is a
:class:`simulator.report.flags.Flag`."""

from __future__ import annotations

from dataclasses import dataclass

MAX_NAMED_KEYS = 6  # ASSUMED keys a what-if names; the rest counted


def is_what_if(f) -> bool:
    """A finding that rests on ASSUMED rules data the designer has not replaced (an invented
    card, an invented rule): a what-if, never one of the top flags."""
    return bool(f.assumed)


def what_if_text(f) -> str:
    """Which ASSUMED values a what-if rests on, and what decides it."""
    labels = [k.label for k in f.assumed]
    cards = list(dict.fromkeys(k[: k.rfind("]") + 1] for k in labels if "]" in k))
    named = ", ".join(labels[:MAX_NAMED_KEYS]) + (
        f" and {len(labels) - MAX_NAMED_KEYS} more" if len(labels) > MAX_NAMED_KEYS else ""
    )
    if len(f.assumed) == 1:
        named += f" ({f.assumed[0].reason})"
    real = f"card{'s' if len(cards) > 1 else ''} {', '.join(cards)}" if cards else "values"
    return (
        f"What-if on ASSUMED data: it rests on {named}, which the rulebook does not print; "
        f"entering the real {real} (balsim assumed {f.game} --template FILE, then --rules "
        f"FILE) decides it."
    )


@dataclass(frozen=True)
class Sensitivity:
    """What a screen of the assumed values says about a finding: the ASSUMED keys it depends
    on (with their effects), or whether every ASSUMED key it rests on was screened at its
    player count and moves it by less than the screen's margin (equivalence, TOST)."""

    keys: tuple[str, ...] = ()  # the keys with an effect
    depends: tuple[str, ...] = ()  # each of them with its effect and interval, for people
    screened: int = 0  # ASSUMED values the screen judged on the finding's metric
    unscreened: tuple[str, ...] = ()  # ASSUMED keys in play that the screen did not vary
    inconclusive: int = 0  # screened keys with neither verdict
    detectable: str = ""  # the largest effect an inconclusive key could have shown
    margin: str = ""  # the equivalence margin, e.g. "5.0 points"
    players: int = 0  # the screen's player count, when not the flag's own
    reason: str = ""  # why no screen metric measures the finding, if none does

    MAX_NAMED = 4  # keys given with their effects (the largest first), unscreened keys named

    @property
    def robust(self) -> bool:
        """Every assumed key screened at the flag's count, each shown within the margin."""
        return not (
            self.reason or self.players or self.keys or self.unscreened or self.inconclusive
        ) and bool(self.screened)

    def text(self) -> str:
        if self.reason:
            return f"not screened against the assumed values: {self.reason}"
        if self.robust:
            return (
                f"robust to the assumed values: each of the {self.screened} ASSUMED values "
                f"screened moves it by less than ±{self.margin} (equivalence test)"
            )
        parts = [f"not screened at its player count (the screen played {self.players})"] * bool(
            self.players
        )
        if self.depends:
            where = f"at {self.players} players it " if self.players else ""
            rest = self.keys[self.MAX_NAMED :]  # named too, their effects in the screen's section
            parts.append(
                f"{where}depends on ASSUMED values: "
                + "; ".join(self.depends[: self.MAX_NAMED])
                + (f"; also on {', '.join(rest)}" if rest else "")
            )
        if self.inconclusive:
            parts.append(
                f"inconclusive for {self.inconclusive} of the {self.screened} ASSUMED values "
                f"screened"
                + (
                    f" (the screen could detect about ±{self.detectable})"
                    if self.detectable
                    else ""
                )
            )
        if self.unscreened:
            named = ", ".join(self.unscreened[: self.MAX_NAMED])
            more = len(self.unscreened) - self.MAX_NAMED
            parts.append(
                f"{len(self.unscreened)} ASSUMED keys not screened ({named}"
                + (f" and {more} more" if more > 0 else "")
                + ")"
            )
        return "; ".join(parts) or "the screen judged no key on it"
