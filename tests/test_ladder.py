"""The ladder of player fields: --field parsed and recorded, rungs mapped onto line-ups, the
adapted field computed, cached and shipped, errors."""

import json

import polars as pl
import pytest
from click.testing import CliRunner

from simulator.cli import cli
from simulator.core.errors import UserError
from simulator.core.game import get_game
from simulator.experiments import adapt as adapt_mod
from simulator.experiments.adapt import Budget, Request, adapted, starting_sets
from simulator.experiments.adapt_cache import cache_key, lookup, shipped_path
from simulator.experiments.field import Field, Ladder, parse_fields
from simulator.experiments.keys import with_values
from simulator.experiments.lab import Lab

EKONOS = get_game("ekonos")
# cash counts three points a M.U.: holding cash beats buying at a loss, so the best responses
# of the buying policies move (with the tuned knobs, value_investor pays up to 1.4 M.U. over
# value and cash_hoarder 0.8); a few games per tune suffice to see it
CASH_X3 = {"scoring.per_mu": 3}
SMALL = Budget(12_000, rounds=1)


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("BALSIM_CACHE_DIR", str(tmp_path / "cache"))


def test_a_list_of_rungs_is_one_field_each_any_other_list_is_one_field_of_policies():
    assert parse_fields(("scripted,tuned", "adapted", "tuned")) == [
        Field("scripted"),
        Field("tuned"),
        Field("adapted"),
    ]
    # search alone is the rung; beside a policy it is the search policy, as tune took it
    assert parse_fields(("search",)) == [Field("search")]
    assert parse_fields(("search,value_investor",)) == [Field(None, ("search", "value_investor"))]
    assert parse_fields(()) == [Field("scripted")]
    with pytest.raises(UserError, match="--field needs a rung"):
        parse_fields((",",))


def test_each_rung_names_its_copy_of_the_scripted_policies():
    rules = EKONOS.rules()
    ladder = Ladder(EKONOS, 4)
    assert ladder.players(rules, Field("scripted")).lineup == (
        "president_seeker",
        "value_investor",
        "market_builder",
        "cash_hoarder",
    )
    assert ladder.players(rules, Field("tuned")).lineup == (
        "president_seeker_tuned",
        "value_investor_tuned",
        "market_builder_tuned",
        "cash_hoarder_tuned",
    )
    # named seats are mapped onto the rung; a policy that is not scripted plays itself
    seats = ["cash_hoarder", "random", "value_investor_tuned"]
    assert ladder.players(rules, Field("tuned"), seats).lineup == (
        "cash_hoarder_tuned",
        "random",
        "value_investor_tuned",
    )
    with pytest.raises(UserError, match="unknown ekonos policy 'gambler', nor a rung"):
        ladder.players(rules, Field(None, ("gambler",)))


def test_the_search_rung_is_a_search_seat_in_the_adapted_field_rolling_out_adapted_play():
    rules = EKONOS.rules()
    players = Ladder(EKONOS, 4).players(rules, Field("search"))  # shipped: plays nothing
    assert players.lineup[0] == "search"
    assert all(name.endswith("_adapted") for name in players.lineup[1:])
    rollout = players.rules["policies"]["search"]["rollout_policy"]
    assert rollout == "cash_hoarder_adapted"  # the printed rules roll out cash_hoarder_tuned


def test_a_variant_that_matters_to_players_who_adapt_moves_the_adapted_knobs():
    rules = with_values(EKONOS.rules(), CASH_X3)
    with Lab(EKONOS, jobs=1) as lab:
        (a,) = adapt_mod.adapt(lab, [Request(rules)], 4, SMALL)
    assert a.moved, a.lines()
    taken = [t for t in a.rounds[0] if t["accepted"]]
    assert taken and all(t["gain"]["low"] > 0 for t in taken)
    # a knob set moved only when its re-tuned knobs won significantly more on held-out games
    moved = {name for name in a.moved}
    assert moved == {t["policy"] for t in taken}
    for name in moved:
        tuned = rules["policies"][name.replace("_adapted", "_tuned")]
        assert any(a.knob_sets[name][k] != v for k, v in tuned.items() if k in a.knob_sets[name])


