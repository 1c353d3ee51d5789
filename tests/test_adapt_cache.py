"""The adapted field as data: a kept adaptation is checked like any input and adapted again
when it is not right, an unusable cache folder is one line, and a new variant starts from the
nearest adapted one (docs/ladder.md)."""

import json
import math

import pytest
from click.testing import CliRunner

from simulator.cli import cli
from simulator.core.game import get_game
from simulator.experiments import adapt as adapt_mod
from simulator.experiments import adapt_cache
from simulator.experiments.adapt import Adapting, Budget, Request, adapted, starting_sets
from simulator.experiments.adapt_cache import (
    Adaptation,
    cache_key,
    cache_path,
    changed_values,
    flat,
    lookup,
    nearest,
    write_entry,
)
from simulator.experiments.keys import with_values

EKONOS = get_game("ekonos")
SMALL = Budget(12_000, rounds=1)


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("BALSIM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(adapt_cache, "SAID", set())


def kept(rules: dict, replicate: int = 0, **knobs) -> Adaptation:
    """An adaptation of ``rules`` written to the cache without playing: the tuned sets, with
    ``knobs`` (NAME.knob -> value) changed."""
    sets, start = starting_sets(EKONOS, rules)
    for path, value in knobs.items():
        name, knob = path.split("__")
        sets[name] = {**sets[name], knob: value}
    key = cache_key(EKONOS, rules, 4, SMALL, 1, replicate)
    a = Adaptation(key, sets, start, changed=changed_values(EKONOS.default_rules(), rules))
    write_entry(cache_path(key), a)
    return a


def found(rules: dict, replicate: int = 0):
    sets, _ = starting_sets(EKONOS, rules)
    return lookup(EKONOS, cache_key(EKONOS, rules, 4, SMALL, 1, replicate), sets, rules)


def poison(path, edit) -> None:
    record = json.loads(path.read_text())
    edit(record)
    path.write_text(json.dumps(record))


def set_knob(value):
    def edit(record):
        record["knob_sets"]["value_investor_adapted"]["buy_margin"] = value

    return edit


@pytest.mark.parametrize(
    "edit, why",
    [
        (set_knob(math.nan), "value_investor_adapted.buy_margin is nan, not a finite number"),
        (set_knob("1.5"), "value_investor_adapted.buy_margin is '1.5', not a finite number"),
        (set_knob(True), "value_investor_adapted.buy_margin is True, not a finite number"),
        (set_knob(99.0), "value_investor_adapted.buy_margin is 99, outside its range"),
        (
            lambda r: r["knob_sets"]["cash_hoarder_adapted"].pop("sell_margin"),
            "cash_hoarder_adapted has other knobs than cash_hoarder's",
        ),
        (
            lambda r: r["knob_sets"]["cash_hoarder_adapted"].update(base="value_investor"),
            "cash_hoarder_adapted does not play cash_hoarder",
        ),
        (lambda r: r["knob_sets"].pop("market_builder_adapted"), "its knob sets are not those"),
        (lambda r: r["key"].update(engine_version="ekonos-0"), "its key is another"),
        (lambda r: r.update(games=-1), "its games or seconds are not counts"),
        (lambda r: r.update(format=1), "not a record of this balsim"),
    ],
)
def test_a_kept_adaptation_that_is_not_right_is_said_once_and_not_played(edit, why, capsys):
    rules = EKONOS.rules()
    a = kept(rules)
    assert found(rules).knob_sets == a.knob_sets
    poison(cache_path(a.key), edit)
    assert found(rules) is None and found(rules) is None
    err = capsys.readouterr().err
    assert err.count("\n") == 1  # once, however often it is read
    assert err.startswith(f"balsim: the adapted field in {cache_path(a.key)} is not right ({why}")
    assert err.endswith("; adapting again\n")


def test_a_damaged_file_is_adapted_again_and_replaced(monkeypatch):
    rules = with_values(EKONOS.rules(), {"scoring.per_mu": 2})
    a = kept(rules)
    cache_path(a.key).write_text('{"format": 2, "key":')  # cut short
    played = []

    def adapt(lab, requests, n_players, budget, seed):
        played.extend(requests)
        return [a]

    monkeypatch.setattr(adapt_mod, "adapt", adapt)
    (again,) = adapted(EKONOS, [rules], 4, SMALL, replicates=1)[0]
    assert [r.rules for r in played] == [rules] and again.knob_sets == a.knob_sets
    assert found(rules).knob_sets == a.knob_sets  # written whole again


def test_a_shipped_record_is_checked_like_a_cached_one(monkeypatch):
    rules = EKONOS.rules()
    a = kept(rules)
    record = a.record()
    record["knob_sets"]["value_investor_adapted"]["sell_margin"] = math.inf
    monkeypatch.setitem(
        adapt_cache.SHIPPED,
        adapt_cache.shipped_path(EKONOS),
        {adapt_cache.key_digest(a.key): record},
    )
    sets, _ = starting_sets(EKONOS, rules)
    assert lookup(EKONOS, a.key, sets, rules, ("shipped",)) is None


@pytest.mark.parametrize("where", ["file", "proc"])
def test_an_unusable_cache_folder_is_one_line_naming_it_before_any_game(where, tmp_path):
    if where == "file":
        root = tmp_path / "not-a-folder"
        root.write_text("a user's file")
    else:
        root = "/proc/balsim-cache"
    args = ["adapt", "ekonos", "--set", "scoring.per_mu=2", "--adapt-budget", "13000", "-q"]
    result = CliRunner().invoke(cli, args, env={"BALSIM_CACHE_DIR": str(root)})
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"Error: cannot keep adapted fields in {root}/adapted/ekonos (")
    assert lines[0].endswith("): set BALSIM_CACHE_DIR to a folder balsim may write")
    if where == "file":
        assert root.read_text() == "a user's file"


