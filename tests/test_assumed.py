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


# ---- every assumed value is a rules key ------------------------------------------------------


@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_assumed_key_is_accepted_by_set_by_index_and_by_name(name):
    """Setting each assumed key to a changed value changes that value and nothing else."""
    from simulator.core.rules import effective_rules, lookup, toml_value

    game = get_game(name)
    defaults = game.default_rules()
    for item in assumed_keys(game.rules_path).values():
        value = lookup(defaults, item.key)
        changed = other_value(value)
        for key in {item.key, item.label}:
            rules = effective_rules(defaults, sets=(f"{key}={toml_value(changed)}",))
            assert lookup(rules, item.key) == changed, key
            assert changed_keys(defaults, rules) == [item.key], key


def other_value(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    return [other_value(value[0]), *value[1:]]


def test_an_entry_is_named_by_its_name_or_index_and_patched_from_a_rules_file(tmp_path):
    from simulator.core.rules import effective_rules, lookup

    defaults = get_game("karnaxis").default_rules()
    by_name = effective_rules(defaults, sets=("characters[Nadia].ability_value=7000",))
    by_index = effective_rules(defaults, sets=("characters[11].ability_value=7000",))
    assert by_name == by_index and lookup(by_name, "characters[11].ability_value") == 7000
    assert changed_keys(defaults, by_name) == ["characters[11].ability_value"]
    spaced = effective_rules(defaults, sets=("jobs[Tax Collector].salary_usd=40000",))
    assert lookup(spaced, "jobs[7].salary_usd") == 40000
    one_number = effective_rules(defaults, sets=("retirement.payout_usd[2]=19000",))
    assert one_number["retirement"]["payout_usd"][:4] == [0, 8000, 19000, 30000]
    patch = tmp_path / "cards.toml"
    patch.write_text(
        "[characters.Nadia]\nability_value = 7000\n\n[characters.0]\nkarnaxis_value = 9\n"
    )
    patched = effective_rules(defaults, files=(str(patch),))
    assert sorted(changed_keys(defaults, patched)) == [
        "characters[0].karnaxis_value",
        "characters[11].ability_value",
    ]


@pytest.mark.parametrize(
    "assignment, message",
    [
        (
            "characters[Nadja].ability_value=1",
            "rules key 'characters[Nadja].ability_value': characters has no entry named 'Nadja' "
            "(entries: Wes, Josh,",
        ),
        (
            "characters[18].ability_value=1",
            "rules key 'characters[18].ability_value': characters has 18 entries (indices 0..17)",
        ),
        ("characters[Nadia].abilty=1", "rules key 'characters[Nadia].abilty': unknown key"),
        ("characters[Nadia.ability=1", "rules key 'characters[Nadia.ability': an entry is named"),
        (
            "characters[Nadia].ability_value=1.5",
            "rules key 'characters[Nadia].ability_value': expected an integer",
        ),
    ],
)
def test_a_bad_entry_key_is_one_line_with_status_2(assignment, message):
    from click.testing import CliRunner

    from simulator.cli import cli

    result = CliRunner().invoke(cli, ["rules", "karnaxis", "--set", assignment])
    assert result.exit_code == 2
    assert message in result.output and len(result.output.strip().splitlines()) == 1


def test_entries_without_names_take_an_index():
    from simulator.core.rules import RulesError, effective_rules, lookup

    defaults = get_game("karmaggan").default_rules()
    rules = effective_rules(defaults, sets=('objects[3].combat="attack"', "objects[3].count=9"))
    assert lookup(rules, "objects[3]") == {"effect": "tumult", "combat": "attack", "count": 9}
    with pytest.raises(RulesError, match="the entries of objects have no names; give an index"):
        effective_rules(defaults, sets=("objects[sword].count=1",))
