"""Random rules overrides and option values never make `balsim run` print a traceback.

Whatever a user types, `run` either plays (exit 0, a complete dataset) or refuses with exit
status 2 and one line ``Error: ...``, having written nothing.  Exit status 1 (a fault or a bug)
and tracebacks fail the property.  The engines are compiled once for the session, so each
example plays a handful of games in-process.
"""

import shutil
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulator.cli import cli
from simulator.core.game import GAME_NAMES, get_game
from simulator.core.rules import MAX_MAGNITUDE, toml_value

# end to end: `make test` runs these, `make test-fast` does not (pyproject.toml)
pytestmark = pytest.mark.slow

EDGES = [-1, 0, 1, 2, 3, 7, MAX_MAGNITUDE, MAX_MAGNITUDE + 1, -MAX_MAGNITUDE - 1, 2**63, 2**70]


def leaves(rules: dict, prefix: str = "") -> list[tuple[str, object]]:
    """(dotted key, default value) of every value a --set can name (tables are walked)."""
    found = []
    for key, value in rules.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            found += leaves(value, path + ".")
        else:
            found.append((path, value))
    return found


def near(default) -> st.SearchStrategy:
    """Values a user might try for a key whose default is ``default``, as TOML text."""
    if isinstance(default, bool):
        values = st.booleans()
    elif isinstance(default, int):
        values = st.one_of(
            st.sampled_from([default - 1, default + 1, 2 * default, default // 2]),
            st.sampled_from(EDGES + [-default]),
        )
    elif isinstance(default, float):
        values = st.one_of(
            st.floats(allow_nan=True, allow_infinity=True),
            st.sampled_from([0.0, -default, 2 * default]),
        )
    elif isinstance(default, str):
        values = st.text(max_size=6)
    elif isinstance(default, list) and default and not isinstance(default[0], dict):
        values = st.one_of(
            st.just([]),
            st.lists(st.sampled_from(default), max_size=len(default) + 2),
            st.just(default[:-1]),
            st.just(default + default[-1:]),
        )
    else:
        values = st.just(default)
    typed = values.map(toml_value)
    return st.one_of(typed, typed, typed, st.text(max_size=8))  # mostly well-typed values


@st.composite
def overrides(draw, game: str) -> list[str]:
    keys = leaves(get_game(game).default_rules())
    chosen = draw(st.lists(st.sampled_from(keys), max_size=2, unique_by=lambda kv: kv[0]))
    return [f"{key}={draw(near(default))}" for key, default in chosen]


@st.composite
def run_arguments(draw) -> list[str]:
    game = draw(st.sampled_from(GAME_NAMES))
    args = ["run", game, "-n", str(draw(st.integers(1, 12)) if draw(st.integers(0, 9)) else 2**64)]
    args += ["-j", "1", "-q"]
    for assignment in draw(overrides(game)):
        args += ["--set", assignment]
    if draw(st.booleans()):
        args += ["-p", str(draw(st.integers(-1, 9)))]
    names = [p.name for p in get_game(game).policies] + ["bogus"]
    if draw(st.booleans()):
        args += ["--policy", draw(st.sampled_from(names))]
    if draw(st.booleans()):
        args += ["--seats", ",".join(draw(st.lists(st.sampled_from(names), max_size=9)))]
    if draw(st.booleans()):
        args += ["--seed", str(draw(st.integers(-1, 2**64)))]
    if draw(st.booleans()):
        args += ["--chunk-size", str(draw(st.integers(0, 8)))]
    if draw(st.booleans()):
        args += ["--fixed-seats"]
    return args


@settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(args=run_arguments())
def test_run_never_prints_a_traceback(small_datasets, args):
    folder = Path(tempfile.mkdtemp())
    out = folder / "out"
    try:
        result = CliRunner().invoke(cli, args + ["--out", str(out)])
        assert "Traceback" not in result.output, (args, result.output)
        assert result.exit_code in (0, 2), (args, result.output)
        if result.exit_code == 2:
            lines = result.stderr.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("Error: "), (args, result.stderr)
            assert not out.exists(), args
        else:
            assert '"status": "complete"' in (out / "manifest.json").read_text()
    finally:
        shutil.rmtree(folder)
