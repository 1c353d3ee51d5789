"""The Karmaggän `search` player (simulator/games/karmaggan/search.py): it sees only what its seat
can know, scores its side's win, falls back to its rollout policy without a budget, keeps its
rollout policy's pick unless a rival beats it clearly, is deterministic, and the replay shows the
values it weighed.  Budgets are tiny: these test the
mechanism, not the strength."""

import numpy as np
import pytest

from policies.search import MARGIN_WEIGHT, MAX_ROLLOUTS
from simulator.core.game import get_game
from simulator.core.rng import N_STREAMS, game_seeds
from simulator.core.rng import SEARCH as SEARCH_STREAM
from simulator.core.rules import RulesError
from simulator.games.karmaggan import (
    board,
    checks,
    decide,
    engine,
    features,
    movement,
    search,
    traps,
    turns,
)
from simulator.games.karmaggan import game as K
from simulator.games.karmaggan import state as S

GAME = get_game("karmaggan")
TINY = ("policies.search.rollouts=6", "policies.search.top_k=3", "policies.search.horizon=1")
SEATS = ("search", "hunter_tuned", "search", "hunter_tuned")
NOT_KEPT = np.int64(-1)  # search.weigh keeps its rollout policy's pick unless beaten


def ids(rules, seats):
    return np.array([GAME.policy(s, rules).id for s in seats], np.int8)


def at_first_step(rules, seats, seed, edit=None):
    """A game of ``seats`` paused at seat 0's first plunderer step (seat 0 searches or learns
    and moves first), the search's buffers and the number of step options.  ``edit(W)``
    changes the set-up game first."""
    W = K.world(GAME.prepare(rules, 4), seed, ids(rules, seats))
    if edit:
        edit(W)
    buffers = search.search_buffers(W.state, W.rng, W.rules)
    cap = W.rules[S.CFG_ROUND_CAP]
    searched = W.call(turns.searched_seats)
    status = W.call(engine.play_from, np.int64(0), np.int64(0), cap, searched, engine.NOT_RESUMED)
    assert status == engine.PAUSED and W.state[S.G_SEAT] == 0
    assert W.call(movement.start_turn, 0)
    return W, W.call(movement.list_step_options, 0), buffers


def first_search_decision(sets=TINY, edit=None, seed=6):
    """The first STEP decision of seat 0 (a search seat, the first to move) with several
    options, one its rollout policy has no clear lead in (on seed 6): its choice, each
    candidate's summed value and rollouts, and the real game's streams after it.  ``edit(W)``
    changes the set-up game before the search."""
    W, n, (work, work_rng, values, picks, pool) = at_first_step(
        GAME.rules(sets=sets), SEATS, seed, edit
    )
    assert n > 1
    choice = W.call(search.weigh, 0, n, work, work_rng, values, picks, pool, NOT_KEPT)
    assert W.state[S.G_SEARCH_DECISIONS] == 1  # weighed by playouts
    m = int((values[search.COUNTS] > 0).sum())
    return (
        choice,
        values[search.SUMS][:m].tolist(),
        values[search.COUNTS][:m].tolist(),
        W.rng.copy(),
    )


def hidden_cards_reordered(W):
    """Everything seat 0 cannot see, in another order: the Temple deck, the other players'
    Object cards pooled with the Object deck (hand sizes kept), the face-down Blood tiles."""
    temple, objects, hands = W.deck(S.D_TEMPLE), W.deck(S.D_OBJECTS), W.hands
    n_temple = W.rules[S.CFG_N_TEMPLE]
    temple[:n_temple] = temple[:n_temple][::-1].copy()
    others = hands[1:].copy()
    n_deck = W.state[S.G_ODECK_N]
    unseen = np.concatenate([others[others >= 0], objects[:n_deck]])[::-1]
    k = 0
    for s in range(1, hands.shape[0]):
        for slot in range(hands.shape[1]):
            if hands[s, slot] >= 0:
                hands[s, slot] = unseen[k]
                k += 1
    objects[:n_deck] = unseen[k:]
    values = W.nodes(S.B_BLOOD)
    blood = np.flatnonzero((W.nodes(S.B_TILE) == S.BLOOD_TILE) & (values > 0))
    assert len(blood) > 1 and len(set(values[blood])) > 1
    values[blood] = values[blood[::-1]]


