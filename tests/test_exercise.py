"""The report's table of the rules the field never exercises, on small datasets whose counts
are known: the share of games and of player-games in which each kind happened, the policy
that does it most, one set of columns per field, a sweep read in its base rules."""

import json

import numpy as np
import polars as pl
import pytest
from test_analysis import write_dataset

from simulator.analysis import Dataset
from simulator.core.game import get_game
from simulator.report.exercise import exercise_rates, exercise_section

N_GAMES, N_PLAYERS = 200, 4
POLICIES = ("bold", "shy", "shy", "shy")  # seat s plays POLICIES[s]
COLUMNS = [column for _, _, column in get_game("ekonos").exercised]


def ekonos_players(variant: str, counts: dict[str, np.ndarray]) -> pl.DataFrame:
    """The players table of N_GAMES 4-player games: every listed count 0 unless ``counts``
    gives it (an int array [games, seats])."""
    n = N_GAMES * N_PLAYERS
    frame = {
        "game_id": np.repeat(np.arange(N_GAMES), N_PLAYERS),
        "variant": variant,
        "seat": np.tile(np.arange(N_PLAYERS), N_GAMES),
        "policy": np.tile(POLICIES, N_GAMES),
        "won": np.tile([True, False, False, False], N_GAMES),
    }
    for column in COLUMNS:
        frame[column] = counts.get(column, np.zeros((N_GAMES, N_PLAYERS), int)).reshape(n)
    return pl.DataFrame(frame)


def known_counts() -> dict[str, np.ndarray]:
    """Shares bought by every seat of every game; a president named in games 0, 1 and 2 by
    seat 0 (bold) and in game 3 by seat 1 (shy), twice; waiting at level 4 never."""
    named = np.zeros((N_GAMES, N_PLAYERS), int)
    named[[0, 1, 2], 0] = 1
    named[3, 1] = 2
    return {"shares_bought": np.ones((N_GAMES, N_PLAYERS), int), "presidents_named": named}


def dataset(path, variants: dict[str, dict[str, np.ndarray]], field: str | None = None):
    players = pl.concat([ekonos_players(v, c) for v, c in variants.items()])
    games = pl.concat(
        [pl.DataFrame({"game_id": np.arange(N_GAMES), "variant": v}) for v in variants]
    )
    out = write_dataset(
        path, "ekonos", N_PLAYERS, {"games": games, "players": players}, variants=list(variants)
    )
    if field:  # the field the runner records
        manifest = json.loads((out / "manifest.json").read_text())
        manifest["field"] = field
        (out / "manifest.json").write_text(json.dumps(manifest))
    return Dataset(out)


def test_each_kind_is_counted_in_games_and_player_games(tmp_path):
    rates = exercise_rates(dataset(tmp_path / "ds", {"base": known_counts()}))
    by_column = {r["column"]: r for r in rates.iter_rows(named=True)}
    assert set(by_column) == set(COLUMNS)
    named = by_column["presidents_named"]
    assert named["games_share"] == pytest.approx(4 / N_GAMES)
    assert named["player_games_share"] == pytest.approx(4 / (N_GAMES * N_PLAYERS))
    # bold plays seat 0 (3 of its 200 player-games); shy plays three seats (1 of 600)
    assert named["most_by"] == "bold"
    assert named["most_by_share"] == pytest.approx(3 / N_GAMES)
    assert by_column["shares_bought"]["games_share"] == 1.0
    waited = by_column["expansions_waited"]
    assert waited["games_share"] == 0.0 and waited["player_games_share"] == 0.0
    assert by_column["shares_bought"]["kind"] == "action"
    assert by_column["expansions_empty"]["kind"] == "event"


def test_a_sweep_is_read_in_its_base_rules(tmp_path):
    everything = {c: np.ones((N_GAMES, N_PLAYERS), int) for c in COLUMNS}
    ds = dataset(tmp_path / "sweep", {"base": known_counts(), "other": everything})
    rates = {r["column"]: r["games_share"] for r in exercise_rates(ds).iter_rows(named=True)}
    assert rates["expansions_waited"] == 0.0
    assert rates["presidents_named"] == pytest.approx(4 / N_GAMES)


def test_the_table_names_the_rarely_played_rules_least_played_first_per_field(tmp_path):
    rare = dataset(tmp_path / "rare", {"base": known_counts()}, field="tuned")
    often = {c: np.ones((N_GAMES, N_PLAYERS), int) for c in COLUMNS}
    common = dataset(tmp_path / "common", {"base": often}, field="adapted")
    page = exercise_section("ekonos", [rare, common])
    assert "rules the field never exercises" in page
    assert "tuned (4p): games" in page and "adapted (4p): games" in page
    # the summary names the kinds under 1% of games in some field, not the others
    summary = page.split("Under 1% of games in some field: ")[1].split(".")[0]
    assert "wait at level 4" in summary and "buy a share" not in summary
    # 2% of games is not rare
    assert "name a president among tied holders" not in summary
    # least played first: a never-played kind before the one played in every game
    assert page.index("wait at level 4") < page.index("buy a share")
    assert exercise_section("ekonos", [common]).count("Every kind is played") == 1


def test_two_datasets_of_one_field_get_columns_of_their_own(tmp_path):
    one = dataset(tmp_path / "one", {"base": known_counts()}, field="scripted")
    two = dataset(tmp_path / "two", {"base": known_counts()}, field="scripted")
    page = exercise_section("ekonos", [one, two])
    assert "scripted (4p): games" in page and "scripted (4p) two: games" in page


def test_a_dataset_without_the_count_columns_has_no_table(tmp_path):
    players = ekonos_players("base", {}).drop(COLUMNS)
    games = pl.DataFrame({"game_id": np.arange(N_GAMES), "variant": "base"})
    out = write_dataset(tmp_path / "old", "ekonos", N_PLAYERS, {"games": games, "players": players})
    assert exercise_rates(Dataset(out)).is_empty()
    assert exercise_section("ekonos", [Dataset(out)]) == ""
