"""balsim matrix: dominance and the equilibrium on matrices with known answers, a planted case
played by the engine, its outputs and its report section."""

import json

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from simulator.cli import cli
from simulator.experiments.matrix import Agent, Matrix, equilibrium, read_matrix
from simulator.experiments.metrics import Estimate
from simulator.report import write_report
from simulator.report.matrix import matrix_section


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def planted(p: list[list[float]], n: int = 2_000, seed: int = 3) -> Matrix:
    """A matrix of win indicators drawn with rates ``p`` on n common games: the same uniform
    draw decides every cell of a column's game, as common random numbers would."""
    rng = np.random.default_rng(seed)
    k = len(p)
    draws = rng.random((k, n))  # per field (column), one draw per game
    rates = [
        [
            Estimate(w.mean(), w - w.mean(), trials=n)
            for w in ((draws[j] < p[i][j]).astype(float) for j in range(k))
        ]
        for i in range(k)
    ]
    return Matrix("toy", 4, [Agent(f"a{i}", "toy") for i in range(k)], rates, 0.25)


def test_rock_paper_scissors_has_the_uniform_equilibrium():
    rps = np.array([[0.0, 1.0, -1.0], [-1.0, 0.0, 1.0], [1.0, -1.0, 0.0]])
    weights, payoff = equilibrium(rps)
    assert weights == pytest.approx([1 / 3] * 3, abs=1e-9)
    assert payoff == pytest.approx([0.0] * 3, abs=1e-9)


def test_a_known_two_by_two_zero_sum_game():
    # row's payoffs [[3, -1], [-2, 1]]: the row mixes 3/7, 4/7 and the game's value is 1/7
    weights, payoff = equilibrium(np.array([[3.0, -1.0], [-2.0, 1.0]]))
    assert weights == pytest.approx([3 / 7, 4 / 7], abs=1e-9)
    assert weights @ np.array([[3.0, -1.0], [-2.0, 1.0]]) == pytest.approx([1 / 7] * 2)


def test_an_agent_that_beats_every_field_is_dominant_and_takes_all_the_weight():
    m = planted([[0.25, 0.6, 0.7], [0.05, 0.25, 0.4], [0.03, 0.2, 0.25]])
    assert m.dominant() == ["a0"]
    # paired on the same games, a1 also beats a2 in every column (by 2 to 15 points)
    assert m.dominated() == {"a1": ["a0"], "a2": ["a0", "a1"]}
    weights, payoff = m.equilibrium()
    assert weights == pytest.approx([1.0, 0.0, 0.0], abs=1e-9)
    assert payoff[0] == pytest.approx(0.0, abs=1e-9) and max(payoff[1:]) < 0


def test_a_cycle_has_no_dominant_agent_and_a_mixed_equilibrium():
    # a0 invades a1's field, a1 a2's, a2 a0's: nothing dominates, all three are played
    m = planted([[0.25, 0.5, 0.1], [0.1, 0.25, 0.5], [0.5, 0.1, 0.25]])
    assert m.dominant() == [] and m.dominated() == {}
    weights, _ = m.equilibrium()
    assert weights == pytest.approx([1 / 3] * 3, abs=0.03)


def test_equal_agents_dominate_nobody():
    m = planted([[0.25, 0.25], [0.25, 0.25]])
    assert not m.dominates(0, 1) and not m.dominates(1, 0)


@pytest.mark.slow
def test_the_matrix_of_a_planted_case_shows_the_winner_dominant(tmp_path, small_datasets):
    # the untuned hoarder buys only bargains and never wins; its tuned copy wins nearly always
    # against a field of it
    out = tmp_path / "m"
    result = invoke(
        "matrix", "ekonos", "-p", 4, "-n", 96, "--field", "cash_hoarder,cash_hoarder_tuned",
        "-j", 1, "-q", "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "cash_hoarder_tuned is dominant" in result.output
    assert "equilibrium mixture (zero-sum form): cash_hoarder_tuned 100%" in result.output
    record = read_matrix(out)
    assert record["equilibrium"] == {"cash_hoarder_tuned": 1.0}
    cells = pl.read_parquet(out / "matrix.parquet")
    assert cells.height == 4 and set(cells["games"]) == {96}
    diagonal = cells.filter(pl.col("entrant") == pl.col("field"))["value"]
    assert all(0.1 < v < 0.4 for v in diagonal)  # an agent against its own field: about 1/4
    assert (out / "matrix.png").read_bytes()[:4] == b"\x89PNG" and (out / "matrix.svg").exists()
    html = matrix_section([out])
    assert "Metagame" in html and "cash_hoarder_tuned is dominant" in html
    assert "<svg role='img' class='chart'" in html and "<img" not in html
    page = tmp_path / "r.html"
    write_report([small_datasets["ekonos"], out], page)
    assert "id='metagame'" in page.read_text()


def test_a_folder_of_another_tool_is_not_a_matrix(tmp_path):
    (tmp_path / "balsim.json").write_text(json.dumps({"tool": "skill"}))
    assert read_matrix(tmp_path) is None


def test_a_copy_that_plays_as_an_agent_before_it_is_that_agent():
    from simulator.core.game import get_game
    from simulator.experiments.field import Ladder, parse_fields
    from simulator.experiments.matrix import agents_of, matrix_rules

    game = get_game("ekonos")
    ladder = Ladder(game, 4)  # the printed rules' adaptation is shipped: nothing is played
    fields = parse_fields(("tuned,adapted",))
    rules = matrix_rules(ladder, game.rules(), fields)
    ((adaptation,),) = ladder.adaptations([game.rules()], fields[1], replicates=1)
    names = [a.name for a in agents_of(game, ladder, rules, fields)]
    tuned = [f"{p}_tuned" for p in game.scripted_policies]
    moved = [f"{p}_adapted" for p in game.scripted_policies if f"{p}_adapted" in adaptation.moved]
    assert moved and names == tuned + moved
