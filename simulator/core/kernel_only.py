"""The kernels' fast path (``simulator.core.kernel``): a kernel only other kernels call is
kept as LLVM IR linked with its callees', and each ``entry`` kernel optimises and compiles
its whole tree once.  Written against numba 0.68's code-library internals (``finalize`` is
a trimmed copy of ``JITCodeLibrary.finalize``, without ``verify()``), so imported only with
that numba (``simulator.FAST_PATH_NUMBA``).
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
    for Python to call), it runs a twin compiled with them, cached beside the kernels of its
    group in a folder of the twins' own (numba's cache would not tell the twin's entries from
    the kernel's): the rule tests call kernels from Python, and compiled each twin's whole
    tree again in every test process."""

    compile_twin = None  # options -> the decorator compiling the twin (set by once_per_type)

    def __call__(self, *args, **kwargs):
        twin = self.__dict__.get("_python_twin")
        if twin is None:
            options = {
                k: v
                for k, v in self.targetoptions.items()
                if k not in NO_WRAPPERS and k != "nopython"
            }
            twin = self._python_twin = self.compile_twin(**options)(self.py_func)
        return twin(*args, **kwargs)


def uncached_twin(**options):
    return njit(**{**options, "cache": False})


def once_per_type(compile_twin=uncached_twin, **options):
    """``njit(**options)`` whose kernels, called from other kernels, are compiled for the plain
    types of literal arguments (int64 for ``0``), not once per literal value; a kernel without
    wrappers, called from Python, runs a twin compiled by ``compile_twin(**its options)``."""
    compile_kernel = njit(**options)

    def decorate(py_func):
        kernel = compile_kernel(py_func)
        typed_call = getattr(kernel, "get_call_template", None)
        if typed_call is None:  # NUMBA_DISABLE_JIT: plain Python
            return kernel
        if options.get("no_cpython_wrapper"):
            kernel.__class__ = KernelOnlyDispatcher
            kernel.compile_twin = compile_twin

        def get_call_template(args, kws):
            return typed_call(
                tuple(types.unliteral(a) for a in args),
                {k: types.unliteral(v) for k, v in kws.items()},
            )

        kernel.get_call_template = get_call_template
        return kernel

    return decorate
