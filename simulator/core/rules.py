"""Rules as data: defaults from each game's rules.toml, overrides, validation, TOML output.

Overrides come from ``--rules FILE`` (merged over the defaults) and ``--set key.path=value``
(TOML value syntax).  Every override is checked against the defaults' shape before any game
runs: an unknown key, a value of the wrong type or a number beyond :data:`MAX_MAGNITUDE` raises
:class:`RulesError` naming the key.  Each game then checks its impossible values (``Game.check``).

Keys are dotted paths.  An entry of an array (a card of an array of tables, or one number of a
list) is named in brackets, by its ``name`` or by its index: ``characters[Nadia].ability_value``,
``objects[3].count``, ``setup.blood_tiles[0]``.  In a ``--rules`` file the same entry is a table
keyed by name or index, which patches that entry and leaves the others as they are::

    [characters.Nadia]
    ability_value = 7000

(an array written out in full, ``[[characters]]``, replaces the whole array as before).
"""

from __future__ import annotations

import math
import os
import stat
from pathlib import Path
from typing import Any

import tomllib

from simulator.core.errors import UserError

KNOB_SETS = "policies."  # under [policies], a new table is a named knob set (Game.policy_set)


class RulesError(UserError):
    """A rules override that cannot be used; ``str()`` is one line naming the key."""

    def __init__(self, key: str, problem: str):
        super().__init__(f"rules key '{key}': {problem}")
        self.key = key


# The largest magnitude of any number in the rules: far beyond any tabletop game's numbers
# (the largest default is Karnaxis' $300,000 tax bracket), yet small enough that products of
# two such values summed over a game stay far inside the engines' 64-bit integers, so no
# engine integer can overflow whatever a user sets, and a card count fits in memory.
MAX_MAGNITUDE = 10**7
# Far beyond any rules file or value (the largest game's rules.toml is 28 KiB, nested
# 4 deep) and small enough to read and check at once, without recursing past Python's limit.
MAX_RULES_BYTES = 1 << 22
MAX_DEPTH = 24


