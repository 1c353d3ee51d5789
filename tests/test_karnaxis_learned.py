"""The Karnaxis `learned` player (simulator/games/karnaxis/turns.py, features.py): it takes its
candidate actions on a copy whose hidden information it re-drew, so unseen cards and future dice
never change its choice; its weights decide; it draws only from its own stream; without weights
it plays its rollout policy; `learned` plays in --seats and as a --field rung (its fit:
tests/test_learned.py).  A `search` seat with ``learned_value`` reads it: without weights it
plays today's search, and what it weighs does not read what its seat cannot know."""

import copy

import numpy as np
from karnaxis_world import GAME, plain_python

from policies.learned import HEADER, ROWS
from simulator.core.game import LINEAR, NETWORK
from simulator.core.rng import N_STREAMS, game_seeds
from simulator.core.rng import SEARCH as SEARCH_STREAM
from simulator.core.trace import new_trace
from simulator.experiments import learn
from simulator.experiments.field import Field, Ladder
from simulator.experiments.learn import reads_learned, with_learned
from simulator.games.karnaxis import actions, decide, engine, features, search, turns
from simulator.games.karnaxis import state as S
from simulator.run.plan import with_knob_sets

RULES = plain_python((decide, engine, search, actions, features, turns))  # nothing compiled
ROLLOUT = "tycoon_tuned"
# weights that tell actions apart: the margin, the income to come, the rollout policy's score
WEIGHTS = [0.0] * features.N_FEATURES
for name, w in (("margin", 8.0), ("kept_left", 3.0), ("cards", 0.5), ("prior", 2.0)):
    WEIGHTS[features.FEATURES.index(name)] = w


# today's search on a tiny budget (three candidates, rollouts to the end of the next year) and
# the same reading the learned player (turns.learned_candidate, learned_rollout)
SEARCH_TINY = {"base": "search", "rollouts": 6, "top_k": 3, "horizon": 1}
SEARCH_LEARNED = {**SEARCH_TINY, "learned_value": 1}


def learned_rules(weights=WEIGHTS, **teacher):
    table = {"rollout_policy": ROLLOUT, "top_k": 3, **teacher}  # 3 candidates, as shipped
    if weights is not None:
        table["weights"] = list(weights)
    sets = {"learned": table, "search_tiny": SEARCH_TINY, "search_learned": SEARCH_LEARNED}
    return with_knob_sets(GAME.rules(), sets)


def reverse(state, at, n):
    state[at : at + n] = state[at : at + n][::-1].copy()


def hidden_reordered(state, rng, r):
    """What seat 0 cannot know, changed: the undrawn Karnaxis cards and the events not yet
    read in another order, and every chance stream (future dice, the other seats' draws)."""
    deck = S.owners(r, S.DECK_CARDS)
    reverse(state, deck + state[S.NEXT_CARD], r[S.CFG_N_KCARDS] - state[S.NEXT_CARD])
    reverse(state, S.owners(r, S.DECK_EVENTS) + state[S.YEAR], r[S.CFG_N_EVENTS] - state[S.YEAR])
    for stream in range(N_STREAMS):
        if stream != SEARCH_STREAM:
            rng[stream] ^= np.uint64(0x9E3779B97F4A7C15)


