"""Attribution: planted effects are recovered with the rest held fixed; confounds are named."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from simulator.analysis import attribution, neighbour_effects, stratified_rates
from simulator.analysis.dealt import dealt_characters
from simulator.analysis.neighbours import neighbour_summary

RNG_SEED = 11  # any fixed seed: the planted effects are many standard errors wide


def logistic(x):
    return 1.0 / (1.0 + np.exp(-x))


def planted_players(n_games: int = 12_000) -> pl.DataFrame:
    """Four rows per game with a known logit: policy a +0.5 / b -0.5 (deviation from their
    average), character X +0.7 / Y -0.7, +0.3 per job held, seats without effect."""
    rng = np.random.default_rng(RNG_SEED)
    rows = n_games * 4
    policy = rng.choice(["a", "b"], rows)
    character = rng.choice(["X", "Y"], rows)
    jobs = rng.integers(0, 4, rows)
    logit = (
        -1.0
        + np.where(policy == "a", 0.5, -0.5)
        + np.where(character == "X", 0.7, -0.7)
        + 0.3 * jobs
    )
    return pl.DataFrame(
        {
            "game_id": np.repeat(np.arange(n_games), 4),
            "seat": np.tile(np.arange(4), n_games).astype(np.int8),
            "policy": policy,
            "character": character,
            "jobs_held": jobs,
            "won": rng.random(rows) < logistic(logit),
        }
    )


def test_regression_recovers_planted_odds_ratios():
    table = attribution(planted_players())
    got = {(r["component"], r["level"]): r for r in table.iter_rows(named=True)}
    for key, log_odds in (
        (("policy", "a"), 0.5),
        (("policy", "b"), -0.5),
        (("character", "X"), 0.7),
        (("character", "Y"), -0.7),
        (("seat", "0"), 0.0),
        (("seat", "3"), 0.0),
    ):
        r = got[key]
        # jobs_held is left out (a consequence of play): it varies independently of the
        # factors here, which shrinks their log odds by about 0.03 at most
        assert abs(np.log(r["odds_ratio"]) - log_odds) < 0.08, (key, r)
        assert r["or_lo"] < r["odds_ratio"] < r["or_hi"]
        assert r["effect_lo"] < r["effect"] < r["effect_hi"]
    assert got[("character", "X")]["significant"] and not got[("seat", "0")]["significant"]
    assert "jobs_held" not in table["component"].to_list()


def test_a_count_the_character_causes_is_not_held_fixed():
    """Character X makes its players hold 2 more jobs, and jobs win; X does nothing else.
    Holding jobs fixed would find X worthless; its whole effect runs through the jobs, and
    the average marginal effect is that whole effect, in points of win rate."""
    rng = np.random.default_rng(RNG_SEED)
    n_games, seats = 10_000, 4
    rows = n_games * seats
    character = rng.choice(["X", "Y"], rows)
    jobs = rng.poisson(1.0, rows) + np.where(character == "X", 2, 0)
    win_p = logistic(-2.0 + 0.6 * jobs)
    players = pl.DataFrame(
        {
            "game_id": np.repeat(np.arange(n_games), seats),
            "seat": np.tile(np.arange(seats), n_games).astype(np.int8),
            "character": character,
            "jobs_held": jobs,
            "won": rng.random(rows) < win_p,
        }
    )
    # the known answer: the win probability of every player were it to hold X, less the
    # field's, by simulation of the model above (jobs drawn again for X)
    as_x = logistic(-2.0 + 0.6 * (rng.poisson(1.0, 2_000_000) + 2)).mean()
    field = 0.5 * as_x + 0.5 * logistic(-2.0 + 0.6 * rng.poisson(1.0, 2_000_000)).mean()
    x = attribution(players).filter(pl.col("level") == "X").row(0, named=True)
    assert x["effect"] == pytest.approx(as_x - field, abs=0.01)
    assert x["effect_lo"] < as_x - field < x["effect_hi"]
    assert x["odds_ratio"] > 1.5  # against the average character; jobs held fixed: 1


def test_average_marginal_effects_agree_with_statsmodels_margeff():
    """Between two levels, the difference of our average marginal effects is the discrete
    change statsmodels' get_margeff reports for a dummy (treatment coding, same model)."""
    from statsmodels.discrete.discrete_model import Logit

    df = planted_players(6_000)
    table = attribution(df.select("game_id", "policy", "character", "won"))
    effect = {r["level"]: r["effect"] for r in table.iter_rows(named=True)}
    X = np.column_stack(
        [
            np.ones(df.height),
            (df["policy"] == "a").to_numpy().astype(float),
            (df["character"] == "X").to_numpy().astype(float),
        ]
    )
    fit = Logit(df["won"].to_numpy().astype(float), X).fit(disp=False)
    margeff = fit.get_margeff(at="overall", dummy=True).margeff
    assert effect["X"] - effect["Y"] == pytest.approx(margeff[1], abs=1e-6)
    assert effect["a"] - effect["b"] == pytest.approx(margeff[0], abs=1e-6)