def load_toml(path: str | Path) -> dict:
    """The TOML file at ``path``: a regular file (a FIFO or device is refused, not waited on
    or read without end) of at most :data:`MAX_RULES_BYTES`, nested at most :data:`MAX_DEPTH`."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with open(fd, "rb") as f:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise RulesError(str(path), "not a regular file")
            if info.st_size > MAX_RULES_BYTES:
                raise RulesError(
                    str(path),
                    f"{info.st_size:,} bytes; a rules file has at most {MAX_RULES_BYTES:,}",
                )
            rules = tomllib.loads(f.read(MAX_RULES_BYTES).decode("utf-8"))
    except FileNotFoundError:
        raise RulesError(str(path), "file not found") from None
    except UnicodeDecodeError:
        raise RulesError(str(path), "not UTF-8 text (TOML files are UTF-8)") from None
    except tomllib.TOMLDecodeError as e:
        raise RulesError(str(path), f"not valid TOML ({e})") from None
    except RecursionError:
        raise RulesError(str(path), f"nested more than {MAX_DEPTH} deep") from None
    except OSError as e:
        raise RulesError(str(path), f"cannot read it ({e.strerror or e})") from None
    check_depth(rules, str(path))
    return rules


def parse_set(assignment: str, defaults: dict) -> tuple[str, Any]:
    """Parse ``key.path=value``; a bare word is taken as a string where the default is one."""
    key, sep, text = assignment.partition("=")
    key = key.strip()
    if not sep or not key:
        raise RulesError(assignment, "expected KEY=VALUE, e.g. --set loans.cap_usd=100000")
    try:
        document = tomllib.loads(f"v = {text}")
    except RecursionError:
        raise RulesError(key, f"the value is nested more than {MAX_DEPTH} deep") from None
    except tomllib.TOMLDecodeError:
        if isinstance(lookup(defaults, key, missing=None), str) and "\n" not in text:
            return key, text
        raise RulesError(key, f"'{text}' is not a TOML value (quote strings)") from None
    if list(document) != ["v"]:  # "1\nother.key=2": a second assignment, which would be lost
        raise RulesError(key, "the value holds more than one assignment; give each its own --set")
    check_depth(document["v"], key)
    return key, document["v"]


def check_depth(value: Any, where: str) -> None:
    """Raise unless ``value`` nests lists and tables at most :data:`MAX_DEPTH` deep (checked
    without recursion, so no depth makes the checks after it overflow the stack)."""
    level = [value]
    for _ in range(MAX_DEPTH + 1):
        level = [
            item
            for node in level
            if isinstance(node, (dict, list))
            for item in (node.values() if isinstance(node, dict) else node)
        ]
        if not level:
            return
    raise RulesError(where, f"nested more than {MAX_DEPTH} deep")


def key_parts(key: str) -> list[str]:
    """The parts of a dotted key, an entry's name or index in brackets being a part of its own:
    ``characters[Tax Collector].salary_usd`` -> ``["characters", "Tax Collector",
    "salary_usd"]`` (a name may hold dots and spaces, not brackets)."""
    parts, i = [], 0
    while i < len(key):
        if key[i] == "[":
            end = key.find("]", i)
            if end < 0 or "[" in key[i + 1 : end] or end == i + 1:
                raise RulesError(key, "an entry is named NAME[ENTRY], e.g. characters[Nadia]")
            parts.append(key[i + 1 : end].strip())
            i = end + 1
            if i < len(key) and key[i] not in ".[":
                raise RulesError(key, "an entry is named NAME[ENTRY], e.g. characters[Nadia]")
            i += key[i : i + 1] == "."
            continue
        end = min((j for j in (key.find(".", i), key.find("[", i)) if j >= 0), default=len(key))
        if "]" in key[i:end]:
            raise RulesError(key, "an entry is named NAME[ENTRY], e.g. characters[Nadia]")
        parts.append(key[i:end].strip())
        i = end + (end < len(key) and key[end] == ".")
    if not parts or "" in parts:
        raise RulesError(key, "empty part in a dotted key")
    return parts


def entry_index(items: list, selector: str, path: str, key: str) -> int:
    """The index of the entry of array ``items`` (at ``path``) that ``selector`` names: its
    index, or the ``name`` of a table entry.  RulesError naming ``key`` otherwise."""
    if selector.isdigit():
        if int(selector) < len(items):
            return int(selector)
        raise RulesError(key, f"{path} has {len(items)} entries (indices 0..{len(items) - 1})")
    named = [
        i for i, item in enumerate(items) if isinstance(item, dict) and item.get("name") == selector
    ]
    if len(named) == 1:
        return named[0]
    names = [item["name"] for item in items if isinstance(item, dict) and "name" in item]
    if not names:
        raise RulesError(
            key, f"the entries of {path} have no names; give an index 0..{len(items) - 1}"
        )
    if named:
        raise RulesError(key, f"{path} has {len(named)} entries named '{selector}'; give an index")
    raise RulesError(key, f"{path} has no entry named '{selector}' (entries: {', '.join(names)})")


def resolve(rules: dict, key: str) -> tuple[Any, str]:
    """The value of a (dotted, bracketed) key and the key with every entry named by its index
    (``characters[Nadia].karnaxis`` -> ``characters[11].karnaxis``); RulesError naming the
    key when the rules have no such value."""
    node: Any = rules
    path = ""
    for part in key_parts(key):
        if isinstance(node, list):
            i = entry_index(node, part, path, key)
            node, path = node[i], f"{path}[{i}]"
            continue
        if not isinstance(node, dict) or part not in node:
            raise RulesError(key, "unknown key")
        node, path = node[part], f"{path}.{part}" if path else part
    return node, path


def lookup(rules: dict, key: str, missing: Any = KeyError) -> Any:
    """The value of a (dotted, bracketed) key; ``missing`` when it has none, or by default a
    RulesError naming the key."""
    try:
        return resolve(rules, key)[0]
    except RulesError:
        if missing is KeyError:
            raise
        return missing


def index_key(rules: dict, key: str) -> str:
    """``key`` with every entry named by its index: one spelling of each key."""
    return resolve(rules, key)[1]


def nest(key: str, value: Any) -> dict:
    """``{"a": {"b": value}}`` of key ``a.b``; an entry's part keys the table that patches it."""
    out: dict = {}
    node = out
    parts = key_parts(key)
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value
    return out


def nest_all(values: dict) -> dict:
    """One nested override of several keys (``{key: value}``): what ``merge`` takes to set them
    all at once."""
    out: dict = {}
    for key, value in values.items():
        out = _union(out, nest(key, value))
    return out


