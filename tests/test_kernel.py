"""How kernels compile (simulator.core.kernel): the mode chosen, the plain mode's public options
and its games (the very games of the fast mode), each game's kernels
cached in a folder keyed on its own sources, the -O2 level, a cached kernel linked into a new
caller.  The fast mode's own mechanics: test_kernel_only.py."""

import os
import re
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import polars as pl
import pytest

from simulator import (
    FAST_PATH_NUMBA,
    KERNEL_CACHE,
    PLAIN_NUMBA,
    SHARED,
    cache_group,
    cache_keys,
    package_sources,
    plain_numba,
)
from simulator.core.game import GAME_NAMES, get_game

pytestmark = pytest.mark.skipif(numba.config.DISABLE_JIT, reason="about compiling kernels")
# the plain mode set by its switch, in a process of its own, beside this one's fast mode
fast_beside_plain = pytest.mark.skipif(
    PLAIN_NUMBA, reason=f"only the plain mode without numba {FAST_PATH_NUMBA} or with its switch"
)
TESTS = Path(__file__).resolve().parent


def environment(**changes) -> dict[str, str]:
    """This process's environment with ``changes`` (None removes a variable), as a fresh
    process of the package (not a worker of this one) sees it, its kernel cache folders beside
    this one's unless ``changes`` sets NUMBA_CACHE_DIR."""
    env = {k: v for k, v in os.environ.items() if k != "BALSIM_NUMBA_CACHE_DIR"}
    env["NUMBA_CACHE_DIR"] = os.path.dirname(KERNEL_CACHE[SHARED])
    for name, value in changes.items():
        env.pop(name, None) if value is None else env.update({name: value})
    return env


def run(args, env, **kw) -> str:
    done = subprocess.run(args, env=env, capture_output=True, text=True, **kw)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize(
    "version, switch, plain",
    [
        ("0.68.1", None, False),
        ("0.68.0", None, False),
        ("0.68.1", "0", False),
        ("0.68.1", "1", True),
        ("0.67.0", None, True),
        ("0.69.0rc1", None, True),
        ("1.0.0", None, True),
    ],
)
def test_the_plain_mode_is_chosen_by_numbas_version_or_the_switch(version, switch, plain):
    assert FAST_PATH_NUMBA == "0.68"
    assert plain_numba(version, switch) is plain


KINDS = ("rule", "accessor", "allocating", "entry", "layer", "scorer")
SHOW_KINDS = f"""
import numba, simulator.core.kernel as kernel

def f(x):
    return x

for kind in {KINDS!r}:
    k = getattr(kernel, kind)(f)
    options = ",".join(f"{{o}}={{v}}" for o, v in sorted(k.targetoptions.items()))
    retyped = "get_call_template" in vars(k)  # the fast mode's once_per_type
    print(kind, type(k) is numba.core.registry.CPUDispatcher, retyped, options)
"""


def test_the_plain_mode_compiles_with_numbas_public_options_only(tmp_path):
    (tmp_path / "kinds.py").write_text(SHOW_KINDS)
    out = run(
        [sys.executable, str(tmp_path / "kinds.py")],
        environment(BALSIM_PLAIN_NUMBA="1", NUMBA_CACHE_DIR=str(tmp_path / "cache")),
    )
    shown = {line.split()[0]: line.split()[1:] for line in out.splitlines()}
    plain = ["True", "False", "boundscheck=None,nopython=True"]
    assert shown == {
        **{kind: plain for kind in KINDS},
        "layer": ["True", "False", "boundscheck=None,inline=always,nopython=True"],
        # the kernels Python calls release the interpreter's lock (docs/cluster.md)
        "entry": ["True", "False", "boundscheck=None,nogil=True,nopython=True"],
    }


def test_each_games_kernels_are_cached_in_its_own_folder():
    from policies import ekonos as ekonos_policies
    from simulator.core import rng
    from simulator.games.ekonos import chunk as ekonos
    from simulator.games.karmaggan import chunk as karmaggan
    from simulator.games.karnaxis import chunk as karnaxis

    where = {
        "ekonos": ekonos.play_games,
        "karnaxis": karnaxis.play_games,
        "karmaggan": karmaggan.play_games,
        SHARED: rng.rng_below,
    }
    for group, kernel in where.items():
        assert kernel.stats.cache_path.startswith(KERNEL_CACHE[group] + os.sep), group
    assert ekonos_policies.option_score.stats.cache_path.startswith(KERNEL_CACHE["ekonos"])
    assert len(set(KERNEL_CACHE.values())) == len(GAME_NAMES) + 1


