"""The mutant runner (tests/mutants/run.py) counts a mutant killed only when a test fails on an
assertion: a test that crashes on another exception has not checked the rule."""

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

# end to end: `make test` runs these, `make test-fast` does not (pyproject.toml)
pytestmark = pytest.mark.slow

MUTANTS = Path(__file__).parent / "mutants"


@pytest.fixture
def runner(monkeypatch):
    monkeypatch.syspath_prepend(str(MUTANTS))  # run.py imports its plugin as a module
    spec = importlib.util.spec_from_file_location("mutant_runner", MUTANTS / "run.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "body, outcome",
    [
        ("def test_rule():\n    assert 1 + 1 == 3\n", "killed by tests/test_rule.py::test_rule"),
        (
            "import pytest\n\n\ndef test_rule():\n    with pytest.raises(ValueError):\n"
            "        pass\n",
            "killed by tests/test_rule.py::test_rule",
        ),
        (
            "def test_stale():\n    cfg\n\ndef test_rule():\n    assert 1 + 1 == 3\n",
            "killed by tests/test_rule.py::test_rule",
        ),
        (
            "def test_stale():\n    cfg\n",
            "errored: NameError: name 'cfg' is not defined in tests/test_rule.py::test_stale",
        ),
        ("def test_rule():\n    assert 1 + 1 == 2\n", "passed"),
    ],
    ids=["assertion", "pytest.raises", "error then assertion", "error only", "passing"],
)
def test_only_an_assertion_kills(runner, tmp_path, body, outcome):
    (tmp_path / "tests" / "mutants").mkdir(parents=True)
    shutil.copy(MUTANTS / "mutant_kills.py", tmp_path / "tests" / "mutants")
    (tmp_path / "tests" / "test_rule.py").write_text(body)
    assert runner.run_tests(tmp_path, ["tests/test_rule.py"], jit=False, timeout=120) == outcome
