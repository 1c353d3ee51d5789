"""How the Ekonos engine's functions are compiled (numba), and why.

* ``rule``: the rule functions, decisions and policies never allocate, so they are compiled
  without numba's reference counting (NRT).  With it, every call increfs and decrefs each
  array argument atomically; that was three quarters of the engine's time (4-6x slower,
  identical results).  Code that allocates cannot compile under ``rule`` (numba refuses it).
* ``accessor``: one-line accessors of the state, inlined where they are called (so numba does
  not compile a copy for every constant argument they are given).
* ``allocating``: the few functions that allocate or sort (setup of a chunk of games, the
  search's candidate scores and re-deal).  NRT must be set explicitly: a function without the
  option inherits it from the function whose compilation reaches it.

Constants passed as arguments are numpy int64 (state.py): numba compiles a function once for
every distinct Python-int literal argument, but types a numpy scalar as plain int64.
"""

from numba import njit

rule = njit(cache=True, _nrt=False)
accessor = njit(cache=True, _nrt=False, inline="always")
allocating = njit(cache=True, _nrt=True)
