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

import ast
import re
import textwrap
from dataclasses import dataclass
from functools import cached_property, lru_cache
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
            rest = comments[k + 1 :] if whole else []
            rest = rest[: rest.index("")] if "" in rest else rest  # up to the paragraph's end
            return " ".join([comment[at + len(MARK) :].lstrip(" :"), *rest]).strip()
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
        if m and isinstance(entry, dict) and isinstance(entry.get(LABEL), str):
            table = value_at(data, ".".join([*parts[:k], m.group(1)]))
            if [e.get(LABEL) for e in table].count(entry[LABEL]) == 1:  # names one entry
                part = f"{m.group(1)}[{entry[LABEL]}]"
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


# ---- the rules that use a key -----------------------------------------------------------------


@dataclass(frozen=True)
class Use:
    """A function of a game's package that plays by a key: ``module.function`` and the first
    line of its docstring (the rulebook section a rule function cites)."""

    where: str
    doc: str
    reader: bool = False  # only builds the engine's arrays (or checks) from the rules

    def text(self) -> str:
        what = self.doc or ("reads it from the rules data" if self.reader else "")
        return f"{self.where}: {what}" if what else self.where


def rule_uses(package: str | Path, key: str) -> list[Use]:
    """The rule functions of a game's package (its folder) that play by ``key``.

    Found from the source: the wrapper copies a rules value into a named slot of the engine's
    arrays (``cfg[CFG_INCOME_MAX] = business["income_max_usd"]``, inside a loop over the
    table for a card's field), so the functions that read that slot use the key; so does a
    function whose docstring names the key.  A value no slot holds (a deck's card counts) is
    read only by the functions that build the engine's arrays, which are returned then."""
    modules = _modules(str(Path(package)))
    parts = key.replace("[", ".").replace("]", "").split(".")
    table = parts[0]
    leaf = next((p for p in reversed(parts) if not p.isdigit()), parts[-1])
    slots = {name for module in modules.values() for name in module.slots}
    found, readers = set(), []
    for name, module in modules.items():
        for stmt, function in module.reads(table, leaf):
            found |= _variables(stmt) & slots
            readers.append((name, function))
    named = {key, key.rsplit(".", 1)[0] if parts[-1].isdigit() else key}
    uses = []
    for name, module in modules.items():
        for function in module.functions:
            refers = found & module.variables[function]
            doc = module.docs[function]
            if (refers and (name, function) not in readers) or any(
                f"``{k}``" in doc for k in named
            ):
                uses.append(Use(f"{name}.{function.name}", _first_line(doc)))
    if not uses:  # no slot holds it, or it is read whole: the wrapper's readers
        readers = readers or [
            (name, function)
            for name, module in modules.items()
            for _, function in module.reads("rules", table)
        ]
        uses = [Use(f"{name}.{f.name}", "", reader=True) for name, f in readers]
    return list(dict.fromkeys(uses))


def _first_line(doc: str) -> str:
    line = " ".join(doc.split("\n\n", 1)[0].split())
    return line if len(line) <= 110 else line[:107].rstrip() + "..."


@dataclass
class _Module:
    tree: ast.Module
    parents: dict
    slots: set
    functions: list

    # a rules file has hundreds of keys, each looked up in every module: what a lookup needs
    # from the trees is indexed once per module, not walked again per key
    @cached_property
    def variables(self) -> dict:
        """Each function's variable names."""
        return {function: _variables(function) for function in self.functions}

    @cached_property
    def docs(self) -> dict:
        return {function: ast.get_docstring(function) or "" for function in self.functions}

    @cached_property
    def subscripts(self) -> dict:
        """Subscripts by a constant (``x["income_max_usd"]``), with the function holding each."""
        out = {}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
                function = self.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                if function is not None:
                    out.setdefault(node.slice.value, []).append((node, function))
        return out

    def reads(self, table: str, leaf: str):
        """``(statement, enclosing function)`` of each read of ``[leaf]`` of ``table``'s data:
        the subscript's base, or a loop holding it, names the table (or a variable bound to
        it); a read that is a value of a dict literal is narrowed to that entry."""
        for node, function in self.subscripts.get(leaf, ()):
            names = {table} | aliases(function, table)
            chain, up = [node.value], node
            while up in self.parents:
                up = self.parents[up]
                if isinstance(up, (ast.For, ast.comprehension)):
                    chain.append(up.iter)
                elif isinstance(up, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
                    chain += [g.iter for g in up.generators]
            if any(_names(part, names) for part in chain):
                yield self.statement(node), function

    def enclosing(self, node, kinds):
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, kinds):
                return node
        return None

    def statement(self, node) -> ast.AST:
        """The statement holding ``node``, or the entry of a dict literal holding it."""
        child = node
        while child in self.parents and not isinstance(child, ast.stmt):
            parent = self.parents[child]
            if isinstance(parent, ast.Dict) and child in parent.values:
                key = parent.keys[parent.values.index(child)]
                return ast.Tuple(elts=[k for k in (key, child) if k is not None])
            child = parent
        return child


