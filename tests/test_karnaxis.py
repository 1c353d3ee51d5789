"""Karnaxis whole-game tests: invariants over thousands of random games, the players and
years tables, replay, and the rules checks (rulebook: shared/rules/karnaxis.md).  One scenario
per rule lives in test_karnaxis_rules.py and test_karnaxis_rules_money.py.
"""

import numpy as np
import pytest
from karnaxis_world import GAME, POLICY

from simulator.core.rng import game_seeds
from simulator.core.rules import RulesError
from simulator.games.karnaxis import outputs as K
from simulator.games.karnaxis import state as S

# --------------------------------------------------------------------- whole games


@pytest.fixture(scope="module")
def played():
    """4000 games of 4 players (random and every scripted policy, seats rotated) and 300 of each
    other count."""
    rules = GAME.default_rules()
    out = {}
    ids = [p.id for p in GAME.policies if p.name != "search"]
    for n, games in ((4, 4000), (1, 300), (2, 300), (3, 300), (5, 300), (6, 300)):
        params = GAME.prepare(rules, n)
        seat = np.array(
            [[ids[(g + s) % len(ids)] for s in range(n)] for g in range(games)], dtype=np.int8
        )
        out[n] = (GAME.play(params, game_seeds(11, np.arange(games)), seat), seat)
    return out


def test_money_is_accounted_for(played):
    """Every dollar of final cash is the start cash plus ledger inflows minus outflows, and
    what players pay each other is what they receive."""
    start = GAME.default_rules()["setup"]["start_cash_usd"]
    ins = [K.LEDGER_COLUMNS[i - S.L_SALARY] for i in S.LEDGER_IN]
    outs = [K.LEDGER_COLUMNS[i - S.L_SALARY] for i in S.LEDGER_OUT]
    for n, (tables, _) in played.items():
        pl = tables["players"]
        total = start + sum(pl[c] for c in ins) - sum(pl[c] for c in outs)
        assert np.array_equal(total, pl["final_cash_usd"]), n
        assert np.array_equal(
            pl["received_from_players_usd"].sum(axis=1), pl["paid_to_players_usd"].sum(axis=1)
        )
        assert (
            pl["interest_received_usd"].sum(axis=1) <= pl["interest_paid_usd"].sum(axis=1)
        ).all()
        assert np.array_equal(pl["score"], pl["final_cash_usd"].astype(float))


def test_loans_never_pass_the_cap_and_cash_never_negative(played):
    cap = GAME.default_rules()["loans"]["cap_usd"]
    for n, (tables, _) in played.items():
        assert tables["players"]["peak_loans_outstanding_usd"].max() <= cap
        years = tables["years"]
        assert years["loans_outstanding_usd"].max() <= cap
        assert years["cash_usd"].min() >= 0
        assert len(years["year"]) == len(tables["games"]["length"]) * 12 * n


def test_income_ceiling_and_saved_cards_hold_in_every_game(played):
    """Know Your Player Board: no business income marker passes the last circle; a Karnaxis
    card left unused at the end is one that was bought."""
    ceiling = GAME.default_rules()["business"]["income_max_usd"]
    for _n, (tables, _) in played.items():
        pl = tables["players"]
        assert pl["business_income_level_usd"].max() <= ceiling
        assert (pl["karnaxis_cards_unused"] <= pl["karnaxis_cards_bought"]).all()
    assert played[4][0]["players"]["business_income_level_usd"].max() == ceiling  # it binds


def test_policies_borrow_and_some_hit_the_cap(played):
    """The loan analysis needs borrowing: scripted policies borrow, and the cap binds."""
    tables, seat = played[4]
    pl = tables["players"]
    cap = GAME.default_rules()["loans"]["cap_usd"]
    for name in ("tycoon", "speculator", "random"):
        mine = seat == POLICY[name]
        assert (pl["loans_taken"][mine] > 0).mean() > 0.2, name
    tycoon = seat == POLICY["tycoon"]
    assert (pl["peak_loans_outstanding_usd"][tycoon] == cap).mean() > 0.01
    cautious = seat == POLICY["cautious"]
    assert pl["delinquent_notices"].sum() > 0
    assert pl["retirement_tokens"][cautious].mean() > pl["retirement_tokens"][tycoon].mean()


