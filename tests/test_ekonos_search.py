"""The Ekonos `search` player (simulator/games/ekonos/search.py): it sees only what its seat
can know, it is reproducible, it falls back to its rollout policy without a budget, and the
replay shows the values it weighed.  Budgets are tiny: these tests check behaviour, not
strength (the README gives the measured strength)."""

import numpy as np
import pytest

from policies.ekonos import SEARCH, VALUE_INVESTOR
from simulator.core.game import get_game
from simulator.core.rng import DICE, N_STREAMS, POLICY, SETUP, game_seeds
from simulator.games.ekonos import board, chunk, search
from simulator.games.ekonos.state import (
    AT_CARD,
    CFG_CARDS,
    CFG_CARDS_PER_TURN,
    CFG_STATE_SIZE,
    DECK_ORDER,
    EV_SEARCH,
    EV_SEARCH_OPTION,
    EVENTS,
    HANDS,
    MAX_HAND,
    PHASE,
    ROUND,
    SEARCH_DECISIONS,
    STARTER,
    TRACE_WIDTH,
)

GAME = get_game("ekonos")
BY_VALUE_INVESTOR = 'policies.search.rollout_policy="value_investor"'
TINY = (
    "policies.search.rollouts=12",
    "policies.search.top_k=3",
    "policies.search.horizon=1",
    BY_VALUE_INVESTOR,
)


def first_search_decision(change=None, seed: int = 7):
    """The trace rows of seat 0's first card play in a 4-player game (search in seat 0, value
    investors elsewhere): the search's weighed options and the card it played.  ``change``
    edits the game (state, rng, rules) after the first deal, before the search decides."""
    cfg, knobs = GAME.prepare(GAME.rules(sets=TINY), 4)
    state = np.zeros(cfg[CFG_STATE_SIZE], np.int64)
    rng = np.zeros(N_STREAMS, np.uint64)
    work, work_rng, values = search.search_buffers(cfg)
    seats = np.array([SEARCH] + [VALUE_INVESTOR] * 3, np.int8)
    chunk.new_game(state, cfg, knobs, rng, np.uint64(seed), seats)
    trace = np.zeros((200, TRACE_WIDTH), np.int64)
    search.search_step(state, cfg, knobs, rng, trace, work, work_rng, values)  # the deal
    assert state[PHASE] == AT_CARD and (state[STARTER] + state[ROUND]) % 4 == 0
    if change:
        change(state, rng, cfg)
        for seat in range(4):  # the hands changed: filed by company as a deal files them
            board.index_hand(state, cfg, seat)
    start = state[EVENTS]
    search.search_step(state, cfg, knobs, rng, trace, work, work_rng, values)  # seat 0 plays a card
    rows = [tuple(r) for r in trace[start : state[EVENTS]].tolist()]
    assert rows[0][0] == EV_SEARCH and state[SEARCH_DECISIONS] >= 1
    return rows


def hidden_cards(state, cfg):
    """Where the cards seat 0 cannot see are: the other hands' unplayed cards and the undealt
    rest of the deck."""
    per_hand, dealt = cfg[CFG_CARDS_PER_TURN], 4 * cfg[CFG_CARDS_PER_TURN]
    places = [HANDS + p * MAX_HAND + s for p in (1, 2, 3) for s in range(per_hand)]
    return places + [DECK_ORDER + k for k in range(dealt, cfg[CFG_CARDS])]


def reorder_hidden(state, rng, cfg):
    """Another deal of the same unseen cards, and other futures for every chance stream."""
    places = hidden_cards(state, cfg)
    state[places] = state[places][::-1]
    for stream in (SETUP, DICE, POLICY):
        rng[stream] ^= np.uint64(0x9E3779B97F4A7C15)


def swap_own_card(state, rng, cfg):
    """Seat 0's own first card exchanged with seat 1's: something seat 0 does see."""
    a, b = HANDS, HANDS + MAX_HAND
    state[a], state[b] = state[b], state[a]


def test_search_does_not_peek_at_hidden_cards_or_future_chance():
    """Two games differing only in what seat 0 cannot know (the other hands, the undealt deck,
    every later deal and tie-break) give the same weighed values and the same card played."""
    plain = first_search_decision()
    assert first_search_decision(reorder_hidden) == plain
    weighed = plain[0][5]  # the first search decision's candidates follow its head row
    assert weighed >= 2 and all(r[0] == EV_SEARCH_OPTION for r in plain[1 : 1 + weighed])


