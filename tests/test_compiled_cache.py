"""The compiled-kernel cache is data like any input (simulator/core/kernel.py): a damaged one
is cleared and compiled again, once, with a notice; a folder balsim cannot write is one
warning, and numba then keeps nothing among the package's files.

Each case runs a one-line kernel in a child process (a kernel loads its cache once per
process), cached through the kinds of simulator.core.kernel in a cache folder of its own.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

KERNEL = """
from simulator.core.kernel import entry


@entry
def triple(x):
    return 3 * x
"""


def run_kernel(tmp_path: Path) -> subprocess.CompletedProcess:
    """``tiny.triple(14)`` in a child process whose compiled kernels live in tmp/cache."""
    module = tmp_path / "code" / "tiny.py"
    if not module.exists():
        module.parent.mkdir()
        module.write_text(KERNEL)
    env = {k: v for k, v in os.environ.items() if k != "BALSIM_NUMBA_CACHE_DIR"}
    env.update(NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(module.parent))
    code = "import tiny; print(tiny.triple(14))"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0 and done.stdout == "42\n", done.stderr
    return done


def cached(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache").rglob("tiny.triple-*.nb[ic]"))


@pytest.mark.slow
def test_a_damaged_compiled_cache_is_cleared_and_compiled_again_once(tmp_path):
    assert run_kernel(tmp_path).stderr == ""
    files = cached(tmp_path)
    assert [f.suffix for f in files] == [".nbc", ".nbi"]
    for f in files:  # cut short, as by a full disk or a copy stopped half way
        f.write_bytes(f.read_bytes()[:40])
    lines = run_kernel(tmp_path).stderr.splitlines()
    folder = files[0].parent.parent
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"balsim: the compiled engines in {folder} were damaged (")
    assert lines[0].endswith("cleared, compiling them again (a minute or two)…")
    assert run_kernel(tmp_path).stderr == ""  # compiled and cached again: said once
    assert [f.stat().st_size > 40 for f in cached(tmp_path)] == [True, True]


@pytest.mark.slow
def test_a_cache_folder_that_cannot_be_written_is_one_warning(tmp_path):
    """The kernel's own folder in the cache is a file: numba would silently cache the kernel
    beside its source instead (in the package, for balsim's own kernels)."""
    from numba.core.caching import _CacheLocator

    run_kernel(tmp_path)
    subfolder = cached(tmp_path)[0].parent
    for f in subfolder.iterdir():
        f.unlink()
    subfolder.rmdir()
    subfolder.write_text("not a folder")
    assert subfolder.name == _CacheLocator.get_suitable_cache_subpath(
        str(tmp_path / "code" / "tiny.py")
    )
    for _ in range(2):  # every run compiles again, and says so
        lines = run_kernel(tmp_path).stderr.splitlines()
        assert len(lines) == 1, lines
        assert lines[0].startswith(f"balsim: warning: cannot write compiled engines to {subfolder}")
        assert "every run will compile them again" in lines[0]
    assert not list((tmp_path / "code").rglob("*.nb[ic]"))  # nothing beside the source
    assert subfolder.read_text() == "not a folder"