def test_strategies_are_recognisable(played):
    tables, seat = played[4]
    pl = tables["players"]

    def mean(col, name):
        return pl[col][seat == POLICY[name]].mean()

    assert mean("college_years", "scholar") > 3 > mean("college_years", "speculator")
    assert mean("businesses", "tycoon") > mean("businesses", "scholar")
    assert mean("shares_bought_usd", "speculator") > mean("shares_bought_usd", "cautious")
    assert mean("final_cash_usd", "tycoon") > mean("final_cash_usd", "random")


def test_years_timeline_matches_players(played):
    tables, _ = played[4]
    years, pl = tables["years"], tables["players"]
    n = len(tables["games"]["length"])
    tax = years["tax_paid_usd"].reshape(n, 12, 4).sum(axis=1)
    assert np.array_equal(tax, pl["taxes_paid_usd"])
    smart = years["smart_tax"].reshape(n, 12, 4).sum(axis=1)
    assert np.array_equal(smart, pl["smart_tax_years"])
    assert np.array_equal(
        years["delinquent_notices"].reshape(n, 12, 4)[:, -1], pl["delinquent_notices"]
    )
    assert set(np.unique(years["tax_bracket"])) <= set(range(8))


def test_characters_are_unique_in_a_game(played):
    for _n, (tables, _) in played.items():
        codes, labels = tables["players"]["character"]
        assert len(labels) == 18
        s = np.sort(codes, axis=1)
        assert (np.diff(s, axis=1) > 0).all()


def test_dealt_characters_are_recorded_in_deal_order(small_datasets):
    """Game Setup: the players table names the three character cards dealt to each seat
    (dealt_character_1..3, strings) and the one kept (character), which is one of them; no
    card is dealt twice in a game."""
    import polars as pl

    players = pl.read_parquet(small_datasets["karnaxis"] / "players")
    dealt = ["dealt_character_1", "dealt_character_2", "dealt_character_3"]
    assert all(players.schema[c] == pl.String for c in dealt)
    kept = players.select(pl.any_horizontal(pl.col(c) == pl.col("character") for c in dealt))
    assert kept.to_series().all()
    per_game = (
        players.unpivot(index="game_id", on=dealt)
        .group_by("game_id")
        .agg(pl.col("value").n_unique().alias("distinct"), pl.len().alias("cards"))
    )
    assert (per_game["distinct"] == per_game["cards"]).all()
    assert players["dealt_character_1"].n_unique() > 6


def test_karnaxis_fulfilment_is_recorded(played):
    tables, _ = played[4]
    pl = tables["players"]
    done = pl["karnaxis_fulfilled"] | pl["karnaxis_revoked"]
    assert done.mean() > 0.1
    assert ((pl["karnaxis_year"] > 0) == done).all()
    assert (pl["karnaxis_reward_usd"][done] == 100_000).all()


def test_replay_reads_as_a_play_by_play():
    rules = GAME.default_rules()
    params = GAME.prepare(rules, 3)
    lines = GAME.replay(params, 42, np.array([1, 2, 3], np.int8), rules)
    text = "\n".join(lines)
    assert "== year 12" in text and "final seat 2" in text
    assert any("→" in line and line.startswith("year ") for line in lines)
    assert "taxes" in text and "salary" in text


# --------------------------------------------------------------------- rules checks


@pytest.mark.parametrize(
    "key,value",
    [
        ("loans.cap_usd", -5000),
        ("loans.cap_usd", 12345),
        ("loans.due_years", [4, 8, 13]),
        ("taxes.standard_usd", [5000, 15000]),
        ("stock.top_value", 4),
        ("setup.years", 0),
        ("loans.due_pct", [50, 150, 100]),
        ("taxes.bracket_max_usd", [50, 25, 100, 150, 200, 250, 300]),
    ],
)
def test_check_rejects_impossible_values(key, value):
    with pytest.raises(RulesError, match=key.replace(".", r"\.")):
        GAME.rules(sets=(f"{key}={value!r}".replace("'", '"'),))


def test_variant_keys_change_the_game():
    """A flatter tax table and a lower cap show up in the data."""
    rules = GAME.rules(sets=("taxes.standard_usd=[0,0,0,0,0,0,0,0]", "loans.cap_usd=50000"))
    params = GAME.prepare(rules, 4)
    seat = np.tile(np.array([2, 2, 3, 0], np.int8), (300, 1))
    t = GAME.play(params, game_seeds(3, np.arange(300)), seat)
    assert t["players"]["peak_loans_outstanding_usd"].max() <= 50_000
    paid = t["years"]["tax_paid_usd"][~t["years"]["smart_tax"]]
    assert paid.max() <= 10_000 and paid.mean() < 1_000  # only the Tax Hike event is left
