"""The range of every number a user gives, and the one check they all pass.

A command's numeric options are checked as they are parsed (``simulator.cli.options.number``
makes their type from a :class:`Range`, and ``--help`` shows it); a number written inside an
option's text (``--target METRIC=VALUE``, ``--key K=LOW:HIGH``, ``--range LOW,HIGH``) goes
through :meth:`Range.check` too.  Either way a number that is not finite (nan, inf) or lies
outside its range stops the command before any game, in one line naming the option.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from simulator.core.errors import UserError
from simulator.core.rules import MAX_MAGNITUDE

# Games a tool plays in one budget (a tune, a fit, a screen's run, a matrix cell, an
# adaptation): they are held in memory as they are measured, so 10^8 games (a few GB of
# outcomes, hours on a cluster) is as far as one budget goes.  A dataset streams its games to
# disk and has its own bound (simulator.run.plan.MAX_PARTS x MAX_CHUNK).
MAX_GAMES = 100_000_000
MAX_SCALE = 1_000  # `study --scale`: 1,000 times the study is 20 million games a dataset
MAX_JOBS = 4_096  # worker processes (more than any machine's cores; capped to them locally)
MAX_MARGIN_POINTS = 50  # no edge of a win rate over its fair share can exceed 50 points...
# ...at two players; a margin wider than that would call anything balanced


@dataclass(frozen=True)
class Range:
    """The numbers an option accepts: finite, between ``low`` and ``high`` (each included
    unless open), whole numbers only when ``integer``."""

    low: float
    high: float
    integer: bool = False
    low_open: bool = False
    high_open: bool = False

    def __str__(self) -> str:
        """As ``--help`` shows a range (click's notation): ``0<x<=50``."""
        below = "<" if self.low_open else "<="
        above = "<" if self.high_open else "<="
        return f"{shown(self.low)}{below}x{above}{shown(self.high)}"

    def holds(self, number: float) -> bool:
        if isinstance(number, float) and not math.isfinite(number):
            return False
        above_low = number > self.low if self.low_open else number >= self.low
        below_high = number < self.high if self.high_open else number <= self.high
        return above_low and below_high

    def check(self, value, name: str = "") -> int | float:
        """``value`` (a number, or its text) as an int or float within the range; else a
        UserError ``NAME: VALUE is not in the range LOW<=x<=HIGH``."""
        prefix = f"{name}: " if name else ""
        text = str(value).strip()
        try:
            if isinstance(value, bool):
                raise ValueError(value)
            number = int(text) if self.integer else float(text)
        except ValueError:
            kind = "a whole number" if self.integer else "a number"
            raise UserError(f"{prefix}{text!r} is not {kind}") from None
        if not self.holds(number):
            raise UserError(f"{prefix}{text} is not in the range {self}")
        return number


# a rules value, a bound of a key's range, or a metric's target (--target, --key K=LOW:HIGH)
VALUE = Range(-MAX_MAGNITUDE, MAX_MAGNITUDE)


def shown(number: float) -> str:
    """A bound as a reader takes it in: whole numbers with thousands separators."""
    return f"{int(number):,}" if float(number).is_integer() else f"{number:g}"