def test_a_new_variant_starts_from_the_nearest_adapted_one():
    """Known distances: scoring.per_mu 4 is 0.5 from 2 (|4 - 2| / 4) and 0.2 from 5
    (|4 - 5| / 5); a variant with other keys (a knob set added) or another replicate or player
    count is never a start, however near."""
    printed = EKONOS.default_rules()
    mine = with_values(printed, {"scoring.per_mu": 4})
    two = kept(with_values(printed, {"scoring.per_mu": 2}), value_investor_adapted__buy_margin=-1)
    five = kept(with_values(printed, {"scoring.per_mu": 5}), value_investor_adapted__buy_margin=1)
    other_keys = with_values(printed, {"scoring.per_mu": 4})
    other_keys["policies"] = {
        **other_keys["policies"],
        "mine": {"base": "cash_hoarder", "description": ""},
    }
    kept(other_keys)
    kept(mine, replicate=1)
    sets, _ = starting_sets(EKONOS, mine)
    key = cache_key(EKONOS, mine, 4, SMALL, 1, 0)
    changed = changed_values(printed, mine)
    start, distance = nearest(EKONOS, key, changed, flat(printed), sets, mine)
    assert start.key == five.key and distance == pytest.approx(0.2, abs=1e-12)
    assert adapt_cache.distance(changed, two.changed, flat(printed)) == pytest.approx(0.5)
    # the adaptation starts from those knobs, and says where it started
    state = Adapting.of(EKONOS, Request(mine, 0, (start, distance)))
    assert state.sets == five.knob_sets and state.start == five.start
    result = state.result(key, 0.0, printed)
    assert result.warm_start == {"rules_digest": five.key["rules_digest"], "distance": 0.2}
    assert result.moved == {"value_investor_adapted": {"buy_margin": (-1.418, 1)}}


def test_shipping_starts_from_the_tuned_sets_and_reads_no_cache(monkeypatch):
    printed = EKONOS.default_rules()
    kept(with_values(printed, {"scoring.per_mu": 5}))
    mine = with_values(printed, {"scoring.per_mu": 4})
    requests = []

    def adapt(lab, todo, n_players, budget, seed):
        requests.extend(todo)
        return [kept(r.rules, r.replicate) for r in todo]

    monkeypatch.setattr(adapt_mod, "adapt", adapt)
    adapted(EKONOS, [mine], 4, SMALL, replicates=2, shipping=True)
    assert [(r.replicate, r.warm) for r in requests] == [(0, None), (1, None)]
    requests.clear()
    adapted(EKONOS, [mine], 4, SMALL, replicates=2, shipping=True)  # the cache is not read
    assert len(requests) == 2
    # a designer's variant (not shipping): from the nearest, per_mu 4 (0.25 from 3; 5 is 0.4)
    requests.clear()
    near = kept(mine, 0)
    adapted(EKONOS, [with_values(printed, {"scoring.per_mu": 3})], 4, SMALL, replicates=1)
    assert requests[0].warm[0].key == near.key
    assert requests[0].warm[1] == pytest.approx(0.25)
