"""balsim ask: each question on a small budget, its edges re-derived from the dataset it
wrote with plain polars written here (not the question's own code), its decision re-made
from them, and the answer the same in the terminal, the page and balsim.json."""

import html
import json
import re
from dataclasses import replace

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner
from test_analysis import write_dataset

from simulator.analysis import Dataset
from simulator.cli import cli
from simulator.core.decisions import Balance, Choice, Edge
from simulator.experiments.field import SCRIPTED, TUNED, Field
from simulator.studies.recipes import RECIPES, ask, blood_coins, look_sizes, scoring
from simulator.studies.recipes.common import mean_ci
from simulator.studies.recipes.taxes import tax_table
from simulator.studies.recipes.words import headline

GAMES = 48  # budget per variant: two whole rounds of the 24 seat orders of four policies
WON = pl.col("won").cast(pl.Float64)


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("BALSIM_CACHE_DIR", str(tmp_path / "cache"))


def run(name, tmp_path, games=GAMES, seed=3, fields=(SCRIPTED,)):
    out = tmp_path / name
    asked = ask(
        RECIPES[name],
        out,
        games,
        seed,
        jobs=1,
        progress=False,
        exploit=False,
        fields=[Field(f) for f in fields],
    )
    return out, asked, json.loads((out / "balsim.json").read_text())


def frames(out, field=SCRIPTED):
    where = out / f"dataset-{field}"
    read = [
        pl.read_parquet(where / t).with_columns(pl.col("variant").cast(pl.String))
        for t in ("players", "games")
    ]
    return read[0], read[1], json.loads((where / "manifest.json").read_text())


def mean_se(x) -> tuple[float, float, int]:
    x = np.asarray(x, dtype=float)
    x = x[np.isfinite(x)]
    return float(x.mean()), float(x.std(ddof=1) / np.sqrt(len(x))), len(x)


def policy_edges(players: pl.DataFrame, variant: str) -> dict[str, np.ndarray]:
    rows = players.filter(pl.col("variant") == variant)
    out = {}
    for policy in rows["policy"].unique().to_list():
        out[policy] = (
            rows.group_by("game_id")
            .agg(WON.filter(pl.col("policy") == policy).mean() - WON.mean())
            .sort("game_id")["won"]
            .to_numpy()
        )
    return out


def team_edges(players: pl.DataFrame, variant: str) -> dict[str, np.ndarray]:
    rows = players.filter(pl.col("variant") == variant)
    side = pl.col("side").cast(pl.String)
    gap = (WON.filter(side == "starting").mean() - WON.filter(side == "other").mean()) / 2
    return {
        "the starting team": rows.group_by("game_id").agg(gap).sort("game_id")["won"].to_numpy()
    }


def first_seat_edges(players: pl.DataFrame, variant: str) -> dict[str, np.ndarray]:
    """Per game: seat 0's win minus the average seat's (Pig's head start)."""
    rows = players.filter(pl.col("variant") == variant)
    gap = WON.filter(pl.col("seat") == 0).mean() - WON.mean()
    return {"the first seat": rows.group_by("game_id").agg(gap).sort("game_id")["won"].to_numpy()}


def president_edges(players: pl.DataFrame, games: pl.DataFrame, variant: str) -> dict:
    """Per game with a single most valuable company at mid-game: its president's win then
    minus the average player's (NaN without a president)."""
    values = [f"company{c}_value_mid" for c in range(6)]
    g = games.filter(pl.col("variant") == variant).to_pandas().set_index("game_id")
    edges = []
    for game_id, seats in (
        players.filter(pl.col("variant") == variant).to_pandas().groupby("game_id")
    ):
        v = g.loc[game_id, values].to_numpy()
        if (v == v.max()).sum() != 1:
            continue
        president = seats[seats[f"company{int(np.argmax(v))}_president_mid"]]
        edges.append(president["won"].mean() - seats["won"].mean() if len(president) else np.nan)
    return {"the president": np.array(edges)}