def _union(a: dict, b: dict) -> dict:
    out = dict(a)
    for k, v in b.items():
        out[k] = _union(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def merge(defaults: dict, override: dict, prefix: str = "") -> dict:
    """Deep-merge ``override`` over ``defaults`` after checking it against their shape (a new
    dict sharing nothing with either)."""
    out = {}
    for key, value in override.items():
        path = f"{prefix}{key}"
        if key not in defaults and path.startswith(KNOB_SETS) and path.count(".") == 1:
            if not isinstance(value, dict):
                raise RulesError(path, f"expected a table, got {type_name(value)}")
            out[key] = clone(value)  # a new named knob set; the game checks its keys
            continue
        if key not in defaults and path.startswith(KNOB_SETS) and path.count(".") == 2:
            out[key] = clone(value)  # a knob its table left at 0 (the game checks the name)
            continue
        if key not in defaults:
            raise RulesError(path, "unknown key")
        default = defaults[key]
        if isinstance(default, list) and isinstance(value, dict):
            out[key] = patch_entries(default, value, path)
        elif isinstance(default, dict):
            if not isinstance(value, dict):
                raise RulesError(path, f"expected a table, got {type_name(value)}")
            out[key] = merge(default, value, prefix=path + ".")
        else:
            check_type(path, value, default)
            check_magnitudes(value, path)
            out[key] = clone(value)
    return {
        key: out[key] if key in out else clone(defaults[key])
        for key in [*defaults, *(k for k in out if k not in defaults)]
    }


def clone(value: Any) -> Any:
    """A copy of a rules value (tables, lists, scalars) sharing nothing with it: much faster
    than ``copy.deepcopy`` on rules, which hold nothing else."""
    if isinstance(value, dict):
        return {k: clone(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clone(v) for v in value]
    return value


def patch_entries(items: list, patches: dict, path: str) -> list:
    """``items`` with the entries that ``patches`` names (by name or index) changed: a table
    entry merged with its patch, a number of a list replaced."""
    out = [clone(item) for item in items]
    for selector, patch in patches.items():
        i = entry_index(items, str(selector), path, f"{path}[{selector}]")
        where = f"{path}[{selector}]"
        if isinstance(items[i], dict):
            if not isinstance(patch, dict):
                raise RulesError(where, f"expected a table, got {type_name(patch)}")
            out[i] = merge(items[i], patch, prefix=where + ".")
        else:
            check_type(where, patch, items[i])
            check_magnitudes(patch, where)
            out[i] = clone(patch)
    return out


def check_type(path: str, value: Any, default: Any) -> None:
    """Raise unless ``value`` has the type of ``default`` (lists element by element)."""
    if isinstance(default, bool) or isinstance(value, bool):
        ok = isinstance(value, bool) and isinstance(default, bool)
    elif isinstance(default, float):
        ok = isinstance(value, (int, float)) and math.isfinite(value)
    elif isinstance(default, list):
        if not isinstance(value, list):
            raise RulesError(path, f"expected a list, got {type_name(value)}")
        if default:
            for i, item in enumerate(value):
                if isinstance(item, dict) and isinstance(default[0], dict):
                    template = {k: v for d in default for k, v in d.items()}
                    merge(template, item, prefix=f"{path}[{i}].")
                else:
                    check_type(f"{path}[{i}]", item, default[0])
        return
    else:
        ok = type(value) is type(default)
    if isinstance(value, float) and not math.isfinite(value):
        raise RulesError(path, f"{value!r} is not a finite number")
    if not ok:
        raise RulesError(path, f"expected {type_name(default)}, got {type_name(value)} {value!r}")


def type_name(value: Any) -> str:
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "a table",
    }.get(type(value), type(value).__name__)


def effective_rules(
    defaults: dict, files: tuple[str, ...] = (), sets: tuple[str, ...] = ()
) -> dict:
    """Defaults, then each ``--rules`` file, then each ``--set``, in that order."""
    rules = defaults
    for path in files:
        rules = merge(rules, load_toml(path))
    for assignment in sets:
        key, value = parse_set(assignment, rules)
        if not (key.startswith(KNOB_SETS) and key.count(".") == 2):
            lookup(rules, key)  # names the whole key when it is unknown
        rules = merge(rules, nest(key, value))
    return rules


def check_magnitudes(value: Any, path: str) -> None:
    """Raise for the first number anywhere in ``value`` beyond :data:`MAX_MAGNITUDE`."""
    if isinstance(value, dict):
        for key, item in value.items():
            check_magnitudes(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            check_magnitudes(item, f"{path}[{i}]")
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        if not abs(value) <= MAX_MAGNITUDE:
            raise RulesError(
                path,
                f"{value!r} is beyond the largest magnitude a rules value "
                f"may have ({MAX_MAGNITUDE:,})",
            )


def require(rules: dict, key: str, ok: bool, problem: str) -> None:
    """Raise RulesError for ``key`` unless ``ok``; the games' checks read as a list of these."""
    if not ok:
        raise RulesError(key, problem)


def to_toml(rules: dict) -> str:
    """Serialise a rules dict (tables, scalars, lists, arrays of tables) as TOML."""
    lines: list[str] = []
    _emit_table(rules, [], lines)
    return "\n".join(lines).strip() + "\n"


def _emit_table(table: dict, path: list[str], lines: list[str]) -> None:
    scalars = {k: v for k, v in table.items() if not _is_subtable(v)}
    if path and (scalars or not table):
        lines.append(f"\n[{'.'.join(path)}]")
    for key, value in scalars.items():
        lines.append(f"{_key(key)} = {toml_value(value)}")
    for key, value in table.items():
        if isinstance(value, dict):
            _emit_table(value, path + [_key(key)], lines)
        elif _is_subtable(value):
            for item in value:
                lines.append(f"\n[[{'.'.join(path + [_key(key)])}]]")
                for k, v in item.items():
                    lines.append(f"{_key(k)} = {toml_value(v)}")


def _is_subtable(value: Any) -> bool:
    return isinstance(value, dict) or (
        isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)
    )


def _key(key: str) -> str:
    return (
        key
        if key.replace("_", "").replace("-", "").isalnum() and key.isascii()
        else toml_value(key)
    )


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")
