"""The Karnaxis `search` player (simulator/games/karnaxis/search.py): it sees only what its seat
can know, falls back to its rollout policy without a budget, is deterministic, and the replay
shows the values it weighed.  Budgets are tiny: these test the mechanism, not the strength."""

import numpy as np
import polars as pl
import pytest
from karnaxis_world import GAME, POLICY, plain_python, rules_with

from simulator.core.rng import N_STREAMS, game_seeds
from simulator.core.rng import SEARCH as SEARCH_STREAM
from simulator.core.trace import new_trace
from simulator.games.karnaxis import decide, engine, search, turns
from simulator.games.karnaxis import state as S
from simulator.run.plan import Plan, Variant
from simulator.run.runner import execute

SEARCH = POLICY["search"]
TYCOON = POLICY["tycoon"]
RULES = plain_python((decide, engine, search, turns))  # plain Python: no compiling per test


def tiny(**sets):
    """Default rules with a tiny search budget (to the end of year 1 from Game Setup)."""
    budget = dict(
        policies__search__rollouts=6, policies__search__top_k=3, policies__search__horizon=1
    )
    return rules_with(**{**budget, **sets})


def first_search_decision(rules, edit=None, seed=3):
    """The character choice of seat 0 (a search seat) at Game Setup: its chosen character and
    the trace rows of the values it weighed.  ``edit(state, rules_array)`` changes the dealt
    game before the search."""
    params = GAME.prepare(rules, 4)
    r, knobs = params[0], params[1]
    state = np.zeros(r[S.CFG_STATE_SIZE], np.int64)
    rng = np.zeros(N_STREAMS, np.uint64)
    RULES["new_game"](
        state, r, knobs, rng, np.uint64(seed), np.array([SEARCH, TYCOON, TYCOON, TYCOON], np.int8)
    )
    if edit:
        edit(state, r)
    work, work_rng, values = RULES["search_buffers"](r)
    trace = new_trace(200)
    RULES["search_step"](state, r, knobs, rng, trace, work, work_rng, values)
    rows = trace[: state[S.TRACE_N]]
    weighed = rows[np.isin(rows[:, 0], (S.EV_SEARCH, S.EV_SEARCH_OPTION))]
    return state[S.row(0) + S.CHARACTER], weighed.tolist(), rng[SEARCH_STREAM]


def reverse(state, at, n):
    state[at : at + n] = state[at : at + n][::-1].copy()


def test_unseen_card_orders_do_not_change_the_search():
    """Rulebook, Game Setup: the other seats' dealt characters and the shuffled event and
    Karnaxis decks are hidden from seat 0; reordering them leaves its decision and every value
    it weighed exactly as they were."""
    rules = tiny()

    def hide_differently(state, r):
        dealt = r[S.CFG_DEALT]
        chars = S.owners(r, S.DECK_CHARS)
        reverse(state, chars + dealt, r[S.CFG_N_CHARS] - dealt)  # everything not dealt to seat 0
        reverse(state, S.owners(r, S.DECK_EVENTS), r[S.CFG_N_EVENTS])
        reverse(state, S.owners(r, S.DECK_CARDS), r[S.CFG_N_KCARDS])

    plain = first_search_decision(rules)
    reordered = first_search_decision(rules, hide_differently)
    assert plain[1], "the search weighed no options"
    assert reordered == plain


def test_the_seats_own_cards_do_change_the_search():
    """Control: seat 0 sees its own dealt characters, so changing them changes what it weighs."""
    rules = tiny()

    def deal_other_cards(state, r):
        dealt = r[S.CFG_DEALT]
        chars = S.owners(r, S.DECK_CHARS)
        mine = state[chars : chars + dealt].copy()
        state[chars : chars + dealt] = state[chars + dealt : chars + 2 * dealt]
        state[chars + dealt : chars + 2 * dealt] = mine

    plain = first_search_decision(rules)
    swapped = first_search_decision(rules, deal_other_cards)
    assert swapped[1] != plain[1]


