"""balsim: balance-analysis Monte Carlo simulator for Karnaxis, Karmaggän and Ekonos.

The package is layered; a module imports only from its own layer and those above it in
this list, never from one below:

* ``core``: the contract every game follows (``game``), rules as data (``rules``), the
  ASSUMED values (``assumed``), random streams and seeds (``rng``), how kernels compile
  (``kernel``), balanced seating (``seating``), the statistics every layer uses (``stats``:
  Wilson intervals, chi-square, Holm), the three verdicts a test can reach (``verdicts``:
  an effect, no effect of practical size, inconclusive) and user errors (``errors``).
* ``games/<game>`` and ``policies``: the engines, their rules data, scripted and search
  players.  They use ``core`` only.
* ``run``: playing plans of games into Parquet datasets (``runner``, ``store``, ``sweep``),
  worker processes and clusters (``workers``), compiling ahead of use (``warm``), ``bench``,
  and the other commands' output folders (``outputs``).
* ``analysis``: reading datasets with polars: win rates, seat balance, attribution, each
  game's own analyses.
* ``experiments``: candidates played on common seeds (``lab``), rules keys and their ranges
  (``keys``), balance metrics with intervals (``metrics``, ``flag_values``), and what is
  built on them: ``tune``, ``fit``, ``sensitivity``, ``strength`` (skill, challenge).
* ``report``: the HTML playtest report.
* ``studies``: the default study (``study``) and the designer's questions (``recipes``,
  ``balsim ask``).
* ``cli``: thin click commands over all of the above.
"""

import hashlib
import os
import re
import sys
from pathlib import Path

__version__ = "0.1.0"
# LLVM's -O2, not numba's default -O3: the engines compile about a quarter faster and play as
# fast (paired cold compiles and `balsim bench` runs of all three, 2026-11-30).  NUMBA_OPT set
# in the environment wins; the level is part of the kernel cache's folder name.
OPT_LEVEL = "2"
# a module that defines kernels, or how they compile (simulator/core/kernel.py)
KERNEL = re.compile(rb"^(@(numba\.)?njit|from numba |from simulator\.core\.kernel )", re.MULTILINE)


def _numba_cache_dir() -> str:
    """A compiled-kernel cache folder per version of the kernels' sources.

    numba's own cache only notices edits to the file that defines a kernel, not to the
    kernels it calls from other files; keying the folder on every file kernels are compiled
    from (the engines, the policies and any other module with njit code) keeps a stale
    compiled engine from ever being loaded, while an edit elsewhere (the CLI, the analysis)
    does not cost a recompile.  NUMBA_CACHE_DIR, when set, is the parent folder.
    """
    root = Path(__file__).resolve().parent
    digest = hashlib.sha1()
    for path in sorted([*root.rglob("*.py"), *(root.parent / "policies").rglob("*.py")]):
        text = path.read_bytes()
        if KERNEL.search(text) or root / "games" in path.parents or path.parent.name == "policies":
            digest.update(path.relative_to(root.parent).as_posix().encode() + b"\0" + text)
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "balsim", "numba"
    )
    return os.path.join(base, f"{digest.hexdigest()[:12]}-O{os.environ['NUMBA_OPT']}")


def _use_opt_level() -> None:
    os.environ.setdefault("NUMBA_OPT", OPT_LEVEL)
    numba = sys.modules.get("numba")
    if numba is not None:  # imported before us: make it read the level again
        numba.core.config.reload_config()


def _use_numba_cache_dir() -> None:
    if os.environ.get("NUMBA_CACHE_DIR") and (
        os.environ.get("NUMBA_CACHE_DIR") == os.environ.get("BALSIM_NUMBA_CACHE_DIR")
    ):
        return  # a worker process: the parent already chose the folder (and warned)
    folder = _numba_cache_dir()
    os.environ["BALSIM_NUMBA_CACHE_DIR"] = os.environ["NUMBA_CACHE_DIR"] = folder
    numba = sys.modules.get("numba")
    if numba is not None:  # imported before us: numba has already read its configuration
        numba.config.CACHE_DIR = folder
    _warn_if_unwritable(folder)


def _warn_if_unwritable(folder: str) -> None:
    """numba silently compiles every run when it cannot save its cache: say so, once."""
    try:
        os.makedirs(folder, exist_ok=True)
        probe = os.path.join(folder, f".write-test-{os.getpid()}")
        with open(probe, "w"):
            pass
        os.remove(probe)
    except OSError as e:
        print(
            f"balsim: warning: cannot write compiled engines to {folder} ({e.strerror}); "
            "every run will compile them again (minutes). Set NUMBA_CACHE_DIR to a writable "
            "folder.",
            file=sys.stderr,
        )


_use_opt_level()
_use_numba_cache_dir()
