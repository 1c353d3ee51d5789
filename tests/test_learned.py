"""The `learned` player (Karmaggän's: simulator/games/karmaggan/turns.py, features.py) and its
fit (simulator/experiments/learn.py; every game with a learned player): weights reach the
kernels as a block of its knobs row, it sees only what its seat can know, it plays its rollout
policy without weights, the same seed fits the same weights, and the shipped weights match the
rules they were fitted for.  The fits here are tiny (a fixture model): they test the
mechanism, not the strength."""

from dataclasses import replace

import numpy as np
import pytest
from test_karmaggan_search import at_first_step, hidden_cards_reordered

from policies.learned import position_value
from policies.learned import tanh as learned_tanh
from simulator.core.game import (
    GAME_NAMES,
    LINEAR,
    NETWORK,
    get_game,
    knob_values,
    network_length,
    policy_knobs,
    value_models,
)
from simulator.core.rng import N_STREAMS, game_seeds
from simulator.core.rng import SEARCH as SEARCH_STREAM
from simulator.core.rules import RulesError
from simulator.experiments import learn
from simulator.experiments.field import Field, Ladder
from simulator.games.karmaggan import features, search, turns
from simulator.games.karmaggan import state as S
from simulator.run.plan import with_knob_sets
from simulator.studies import shipped

GAME = get_game("karmaggan")
LEARNED_GAMES = [g for g in map(get_game, GAME_NAMES) if g.learned_features]
TINY = learn.LearnBudget(games=12, iterations=2, rollouts=4, top_k=2)
SEATS = ("learned", "rusher_tuned", "learned", "hunter_tuned")
# weights that tell options apart: the race for the Egg, coins and the rollout policy's score
WEIGHTS = [0.0, 0.2, 0.01, 0.0, 0.02, 0.02, 0.0, -0.02, 0.05, 0.01, 0.05, 0.0, 0.0, 0.0, 0.12]


def learned_rules(weights=WEIGHTS, top_k=None):
    table = {"rollout_policy": "rusher_tuned"}
    if top_k is not None:
        table["top_k"] = top_k
    if weights is not None:
        table["weights"] = list(weights)
    return with_knob_sets(GAME.rules(), {"learned": table})


def test_weights_are_a_block_after_the_last_knob():
    """A list knob is stored as its length, its numbers after the last knob's column; every
    other row holds zeros there."""
    rules = learned_rules()
    table = policy_knobs(rules, GAME.policy_set(rules), GAME.knob_names)
    row = table[GAME.policy("learned", rules).id]
    first = 1 + len(GAME.knob_names)
    assert table.shape[1] == first + len(features.FEATURES)
    assert row[1 + GAME.knob_names.index("weights")] == len(WEIGHTS)
    assert row[first:].tolist() == WEIGHTS
    assert not table[GAME.policy("rusher_tuned", rules).id, first:].any()


def network(n_features, hidden, rng):
    """A network's weights list (simulator.core.game.network_length) and its layers."""
    w1, b1 = rng.normal(size=(n_features, hidden)), rng.normal(size=hidden)
    w2, b2 = rng.normal(size=hidden), rng.normal()
    return [hidden, *w1.T.ravel(), *b1, *w2, b2], (w1, b1, w2, b2)


@pytest.mark.parametrize("weights", [[0.1] * 3, ["a"] * len(WEIGHTS)])
def test_weights_are_one_number_per_feature(weights):
    with pytest.raises(RulesError, match="policies.learned.weights"):
        GAME.validate(learned_rules(weights))


@pytest.mark.parametrize("game", [g for g in LEARNED_GAMES if value_models(g) == {LINEAR}])
def test_a_game_with_a_linear_value_refuses_a_networks_weights(game):
    weights, _ = network(len(game.learned_features), 2, np.random.default_rng(1))
    with pytest.raises(RulesError, match="one per feature"):
        game.validate(with_knob_sets(game.rules(), {"learned": {"weights": weights}}))