def test_a_level_that_never_wins_and_an_aliased_factor_are_reported_not_fitted():
    df = planted_players(4_000).with_columns(
        pl.when(pl.col("policy") == "b")
        .then(pl.lit("hopeless"))
        .otherwise(pl.col("policy"))
        .alias("policy"),
        pl.when(pl.col("seat") % 2 == 0)
        .then(pl.lit("starting"))
        .otherwise(pl.lit("other"))
        .alias("side"),
    )
    df = df.with_columns(
        pl.when(pl.col("policy") == "hopeless").then(False).otherwise(pl.col("won")).alias("won")
    )
    table = attribution(df)
    hopeless = table.filter(pl.col("level") == "hopeless").row(0, named=True)
    assert hopeless["note"] == "never wins" and hopeless["odds_ratio"] == 0.0
    # the side is the seat's parity: the seat, fitted after it, adds nothing new
    seat = table.filter(pl.col("component") == "seat")
    assert seat["note"].to_list() == ["aliased with the terms before it"]
    assert seat["level"].to_list() == ["all"] and seat["odds_ratio"].is_nan().all()
    assert table.filter(pl.col("component") == "character")["odds_ratio"].is_finite().all()


def confounded_players(n: int = 20_000) -> pl.DataFrame:
    """Policy p1 wins 60%, p2 20%; p1 picks character N 90% of the time and p2 10%; the
    character itself does nothing."""
    rng = np.random.default_rng(RNG_SEED)
    policy = np.where(np.arange(n) % 2 == 0, "p1", "p2")
    picks_n = rng.random(n) < np.where(policy == "p1", 0.9, 0.1)
    won = rng.random(n) < np.where(policy == "p1", 0.6, 0.2)
    return pl.DataFrame(
        {
            "game_id": np.arange(n) // 2,
            "policy": policy,
            "character": np.where(picks_n, "N", "M"),
            "won": won,
        }
    )


def test_stratified_rates_undo_the_policy_that_picks_a_character():
    table = stratified_rates(confounded_players(), "character")
    n = table.filter(pl.col("level") == "N").row(0, named=True)
    # raw: 0.9 x 0.6 + 0.1 x 0.2 over the pickers = 0.56; within policy: 0.5 x 0.6 + 0.5 x 0.2 = 0.4
    assert n["raw_rate"] == pytest.approx(0.56, abs=0.015)
    assert n["adjusted_rate"] == pytest.approx(0.40, abs=0.015)
    assert n["adjusted_rate_lo"] < 0.40 < n["adjusted_rate_hi"]
    assert (
        n["confounded"]
        and n["main_stratum"] == "p1"
        and n["main_stratum_share"] == pytest.approx(0.9, abs=0.02)
    )
    # against players of the same policies holding M, N's players win no more (the expected
    # rate leans on the 1,000 p1 players holding M: 3 standard errors are 0.045)
    assert n["expected_rate"] == pytest.approx(0.56, abs=0.045)
    assert n["excess_lo"] < 0 < n["excess_hi"]
    # dealt at random, a character with a real effect is not confounded: raw = adjusted
    rng = np.random.default_rng(RNG_SEED)
    df = confounded_players().with_columns(pl.Series("character", rng.choice(["N", "M"], 20_000)))
    df = df.with_columns(
        (
            pl.col("won") | ((pl.col("character") == "N") & pl.Series(rng.random(20_000) < 0.25))
        ).alias("won")
    )
    n = stratified_rates(df, "character").filter(pl.col("level") == "N").row(0, named=True)
    assert n["adjusted_rate"] == pytest.approx(n["raw_rate"], abs=0.01) and not n["confounded"]
    assert n["adjusted_rate"] == pytest.approx(0.4 + 0.6 * 0.25, abs=0.015)
    assert n["excess"] == pytest.approx(0.6 * 0.25, abs=0.02) and n["excess_lo"] > 0.1


