"""A game is a plugin (docs/architecture.md, "A game"): outside its own package
``simulator/games/<game>/``, its policies (the module ``policies/<game>.py``, or the package
``policies/<game>/`` when they outgrow one file) and the registry
(``GAME_NAMES`` in simulator/core/game.py), no module of balsim names a game or one of its
policies, in code or in a string.

What the test does not read, and why:

* docstrings and comments: prose that explains with the games as examples (the commands'
  help texts, whose examples tests/test_docs.py runs, are their docstrings); a new game never
  has to edit them, and they carry no knowledge the code acts on;
* ``random``, ``search`` and ``learned``: every game's policy names that the contract itself
  defines (:data:`simulator.core.game.SEARCH_POLICY`, :data:`~simulator.core.game.LEARNED_POLICY`);
* the ``ask`` recipes (simulator/studies/recipes/): each recipe is one designer's question
  about one game, and they move into their games' packages with the rewrite of ``ask`` (issue
  42, item 3).
"""

import ast
import re
from pathlib import Path

from simulator.core.game import GAME_NAMES, LEARNED_POLICY, SEARCH_POLICY, get_game

ROOT = Path(__file__).resolve().parent.parent
EXEMPT = ("simulator/studies/recipes/",)
REGISTRY = ROOT / "simulator/core/game.py"


def game_words() -> dict[str, str]:
    """{word: the game it names}: each game's name, its name as printed and its policies'."""
    words = {}
    for name in GAME_NAMES:
        game = get_game(name)
        words[name] = words[getattr(game, "display_name", name).lower()] = name
        for policy in game.policies:
            if policy.name not in ("random", SEARCH_POLICY, LEARNED_POLICY):
                words[policy.name] = name
    return words


WORDS = game_words()
# in a string: a word on its own or a part of a snake_case name ("karnaxis_loans",
# "scholar_tuned"), a plural too, but not inside a longer word ("hunting")
PATTERN = re.compile(
    r"(?<![^\W_])("
    + "|".join(sorted(map(re.escape, WORDS), key=len, reverse=True))
    + r")s?(?![^\W_])",
    re.IGNORECASE,
)
SNAKE = re.compile(r"(?:^|_)(" + "|".join(map(re.escape, WORDS)) + r")(?:_|$)", re.IGNORECASE)


def shared_modules() -> list[Path]:
    games = ROOT / "simulator/games"
    own = {ROOT / "policies" / g.name for g in games.iterdir() if g.is_dir()}
    return [
        p
        for p in sorted([*(ROOT / "simulator").rglob("*.py"), *(ROOT / "policies").rglob("*.py")])
        if games not in p.parents
        and p.with_suffix("") not in own
        and own.isdisjoint(p.parents)
        and not str(p.relative_to(ROOT)).startswith(EXEMPT)
    ]


def docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def registry_nodes(tree: ast.AST) -> set[int]:
    """The nodes of the registry's one statement, ``GAME_NAMES = (...)``."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "GAME_NAMES" for t in node.targets
        ):
            return {id(n) for n in ast.walk(node)}
    return set()


def names_in(node: ast.AST) -> list[str]:
    """The identifiers and strings of one node that the test reads."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [m.group(1) for m in PATTERN.finditer(node.value)]
    if isinstance(node, ast.Name):
        text = [node.id]
    elif isinstance(node, ast.Attribute):
        text = [node.attr]
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        text = [node.name]
    elif isinstance(node, ast.arg):
        text = [node.arg]
    elif isinstance(node, ast.alias):
        text = [*node.name.split("."), node.asname or ""]
    elif isinstance(node, ast.ImportFrom):
        text = (node.module or "").split(".")
    elif isinstance(node, ast.keyword):
        text = [node.arg or ""]
    else:
        return []
    return [m.group(1) for t in text for m in SNAKE.finditer(t)]


def found_in(tree: ast.AST, skip: set[int]) -> list[tuple[int, str]]:
    """(line, word) of each game word in ``tree``'s identifiers and strings, but ``skip``."""
    return [
        (getattr(node, "lineno", 0), word)
        for node in ast.walk(tree)
        if id(node) not in skip
        for word in names_in(node)
    ]


def mentions(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = docstrings(tree) | (registry_nodes(tree) if path == REGISTRY else set())
    return [
        f"{path.relative_to(ROOT)}:{line}: {word} ({WORDS[word.lower()]})"
        for line, word in found_in(tree, skip)
    ]


def test_the_words_find_a_game_in_code_and_strings():
    named = ast.parse(
        "import simulator.games.karnaxis.state\n"
        "from simulator.games.ekonos import board\n"
        "budget = {'karmaggan': 1}\n"
        "karnaxis_taxes = 1\n"
        "text = f'{n} Karmaggän teams, {tycoon} and the scholars'\n"
    )
    found = sorted(word.lower() for _, word in found_in(named, set()))
    assert found == sorted(
        ["karnaxis", "ekonos", "karmaggan", "karnaxis", "karmaggän", "tycoon", "scholar"]
    )
    unnamed = ast.parse("'''Karnaxis.'''\nhunting = 'the hunting party'\nkarnaxisish = 1\n")
    assert [word for _, word in found_in(unnamed, set())] == ["Karnaxis"]  # the docstring
    assert found_in(unnamed, docstrings(unnamed)) == []


def test_no_shared_module_names_a_game():
    found = [m for path in shared_modules() for m in mentions(path)]
    assert found == []


def test_the_registry_is_the_one_line_of_core_that_names_the_games():
    tree = ast.parse(REGISTRY.read_text(encoding="utf-8"))
    assert sorted(word for _, word in found_in(tree, docstrings(tree))) == sorted(GAME_NAMES)
    assert mentions(REGISTRY) == []
