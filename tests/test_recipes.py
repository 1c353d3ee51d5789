"""balsim ask: each recipe on a small budget; its sentence's numbers recomputed from the dataset
it wrote, with plain polars written here (not the recipe's own code)."""

import json
import math

import numpy as np
import polars as pl
from click.testing import CliRunner

from simulator.cli import cli
from simulator.core.stats import Z95
from simulator.report.page import pct
from simulator.studies.recipes import BLOOD_COINS, EKONOS_VARIANTS, RECIPES, ask, tax_table

GAMES = 48  # per variant: two whole rounds of the 24 seat orders of four distinct policies


def run(name, tmp_path):
    out = tmp_path / name
    answer = ask(RECIPES[name], out, games=GAMES, seed=3, jobs=1, progress=False)
    players = pl.read_parquet(out / "dataset" / "players").with_columns(
        pl.col("variant").cast(pl.String)
    )
    games = pl.read_parquet(out / "dataset" / "games").with_columns(
        pl.col("variant").cast(pl.String)
    )
    summary = json.loads((out / "balsim.json").read_text())
    assert summary["sentence"] == answer.sentence
    assert (out / "report.html").read_text().count(answer.sentence.split(":")[0]) >= 1
    return out, answer, players, games


def level(values) -> tuple[float, float, float]:
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    half = Z95 * x.std(ddof=1) / math.sqrt(len(x))
    return x.mean(), x.mean() - half, x.mean() + half


def points(x: float) -> str:
    return f"{100 * x:+.1f}".replace("-", "−") + " points"


def per_game(players: pl.DataFrame, variant: str, expr: pl.Expr) -> np.ndarray:
    return (
        players.filter(pl.col("variant") == variant)
        .group_by("game_id")
        .agg(expr.alias("v"))
        .sort("game_id")["v"]
        .cast(pl.Float64)
        .to_numpy()
    )


WON = pl.col("won").cast(pl.Float64)


def edge_of(policy: str) -> pl.Expr:
    return WON.filter(pl.col("policy") == policy).mean() - WON.mean()


def leader(players: pl.DataFrame, variant: str) -> str:
    rates = players.filter(pl.col("variant") == variant).group_by("policy").agg(WON.mean())
    return rates.sort("won", "policy", descending=[True, False])["policy"][0]


def test_blood_coins_sentence_matches_the_dataset(tmp_path):
    out, answer, players, games = run("blood-coins", tmp_path)
    coins = {
        v: int(v.removeprefix("coins_")) if v != "printed" else 4
        for v in players["variant"].unique().to_list()
    }
    assert sorted(coins.values()) == list(BLOOD_COINS)
    # the starting team is seat 0's: its label is drawn each game, so read it off seat 0
    starting = pl.col("team") == pl.col("team").filter(pl.col("seat") == 0).first()
    gap = WON.filter(starting).mean() - WON.filter(~starting).mean()
    gaps = {v: level(per_game(players, v, gap)) for v in coins}
    best = min(gaps, key=lambda v: abs(gaps[v][0]))
    assert f"smallest at {coins[best]} coins" in answer.sentence
    assert f"{points(gaps[best][0])} (95% CI" in answer.sentence
    team0 = level(per_game(players, "printed", WON.filter(starting).mean()))
    assert (
        f"starting team (seat 0's) wins {pct(team0[0])} (95% CI {pct(team0[1])}–{pct(team0[2])})"
    ) in answer.sentence
    few = [v for v in coins if coins[v] == 2][0]
    length = level(games.filter(pl.col("variant") == few).sort("game_id")["length"].to_numpy())
    assert (
        f"last {length[0]:.1f} rounds (95% CI {length[1]:.1f}–{length[2]:.1f}) with 2 coins"
        in answer.sentence
    )
    balanced = gaps[best][1] <= 0 <= gaps[best][2]
    assert ("balanced within the noise" in answer.sentence) == balanced


def test_loans_sentence_matches_the_dataset(tmp_path):
    out, answer, players, games = run("loans", tmp_path)
    manifest = json.loads((out / "dataset" / "manifest.json").read_text())
    caps = {v["name"]: v["rules"]["loans"]["cap_usd"] for v in manifest["variants"]}
    top = leader(players, "printed")
    assert f"{top}, the leading policy" in answer.sentence
    binding = level(
        per_game(
            players,
            "printed",
            (pl.col("peak_loans_outstanding_usd") >= caps["printed"]).cast(pl.Float64).mean(),
        )
    )
    assert (
        f"binds for {pct(binding[0])} of players (95% CI {pct(binding[1])}–{pct(binding[2])})"
        in answer.sentence
    )
    late = level(
        per_game(players, "printed", (pl.col("delinquent_notices") > 0).cast(pl.Float64).mean())
    )
    assert f"{pct(late[0])} get a delinquent notice" in answer.sentence
    edges = {v: level(per_game(players, v, edge_of(top))) for v in caps}
    best = min(edges, key=lambda v: abs(edges[v][0]))
    assert f"closest to the fair share is ${caps[best]:,}" in answer.sentence
    assert points(edges[best][0]) in answer.sentence


def test_tax_brackets_sentence_matches_the_dataset(tmp_path):
    out, answer, players, games = run("tax-brackets", tmp_path)
    years = pl.read_parquet(out / "dataset" / "years").with_columns(
        pl.col("variant").cast(pl.String)
    )
    printed = years.filter(pl.col("variant") == "printed")
    per_bracket = {
        b: level(
            printed.group_by("game_id")
            .agg((pl.col("tax_bracket") == b).cast(pl.Float64).mean())
            .sort("game_id")["tax_bracket"]
            .to_numpy()
        )
        for b in printed["tax_bracket"].unique().to_list()
    }
    top = max(per_bracket, key=lambda b: per_bracket[b][0])
    share = per_bracket[top]
    assert f"bracket ({pct(share[0])}, 95% CI {pct(share[1])}–{pct(share[2])})" in answer.sentence
    policy = leader(players, "printed")
    a = per_game(players, "printed", edge_of(policy))
    b = per_game(players, "flatter", edge_of(policy))
    moved = level(b - a)
    assert "a flatter table" in answer.sentence
    assert f"changes {policy}'s edge by {points(moved[0])}" in answer.sentence