@pytest.mark.slow
def test_unseen_information_does_not_change_the_search():
    """Ring Traps, Objects, Blood Tiles: the Temple deck, the other players' Object cards, the
    Object deck and the face-down Blood tiles are hidden from seat 0; reordering them leaves
    every value it weighed exactly as it was."""
    plain = first_search_decision()
    reordered = first_search_decision(edit=hidden_cards_reordered)
    assert sum(plain[2]) == 6 and len(plain[2]) == 3
    assert reordered[:3] == plain[:3]


def test_the_seats_own_cards_do_change_the_search():
    """Control: seat 0 sees its own Object cards, so trading them for a hidden hand changes
    what it weighs."""

    def swap_hands(W):
        hands = W.hands
        hands[[0, 1]] = hands[[1, 0]]

    assert first_search_decision(edit=swap_hands)[1] != first_search_decision()[1]


def test_the_search_draws_only_from_its_own_stream():
    """The real game's streams other than SEARCH are untouched by the rollouts."""
    searched = first_search_decision()[3]
    unsearched = first_search_decision(sets=TINY + ("policies.search.rollouts=1",))[3]
    others = [s for s in range(N_STREAMS) if s != SEARCH_STREAM]
    assert (searched[others] == unsearched[others]).all()
    assert searched[SEARCH_STREAM] != unsearched[SEARCH_STREAM]


@pytest.mark.slow
def test_a_redraw_keeps_what_the_seat_knows():
    """A round's deal lays the hidden cards again into the same places: the seat's own hand,
    the hand sizes, the drawn Temple cards and the multisets of hidden cards and tiles stay."""
    rules = GAME.rules(sets=TINY)
    params = GAME.prepare(rules, 4)
    W = K.world(params, 5, ids(rules, SEATS))
    R = K.world(params, 0, ids(rules, SEATS), set_up=False)
    _, work_rng, _, _, cards = search.search_buffers(W.state, W.rng, W.rules)
    W.state[S.G_TDRAW] = 10
    search.restore_game(W.state, W.rules, R.state, np.int64(1), np.int64(0), True)
    sizes = search.gather_unseen(W.state, W.rules, np.int64(0), cards)
    search.deal_unseen(cards, work_rng[search.DEAL_RNG], np.uint64(77), *sizes)
    search.place_unseen(R.state, W.rules, np.int64(0), cards[search.DEALT], *sizes)
    hands, again = W.hands, R.hands
    assert (again[0] == hands[0]).all() and ((again >= 0) == (hands >= 0)).all()
    assert (again[1:] != hands[1:]).any()
    n_deck = W.state[S.G_ODECK_N]

    def unseen(w):
        others = w.hands[1:]
        return sorted(others[others >= 0].tolist() + w.deck(S.D_OBJECTS)[:n_deck].tolist())

    assert unseen(R) == unseen(W)
    temple, temple_again = W.deck(S.D_TEMPLE), R.deck(S.D_TEMPLE)
    assert (temple_again[:10] == temple[:10]).all()
    assert sorted(temple_again) == sorted(temple) and (temple_again != temple).any()
    assert sorted(R.nodes(S.B_BLOOD)) == sorted(W.nodes(S.B_BLOOD))


def game_and_copies():
    """A set-up game (seed 5), two worlds to copy it into (a rollout copy and a whole copy)
    and the options a decision lists."""
    rules = GAME.rules(sets=TINY)
    params = GAME.prepare(rules, 4)
    W = K.world(params, 5, ids(rules, SEATS))
    R = K.world(params, 0, ids(rules, SEATS), set_up=False)
    whole = K.world(params, 0, ids(rules, SEATS), set_up=False)
    return W, R, whole, np.int64(7)


def test_a_restored_copy_is_the_real_game_again_after_a_playout():
    """restore_game copies back only what a playout wrote (the caches when it rebuilt them):
    after playouts that rotated rings and computed distance maps, the copy equals a whole
    copy of the game on every slot a playout reads."""
    W, R, whole, n_options = game_and_copies()
    search.restore_game(W.state, W.rules, whole.state, np.int64(1), n_options, True)
    search.restore_game(W.state, W.rules, R.state, np.int64(1), n_options, True)
    end = np.int64(6)
    for seed in range(3):
        R.rng[:] = seed + 1
        R.call(engine.play_from, np.int64(0), np.int64(0), end, np.int64(0), engine.NOT_RESUMED)
        assert R.state[S.G_ADJ_VERSION] != W.state[S.G_ADJ_VERSION]  # the adjacency rebuilt
        assert R.state[S.G_DCACHE_WRITTEN] != 0 and (R.state != whole.state).any()
        search.restore_game(W.state, W.rules, R.state, np.int64(1), n_options, False)
        read = read_slots(W, n_options)
        assert (R.state[read] == whole.state[read]).all()


