"""The Ekonos `learned` player (policies/search_driver.py :func:`value_options`,
simulator/games/ekonos/features.py): it sees only what its seat can know, it plays its rollout
policy without weights, and it plays in --seats and --field.  tests/test_learned.py checks
every learned player's fit (the same seed fits the same weights, on a tiny budget) and its
shipped weights."""

import copy

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner
from test_ekonos_search import reorder_hidden, swap_own_card

from simulator.cli import cli
from simulator.core.game import get_game
from simulator.core.rng import N_STREAMS, game_seeds
from simulator.experiments.field import Field, Ladder
from simulator.experiments.learn import reads_learned, with_learned
from simulator.games.ekonos import chunk, search
from simulator.games.ekonos.state import (
    AT_CARD,
    CFG_STATE_SIZE,
    GROWTH,
    HANDS,
    MAX_COMPANIES,
    MAX_HAND,
    OWNER,
    PHASE,
    PROTECTED,
    SEARCH_DECISIONS,
)
from simulator.run.plan import with_knob_sets

GAME = get_game("ekonos")
SEATS = ("learned", "value_investor_tuned", "market_builder_tuned", "cash_hoarder_tuned")
# weights that tell options apart (about those fitted at 4 players): the score's margin and
# lead late in the game, holdings, and the growth of the companies held
WEIGHTS = [0.01, 0.01, 0.02, 0.04, 0.0, 0.13, 0.08, 0.09, 0.03, 0.2, -0.18, -0.08, -0.02, 1.2]
WEIGHTS += [-1.1, 0.03, 0.01, 0.0, 0.12, -0.22, 0.01, -0.28]


def learned_rules(weights=WEIGHTS, top_k=4):
    assert weights is None or len(weights) == len(GAME.learned_features)
    table = {"rollout_policy": "cash_hoarder_tuned", "top_k": top_k}
    if weights is not None:
        table["weights"] = list(weights)
    return with_knob_sets(GAME.rules(), {"learned": table})


# a search seat that reads the learned player (policies/search_driver.py: learned_value)
SEARCH_LEARNED = {"base": "search", "learned_value": 1}


def search_rules(weights=WEIGHTS):
    return with_knob_sets(learned_rules(weights), {"search_learned": SEARCH_LEARNED})


def first_card(weights=WEIGHTS, change=None, seed=6, seat0="learned"):
    """What seat 0 (a learned seat, the first to play, or ``seat0``) does with its first card:
    its hand, the board and the growth indicators after its step.  ``change`` edits the game
    after the first deal, before it decides."""
    rules = search_rules(weights)
    cfg, knobs = GAME.prepare(rules, 4)
    state = np.zeros(cfg[CFG_STATE_SIZE], np.int64)
    rng = np.zeros(N_STREAMS, np.uint64)
    work, work_rng, values = search.search_buffers(cfg)
    seats = np.array([GAME.policy(s, rules).id for s in (seat0, *SEATS[1:])], np.int8)
    chunk.new_game(state, cfg, knobs, rng, np.uint64(seed), seats)
    no_trace = np.zeros((0, 7), np.int64)
    search.search_step(state, cfg, knobs, rng, no_trace, work, work_rng, values)  # the deal
    assert state[PHASE] == AT_CARD
    if change:
        change(state, rng, cfg)
    search.search_step(state, cfg, knobs, rng, no_trace, work, work_rng, values)
    assert state[SEARCH_DECISIONS] >= 1  # valued by the learned value
    own_hand = state[HANDS : HANDS + MAX_HAND].tolist()
    board = state[OWNER : OWNER + 63].tolist() + [state[PROTECTED]]
    return own_hand, board, state[GROWTH : GROWTH + MAX_COMPANIES].tolist()


@pytest.mark.slow
def test_unseen_cards_and_future_draws_do_not_change_the_learned_choice():
    """The other hands, the undealt deck and every chance stream's future are hidden from
    seat 0: changing them leaves what it does as it was (it values positions on its own
    re-deal)."""
    assert first_card(change=reorder_hidden) == first_card()


def test_the_learned_player_sees_its_own_hand():
    """Control for the test above: a change seat 0 can see changes what it does."""
    assert first_card(change=swap_own_card) != first_card()


