"""The trace every engine writes: the compact event log of one game that ``balsim replay``
decodes (DESIGN.md "Trace").

A trace is an int64 array of TRACE_WIDTH columns, a row an event: ``[event, clock, seat, a, b,
c, d]``, the game's event code, its clock (the Karnaxis year, the Ekonos turn, the Karmaggän
round), the seat, and four values the event gives a meaning to (each game's replay module reads
them).  A bulk run passes a trace of no rows, so writing costs one comparison; a replay passes
one with room for a whole game.  The rows written are counted in a slot of the game's state,
``counter``.
"""

import numpy as np

from simulator.core.kernel import accessor

TRACE_WIDTH = 7


def new_trace(rows: int) -> np.ndarray:
    """A trace with room for ``rows`` events (0: a bulk run's, which records nothing)."""
    return np.zeros((rows, TRACE_WIDTH), np.int64)


@accessor
def put_row(trace, at, event, clock, seat, a, b, c, d):
    """Write row ``at`` if the trace has it."""
    if at < trace.shape[0]:
        row = trace[at]
        row[0], row[1], row[2], row[3], row[4], row[5], row[6] = event, clock, seat, a, b, c, d


@accessor
def record(state, counter, trace, event, clock, seat, a, b, c, d):
    """Append one row after the ``state[counter]`` written so far, when the trace has room."""
    n = state[counter]
    if n < trace.shape[0]:
        put_row(trace, n, event, clock, seat, a, b, c, d)
        state[counter] = n + 1
