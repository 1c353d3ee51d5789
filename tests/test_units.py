"""The game (or team) as the unit: intervals and tests on synthetic games with known answers.

Teammates share one outcome and rivals' wins exclude each other, so counting player-games as
independent makes intervals too narrow in team games and a seat test count each team win
once per player.  Each test below plants a known rate and checks what the analysis says.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from simulator.analysis import paired_difference, seat_advantage, stratified_rates, win_rates
from simulator.analysis.clustered import rates
from simulator.core.stats import wilson

RNG_SEED = 27  # any seed: the checks hold with a margin over the Monte Carlo error
REPLICATIONS = 400


def team_games(rng, n_games: int, p_starting: float = 0.6) -> pl.DataFrame:
    """Four seats, two teams: seats 0 and 2 (the starting team, policy a at seat 0 and b at
    seat 2) against seats 1 and 3 (policies b and a); the starting team wins with
    probability ``p_starting``, teammates together."""
    starting_won = rng.random(n_games) < p_starting
    seat = np.tile(np.arange(4), n_games)
    side = np.where(seat % 2 == 0, "starting", "other")
    won = np.where(side == "starting", np.repeat(starting_won, 4), ~np.repeat(starting_won, 4))
    return pl.DataFrame(
        {
            "game_id": np.repeat(np.arange(n_games), 4),
            "seat": seat.astype(np.int8),
            "team": (seat % 2).astype(np.int8),
            "side": side,
            "policy": np.array(["a", "b", "b", "a"])[seat],
            "won": won,
        }
    )


def test_a_rate_over_player_games_has_the_cluster_robust_variance_of_statsmodels():
    import statsmodels.api as sm

    df = team_games(np.random.default_rng(RNG_SEED), 500)
    side = df.filter(pl.col("side") == "starting")
    got = rates(side.lazy(), [], pl.col("won"), "rate").row(0, named=True)
    y = side["won"].to_numpy().astype(float)
    fit = sm.GLM(y, np.ones((len(y), 1)), family=sm.families.Binomial()).fit(
        cov_type="cluster",
        cov_kwds={"groups": side["game_id"].to_numpy(), "use_correction": False},
    )
    p = float(fit.predict()[0])
    assert got["rate"] == pytest.approx(p)
    # the logit's standard error carried to the rate by the delta method
    assert got["rate_se"] == pytest.approx(p * (1 - p) * float(fit.bse[0]), rel=1e-6)
    # teammates share each win: two player-games per game count as one
    assert got["n_effective"] == pytest.approx(500, rel=1e-9) and got["n"] == 1000


def coverage(intervals: list[tuple[float, float]], truth: float) -> float:
    return float(np.mean([lo <= truth <= hi for lo, hi in intervals]))


@pytest.mark.slow
def test_team_win_rates_cover_the_truth_where_player_game_intervals_do_not():
    # the starting team (policies a and b) wins 60%: policy a's true rate is the mean of
    # its starting and other seats, (0.6 + 0.4) / 2, and the starting side's is 0.6
    rng = np.random.default_rng(RNG_SEED)
    ours, naive = [], []
    for _ in range(REPLICATIONS):
        df = team_games(rng, 300)
        r = win_rates(df, "side").filter(pl.col("side") == "starting").row(0, named=True)
        ours.append((r["win_rate_lo"], r["win_rate_hi"]))
        naive.append(tuple(float(b) for b in wilson(r["wins"], r["n"])))
    assert coverage(ours, 0.6) >= 0.93
    assert coverage(naive, 0.6) < 0.9  # player-games as independent: about 83%


def test_a_free_for_all_rate_is_wilson_on_its_games():
    # one row per game and group: the game-clustered interval is Wilson's exactly
    winners = np.array([0] * 30 + [1] * 10)
    df = pl.DataFrame(
        {
            "game_id": np.repeat(np.arange(40), 2),
            "seat": np.tile([0, 1], 40),
            "won": np.stack([winners == 0, winners == 1], axis=1).ravel(),
        }
    )
    r = win_rates(df, "seat").row(0, named=True)
    lo, hi = wilson(30, 40)
    assert (r["win_rate_lo"], r["win_rate_hi"]) == pytest.approx((float(lo), float(hi)))


def test_the_seat_test_counts_team_wins_once_in_team_games():
    df = team_games(np.random.default_rng(RNG_SEED), 2_000)
    r = seat_advantage(df).row(0, named=True)
    starting = int(df.filter((pl.col("seat") == 0) & pl.col("won")).height)
    other = 2_000 - starting
    expected = (starting - 1_000) ** 2 / 1_000 + (other - 1_000) ** 2 / 1_000
    assert r["unit"] == "team" and r["dof"] == 1
    assert r["chi2"] == pytest.approx(expected)
    # counting each player's win would double it on three degrees of freedom
    free = seat_advantage(df.drop("team")).row(0, named=True)
    assert (
        free["unit"] == "seat" and free["dof"] == 3 and free["chi2"] == pytest.approx(2 * expected)
    )


@pytest.mark.slow
def test_a_character_excess_over_rivals_of_one_game_covers_its_truth():
    """Two-player games of one policy: one player holds X, the other Y, and X wins with
    probability 0.55.  X's excess over players of the same policy without it (its rival in
    the same game) is 0.55 - 0.45; the two players' wins exclude each other, so treating them
    as independent gives an interval sqrt(2) too narrow."""
    rng = np.random.default_rng(RNG_SEED)
    found = []
    for _ in range(REPLICATIONS):
        n = 400
        x_won = rng.random(n) < 0.55
        df = pl.DataFrame(
            {
                "game_id": np.repeat(np.arange(n), 2),
                "policy": "p",
                "character": np.tile(["X", "Y"], n),
                "won": np.stack([x_won, ~x_won], axis=1).ravel(),
            }
        )
        r = stratified_rates(df, "character").filter(pl.col("level") == "X").row(0, named=True)
        found.append((r["excess_lo"], r["excess_hi"]))
    assert coverage(found, 0.10) >= 0.93


@pytest.mark.slow
def test_a_paired_change_of_teammates_counts_their_game_once():
    # a variant moves the starting team's chance from 0.5 to 0.6, on the same games (the
    # same uniform draw decides both): each game changes both teammates' wins together
    rng = np.random.default_rng(RNG_SEED)
    found = []
    for _ in range(REPLICATIONS):
        u = rng.random(300)
        frames = []
        for variant, p in (("base", 0.5), ("more", 0.6)):
            df = team_games(np.random.default_rng(0), 300).with_columns(variant=pl.lit(variant))
            starting_won = np.repeat(u < p, 4)
            won = np.where(df["side"].to_numpy() == "starting", starting_won, ~starting_won)
            frames.append(df.with_columns(won=pl.Series(won)))
        r = paired_difference(pl.concat(frames), "won", "base", "more", "side").row(1, named=True)
        assert r["side"] == "starting"
        found.append((r["diff_lo"], r["diff_hi"]))
    assert coverage(found, 0.10) >= 0.93
