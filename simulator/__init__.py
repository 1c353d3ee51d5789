"""balsim: balance-analysis Monte Carlo simulator for Karnaxis, Karmaggän and Ekonos."""

import hashlib
import os
import sys
from pathlib import Path

__version__ = "0.1.0"


def _numba_cache_dir() -> str:
    """A compiled-kernel cache folder per version of the sources.

    numba's own cache only notices edits to the file that defines a kernel, not to the
    kernels it calls from other files; keying the folder on every source file keeps a stale
    compiled engine from ever being loaded.  NUMBA_CACHE_DIR, when set, is the parent folder.
    """
    root = Path(__file__).resolve().parent
    digest = hashlib.sha1()
    for package in (root, root.parent / "policies"):
        for path in sorted(package.rglob("*.py")):
            digest.update(path.read_bytes())
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "balsim", "numba")
    return os.path.join(base, digest.hexdigest()[:12])


def _use_numba_cache_dir() -> None:
    if os.environ.get("NUMBA_CACHE_DIR") and (
            os.environ.get("NUMBA_CACHE_DIR") == os.environ.get("BALSIM_NUMBA_CACHE_DIR")):
        return  # a worker process: the parent already chose the folder
    os.environ["BALSIM_NUMBA_CACHE_DIR"] = os.environ["NUMBA_CACHE_DIR"] = _numba_cache_dir()
    numba = sys.modules.get("numba")
    if numba is not None:  # imported before us: numba has already read its configuration
        numba.config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]


_use_numba_cache_dir()
