"""How the engines' functions are compiled (numba), and why.

* ``rule``: rule functions, decisions and policies that never allocate are compiled without
  numba's reference counting (NRT).  With it, every call increfs and decrefs each array
  argument atomically: about three quarters of the CPU time of the Ekonos and Karnaxis
  engines (4-6x slower, identical results).  Code that allocates cannot compile as ``rule``
  (numba refuses it).
* ``accessor``: one-line accessors of a flat state, compiled as ``rule``; LLVM inlines them.
  numba's own ``inline="always"`` on accessors compiled no faster and the Ekonos engine ran
  about 40% slower with the default seats (measured side by side), so accessors do not use it.
* ``allocating``: the few functions that allocate, sort or copy slices (a new game's random
  streams, the search's candidate scores, re-deal and world copies).  NRT must be set
  explicitly: a function without the option inherits it from the function whose compilation
  reaches it.
* ``entry``: the kernels Python calls (each engine's games loop, the search's games loop, the
  games' seeds), compiled with NRT and with numba's wrappers for Python, which release the
  interpreter's lock (``nogil``) while the kernel runs: a dask worker's event loop (its
  heartbeat to the scheduler) and a local worker's watch on its parent run beside a chunk of
  games.  Only the wrappers take or release the lock, so the other kinds have no use for it.
* Kernel-only compiling (``rule`` and ``allocating``).  numba compiles every function on its
  own: it optimises it, links it with the code of the whole tree of functions it calls,
  optimises that again and turns it into machine code, with wrappers that unbox its
  arguments from Python objects.  So each level of calls compiled the whole tree below it
  again: the Karmaggän engine and search took about two minutes of CPU.  A kernel that only
  other kernels call needs none of it: its code is kept as LLVM IR linked with its callees'
  (:class:`~simulator.core.kernel_only.KernelOnlyLibrary`, no wrappers), and each ``entry``
  kernel optimises and compiles its whole tree once, as a C compiler would.  The engines play
  the very same games as fast (datasets and ``balsim bench`` compared), and a cold compile of
  each engine with its search player takes about half the CPU time (Karmaggän 48 s instead of
  104 s; about 30 s now).  A
  test or a notebook may still call such a kernel from Python: that call runs a twin compiled
  with the wrappers, cached apart from the kernels
  (:class:`~simulator.core.kernel_only.KernelOnlyDispatcher`).
  This relies on numba's code-library internals: it is the fast mode, below.
* ``layer``: a function that only sequences others (a game's loop, a round loop, a turn's
  phases), called from one or two places: numba inlines it into its callers instead of
  compiling it on its own.  Called alone from Python (a test), a layer compiles with NRT.
  Each game's ``decide.choose`` is one too, though the rules call it from several places: it
  only hands a decision on, and inlined, a decision makes one call of about 35 scalar
  arguments instead of two.
  Nor is every loop a layer: the Ekonos loop (``advance``, ``play_step``) ran about a
  quarter slower inlined (paired runs), and the Karnaxis ``advance`` inlined into its games
  loop (an ``entry``, with NRT) counted references at each call it made (a tenth of the time).
* ``scorer``: a policy's worth of one option (``option_score`` and the scores it calls),
  compiled once as ``rule`` and marked for LLVM to inline wherever it is called: the loops
  over a decision's options (``policy_choice``, the search's ``option_scores``).  Called once
  per option, it took about 30 scalar arguments (an array passes as 7 to 9) and redid work
  that does not change from one option to the next; inlined, both go: the default seats
  played about 1.4x as fast in Ekonos and in Karnaxis (paired runs, identical datasets).
  numba's own inlining (``layer``) ran as fast but typed each scorer once per caller (Karnaxis
  cold compile +4 s of CPU).  ``forceinline`` passes from a function to those it reaches
  first, so ``rule`` and ``allocating`` turn it off.
* ``inlined``: a rule compiled as ``scorer`` is, for LLVM to inline wherever it is called: the
  rules of a game's hot loop that take the whole state (five arrays, about 40 scalar
  arguments a call), where passing the arguments cost more than the rule's work.  Inlined,
  the Ekonos rules of a round played the very same games about 1.25x as fast.

Each engine has one ``entry`` kernel per kind of run, not one per use, as each compiles the
whole engine: a replay plays its one game through the kernel of a bulk run (with trace rows to
fill), so replaying a game of a dataset compiles nothing the run has not.

In the fast mode every kernel compiles once per type of its arguments: numba would compile it
again for each literal it is called with (``record(W, EV_HIT, fig, 0, 0)`` and
``record(W, EV_HIT, fig, 1, 0)`` were two compiles), so literal arguments are typed as their
plain type (``once_per_type``).

Compile modes.  The options above (no reference counting, no wrappers, LLVM's forced
inlining, one compile per type) and the kernel-only code libraries are numba's internals,
written for numba ``simulator.FAST_PATH_NUMBA`` (0.68): that is the fast mode.  With any other
numba, or with the environment switch ``BALSIM_PLAIN_NUMBA=1``, every kind is plain
``njit(cache=True)`` (a ``layer`` adds numba's documented ``inline="always"``): the plain mode,
numba's public options only, whose kernels compile on their own as numba compiles any
function, with reference counting.  Both modes play the very same games (the tests compare
the datasets); the plain mode compiles and runs slower (docs/performance.md, "Compile modes").
Each mode caches its kernels in folders of its own (simulator/__init__.py).

Each kernel is cached in the folder of its game (its engine and its policies) or, outside the
games, in the shared one (``simulator.KERNEL_CACHE``): numba takes a kernel's cache folder
from its configuration when the kernel is decorated, so the kinds set it then.  The cache is
data like any input: a damaged file (cut short, overwritten) is found as it loads, and the
group's folder is cleared, once, with a notice, and compiled again (:class:`CheckedCache`).
Where the folder cannot be written, numba would silently keep the kernel among the package's
own files instead: that kernel is not cached, which the warning of
:func:`simulator.warn_uncached` says, once.
"""