def test_neighbour_effects_find_the_seat_after_a_planted_policy():
    """Line-up h, v, v, v seated in every order: the player just after h wins 50%, others 20%."""
    rng = np.random.default_rng(RNG_SEED)
    n_games = 8_000
    orders = np.array([np.roll(["h", "v", "v", "v"], k) for k in range(4)])
    policy = orders[np.arange(n_games) % 4]
    left = np.roll(policy, 1, axis=1)
    won = rng.random(policy.shape) < np.where(left == "h", 0.5, 0.2)
    players = pl.DataFrame(
        {
            "game_id": np.repeat(np.arange(n_games), 4),
            "policy": policy.ravel(),
            "left_policy": left.ravel(),
            "won": won.ravel(),
            "n_players": 4,
        }
    )
    table = neighbour_effects(players)
    v = {r["left_policy"]: r for r in table.filter(pl.col("policy") == "v").iter_rows(named=True)}
    assert v["h"]["win_rate"] == pytest.approx(0.5, abs=0.02) and v["h"]["significant"]
    assert v["v"]["win_rate"] == pytest.approx(0.2, abs=0.02)
    # h never sits after h: one neighbour only, nothing to test
    h = table.filter(pl.col("policy") == "h")
    assert (
        h["left_policy"].to_list() == ["v"]
        and h["p_value"].is_null().all()
        and not h["significant"].any()
    )
    # each player against its own policy: after h, v wins 0.5 where v wins 0.3 overall; after
    # v, v wins 0.2 (excess -0.1) and h its usual 0.2, so -0.1 x 2/3 of those players
    summary = {r["left_policy"]: r for r in neighbour_summary(players).iter_rows(named=True)}
    assert summary["h"]["expected_rate"] == pytest.approx(0.3, abs=0.01)
    assert (
        summary["h"]["excess"] == pytest.approx(0.2, abs=0.02) and summary["h"]["excess_lo"] > 0.15
    )
    assert summary["v"]["excess"] == pytest.approx(-0.2 / 3, abs=0.015)


def test_dealt_characters_count_keeps_and_wins_when_dealt():
    players = pl.DataFrame(
        {
            "character": ["A", "B", "A", "C"],
            "won": [True, False, False, True],
            "dealt_character_1": ["A", "A", "A", "A"],
            "dealt_character_2": ["B", "B", "C", "B"],
            "dealt_character_3": ["C", "C", "B", "C"],
        }
    )
    table = {r["character"]: r for r in dealt_characters(players).iter_rows(named=True)}
    assert (table["A"]["n_dealt"], table["A"]["kept"], table["A"]["wins_dealt"]) == (4, 2, 2)
    assert table["A"]["keep_rate"] == 0.5 and table["A"]["win_rate_kept"] == 0.5
    assert (table["C"]["n_dealt"], table["C"]["kept"], table["C"]["wins_kept"]) == (4, 1, 1)
    # fewer cards dealt: the columns there are ("none" where a player got fewer)
    two = dealt_characters(players.drop("dealt_character_3"))
    assert dict(zip(two["character"], two["n_dealt"])) == {"A": 4, "B": 3, "C": 1}
    assert (
        dealt_characters(
            players.drop("dealt_character_1", "dealt_character_2", "dealt_character_3")
        )
        is None
    )


def test_the_dealt_card_win_rate_is_a_randomised_estimate():
    """Cards do nothing; a strong policy keeps X whenever it is dealt X, the weak ones never
    keep it.  The players who
    keep X win far more than the rest (they are the strong ones), but being dealt X is
    chance: the dealt players win as often as the others."""
    rng = np.random.default_rng(RNG_SEED)
    n_games, seats = 6_000, 4
    policy = np.tile(np.array(["strong", "weak", "weak", "weak"]), n_games)
    strength = np.where(policy == "strong", 3.0, 1.0).reshape(n_games, seats)
    winner = (rng.random((n_games, 1)) * strength.sum(1, keepdims=True) > strength.cumsum(1)).sum(1)
    won = (np.arange(seats)[None, :] == winner[:, None]).ravel()
    hands = np.array([rng.permutation(["X", "Y", "Z", "W"])[:2] for _ in range(n_games * seats)])
    other = np.where(hands[:, 1] == "X", hands[:, 0], hands[:, 1])  # the weak never keep X
    kept = np.where((policy == "strong") & (hands == "X").any(1), "X", other)
    players = pl.DataFrame(
        {
            "game_id": np.repeat(np.arange(n_games), seats),
            "policy": policy,
            "character": kept,
            "won": won,
            "dealt_character_1": hands[:, 0],
            "dealt_character_2": hands[:, 1],
        }
    )
    x = dealt_characters(players).filter(pl.col("character") == "X").row(0, named=True)
    assert x["win_rate_kept"] > 0.45  # the strong policy's 3/6
    assert x["dealt_effect_lo"] < 0 < x["dealt_effect_hi"] and abs(x["dealt_effect"]) < 0.02