def first_learned_ply(weights=WEIGHTS, edit=None, seed=3):
    """Seat 0 (learned, the starting player) at its first action square, every legal action
    taken once on its copy (turns.ply): the action it plays, each action's sample row (its
    features), the actions listed and the real game's streams after.  ``edit(state, rng,
    rules_array)`` changes the game before it decides."""
    rules = learned_rules(weights, rollouts=3, top_k=3)  # a teacher: its rows are written
    params = GAME.prepare(rules, 4)
    r, knobs = params[0], params[1]
    ids = {p.name: p.id for p in GAME.policy_set(rules)}
    state = np.zeros(r[S.CFG_STATE_SIZE], np.int64)
    rng = np.zeros(N_STREAMS, np.uint64)
    trace = new_trace(0)
    seats = np.array([ids["learned"]] + [ids[ROLLOUT]] * 3, np.int8)
    RULES["new_game"](state, r, knobs, rng, np.uint64(seed), seats)
    while state[S.PHASE] != S.AT_ACTION:
        RULES["play_step"](state, r, knobs, rng, trace)
    seat = RULES["square_seat"](state, r)
    n = RULES["open_square"](state, r, knobs, rng, trace, seat)
    assert seat == 0 and n > 2
    if edit:
        edit(state, rng, r)
    work, work_rng, values = RULES["search_buffers"](r)
    scratch, picks = RULES["learned_buffers"]()
    RULES["prior_scores"](
        state, r, knobs, ids[ROLLOUT], S.D_ACTION, seat, n, scratch[turns.OPTION_SCORES]
    )
    picks[:n] = np.arange(n)
    values[search.COUNTS, :n] = 1.0
    samples = np.zeros((n + 1, features.SAMPLE_WIDTH))
    samples[HEADER, ROWS] = 1.0
    buffers = (work, work_rng, values, scratch, picks)
    best = RULES["ply"](state, r, knobs, rng, trace, S.D_ACTION, seat, n, n, buffers, samples)
    listed = [S.opt(state, i, S.OPT_ACTION) for i in range(n)]
    return picks[best], samples[1:].tolist(), listed, rng.copy()


def test_unseen_cards_and_future_dice_do_not_change_the_learned_choice():
    """Take Action!, Buy Karnaxis Card: the order of the undrawn Karnaxis cards and of the
    events, and every future die, are hidden from seat 0; changing them leaves its choice and
    every action's features (the card it would draw included) exactly as they were."""
    choice, rows, listed, _ = first_learned_ply()
    assert S.ACT_KARNAXIS in listed  # an action that draws a hidden card is valued
    assert first_learned_ply(edit=hidden_reordered)[:2] == (choice, rows)


def test_its_own_stream_draws_the_card_it_would_buy():
    """Control: the card its copy draws comes from its own SEARCH stream, so another seed of
    it changes what Buy Karnaxis Card leaves (and only that action's features)."""
    _, rows, listed, _ = first_learned_ply()

    def other_seed(state, rng, r):
        rng[SEARCH_STREAM] ^= np.uint64(0x2545F4914F6CDD1D)

    _, reseeded, _, _ = first_learned_ply(edit=other_seed)
    card = listed.index(S.ACT_KARNAXIS)
    changed = [i for i in range(len(rows)) if rows[i] != reseeded[i]]
    assert card in changed
    assert all(listed[i] in (S.ACT_KARNAXIS, S.ACT_MARKET) for i in changed)  # dice, draws


def test_the_weights_decide_the_choice():
    """Control: the same decision with the weights negated takes another action."""
    assert first_learned_ply([-w for w in WEIGHTS])[0] != first_learned_ply()[0]


def network_weights(seed=1, hidden=3):
    """A network's weights (simulator.core.game.network_length) over the features, and its
    value of a features row."""
    rng = np.random.default_rng(seed)
    n = features.N_FEATURES
    w1, b1, w2 = (
        rng.normal(0, 0.5, (n, hidden)),
        rng.normal(0, 0.5, hidden),
        rng.normal(size=hidden),
    )
    return [hidden, *w1.T.ravel(), *b1, *w2, 0.0], lambda x: np.tanh(np.asarray(x) @ w1 + b1) @ w2


def test_a_networks_weights_choose_by_its_value():
    """The action played is the rollout policy's own pick (the first) unless another's network
    value beats its by more than OVERRIDE: the network's value of each action's features."""
    picked = set()
    for seed in range(1, 6):
        weights, value = network_weights(seed)
        choice, rows, _, _ = first_learned_ply(weights)
        values = [value(row[-features.N_FEATURES :]) for row in rows]
        best = max(range(1, len(values)), key=lambda i: values[i])
        assert choice == (best if values[best] > values[0] + turns.OVERRIDE else 0)
        picked.add(choice)
    assert len(picked) > 1  # control: the networks tell actions apart


def test_unseen_cards_and_future_dice_do_not_change_a_networks_choice():
    for seed in (1, 2):
        weights, _ = network_weights(seed)
        played = first_learned_ply(weights)
        assert first_learned_ply(weights, edit=hidden_reordered)[:2] == played[:2]


