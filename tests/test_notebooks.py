"""The example notebooks: valid, built on the analysis library, and executed top to bottom.

Each notebook simulates its own small dataset at run time (``BALSIM_NB_GAMES`` games per
variant).
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from simulator.core.game import GAME_NAMES
from simulator.studies.study import studied_games

# end to end: `make test` runs these, `make test-fast` does not (pyproject.toml)
pytestmark = pytest.mark.slow

FOLDER = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = {
    "ekonos_scoring.ipynb": "ekonos",
    "karnaxis_tax_brackets.ipynb": "karnaxis",
    "karnaxis_loan_rules.ipynb": "karnaxis",
    "karmaggan_blood_coins.ipynb": "karmaggan",
}
SMALL = "1500"  # games per variant when the tests execute a notebook
# the notebook showing each game's attribution table (odds ratios, rates within policy)
ATTRIBUTION = {
    "ekonos_scoring.ipynb": "ekonos",
    "karmaggan_blood_coins.ipynb": "karmaggan",
    "karnaxis_tax_brackets.ipynb": "karnaxis",
}


def test_the_four_notebooks_are_valid_and_use_the_library():
    assert sorted(p.name for p in FOLDER.glob("*.ipynb")) == sorted(NOTEBOOKS)
    for name, game in NOTEBOOKS.items():
        nb = nbformat.read(FOLDER / name, as_version=4)
        nbformat.validate(nb)
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        assert f'GAME = "{game}"' in code and "assert GAME in GAME_NAMES" in code
        assert "from simulator.analysis import" in code
        assert "BALSIM_NB_GAMES" in code and "execute(plan" in code
        # no analysis by hand: no group-bys or aggregations written in the notebook
        assert ".group_by(" not in code and ".agg(" not in code
        assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), (
            f"{name} is stored without outputs"
        )
    assert set(NOTEBOOKS.values()) == set(studied_games()) == set(ATTRIBUTION.values())
    assert set(studied_games()) <= set(GAME_NAMES)


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_notebook_executes(name, tmp_path, monkeypatch):
    monkeypatch.setenv("BALSIM_NB_GAMES", SMALL)
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the notebook's dataset lands in tmp_path
    nb = nbformat.read(FOLDER / name, as_version=4)
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    played = [o for o in outputs if "{'games': " in str(o.get("data", {}).get("text/plain", ""))]
    assert played, "the notebook simulated its dataset"
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert images, "the notebook draws at least one chart"
    if name in ATTRIBUTION:
        text = [str(o.get("data", {}).get("text/html", "")) for o in outputs]
        assert any("odds_ratio" in t for t in text), "the attribution table is shown"
        assert any("expected_rate" in t for t in text), "the rates within policy are shown"
