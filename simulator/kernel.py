"""How the engines' functions are compiled (numba), and why.

* ``rule``: rule functions, decisions and policies that never allocate are compiled without
  numba's reference counting (NRT).  With it, every call increfs and decrefs each array
  argument atomically: about three quarters of the CPU time of the Ekonos and Karnaxis
  engines (4-6x slower, identical results).  Code that allocates cannot compile as ``rule``
  (numba refuses it).
* ``accessor``: one-line accessors of a flat state, compiled as ``rule``; LLVM inlines them.
  numba's own ``inline="always"`` on accessors compiled no faster and the Ekonos engine ran
  about 40% slower with the default seats (measured side by side), so accessors do not use it.
* ``allocating``: the few functions that allocate, sort or copy slices (a chunk of games'
  buffers, a new game's random streams, the search's candidate scores, re-deal and world
  copies).  NRT must be set
  explicitly: a function without the option inherits it from the function whose compilation
  reaches it.
* ``layer``: a function that only sequences others (a game's loop, a round loop, a turn's
  phases), called from one or two places: numba inlines it into its callers instead of
  compiling it on its own.  Every compiled function is linked with, re-optimised with and
  turned into machine code with the whole tree of functions it calls, so each layer above a
  turn cost the engine's whole compile again (Karmaggän: about six seconds a layer).  Inlining a
  whole rule section (a swarm's turn, a combat's end) instead measured no faster: its callers
  grow as much as it saved.  Nor is every loop inlined: the Ekonos loop (``advance``,
  ``play_step``) ran about a quarter slower inlined (paired runs), so it stays compiled; nor
  is the Karmaggän round loop (``play_from``), which the game loop, the search driver and the
  search's rollouts share: inlined into them, they compiled no faster (paired cold compiles).
  Called alone from Python (a test), a layer compiles with NRT.

For the same reason each engine has one kernel per kind of run, not one per use: a replay
plays its one game through the kernel of a bulk run (with trace rows to fill), so replaying a
game of a dataset compiles nothing the run has not.

Every kernel compiles once per type of its arguments: numba would compile it again for each
literal it is called with (``record(W, EV_HIT, fig, 0, 0)`` and ``record(W, EV_HIT, fig, 1, 0)``
were two compiles), so literal arguments are typed as their plain type (``once_per_type``).
"""

from numba import njit, types


def once_per_type(**options):
    """``njit(**options)`` whose kernels, called from other kernels, are compiled for the plain
    types of literal arguments (int64 for ``0``), not once per literal value."""
    compile_kernel = njit(**options)

    def decorate(py_func):
        kernel = compile_kernel(py_func)
        typed_call = getattr(kernel, "get_call_template", None)
        if typed_call is None:   # NUMBA_DISABLE_JIT: plain Python
            return kernel

        def get_call_template(args, kws):
            return typed_call(tuple(types.unliteral(a) for a in args),
                              {k: types.unliteral(v) for k, v in kws.items()})
        kernel.get_call_template = get_call_template
        return kernel
    return decorate


rule = once_per_type(cache=True, _nrt=False)
accessor = rule
allocating = once_per_type(cache=True, _nrt=True)
layer = once_per_type(cache=True, inline="always")