def read_slots(W, n_options):
    """The slots of ``W``'s state a playout reads: not the scratch blocks (option scores, the
    BFS queue), nor the unread tails of the options and activated tiles."""
    read = np.ones(len(W.state), bool)
    read[S.SCORES : S.SCORES + S.MAX_OPTIONS] = False
    read[W.rules[S.CFG_QUEUE] : W.rules[S.CFG_ADJ]] = False
    for field in (S.OPT_ACT, S.OPT_A, S.OPT_B):
        read[field + n_options : field + S.MAX_OPTIONS] = False
    for field in (S.ACTED_FIG, S.ACTED_NODE):
        read[field + W.state[S.G_ACT_N] : field + S.MAX_ACTS] = False
    return read


def test_a_copy_made_at_an_earlier_decision_is_the_game_again():
    """Between two decisions the game plays on (rings turn, distance maps are computed) and
    the copy holds its last playout: restore_game without ``whole`` (as the learned player
    restores at every decision) copies back the caches either wrote, and the copy equals a
    whole copy of the game on every slot a playout reads."""
    W, R, whole, n_options = game_and_copies()
    search.restore_game(W.state, W.rules, R.state, np.int64(1), n_options, False)  # a new game
    rebuilt = 0
    for step in range(4):
        first, start = np.int64(2 * step), engine.NOT_RESUMED
        if step % 2:  # a playout of the next two rounds, or none (a decision of one option)
            R.rng[:] = step + 1
            R.call(engine.play_from, first, np.int64(0), first + 2, np.int64(0), start)
        W.call(engine.play_from, first, np.int64(0), first + 2, np.int64(0), start)  # the game's
        assert W.state[S.G_DCACHE_WRITTEN] != 0  # the game wrote caches the copy does not hold
        rebuilt |= W.state[S.G_DCACHE_WRITTEN] & S.ADJ_WRITTEN
        search.restore_game(W.state, W.rules, R.state, np.int64(1), n_options, False)
        search.restore_game(W.state, W.rules, whole.state, np.int64(1), n_options, True)
        read = read_slots(W, n_options)
        assert (R.state[read] == whole.state[read]).all()
    assert rebuilt  # the game's adjacency was rebuilt between decisions too


@pytest.mark.parametrize("mode, teammate_counts", [("team", True), ("free_for_all", False)])
def test_a_teammates_win_counts_in_team_mode_only(mode, teammate_counts):
    """The Game: Game Modes — in Team mode the whole team wins with the carrier."""
    rules = GAME.rules(sets=(f'game.mode="{mode}"',))
    W = K.world(GAME.prepare(rules, 4), 5, ids(rules, SEATS))
    game, teams = W.state, W.seats(S.P_TEAM)
    mate = next(s for s in range(1, 4) if teams[s] == teams[0]) if mode == "team" else 2
    game[S.G_WINNER], game[S.G_WIN_TEAM] = mate, teams[mate]
    sides = np.zeros(4)
    assert (W.call(search.seat_value, 0, sides, True) >= 0.9) == teammate_counts
    game[S.G_WINNER], game[S.G_WIN_TEAM] = 0, teams[0]
    assert W.call(search.seat_value, 0, sides, True) >= 0.9


def test_a_clear_lead_is_played_without_playouts():
    """A step the rollout policy scores CLEAR_LEAD tiles above every other is its pick, played
    without a playout (seed 3: the first step is such a step)."""
    rules = GAME.rules(sets=TINY)
    W = K.world(GAME.prepare(rules, 4), 3, ids(rules, SEATS))
    work, work_rng, values, picks, pool = search.search_buffers(W.state, W.rng, W.rules)
    cap = W.rules[S.CFG_ROUND_CAP]
    searched = W.call(turns.searched_seats)
    W.call(engine.play_from, np.int64(0), np.int64(0), cap, searched, engine.NOT_RESUMED)
    assert W.call(movement.start_turn, 0)
    n = W.call(movement.list_step_options, 0)
    choice = W.call(search.weigh, 0, n, work, work_rng, values, picks, pool, NOT_KEPT)
    scores = W.state[S.SCORES : S.SCORES + n]
    assert n > 1 and W.state[S.G_SEARCH_DECISIONS] == 0 and not values[search.COUNTS].any()
    assert scores[choice] >= np.delete(scores, choice).max() + search.CLEAR_LEAD


