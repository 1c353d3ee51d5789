"""Variants of a sweep: the base rules, a grid of --vary values, and named rules files."""

from __future__ import annotations

import itertools

from simulator.core.game import Game
from simulator.core.rules import RulesError, load_toml, lookup, merge, nest, parse_set, toml_value
from simulator.run.plan import Variant

BASE = "base"


def split_values(text: str) -> list[str]:
    """Split ``v1,v2,...`` on commas outside brackets and quotes (values may be TOML lists)."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def column_name(key: str) -> str:
    return key.replace(".", "_").replace("-", "_")


def column_value(value):
    """Scalars stay as they are; lists and tables become their TOML text."""
    if isinstance(value, (bool, int, float, str)):
        return value
    return toml_value(value)


def same_value(a, b) -> bool:
    """Equal as rules values: 5 and 5.0 are one value, true and 1 are not."""
    return a == b and isinstance(a, bool) == isinstance(b, bool)


def grid_variants(
    game: Game, base: dict, varies: tuple[str, ...], variant_files: tuple[str, ...]
) -> list[Variant]:
    """The base variant, then the product of every --vary list, then each named file.

    Every variant's rules are validated here, before any game runs.
    """
    axes = []
    for vary in varies:
        key, _, values = vary.partition("=")
        key = key.strip()
        if not values.strip():
            raise RulesError(key or vary, "--vary needs KEY=V1,V2,...")
        lookup(base, key)
        if key in (axis[0][0] for axis in axes):
            raise RulesError(key, "given in two --vary options; list all its values in one")
        axis = [(key, parse_set(f"{key}={v}", base)[1]) for v in split_values(values)]
        for i, (_, value) in enumerate(axis):
            if any(same_value(value, earlier) for _, earlier in axis[:i]):
                raise RulesError(key, f"--vary lists the value {toml_value(value)} twice")
        axes.append(axis)
    keys = [axis[0][0] for axis in axes]
    base_values = {column_name(k): column_value(lookup(base, k)) for k in keys}
    variants = [Variant(BASE, base, base_values)]
    seen = {BASE}
    for combo in itertools.product(*axes):
        rules = base
        for key, value in combo:
            rules = merge(rules, nest(key, value))
        game.validate(rules, base)
        if rules == base:
            continue
        name = ",".join(f"{key}={column_value(value)}" for key, value in combo)
        variants.append(Variant(name, rules, {column_name(k): column_value(v) for k, v in combo}))
        seen.add(name)
    for item in variant_files:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise RulesError(item, "--variant needs NAME=FILE")
        if name in seen:
            raise RulesError(item, f"variant name '{name}' is used twice")
        rules = merge(base, load_toml(path))
        game.validate(rules, base)
        values = {column_name(k): column_value(lookup(rules, k)) for k in keys}
        variants.append(Variant(name, rules, values))
        seen.add(name)
    return variants
