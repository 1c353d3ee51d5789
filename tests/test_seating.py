"""Balanced seating: every seat and neighbour equally often, team groups kept, deterministic."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import polars as pl
import pytest

from simulator.core.rng import game_seeds
from simulator.core.seating import MAX_EXHAUSTIVE, Seating, neighbour, team_mode

LINEUP = ("a", "b", "c", "d")


def seated(seating: Seating, game_ids) -> np.ndarray:
    """Policy names [games, seats] of the given games (master seed 3)."""
    ids = np.asarray(game_ids, dtype=np.int64)
    return np.array(seating.lineup)[seating.positions(game_seeds(3, ids), ids)]


def test_exhaustive_orders_balance_seats_and_neighbours_in_each_block():
    seating = Seating.of(LINEUP)
    assert seating.design == "exhaustive" and len(seating.orders) == 24
    names = seated(seating, range(24))
    assert len({tuple(row) for row in names}) == 24  # every order once
    for seat in range(4):
        assert Counter(names[:, seat]) == {p: 6 for p in LINEUP}
    left = neighbour(names)
    pairs = Counter(zip(names.ravel(), left.ravel()))
    # each ordered pair of different policies is neighbours equally often: 24 x 4 / 12
    assert pairs == {(p, q): 8 for p in LINEUP for q in LINEUP if p != q}


def test_repeated_policies_play_their_distinct_orders():
    """Three value investors and a hoarder: 4 distinct orders, the hoarder in each seat once,
    so each investor follows the hoarder as often as any other."""
    seating = Seating.of(("v", "v", "v", "h"))
    assert len(seating.orders) == 4
    names = seated(seating, range(8))
    assert [list(np.flatnonzero(row == "h")) for row in names[:4]] == [[3], [2], [1], [0]]
    assert (names[:4] == names[4:]).all()


def test_fixed_seats_play_the_line_up_as_listed():
    names = seated(Seating.of(LINEUP, fixed=True), range(5))
    assert (names == np.array(LINEUP)).all()


def test_orders_depend_only_on_the_game_not_on_chunking():
    for seating in (Seating.of(LINEUP), Seating.of(tuple("abcdefgh"))):
        whole = seated(seating, range(100))
        parts = np.concatenate([seated(seating, range(0, 37)), seated(seating, range(37, 100))])
        assert (whole == parts).all()


def test_random_orders_for_large_line_ups_are_uniform_permutations():
    seating = Seating.of(tuple("abcdefgh"))  # 8! = 40,320 orders: random per game
    assert seating.design == "random" and 40_320 > MAX_EXHAUSTIVE
    games = 16_000
    names = seated(seating, range(games))
    assert all(sorted(row) == list("abcdefgh") for row in names[:200])
    counts = np.array([[np.sum(names[:, s] == p) for p in "abcdefgh"] for s in range(8)])
    # each seat holds each policy 2,000 times on average; binomial sd = sqrt(16000/8*7/8) = 41.8
    assert np.abs(counts - games / 8).max() < 5 * 41.8
    assert len({tuple(r) for r in names}) > 0.6 * games  # distinct draws, not a short cycle


def team_groups(names: np.ndarray) -> set:
    """The multisets of policies on even and on odd seats, per game."""
    return {(tuple(sorted(row[0::2])), tuple(sorted(row[1::2]))) for row in names}


def test_team_mode_keeps_each_team_s_policy_group():
    # teams alternate seats: the line-up's positions 0, 2 form one team and 1, 3 the other
    seating = Seating.of(("search", "hunter", "search", "hunter"), teams=True)
    assert len(seating.orders) == 2
    assert team_groups(seated(seating, range(2))) == {
        (("search", "search"), ("hunter", "hunter")),
        (("hunter", "hunter"), ("search", "search")),
    }
    # four policies: each team keeps its pair, both pairs start equally often, 2 x 2 x 2 orders
    seating = Seating.of(LINEUP, teams=True)
    names = seated(seating, range(8))
    assert len(seating.orders) == 8 and len({tuple(r) for r in names}) == 8
    assert team_groups(names) == {(("a", "c"), ("b", "d")), (("b", "d"), ("a", "c"))}
    assert Counter(names[:, 0]) == {p: 2 for p in LINEUP}
    # odd count: the teams differ in size, so only seats within a team are permuted
    names = seated(Seating.of(("a", "b", "c"), teams=True), range(4))
    assert team_groups(names) == {(("a", "c"), ("b",))}
    assert Counter(names[:, 0]) == {"a": 2, "c": 2}


def test_team_mode_random_orders_keep_groups_and_swap_sides():
    seating = Seating.of(tuple("abcdefgh"), teams=True)  # 2 x 4! x 4! = 1,152 orders
    assert seating.design == "random"
    names = seated(seating, range(2000))
    assert team_groups(names) == {(tuple("aceg"), tuple("bdfh")), (tuple("bdfh"), tuple("aceg"))}
    starts_even_group = np.isin(names[:, 0], list("aceg")).mean()
    assert 0.45 < starts_even_group < 0.55


def test_team_mode_comes_from_the_rules():
    assert team_mode([{"game": {"mode": "team"}}])
    assert team_mode([{"game": {"mode": "free_for_all"}}, {"game": {"mode": "team"}}])
    assert not team_mode([{"game": {"mode": "free_for_all"}}, {"setup": {}}])


@pytest.mark.parametrize("name", ["ekonos", "karnaxis", "karmaggan"])
def test_datasets_record_the_seating_and_the_left_neighbour(small_datasets, name):
    path = small_datasets[name]
    manifest = json.loads((path / "manifest.json").read_text())
    assert manifest["fixed_seats"] is False and manifest["seating"]["design"] == "exhaustive"
    players = pl.read_parquet(path / "players").sort("game_id", "seat")
    n = manifest["n_players"]
    policies = players["policy"].to_numpy().reshape(-1, n)
    assert (players["left_policy"].to_numpy().reshape(-1, n) == np.roll(policies, 1, axis=1)).all()
    # every seat holds every policy of the line-up: no policy is tied to a seat
    lineup = Counter(manifest["seats"])
    for seat in range(n):
        assert set(policies[:, seat]) == set(lineup)
    if name == "karmaggan":  # team mode: each team is one of the line-up's two groups
        groups = {tuple(sorted(manifest["seats"][t::2])) for t in range(2)}
        assert manifest["seating"]["teams"] == [manifest["seats"][0::2], manifest["seats"][1::2]]
        team = players["team"].to_numpy().reshape(-1, n)
        for row, teams in zip(policies, team):
            assert {tuple(sorted(row[teams == t])) for t in (0, 1)} == groups


def test_every_sweep_variant_seats_game_k_alike(tmp_path):
    from simulator.core.game import get_game
    from simulator.run.plan import Plan, Variant
    from simulator.run.runner import execute

    game = get_game("ekonos")
    variants = [
        Variant("base", game.rules()),
        Variant("rich", game.rules(sets=("setup.start_money=12",))),
    ]
    plan = Plan(
        game="ekonos",
        n_games=96,
        n_players=4,
        seats=["value_investor", "president_seeker", "market_builder", "cash_hoarder"],
        seed=5,
        chunk_size=48,
        variants=variants,
    )
    execute(plan, tmp_path / "sweep", jobs=1, progress=False)
    players = pl.read_parquet(tmp_path / "sweep" / "players").sort("variant", "game_id", "seat")
    base, rich = (players.filter(pl.col("variant") == v) for v in ("base", "rich"))
    assert base["policy"].to_list() == rich["policy"].to_list()
    # and the orders are balanced: 96 games = 4 blocks of the 24 orders
    assert Counter(base.filter(pl.col("seat") == 0)["policy"]) == {p: 24 for p in plan.seats}