def test_a_count_of_its_own_gives_its_value_model():
    """Karmaggän's learned player is a network at 2 players, a weighted sum at 4 and 6: each
    count's budget says which, and only a network's model is written in its key."""
    assert value_models(GAME) == {LINEAR, NETWORK}
    budgets = {n: learn.default_budget(GAME, n) for n in (2, 4, 6)}
    assert [learn.value_model(GAME, budgets[n]) for n in (2, 4, 6)] == [NETWORK, LINEAR, LINEAR]
    keys = {n: learn.cache_key(GAME, GAME.rules(), n, b, 1) for n, b in budgets.items()}
    assert keys[2]["model"] == NETWORK and "model" not in keys[4]
    assert "model" not in keys[2]["budget"] and keys[2]["budget"]["horizon"] == 0


@pytest.mark.parametrize("game", [g for g in LEARNED_GAMES if NETWORK in value_models(g)])
def test_a_game_with_a_network_value_reads_either_form(game):
    """One number per feature, or H then the network's numbers; another length, or H not a
    positive whole number, is refused."""
    n = len(game.learned_features)
    weights, _ = network(n, 3, np.random.default_rng(1))

    def rules(w):
        return with_knob_sets(game.rules(), {"learned": {"weights": w}})

    game.validate(rules([0.1] * n))
    game.validate(rules(weights))
    for wrong in (weights[:-1], [2.5, *weights[1:]], [0, *weights[1:]]):
        with pytest.raises(RulesError, match="or a network's"):
            game.validate(rules(wrong))


def test_the_kernels_tanh_is_tanh():
    """policies.learned.tanh (by one exponential) against numpy's, on both signs and where it
    saturates."""
    x = np.concatenate([np.linspace(-40.0, 40.0, 2001), [0.0, 1e-12, -1e-12, 800.0, -800.0]])
    got = np.array([learned_tanh(v) for v in x])
    assert np.allclose(got, np.tanh(x), rtol=0, atol=1e-15)
    assert got[-2] == 1.0 and got[-1] == -1.0


def test_a_network_value_is_its_layer_of_tanh_units():
    """position_value of a network's weights (after other columns in the knobs row) is
    tanh(x W1 + b1) w2 + b2; of one weight per feature, the weighted sum."""
    rng = np.random.default_rng(2)
    n, hidden, first = 7, 4, 3
    weights, (w1, b1, w2, b2) = network(n, hidden, rng)
    row = rng.normal(size=n)
    row[2] = 0.0  # a feature at 0 weighs nothing
    knobs_row = np.concatenate([rng.normal(size=first), weights, [99.0]])
    expected = np.tanh(row @ w1 + b1) @ w2 + b2
    assert np.isclose(position_value(row, knobs_row, first, len(weights), n), expected)
    assert network_length(n, hidden) == len(weights)
    linear = np.concatenate([rng.normal(size=first), w2[:1].repeat(n), [99.0]])
    assert np.isclose(position_value(row, linear, first, n, n), row.sum() * w2[0])


def first_learned_decision(weights=WEIGHTS, edit=None, seed=6, top_k=None):
    """The first STEP decision of seat 0 (a learned seat, the first to move) its rollout
    policy has no clear lead in: the option it takes and the real game's streams after it.
    ``edit(W)`` changes the set-up game before it decides."""
    W, n, (work, work_rng, values, picks, cards) = at_first_step(
        learned_rules(weights, top_k), SEATS, seed, edit
    )
    no_samples = np.zeros((0, features.SAMPLE_WIDTH))
    choice = W.call(
        turns.learned_step, 0, n, work, work_rng, values, picks, cards, no_samples, False
    )
    assert n > 1 and W.state[S.G_SEARCH_DECISIONS] == 1  # valued, not a clear lead
    return choice, W.rng.copy()


def other_futures(W, kept=(SEARCH_STREAM,)):
    """Other futures for every chance stream but ``kept`` (dice, draws, the other seats'
    tie-breaks)."""
    for stream in range(N_STREAMS):
        if stream not in kept:
            W.rng[stream] = W.rng[stream] ^ np.uint64(0x9E3779B97F4A7C15)


