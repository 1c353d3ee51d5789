"""The bit-mask helpers (simulator/core/bits.py): compiled, they give what their plain Python
gives, on masks up to the 63 items a non-negative int64 holds; the i-th item by both of its
compiled forms (the bit deposit only where numba compiles for a CPU that has it: elsewhere no
kernel uses it)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from simulator.core.bits import (
    compiled_with_bit_deposit,
    count,
    lowest,
    nth,
    nth_by_deposit,
    nth_by_steps,
)


@njit(cache=False)
def compiled(mask, i):
    return count(mask), lowest(mask), nth(mask, i)


NTH_FORMS = [njit(cache=False)(nth_by_steps)]
if compiled_with_bit_deposit():
    NTH_FORMS.append(njit(cache=False)(nth_by_deposit))


@settings(deadline=None)  # the first example compiles
@given(mask=st.integers(1, 2**63 - 1), pick=st.integers(0, 62))
def test_compiled_bit_helpers_agree_with_plain_python(mask, pick):
    i = pick % count(mask)
    assert compiled(np.int64(mask), i) == (count(mask), lowest(mask), nth(mask, i))
    items = [s for s in range(63) if mask >> s & 1]
    assert nth(mask, i) == items[i] and lowest(mask) == items[0] and count(mask) == len(items)
    for form in NTH_FORMS:
        assert form(np.int64(mask), i) == items[i], form
