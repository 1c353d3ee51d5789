"""Which rules keys hold ASSUMED values: derived from the ``# ASSUMED`` marks of a rules.toml.

Where a rulebook is silent or illegible, a game's ``rules.toml`` holds a plausible value marked
``# ASSUMED: why`` (DESIGN.md "Rules as data").  This module reads those marks back, so a
report can say which of its findings rest on assumed data without anyone listing keys by hand.
A key is assumed when

* its own line carries the mark (``cap = 5  # ASSUMED: ...``), or any line of its value does
  (a list written over several lines);
* the comment block directly above it (no blank line between) carries the mark;
* the header of its table carries the mark on its own line (``[board]  # ASSUMED: ...``):
  then every key of that table is.

A mark in a comment block above a table header describes the section, not a key, and marks
nothing.  Keys are dotted paths; entries of an array of tables are indexed, e.g.
``characters[11].karnaxis``, and labelled by their ``name`` for people:
``characters[Nadia].karnaxis``; both are rules keys (:mod:`simulator.core.rules`).  An entry's
``name`` is its label, which no rule plays by, so it is never an assumed key itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import tomllib

from simulator.core.rules import lookup

MARK = "ASSUMED"
LABEL = "name"  # the field that names an entry of an array of tables
_INDEXED = re.compile(r"^(.*)\[(\d+)\]$")


@dataclass(frozen=True)
class AssumedKey:
    key: str  # dotted path, array-of-tables entries indexed: "characters[11].karnaxis"
    label: str  # the same with entries named: "characters[Nadia].karnaxis"
    reason: str  # the mark's text: why the value is assumed


def assumed_keys(path: str | Path) -> dict[str, AssumedKey]:
    """Every assumed key of a rules file, by key, in file order."""
    return dict(_parse(Path(path).read_text(encoding="utf-8")))


@lru_cache(maxsize=16)
def _parse(text: str) -> tuple[tuple[str, AssumedKey], ...]:
    data = tomllib.loads(text)
    return tuple(
        (key, AssumedKey(key, _label(data, key), reason)) for key, reason in marked_keys(text)
    )


def marked_keys(text: str) -> list[tuple[str, str]]:
    """``(key, reason)`` of every marked key of a TOML text (see the module docstring)."""
    lines = text.splitlines()
    table, table_reason, block, counters, out = "", None, [], {}, []
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if not line:
            block = []
        elif line.startswith("#"):
            block.append(line[1:].strip())
        elif line.startswith("["):
            _, comments, _ = _scan(line, None)
            name = _key_path(line.split("#", 1)[0].strip().strip("[]"))
            if line.startswith("[["):
                counters[name] = counters.get(name, -1) + 1
                name = f"{name}[{counters[name]}]"
            table, table_reason, block = name, _reason(comments), []
        else:
            key, _, value = line.partition("=")
            depth, comments, open_string = _scan(value, None)
            while (depth > 0 or open_string) and i < len(lines):  # a value over several lines
                more, extra, open_string = _scan(lines[i], open_string)
                depth, comments = depth + more, comments + extra
                i += 1
            reason = _reason(comments) or _reason(block, whole=True) or table_reason
            full = _key_path(key)
            if reason is not None and not (table.endswith("]") and full == LABEL):
                out.append((f"{table}.{full}" if table else full, reason))
            block = []
    return out


def _reason(comments: list[str], whole: bool = False) -> str | None:
    """The text after the mark in the first comment holding it (with the rest of a block)."""
    for k, comment in enumerate(comments):
        at = comment.find(MARK)
        if at >= 0:
            text = " ".join(
                [comment[at + len(MARK) :].lstrip(" :"), *(comments[k + 1 :] if whole else [])]
            )
            return text.strip()
    return None


def _key_path(key: str) -> str:
    return ".".join(part.strip().strip("\"'") for part in key.strip().split("."))


def _scan(text: str, open_string: str | None) -> tuple[int, list[str], str | None]:
    """Bracket depth change, comments, and the multi-line string still open after ``text``."""
    depth, i = 0, 0
    while i < len(text):
        if open_string:
            end = text.find(open_string, i)
            if end < 0:
                return depth, [], open_string
            i, open_string = end + 3, None
            continue
        ch = text[i]
        if text.startswith('"""', i) or text.startswith("'''", i):
            open_string, i = text[i : i + 3], i + 3
        elif ch == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
        elif ch == "'":
            end = text.find("'", i + 1)
            i = end + 1 if end >= 0 else len(text)
        elif ch == "#":
            return depth, [text[i + 1 :].strip()], None
        else:
            depth += (ch in "[{") - (ch in "]}")
            i += 1
    return depth, [], open_string


def value_at(rules: dict, key: str):
    """The value of an (indexed or named) dotted key, or None when the rules do not have it."""
    return lookup(rules, key, missing=None)


def _label(data: dict, key: str) -> str:
    """``key`` with each indexed array entry named by its ``name`` field when it has one."""
    parts, labelled = key.split("."), []
    for k, part in enumerate(parts):
        m = _INDEXED.match(part)
        entry = value_at(data, ".".join(parts[: k + 1])) if m else None
        if m and isinstance(entry, dict) and isinstance(entry.get("name"), str):
            part = f"{m.group(1)}[{entry['name']}]"
        labelled.append(part)
    return ".".join(labelled)


def assumed_under(
    keys: dict[str, AssumedKey], subjects, rules: dict | None = None, defaults: dict | None = None
) -> list[AssumedKey]:
    """The assumed keys a finding about ``subjects`` rests on.

    ``subjects`` are key prefixes, indexed or labelled (``"loans"``, ``"game.round_cap"``,
    ``"characters[Nadia]"``).  With ``rules`` and ``defaults``, a key that ``rules`` sets to
    another value than the default is left out: the designer replaced the assumed value.
    """

    def under(name: str, prefix: str) -> bool:
        return name == prefix or name.startswith(prefix + ".") or name.startswith(prefix + "[")

    out = []
    for item in keys.values():
        if not any(under(item.key, s) or under(item.label, s) for s in subjects):
            continue
        if (
            rules is not None
            and defaults is not None
            and value_at(rules, item.key) not in (None, value_at(defaults, item.key))
        ):
            continue
        out.append(item)
    return out


def changed_keys(base: dict, other: dict, prefix: str = "") -> list[str]:
    """Dotted keys whose value differs between two rules dicts (tables compared key by key,
    arrays of tables entry by entry, other values whole)."""
    out = []
    for key in dict.fromkeys([*base, *other]):
        a, b, path = base.get(key), other.get(key), f"{prefix}{key}"
        if isinstance(a, dict) and isinstance(b, dict):
            out += changed_keys(a, b, path + ".")
        elif _is_tables(a) and _is_tables(b) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b)):
                out += changed_keys(x, y, f"{path}[{i}].")
        elif a != b:
            out.append(path)
    return out


def _is_tables(value) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)
