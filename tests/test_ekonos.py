"""Ekonos over many games: invariants, the replay, and rule counts over whole games.

The rule-by-rule scenarios are in test_ekonos_rules*.py."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policies.ekonos import MARKET_BUILDER, RANDOM, SEARCH, VALUE_INVESTOR
from simulator.core.game import get_game
from simulator.core.rng import N_STREAMS, game_seeds
from simulator.core.rules import RulesError
from simulator.games.ekonos import chunk, decide, engine
from simulator.games.ekonos.game import trace_game
from simulator.games.ekonos.state import (
    AT_END,
    CARD_CODES,
    CFG_CARDS,
    CFG_CARDS_PER_TURN,
    CFG_MARKERS,
    CFG_MONEY_PER_TURN,
    CFG_SHARE_INDICATORS,
    CFG_SPACES,
    CFG_STATE_SIZE,
    CFG_TURNS,
    DECK,
    EV_PRESIDENT,
    HANDS,
    MAX_COMPANIES,
    MAX_HAND,
    MAX_PLAYERS,
    NONE,
    PHASE,
    SEAT,
    TRACE_WIDTH,
)

GAME = get_game("ekonos")
RULES = GAME.rules()


@pytest.fixture(scope="module")
def many_games():
    """3000 games per player count, random and every scripted policy mixed in."""
    return {n: play_mixed(RULES, n) for n in (3, 4, 5, 6)}


def play_mixed(rules: dict, n: int, n_games: int = 3000):
    params = GAME.prepare(rules, n)
    ids = np.arange(n_games)
    seat_policies = ((ids[:, None] + np.arange(n)) % SEARCH).astype(np.int8)  # not search
    return params, GAME.play(params, game_seeds(5, ids), seat_policies)


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_money_shares_and_markers_are_conserved(many_games, n):
    params, raw = many_games[n]
    cfg = params[0]
    p, g = raw["players"], raw["games"]
    # money: every M.U. held was dealt, or came from a sale, less what shares cost
    np.testing.assert_array_equal(
        p["cash"], p["money_dealt"] - p["spent_on_shares"] + p["received_from_sales"]
    )
    assert (p["money_dealt"] == cfg[CFG_TURNS] * cfg[CFG_MONEY_PER_TURN]).all()
    assert (p["cash"] >= 0).all()
    # shares: held = bought - sold; shares and presidencies each take a share indicator
    held = sum(p[f"company{c}_shares"].astype(np.int64) for c in range(6))
    presidencies = sum(p[f"company{c}_president"].astype(np.int64) for c in range(6))
    np.testing.assert_array_equal(held, p["shares_bought"] - p["shares_sold"])
    assert (held + presidencies <= cfg[CFG_SHARE_INDICATORS]).all()
    # markers: a company never has more than its supply; the board never overflows
    values = np.stack([g[f"company{c}_value"] for c in range(6)], axis=1)
    assert (values <= cfg[CFG_MARKERS]).all()
    assert (values.sum(axis=1) <= cfg[CFG_SPACES]).all()
    # score = cash + holdings, holdings = shares x value
    holdings = sum(p[f"company{c}_shares"] * values[:, c : c + 1] for c in range(6))
    np.testing.assert_array_equal(p["holdings_value"], holdings)
    np.testing.assert_array_equal(p["score"], p["cash"] + holdings)
    # presidency: at most one president, who holds a share
    for c in range(6):
        president = p[f"company{c}_president"]
        assert (president.sum(axis=1) <= 1).all()
        assert (p[f"company{c}_shares"][president] > 0).all()
    # each turn deals cards_per_turn cards to each player, each card makes one round
    assert (g["rounds"] == cfg[CFG_TURNS] * cfg[CFG_CARDS_PER_TURN] * n).all()


def test_president_holds_the_most_shares_when_presidencies_cost_no_indicator():
    """Presidency: the president holds the most shares.  (With presidencies taking a share
    indicator, a player without one free is passed over, so this holds only without.)  Three
    players, where the share indicators run short most."""
    rules = GAME.rules(sets=("shares.presidency_uses_indicator=false",))
    _, raw = play_mixed(rules, 3)
    p = raw["players"]
    for c in range(6):
        president, shares = p[f"company{c}_president"], p[f"company{c}_shares"]
        top = np.broadcast_to(shares.max(axis=1, keepdims=True), shares.shape)
        assert (shares[president] == top[president]).all()
        assert (president.any(axis=1) == (top[:, 0] > 0)).all()  # held shares have a president


def test_replay_reads_as_a_play_by_play():
    """`balsim replay`: one line per event; a company left without a president says so."""
    params = GAME.prepare(RULES, 3)
    without, lines_without = 0, 0
    for seed in range(20):
        lines = GAME.replay(params, seed, np.zeros(3, np.int8), RULES)
        rows = trace_game(params, seed, np.zeros(3, np.int8))
        assert len(lines) == len(rows)
        assert lines[0] == "== turn 1, seat 0 starts"
        assert sum(line.startswith("final seat") for line in lines) == 3
        assert not any("seat -1" in line for line in lines)
        without += ((rows[:, 0] == EV_PRESIDENT) & (rows[:, 2] == NONE)).sum()
        lines_without += sum("has no president" in line for line in lines)
    assert lines_without == without > 0


@pytest.mark.parametrize(
    "key, value",
    [
        ("setup.turns", "[101, 3, 3, 2]"),  # rounds fit the int16 column
        ("setup.cards_per_turn", "[22, 6, 5, 6]"),  # a hand's options fit the state
        ("shares.indicators_per_player", "1001"),  # shares fit the int16 columns
        ("board.layout", '["' + "." * 64 + '"]'),  # the board fits a 64-bit mask
        ("deck.cards", "[" + ", ".join(["[0, 1, 2]"] * 1001) + "]"),
        ("policies.search.rollouts", "-1"),
        ("policies.search.top_k", "65"),  # candidates fit the state
        ("policies.search.horizon", "101"),
        ("policies.search.rollout_policy", '"search"'),  # a rollout cannot search in turn
        ("scoring.per_indicator", "-1"),  # points per unit, bounded
        ("scoring.per_mu", "1001"),
        ("scoring.per_presidency", "-1001"),
    ],
)
def test_rules_beyond_what_the_engine_can_hold_are_refused(key, value):
    """`check` bounds every number that sizes a fixed block of the state or feeds a narrow
    output column, with a one-line error naming the key."""
    with pytest.raises(RulesError, match=f"rules key '{key}'"):
        GAME.rules(sets=(f"{key}={value}",))


def test_a_scoring_key_out_of_bounds_is_one_error_line_naming_it(tmp_path):
    from click.testing import CliRunner

    from simulator.cli import cli

    out = tmp_path / "ek"
    result = CliRunner().invoke(
        cli,
        [
            "run",
            "ekonos",
            "-n",
            "10",
            "-q",
            "--out",
            str(out),
            "--set",
            "scoring.per_presidency=5000",
        ],
    )
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert (
        len(lines) == 1 and lines[0].startswith("Error:") and "scoring.per_presidency" in lines[0]
    )
    assert not out.exists()


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**63 - 1),
    n_players=st.sampled_from([3, 4, 5, 6]),
    policy=st.sampled_from([RANDOM, VALUE_INVESTOR, MARKET_BUILDER]),
)
def test_hands_filed_by_company_mirror_the_hands(seed, n_players, policy):
    """The hands filed by company (CARD_CODES, board.index_hand) hold exactly the option codes
    of the cards in HANDS, after every step of a whole game and after the search re-deals the
    cards a seat cannot see (decide.determinize)."""
    cfg, knobs = GAME.prepare(GAME.rules(), n_players)
    state = np.zeros(cfg[CFG_STATE_SIZE], np.int64)
    rng = np.zeros(N_STREAMS, np.uint64)
    chunk.new_game(state, cfg, knobs, rng, np.uint64(seed), np.full(n_players, policy, np.int8))
    no_trace = np.zeros((0, TRACE_WIDTH), np.int64)
    deck = cfg[DECK : DECK + 3 * cfg[CFG_CARDS]].reshape(-1, 3)

    def filed(state):
        codes = np.zeros((n_players, MAX_COMPANIES), np.int64)
        for seat in range(n_players):
            for slot in range(cfg[CFG_CARDS_PER_TURN]):
                card = state[HANDS + seat * MAX_HAND + slot]
                for function in range(3) if card >= 0 else ():
                    codes[seat, deck[card, function]] |= 1 << 3 * slot + function
        return codes

    def card_codes(state):
        return state[CARD_CODES : CARD_CODES + MAX_PLAYERS * MAX_COMPANIES].reshape(
            MAX_PLAYERS, MAX_COMPANIES
        )[:n_players]

    while state[PHASE] != AT_END:
        engine.play_step(state, cfg, knobs, rng, no_trace)
        assert (card_codes(state) == filed(state)).all()
        redealt, redealt_rng = state.copy(), rng.copy()
        decide.determinize(redealt, cfg, redealt_rng, int(state[SEAT]))
        assert (card_codes(redealt) == filed(redealt)).all()
