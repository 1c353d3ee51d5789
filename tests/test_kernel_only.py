"""The kernels' fast mode (simulator.core.kernel_only): a kernel compiles once per type of its
arguments, a layer is inlined into its caller, and a kernel only kernels call is kept as code
for its callers to compile.  The fast mode exists only with the numba it is written for."""

import numba
import numpy as np
import pytest
from numba import types

from simulator import FAST_PATH_NUMBA, PLAIN_NUMBA

if numba.config.DISABLE_JIT or PLAIN_NUMBA:
    pytest.skip(
        f"the fast mode compiles kernels with numba {FAST_PATH_NUMBA} only",
        allow_module_level=True,
    )

from simulator.core.kernel_only import NO_WRAPPERS, KernelOnlyLibrary, once_per_type  # noqa: E402

plain = once_per_type(_nrt=False)


@plain
def add(a, b):
    return a + b


@plain
def add_literals(x):
    return add(x, 0) + add(x, 1) + add(x, -1) + add(x, True)


@once_per_type(_nrt=False, inline="always")
def twice(x):
    return add(x, x)


@plain
def call_twice(x):
    return twice(x) + 1


def test_literal_arguments_compile_one_version():
    assert add_literals(np.int64(5)) == 21
    assert add.signatures == [(types.int64, types.int64), (types.int64, types.boolean)]


def test_a_layer_is_inlined_not_compiled():
    assert call_twice(np.int64(4)) == 9
    assert twice.signatures == []
    assert add.signatures[0] == (types.int64, types.int64)


kernel_only = once_per_type(_nrt=False, **NO_WRAPPERS)  # ``rule``, uncached


@kernel_only
def scaled(x, k):
    return x * k


@once_per_type(_nrt=False)
def sum_scaled(values, k):
    total = 0
    for v in values:
        total += scaled(v, k)
    return total


def test_a_kernel_only_function_runs_in_its_caller_and_from_python():
    assert sum_scaled(np.arange(4), 3) == 18
    (compiled,) = scaled.overloads.values()
    assert isinstance(compiled.library, KernelOnlyLibrary)
    assert scaled(np.int64(6), np.int64(7)) == 42  # its twin, with Python's wrappers
    assert list(scaled.overloads) == [(types.int64, types.int64)]