def changed_keys(edited_module: str) -> set[str]:
    """The cache groups whose key an edit of ``edited_module`` (in a copy of the sources)
    changes."""
    sources = package_sources()
    before = cache_keys(sources)
    after = cache_keys({**sources, edited_module: sources[edited_module] + b"\nEDITED = 1\n"})
    assert after.keys() == before.keys() == {SHARED, *GAME_NAMES}
    return {group for group in before if after[group] != before[group]}


@pytest.mark.parametrize("name", GAME_NAMES)
def test_editing_one_games_sources_changes_only_its_cache_key(name):
    own = [m for m in package_sources() if cache_group(m) == name]
    assert f"policies.{name}" in own and f"simulator.games.{name}.engine" in own
    for module in own:
        assert changed_keys(module) == {name}, module


def test_editing_what_every_engine_compiles_from_changes_every_key():
    # the RNG's kernels, and the constants the policies read from the game contract
    assert changed_keys("simulator.core.rng") == {SHARED, *GAME_NAMES}
    assert changed_keys("simulator.core.game") == {SHARED, *GAME_NAMES}
    assert changed_keys("simulator.cli.play") == set()  # no kernel is compiled from the CLI
    assert changed_keys("simulator") == set()  # the package's docstring, the cache's logic


@pytest.mark.parametrize("opt", [None, "3"])
def test_kernels_compile_at_O2_unless_the_environment_sets_a_level(opt, tmp_path):
    env = environment(NUMBA_OPT=opt, NUMBA_CACHE_DIR=str(tmp_path))
    script = (
        "import numba, simulator, os; print(int(numba.config.OPT), os.environ['NUMBA_CACHE_DIR'])"
    )
    level, folder = subprocess.run(
        [sys.executable, "-c", script], env=env, check=True, capture_output=True, text=True
    ).stdout.split()
    mode = "-plain" if PLAIN_NUMBA else ""
    assert level == (opt or "2") and folder.endswith(f"-O{level}{mode}")  # of one level only


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


@pytest.mark.parametrize("switch", [None, "1"])
@pytest.mark.slow
def test_a_cached_kernel_only_function_links_into_a_new_caller(switch, tmp_path):
    """A second process loads the kernel-only function (the fast mode's ``rule``; in the plain
    mode an ordinary kernel) from the cache and compiles a caller the first never compiled
    with it."""
    (tmp_path / "cached_kernels.py").write_text(CACHED_KERNELS)
    env = environment(
        BALSIM_PLAIN_NUMBA=switch,
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


def kinds_used_by(games: tuple[str, ...]) -> set[str]:
    """The kinds of kernel (``@rule``, ``@kernel.layer``...) the engines and policies of
    ``games`` declare."""
    root = TESTS.parent
    sources = [root / "policies" / f"{g}.py" for g in games]
    sources += [f for g in games for f in (root / "simulator" / "games" / g).glob("*.py")]
    pattern = re.compile(rf"^@(?:kernel\.)?({'|'.join(KINDS)})\b", re.M)
    return {m for f in sources if f.exists() for m in pattern.findall(f.read_text())}


PLAIN = """
import sys
from pathlib import Path
import numpy as np
sys.path.insert(0, {tests!r})
from conftest import small_plan
from test_contract import three_games
from simulator.run.runner import execute
out = Path(sys.argv[1])
for name in {games!r}:
    execute(small_plan(name), out / name, jobs=1, progress=False)
    np.savez(out / f"{{name}}.npz", **three_games(name))
"""


@fast_beside_plain
def test_the_plain_mode_plays_the_games_of_the_fast_mode(small_datasets, tmp_path):
    """Pig's kernels compiled in the plain mode, in a process of its own, give every table and
    column of the contract's small dataset, and of its three games with a `random` seat beside
    the scripted ones (those the plain Python run is held to in test_contract.py), as the fast
    mode gives them.  Pig's kernels use every kind, so this is the plain mode of each kind;
    each of the other engines' plain compile is about a minute of CPU, so they are held to the
    fast mode's games by ``BALSIM_PLAIN_NUMBA=1 python bench/digests.py``
    (docs/performance.md)."""
    from test_contract import three_games

    games = ("pig",)
    assert kinds_used_by(games) == set(KINDS)
    script = PLAIN.format(tests=str(TESTS), games=games)
    run([sys.executable, "-c", script, str(tmp_path)], environment(BALSIM_PLAIN_NUMBA="1"))
    for name in games:
        for table in ["games", "players", *get_game(name).timelines]:
            plain = pl.read_parquet(tmp_path / name / table).sort(pl.all())
            fast = pl.read_parquet(small_datasets[name] / table).sort(pl.all())
            assert plain.height > 0 and plain.equals(fast), (name, table)
        fast, plain = three_games(name), np.load(tmp_path / f"{name}.npz")
        assert sorted(fast) == sorted(plain.files)
        for key in fast:
            np.testing.assert_array_equal(fast[key], plain[key], err_msg=f"{name} {key}")