def race_world(carrier_steps, rival_steps, rival_alive=True):
    """A Team game with every hatch open, the Egg carried by seat 0 ``carrier_steps`` from an
    exit and the other team's nearest plunderer ``rival_steps`` from the carrier (its team mate
    far away); returns the world and the exits' distance map."""
    rules = GAME.rules(sets=('game.mode="team"',))
    W = K.world(GAME.prepare(rules, 4), 5, ids(rules, SEATS))
    W.call(traps.set_hatches, np.int64(-1), np.int64(1))
    d_exit = W.distances(board.EXITS).copy()
    ring = np.flatnonzero(d_exit[: W.rules[S.CFG_CENTRE]] == carrier_steps)
    at = int(ring[0])
    d_at = W.distances(at).copy()
    teams = W.seats(S.P_TEAM)
    rival = next(s for s in range(1, 4) if teams[s] != teams[0])
    figures = W.figures(S.F_POS)
    figures[0] = at
    far = int(np.argmax(np.where(d_at < board.UNREACHABLE, d_at, -1)))
    for s in range(1, 4):
        figures[s] = int(np.flatnonzero(d_at == rival_steps)[0]) if s == rival else far
    W.state[S.G_EGG_CARRIER] = 0
    if not rival_alive:
        W.seats(S.P_STATUS)[[s for s in range(4) if teams[s] != teams[0]]] = S.DEAD
    return W, teams


def race(W, side):
    return W.call(features.race_share, np.int64(side), np.int64(2), np.zeros(4))


def test_the_race_for_the_egg_values_a_cut_playout():
    """A playout cut at its horizon: a side's chance is a logistic in the steps it is ahead (the
    carrier's: to an exit; its rivals': to the carrier, then to the exit), so the carrier's side
    is the more likely winner the farther its rivals are; the two sides' chances sum to 1, level
    steps are even odds, and a side with no plunderer alive counts RACE_CAP steps."""
    W, teams = race_world(2, 4)
    mine, theirs = teams[0], 1 - teams[0]
    # carrier 2 steps from winning, the rival 4 + 2: ahead by 4 steps
    assert race(W, mine) == pytest.approx(1 / (1 + np.exp(-4 / features.RACE_SCALE)))
    assert race(W, mine) + race(W, theirs) == pytest.approx(1.0)
    assert race(race_world(2, 6)[0], mine) > race(W, mine) > race(race_world(2, 2)[0], mine)
    level = race_world(3, 0)[0]  # the rival stands where the carrier stands
    assert race(level, mine) == pytest.approx(0.5)
    alone = race_world(2, 4, rival_alive=False)[0]
    ahead = features.RACE_CAP - 2
    assert race(alone, mine) == pytest.approx(1 / (1 + np.exp(-ahead / features.RACE_SCALE)))


def test_a_playout_cut_at_its_horizon_counts_the_race_not_a_loss():
    """seat_value: an ended playout counts the win (none here: 0 plus the margin), a cut one
    the race (more than a half for the carrier's side ahead)."""
    W, _ = race_world(2, 4)
    sides = np.zeros(4)
    assert W.call(search.seat_value, 0, sides, True) <= MARGIN_WEIGHT
    assert W.call(search.seat_value, 0, sides, False) > 0.5


# ---------------------------------------------------------------- whole games


def play(sets, seats, n=4, seed=4, mode="team"):
    rules = GAME.rules(sets=sets + (f'game.mode="{mode}"',))
    params = GAME.prepare(rules, len(seats))
    return GAME.play(params, game_seeds(seed, np.arange(n)), np.tile(ids(rules, seats), (n, 1)))


def assert_same_tables(a: dict, b: dict, skip=()) -> None:
    """Every column of every table of two ``play`` outputs is equal (but those in ``skip``)."""
    for table in ("games", "players", "rounds"):
        for column, values in b[table].items():
            if column in skip:
                continue
            mine = a[table][column]
            if isinstance(values, tuple):  # (codes, labels)
                assert mine[1] == values[1], (table, column)
                mine, values = mine[0], values[0]
            assert np.array_equal(mine, values), (table, column)


