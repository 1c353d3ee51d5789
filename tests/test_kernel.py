"""How kernels compile (simulator.kernel): once per type of their arguments, and a layer
inlined into its caller."""

import numba
import numpy as np
import pytest
from numba import types

from simulator.kernel import once_per_type

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
    script = ("import numba, simulator, os; "
              "print(int(numba.config.OPT), os.environ['NUMBA_CACHE_DIR'])")
    level, folder = subprocess.run([sys.executable, "-c", script], env=env, check=True,
                                   capture_output=True, text=True).stdout.split()
    assert level == (opt or "2") and folder.endswith(f"-O{level}")   # kernels of one level only
