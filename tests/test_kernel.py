"""How kernels compile (simulator.core.kernel): once per type of their arguments, a layer inlined
into its caller, and a kernel only kernels call kept as code for its callers to compile."""

import numba
import numpy as np
import pytest
from numba import types

from simulator.core.kernel import NO_WRAPPERS, KernelOnlyLibrary, once_per_type

pytestmark = pytest.mark.skipif(numba.config.DISABLE_JIT, reason="about compiling kernels")
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


@pytest.mark.parametrize("opt", [None, "3"])
def test_kernels_compile_at_O2_unless_the_environment_sets_a_level(opt, tmp_path):
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_OPT", "BALSIM_NUMBA_CACHE_DIR")}
    env["NUMBA_CACHE_DIR"] = str(tmp_path)
    if opt:
        env["NUMBA_OPT"] = opt
    script = (
        "import numba, simulator, os; print(int(numba.config.OPT), os.environ['NUMBA_CACHE_DIR'])"
    )
    level, folder = subprocess.run(
        [sys.executable, "-c", script], env=env, check=True, capture_output=True, text=True
    ).stdout.split()
    assert level == (opt or "2") and folder.endswith(f"-O{level}")  # kernels of one level only


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


CACHED_KERNELS = """
from simulator.core.kernel import entry, rule

@rule
def scaled(x, k):
    return x * k

@entry
def sum_scaled(values, k):
    total = 0
    for v in values:
        total += scaled(v, k)
    return total

@entry
def max_scaled(values, k):
    best = scaled(values[0], k)
    for v in values:
        best = max(best, scaled(v, k))
    return best
"""


def test_a_cached_kernel_only_function_links_into_a_new_caller(tmp_path):
    """A second process loads the kernel-only function from the cache and compiles a caller
    the first never compiled with it."""
    import os
    import subprocess
    import sys

    (tmp_path / "cached_kernels.py").write_text(CACHED_KERNELS)
    env = {k: v for k, v in os.environ.items() if k != "BALSIM_NUMBA_CACHE_DIR"}
    env.update(
        NUMBA_CACHE_DIR=str(tmp_path / "cache"),
        PYTHONPATH=os.pathsep.join([str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])]),
    )
    script = (
        "import numpy as np, cached_kernels as m; v = np.arange(5); "
        "print(m.sum_scaled(v, 3), m.max_scaled(v, 3), m.scaled.stats.cache_hits.total())"
    )
    first = subprocess.run(
        [sys.executable, "-c", script.replace("m.max_scaled(v, 3)", "0")],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    second = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert first == ["30", "0", "0"]
    assert second == ["30", "12", "1"]
