"""Analysis library: known answers on small hand-made frames, and one small real dataset.

The Karnaxis and Karmaggän analyses are checked on synthetic frames with the columns
DESIGN.md and the engine issues name, so they are ready when those engines land; every
game-specific function must skip (return None) rather than fail when a column is missing.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest

from simulator.analysis import (
    Dataset,
    chi2_sf,
    chi_square_uniform,
    describe,
    end_reasons,
    gini,
    gini_by_game,
    margins,
    paired_difference,
    round_cap_rate,
    runaway_leader,
    seat_advantage,
    summarise,
    value_counts,
    wilson,
    wilson_exprs,
    win_rates,
)
from simulator.core.game import get_game
from simulator.core.rules import RulesError
from simulator.games.ekonos import analysis as ekonos
from simulator.games.karmaggan import analysis as karmaggan
from simulator.games.karnaxis import analysis as karnaxis

REAL_GAMES = 2_000  # small real Ekonos dataset shared by the analysis and report tests


# ----------------------------------------------------------------------------- datasets


def write_dataset(
    path: Path,
    game: str,
    n_players: int,
    tables: dict[str, pl.DataFrame],
    rules: dict | None = None,
    variants=("base",),
    variant_rules: dict[str, dict] | None = None,
    length_unit: str = "turns",
    seats=(),
    field: str | None = None,
) -> Path:
    """A dataset folder with the runner's layout: a manifest planning one task per variant
    (every table's rows of that variant in one part, stamped as the runner stamps it; a
    column a variant leaves empty is not in its part, as a variant's own value columns).
    ``variant_rules`` gives a variant its own rules instead of ``rules`` (default: the game's
    printed rules, as every real manifest holds its rules); ``field``: the field recorded as
    having played it."""
    from simulator.core.game import GAME_NAMES, get_game
    from simulator.run.plan import Plan, Variant
    from simulator.run.store import part_name
    from simulator.run.whole import metadata, part_stamp

    n_games = int(tables["games"].height // len(variants))
    if rules is None:
        rules = get_game(game).default_rules() if game in GAME_NAMES else {}
    own = {v: (variant_rules or {}).get(v, rules) for v in variants}
    plan = Plan(
        game=game,
        n_games=n_games,
        n_players=n_players,
        seats=list(seats),
        seed=0,
        chunk_size=n_games,
        variants=[Variant(v, own[v], {}) for v in variants],
    )
    engine = f"{game}-synthetic"
    for task, v, first, n in plan.tasks():
        stamp = metadata(part_stamp(plan, engine, task, v, first, n))
        for name, df in tables.items():
            rows = df.filter(pl.col("variant") == variants[v])
            rows = rows.select(
                c for c in rows.columns if rows[c].null_count() < max(rows.height, 1)
            )
            (path / name).mkdir(parents=True, exist_ok=True)
            table = rows.to_arrow().replace_schema_metadata(stamp)
            pq.write_table(table, path / name / part_name(task))
    manifest = {
        "format": "balsim-dataset",
        "game": game,
        "n_games": n_games,
        "n_players": n_players,
        "seats": list(seats),
        "fixed_seats": False,
        "seed": 0,
        "chunk_size": n_games,
        "length_unit": length_unit,
        "engine_version": engine,
        "variants": [{"name": v, "rules": own[v], "values": {}} for v in variants],
        "tables": list(tables),
        "status": "complete",
        **({"field": field} if field else {}),
    }
    (path / "manifest.json").write_text(json.dumps(manifest))
    return path


def real_ekonos(base: Path) -> Path:
    """A small real Ekonos dataset under ``base`` (built once, reused when already there)."""
    from simulator.core.game import get_game
    from simulator.run.plan import Plan, Variant
    from simulator.run.runner import execute

    out = base / "ekonos-real"
    if (
        not (out / "manifest.json").exists()
        or json.loads((out / "manifest.json").read_text())["status"] != "complete"
    ):
        game = get_game("ekonos")
        plan = Plan(
            game="ekonos",
            n_games=REAL_GAMES,
            n_players=4,
            seats=["value_investor", "president_seeker", "market_builder", "cash_hoarder"],
            seed=7,
            chunk_size=1_000,
            variants=[Variant("base", game.rules())],
        )
        execute(plan, out, jobs=1, progress=False, force=True)
    return out


@pytest.fixture(scope="session")
def real_dataset(tmp_path_factory) -> Dataset:
    return Dataset(real_ekonos(tmp_path_factory.getbasetemp()))


def players_frame(winners: list[int], n_players: int, policies=None) -> pl.DataFrame:
    """Players rows of len(winners) games: seat ``winners[g]`` wins game g."""
    n = len(winners)
    seat = np.tile(np.arange(n_players), n)
    won = seat == np.repeat(np.asarray(winners), n_players)
    policies = policies or [f"p{s}" for s in range(n_players)]
    return pl.DataFrame(
        {
            "game_id": np.repeat(np.arange(n), n_players),
            "variant": "base",
            "seat": seat.astype(np.int8),
            "policy": [policies[s] for s in seat],
            "score": won.astype(float),
            "won": won,
        }
    )


# ----------------------------------------------------------------------------- statistics


def test_wilson_matches_hand_computed_interval():
    # 5 of 10, z = 1.96: centre 0.5, half-width 1.96/1.38415 * sqrt(0.025 + 0.0096037) = 0.26340
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.23659, abs=1e-4) and hi == pytest.approx(0.76341, abs=1e-4)
    lo, hi = wilson(0, 20)
    assert lo == 0.0 and hi == pytest.approx(0.16113, abs=1e-4)
    frame = pl.DataFrame({"k": [5, 0], "n": [10, 20]}).with_columns(*wilson_exprs("k", "n"))
    assert frame["lo"].to_list() == pytest.approx([0.23659, 0.0], abs=1e-4)
    assert frame["hi"].to_list() == pytest.approx([0.76341, 0.16113], abs=1e-4)


@pytest.mark.parametrize(
    "x, dof",
    [(3.841459, 1), (5.991465, 2), (7.814728, 3), (9.487729, 4), (11.070498, 5), (14.067140, 7)],
)
def test_chi2_sf_at_the_tabulated_five_percent_points(x, dof):
    assert chi2_sf(x, dof) == pytest.approx(0.05, abs=1e-6)


def test_chi_square_uniform_known_statistic():
    # expected 15 each: (15² + 3·5²) / 15 = 20, 3 dof; P(chi2_3 >= 20) = 1.6974e-4
    stat, dof, p = chi_square_uniform([30, 10, 10, 10])
    assert stat == pytest.approx(20.0) and dof == 3
    assert p == pytest.approx(1.6974e-4, rel=1e-3)
    assert chi_square_uniform([25, 25, 25, 25])[2] == 1.0


def test_gini_of_known_vectors():
    assert gini([0, 0, 0, 1]) == pytest.approx(0.75)
    assert gini([1, 2, 3, 4]) == pytest.approx(0.25)
    assert gini([5, 5, 5]) == pytest.approx(0.0)
    frame = pl.DataFrame({"game_id": [0] * 4 + [1] * 4, "score": [1, 0, 0, 0, 4, 3, 2, 1]})
    got = gini_by_game(frame).collect().sort("game_id")["gini"].to_list()
    assert got == pytest.approx([0.75, 0.25])


# ----------------------------------------------------------------------------- shared analyses


def test_seat_advantage_on_constructed_frame():
    # 100 four-player games: seat 0 wins 40, seats 1-3 win 20 each.
    winners = [0] * 40 + [1] * 20 + [2] * 20 + [3] * 20
    seat = seat_advantage(players_frame(winners, 4)).row(0, named=True)
    # chi2 = (15² + 3·5²) / 25 = 12 with 3 dof -> p = 0.0073832
    assert seat["chi2"] == pytest.approx(12.0) and seat["dof"] == 3
    assert seat["p_value"] == pytest.approx(0.0073832, rel=1e-4)
    assert seat["first_win_rate"] == pytest.approx(0.4) and seat["fair_share"] == pytest.approx(
        0.25
    )
    assert seat["first_excess"] == pytest.approx(0.15)
    lo, hi = wilson(40, 100)
    assert seat["first_excess_lo"] == pytest.approx(lo - 0.25)
    assert seat["first_excess_hi"] == pytest.approx(hi - 0.25)
    assert (seat["best_seat"], seat["worst_seat"]) == (0, 1)


def test_win_rates_by_policy_with_n_and_fair_share():
    winners = [0] * 30 + [1] * 10
    rates = win_rates(players_frame(winners, 2, ["bold", "shy"]), "policy").sort("policy")
    assert rates["n"].to_list() == [40, 40]
    assert rates["wins"].to_list() == [30, 10]
    assert rates["win_rate"].to_list() == pytest.approx([0.75, 0.25])
    assert rates["fair_share"].to_list() == pytest.approx([0.5, 0.5])
    assert rates["n_players"].to_list() == [2, 2]  # counted per game when absent
    lo, hi = wilson(30, 40)
    assert rates["win_rate_lo"][0] == pytest.approx(lo) and rates["win_rate_hi"][
        0
    ] == pytest.approx(hi)
    assert win_rates(players_frame(winners, 2), "character") is None  # no such column: skipped
    assert rates.to_pandas().shape[0] == 2


def test_margin_of_victory_counts_ties_as_zero():
    frame = pl.DataFrame(
        {
            "game_id": [0] * 4 + [1] * 4,
            "score": [10.0, 7, 7, 3, 9, 9, 1, 0],
            "rank": [1, 2, 2, 4, 1, 1, 3, 4],
        }
    )
    got = margins(frame).collect().sort("game_id")
    assert got["margin"].to_list() == [3.0, 0.0]
    no_rank = margins(frame.drop("rank")).collect().sort("game_id")
    assert no_rank["margin"].to_list() == [3.0, 0.0]


def test_end_reasons_and_round_cap_rate():
    games = pl.DataFrame(
        {"game_id": range(10), "variant": "base", "end_reason": ["egg"] * 7 + ["round_cap"] * 3}
    )
    reasons = end_reasons(games)
    assert dict(zip(reasons["end_reason"], reasons["n"])) == {"egg": 7, "round_cap": 3}
    cap = round_cap_rate(games).row(0, named=True)
    assert (cap["games"], cap["capped"], cap["rate"]) == (10, 3, pytest.approx(0.3))
    assert cap["rate_lo"] == pytest.approx(wilson(3, 10)[0])


def test_runaway_leader_uses_the_two_thirds_checkpoint():
    # 4 games of 12 years, 2 seats; at year 8 seat 0 leads in games 0-2 and seat 1 in game 3.
    # Seat 0 wins games 0, 1, 3 -> the year-8 leader wins games 0 and 1: 2 of 4.
    rows = []
    for g in range(4):
        for year in range(1, 13):
            lead = 0 if g < 3 else 1
            for seat in range(2):
                cash = 100 + year * (10 if seat == lead else 5)
                if year == 12 and g == 2:  # seat 1 overtakes in the last year of game 2
                    cash = 500 if seat == 1 else 200
                rows.append(
                    {"game_id": g, "variant": "base", "year": year, "seat": seat, "cash_usd": cash}
                )
    years = pl.DataFrame(rows)
    players = pl.DataFrame(
        {
            "game_id": [0, 0, 1, 1, 2, 2, 3, 3],
            "variant": "base",
            "seat": [0, 1] * 4,
            "won": [True, False, True, False, False, True, True, False],
        }
    )
    got = runaway_leader(years, players, "year", "cash_usd").row(0, named=True)
    assert (got["games"], got["leader_won"]) == (4, 2)
    assert got["rate"] == pytest.approx(0.5) and got["fair_share"] == pytest.approx(0.5)
    # per variant, in the variants' order, like every analysis (a report's charts do not
    # change from one drawing to the next)
    names = ["base", "v1", "v2", "v3", "v4", "v5"]
    many = runaway_leader(
        pl.concat([years.with_columns(variant=pl.lit(v)) for v in names[::-1]]),
        pl.concat([players.with_columns(variant=pl.lit(v)) for v in names[::-1]]),
        "year",
        "cash_usd",
    )
    assert many["variant"].to_list() == names and many["leader_won"].to_list() == [2] * 6


def test_paired_difference_pairs_games_and_seats():
    # the variant adds exactly +2 to seat 0 and +4 to seat 1 in each of 3 games
    rows = [
        {
            "game_id": g,
            "seat": s,
            "variant": v,
            "policy": f"p{s}",
            "score": 10.0 * g + s + (0 if v == "base" else 2 * (s + 1)),
        }
        for g in range(3)
        for s in range(2)
        for v in ("base", "rich")
    ]
    frame = pl.DataFrame(rows)
    got = paired_difference(frame, "score", "base", "rich", "policy")
    assert got["n"].to_list() == [3, 3] and got["mean_diff"].to_list() == [2.0, 4.0]
    assert got["diff_lo"].to_list() == [2.0, 4.0]  # no noise: zero-width interval
    overall = paired_difference(frame, "score", "base", "rich").row(0, named=True)
    # the game is the unit: each game's two pairs change by +6 together, the same in every
    # game, so the mean change of +3 per pair has no game-to-game noise
    assert overall["mean_diff"] == 3.0 and overall["n_games"] == 3 and overall["se"] == 0.0


def test_describe_quantiles_and_value_counts():
    frame = pl.DataFrame({"x": list(range(1, 101)), "g": ["a"] * 50 + ["b"] * 50})
    d = describe(frame, "x").row(0, named=True)
    assert d["n"] == 100 and d["mean"] == pytest.approx(50.5) and d["p50"] == pytest.approx(50.5)
    assert d["p25"] == pytest.approx(25.75)
    counts = value_counts(frame, "g")
    assert counts["share"].to_list() == pytest.approx([0.5, 0.5])
    assert describe(frame, "missing") is None


# ----------------------------------------------------------------------------- Karnaxis

KARNAXIS_RULES = get_game("karnaxis").default_rules()  # the printed rules: read by exact key
STANDARD_USD, SMART_USD = karnaxis.tax_tables(KARNAXIS_RULES)


def karnaxis_years() -> pl.DataFrame:
    """2 games x 2 seats x 3 years; seat 0 uses the smart table in year 3."""
    rows = []
    for g in range(2):
        for year in (1, 2, 3):
            for seat in (0, 1):
                bracket = year - 1 + seat  # 0..3
                smart = seat == 0 and year == 3
                rows.append(
                    {
                        "game_id": g,
                        "variant": "base",
                        "year": year,
                        "seat": seat,
                        "cash_usd": 10_000 * year * (seat + 1) + g,
                        "income_usd": 20_000 * (bracket + 1),
                        "tax_bracket": bracket,
                        "tax_paid_usd": (SMART_USD if smart else STANDARD_USD)[bracket],
                        "smart_tax": smart,
                        "loans_outstanding_usd": 50_000 * seat,
                        "delinquent_notices": 0,
                    }
                )
    return pl.DataFrame(rows)


def karnaxis_players() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "game_id": [0, 0, 1, 1],
            "variant": "base",
            "seat": [0, 1, 0, 1],
            "policy": ["tycoon", "cautious"] * 2,
            "character": ["Zack", "Julie", "Julie", "Zack"],
            "score": [2_100_000.0, 400_000.0, 1_200_000.0, 600_000.0],
            "rank": [1, 2, 1, 2],
            "won": [True, False, True, False],
            "taxes_paid_usd": [100_000, 50_000, 90_000, 40_000],
            "loans_taken_usd": [250_000, 0, 200_000, 0],
            "peak_loans_outstanding_usd": [200_000, 0, 150_000, 0],
            "rank_title": ["Elite", "Unranked", "Novice", "Amateur"],
            "interest_paid_usd": [20_000, 0, 15_000, 0],
            "delinquent_notices": [2, 0, 0, 0],
        }
    )


def test_karnaxis_tax_per_bracket_and_year():
    years = karnaxis_years()
    by_bracket = karnaxis.tax_by_bracket(years)
    # brackets: seat 0 years 1-3 -> 0,1,2; seat 1 -> 1,2,3; in each of 2 games
    assert by_bracket["player_years"].to_list() == [2, 4, 4, 2]
    assert by_bracket["share"].to_list() == pytest.approx([2 / 12, 4 / 12, 4 / 12, 2 / 12])
    # bracket 2: seat 0 year 3 on the smart table ($10k) and seat 1 year 2 standard ($30k)
    assert by_bracket.filter(pl.col("tax_bracket") == 2)["mean_tax_usd"][0] == pytest.approx(20_000)
    assert by_bracket.filter(pl.col("tax_bracket") == 2)["smart_share"][0] == pytest.approx(0.5)
    by_year = karnaxis.tax_by_year(years)
    # year 3: seat 0 smart in bracket 2 ($10k), seat 1 standard in bracket 3 ($60k)
    assert by_year["mean_tax_usd"].to_list() == pytest.approx([10_000, 22_500, 35_000])


def test_karnaxis_bracket_share_intervals_count_games_not_years():
    # game 0: brackets 0, 0, 1, 1; game 1: 0, 0, 0, 0.  Per-game shares of bracket 0 are 0.5
    # and 1 (mean 0.75, standard error 0.25), of bracket 1 0.5 and 0 (mean 0.25).
    years = pl.DataFrame(
        {
            "game_id": [0] * 4 + [1] * 4,
            "tax_bracket": [0, 0, 1, 1, 0, 0, 0, 0],
            "tax_paid_usd": [0] * 8,
        }
    )
    table = karnaxis.tax_by_bracket(years).sort("tax_bracket")
    assert table["share"].to_list() == [0.75, 0.25]
    half = 1.959964 * 0.25
    assert table["share_lo"].to_list() == pytest.approx([0.75 - half, 0.0], abs=1e-6)
    assert table["share_hi"].to_list() == pytest.approx([1.0, 0.25 + half], abs=1e-6)
    labelled = karnaxis.label_brackets(table, KARNAXIS_RULES)
    assert labelled.columns[:2] == ["tax_bracket", "income"]
    assert labelled["income"].to_list() == ["$0–25k", "$25–50k"]


def test_karnaxis_smart_table_savings_from_the_rules_tables():
    savings = karnaxis.smart_tax_savings(karnaxis_years(), KARNAXIS_RULES)
    row = savings.filter(pl.col("tax_bracket") == 2).row(0, named=True)
    assert row["saving_usd"] == 20_000  # the rulebook's Tax Brackets: 30k standard - 10k smart
    assert row["smart_years"] == 2 and row["realised_usd"] == 40_000
    assert row["net_of_accountant_usd"] == 10_000  # Hire Accountant: $10,000 a year


def test_karnaxis_rules_are_read_by_their_exact_keys():
    rules = {
        "taxes": {
            "standard_usd": [5, 15, 30],
            "smart_usd": [0, 5, 10],
            "bracket_max_usd": [25, 50],
        },
        "loans": {"cap_usd": 500},
        "actions": {"accountant_usd": 2_500},
    }
    # small values are dollars, not thousands
    assert karnaxis.tax_tables(rules) == ([5.0, 15.0, 30.0], [0.0, 5.0, 10.0])
    assert karnaxis.bracket_labels(rules) == ["$0–0.025k", "$0.025–0.05k", "over $0.05k"]
    assert karnaxis.loan_cap(rules) == 500 and karnaxis.accountant_usd(rules) == 2_500
    # no key, no guess: a key the rules lack is named
    with pytest.raises(RulesError, match="loans.cap_usd"):
        karnaxis.loan_cap({"loans": {"max_usd": 300_000}})


def test_a_sweeps_small_loan_cap_and_accountant_price_are_read_as_set(tmp_path):
    """A sweep whose base variant lends in $100 notes up to a $500 cap and prices the
    accountant at $2,500: the loans table counts a player at the cap from $500 of loans (not
    $500,000, nor the printed $200,000), and the smart table's saving is net of $2,500 there
    and of the printed $10,000 in the other variant."""
    from simulator.run.plan import Plan, Variant
    from simulator.run.runner import execute
    from simulator.studies.study import study_seats

    game = get_game("karnaxis")
    small = ("loans.unit_usd=100", "loans.cap_usd=500", "actions.accountant_usd=2500")
    plan = Plan(
        game="karnaxis",
        n_games=400,
        n_players=4,
        seats=study_seats(game, 4),
        seed=3,  # any fixed seed: a few players borrow to the $500 cap in 400 games
        chunk_size=400,
        variants=[Variant("small", game.rules(sets=small)), Variant("printed", game.rules())],
    )
    execute(plan, tmp_path / "sweep", jobs=1, progress=False)
    ds = Dataset(tmp_path / "sweep")
    res = summarise(ds)
    players = ds.players.filter(pl.col("variant") == "small").collect()
    peak = players[karnaxis.PEAK_LOANS]
    assert 0 < (peak >= 500).mean() and (peak >= 200_000).mean() == 0  # the cap decides
    at_cap = players.group_by("policy").agg((pl.col(karnaxis.PEAK_LOANS) >= 500).mean())
    loans = res["karnaxis_loans"].join(at_cap, on="policy")
    assert loans["cap_binding"].to_list() == pytest.approx(loans[karnaxis.PEAK_LOANS].to_list())
    savings = res["karnaxis_smart_savings"]  # each variant at its own accountant's price
    for variant, price in (("small", 2_500), ("printed", 10_000)):
        rows = savings.filter(pl.col("variant") == variant)
        assert rows.height and (rows["net_of_accountant_usd"] == rows["saving_usd"] - price).all()


def test_karnaxis_loans_ranks_and_cash_trajectories():
    players = karnaxis_players()
    loans = karnaxis.loan_summary(players, "policy", cap_usd=200_000).sort("policy")
    tycoon = loans.filter(pl.col("policy") == "tycoon").row(0, named=True)
    assert (
        tycoon["borrowed"] == 1.0 and tycoon["cap_binding"] == 0.5 and tycoon["delinquent"] == 0.5
    )
    assert tycoon["mean_interest_usd"] == 17_500
    assert loans.filter(pl.col("policy") == "cautious")["borrowed"][0] == 0.0
    ranks = karnaxis.rank_titles(players, "policy")
    tycoon_titles = dict(
        zip(
            *ranks.filter(pl.col("policy") == "tycoon")
            .select("rank_title", "n")
            .to_dict(as_series=False)
            .values()
        )
    )
    assert tycoon_titles == {"Elite": 1, "Novice": 1}
    traj = karnaxis.cash_trajectories(karnaxis_years(), players, "policy")
    cautious = traj.filter(pl.col("policy") == "cautious").sort("year")
    assert cautious["median"].to_list() == pytest.approx([20_000.5, 40_000.5, 60_000.5])
    assert win_rates(players, "character")["wins"].to_list() == [1, 1]
    assert karnaxis.loan_summary(players.select("game_id", "seat", "policy"), "policy", 1) is None


# ----------------------------------------------------------------------------- Karmaggän


def karmaggan_frames():
    players = pl.DataFrame(
        {
            "game_id": [0, 0, 0, 0, 1, 1, 1, 1],
            "variant": "base",
            "seat": [0, 1, 2, 3] * 2,
            # team labels are drawn each game: seat 0's team is 0 in game 0 and 1 in game 1
            "team": [0, 1, 0, 1, 1, 0, 1, 0],
            "side": ["starting", "other"] * 4,
            "won": [True, False, True, False] * 2,
            "score": [1.0, 0, 1, 0] * 2,
            "start_blood_coins": [4] * 4 + [3] * 4,
            "final_blood_coins": [5, 0, 2, 1, 0, 0, 3, 2],
            "died": [False, True, False, False, True, True, False, False],
            "death_round": [0, 7, 0, 0, 3, 7, 0, 0],
            "blood_lost_arrows": [1, 2, 0, 0, 1, 0, 0, 0],
            "blood_lost_fire": [0, 2, 2, 0, 0, 2, 0, 0],
            "blood_lost_combat": [0, 1, 0, 3, 2, 1, 0, 0],
            "turns_as_spawn": [0, 4, 0, 0, 6, 2, 0, 0],
            "turns_holding_egg": [3, 0, 1, 0, 0, 0, 2, 1],
        }
    )
    games = pl.DataFrame(
        {
            "game_id": [0, 1],
            "variant": "base",
            "length": [12, 40],
            "end_reason": ["egg_escaped", "round_cap"],
            "winning_team": [0, 0],
        }
    )
    timeline = pl.DataFrame(
        {
            "game_id": [0] * 4,
            "variant": "base",
            "round": [1, 1, 2, 2],
            "seat": [0, 1, 0, 1],
            "blood_coins": [4, 4, 6, 1],
        }
    )
    return players, games, timeline


def test_karmaggan_deaths_damage_and_spawns():
    players, games, timeline = karmaggan_frames()
    deaths = karmaggan.deaths(players, "side").sort("side", descending=True)
    assert deaths["deaths"].to_list() == [1, 2]
    assert deaths["median_death_round"].to_list() == [3.0, 7.0]
    damage = karmaggan.damage_by_source(players)
    assert dict(zip(damage["source"], damage["total"])) == {"arrows": 4, "fire": 6, "combat": 7}
    assert damage["share"].sum() == pytest.approx(1.0)
    assert damage["source"][0] == "combat"  # largest first
    spawn = karmaggan.spawn_turns(players, "side").sort("side", descending=True)
    assert spawn["mean_turns_as_spawn"].to_list() == pytest.approx([1.5, 1.5])
    assert spawn["spawn_share"].to_list() == pytest.approx([0.25, 0.5])
    assert karmaggan.death_rounds(players)["death_round"].to_list() == [3, 7]
    coins = karmaggan.blood_coins(players, "side").sort("side", descending=True)
    assert coins["mean_final"].to_list() == pytest.approx([2.5, 0.75])
    assert coins["broke"].to_list() == [1, 2]


def test_karmaggan_start_coins_length_and_team_wins():
    players, games, timeline = karmaggan_frames()
    length = karmaggan.length_by_start_coins(games, players).sort("start_blood_coins")
    assert length["start_blood_coins"].to_list() == [3, 4]
    assert length["mean"].to_list() == [40.0, 12.0]
    assert length["round_cap_rate"].to_list() == [1.0, 0.0]
    edges = karmaggan.starting_team_edge(players)
    # the starting team won both games, whatever its label
    assert edges["start_coins"].to_list() == [3, 4]
    assert edges["starting_win_rate"].to_list() == [1.0, 1.0]
    assert edges["other_win_rate"].to_list() == [0.0, 0.0]
    assert edges["edge"].to_list() == [1.0, 1.0]
    assert edges["games"].to_list() == [1, 1]
    by_round = karmaggan.blood_by_round(timeline, players, "side")
    assert by_round.filter((pl.col("round") == 2) & (pl.col("side") == "other"))["median"][0] == 1.0


def test_karmaggan_analyses_skip_missing_columns():
    players, games, _ = karmaggan_frames()
    bare = players.select("game_id", "variant", "seat", "won", "score")
    assert karmaggan.deaths(bare) is None
    assert karmaggan.damage_by_source(bare) is None
    assert karmaggan.spawn_turns(bare) is None
    assert karmaggan.blood_coins(bare) is None
    assert karmaggan.length_by_start_coins(games, bare) is None
    assert karmaggan.starting_team_edge(bare) is None
    assert karmaggan.blood_by_round(None, bare) is None


# ----------------------------------------------------------------------------- Ekonos


def test_ekonos_presidency_advantage_on_constructed_games():
    # Game 0: company 1 is worth most (8); seat 2 presides it and wins.
    # Game 1: company 0 is worth most (9); seat 0 presides it but seat 1 wins.
    games = pl.DataFrame(
        {"game_id": [0, 1], "variant": "base", "company0_value": [3, 9], "company1_value": [8, 2]}
    )
    players = pl.DataFrame(
        {
            "game_id": [0, 0, 0, 1, 1, 1],
            "variant": "base",
            "seat": [0, 1, 2] * 2,
            "won": [False, False, True, False, True, False],
            "company0_president": [True, False, False, True, False, False],
            "company1_president": [False, False, True, False, True, False],
            "cash": [1, 2, 3, 4, 5, 6],
            "holdings_value": [9, 8, 7, 6, 5, 4],
            "score": [10.0] * 6,
            "policy": ["a", "b", "c"] * 2,
        }
    )
    pres = {
        r["player"]: r for r in ekonos.presidency_advantage(games, players).iter_rows(named=True)
    }
    assert (pres["top_president"]["n"], pres["top_president"]["wins"]) == (2, 1)
    assert (pres["other"]["n"], pres["other"]["wins"]) == (4, 1)
    assert pres["other"]["fair_share"] == pytest.approx(2 / 6)
    held = ekonos.presidencies_held(players)
    # four players hold one presidency each (two of them win), two hold none
    assert dict(zip(held["presidencies"], held["n"])) == {0: 2, 1: 4}
    assert dict(zip(held["presidencies"], held["wins"])) == {0: 0, 1: 2}
    values = ekonos.company_values(games, ["Alpha", "Beta"])
    assert values["name"].to_list() == ["Alpha", "Beta"]
    assert values["top_share"].to_list() == [0.5, 0.5] and values["mean"].to_list() == [6.0, 5.0]
    split = ekonos.score_split(players, "policy").sort("policy")
    assert split["mean_cash"].to_list() == [2.5, 3.5, 4.5]
    assert split["holdings_share"][0] == pytest.approx(7.5 / 10)


def test_ekonos_presidency_splits_games_whose_top_value_is_tied():
    # Game 0: company 1 alone is worth most; its president (seat 2) wins.
    # Game 1: companies 0 and 1 tie at 5; seat 0 and seat 1 preside them, seat 1 wins.
    # The old rule credited only the lowest-numbered company (seat 0) in game 1.
    games = pl.DataFrame({"game_id": [0, 1], "company0_value": [3, 5], "company1_value": [8, 5]})
    players = pl.DataFrame(
        {
            "game_id": [0, 0, 0, 1, 1, 1],
            "seat": [0, 1, 2] * 2,
            "won": [False, False, True, False, True, False],
            "company0_president": [True, False, False, True, False, False],
            "company1_president": [False, False, True, False, True, False],
        }
    )
    pres = {
        r["player"]: r for r in ekonos.presidency_advantage(games, players).iter_rows(named=True)
    }
    assert list(pres) == ["top_president", "co_top_president", "other"]
    assert (pres["top_president"]["n"], pres["top_president"]["wins"]) == (1, 1)
    assert (pres["co_top_president"]["n"], pres["co_top_president"]["wins"]) == (2, 1)
    assert (pres["other"]["n"], pres["other"]["wins"]) == (3, 0)
    assert pres["other"]["tied_games_share"] == pytest.approx(0.5)


# ----------------------------------------------------------------------------- real data


def test_summarise_real_ekonos_dataset(real_dataset):
    res = summarise(real_dataset)
    for key in (
        "win_rate_seat",
        "win_rate_policy",
        "seat_advantage",
        "score",
        "margin",
        "length",
        "end_reasons",
        "gini",
        "ekonos_score_split",
        "ekonos_company_values",
        "ekonos_presidency",
    ):
        assert key in res, key
    seats = res["win_rate_seat"]
    assert seats["n"].to_list() == [REAL_GAMES] * 4
    # every game has at least one winner, ties share the win
    assert seats["wins"].sum() >= REAL_GAMES
    assert res["length"]["n"][0] == REAL_GAMES
    # score = cash + holdings value for every player (Ekonos scoring)
    players = real_dataset.players.select("score", "cash", "holdings_value").collect()
    assert (players["score"] == players["cash"] + players["holdings_value"]).all()
    assert 0.0 < res["gini"]["mean"][0] < 1.0
    pres = res["ekonos_presidency"]
    assert pres["n"].sum() == REAL_GAMES * 4
    assert res["win_rate_policy"].to_pandas()["n"].sum() == REAL_GAMES * 4


def test_dataset_scans_are_lazy_and_typed(real_dataset):
    assert isinstance(real_dataset.players, pl.LazyFrame)
    schema = real_dataset.players.collect_schema()
    assert schema["n_players"] == pl.Int8 and isinstance(schema["variant"], pl.Enum)
    assert real_dataset.timeline("years") is None
    assert real_dataset.game == "ekonos" and real_dataset.n_players == 4


def test_dataset_stacks_parts_whose_columns_differ(tmp_path):
    """Variants may record different value columns; the parts still read as one table."""
    base = players_frame([0, 1], 2)
    rich = base.with_columns(pl.lit("rich").alias("variant"), pl.lit(12).alias("start_money"))
    games = pl.DataFrame(
        {"game_id": [0, 1, 0, 1], "variant": ["base", "base", "rich", "rich"], "length": 3}
    )
    path = write_dataset(
        tmp_path / "mixed",
        "ekonos",
        2,
        {"games": games, "players": pl.concat([base, rich], how="diagonal")},
        variants=("base", "rich"),
    )
    assert "start_money" not in pl.read_parquet_schema(path / "players" / "part-00000.parquet")
    ds = Dataset(path)
    assert "start_money" in ds.columns("players")
    got = ds.players.collect()
    assert got.height == 8 and got["start_money"].null_count() == 4
    assert win_rates(ds.players, ["variant", "seat"]).height == 4


def test_summarise_tolerates_engines_without_game_columns(tmp_path):
    """A Karnaxis/Karmaggän dataset with only the contract's columns still summarises."""
    players = players_frame([0, 1, 1, 0], 2).with_columns(pl.lit(1, pl.Int8).alias("rank"))
    games = pl.DataFrame(
        {
            "game_id": range(4),
            "variant": "base",
            "n_players": 2,
            "winner_seat": [0, 1, 1, 0],
            "length": [12] * 4,
            "end_reason": ["years"] * 4,
        }
    )
    for game in ("karnaxis", "karmaggan"):
        ds = Dataset(write_dataset(tmp_path / game, game, 2, {"games": games, "players": players}))
        res = summarise(ds)
        assert "win_rate_seat" in res and "length" in res
        # nothing game-specific without the game's columns
        assert [k for k in res if k.startswith(game)] == []
