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


# ---- balsim assumed and its template ----------------------------------------------------------


def invoke(*args):
    from click.testing import CliRunner

    from simulator.cli import cli

    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_template_loads_back_unchanged_as_the_defaults(name, tmp_path):
    from simulator.core.assumed import template
    from simulator.core.rules import effective_rules

    game = get_game(name)
    path = tmp_path / "real.toml"
    result = invoke("assumed", name, "--template", path)
    assert result.exit_code == 0, result.output
    defaults = game.default_rules()
    assert effective_rules(defaults, files=(str(path),)) == defaults
    text = path.read_text()
    assert f"wrote {path}: {len(assumed_keys(game.rules_path))} ASSUMED values" in result.output
    assert text == template(game.rules_path, defaults, name)
    for item in assumed_keys(game.rules_path).values():  # every value is in it, with its why
        assert item.reason.split()[0] in text


def test_a_filled_template_replaces_the_invented_card(tmp_path):
    """A designer writes the template, enters Nadia's real ability value and runs with it."""
    from simulator.core.rules import effective_rules, lookup

    path = tmp_path / "real.toml"
    assert invoke("assumed", "karnaxis", "--template", path).exit_code == 0
    text = path.read_text()
    card = text[text.index("\n[characters.Nadia]\n") :]
    edited = card.replace("ability_value = 5000", "ability_value = 7000", 1)
    path.write_text(text.replace(card, edited))
    defaults = get_game("karnaxis").default_rules()
    rules = effective_rules(defaults, files=(str(path),))
    assert changed_keys(defaults, rules) == ["characters[11].ability_value"]
    assert lookup(rules, "characters[Nadia].ability_value") == 7000
    listed = invoke("assumed", "karnaxis", "--rules", path, "--key", "characters[Nadia]")
    assert "characters[Nadia].ability_value = 7000  (replaced)" in listed.output
    assert "1 replaced by the rules given" in listed.output
    again = invoke("assumed", "karnaxis", "--template", path)
    assert again.exit_code == 2 and again.output == (
        f"Error: --template {path} exists; use --force to replace it\n"
    )


def test_the_listing_gives_each_value_its_reason_and_the_rules_that_use_it():
    result = invoke("assumed", "karnaxis", "--key", "business.income_max_usd", "--key", "loans")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "karnaxis: 5 ASSUMED values" in out
    block = out[out.index("business.income_max_usd = 399000") :]
    assert "why: the last circle (300k) plus a $99,000 track" in block
    assert "used by: year_end.pay_income: Year End Review, step 1" in block
    notices = out[out.index("loans.notices_below_cap = true") :]
    assert "used by: year_end.repay_loans: Year Chart + Loan Odds 'n Ends" in notices
    layouts = invoke("assumed", "karmaggan", "--key", "board.start_points.4").output
    assert "used by: engine.setup_game: Setup / Setup, Continued" in layouts
    assert invoke("assumed", "ekonos", "--key", "nope").output == (
        "Error: no ASSUMED ekonos value lies under nope\n"
    )


def test_findings_name_the_values_they_rest_on_or_depend_on():
    from simulator.report.assumed import findings_of
    from simulator.report.flags import Flag, Sensitivity

    keys = assumed_keys(get_game("karnaxis").rules_path)
    nadia = assumed_under(keys, ["characters[Nadia]"])
    what_if = Flag(
        "karnaxis", 4, "dominant character", "Nadia", 1, 1, "Nadia wins", "", "w", "", ""
    )
    what_if.assumed = tuple(nadia)
    tycoon = Flag("karnaxis", 4, "dominant policy", "tycoon", 1, 1, "tycoon wins", "", "w", "", "")
    tycoon.sensitivity = Sensitivity(
        keys=("business.income_max_usd", "characters[Gus]"),
        depends=("business.income_max_usd (+10.5 points)", "characters[Gus] (+6.0 points)"),
    )
    found = findings_of([what_if, tycoon], [k.label for k in keys.values()])
    assert found["characters[Nadia].ability"] == ["w: Nadia wins (a what-if: rests on it)"]
    assert found["business.income_max_usd"] == [
        "w: tycoon wins (depends on business.income_max_usd (+10.5 points))"
    ]
    gus = {k for k, v in found.items() if any("characters[Gus]" in f for f in v)}
    assert gus == {k.label for k in assumed_under(keys, ["characters[Gus]"])}  # each of its keys
    assert "loans.unit_usd" not in found