def test_the_learned_player_draws_only_from_its_own_stream():
    """Besides the SEARCH stream (one seed a decision), the real game's streams are untouched:
    the actions are taken on the copy."""
    *_, valued = first_learned_ply()

    def nothing(state, rng, r):
        pass

    *_, before = first_learned_ply(edit=nothing)
    others = [s for s in range(N_STREAMS) if s != SEARCH_STREAM]
    assert (valued[others] == before[others]).all()


def first_searched_square(edit=None, weights=WEIGHTS, seed=3, phase=S.AT_ACTION):
    """Seat 0, a search seat reading the learned value, at its first action square (the game
    played to there by scripted seats), or with ``phase`` AT_CHARACTER at its character choice:
    what it weighed (its trace rows: each candidate's mean value) and the option it took.
    ``edit(state, rng, rules_array)`` changes the game first."""
    rules = learned_rules(weights)
    params = GAME.prepare(rules, 4)
    r, knobs = params[0], params[1]
    ids = {p.name: p.id for p in GAME.policy_set(rules)}
    state = np.zeros(r[S.CFG_STATE_SIZE], np.int64)
    rng = np.zeros(N_STREAMS, np.uint64)
    RULES["new_game"](state, r, knobs, rng, np.uint64(seed), np.array([ids[ROLLOUT]] * 4, np.int8))
    while state[S.PHASE] != phase:
        RULES["play_step"](state, r, knobs, rng, new_trace(0))
    assert state[S.row(0) + S.CARDS_HELD] == 0
    state[S.SEAT_POLICY], state[S.MODE] = ids["search_learned"], S.PROBE
    if edit:
        edit(state, rng, r)
    work, work_rng, values = RULES["search_buffers"](r)
    trace = new_trace(400)
    RULES["search_step"](state, r, knobs, rng, trace, work, work_rng, values)
    rows = trace[: state[S.TRACE_N]]
    first = np.flatnonzero(rows[:, 0] == S.EV_SEARCH)[0]
    weighed = rows[first : first + 1 + rows[first, 5]]
    kind = S.D_ACTION if phase == S.AT_ACTION else S.D_CHARACTER
    assert weighed[0, 2] == 0 and weighed[0, 3] == kind  # seat 0's own decision
    return weighed.tolist(), state[S.LOG]  # its action: the step's first decision


def test_unseen_cards_and_future_dice_do_not_change_a_search_reading_the_learned_value():
    """The learned player's pick kept unless beaten, and every rollout valued by the learned
    weights at its horizon: all of it on deals of its own, none on the undrawn cards, the
    events to come or future dice; seat 0's own cash, which it sees, does change it."""
    mine = first_searched_square()
    assert first_searched_square(edit=hidden_reordered) == mine

    def richer(state, rng, r):
        state[S.row(0) + S.CASH] += 400_000

    assert first_searched_square(edit=richer)[0] != mine[0]  # control


def test_unseen_cards_and_future_dice_do_not_change_its_character_choice():
    """The same at its character choice (the learned pick among the characters dealt to it,
    kept unless beaten): the hidden decks and every future draw changed, it weighs the same."""
    mine = first_searched_square(phase=S.AT_CHARACTER)
    assert first_searched_square(edit=hidden_reordered, phase=S.AT_CHARACTER) == mine

    def richer(state, rng, r):
        state[S.row(0) + S.CASH] += 400_000

    assert first_searched_square(edit=richer, phase=S.AT_CHARACTER)[0] != mine[0]  # control


# ---------------------------------------------------------------- whole games (compiled)


def play(rules, seats, n=20, seed=11):
    params = GAME.prepare(rules, len(seats))
    ids = {p.name: p.id for p in GAME.policy_set(rules)}
    policy_ids = np.tile(np.array([ids[s] for s in seats], np.int8), (n, 1))
    return GAME.play(params, game_seeds(seed, np.arange(n, dtype=np.uint64)), policy_ids)