@pytest.mark.parametrize("budget", ["policies.search.rollouts=0", "policies.search.top_k=1"])
def test_without_a_budget_search_plays_exactly_its_rollout_policy(budget):
    """A search seat with no rollouts or a single candidate plays as its rollout policy does
    (every decision, not only the steps)."""
    sets = TINY + (budget, 'policies.search.rollout_policy="rusher_tuned"')
    searched = play(sets, ["search", "hunter", "rusher_tuned", "supporter"])
    scripted = play(sets, ["rusher_tuned", "hunter", "rusher_tuned", "supporter"])
    assert_same_tables(searched, scripted)
    assert (searched["games"]["search_decisions"] == 0).all()


def test_the_first_candidate_is_the_step_its_rollout_policy_takes():
    """The pick a rival must beat is the one a scripted seat of the rollout policy takes in
    the same game, drawn from the same streams: the search's game is its rollout policy's
    wherever its test does not pass."""
    sets = TINY + ('policies.search.rollout_policy="rusher_tuned"',)
    rules = GAME.rules(sets=sets)
    params = GAME.prepare(rules, 4)
    picks = []
    for seat_0 in ("search", "rusher_tuned"):
        W = K.world(params, 6, ids(rules, (seat_0,) + SEATS[1:]))
        cap = W.rules[S.CFG_ROUND_CAP]
        status = W.call(engine.play_from, np.int64(0), np.int64(0), cap, 1, engine.NOT_RESUMED)
        assert status == engine.PAUSED and W.state[S.G_SEAT] == 0
        assert W.call(movement.start_turn, 0)
        n = W.call(movement.list_step_options, 0)
        if seat_0 == "search":
            buffers = search.search_buffers(W.state, W.rng, W.rules)
            W.call(search.weigh, 0, n, *buffers, NOT_KEPT)
            assert W.state[S.G_SEARCH_DECISIONS] == 1
            picks.append(buffers[3][0])
        else:
            picks.append(W.call(decide.choose, S.STEP, 0, n))
    assert picks[0] == picks[1]


def test_search_decisions_are_counted_and_the_game_is_reproducible():
    sets = ("policies.search.rollouts=2", "policies.search.top_k=2", "policies.search.horizon=1")
    first, again = play(sets, list(SEATS), n=2), play(sets, list(SEATS), n=2)
    assert (first["games"]["search_decisions"] > 0).all()
    assert_same_tables(again, first)
    assert (play(sets, ["rusher"] * 4, n=2)["games"]["search_decisions"] == 0).all()


def test_replay_shows_the_values_the_search_weighed():
    rules = GAME.rules(
        sets=("policies.search.rollouts=2", "policies.search.top_k=2", "policies.search.horizon=1")
    )
    lines = GAME.replay(GAME.prepare(rules, 4), 5, ids(rules, SEATS), rules)
    weighs = [i for i, line in enumerate(lines) if "search weighs" in line]
    assert (
        weighs
        and "mean value" in lines[weighs[0] + 1]
        and "over 1 rollouts" in lines[weighs[0] + 1]
    )
    assert any(line.endswith("step options over 2 rollouts:") for line in lines)


@pytest.mark.parametrize(
    "key, value",
    [
        ("policies.search.rollouts", "-1"),
        ("policies.search.rollouts", str(MAX_ROLLOUTS + 1)),
        ("policies.search.top_k", "0"),
        ("policies.search.top_k", str(S.MAX_OPTIONS + 1)),  # candidates fit the options block
        ("policies.search.horizon", "-1"),
        ("policies.search.horizon", str(checks.MAX_ROUNDS + 1)),
        ("policies.search.rollout_policy", '"search"'),  # a rollout cannot search in turn
    ],
)
def test_search_knobs_beyond_what_the_driver_can_play_are_refused(key, value):
    with pytest.raises(RulesError, match=f"rules key '{key}'"):
        GAME.rules(sets=(f"{key}={value}",))


def test_bench_shows_a_rate_below_ten_with_decimals():
    """A search game takes about a second: `balsim bench` must not print it as 0 or 1 a second."""
    from simulator.run.bench import per_second

    assert per_second(4, 14.57) == "0.27" and per_second(12_345, 2.0) == "6,172"