@pytest.mark.slow
def test_unseen_cards_and_future_dice_do_not_change_the_learned_choice():
    """Ring Traps, Objects, Blood Tiles: the Temple deck, the other players' Object cards, the
    Object deck, the face-down Blood tiles and every future draw are hidden from seat 0;
    changing them leaves its choice as it was (it values positions on its own re-deal)."""
    plain = first_learned_decision()[0]
    assert first_learned_decision(edit=hidden_cards_reordered)[0] == plain

    def reordered_and_other_futures(W):
        hidden_cards_reordered(W)
        other_futures(W)

    assert first_learned_decision(edit=reordered_and_other_futures)[0] == plain


@pytest.mark.slow
def test_unseen_cards_and_future_dice_do_not_change_a_networks_choice():
    """The same with a network's value, valuing its rollout policy's own pick and its 2 best
    scored other options: the POLICY stream kept, whose draw is that pick's, as a scripted
    seat's is (the candidates start from it; changed, the choice here changes)."""
    from simulator.core.rng import POLICY

    weights, _ = network(len(WEIGHTS), 3, np.random.default_rng(5))
    plain = first_learned_decision(weights, top_k=3)[0]

    def reordered_and_other_futures(W):
        hidden_cards_reordered(W)
        other_futures(W, kept=(SEARCH_STREAM, POLICY))

    edited = first_learned_decision(weights, edit=reordered_and_other_futures, top_k=3)[0]
    assert edited == plain


def test_a_network_values_its_own_pick_then_the_best_scored_options():
    """turns.candidates: the own pick first, then the others by score (ties: the lower
    option), ``k`` of them (0: all); the scores left as they were."""
    scores = np.array([0.5, 2.0, -1.0, 1.5, 2.0, 0.0])
    out = np.zeros(8, np.int64)
    assert turns.candidates(scores, 6, 5, 3, out) == 3
    assert list(out[:3]) == [5, 1, 4]
    assert turns.candidates(scores, 6, 1, 0, out) == 6
    assert list(out[:6]) == [1, 4, 3, 0, 5, 2]
    assert list(scores) == [0.5, 2.0, -1.0, 1.5, 2.0, 0.0]


def test_the_weights_decide_the_choice():
    """Control: the same decision with the weights negated takes another option."""
    assert first_learned_decision([-w for w in WEIGHTS])[0] != first_learned_decision()[0]


# a search seat that reads the learned player (search.reads_learned: learned_value)
SEARCH_LEARNED = {"base": "search", "learned_value": 1}


def search_rules(weights=WEIGHTS):
    return with_knob_sets(learned_rules(weights), {"search_learned": SEARCH_LEARNED})


def first_search_decision(weights=WEIGHTS, edit=None, seed=6):
    """The decision of first_learned_decision taken by a search seat reading the learned
    value: the candidate it keeps unless beaten (the learned player's pick) and its choice."""
    seats = ("search_learned", *SEATS[1:])
    W, n, buffers = at_first_step(search_rules(weights), seats, seed, edit)
    no_samples = np.zeros((0, features.SAMPLE_WIDTH))
    kept = W.call(turns.learned_step, 0, n, *buffers, no_samples, False)
    choice = W.call(search.weigh, 0, n, *buffers, kept)
    assert n > 1 and W.state[S.G_SEARCH_DECISIONS] == 1  # the search's decision, counted once
    return kept, choice


@pytest.mark.slow
def test_unseen_cards_and_future_dice_do_not_change_a_search_reading_the_learned_value():
    """Its kept candidate and its playouts' values come from deals of its own (module
    docstring of turns), never from the real hidden cards or future draws."""
    plain = first_search_decision()

    def reordered_and_other_futures(W):
        hidden_cards_reordered(W)
        other_futures(W)

    assert first_search_decision(edit=reordered_and_other_futures) == plain
    assert first_search_decision([-w for w in WEIGHTS])[0] != plain[0]  # control: the weights


def test_the_search_reading_the_learned_value_plays_todays_search_without_weights():
    """No weights: the very same games as today's search; with them, other games."""
    seats = ("search_learned", "rusher_tuned", "search_learned", "hunter_tuned")
    today = play(search_rules(None), ("search", "rusher_tuned", "search", "hunter_tuned"), n=8)
    unweighted = play(search_rules(None), seats, n=8)
    for table in ("games", "players"):
        for column, values in today[table].items():
            mine = unweighted[table][column]
            pairs = (v[0] if isinstance(v, tuple) else v for v in (mine, values))  # codes
            assert np.array_equal(*pairs), column
    weighted = play(search_rules(), seats, n=8)
    assert not np.array_equal(weighted["players"]["score"], today["players"]["score"])