def test_a_learned_seat_without_weights_plays_its_rollout_policy():
    """No weights: every decision is its rollout policy's, the very same games."""
    rules = learned_rules(weights=None)
    learned = play(rules, ["learned", "scholar_tuned", "learned", "cautious_tuned"])
    scripted = play(rules, [ROLLOUT, "scholar_tuned", ROLLOUT, "cautious_tuned"])
    for table in ("players", "years"):
        for column, values in scripted[table].items():
            mine = learned[table][column]
            assert np.array_equal(*(v[0] if isinstance(v, tuple) else v for v in (mine, values)))
    assert (learned["games"]["search_decisions"] == 0).all()


def test_learned_seats_with_weights_play_other_games_and_count_their_decisions():
    rules = learned_rules()
    learned = play(rules, ["learned", "scholar_tuned", "search", "cautious_tuned"])
    scripted = play(rules, [ROLLOUT, "scholar_tuned", "search", "cautious_tuned"])
    assert learned["games"]["search_decisions"].sum() > scripted["games"]["search_decisions"].sum()
    assert not np.array_equal(learned["players"]["score"], scripted["players"]["score"])


def test_its_top_k_is_how_many_candidates_it_values():
    """The knob ``top_k`` (the learn budget's candidates): with 1 a learned seat has nothing to
    value and plays its rollout policy's best-scored options; with 3 it values them."""
    lineup = ["learned", "scholar_tuned", "learned", "cautious_tuned"]
    one, three = play(learned_rules(top_k=1), lineup), play(learned_rules(), lineup)
    assert (one["games"]["search_decisions"] == 0).all()
    assert (three["games"]["search_decisions"] > 0).all()
    assert not np.array_equal(one["players"]["score"], three["players"]["score"])


def test_each_count_has_its_value_model_and_games():
    """A count's own budget fields replace the game's (games at 3 and 6 players), and its
    model the game's: a weighted sum at 2 to 5 players, a network at 6."""
    budgets = {n: learn.default_budget(GAME, n) for n in range(2, 7)}
    assert [b.games for b in budgets.values()] == [400, 1_200, 400, 400, 1_200]
    assert {(b.horizon, b.rollouts) for b in budgets.values()} == {(0, 12)}
    models = [learn.value_model(GAME, b) for b in budgets.values()]
    assert models == [LINEAR] * 4 + [NETWORK]


def test_learned_in_the_seats_and_as_a_field_rung():
    """`--field learned`: a learned seat against the tuned field; `--seats learned,...`: the
    same shipped weights (nothing fitted)."""
    players = Ladder(GAME, 4).players(GAME.rules(), Field("learned"))
    assert players.lineup[0] == "learned" and "learned" not in players.lineup[1:]
    assert "weights" in players.rules["policies"]["learned"]
    named = Ladder(GAME, 4).players(GAME.rules(), Field("scripted"), ["learned", "tycoon"] * 2)
    assert named.rules["policies"]["learned"] == players.rules["policies"]["learned"]


def test_the_search_reading_the_learned_value_plays_todays_search_without_weights():
    """No weights: the very same games as today's search; with them, other games."""
    others = ["scholar_tuned", ROLLOUT, "cautious_tuned"]
    today = play(learned_rules(None), ["search_tiny", *others], n=8)
    for weights in (None, WEIGHTS):
        mine = play(learned_rules(weights), ["search_learned", *others], n=8)
        alike = [
            np.array_equal(*(v[0] if isinstance(v, tuple) else v for v in (mine[t][c], column)))
            for t in ("games", "players", "years")
            for c, column in today[t].items()
        ]
        assert all(alike) == (weights is None)


def test_a_search_reading_the_learned_value_is_given_the_learned_weights():
    """`--set policies.search.learned_value=1` seats today's search with the shipped weights
    of the printed rules (nothing fitted); today's search reads none."""
    rules = copy.deepcopy(GAME.rules())
    rules["policies"]["search"]["learned_value"] = 1
    assert reads_learned(GAME, rules, ["search", ROLLOUT])
    assert not reads_learned(GAME, GAME.rules(), ["search", ROLLOUT])
    given = with_learned(GAME, rules, 4)["policies"]
    assert given["learned"] == with_learned(GAME, GAME.rules(), 4)["policies"]["learned"]
    assert given["search"]["learned_value"] == 1
