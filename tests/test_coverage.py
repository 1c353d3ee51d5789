"""Do the report's 95% intervals hold 95% of the time on real games?

A pool of real games is the population: its rates are the truth.  Samples of whole games
drawn from it with replacement (each draw a game of its own, so the players of one game stay
together as they played) are analysed as the report analyses a dataset, and each interval is
checked against the pool's value.  A free-for-all (Karnaxis: rivals' wins exclude each other,
dealt and chosen characters) and a team game (Karmaggän: teammates win together).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from simulator.analysis import seat_advantage, stratified_rates, win_rates
from simulator.analysis.dealt import dealt_characters
from simulator.core.game import get_game
from simulator.core.stats import wilson
from simulator.run.plan import Plan, Variant
from simulator.run.runner import execute
from simulator.studies.seats import study_seats

# end to end: `make test` runs these, `make test-fast` does not (pyproject.toml)
pytestmark = pytest.mark.slow

POOL = 6_000  # games in each population
SAMPLE = 400  # games in each sample, about a study's smallest dataset per cell
REPLICATIONS = 200
RNG_SEED = 2027  # any seed: coverage is checked with room over its Monte Carlo error


def pool(tmp_path_factory, game_name: str) -> pl.DataFrame:
    game = get_game(game_name)
    out = tmp_path_factory.mktemp(game_name) / "pool"
    plan = Plan(
        game=game_name,
        n_games=POOL,
        n_players=4,
        seats=study_seats(game, 4),
        seed=9,
        chunk_size=1_500,
        variants=[Variant("base", game.rules())],
    )
    execute(plan, out, jobs=2, progress=False)
    return pl.read_parquet(out / "players").drop("variant")


@pytest.fixture(scope="module")
def karnaxis(tmp_path_factory):
    return pool(tmp_path_factory, "karnaxis")


@pytest.fixture(scope="module")
def karmaggan(tmp_path_factory):
    return pool(tmp_path_factory, "karmaggan")


def samples(players: pl.DataFrame):
    """REPLICATIONS samples of SAMPLE whole games, each draw renumbered as its own game."""
    rng = np.random.default_rng(RNG_SEED)
    ids = players["game_id"].unique().sort().to_numpy()
    for _ in range(REPLICATIONS):
        drawn = pl.DataFrame({"game_id": rng.choice(ids, SAMPLE), "draw": np.arange(SAMPLE)})
        yield drawn.join(players, on="game_id").drop("game_id").rename({"draw": "game_id"})


def coverage(players, analyse, key: str, value: str) -> dict:
    """The share of samples whose [value_lo, value_hi] holds the pool's value, per group."""
    truth = dict(analyse(players).select(key, value).iter_rows())
    hits: dict = {k: [] for k in truth}
    for sample in samples(players):
        for r in analyse(sample).iter_rows(named=True):
            if r[key] in truth and np.isfinite(r[f"{value}_lo"]):
                hits[r[key]].append(r[f"{value}_lo"] <= truth[r[key]] <= r[f"{value}_hi"])
    return {k: float(np.mean(v)) for k, v in hits.items() if len(v) > REPLICATIONS // 2}


def check(found: dict, at_least: float = 0.93) -> None:
    assert found, "no interval was checked"
    assert float(np.mean(list(found.values()))) >= at_least, found
    assert min(found.values()) >= at_least - 0.03, found  # each group, Monte Carlo error aside


def test_free_for_all_intervals_cover(karnaxis):
    check(coverage(karnaxis, lambda p: win_rates(p, "policy"), "policy", "win_rate"))
    check(coverage(karnaxis, lambda p: win_rates(p, "seat"), "seat", "win_rate"))
    check(coverage(karnaxis, lambda p: win_rates(p, "character"), "character", "win_rate"))
    character = lambda p: stratified_rates(p, "character")  # noqa: E731
    check(coverage(karnaxis, character, "level", "excess"))
    check(coverage(karnaxis, character, "level", "adjusted_rate"))
    dealt = lambda p: dealt_characters(p).rename({"character": "dealt"})  # noqa: E731
    check(coverage(karnaxis, dealt, "dealt", "dealt_effect"))
    seat = lambda p: seat_advantage(p).rename({"first_excess": "first"})  # noqa: E731
    check(coverage(karnaxis, seat, "n_players", "first_win_rate"))


def test_team_game_intervals_cover_where_player_game_intervals_do_not(karmaggan):
    side = lambda p: win_rates(p, "side")  # noqa: E731
    check(coverage(karmaggan, side, "side", "win_rate"))
    check(coverage(karmaggan, lambda p: win_rates(p, "policy"), "policy", "win_rate"))
    check(coverage(karmaggan, lambda p: win_rates(p, "seat"), "seat", "win_rate"))
    within = lambda p: stratified_rates(p, "side")  # noqa: E731
    check(coverage(karmaggan, within, "level", "adjusted_rate"))
    check(coverage(karmaggan, within, "level", "excess"))

    def naive(p):  # Wilson on player-games, as if teammates were independent
        rates = win_rates(p, "side")
        lo, hi = wilson(rates["wins"].to_numpy(), rates["n"].to_numpy())
        return rates.with_columns(win_rate_lo=pl.Series(lo), win_rate_hi=pl.Series(hi))

    assert max(coverage(karmaggan, naive, "side", "win_rate").values()) < 0.9