def derived(name, players, games, variant):
    if name in ("loans", "tax-brackets"):
        return policy_edges(players, variant)
    if name == "blood-coins":
        return team_edges(players, variant)
    if name == "head-start":
        return first_seat_edges(players, variant)
    return president_edges(players, games, variant)


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_each_answer_s_edges_and_sides_are_the_dataset_s(name, tmp_path):
    out, asked, summary = run(name, tmp_path)
    players, games, manifest = frames(out)
    record = summary["rungs"][SCRIPTED]
    assert [v["name"] for v in manifest["variants"]] == list(record["values"])
    for variant, value in record["values"].items():
        expected = derived(name, players, games, variant)
        alpha = (1 - value["level"]) / 2
        edges = []
        for e in value["edges"]:
            x = expected[e["subject"]]
            if np.isfinite(x).sum() == 0:
                assert e["games"] == 0
                edges.append(Edge(e["subject"], np.nan, np.nan, 0))
                continue
            mean, se, n = mean_se(x)
            assert (e["edge"], e["se"], e["games"]) == (pytest.approx(mean), pytest.approx(se), n)
            edges.append(Edge(e["subject"], mean, se, n))
        assert set(expected) == {e["subject"] for e in value["edges"]}
        assert str(Balance(variant, tuple(edges), summary["margin"], alpha).side) == value["side"]
    # one answer everywhere: the three lines in balsim.json, first on the page, the same
    # names in the page's table and chart as in balsim.json
    lines = headline(asked)
    assert summary["answer"] == lines and len(lines) == 3
    page = html.unescape((out / "report.html").read_text())
    first = page.index(lines[0])
    assert first < page.index("<svg") < page.index("Every value, every field")
    for value in record["values"].values():
        assert page.count(value["label"]) >= 2, value["label"]  # the chart's axis and the table
    assert not re.search(r"\bnan\b", re.sub(r"<[^>]+>", " ", page), re.I)
    # what it rests on: every field's players and every ASSUMED value of the rules asked about
    rests = page[page.index("What this answer rests on") :]
    assert f"{SCRIPTED} field: {', '.join(manifest['seats'])}" in rests
    for label in summary["rests_on"]:
        assert f"<code>{label}</code>" in rests


def test_the_blood_coin_edge_is_in_points_of_a_win_rate(tmp_path):
    """A starting team that wins 51.5% of its games is 1.5 points over its fair share of one
    half: the old scale (starting - other, per game) called it 3 points."""
    n = 4000
    won = np.arange(n) < 0.515 * n
    seat = np.tile(np.arange(4), n)
    players = pl.DataFrame(
        {
            "game_id": np.repeat(np.arange(n), 4),
            "variant": "printed",
            "seat": seat,
            "side": np.where(seat % 2 == 0, "starting", "other"),
            "policy": "p",
            "won": np.where(seat % 2 == 0, np.repeat(won, 4), ~np.repeat(won, 4)),
        }
    )
    games = pl.DataFrame({"game_id": np.arange(n), "variant": "printed", "length": 10.0})
    path = write_dataset(
        tmp_path / "d", "karmaggan", 4, {"games": games, "players": players}, variants=("printed",)
    )
    frame = blood_coins.team_edges(Dataset(path))
    assert frame["the starting team"].mean() == pytest.approx(0.015)


def test_a_scoring_that_stops_all_investing_is_said_to_break_the_game(tmp_path):
    """Under a presidency that costs 20 points or more the players stop buying shares (they
    read the scoring): the answer says it breaks the game, never 'not measurable', and never
    recommends it."""
    out, asked, summary = run("scoring", tmp_path)
    values = summary["rungs"][SCRIPTED]["values"]
    broken = {n: v["breaks_the_game"] for n, v in values.items() if "breaks_the_game" in v}
    assert "scoring.per_presidency=-20" in broken
    assert all("nobody invests" in why or "winner" in why for why in broken.values())
    assert summary["rungs"][SCRIPTED]["chosen"] not in broken
    from simulator.studies.recipes.words import details

    text = "\n".join(details(asked))
    assert "scoring.per_presidency=-20: breaks the game (nobody invests" in text
    assert "not measurable" not in text


def test_an_edge_beyond_the_margin_at_every_strength_is_said_first(tmp_path):
    """Karnaxis's tycoon wins about 30 points over its fair share whatever the tax table,
    scripted or tuned: that is the answer's first sentence, and no table is balanced."""
    out, asked, summary = run("tax-brackets", tmp_path, games=1_500, fields=(SCRIPTED, TUNED))
    first = summary["answer"][0]
    assert first.startswith("At every strength the printed value is unbalanced: tycoon +")
    assert {r.decision.kind for r in asked.rungs} == {Choice.NONE}


