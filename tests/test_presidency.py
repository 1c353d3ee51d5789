"""The Ekonos presidency read before the outcome: the engine's mid-game columns and the
analysis that reads them."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from simulator.core.game import get_game
from simulator.core.rng import game_seeds
from simulator.games.ekonos import analysis as ekonos

EKONOS = get_game("ekonos")
RNG_SEED = 6  # any seed: the planted edges are many standard errors wide


def play(rules: dict, n_games: int = 400) -> dict:
    ids = np.arange(n_games, dtype=np.int64)
    seats = np.tile(np.array([1, 2, 3, 4], np.int8), (n_games, 1))
    return EKONOS.play(EKONOS.prepare(rules, 4), game_seeds(3, ids), seats)


def stacked(columns: dict, name: str) -> np.ndarray:
    return np.stack([np.asarray(columns[f"company{c}{name}"]) for c in range(6)], axis=-1)


def test_a_one_turn_game_is_at_mid_game_when_it_ends():
    # mid-game is half the turns, at least one: a game of one turn ends there
    raw = play(EKONOS.rules(sets=("setup.turns=[1, 1, 1, 1]",)))
    players, games = raw["players"], raw["games"]
    assert (stacked(players, "_president_mid") == stacked(players, "_president")).all()
    assert (stacked(games, "_value_mid") == stacked(games, "_value")).all()


def test_the_mid_game_presidency_is_read_before_the_game_is_over():
    raw = play(EKONOS.rules())  # 3 turns at 4 players: mid-game after the first
    players, games = raw["players"], raw["games"]
    mid, end = stacked(players, "_president_mid"), stacked(players, "_president")
    assert (mid.sum(axis=1) <= 1).all()  # at most one president a company
    assert (mid != end).any() and (stacked(games, "_value_mid") < stacked(games, "_value")).any()


def synthetic(n_games: int = 8_000) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Four players, two companies.  At mid-game a random player presides each, and company 0
    is worth more; the title does nothing.  By the end the winner has taken over company 0,
    which is then the most valuable: read at the end, its president always wins."""
    rng = np.random.default_rng(RNG_SEED)
    winner = rng.integers(0, 4, n_games)
    mid0, mid1 = rng.integers(0, 4, n_games), rng.integers(0, 4, n_games)
    seat = np.tile(np.arange(4), n_games)
    game = np.repeat(np.arange(n_games), 4)
    players = pl.DataFrame(
        {
            "game_id": game,
            "seat": seat,
            "won": seat == np.repeat(winner, 4),
            "company0_president": seat == np.repeat(winner, 4),
            "company1_president": seat == np.repeat((winner + 1) % 4, 4),
            "company0_president_mid": seat == np.repeat(mid0, 4),
            "company1_president_mid": seat == np.repeat(mid1, 4),
        }
    )
    games = pl.DataFrame(
        {
            "game_id": np.arange(n_games),
            "company0_value": 9,
            "company1_value": 4,
            "company0_value_mid": 3,
            "company1_value_mid": 2,
        }
    )
    return games, players


def test_the_presidency_edge_is_not_read_off_the_outcome():
    games, players = synthetic()
    found = ekonos.presidency_advantage(games, players)
    top = found.filter(pl.col("player") == "top_president").row(0, named=True)
    assert top["measured_at"] == "mid-game"
    assert top["win_rate_lo"] < 0.25 < top["win_rate_hi"]  # the title does nothing
    # read at the end, the same games would credit the title with every win
    at_end = ekonos.with_presidency(games, players, at="").collect()
    assert at_end.filter(pl.col("presidency") == "top_president")["won"].all()
    held = ekonos.presidencies_held(players)
    assert held["measured_at"].unique().to_list() == ["mid-game"]
    assert held.filter(pl.col("presidencies") == 2)["win_rate"][0] == pytest.approx(0.25, abs=0.1)
