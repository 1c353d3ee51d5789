"""Karmaggän's starting team is seat 0's, whose team label is drawn each game: every reader
measures the side that moves first, never the label.

Known answer: at 3 players in team mode the starting team has two players against one
(ASSUMED in rules.toml), so it must show a large starting-team edge; the labels 0 and 1 are
each the starting team in about half the games, so a reader of the label sees none.
"""

import shutil

import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest
from polars.testing import assert_frame_equal

from simulator.analysis import Dataset, summarise
from simulator.core.game import get_game
from simulator.experiments.field import SCRIPTED, Field
from simulator.experiments.lab import Design, Lab
from simulator.run.plan import Plan, Variant
from simulator.run.runner import execute
from simulator.studies.recipes import RECIPES, ask
from simulator.studies.recipes.common import Sizing, measure

LINEUP = ("rusher", "hunter", "supporter")


@pytest.fixture(scope="module")
def three_players(tmp_path_factory):
    game = get_game("karmaggan")
    out = tmp_path_factory.mktemp("km3") / "ds"
    execute(
        Plan(
            game="karmaggan",
            n_games=360,
            n_players=3,
            seats=list(LINEUP),
            seed=5,
            chunk_size=120,
            variants=[Variant("base", game.rules())],
        ),
        out,
        jobs=1,
        progress=False,
    )
    return out


def test_side_is_seat_zeros_team_and_either_label_starts(three_players):
    players = pl.read_parquet(three_players / "players")
    games = pl.read_parquet(three_players / "games")
    seat0 = players.filter(pl.col("seat") == 0).select("game_id", pl.col("team").alias("t0"))
    joined = players.join(seat0, on="game_id")
    expected = np.where(joined["team"] == joined["t0"], "starting", "other")
    assert (joined["side"].cast(pl.String).to_numpy() == expected).all()
    starts = games.join(seat0, on="game_id")
    assert (starts["starting_team"] == starts["t0"]).all()
    share = float((games["starting_team"] == 0).mean())
    assert 0.4 < share < 0.6  # the label is a coin flip, so it cannot stand for the start


def test_the_extra_player_shows_as_a_starting_team_edge(three_players):
    # the metric (tune, fit, sensitivity) and the analysis (report) both see it
    game = get_game("karmaggan")
    with Lab(game) as lab:
        outcomes = lab.play(Design("karmaggan", LINEUP, seed=5), [game.rules()], np.arange(360))[0]
    edge = outcomes.metric("starting_team_edge").estimate(outcomes)
    assert edge.interval[0] > 0.2, edge.record()
    rates = summarise(Dataset(three_players))["win_rate_side"]
    by_side = dict(zip(rates["side"], rates["win_rate"]))
    assert by_side["starting"] - by_side["other"] > 0.2, rates


def test_the_player_more_goes_to_the_other_team_when_the_rules_say_so():
    """``game.extra_player = "other"``: at 3 players the starting team is seat 0 alone, so the
    edge of the two against one turns against it; the screen offers the switch at odd counts
    only."""
    from simulator.games.karmaggan.layouts import choices

    game = get_game("karmaggan")
    other = game.rules(sets=('game.extra_player="other"',))
    with Lab(game) as lab:
        printed, flipped = lab.play(
            Design("karmaggan", LINEUP, seed=5), [game.rules(), other], np.arange(240)
        )
    for outcomes, starting in ((printed, 2), (flipped, 1)):
        codes, labels = outcomes.groups["side"]
        assert ((codes == labels.index("starting")).sum(axis=1) == starting).all()
    edge = flipped.metric("starting_team_edge").estimate(flipped)
    assert edge.interval[1] < 0, edge.record()
    assert choices(game.rules(), "game.extra_player", 3) == ["other"]
    assert choices(game.rules(), "game.extra_player", 4) == []


def swap_labels(src, dst):
    """A copy of a dataset with the team labels 0 and 1 exchanged in every table (each part
    keeps its metadata: it is still the dataset's own)."""
    shutil.copytree(src, dst)
    for table, columns in (("players", ["team"]), ("games", ["starting_team", "winning_team"])):
        for part in (dst / table).glob("*.parquet"):
            frame = pl.read_parquet(part)
            frame = frame.with_columns(
                pl.when(pl.col(c) >= 0)
                .then(1 - pl.col(c))
                .otherwise(pl.col(c))
                .cast(frame[c].dtype)
                .alias(c)
                for c in columns
            )
            pq.write_table(
                frame.to_arrow().replace_schema_metadata(pq.read_schema(part).metadata), part
            )


def test_swapping_the_team_labels_changes_no_answer(tmp_path):
    out = tmp_path / "ask"
    ask(
        RECIPES["blood-coins"],
        out,
        48,
        3,
        jobs=1,
        progress=False,
        exploit=False,
        fields=[Field(SCRIPTED)],
    )
    dataset, question = out / "dataset-scripted", RECIPES["blood-coins"]
    answer = measure(question, Dataset(dataset), Sizing())
    swap_labels(dataset, tmp_path / "swapped")
    again = measure(question, Dataset(tmp_path / "swapped"), Sizing())
    assert again.record() == answer.record()
    facts = [f.text for f in question.facts(Dataset(dataset), answer)]
    assert [f.text for f in question.facts(Dataset(tmp_path / "swapped"), again)] == facts
    original = summarise(Dataset(dataset))
    swapped = summarise(Dataset(tmp_path / "swapped"))
    for name in ("win_rate_side", "stratified_side", "karmaggan_starting_team_edge"):
        # sums in another order may differ in the last bits
        assert_frame_equal(swapped[name], original[name], check_exact=False, rel_tol=1e-9)
