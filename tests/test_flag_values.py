"""The metrics that measure the report's other flags (neighbour excess, presidency edge, loan
rates, runaway rate), computed by the screens from an engine's raw output, equal what the
analysis computes from the dataset of the very same games."""

import polars as pl
import pytest

from simulator.analysis import Dataset, neighbour_summary, runaway_leader, stratified_rates
from simulator.core.game import get_game
from simulator.experiments.lab import Design, Lab, batch_ids
from simulator.games.ekonos.analysis import with_presidency
from simulator.games.karnaxis.analysis import loan_cap, loan_summary
from simulator.run.plan import Plan, Variant
from simulator.run.runner import execute
from simulator.studies.seats import study_seats

GAMES = 240


def same_games(name, tmp_path):
    """(Outcomes from a screen's Lab, Dataset from the runner) of the same games."""
    game = get_game(name)
    rules, seats = game.rules(), study_seats(game, 4)
    with Lab(game, 1) as lab:
        outcomes = lab.play(Design(name, tuple(seats), 5), [rules], batch_ids(0, GAMES))[0]
    plan = Plan(
        game=name,
        n_games=GAMES,
        n_players=4,
        seats=seats,
        seed=5,
        chunk_size=GAMES,
        variants=[Variant("base", rules)],
    )
    execute(plan, tmp_path / name, jobs=1, progress=False, force=True)
    return outcomes, Dataset(tmp_path / name)


def value(outcomes, metric):
    return outcomes.metric(metric).estimate(outcomes).value


def test_neighbour_excess_and_presidency_edge_match_the_analysis(tmp_path):
    outcomes, ds = same_games("ekonos", tmp_path)
    players = ds.players.collect()
    for r in neighbour_summary(players).iter_rows(named=True):
        assert value(outcomes, f"neighbour_excess:policy={r['left_policy']}") == pytest.approx(
            r["excess"]
        )
    strat = stratified_rates(with_presidency(ds.games, players), "presidency")
    top = strat.filter(pl.col("level") == "top_president").row(0, named=True)
    assert value(outcomes, "presidency_edge") == pytest.approx(top["excess"])


def test_loan_rates_and_runaway_rate_match_the_analysis(tmp_path):
    outcomes, ds = same_games("karnaxis", tmp_path)
    players = ds.players.collect()
    loans = loan_summary(players, "policy", loan_cap(ds.rules))
    for r in loans.iter_rows(named=True):
        assert value(outcomes, f"loan_cap_binding:policy={r['policy']}") == pytest.approx(
            r["cap_binding"]
        )
        assert value(outcomes, f"delinquency_rate:policy={r['policy']}") == pytest.approx(
            r["delinquent"]
        )
    runaway = runaway_leader(ds.timeline("years"), players, "year", "cash_usd").row(0, named=True)
    assert value(outcomes, "runaway_rate") == pytest.approx(runaway["rate"])


def test_runaway_rate_on_blood_coins_matches_the_analysis(tmp_path):
    outcomes, ds = same_games("karmaggan", tmp_path)
    runaway = runaway_leader(ds.timeline("rounds"), ds.players, "round", "blood_coins").row(
        0, named=True
    )
    assert value(outcomes, "runaway_rate") == pytest.approx(runaway["rate"])
