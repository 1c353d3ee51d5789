"""How the engines' functions are compiled (numba), and why.

* ``rule``: rule functions, decisions and policies that never allocate are compiled without
  numba's reference counting (NRT).  With it, every call increfs and decrefs each array
  argument atomically: about three quarters of the CPU time of the Ekonos and Karnaxis
  engines (4-6x slower, identical results).  Code that allocates cannot compile as ``rule``
  (numba refuses it).
* ``accessor``: one-line accessors of a flat state, compiled as ``rule``; LLVM inlines them.
  numba's own ``inline="always"`` compiled no faster and the Ekonos engine ran about 40% slower
  with the default seats (measured side by side), so it is not used.
* ``allocating``: the few functions that allocate or sort (a chunk of games' buffers, a new
  game's random streams, the search's candidate scores and re-deal).  NRT must be set
  explicitly: a function without the option inherits it from the function whose compilation
  reaches it.

Constants passed as arguments are numpy int64 (each engine's ``state.py``): numba compiles a
function once for every distinct Python-int literal argument, but types a numpy scalar as
plain int64.
"""

from numba import njit

rule = njit(cache=True, _nrt=False)
accessor = rule
allocating = njit(cache=True, _nrt=True)
