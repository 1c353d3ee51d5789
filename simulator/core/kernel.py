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
  games' seeds), compiled with NRT and with numba's wrappers for Python.
* Kernel-only compiling (``rule`` and ``allocating``).  numba compiles every function on its
  own: it optimises it, links it with the code of the whole tree of functions it calls,
  optimises that again and turns it into machine code, with wrappers that unbox its
  arguments from Python objects.  So each level of calls compiled the whole tree below it
  again: the Karmaggän engine and search took about two minutes of CPU.  A kernel that only
  other kernels call needs none of it: its code is kept as LLVM IR linked with its callees'
  (:class:`KernelOnlyLibrary`, no wrappers), and each ``entry`` kernel optimises and compiles
  its whole tree once, as a C compiler would.  The engines play the very same games as fast
  (datasets and ``balsim bench`` compared), and a cold compile of each engine with its search
  player takes about half the CPU time (Karmaggän 48 s instead of 104 s; 32-36 s since its
  world is one reference, ``games/karmaggan/world.py``).  A test or a notebook may still call
  such a kernel from Python: that call compiles a twin with the wrappers, once per process
  (:class:`KernelOnlyDispatcher`).  This relies on numba's code-library internals, hence
  numba's pinned minor version.
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

Each engine has one ``entry`` kernel per kind of run, not one per use, as each compiles the
whole engine: a replay plays its one game through the kernel of a bulk run (with trace rows to
fill), so replaying a game of a dataset compiles nothing the run has not.

Every kernel compiles once per type of its arguments: numba would compile it again for each
literal it is called with (``record(W, EV_HIT, fig, 0, 0)`` and ``record(W, EV_HIT, fig, 1, 0)``
were two compiles), so literal arguments are typed as their plain type (``once_per_type``).
"""

from llvmlite import binding as llvm
from numba import njit, types
from numba.core.codegen import JITCodeLibrary
from numba.core.compiler import Compiler
from numba.core.compiler_lock import require_global_compiler_lock
from numba.core.registry import CPUDispatcher


class KernelOnlyLibrary(JITCodeLibrary):
    """The code of a kernel only other kernels call: its LLVM IR linked with its callees',
    neither optimised as a whole nor turned into machine code (the ``entry`` kernel above it
    does both, once).  The execution engine gets only the globals where numba keeps the
    functions' environments, which numba sets when it compiles or loads the function."""

    def finalize(self):
        require_global_compiler_lock()
        self._raise_if_finalized()
        seen = set()
        for library in self._linking_libraries:
            if library not in seen:
                seen.add(library)
                self._reload_init.update(library._reload_init)
                self._final_module.link_in(library._get_module_for_linking(), preserve=True)
        environments = llvm.parse_assembly(
            str(self._codegen._create_empty_module(self.name))
            + "".join(
                f'@"{v.name}" = common global i8* null\n'
                for v in self._final_module.global_variables
                if "NumbaEnv" in v.name
            )
        )
        self._environments_object = self._codegen._tm.emit_object(environments)
        self._codegen._engine.add_module(environments)
        self._codegen._engine.finalize_object()
        self._finalized = True

    def get_pointer_to_function(self, name):
        self._ensure_finalized()
        return 0  # no machine code: a call from Python runs the dispatcher's twin

    def serialize_using_object_code(self):
        """Cached as numba caches any function (loaded back as a plain library): the object
        code is the environment's global, the bitcode is what its callers link."""
        self._ensure_finalized()
        return (
            self.name,
            "object",
            (self._environments_object, self._get_module_for_linking().as_bitcode()),
        )


class KernelOnlyCompiler(Compiler):
    """numba's compiler, lowering into a :class:`KernelOnlyLibrary`."""

    def compile_extra(self, func):
        if self.state.library is None:
            self.state.library = KernelOnlyLibrary(
                self.state.targetctx.codegen(), func.__qualname__
            )
        return super().compile_extra(func)


NO_WRAPPERS = {
    "no_cpython_wrapper": True,
    "no_cfunc_wrapper": True,
    "pipeline_class": KernelOnlyCompiler,
}


class KernelOnlyDispatcher(CPUDispatcher):
    """A kernel compiled without Python wrappers: called from Python (it has no machine code
    for Python to call), it runs a twin compiled with them, not cached (numba's cache would not
    tell the twin's entries from the kernel's)."""

    def __call__(self, *args, **kwargs):
        twin = self.__dict__.get("_python_twin")
        if twin is None:
            options = {
                k: v
                for k, v in self.targetoptions.items()
                if k not in NO_WRAPPERS and k != "nopython"
            }
            twin = self._python_twin = njit(**{**options, "cache": False})(self.py_func)
        return twin(*args, **kwargs)


def once_per_type(**options):
    """``njit(**options)`` whose kernels, called from other kernels, are compiled for the plain
    types of literal arguments (int64 for ``0``), not once per literal value."""
    compile_kernel = njit(**options)

    def decorate(py_func):
        kernel = compile_kernel(py_func)
        typed_call = getattr(kernel, "get_call_template", None)
        if typed_call is None:  # NUMBA_DISABLE_JIT: plain Python
            return kernel
        if options.get("no_cpython_wrapper"):
            kernel.__class__ = KernelOnlyDispatcher

        def get_call_template(args, kws):
            return typed_call(
                tuple(types.unliteral(a) for a in args),
                {k: types.unliteral(v) for k, v in kws.items()},
            )

        kernel.get_call_template = get_call_template
        return kernel

    return decorate


rule = once_per_type(cache=True, _nrt=False, forceinline=False, **NO_WRAPPERS)
accessor = rule
allocating = once_per_type(cache=True, _nrt=True, forceinline=False, **NO_WRAPPERS)
entry = once_per_type(cache=True, _nrt=True)
layer = once_per_type(cache=True, inline="always")
scorer = once_per_type(cache=True, _nrt=False, forceinline=True, **NO_WRAPPERS)
