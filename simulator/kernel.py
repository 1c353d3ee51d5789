"""How an engine's functions are compiled (numba), and why.

* ``rule``: rule functions, decisions and policies that never allocate are compiled without
  numba's reference counting (NRT).  With it, every call increfs and decrefs each array
  argument atomically; in the Karnaxis engine that was about three quarters of the CPU time
  (identical results without it).  Code that allocates cannot compile as ``rule`` (numba
  refuses it).
* ``allocating``: the few functions that allocate or sort (a chunk of games' buffers, a new
  game's random streams, the search's candidate scores and re-deal).  NRT must be set
  explicitly: a function without the option inherits it from the function whose compilation
  reaches it.
"""

from numba import njit

rule = njit(cache=True, _nrt=False)
allocating = njit(cache=True, _nrt=True)