def test_the_listing_reads_the_findings_of_a_dataset(small_datasets):
    result = invoke(
        "assumed", "karnaxis", "--key", "loans", "--dataset", small_datasets["karnaxis"]
    )
    assert result.exit_code == 0, result.output
    assert "karnaxis: 4 ASSUMED values" in result.output
    wrong = invoke("assumed", "ekonos", "--dataset", small_datasets["karnaxis"])
    assert wrong.exit_code == 2 and "holds karnaxis games, not ekonos" in wrong.output


# ---- what-ifs on assumed data ------------------------------------------------------------------


def test_a_finding_about_an_invented_card_is_a_what_if_never_a_top_flag():
    from simulator.report.flag_list import flags_html
    from simulator.report.flags import Flag

    keys = assumed_keys(get_game("karnaxis").rules_path)

    def flag(kind, subject, effect, subjects=()):
        f = Flag(
            "karnaxis",
            4,
            kind,
            subject,
            effect,
            effect,
            f"{kind} {subject}",
            "",
            "w",
            "a",
            "c",
            games=4_000,
        )
        f.assumed = tuple(assumed_under(keys, subjects))
        return f

    flags = [flag("dominant character", "Nadia", 9.0, ["characters[Nadia]"])]
    flags += [flag("dominant policy", f"p{k}", 1.0 + k) for k in range(6)]
    page = flags_html(flags)
    top, what_ifs = page.split("<h3>What-ifs on assumed data</h3>")
    assert "Nadia" not in top and top.count("<li>") == 6 and "<details>" in top
    assert what_ifs.count("<li>") == 1 and "dominant character Nadia" in what_ifs
    assert (
        "What-if on ASSUMED data: it rests on characters[Nadia].attributes, "
        "characters[Nadia].ability" in what_ifs
    )
    assert (
        "entering the real card characters[Nadia] (balsim assumed karnaxis --template" in what_ifs
    )
    # Wes is the printed card, but its numbers are not: a what-if too, resting on them only
    wes = flags_html([flag("dominant character", "Wes", 2.0, ["characters[Wes]"])])
    assert "it rests on characters[Wes].attributes (the example card" in wes


def test_the_extra_player_of_an_odd_count_is_named_in_the_team_finding():
    """Karmaggän teams at 3 players: which team gets the extra player is assumed, so a team
    finding there is a what-if on game.extra_player; at 4 players it is about the printed rules."""
    import polars as pl

    from simulator.report.flags import Rules

    class Data:
        game, path, variants, n_games = "karmaggan", __import__("pathlib").Path("k"), [], 9_000
        engine = get_game("karmaggan")
        rules = engine.default_rules()

        def __init__(self, n):
            self.n_players, self.label = n, f"karmaggan {n}"

    res = {
        "stratified_side": pl.DataFrame(
            {
                "level": ["starting"],
                "adjusted_rate": [0.8],
                "adjusted_rate_lo": [0.78],
                "adjusted_rate_hi": [0.82],
                "n": [9_000],
            }
        ),
        "win_rate_side": pl.DataFrame({"fair_share": [0.5]}),
    }
    (odd,) = Rules(0, Data(3), res).flags()
    (even,) = Rules(0, Data(4), res).flags()
    assert [k.key for k in odd.assumed] == ["game.extra_player"] and even.assumed == ()


def test_sweep_and_fit_take_a_card_key(tmp_path):
    """A sweep varies one card's value; fit's overlay of a card's value patches that card."""
    import tomllib

    from simulator.core.rules import effective_rules, lookup, nest_all, to_toml
    from simulator.experiments.fit import key_range
    from simulator.run.sweep import grid_variants

    game = get_game("karnaxis")
    base = game.rules()
    variants = grid_variants(game, base, ("characters[Nadia].ability_value=5000,9000",), ())
    assert [lookup(v.rules, "characters[11].ability_value") for v in variants] == [5000, 9000]
    assert changed_keys(base, variants[1].rules) == ["characters[11].ability_value"]
    card = key_range(game, base, "characters[Nadia].karnaxis_value")
    assert card.integer and card.low < 2 < card.high
    overlay = tmp_path / "fit.toml"
    overlay.write_text(to_toml(nest_all({"characters[Nadia].karnaxis_value": 3})))
    assert tomllib.loads(overlay.read_text()) == {"characters": {"Nadia": {"karnaxis_value": 3}}}
    fitted = effective_rules(game.default_rules(), files=(str(overlay),))
    assert changed_keys(game.default_rules(), fitted) == ["characters[11].karnaxis_value"]