def test_tax_table_shapes_keep_the_order_and_the_steps():
    printed = [5000, 15000, 30000, 60000, 90000, 120000, 150000, 180000]
    flat, steep = tax_table(printed, 0.5), tax_table(printed, 1.5)
    assert flat == sorted(flat) and steep == sorted(steep)
    assert max(flat) - min(flat) < max(printed) - min(printed) < max(steep) - min(steep)
    assert all(t % 5000 == 0 and t >= 0 for t in flat + steep)
    assert tax_table(printed, 1.0) == printed


def test_ask_prints_three_lines_and_the_details_only_when_asked(tmp_path):
    out = tmp_path / "loans"
    args = [
        "ask",
        "loans",
        "-n",
        str(GAMES),
        "-j",
        "1",
        "-q",
        "--out",
        str(out),
        "--field",
        "scripted",
    ]
    short = CliRunner().invoke(cli, args)
    assert short.exit_code == 0, short.output
    summary = json.loads((out / "balsim.json").read_text())
    lines = short.output.splitlines()
    assert lines[:3] == summary["answer"] and lines[4].startswith("wrote ")
    # who played and what the answer rests on, after the three lines
    assert lines[3].startswith("Measured with the scripted field: ")
    assert "loans.interest_pct = 10," in lines[3] and "notices_below_cap = true" in lines[3]
    assert len(lines) == 5 and len(short.output) <= 1500
    long = CliRunner().invoke(cli, [*args, "--force", "--verbose"])
    assert long.exit_code == 0 and long.output.splitlines()[:3] == summary["answer"]
    for value in summary["rungs"][SCRIPTED]["values"].values():
        assert f"{value['label']}: " in long.output


def test_ask_help_lists_the_four_questions_and_refuses_bad_input(tmp_path):
    result = CliRunner().invoke(cli, ["ask", "--help"])
    assert result.exit_code == 0
    for name in RECIPES:
        assert name in result.output
    assert "--margin" in result.output and "--verbose" in result.output
    bad = CliRunner().invoke(cli, ["ask", "dice"])
    assert bad.exit_code == 2 and "Error:" in bad.output
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "keep.txt").write_text("mine")
    taken = CliRunner().invoke(cli, ["ask", "scoring", "--out", str(tmp_path / "x")])
    assert taken.exit_code == 2 and "not empty" in taken.output
    assert (tmp_path / "x" / "keep.txt").read_text() == "mine"
    negative = CliRunner().invoke(cli, ["ask", "scoring", "--margin", "-1"])
    assert negative.exit_code == 2 and "--margin" in negative.output


def test_looks_double_from_an_eighth_of_the_budget_in_whole_rounds_of_seats():
    assert look_sizes(12_000) == [1_488, 2_976, 5_952, 12_000]
    assert look_sizes(200) == [24, 48, 96, 200] and look_sizes(24) == [24]


def test_a_share_s_interval_stays_within_0_and_1():
    """A rare event (1 game in 100) and a near-certain one: the normal interval of the mean
    reaches past 0 and 1, a share's is cut there; the mean is the data's either way."""
    rare = np.zeros(100)
    rare[0] = 1.0
    frame = pl.DataFrame(
        {"variant": ["base"] * 100 + ["other"] * 100, "x": np.concatenate([rare, 1 - rare])}
    )
    mean, low, high = mean_ci(frame, "x", "base", 0.95)
    assert mean == 0.01 and low < 0 < high
    assert mean_ci(frame, "x", "base", 0.95, share=True) == (0.01, 0.0, high)
    mean, low, high = mean_ci(frame, "x", "other", 0.95)
    assert high > 1 and mean_ci(frame, "x", "other", 0.95, share=True) == (mean, low, 1.0)


def test_scoring_variants_are_named_by_their_setting():
    from simulator.core.game import get_game

    game = get_game("ekonos")
    names = [v.name for v in scoring.variants(game, game.rules())]
    assert names[0] == "printed" and "scoring.per_mu=2" in names
    assert "scoring.per_presidency=-10" in names