@pytest.mark.slow
def test_adapted_knobs_are_cached_and_the_same_whatever_the_jobs(tmp_path, monkeypatch):
    rules = with_values(EKONOS.rules(), CASH_X3)
    first = adapted(EKONOS, [rules], 4, SMALL, jobs=2)[0]
    assert [a.source for a in first] == ["played"] * adapt_mod.REPLICATES
    assert [a.replicate for a in first] == list(range(adapt_mod.REPLICATES))

    def no_games(*args, **kwargs):
        raise AssertionError("played games although the result is cached")

    monkeypatch.setattr(adapt_mod, "adapt", no_games)
    again = adapted(EKONOS, [rules], 4, SMALL)[0]
    assert [a.source for a in again] == ["cache"] * adapt_mod.REPLICATES
    assert [a.knob_sets for a in again] == [a.knob_sets for a in first]
    monkeypatch.undo()
    monkeypatch.setenv("BALSIM_CACHE_DIR", str(tmp_path / "other-cache"))
    one_job = adapted(EKONOS, [rules], 4, SMALL, jobs=1)[0]
    assert [a.knob_sets for a in one_job] == [a.knob_sets for a in first]


def test_each_replicate_is_an_independent_adaptation():
    """The replicates of one variant tune on other games with other CMA-ES streams: their
    rounds' held-out gains differ (one adaptation's luck is not repeated R times)."""
    rules = with_values(EKONOS.rules(), CASH_X3)
    with Lab(EKONOS, jobs=1) as lab:
        found = adapt_mod.adapt(lab, [Request(rules, r) for r in range(3)], 4, SMALL)
    gains = [[t["gain"]["value"] for t in a.rounds[0]] for a in found]
    assert gains[0] != gains[1] and gains[1] != gains[2] and gains[0] != gains[2]
    assert [a.key["replicate"] for a in found] == [0, 1, 2]
    keys = [cache_key(EKONOS, rules, 4, SMALL, 1, r) for r in range(3)]
    assert [a.key for a in found] == keys and len({str(k) for k in keys}) == 3


def test_the_cache_key_holds_the_engine_version_the_rules_the_player_count_and_replicate():
    rules = EKONOS.rules()
    key = cache_key(EKONOS, rules, 4, SMALL, 1)
    assert key["engine_version"] == EKONOS.engine_version and key["replicate"] == 0
    assert cache_key(EKONOS, with_values(rules, CASH_X3), 4, SMALL, 1) != key
    assert cache_key(EKONOS, rules, 3, SMALL, 1) != key
    assert cache_key(EKONOS, rules, 4, Budget(24_000, 1), 1) != key
    assert cache_key(EKONOS, rules, 4, SMALL, 1, replicate=1) != key


@pytest.mark.parametrize("name", ["ekonos", "karnaxis", "karmaggan"])
def test_the_package_ships_the_adaptation_of_every_variant_the_questions_and_study_play(name):
    from simulator.studies.shipped import shipped_rules

    game = get_game(name)
    budget = adapt_mod.default_budget(name)
    stale = []
    for n_players, rules_list in shipped_rules(game).items():
        for rules in rules_list:
            sets, _ = starting_sets(game, rules)
            for r in range(adapt_mod.REPLICATES):
                key = cache_key(game, rules, n_players, budget, adapt_mod.ADAPT_SEED, r)
                found = lookup(game, key, sets, rules, ("shipped",))
                if found is None:
                    stale.append(f"{n_players}p {key['rules_digest']} replicate {r}")
                else:
                    game.validate(adapt_mod.with_knob_sets(rules, found.knob_sets))
    assert not stale, (
        f"{shipped_path(game)} lacks or has stale (engine or rules changed) adaptations of "
        f"{', '.join(stale)}: run `balsim adapt {name} --ship`"
    )


