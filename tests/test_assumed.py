"""ASSUMED keys are derived from the rules files' marks, never listed by hand."""

from __future__ import annotations

import pytest
import tomllib

from simulator.core.assumed import assumed_keys, assumed_under, changed_keys, marked_keys, value_at
from simulator.core.game import GAME_NAMES, get_game

RULES = '''
# File header. ASSUMED in a block above a table header describes the section: nothing marked.

[setup]
years = 12                  # printed
start = 0                   # ASSUMED: the rulebook deals money per turn
# the next key is printed
printed = 3

[loans]
# ASSUMED: interest is not printed
interest_pct = 10
cap = 200000

payout = [0, 8000,
          18000]            # ASSUMED: cut off in the scan
text = "a # is not a comment"  # printed
layout = """
#..# ASSUMED inside a string is not a mark
"""
after_string = 1

[board]   # ASSUMED: the layout is not printed
rows = 4
"quoted key" = 2

[[characters]]
name = "Wes"
ability = "growth"          # printed

[[characters]]
name = "Nadia"
attributes = [3, 5, 2, 2]   # ASSUMED: reconstructed
'''


def test_marks_on_the_line_above_and_on_the_table_header():
    assert dict(marked_keys(RULES)) == {
        "setup.start": "the rulebook deals money per turn",
        "loans.interest_pct": "interest is not printed",
        "loans.payout": "cut off in the scan",
        "board.rows": "the layout is not printed",
        "board.quoted key": "the layout is not printed",
        "characters[1].attributes": "reconstructed",
    }


def test_labels_name_array_entries_and_prefixes_select_a_subject(tmp_path):
    path = tmp_path / "rules.toml"
    path.write_text(RULES)
    keys = assumed_keys(path)
    assert keys["characters[1].attributes"].label == "characters[Nadia].attributes"
    names = [k.key for k in assumed_under(keys, ["characters[Nadia]", "loans"])]
    assert names == ["loans.interest_pct", "loans.payout", "characters[1].attributes"]
    assert assumed_under(keys, ["characters[Wes]", "setup.years"]) == []
    # a designer who replaced the assumed value no longer rests on it
    defaults = tomllib.loads(RULES)
    replaced = tomllib.loads(RULES.replace("interest_pct = 10", "interest_pct = 7"))
    assert [k.key for k in assumed_under(keys, ["loans"], replaced, defaults)] == ["loans.payout"]


@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_assumed_key_of_a_game_exists_in_its_rules(name):
    game = get_game(name)
    keys = assumed_keys(game.rules_path)
    assert keys, f"{name} marks its assumed values"
    rules = game.default_rules()
    for key in keys:
        assert value_at(rules, key) is not None, key


def test_karnaxis_assumed_character_cards_are_tracked():
    keys = assumed_keys(get_game("karnaxis").rules_path)
    nadia = {k.label for k in assumed_under(keys, ["characters[Nadia]"])}
    assert "characters[Nadia].karnaxis" in nadia
    assert assumed_under(keys, ["loans.cap_usd"]) == []  # printed in the rulebook


def test_changed_keys_name_what_a_variant_overrides():
    base = tomllib.loads(RULES)
    other = tomllib.loads(
        RULES.replace("start = 0", "start = 12").replace("[3, 5, 2, 2]", "[3, 4, 2, 2]")
    )
    assert changed_keys(base, other) == ["setup.start", "characters[1].attributes"]
    assert changed_keys(base, base) == []
