"""balsim: balance-analysis Monte Carlo simulator for Karnaxis, Karmaggän and Ekonos.

The package is layered; a module imports only from its own layer and those above it in
this list, never from one below:

* ``core``: the contract every game follows (``game``), rules as data (``rules``), the
  ASSUMED values (``assumed``), random streams and seeds (``rng``), how kernels compile
  (``kernel``), the trace every engine writes (``trace``), balanced seating (``seating``),
  the statistics every layer uses (``stats``: Wilson intervals, chi-square, Holm), the three
  verdicts a test can reach (``verdicts``: an effect, no effect of practical size,
  inconclusive), user errors (``errors``) and the range of every number a user gives
  (``limits``).
* ``games/<game>`` and ``policies``: the engines, their rules data, scripted and search
  players.  They use ``core`` only.
* ``run``: playing plans of games (``plan``) into Parquet datasets (``runner``, ``store``,
  ``sweep``), what identifies each part and the checks that a dataset is whole (``whole``,
  ``checks``), worker processes and clusters (``workers``), compiling ahead of use
  (``warm``), ``bench``, and the other commands' output files and folders (``outputs``).
* ``analysis``: reading datasets with polars: win rates, seat balance, attribution, each
  game's own analyses.
* ``experiments``: candidates played on common seeds (``lab``), rules keys and their ranges
  (``keys``), balance metrics with intervals (``metrics``, ``flag_values``), and what is
  built on them: ``tune``, ``fit``, ``sensitivity`` (what it varies: ``screening``; how its
  effects read: ``screen_views``), ``strength`` (challenge, exploitability), ``skill`` (the
  rated ladder, on ``ratings``), ``crossing`` (where a fit crosses its target).
* ``report``: the HTML playtest report.
* ``studies``: the default study (``study``) and the designer's questions (``recipes``,
  ``balsim ask``).
* ``cli``: thin click commands over all of the above.
"""

import ast
import hashlib
import os
import re
import sys
from pathlib import Path

__version__ = "0.1.0"
# LLVM's -O2, not numba's default -O3: the engines compile about a quarter faster and play as
# fast (paired cold compiles and `balsim bench` runs of all three, 2026-11-30).  NUMBA_OPT set
# in the environment wins; the level is part of the kernel cache's folder names.
OPT_LEVEL = "2"
# The numba minor version whose internals the kernels' fast path is written for; with any
# other numba, or with BALSIM_PLAIN_NUMBA=1, every kernel is compiled with numba's public
# options only (simulator/core/kernel.py: "Compile modes").
FAST_PATH_NUMBA = "0.68"
ROOT = Path(__file__).resolve().parent.parent
# a module that defines kernels, or how they compile (simulator/core/kernel.py)
KERNEL = re.compile(rb"^(@(numba\.)?njit|from numba |from simulator\.core\.kernel )", re.MULTILINE)
# an import statement at a module's top level: where a kernel's globals come from
IMPORT = re.compile(rb"^(?:from|import) [^\n(]*(?:\([^)]*\))?[^\n]*", re.MULTILINE)
SHARED = "shared"  # the cache group of the kernels outside the games (RNG, shared policies)
# A game's modules named after a later layer (``simulator/games/<game>/analysis.py``...): what
# that layer needs from the game, imported by it on use (simulator.core.game.Game.hook).  Each
# sits in the layer it is named after, and holds no kernels.  ``studies.py`` holds the game's
# ``ask`` questions (``QUESTIONS``).
GAME_HOOKS = ("analysis", "report", "studies")
# cache group -> the folder of its compiled kernels (filled at import, below)
KERNEL_CACHE: dict[str, str] = {}
# whether this process is a worker of a command, whose parent has said what there is to say
# about the compiled-kernel folders (set at import, below)
IN_WORKER = False
_warned_uncached = False


def plain_numba(numba_version: str, switch: str | None) -> bool:
    """Whether kernels compile with numba's public options only (``BALSIM_PLAIN_NUMBA=1``, or
    a numba whose internals the fast path is not written for)."""
    return switch == "1" or ".".join(numba_version.split(".")[:2]) != FAST_PATH_NUMBA


def _installed_numba() -> str:
    from importlib.metadata import version  # not numba itself: it reads its config on import

    return version("numba")


PLAIN_NUMBA = plain_numba(_installed_numba(), os.environ.get("BALSIM_PLAIN_NUMBA"))


def cache_group(module: str) -> str:
    """The game whose cache folder holds the kernels of ``module`` (a module of its engine, or
    its policies: the module ``policies.GAME`` or a module of the package of that name), else
    SHARED."""
    parts = module.split(".")
    if parts[:2] == ["simulator", "games"] and len(parts) > 2 and parts[-1] not in GAME_HOOKS:
        return parts[2]
    if parts[0] == "policies" and len(parts) > 1 and (ROOT / "simulator/games" / parts[1]).is_dir():
        return parts[1]
    return SHARED