def test_quick_answers_with_the_tuned_field_and_says_what_the_full_run_adds(tmp_path):
    out = tmp_path / "quick"
    args = ["ask", "blood-coins", "-n", str(GAMES), "-j", "1", "-q", "--out", str(out)]
    args.append("--no-exploit")
    result = CliRunner().invoke(cli, [*args, "--quick"])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "balsim.json").read_text())["fields"] == [TUNED]
    assert "Quick answer, tuned field only: `balsim ask blood-coins` adds" in result.output
    both = CliRunner().invoke(cli, [*args, "--quick", "--field", "scripted", "--force"])
    assert both.exit_code == 2 and "--quick or --field" in both.output


def test_make_run_compiles_the_engines_where_every_later_command_reads_them():
    """`make run` and a later `balsim` share one compiled-kernel cache: the Makefile sets no
    cache folder of its own (the package's default, or the user's NUMBA_CACHE_DIR, serves
    both)."""
    from pathlib import Path

    makefile = (Path(__file__).resolve().parent.parent / "Makefile").read_text()
    assert not re.search(r"^\s*(export\s+)?NUMBA_CACHE_DIR\s*[:?+]?=", makefile, re.M)


@pytest.mark.slow
def test_a_decided_value_carries_what_better_strategies_gain_against_it(tmp_path, monkeypatch):
    """With a margin of 10 points the tuned field keeps the printed blood coins; every
    scripted policy re-tuned against that field, and the search team, are its challengers:
    balsim.json holds their best gain with its simultaneous upper bound, and the answer is
    called balanced against better strategies only when that bound is within the margin."""
    monkeypatch.setenv("BALSIM_CACHE_DIR", str(tmp_path / "cache"))
    question = replace(RECIPES["blood-coins"], challenge_games=1_500, search_games=8)
    asked = ask(
        question, tmp_path / "x", 480, 3, jobs=1, progress=False, margin=0.1, fields=[Field(TUNED)]
    )
    assert asked.leading().decision.kind in (Choice.KEEP, Choice.CHANGE)
    summary = json.loads((tmp_path / "x" / "balsim.json").read_text())
    record = summary["exploitability"]
    assert record and {c["name"] for c in record["challengers"]} >= {"search"}
    best = max(record["challengers"], key=lambda c: c["win"])
    assert record["best"] == best["name"] and record["upper"] >= record["gain"]
    first = summary["answer"][0]
    if record["upper"] > 0.1:
        assert "balanced only for these players" in first and asked.exploited()
    else:
        assert "no strategy tried gains more than" in first and not asked.exploited()


def test_a_change_that_makes_the_game_pure_luck_is_said_to_remove_skill(monkeypatch):
    """The known answer of a handicap (docs/skill.md): a value under which every scripted
    policy (and so its tuned copy) blunders every move leaves random, scripted and tuned
    players equal, so changing to it moves the skill depth down, an effect; the answer's
    second line says so."""
    from types import SimpleNamespace

    import simulator.studies.recipes as recipes
    from simulator.core.game import get_game
    from simulator.core.verdicts import EFFECT

    game = get_game("ekonos")
    luck = game.rules(sets=tuple(f"policies.{p}.blunder=1" for p in game.scripted_policies))
    decision = SimpleNamespace(
        kind=Choice.CHANGE, printed=SimpleNamespace(value="printed"), chosen="luck"
    )
    lead = SimpleNamespace(decision=decision, rules={"printed": game.rules(), "luck": luck})
    asked = SimpleNamespace(
        leading=lambda: lead, question=SimpleNamespace(game="ekonos", players=3)
    )
    monkeypatch.setattr(recipes, "DEPTH_GAMES", 672)
    change = recipes.depth_moved(asked, 1, False, None, 1)
    assert change.kind == EFFECT and change.high < 0, change.text()
    lead.decision = SimpleNamespace(kind=Choice.KEEP)
    assert recipes.depth_moved(asked, 1, False, None, 1) is None


def test_the_fields_stop_together_and_are_compared_at_their_look_s_level(tmp_path):
    """Every field of an answer plays the same games per value (they stop at one look), and
    whether the answer depends on strength is tested at that look's share of the error."""
    from simulator.core.verdicts import spent_levels

    out, asked, summary = run("blood-coins", tmp_path, games=96, fields=(SCRIPTED, TUNED))
    played = {r["games_per_value"] for r in summary["rungs"].values()}
    assert len(played) == 1
    sizes = look_sizes(96)
    look = sizes.index(played.pop())
    assert summary["strength_level"] == pytest.approx(spent_levels(sizes)[look])
