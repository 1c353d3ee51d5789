"""Rules keys as the experiments vary them: setting dotted keys (:func:`with_values`), a
key's numeric value and scaling, and the range a numeric key may take under the game's checks
(:func:`checked_range`, :func:`key_step`)."""

from __future__ import annotations

import numpy as np

from simulator.core.game import Game
from simulator.core.limits import VALUE
from simulator.core.rules import RulesError, lookup, merge, nest_all


def with_values(rules: dict, values: dict) -> dict:
    """``rules`` with each dotted key set to its value (checked like ``--set``), in one merge."""
    return merge(rules, nest_all(values)) if values else rules


def parse_span(key: str, span: str) -> tuple[float, float]:
    """``LOW:HIGH`` given with a key (``K=LOW:HIGH``)."""
    try:
        low, high = (float(v) for v in span.split(":"))
    except ValueError:
        raise RulesError(key, f"expected {key}=LOW:HIGH, got '{span}'") from None
    for end in (low, high):
        if not VALUE.holds(end):
            raise RulesError(key, f"{end:g} is not in the range {VALUE}")
    return low, high


def numeric_value(rules: dict, key: str):
    """The default value of a numeric rules key (int, float, or a list of numbers)."""
    value = lookup(rules, key)
    numbers = value if isinstance(value, list) else [value]
    if not numbers or not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in numbers
    ):
        raise RulesError(key, "not a number (only numeric keys can be varied)")
    return value


def scaled(default, factor: float):
    """``default`` (a number or a list of numbers) times ``factor``; integers stay integers."""
    if isinstance(default, list):
        return [scaled(v, factor) for v in default]
    value = default * factor
    return int(round(value)) if isinstance(default, int) else float(value)


def accepts(game: Game, rules: dict, key: str, value) -> bool:
    """Whether the game's checks accept ``key = value``."""
    try:
        game.validate(with_values(rules, {key: value}))
        return True
    except RulesError:
        return False


def key_step(game: Game, rules: dict, key: str) -> int:
    """The spacing of an integer key's values: the smallest of 1, 2, 5, 10, 20, 50, ... that
    the game's checks accept next to the current value (a loan cap counted in $5,000 notes
    moves by 5,000); 1 for a real key."""
    default = numeric_value(rules, key)
    if not isinstance(default, int) or isinstance(default, bool):
        return 1
    scale = 1
    while scale <= max(abs(default), 1):
        for step in (scale, 2 * scale, 5 * scale):
            if accepts(game, rules, key, default + step) or accepts(
                game, rules, key, default - step
            ):
                return step
        scale *= 10
    return 1


def on_lattice(value: float, origin: int, step: int) -> int:
    """The integer nearest ``value`` among ``origin + k * step``."""
    return int(origin + round((value - origin) / step) * step)


def lattice_range(low: float, high: float, origin: int, step: int) -> tuple[int, int]:
    """The first and the last of ``origin + k * step`` inside ``[low, high]``."""
    return (
        int(origin + np.ceil((low - origin) / step) * step),
        int(origin + np.floor((high - origin) / step) * step),
    )


def checked_range(
    game: Game, rules: dict, key: str, low: float, high: float, step: int = 1
) -> tuple[float, float]:
    """The part of ``[low, high]`` that the game's checks accept for ``key`` around its
    current value, found by bisection (checks are bounds, so the accepted set is an interval);
    an integer key moves in ``step`` from its current value.  RulesError when the current
    value's neighbourhood is not accepted at all."""
    default = numeric_value(rules, key)
    if isinstance(default, list):
        raise RulesError(key, "a list cannot be searched; name one number")
    integer = isinstance(default, int)
    # integers: bisect on k in default + k * step; reals: on the value itself
    value = (lambda k: default + k * step) if integer else float
    ok = lambda k: accepts(game, rules, key, value(k))  # noqa: E731

    def edge(inside, outside):
        if ok(outside):
            return outside
        for _ in range(64):
            if abs(outside - inside) <= (1 if integer else 1e-6 * max(1.0, abs(inside))):
                break
            middle = (inside + outside) // 2 if integer else (inside + outside) / 2
            inside, outside = (middle, outside) if ok(middle) else (inside, middle)
        return inside

    if integer:
        low, high = ((v - default) // step for v in lattice_range(low, high, default, step))
        start = min(max(0, low), high)
    else:
        start = min(max(default, low), high)
    if not ok(start):
        raise RulesError(key, f"the game's checks refuse {value(start)}")
    return value(edge(start, low)), value(edge(start, high))
