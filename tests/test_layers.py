"""The package's layers (simulator/__init__.py): no module imports from a layer below its own,
and no import cycle, counting imports inside functions too."""

import ast
from pathlib import Path

from simulator import GAME_HOOKS

ROOT = Path(__file__).resolve().parent.parent
# each layer may import from those before it
ORDER = ("core", "games", "run", "analysis", "experiments", "report", "studies", "cli")


def modules() -> dict[str, Path]:
    out = {}
    for path in [*(ROOT / "simulator").rglob("*.py"), *(ROOT / "policies").rglob("*.py")]:
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        out[name] = path
    return out


def imports(path: Path, known) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        found.update(n for n in names if n in known)
    return found


def layer(module: str) -> str | None:
    """The layer of a module; the policies are the engines' players, a part of ``games``; a
    game's hook module (``simulator.games.GAME.analysis``) sits in the layer it is named
    after."""
    parts = module.split(".")
    if parts[0] == "policies":
        return "games"
    if parts[:2] == ["simulator", "games"] and len(parts) == 4 and parts[3] in GAME_HOOKS:
        return parts[3]
    return parts[1] if len(parts) > 1 and parts[1] in ORDER else None


def test_a_games_hook_sits_in_the_layer_it_is_named_after():
    assert layer("simulator.games.any_game.analysis") == "analysis"
    assert layer("simulator.games.any_game.report") == "report"
    assert layer("simulator.games.any_game.engine") == "games"
    assert set(GAME_HOOKS) <= set(ORDER)


GRAPH = {m: imports(p, modules()) - {m} for m, p in modules().items()}


def test_no_module_imports_from_a_layer_below_its_own():
    below = [
        f"{m} -> {t}"
        for m, targets in GRAPH.items()
        for t in targets
        if layer(m) and layer(t) and ORDER.index(layer(t)) > ORDER.index(layer(m))
    ]
    assert below == []


def test_there_is_no_import_cycle():
    # Tarjan's strongly connected components: a cycle is a component of two or more modules
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while not component or component[-1] != v:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in GRAPH:
        if v not in index:
            visit(v)
    assert cycles == []


def test_the_command_line_starts_without_scipy():
    """scipy.stats takes about a second of CPU to import: every command and worker would pay
    it before its first game, so it is imported only where a statistic is computed."""
    import subprocess
    import sys

    found = subprocess.run(
        [sys.executable, "-c", "import sys, simulator.cli; print('scipy.stats' in sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert found.stdout.strip() == "False"
