"""The playtest report: one self-contained HTML file whose flags catch planted imbalances.

Synthetic datasets (written with the runner's layout) plant known imbalances: a first player
who wins half the 4-player games, a loan cap that binds for most Karnaxis players, Karmaggän
games that hit the round cap and a team that wins too often.  The report must state each in
its balance flags with the planted number.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from test_analysis import real_ekonos, write_dataset

from simulator.report import THRESHOLDS, Flag, merge_flags, write_report
from simulator.report.flag_list import flag_item, flags_html
from simulator.report.flags import FLIPS, HOLDS, MIN_BASIS_GAMES, NOT_SHOWN, FieldCheck, Sensitivity
from simulator.report.page import cell, p_text
from simulator.studies.study import study_plans

N = 4_000  # synthetic games per dataset
RNG_SEED = 5  # any fixed seed; the planted effects are far larger than the noise


def winners_with_first_seat_share(rng, n_games: int, n_players: int, share: float) -> np.ndarray:
    first = rng.random(n_games) < share
    other = rng.integers(1, n_players, n_games)
    return np.where(first, 0, other)


def contract_tables(
    rng, n_games: int, n_players: int, winners: np.ndarray, policies: list[str], length, end_reason
) -> tuple[pl.DataFrame, pl.DataFrame]:
    game_id = np.arange(n_games)
    seat = np.tile(np.arange(n_players), n_games)
    won = seat == np.repeat(winners, n_players)
    score = rng.normal(100, 10, n_games * n_players) + 30 * won
    rotation = (seat + np.repeat(game_id, n_players)) % len(policies)
    games = pl.DataFrame(
        {
            "game_id": game_id,
            "variant": "base",
            "n_players": n_players,
            "winner_seat": winners,
            "length": length,
            "end_reason": end_reason,
        }
    )
    players = pl.DataFrame(
        {
            "game_id": np.repeat(game_id, n_players),
            "variant": "base",
            "seat": seat.astype(np.int8),
            "policy": np.array(policies)[rotation],
            "score": score,
            "rank": np.where(won, 1, 2).astype(np.int8),
            "won": won,
        }
    )
    return games, players


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> dict[str, Path]:
    rng = np.random.default_rng(RNG_SEED)
    base = tmp_path_factory.mktemp("planted")
    out = {}

    # Ekonos-like: the first player wins 50% of 4-player games (fair: 25%).
    winners = winners_with_first_seat_share(rng, N, 4, 0.5)
    games, players = contract_tables(rng, N, 4, winners, ["a", "b", "c", "d"], 3, "final_turn")
    out["first"] = write_dataset(
        base / "first-player", "ekonos", 4, {"games": games, "players": players}
    )

    # Karnaxis: the $200,000 cap binds for 70% of players; 12 years; a years timeline.
    winners = rng.integers(0, 4, N)
    games, players = contract_tables(rng, N, 4, winners, ["tycoon", "cautious"], 12, "year_12")
    rows = N * 4
    peak = np.where(rng.random(rows) < 0.7, 200_000, rng.integers(0, 150_000, rows))
    players = players.with_columns(
        pl.Series("character", np.array(["Zack", "Julie", "Wes"])[rng.integers(0, 3, rows)]),
        pl.Series("peak_loans_outstanding_usd", peak),
        pl.Series("loans_taken_usd", peak + 10_000),
        pl.Series("interest_paid_usd", peak // 10),
        pl.Series("taxes_paid_usd", rng.integers(0, 500_000, rows)),
        pl.Series("delinquent_notices", rng.integers(0, 2, rows)),
        (pl.col("score") * 10_000).alias("score"),
    )
    players = players.with_columns(  # the engine's Game End rank chart
        pl.when(pl.col("score") >= 1_000_000)
        .then(pl.lit("Novice"))
        .when(pl.col("score") >= 500_000)
        .then(pl.lit("Amateur"))
        .otherwise(pl.lit("Unranked"))
        .alias("rank_title")
    )
    years = pl.DataFrame(
        {
            "game_id": np.repeat(np.arange(N), 12 * 4),
            "variant": "base",
            "year": np.tile(np.repeat(np.arange(1, 13), 4), N),
            "seat": np.tile(np.arange(4), N * 12).astype(np.int8),
        }
    )
    bracket = rng.integers(0, 8, years.height)
    years = years.with_columns(
        pl.Series("tax_bracket", bracket),
        pl.Series("smart_tax", rng.random(years.height) < 0.3),
        pl.Series("income_usd", (bracket + 1) * 30_000),
        pl.Series(
            "cash_usd",
            rng.normal(200_000, 50_000, years.height)
            * np.tile(np.repeat(np.arange(1, 13), 4), N)
            / 6,
        ),
        pl.Series("loans_outstanding_usd", rng.integers(0, 200_001, years.height)),
        pl.Series("delinquent_notices", np.zeros(years.height, np.int8)),
    )
    years = years.with_columns(
        pl.when(pl.col("smart_tax")).then(10_000).otherwise(30_000).alias("tax_paid_usd")
    )
    out["karnaxis"] = write_dataset(
        base / "karnaxis",
        "karnaxis",
        4,
        {"games": games, "players": players, "years": years},
        length_unit="years",
    )

    # Karmaggän: 8% of games hit the round cap; the starting team (seat 0's, whose label is
    # drawn each game) wins 65% of games; 3 or 4 starting coins.
    winning_side = np.where(rng.random(N) < 0.65, 0, 1)  # 0: the starting team
    winners = winning_side  # seat 0 is on the starting team, seat 1 on the other
    capped = rng.random(N) < 0.08
    games, players = contract_tables(
        rng,
        N,
        4,
        winners,
        ["rusher", "hunter", "supporter"],
        rng.integers(10, 60, N),
        np.where(capped, "round_cap", "egg_escaped"),
    )
    side = np.tile(np.array([0, 1, 0, 1]), N)
    team = side ^ np.repeat(rng.integers(0, 2, N), 4)
    won = side == np.repeat(winning_side, 4)
    start = np.repeat(np.where(np.arange(N) % 2 == 0, 3, 4), 4)
    players = players.with_columns(
        pl.Series("team", team),
        pl.Series("side", np.array(["starting", "other"])[side]),
        pl.Series("won", won),
        pl.Series("score", won.astype(float)),
        pl.Series("start_blood_coins", start),
        pl.Series("final_blood_coins", rng.integers(0, 8, N * 4)),
        pl.Series("died", rng.random(N * 4) < 0.3),
        pl.Series("death_round", rng.integers(1, 40, N * 4)),
        *[
            pl.Series(f"blood_lost_{s}", rng.integers(0, 4, N * 4))
            for s in ("arrows", "acid", "fire", "piston", "rollers", "combat")
        ],
        pl.Series("turns_as_spawn", rng.integers(0, 5, N * 4)),
        pl.Series("turns_holding_egg", rng.integers(0, 5, N * 4)),
    )
    out["karmaggan"] = write_dataset(
        base / "karmaggan",
        "karmaggan",
        4,
        {"games": games, "players": players},
        length_unit="rounds",
    )
    return out


def flags_text(page: str) -> str:
    block = page[page.index("<div class='flags'>") : page.index("<h2>Datasets</h2>")]
    return re.sub(r"<[^>]+>", " ", re.sub(r"</?a\b[^>]*>", "", block))


def assert_self_contained(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<svg role='img' class='chart'" in page, "the report has charts, inline"
    sources = re.findall(r"(?:src|href)=['\"]([^'\"]*)['\"]", page)
    assert all(s.startswith(("data:image/png;base64,", "#")) for s in sources), [
        s[:40] for s in sources if not s.startswith(("data:", "#"))
    ]
    assert (
        "<link" not in page
        and "<script" not in page
        and "http" not in page.replace("http-equiv", "")
    )
    # every flag's link points at a chart block of this page
    for anchor in re.findall(r"href='#([^']+)'", page):
        assert f"id='{anchor}'" in page, anchor


def test_report_flags_a_planted_first_player_advantage(planted, tmp_path):
    out = write_report([planted["first"]], tmp_path / "report.html")
    assert out == tmp_path / "report.html" and list(tmp_path.iterdir()) == [out]
    page = out.read_text()
    assert_self_contained(page)
    flags = flags_text(page)
    m = re.search(
        r"first player wins more than a fair share: ([\d.]+)% \(95% CI ([\d.]+)%–([\d.]+)%\)", flags
    )
    assert m, flags
    rate, lo, hi = map(float, m.groups())
    assert 48.0 < rate < 52.0 and lo < rate < hi
    assert "chi-square over seats p" in flags and "Win rate by seat" in flags
    # the numbers of the chart are in the table beside it
    seat_block = page[page.index("id='ds0-win-seat'") : page.index("id='ds0-win-policy'")]
    assert f"{rate:.1f}%" in seat_block and "<svg" in seat_block and "<table" in seat_block


@pytest.mark.slow
def test_the_sections_of_two_jobs_are_the_ones_of_one(planted):
    """Summaries and sections computed in worker processes print the same page (their floats
    may differ in the last bits: the workers' BLAS runs on one thread)."""
    from simulator.analysis import Dataset
    from simulator.report import analyse, in_processes

    calls = [(0, Dataset(planted["first"])), (1, Dataset(planted["karnaxis"]))]
    one, two = in_processes(analyse, calls, 1), in_processes(analyse, calls, 2)
    assert [list(res) for res, _ in one] == [list(res) for res, _ in two] and len(one[1][0]) > 10
    assert [section for _, section in two] == [section for _, section in one]
    assert "id='ds1'" in one[1][1] and "<svg" in one[1][1]


@pytest.mark.slow
def test_report_sections_and_flags_for_karnaxis_and_karmaggan(planted, tmp_path):
    out = write_report([planted["karnaxis"], planted["karmaggan"]], tmp_path / "r.html")
    page = out.read_text()
    assert_self_contained(page)
    for title in (
        "Tax paid per bracket",
        "What the smart table saves",
        "Loans: borrowing",
        "Rank titles",
        "Cash trajectories by year and policy",
        "Win rate by character",
        "Runaway leader",
        "Share of player-years in each bracket",
        "Damage by source",
        "Deaths",
        "Game length against starting blood coins",
        "The starting team's edge against starting blood coins",
        "Win rate of the starting team (seat 0's) and the other",
        "How games end",
    ):
        assert f"<h4>{html.escape(title)}" in page, title
    flags = flags_text(page)
    cap = re.search(r"the loan cap binds for ([\d.]+)% of (\w+) players", flags)
    assert cap and 67 < float(cap.group(1)) < 73, flags
    rc = re.search(r"([\d.]+)% of games end at the round cap \(95% CI", flags)
    assert rc and 6.5 < float(rc.group(1)) < 9.5, flags
    team = re.search(r"the starting team wins ([\d.]+)% \(95% CI [^)]*\) of games", flags)
    assert team and 62 < float(team.group(1)) < 68, flags
    assert "team 0" not in flags and "team 1" not in flags, flags
    # nothing planted on Karnaxis seats (Karmaggän seats carry the team effect: teams alternate)
    assert not re.search(r"karnaxis[^.]*: (the first player|seat \d) wins", flags), flags


@pytest.mark.slow
def test_karnaxis_report_labels_brackets_and_names_assumed_loan_keys(planted, tmp_path):
    from simulator.core.assumed import assumed_keys, assumed_under
    from simulator.core.game import get_game

    page = write_report([planted["karnaxis"]], tmp_path / "k.html").read_text()
    brackets = page[page.index("id='ds0-brackets'") : page.index("id='ds0-tax-year'")]
    assert "$0–25k" in brackets and "over $300k" in brackets
    flags = flags_text(page)
    loan_keys = assumed_under(assumed_keys(get_game("karnaxis").rules_path), ["loans"])
    assert loan_keys, "the Karnaxis rules mark assumed loan values"
    assert f"What-if on ASSUMED data: it rests on {', '.join(k.label for k in loan_keys)}" in flags
    assert "<h4>Attribution: odds ratios of winning" in page


def test_character_flags_use_the_rate_with_the_policy_held_fixed(tmp_path):
    """Tycoon wins three times as often and picks Nadia 90% of the time; Nadia herself does
    nothing.  Zack triples his player's weight whoever plays him.  Only Zack is flagged."""
    rng = np.random.default_rng(RNG_SEED)
    n_games, n = 6_000, 4
    lineup = np.array(["tycoon", "cautious", "scholar", "speculator"])
    policy = lineup[(np.arange(n)[None, :] + np.arange(n_games)[:, None]) % n]
    others = np.array(["Wes", "Julie", "Zack", "Rosa", "Nadia"])
    character = others[rng.integers(0, 5, policy.shape)]
    character = np.where(
        (policy == "tycoon") & (rng.random(policy.shape) < 0.9), "Nadia", character
    )
    weight = np.where(policy == "tycoon", 3.0, 1.0) * np.where(character == "Zack", 3.0, 1.0)
    cumulative = np.cumsum(weight / weight.sum(axis=1, keepdims=True), axis=1)
    winner = (rng.random((n_games, 1)) > cumulative).sum(axis=1)
    games, players = contract_tables(rng, n_games, n, winner, list(lineup), 12, "year_12")
    players = players.with_columns(
        pl.Series("policy", policy.ravel()), pl.Series("character", character.ravel())
    )
    path = write_dataset(
        tmp_path / "chars", "karnaxis", n, {"games": games, "players": players}, length_unit="years"
    )
    page = write_report([path], tmp_path / "c.html").read_text()
    flags = flags_text(page)
    zack = re.search(
        r"players who keep character Zack win [\d.]+% \(95% CI [^)]*\) against "
        r"([\d.]+)% for players of the same policies with another character: "
        r"\+([\d.]+) points",
        flags,
    )
    assert zack, flags
    # Zack triples his player's weight: about +25 points over the same policies' other players
    assert 15 < float(zack.group(2)) < 35
    assert "character Nadia" not in flags
    table = page[page.index("id='ds0-attribution-character'") :]
    nadia = re.search(r"<td>Nadia</td>(.*?)</tr>", table).group(1)
    assert nadia.endswith("<td>yes</td>"), "Nadia's raw rate is marked confounded"


def test_report_on_real_ekonos_data(tmp_path_factory, tmp_path):
    ds = real_ekonos(tmp_path_factory.getbasetemp())
    page = write_report([ds], tmp_path / "ek.html").read_text()
    assert_self_contained(page)
    for title in (
        "Score split: cash against holdings",
        "Company values at the end",
        "Presidency advantage",
        "Seat advantage by player count",
        "Final score by policy",
        "Margin of victory",
    ):
        assert title in page, title
    assert "Balance flags" in page
    # the scripted cash hoarder never competes with holdings in Ekonos: flagged as hopeless
    assert re.search(
        r"a policy far below its fair share of [\d.]+%: cash_hoarder wins 0\.0%",
        flags_text(page),
    )


@pytest.mark.slow
def test_report_compares_variants_against_the_base(tmp_path):
    from simulator.analysis import Dataset, summarise
    from simulator.core.game import get_game
    from simulator.run.plan import Plan, Variant
    from simulator.run.runner import execute

    game = get_game("ekonos")
    variants = [
        Variant("base", game.rules(), {"start_money": 0}),
        Variant("start_12", game.rules(sets=("setup.start_money=12",)), {"start_money": 12}),
    ]
    plan = Plan(
        game="ekonos",
        n_games=600,
        n_players=4,
        seats=["value_investor", "president_seeker", "market_builder", "cash_hoarder"],
        seed=11,
        chunk_size=300,
        variants=variants,
    )
    execute(plan, tmp_path / "sweep", jobs=1, progress=False)
    res = summarise(Dataset(tmp_path / "sweep"))
    assert res["win_rate_policy"]["n"].to_list() == [600] * 4  # base variant only
    assert res["win_rate_variant"]["n"].to_list() == [2400, 2400]
    change = res["paired_change"]
    assert change["variant"].unique().to_list() == ["start_12"]
    by_policy = change.filter(
        pl.col("metric") == "mean_score", pl.col("group").str.starts_with("policy=")
    )
    assert by_policy["n"].to_list() == [600] * 4
    # 12 more M.U. at the start: the hoarder banks them, so its score rises by about 12
    hoarder = by_policy.filter(pl.col("group") == "policy=cash_hoarder").row(0, named=True)
    assert (
        9 < hoarder["mean_diff"] < 13
        and hoarder["diff_lo"] < hoarder["mean_diff"] < hoarder["diff_hi"]
    )
    page = write_report([tmp_path / "sweep"], tmp_path / "sweep.html").read_text()
    assert_self_contained(page)
    # every variant's players win the fair share on average: no chart of win rate by variant
    assert "<h4>Change against the base rules" in page and "Win rate by variant" not in page
    paired = page[page.index("id='ds0-paired'") :]
    assert re.search(r"Largest change: start_12 · \w+, [+−-]\d+\.\d points", paired)
    assert "(fraction)" not in page


def flag(n_players, kind, subject, effect, effect_low, text="", where="", games=4_000):
    return Flag(
        "g",
        n_players,
        kind,
        subject,
        effect,
        effect_low,
        text or f"{kind} {subject} {n_players}",
        f"{effect:.0%}",
        where or f"{n_players} players",
        "a",
        "c",
        games=games,
    )


def test_flags_merge_one_per_finding_and_rank_by_the_certain_effect():
    flags = [flag(n, "seat", "seat 0", 1.0 / n, 0.5 / n) for n in (3, 4, 5)] + [
        flag(4, "dominant character", "Nadia", 3.0, 0.1),  # large but uncertain
        flag(6, "dominant character", "Nadia", 2.0, 0.4),
        flag(4, "round_cap", "", 0.5, 0.3),
    ]
    merged = merge_flags(flags)
    assert [(f.kind, f.subject, f.n_players) for f in merged] == [
        ("dominant character", "Nadia", 6),
        ("round_cap", "", 4),
        ("seat", "seat 0", 3),
    ]
    assert [g.n_players for g in merged[0].also] == [4]
    assert [g.n_players for g in merged[2].also] == [4, 5]
    item = flag_item(merged[2])
    assert "Holds at 3, 4, 5 players." in item and "4 players: 25%" in item
    assert THRESHOLDS["seat_p_value"] < 0.05


def test_at_most_five_flags_first_and_the_rest_folded():
    page = flags_html([flag(4, "dominant policy", f"p{k}", 1.0 + k, 0.5 + k) for k in range(8)])
    first, fold = page.split("<details>")
    assert first.count("<li>") == 5 and fold.count("<li>") == 3
    assert first.index("p7") < first.index("p6")  # the strongest first
    assert "3 more flag(s)" in fold
    assert "(scripted field, 4,000 games)" in first


def test_a_flag_on_too_few_games_is_never_on_the_first_screen():
    """The strongest finding rests on 300 games per arm: it goes under the fold, saying so,
    and the five with a decision basis are the first screen's."""
    few = flag(4, "dominant policy", "lucky", 9.0, 8.0, games=300)
    few.field_name = "search"
    page = flags_html(
        [few] + [flag(4, "dominant policy", f"p{k}", 1.0 + k, 0.5 + k) for k in range(5)]
    )
    first, fold = page.split("<details>")
    assert "lucky" not in first and first.count("<li>") == 5
    assert "(search field, 300 games)" in fold
    assert f"Rests on 300 games per arm, fewer than the {MIN_BASIS_GAMES:,}" in fold


def test_flag_annotations_render_only_when_set():
    bare = flag(4, "dominant character", "Nadia", 2.0, 1.0)
    assert "strong players" not in flag_item(bare) and "assumed values" not in flag_item(bare)
    bare.strong_field = FieldCheck(
        HOLDS, "80.6% (95% CI 79.7%–81.5%)", "71.0% (95% CI 69.0%–73.0%)", "scripted", "tuned"
    )
    bare.sensitivity = Sensitivity(
        keys=("business.income_max_usd",),
        depends=("business.income_max_usd (+10.5 points over its range, 95% CI +8.0 to +13.0)",),
        screened=2,
    )
    item = flag_item(bare)
    assert (
        "Holds at every strength: 80.6% (95% CI 79.7%–81.5%) with the scripted field, 71.0% "
        "(95% CI 69.0%–73.0%) with the tuned field" in item
    )
    assert "Depends on ASSUMED values: business.income_max_usd (+10.5 points over its" in item
    assert FieldCheck(FLIPS, "+6.7", "−28.0").text().startswith("depends on player strength")
    assert "not shown with the scripted field" in FieldCheck(NOT_SHOWN, "a", "b").text()


def test_p_values_below_the_floor_are_not_zero():
    assert p_text(0.0) == "p < 1e-300" and p_text(1e-320) == "p < 1e-300"
    assert cell("p_value", 0.0) == "&lt; 1e-300" and cell("p_holm", 5e-301) == "&lt; 1e-300"
    assert p_text(0.012) == "p = 0.012" and cell("p_value", 2.5e-7) == "2.5e-07"


@pytest.mark.slow
def test_study_plans_cover_every_game_and_run_small(small_study):
    from simulator.core.game import GAME_NAMES, get_game
    from simulator.studies.study import studied_games

    plans = study_plans()
    assert {plan.game for _, plan in plans} == set(studied_games())
    assert all(get_game(name).study.in_study == (name in studied_games()) for name in GAME_NAMES)
    for folder, plan in plans:
        game = get_game(plan.game)
        assert plan.n_players in game.player_counts and not plan.fixed_seats
        assert len(plan.seats) == plan.n_players and "random" not in plan.seats
        spec = game.study
        if folder.endswith("-strong"):  # a strong field plays fewer games, fewer with search
            size = spec.strong_search_games if "search" in plan.seats else spec.strong_games
        else:
            size = spec.n_games
        assert plan.n_games == size
    dirs = small_study["dirs"]
    assert [d.name for d in dirs] == [folder for folder, _ in plans]
    lines = small_study["output"].splitlines()
    for folder, _ in plans:  # each dataset's line says its games and when it was done
        done = rf"{folder}: [\d,]+ games, done [\d.]+ s into the batch -> "
        assert any(re.match(done, line) for line in lines), folder
    batch = rf"{len(plans)} datasets: [\d,]+ games played in [\d.]+ s \([\d,]+ games/s\)"
    assert any(re.match(batch, line) for line in lines), lines  # they play as one batch
    assert all((d / "manifest.json").exists() for d in dirs)
    page = small_study["report"].read_text()
    assert page.count("<section>") >= len(dirs) and "Balance flags" in page
    # every game's attribution table is in the report
    for i, d in enumerate(dirs):
        assert f"id='ds{i}-attribution'" in page, d.name


def test_a_chart_of_large_numbers_writes_them_in_full_under_its_title():
    """Nothing but the title goes above a chart's axes (no '1e6' offset for it to dodge)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from simulator.report.charts import box_chart

    df = pl.DataFrame(
        {
            "policy": ["a", "b"],
            "p5": [5.5e5, 6e5],
            "p25": [6.7e5, 6.3e5],
            "p50": [7.4e5, 7.3e5],
            "p75": [8.4e5, 9.3e5],
            "p95": [9.5e5, 1.14e6],
            "mean": [7.5e5, 7.8e5],
        }
    )
    fig = box_chart(df, "policy", "final cash (USD)", "karnaxis")
    FigureCanvasAgg(fig).draw()
    ax = fig.axes[0]
    assert ax.yaxis.get_offset_text().get_text() == ""
    assert "1000000" in [t.get_text() for t in ax.get_yticklabels()]
    assert ax.title.get_window_extent().y0 >= ax.get_window_extent().y1


@pytest.mark.parametrize("long_label", [False, True])
def test_a_chart_inline_keeps_everything_drawn_and_every_reference(long_label):
    """The page's SVG of a chart is matplotlib's tight SVG made smaller: the same texts and
    shapes, every id referred to still defined, its frame within a point of the file's."""
    from simulator.report.charts import for_page, stacked_bars, svg_file

    label = "a label much wider than the room left beside the axes " * 4 if long_label else "b"
    parts = {"cash": [1.0, 2.0], "shares held at the end of the game": [3.0, 1.0]}
    raw = svg_file(stacked_bars(["a", label], parts, "points", "t"))
    ours = for_page(raw)
    assert len(ours) < 0.8 * len(raw) and "<metadata" not in ours and "xmlns" not in ours
    texts = re.compile(r"<text[^>]*>([^<]*)</text>")
    assert texts.findall(ours) == texts.findall(raw) and label in texts.findall(ours)
    for shape in ("<path", "<use", "<rect"):
        assert ours.count(shape) == raw.count(shape), shape
    for ref in set(re.findall(r"(?:url\(#|href=\")([\w]+)", ours)):
        assert f'id="{ref}"' in ours, ref
    for side in ("width", "height"):
        size = re.compile(side + r'="([\d.]+)pt"')
        assert abs(float(size.search(ours).group(1)) - float(size.search(raw).group(1))) < 1


def dataset_columns(dirs: list[Path]) -> set[str]:
    """The snake_case column names of the datasets' tables and of their analyses' tables."""
    import pyarrow.parquet as pq

    from simulator.analysis import Dataset, summarise

    names = set()
    for d in dirs:
        for part in Path(d).glob("*/*.parquet"):  # games/, players/ and timelines
            names |= set(pq.read_schema(part).names)
    for d in dirs[:3]:  # one dataset of each game: the analyses name the same columns
        names |= {c for t in summarise(Dataset(d)).values() for c in t.columns}
    return {n for n in names if "_" in n}


@pytest.mark.slow
def test_the_study_report_speaks_plainly(small_study):
    """No column name of the datasets as a table header or a chart's text; intervals as one
    column; every glossary term linked from its first use."""
    page = small_study["report"].read_text()
    columns = dataset_columns(small_study["dirs"])
    assert {"first_win_rate_lo", "win_rate", "p_value", "end_reason"} <= columns
    headers = {
        html.unescape(re.sub(r"<[^>]+>", "", h)) for h in re.findall(r"<th>(.*?)</th>", page)
    }
    texts = {html.unescape(t).strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", page)}
    assert len(headers) > 50 and len(texts) > 500
    internal = [h for h in headers | texts if set(re.findall(r"\w+", h)) & columns]
    assert internal == []
    assert not [h for h in headers if re.search(r"[a-z]_[a-z]", h)]
    assert "95% interval" in headers and "first player's win rate (%)" in headers
    # the flags box says its thresholds in words, and every chart is inline SVG
    flags = page[page.index("<div class='flags'>") : page.index("<h2>Datasets")]
    assert [k for k in THRESHOLDS if "_" in k and k in flags] == []
    assert "at p &lt; 0.001" in flags and "<img" not in page
    # nor an engine's code as a value: how games end, read from the datasets here
    ends = {
        str(v)
        for d in small_study["dirs"]
        for v in pl.read_parquet(d / "games", columns=["end_reason"])["end_reason"].unique()
    }
    assert "round_cap" in ends
    cells = {html.unescape(c) for c in re.findall(r"<td[^>]*>([^<]*)</td>", page)}
    assert ends & cells == set() and not cells & {"top_president", "co_top_president"}
    for term in ("g-fair-share", "g-points", "g-interval", "g-paired", "g-assumed", "g-tuned"):
        assert page.count(f"href='#{term}'") == 1 and f"<dt id='{term}'>" in page, term
    # the charts' titles state what they show
    assert re.search(r"First player wins \d+(\.\d+)?% at \d players, fair share", page)
    assert "(fraction)" not in page and "Win rate by variant" not in page
    assert len(page.encode()) < 3_000_000, "the report stays a file to mail"


def test_a_table_shows_an_interval_as_one_column_in_plain_words():
    from simulator.report.page import table_html

    table = pl.DataFrame(
        {
            "policy": ["tycoon"],
            "win_rate": [0.33],
            "win_rate_lo": [0.31],
            "win_rate_hi": [0.35],
            "excess": [0.081],
            "mean_tax_usd": [12_345.6],
            "p_holm": [0.0042],
        }
    )
    text = table_html(table)
    heads = re.findall(r"<th>(.*?)</th>", text)
    assert heads == [
        "policy",
        "win rate (%)",
        "95% interval",
        "over expected (points)",
        "mean tax (USD)",
        "p-value (Holm-corrected)",
    ]
    cells = re.findall(r"<td[^>]*>(.*?)</td>", text)
    assert cells == ["tycoon", "33.0%", "31.0%–35.0%", "+8.1", "$12,346", "0.0042"]


@pytest.mark.slow
def test_charts_are_exported_as_svg_and_2x_png_named_after_their_section(planted, tmp_path):
    from PIL import Image

    charts = tmp_path / "charts"
    page = write_report([planted["first"]], tmp_path / "r.html", charts=charts).read_text()
    drawn = page.count("<svg role='img' class='chart'")
    svgs, pngs = sorted(charts.glob("*.svg")), sorted(charts.glob("*.png"))
    assert drawn > 5 and len(svgs) == len(pngs) == drawn
    assert [p.stem for p in svgs] == [p.stem for p in pngs]
    assert (charts / "first-player-win-rate-by-seat.svg").exists()
    seat = (charts / "first-player-win-rate-by-seat.svg").read_text()
    width_pt = float(re.search(r'width="([\d.]+)pt"', seat).group(1))
    width_px = Image.open(charts / "first-player-win-rate-by-seat.png").size[0]
    assert abs(width_px - 2 * width_pt * 96 / 72) <= 3  # twice the size of the page's chart
    assert (
        "First player wins"
        in (charts / "ekonos-all-player-counts-seat-advantage-by-player-count.svg").read_text()
    )


@pytest.mark.slow
def test_report_command_writes_the_charts_beside_the_page(planted, tmp_path):
    from click.testing import CliRunner

    from simulator.cli import cli

    out, charts = tmp_path / "r.html", tmp_path / "slides"
    result = CliRunner().invoke(
        cli, ["report", str(planted["first"]), "-o", str(out), "-j", "1", "--charts", str(charts)]
    )
    assert result.exit_code == 0, result.output
    names = {p.stem for p in charts.iterdir()}
    assert out.read_text().count("<svg role='img' class='chart'") == len(names) > 5
    assert all((charts / f"{n}.svg").exists() and (charts / f"{n}.png").exists() for n in names)


def test_the_ratings_chart_is_titled_by_the_skill_depth(tmp_path):
    from simulator.report.charts import save
    from simulator.report.skill import ratings_chart

    rung = lambda name, v: {"rung": name, "value": v, "low": v - 20, "high": v + 20}  # noqa: E731
    record = {
        "step": 0.6,
        "variants": [
            {
                "ratings": [rung("random", 0.0), rung("tuned", 700.0), rung("search_16", 900.0)],
                "reference": "random",
                "strongest": "search_16",
                "depth": {"value": 12.8, "low": 12.2, "high": 13.4},
            }
        ],
    }
    fig = ratings_chart(record)
    ax = fig.axes[0]
    assert ax.get_title() == "12.8 steps of 60% from random to search_16"
    assert ax.get_xlabel() == "rating (Elo points, random = 0)"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["random", "tuned", "search_16"]
    svg, png = save(fig, tmp_path, "skill-karnaxis-4p")
    assert "12.8 steps" in svg.read_text() and png.read_bytes()[:4] == b"\x89PNG"
    # random never finished above anyone: the ratings have no upper end, drawn off the chart
    for row in record["variants"][0]["ratings"][1:]:
        row["high"] = None
    assert ratings_chart(record).axes[0].get_title().startswith("12.8 steps")


def test_the_seat_section_shows_every_field_and_says_when_line_ups_differ():
    from types import SimpleNamespace

    from simulator.report.sections import game_section

    def member(i, n, seats, field):
        frame = pl.DataFrame(
            {
                "n_players": [n],
                "n_games": [1000],
                "first_win_rate": [0.3],
                "first_win_rate_lo": [0.27],
                "first_win_rate_hi": [0.33],
                "fair_share": [1 / n],
            }
        )
        ds = SimpleNamespace(n_players=n, manifest={"seats": seats}, field=field)
        return (i, ds, {"seat_advantage": frame})

    members = [
        member(0, 2, ["scholar", "tycoon"], "scripted"),
        member(1, 4, ["scholar", "tycoon", "gambler", "speculator"], "scripted"),
        member(2, 4, ["scholar_tuned"] * 4, "tuned"),
    ]
    page = game_section("g", members, lambda ds: ds.field)
    assert "The scripted line-ups differ between player counts (2 players: scholar, tycoon; " in (
        page
    )
    assert "tuned line-ups differ" not in page  # one count only
    assert "4p tuned" in page and "4p scripted" in page and "2p scripted" in page
    same = game_section(
        "g", members[1:2] + [member(3, 6, members[1][1].manifest["seats"], "scripted")]
    )
    assert "line-ups differ" not in same