def test_search_does_see_its_own_hand():
    """Control for the test above: a change seat 0 can see changes what it weighs."""
    assert first_search_decision(swap_own_card) != first_search_decision()


def play(sets: tuple, seats: list[int], n_games: int = 30):
    params = GAME.prepare(GAME.rules(sets=sets), len(seats))
    ids = np.arange(n_games)
    return GAME.play(params, game_seeds(3, ids), np.tile(np.array(seats, np.int8), (n_games, 1)))


@pytest.mark.parametrize("budget", ["policies.search.rollouts=0", "policies.search.top_k=1"])
def test_search_without_a_budget_plays_as_its_rollout_policy(budget):
    """A search seat with no rollouts, or only one candidate, weighs nothing: it plays exactly
    as its rollout policy (value_investor) would in its seat, draw for draw."""
    searched = play((budget, BY_VALUE_INVESTOR), [SEARCH, VALUE_INVESTOR, 1, 3])
    scripted = play((budget, BY_VALUE_INVESTOR), [VALUE_INVESTOR, VALUE_INVESTOR, 1, 3])
    for table in ("games", "players"):
        for name, column in scripted[table].items():
            np.testing.assert_array_equal(searched[table][name], column, err_msg=name)
    assert (searched["games"]["search_decisions"] == 0).all()


def test_search_decisions_are_counted():
    """The games column `search_decisions`: 0 without a search seat, else every decision the
    search weighed (at least one a round of its own in a game)."""
    with_search = play(TINY, [SEARCH, VALUE_INVESTOR, 1, 3], n_games=3)
    without = play(TINY, [VALUE_INVESTOR, VALUE_INVESTOR, 1, 3], n_games=3)
    assert (without["games"]["search_decisions"] == 0).all()
    assert (with_search["games"]["search_decisions"] >= 18).all()  # 3 turns x 6 cards


def test_replay_shows_the_values_the_search_weighed():
    """`balsim replay`: each search decision lists its candidates, each with its mean value
    (win share + 0.1 x clipped margin, so within [-0.1, 1.1]) and its rollouts."""
    rules = GAME.rules(sets=TINY)
    params = GAME.prepare(rules, 4)
    lines = GAME.replay(params, 5, np.array([SEARCH, VALUE_INVESTOR, 1, 3], np.int8), rules)
    heads = [i for i, line in enumerate(lines) if "search weighs" in line]
    assert heads
    for i in heads:
        weighed = int(lines[i].split("weighs ")[1].split()[0])
        options = lines[i + 1 : i + 1 + weighed]
        assert all("mean value" in line for line in options)
        values = [float(line.split("mean value ")[1].split()[0]) for line in options]
        assert all(-0.1 <= v <= 1.1 for v in values)
        # 12 rollouts in rounds of every option weighed, the last rounds not played once they
        # cannot change the choice (policies.search.settled)
        total = int(lines[i].split("over ")[1].split()[0])
        rounds = total // weighed
        assert rounds * weighed == total and rounds <= 12 // weighed
        assert all(f"over {rounds} " in line for line in options)


def test_a_search_decision_after_another_seats_in_the_same_step_is_the_one_its_rollouts_force():
    """A step can hold decisions of other seats before the search seat's (an expansion the
    search seat decides as a company's president in another seat's round): its rollouts replay
    those from the step's log and force each candidate at the search seat's decision itself.
    This 6-player game has such a step: when the replays took the step's first decision for
    the pending one, a candidate's index was forced on another seat's card play with fewer
    options, and the kernel read and wrote past the hand (a crash)."""
    rules = GAME.rules()
    tuned = GAME.policy("cash_hoarder_tuned", rules).id
    seats = np.full((1, 6), tuned, np.int8)
    seats[0, 4] = GAME.policy("search", rules).id
    ids = np.array([22])  # seed 808: a game of bench/learned_strength.py at 6 players
    played = [GAME.play(GAME.prepare(rules, 6), game_seeds(808, ids), seats) for _ in range(2)]
    scores = played[0]["players"]["score"]
    assert played[0]["games"]["search_decisions"][0] > 0
    assert ((scores >= 0) & (scores < 1_000)).all()
    np.testing.assert_array_equal(scores, played[1]["players"]["score"])