def test_the_search_draws_only_from_its_own_stream():
    """The real game's search stream advances by one seed per rollout (6 here)."""
    _, weighed, after = first_search_decision(tiny())
    _, _, untouched = first_search_decision(tiny(policies__search__rollouts=0))
    assert weighed and after != untouched


# ---------------------------------------------------------------- whole games (compiled)


def same(a, b):
    """Equal columns; a category column is (codes, labels)."""
    if isinstance(a, tuple):
        return np.array_equal(a[0], b[0]) and list(a[1]) == list(b[1])
    return np.array_equal(a, b)


def play(rules, seats, n=6, seed=4):
    params = GAME.prepare(rules, len(seats))
    policy = {p.name: p.id for p in GAME.policy_set(rules)}  # with the rules' knob sets
    ids = np.tile(np.array([policy[s] for s in seats], np.int8), (n, 1))
    return GAME.play(params, game_seeds(seed, np.arange(n)), ids)


@pytest.mark.parametrize(
    "budget", [dict(policies__search__rollouts=0), dict(policies__search__top_k=1)]
)
def test_without_a_budget_search_plays_exactly_its_rollout_policy(budget):
    """A search seat with no rollouts or a single candidate plays as its rollout policy does."""
    rules = tiny(**budget)
    rollout = rules["policies"]["search"]["rollout_policy"]
    searched = play(rules, ["search", "tycoon", "scholar", "cautious"])
    scripted = play(rules, [rollout, "tycoon", "scholar", "cautious"])
    for table in ("players", "years"):
        for column, values in scripted[table].items():
            assert same(searched[table][column], values), (table, column)
    assert (searched["games"]["search_decisions"] == 0).all()


def test_search_decisions_are_counted_and_the_game_is_reproducible():
    rules = tiny(policies__search__rollouts=3, policies__search__top_k=2)
    seats = ["search", "tycoon", "scholar", "cautious"]
    first, again = play(rules, seats, n=3), play(rules, seats, n=3)
    assert (first["games"]["search_decisions"] > 0).all()
    for table in ("games", "players", "years"):
        for column, values in first[table].items():
            assert same(again[table][column], values), (table, column)
    assert (play(rules, ["scholar"] * 4, n=3)["games"]["search_decisions"] == 0).all()


def test_replay_shows_the_values_the_search_weighed():
    rules = tiny(policies__search__rollouts=3, policies__search__top_k=2)
    params = GAME.prepare(rules, 3)
    lines = GAME.replay(params, 5, np.array([SEARCH, TYCOON, TYCOON], np.int8), rules)
    weighs = [i for i, line in enumerate(lines) if "search weighs" in line]
    assert weighs and "mean value" in lines[weighs[0] + 1] and "over " in lines[weighs[0] + 1]
    assert any("search weighs" in line and "action options" in line for line in lines)
    assert "final seat 2" in "\n".join(lines)


@pytest.mark.slow
def test_a_dataset_with_search_seats_is_the_same_on_one_or_two_jobs(tmp_path):
    rules = tiny(policies__search__rollouts=2, policies__search__top_k=2)
    seats = ["search", "tycoon", "scholar", "cautious"]
    frames = []
    for jobs in (1, 2):
        plan = Plan(
            game="karnaxis",
            n_games=4,
            n_players=4,
            seats=seats,
            seed=9,
            chunk_size=2,
            variants=[Variant("base", rules)],
        )
        execute(plan, tmp_path / str(jobs), jobs=jobs, progress=False)
        frames.append(
            {
                t: pl.read_parquet(tmp_path / str(jobs) / t).sort(keys)
                for t, keys in (("games", ["game_id"]), ("players", ["game_id", "seat"]))
            }
        )
    assert frames[0]["games"]["search_decisions"].min() > 0
    for table in ("games", "players"):
        assert frames[0][table].equals(frames[1][table])