import inspect
import os
import shutil
import sys

import numba
from numba import njit
from numba.core.caching import FunctionCache, NullCache, _CacheLocator

from simulator import KERNEL_CACHE, PLAIN_NUMBA, cache_group, unwritable, warn_uncached


def cached_in_its_group(compile_kernel, subfolder: str = ""):
    """``compile_kernel`` (a decorator) caching each kernel in its cache group's folder (in
    ``subfolder`` of it: numba's index of a function's cache tells its compiles apart only by
    their types, so two compiles of one function with other options need folders of their
    own)."""

    def decorate(py_func):
        folder = os.path.join(KERNEL_CACHE[cache_group(py_func.__module__)], subfolder)
        numba_folder = numba.config.CACHE_DIR
        numba.config.CACHE_DIR = folder
        try:
            kernel = compile_kernel(py_func)
        finally:
            numba.config.CACHE_DIR = numba_folder
        check_cache(kernel, folder)
        return kernel

    return decorate


def check_cache(kernel, folder: str) -> None:
    """Load ``kernel`` from ``folder`` through :class:`CheckedCache`; when numba placed its
    cache elsewhere (``folder`` could not be written), do not cache it at all."""
    cache = getattr(kernel, "_cache", None)
    if not isinstance(cache, FunctionCache):  # NUMBA_DISABLE_JIT: a plain Python function
        return
    folder = os.path.abspath(folder)
    if os.path.commonpath([os.path.abspath(cache.cache_path), folder]) != folder:
        wanted = os.path.join(
            folder, _CacheLocator.get_suitable_cache_subpath(inspect.getfile(kernel.py_func))
        )
        warn_uncached(wanted, unwritable(wanted) or "not a folder balsim can write")
        kernel._cache = NullCache()
        return
    cache.__class__ = CheckedCache
    cache.group_folder = folder


class CheckedCache(FunctionCache):
    """numba's cache of one kernel, whose files are checked as they load: a file that cannot
    be read back (damaged, cut short) clears the kernel's whole group folder, and the kernel
    is compiled and cached again."""

    group_folder: str

    def load_overload(self, sig, target_context):
        try:
            return super().load_overload(sig, target_context)
        except Exception as e:  # any failure to read a kernel back is damage
            clear_damaged(self.group_folder, e)
            return None


def clear_damaged(folder: str, error: Exception) -> None:
    """Move ``folder`` aside and delete it, saying so; a process that finds it already gone
    (another worker cleared it first) says nothing."""
    aside = f"{folder}.damaged-{os.getpid()}"
    try:
        os.rename(folder, aside)
    except OSError:
        return
    shutil.rmtree(aside, ignore_errors=True)
    why = " ".join(f"{type(error).__name__}: {error}".split())[:120]
    print(
        f"balsim: the compiled engines in {folder} were damaged ({why}); cleared, compiling "
        "them again (a minute or two)…",
        file=sys.stderr,
        flush=True,
    )


if PLAIN_NUMBA:
    rule = accessor = allocating = scorer = inlined = cached_in_its_group(njit(cache=True))
    entry = cached_in_its_group(njit(cache=True, nogil=True))
    layer = cached_in_its_group(njit(cache=True, inline="always"))
else:
    from simulator.core.kernel_only import NO_WRAPPERS, once_per_type

    def _cached_twin(**options):
        # numba's index of a function's cache tells its compiles apart by their types only
        return cached_in_its_group(njit(**{**options, "cache": True}), "python-twins")

    def _fast(**options):
        return cached_in_its_group(once_per_type(_cached_twin, cache=True, **options))

    rule = _fast(_nrt=False, forceinline=False, **NO_WRAPPERS)
    accessor = rule
    allocating = _fast(_nrt=True, forceinline=False, **NO_WRAPPERS)
    entry = _fast(_nrt=True, nogil=True)
    layer = _fast(inline="always")
    scorer = inlined = _fast(_nrt=False, forceinline=True, **NO_WRAPPERS)