def test_tax_table_shapes_keep_the_order_and_the_steps():
    printed = [5000, 15000, 30000, 60000, 90000, 120000, 150000, 180000]
    flat, steep = tax_table(printed, 0.5), tax_table(printed, 1.5)
    assert flat == sorted(flat) and steep == sorted(steep)
    assert max(flat) - min(flat) < max(printed) - min(printed) < max(steep) - min(steep)
    assert all(t % 5000 == 0 and t >= 0 for t in flat + steep)
    assert tax_table(printed, 1.0) == printed


def president_edges(players: pl.DataFrame, games: pl.DataFrame, variant: str) -> tuple:
    """The presidency edge of one variant: per game with a single most valuable company, its
    president's win minus the average player's."""
    values = [f"company{c}_value" for c in range(6)]
    g = games.filter(pl.col("variant") == variant).to_pandas().set_index("game_id")
    edges = []
    for game_id, seats in (
        players.filter(pl.col("variant") == variant).to_pandas().groupby("game_id")
    ):
        v = g.loc[game_id, values].to_numpy()
        if (v == v.max()).sum() != 1:
            continue
        company = int(np.argmax(v))
        president = seats[seats[f"company{company}_president"]]
        edges.append(president["won"].mean() - seats["won"].mean() if len(president) else np.nan)
    return level(edges)


def test_scoring_sentence_matches_the_dataset(tmp_path):
    out, answer, players, games = run("scoring", tmp_path)
    holdings = level(
        per_game(
            players.filter(pl.col("won") & (pl.col("score") > 0)),
            "printed",
            (pl.col("holdings_value") / pl.col("score")).mean(),
        )
    )
    assert f"winners hold {pct(holdings[0])} of their final score in shares" in answer.sentence
    edge = president_edges(players, games, "printed")
    assert f"wins {points(edge[0])} over the fair share" in answer.sentence
    # every scoring change plays the same games: only the scores differ
    changed = list(EKONOS_VARIANTS)  # in the order tried: the first of tied edges is named
    assert sorted(players["variant"].unique().to_list()) == sorted(["printed", *changed])
    same = ["game_id", "seat", "policy", "cash", "holdings_value"]
    base = players.filter(pl.col("variant") == "printed").select(same).sort("game_id", "seat")
    for name in changed:
        assert (
            players.filter(pl.col("variant") == name)
            .select(same)
            .sort("game_id", "seat")
            .equals(base)
        )
    # the sentence ends naming the change whose edge is nearest zero, with its interval
    edges = {n: president_edges(players, games, n) for n in changed}
    best = min(changed, key=lambda n: abs(edges[n][0]))
    mean, lo, hi = edges[best]
    change = ", ".join(f"{k} = {v}" for k, v in EKONOS_VARIANTS[best].items())
    shown = (
        f"{change}: {points(mean)} (95% CI {100 * lo:+.1f} to {100 * hi:+.1f}".replace(" -", " −")
        .replace("(-", "(−")
        .replace("to -", "to −")
    )
    removes = lo <= 0 <= hi
    ending = (
        f"; {change} removes it: "
        if removes
        else f"; none of the changes tried removes it; the nearest is {change}: "
    )
    assert ending in answer.sentence and answer.sentence.endswith(
        ("balanced within the noise)." if removes else "still off balance).")
    )
    assert shown.split(": ", 1)[1] in answer.sentence.rsplit(ending, 1)[1]
    assert answer.numbers["best_change"] == change


def test_ask_help_lists_the_four_questions_and_refuses_bad_input(tmp_path):
    result = CliRunner().invoke(cli, ["ask", "--help"])
    assert result.exit_code == 0
    for name in RECIPES:
        assert name in result.output
    bad = CliRunner().invoke(cli, ["ask", "dice"])
    assert bad.exit_code == 2 and "Error:" in bad.output
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "keep.txt").write_text("mine")
    taken = CliRunner().invoke(cli, ["ask", "scoring", "--out", str(tmp_path / "x")])
    assert taken.exit_code == 2 and "not empty" in taken.output
    assert (tmp_path / "x" / "keep.txt").read_text() == "mine"


def test_ask_prints_the_sentence_it_wrote(tmp_path):
    out = tmp_path / "scoring"
    result = CliRunner().invoke(
        cli, ["ask", "scoring", "-n", str(GAMES), "-j", "1", "-q", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "balsim.json").read_text())
    assert result.output.splitlines()[0] == summary["sentence"]
    assert summary["games_per_variant"] == GAMES and summary["question"] == "scoring"
    again = CliRunner().invoke(
        cli, ["ask", "scoring", "-n", str(GAMES), "-j", "1", "-q", "--out", str(out), "--force"]
    )
    assert again.exit_code == 0 and again.output.splitlines()[0] == summary["sentence"]


def test_crossing_names_the_neighbours_on_either_side_of_zero():
    from simulator.studies.recipes import crossing

    values = {"a": 50, "b": 25, "c": 75}
    assert (
        crossing(values, {"a": -0.05, "b": -0.2, "c": 0.04}, str)
        == "; it changes sign between 50 (−5.0 points) and 75 (+4.0 points)"
    )
    assert crossing(values, {"a": 0.05, "b": 0.2, "c": 0.04}, str) == ""
