"""Karmaggän rules checks: the bounds of what the kernel's arrays and the narrow (int16) output
columns can hold.  Each refusal is one line naming the key; nothing here compiles."""

import copy

import numpy as np
import pytest

from simulator.core.errors import UserError
from simulator.core.game import get_game
from simulator.core.rules import RulesError
from simulator.games.karmaggan import checks
from simulator.games.karmaggan import game as K
from simulator.games.karmaggan import state as S


@pytest.fixture(scope="module")
def rules():
    return get_game("karmaggan").rules()


def refused(rules, key, edit):
    changed = copy.deepcopy(rules)
    edit(changed)
    with pytest.raises(RulesError) as error:
        checks.check(changed)
    assert error.value.key == key and "\n" not in str(error.value)


def test_the_default_rules_pass(rules):
    checks.check(rules)


# (key refused, path of the value in the rules, value just past the bound, what the bound protects)
ONE_VALUE = [
    ("game.round_cap", ("game", "round_cap"), checks.MAX_ROUNDS + 1),  # the preallocated timeline
    ("setup.bank_coins", ("setup", "bank_coins"), checks.MAX_COINS + 1),  # every coin count (int16)
    ("setup.blood_tiles", ("setup", "blood_tiles", 0), checks.MAX_COINS + 1),
    ("setup.medallion_supply", ("setup", "medallion_supply"), checks.MAX_COINS + 1),
    ("temple_deck.arrows", ("temple_deck", "arrows"), 10_000_000),  # the deck built card by card
    ("objects[3].count", ("objects", 3, "count"), 10_000_000),
    ("turn.hand_max", ("turn", "hand_max"), S.MAX_PIECES + 1),  # the hands array
    ("turn.spawn_max", ("turn", "spawn_max"), S.MAX_PIECES + 1),  # the figures array
    ("turn.tumult_cards", ("turn", "tumult_cards"), S.MAX_PIECES + 1),
    ("turn.ram_cards", ("turn", "ram_cards"), S.MAX_PIECES + 1),
    ("combat.rounds", ("combat", "rounds"), S.MAX_PIECES + 1),
]


@pytest.mark.parametrize("key, path, value", ONE_VALUE)
def test_a_value_past_its_bound_is_refused(rules, key, path, value):
    def edit(r):
        *where, last = path
        for step in where:
            r = r[step]
        r[last] = value

    refused(rules, key, edit)


def test_the_temple_deck_size_is_bounded(rules):
    def edit(r):
        for name in r["temple_deck"]:
            r["temple_deck"][name] = checks.MAX_DECK // 2

    refused(rules, "temple_deck", edit)


def test_the_object_deck_size_is_bounded(rules):
    def edit(r):
        for entry in r["objects"]:
            entry["count"] = checks.MAX_DECK // 10

    refused(rules, "objects", edit)


def test_the_board_size_is_bounded(rules):
    """The state holds S.MAX_NODES nodes: ring cells, the Centre and one jungle node a hatch."""
    cols, hatches = rules["board"]["columns"], len(rules["board"]["hatch_columns"])
    rows = (S.MAX_NODES - 1 - hatches) // cols + 1  # one row more than fits

    def edit(r):
        r["board"]["ring_rows"] = [rows - 3, 1, 1, 1]

    refused(rules, "board", edit)


def test_a_count_beyond_int16_is_refused_not_wrapped():
    fits = np.array([[-32768, 32767]], np.int64)
    assert K.int16_column(fits, "combats_won").tolist() == [[-32768, 32767]]
    with pytest.raises(UserError, match="'combats_won'"):
        K.int16_column(np.array([[0, 40_000]], np.int64), "combats_won")