def test_the_weights_decide_the_choice():
    """Control: the same decision with the weights negated plays another card."""
    assert first_card([-w for w in WEIGHTS]) != first_card()


@pytest.mark.slow
def test_unseen_cards_and_future_draws_do_not_change_a_search_reading_the_learned_value():
    """The search keeps the learned pick unless a rival beats it in rollouts valued by the
    learned weights: all of it on deals of its own, none on seat 0's hidden cards."""
    mine = first_card(seat0="search_learned")
    assert first_card(change=reorder_hidden, seat0="search_learned") == mine
    assert first_card(change=swap_own_card, seat0="search_learned") != mine  # control


def test_the_search_reading_the_learned_value_plays_todays_search_without_weights():
    """No weights: the very same games as today's search; with them, other games."""
    seats = ("search_learned", *SEATS[1:])
    today = play(search_rules(None), ("search", *SEATS[1:]))
    unweighted = play(search_rules(None), seats)
    for table in ("games", "players"):
        for name, column in today[table].items():
            np.testing.assert_array_equal(unweighted[table][name], column, err_msg=name)
    weighted = play(search_rules(), seats)
    assert not np.array_equal(weighted["players"]["score"], today["players"]["score"])


def test_a_search_reading_the_learned_value_is_given_the_learned_weights():
    """`--set policies.search.learned_value=1` seats today's search with the shipped weights
    of the printed rules (nothing fitted); today's search reads none."""
    rules = copy.deepcopy(GAME.rules())
    rules["policies"]["search"]["learned_value"] = 1
    assert reads_learned(GAME, rules, ["search", "cash_hoarder_tuned"])
    assert not reads_learned(GAME, GAME.rules(), ["search", "cash_hoarder_tuned"])
    assert reads_learned(GAME, GAME.rules(), ["learned"])
    given = with_learned(GAME, rules, 4)["policies"]
    assert given["learned"] == with_learned(GAME, GAME.rules(), 4)["policies"]["learned"]
    assert given["search"]["learned_value"] == 1


def play(rules, seats, n=20, seed=11):
    params = GAME.prepare(rules, 4)
    ids = np.array([GAME.policy(s, rules).id for s in seats], np.int8)
    return GAME.play(params, game_seeds(seed, np.arange(n, dtype=np.uint64)), np.tile(ids, (n, 1)))


def test_a_learned_seat_without_weights_plays_its_rollout_policy():
    """No weights: every decision is its rollout policy's, the very same games."""
    rules = learned_rules(weights=None)
    learned = play(rules, SEATS)
    scripted = play(rules, ("cash_hoarder_tuned", *SEATS[1:]))
    for table in ("games", "players"):
        for name, column in scripted[table].items():
            np.testing.assert_array_equal(learned[table][name], column, err_msg=name)


def test_the_learned_seat_plays_other_games_with_weights():
    played = play(learned_rules(), SEATS)
    assert played["games"]["search_decisions"].sum() > 0  # valued decisions counted
    scripted = play(learned_rules(), ("cash_hoarder_tuned", *SEATS[1:]))
    assert not np.array_equal(played["players"]["score"], scripted["players"]["score"])


def test_the_learned_rung_seats_a_learned_player_in_the_tuned_field():
    """`--field learned`: a learned seat against the tuned field, its weights the shipped ones
    (nothing fitted)."""
    players = Ladder(GAME, 4).players(GAME.rules(), Field("learned"))
    assert players.lineup[0] == "learned" and "learned" not in players.lineup[1:]
    assert "weights" in players.rules["policies"]["learned"]


def test_learned_plays_in_seats_and_field(tmp_path):
    """`balsim run ekonos --seats learned,...` and `--field learned` play the learned seat."""
    runner = CliRunner()
    seats = ",".join(SEATS)
    for option in (["--seats", seats], ["--field", "learned"]):
        out = tmp_path / option[0].strip("-")
        result = runner.invoke(
            cli, ["run", "ekonos", "-p", "4", "-n", "20", "-j", "1", "--out", str(out), *option]
        )
        assert result.exit_code == 0, result.output
        players = pl.read_parquet(out / "players" / "*.parquet")
        learned = players.filter(pl.col("policy") == "learned")
        assert len(learned) == 20  # one learned seat a game
        games = pl.read_parquet(out / "games" / "*.parquet")
        assert games["search_decisions"].sum() > 0  # its decisions valued