def test_the_learned_player_draws_only_from_its_own_stream_and_its_policys():
    """Besides its rollout policy's own pick (the POLICY stream, as a scripted seat draws), the
    real game's streams are untouched: the options are taken on the copy."""
    from simulator.core.rng import POLICY

    valued = first_learned_decision()[1]
    plain = first_learned_decision(weights=[0.0] * len(WEIGHTS))[1]
    others = [s for s in range(N_STREAMS) if s not in (SEARCH_STREAM, POLICY)]
    assert (valued[others] == plain[others]).all()


def play(rules, seats, n=30, seed=11):
    params = GAME.prepare(rules, 4)
    policy_ids = np.array([GAME.policy(s, rules).id for s in seats], np.int8)
    seeds = game_seeds(seed, np.arange(n, dtype=np.uint64))
    return GAME.play(params, seeds, np.tile(policy_ids, (n, 1)))


def test_a_learned_seat_without_weights_plays_its_rollout_policy():
    """No weights: every step is its rollout policy's, the very same games."""
    rules = learned_rules(weights=None)
    learned = play(rules, ("learned", "hunter_tuned", "learned", "supporter_tuned"))
    scripted = play(rules, ("rusher_tuned", "hunter_tuned", "rusher_tuned", "supporter_tuned"))
    for table in ("games", "players"):
        for column, values in scripted[table].items():
            if column != "search_decisions":  # a tuple: the codes and their categories
                mine = learned[table][column]
                assert np.array_equal(
                    *(v[0] if isinstance(v, tuple) else v for v in (mine, values))
                )


def test_the_learned_seats_play_other_games_with_weights():
    rules = learned_rules()
    played = play(rules, ("learned", "hunter_tuned", "learned", "supporter_tuned"))
    assert played["games"]["search_decisions"].sum() > 0  # valued decisions counted


@pytest.mark.parametrize("game", LEARNED_GAMES, ids=lambda g: g.name)
@pytest.mark.slow
def test_the_same_seed_fits_the_same_weights(game):
    """Expert iteration on a tiny budget, twice with seed 1, once with seed 2; and once with
    seed 1 valuing more candidates at play than its teacher: the same weights."""
    rules = game.rules()
    first = learn.fit(game, rules, 4, TINY, seed=1)
    again = learn.fit(game, rules, 4, TINY, seed=1)
    other = learn.fit(game, rules, 4, TINY, seed=2)
    wider = learn.fit(game, rules, 4, replace(TINY, candidates=3), seed=1)
    assert first.knob_set == again.knob_set and first.iterations == again.iterations
    assert first.knob_set["top_k"] == TINY.top_k and wider.knob_set["top_k"] == 3
    assert wider.knob_set["weights"] == first.knob_set["weights"]
    assert wider.iterations == first.iterations
    assert first.knob_set["weights"] != other.knob_set["weights"]
    assert len(first.knob_set["weights"]) == weights_length(game, TINY)
    search = knob_values(rules, game.policy_set(rules), game.policy("search", rules))
    assert first.knob_set["rollout_policy"] == search["rollout_policy"]
    assert [f["iteration"] for f in first.iterations] == [0, 1]
    # the second iteration fits on both iterations' positions
    assert first.iterations[1]["decisions"] > first.iterations[0]["decisions"] > 0