def test_run_records_the_field_and_plays_each_rung_into_its_own_dataset(tmp_path):
    out = tmp_path / "run"
    result = invoke(
        "run", "ekonos", "-n", 48, "-j", 1, "-q", "--field", "scripted,tuned", "--out", out
    )
    assert result.exit_code == 0, result.output
    for rung in ("scripted", "tuned"):
        manifest = json.loads((out / rung / "manifest.json").read_text())
        assert manifest["field"] == rung
        policies = set(pl.read_parquet(out / rung / "players")["policy"])
        assert all(p.endswith("_tuned") for p in policies) == (rung == "tuned")


def test_a_field_of_policies_is_cycled_over_the_seats_and_recorded(tmp_path):
    out = tmp_path / "run"
    field = "value_investor,cash_hoarder_tuned"
    result = invoke(
        "run", "ekonos", "-p", 4, "-n", 24, "-j", 1, "-q", "--field", field, "--out", out
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["field"] == field
    assert manifest["seats"] == ["value_investor", "cash_hoarder_tuned"] * 2


def test_resume_refuses_another_field(tmp_path):
    out = tmp_path / "run"
    assert invoke("run", "ekonos", "-n", 24, "-j", 1, "-q", "--out", out).exit_code == 0
    result = invoke("run", "ekonos", "--out", out, "--resume", "--field", "tuned")
    assert result.exit_code == 2
    assert "--field tuned (dataset: scripted)" in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["run", "ekonos", "--field", "tunde"],
        ["sweep", "ekonos", "--vary", "scoring.per_mu=2", "--field", "tuned,tunde"],
        ["tune", "ekonos", "--policy", "cash_hoarder", "--field", "tunde", "--out", "x.toml"],
        ["matrix", "ekonos", "--field", "tunde"],
        ["skill", "ekonos", "--rungs", "random,tunde"],
    ],
)
def test_a_bad_rung_name_is_one_line_with_exit_status_2(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke(*args, "-q")
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1
    assert (
        "unknown ekonos policy 'tunde', nor a rung (scripted, tuned, adapted, learned, search)"
        in lines[0]
    )
    assert not any(tmp_path.iterdir())  # nothing half-written


def test_commands_that_play_one_field_refuse_several(tmp_path):
    result = invoke(
        "tune",
        "ekonos",
        "--policy",
        "cash_hoarder",
        "--field",
        "scripted,tuned",
        "--out",
        tmp_path / "t.toml",
    )
    assert result.exit_code == 2
    assert "tune plays one --field at a time, not scripted, tuned" in result.output


def test_tune_against_a_rung_faces_its_copies_of_the_other_policies(tmp_path):
    out = tmp_path / "t.toml"
    result = invoke(
        "tune", "ekonos", "--policy", "cash_hoarder", "--field", "tuned", "--budget", 1_500,
        "-p", 4, "-j", 1, "-q", "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (
        "line-up cash_hoarder_tuned, president_seeker_tuned, value_investor_tuned, "
        "market_builder_tuned" in out.read_text()
    )


def test_sensitivity_records_its_field(tmp_path):
    out = tmp_path / "sens"
    result = invoke(
        "sensitivity", "ekonos", "--keys", "setup.start_money=0:12", "--trajectories", 2, "-n", 24,
        "--field", "tuned", "-p", 4, "-j", 1, "-q", "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    record = json.loads((out / "balsim.json").read_text())
    assert record["field"] == "tuned"


def test_an_adaptation_budget_too_small_names_the_least_that_works():
    result = invoke("adapt", "ekonos", "--set", "scoring.per_mu=2", "--adapt-budget", 10)
    assert result.exit_code == 2
    # four policies, three rounds, each tune one generation of 7 candidates and its held-out
    # check (two sides) of 120 games (100 rounded up to 24 seat orders): 12 x 9 x 120
    assert result.output.strip() == (
        "Error: --adapt-budget 10 is too small to adapt 4 ekonos policies over 3 rounds: "
        "give at least 12,960 games"
    )