def package_sources() -> dict[str, bytes]:
    """{module name: source} of every module of the package and of the policies."""
    paths = [*(ROOT / "simulator").rglob("*.py"), *(ROOT / "policies").rglob("*.py")]
    return {
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(
            ".__init__"
        ): p.read_bytes()
        for p in paths
    }


def _imports(source: bytes, modules) -> set[str]:
    """The modules of ``modules`` that ``source`` imports at its top level."""
    found = set()
    for statement in IMPORT.findall(source):
        try:
            nodes = ast.parse(statement).body
        except SyntaxError:  # a docstring's line that starts with "from "
            continue
        for node in nodes:
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                found.update([node.module, *(f"{node.module}.{a.name}" for a in node.names)])
    return found & modules.keys()


def cache_keys(sources: dict[str, bytes]) -> dict[str, str]:
    """{cache group: a digest of the sources its kernels are compiled from}.

    A game's kernels are those of its engine package and its policies module; SHARED's, those
    of the other modules that define kernels.  numba compiles a kernel from its module's
    globals (callees, constants), so from the modules of its group and all they import at top
    level, transitively: the digest covers exactly those.  numba's own cache only notices
    edits to the file that defines a kernel, so an edit to one of those files changes the
    group's folder, and a stale compiled engine is never loaded; an edit to one game's
    engine leaves the other games' folders as they were."""
    roots: dict[str, list[str]] = {}
    for module, source in sources.items():
        group = cache_group(module)
        if group != SHARED or KERNEL.search(source):
            roots.setdefault(group, []).append(module)
    keys = {}
    for group, todo in roots.items():
        seen = {__name__}  # this module configures numba; no kernel reads its globals
        while todo:
            module = todo.pop()
            if module not in seen:
                seen.add(module)
                todo.extend(_imports(sources[module], sources))
        seen.discard(__name__)
        digest = hashlib.sha1()
        for module in sorted(seen):
            digest.update(module.encode() + b"\0" + sources[module] + b"\0")
        keys[group] = digest.hexdigest()[:12]
    return keys


def _use_opt_level() -> None:
    os.environ.setdefault("NUMBA_OPT", OPT_LEVEL)
    numba = sys.modules.get("numba")
    if numba is not None:  # imported before us: make it read the level again
        numba.core.config.reload_config()


def _use_numba_cache_dirs() -> None:
    """One compiled-kernel folder per cache group and version of its sources, in
    NUMBA_CACHE_DIR (or ``~/.cache/balsim/numba``); numba's own folder (kernels compiled
    without the kinds of simulator/core/kernel.py) is SHARED's."""
    global IN_WORKER
    chosen = os.environ.get("BALSIM_NUMBA_CACHE_DIR")
    worker = IN_WORKER = bool(chosen) and os.environ.get("NUMBA_CACHE_DIR") == chosen
    if worker:  # the parent chose the folders (and warned): the same parent folder
        parent = os.path.dirname(chosen)
    else:
        parent = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "balsim", "numba"
        )
    mode = "-plain" if PLAIN_NUMBA else ""
    for group, key in cache_keys(package_sources()).items():
        name = f"{group}-{key}-O{os.environ['NUMBA_OPT']}{mode}"
        KERNEL_CACHE[group] = os.path.join(parent, name)
    folder = KERNEL_CACHE[SHARED]
    os.environ["BALSIM_NUMBA_CACHE_DIR"] = os.environ["NUMBA_CACHE_DIR"] = folder
    numba = sys.modules.get("numba")
    if numba is not None:  # imported before us: numba has already read its configuration
        numba.config.CACHE_DIR = folder
    problem = None if worker else unwritable(folder)
    if problem:
        warn_uncached(folder, problem)


def unwritable(folder: str) -> str | None:
    """Why compiled kernels cannot be kept in ``folder`` (created when missing), or None."""
    try:
        os.makedirs(folder, exist_ok=True)
        probe = os.path.join(folder, f".write-test-{os.getpid()}")
        with open(probe, "w"):
            pass
        os.remove(probe)
    except OSError as e:
        return e.strerror or str(e)
    return None


def warn_uncached(folder: str, problem: str) -> None:
    """Say, once per command, that compiled kernels cannot be kept in ``folder`` (numba would
    otherwise compile every run without a word, or keep them among the package's files)."""
    global _warned_uncached
    if _warned_uncached or IN_WORKER:
        return
    _warned_uncached = True
    print(
        f"balsim: warning: cannot write compiled engines to {folder} ({problem}); every run "
        "will compile them again (minutes). Set NUMBA_CACHE_DIR to a writable folder.",
        file=sys.stderr,
        flush=True,
    )


_use_opt_level()
_use_numba_cache_dirs()