def _variables(node: ast.AST) -> set[str]:
    """The names ``node`` reads: its variables and what it reads through a module
    (``S.CFG_INCOME_MAX`` reads the slot ``CFG_INCOME_MAX`` of the state module)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.attr
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
    }


@lru_cache(maxsize=4096)
def aliases(function: ast.AST, table: str) -> frozenset[str]:
    """Variables a function binds to the table's data (``business = rules["business"]``)."""
    return frozenset(
        target.id
        for stmt in ast.walk(function)
        if isinstance(stmt, ast.Assign) and _names(stmt.value, {table})
        for target in stmt.targets
        if isinstance(target, ast.Name)
    )


def _names(node: ast.AST, names: set[str]) -> bool:
    """Whether an expression mentions one of ``names`` (as a string key or a variable)."""
    return any(
        (isinstance(n, ast.Constant) and n.value in names)
        or (isinstance(n, ast.Name) and n.id in names)
        for n in ast.walk(node)
    )


def _slots(stmt: ast.stmt) -> set[str]:
    """The names a module-level statement binds to integers (``X = 3``, ``(A, B) = range(2)``,
    ``(A, B) = (0, 4)``): the engine's named slots."""
    if not isinstance(stmt, ast.Assign):
        return set()
    value = stmt.value
    ints = (
        (isinstance(value, ast.Call) and getattr(value.func, "id", "") == "range")
        or (isinstance(value, ast.Constant) and type(value.value) is int)
        or (
            isinstance(value, ast.Tuple)
            and all(isinstance(e, ast.Constant) and type(e.value) is int for e in value.elts)
        )
    )
    if not ints:
        return set()
    return {n.id for target in stmt.targets for n in ast.walk(target) if isinstance(n, ast.Name)}


@lru_cache(maxsize=8)
def _modules(package: str) -> dict[str, _Module]:
    out = {}
    for path in sorted(Path(package).glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        slots = set().union(*(_slots(stmt) for stmt in tree.body))
        functions = [
            n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]
        out[path.stem] = _Module(tree, parents, slots, functions)
    return out


# ---- the template a designer fills with the real values -------------------------------------

TEMPLATE_HEAD = """\
# Every value of {game}'s rules that the rulebook does not print (marked ASSUMED in
# {path}), with why it is assumed.  Replace each with the real card or rule, then pass this
# file to any command:  balsim run {game} --rules THIS_FILE  (a value left as it is stays the
# assumed one).  A card is patched by its name or index ([characters.Nadia] changes Nadia's
# card only); to replace a whole deck, write it out as [[table]] entries instead.
"""


def template(path: str | Path, rules: dict, game: str) -> str:
    """A TOML of every ASSUMED key of the rules file ``path`` with its value in ``rules`` and
    its reason: loaded with ``--rules`` it gives back ``rules`` unchanged."""
    from simulator.core.rules import key_parts, toml_value

    tables: dict[tuple, list[tuple[str, object, str]]] = {}
    for item in assumed_keys(path).values():
        *table, leaf = key_parts(item.label)
        tables.setdefault(tuple(table), []).append((leaf, value_at(rules, item.key), item.reason))
    lines = [TEMPLATE_HEAD.format(game=game, path=Path(path).name)]
    for table, keys in tables.items():
        if table:
            lines.append(f"[{'.'.join(_toml_key(part) for part in table)}]")
        said = None
        for leaf, value, reason in keys:
            if reason != said:
                lines += textwrap.wrap(
                    f"ASSUMED: {reason}", 96, initial_indent="# ", subsequent_indent="# "
                )
                said = reason
            lines.append(f"{_toml_key(leaf)} = {toml_value(value)}")
        lines.append("")
    return "\n".join(lines)


def _toml_key(part: str) -> str:
    bare = part.replace("_", "").replace("-", "").isalnum() and part.isascii()
    return part if bare else '"' + part.replace("\\", "\\\\").replace('"', '\\"') + '"'