def test_the_network_fit_recovers_a_known_nonlinear_value():
    """Known answer: candidate values made by a known network of tanh units (plus a decision's
    own offset, which centring removes) are told apart by the network fitted on them, on
    decisions it was not fitted on, where the linear fit misses much of them."""
    rng = np.random.default_rng(4)
    n_features = 5
    _, (w1, b1, w2, _) = network(n_features, 3, rng)
    columns = ("game", "decision", "value", *[f"f{i}" for i in range(n_features)])

    def decisions(first, count):
        x = rng.normal(size=(count, 3, n_features))
        y = np.tanh(x @ w1 + b1) @ w2 + rng.normal(size=(count, 1))
        return np.array([[0, first + d, y[d, i], *x[d, i]] for d in range(count) for i in range(3)])

    fitted, held = decisions(0, 3000), decisions(3000, 1000)
    weights, figures = learn.fit_network(fitted, columns, n_features)
    hidden = int(weights[0])
    assert len(weights) == network_length(n_features, hidden) and hidden == learn.HIDDEN
    linear, linear_figures = learn.fit_weights(fitted, columns, n_features)
    x = held[:, 3:]
    first = 1 + n_features * hidden
    value = np.tanh(x @ weights[1:first].reshape(hidden, n_features).T + weights[first:][:hidden])
    value = value @ weights[first + hidden : first + 2 * hidden]
    check = learn.Decisions(held, columns, n_features)
    assert check.r2(value) > 0.95 and figures["r2"] > 0.95
    assert check.r2(x @ linear) < 0.8 and linear_figures["r2"] < 0.8


def weights_length(game, budget):
    """How many weights the game's fit on ``budget`` gives its learned player."""
    n = len(game.learned_features)
    linear = learn.value_model(game, budget) == LINEAR
    return n if linear else network_length(n, learn.HIDDEN)


def test_the_fit_recovers_known_weights():
    """Known answer: candidate values made from features by known weights (plus a decision's
    own offset, which centring removes) give those weights back."""
    rng = np.random.default_rng(3)
    n_features, truth = 4, np.array([0.5, -0.2, 0.0, 1.0])
    columns = ("game", "decision", "value", *[f"f{i}" for i in range(n_features)])
    rows = []
    for decision in range(3000):
        x = rng.normal(size=(3, n_features))
        y = x @ truth + rng.normal() + 0.01 * rng.normal(size=3)
        rows += [[0, decision, y[i], *x[i]] for i in range(3)]
    weights, figures = learn.fit_weights(np.array(rows), columns, n_features)
    assert np.allclose(weights, truth, atol=0.01)
    assert figures["decisions"] == 3000 and figures["r2"] > 0.99


@pytest.mark.parametrize("game", LEARNED_GAMES, ids=lambda g: g.name)
def test_the_shipped_weights_match_every_rules_the_questions_and_the_study_play(game):
    """The package's learned player of the printed rules at each player count the study plays,
    and of every variant the ask questions play, is used while its key matches: after an
    engine version bump or a rules.toml change, `make learned` ships them again."""
    for n_players, rules_list in shipped.learned_rules(game).items():
        budget = learn.default_budget(game, n_players)
        for rules in rules_list:
            key = learn.cache_key(game, rules, n_players, budget, learn.LEARN_SEED)
            found = learn.shipped_entry(game, key)
            path = learn.shipped_path(game, n_players)
            assert found is not None, f"{path} is missing {key['rules_digest']}: make learned"
            assert len(found.knob_set["weights"]) == weights_length(game, budget)
            assert found.knob_set["top_k"] == (budget.candidates or budget.top_k)
            assert learn.learned(game, rules, n_players).source == "shipped"
    printed = shipped.learned_rules(game)
    assert all(game.rules() in printed[n] for n in game.study.player_counts)


def test_the_learned_rung_seats_a_learned_team_in_the_tuned_field():
    """`--field learned`: a learned team against the tuned field, its weights the shipped
    ones (nothing fitted)."""
    players = Ladder(GAME, 4).players(GAME.rules(), Field("learned"))
    assert players.lineup == ("learned", "rusher_tuned", "learned", "hunter_tuned")
    assert "weights" in players.rules["policies"]["learned"]
    named = Ladder(GAME, 4).players(GAME.rules(), Field("scripted"), ["learned", "rusher"] * 2)
    assert named.rules["policies"]["learned"] == players.rules["policies"]["learned"]


def test_weights_the_rules_give_are_played_as_given():
    """`--set policies.learned.weights=[...]`: no fit, no shipped weights in their place."""
    rules = learned_rules()
    assert learn.with_learned(GAME, rules, 4) is rules
