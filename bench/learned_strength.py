"""The learned player's strength and cost beside the search's, on fresh seeds.

For each game with a learned player and each player count its study plays, three line-ups on
the very same games (same seeds, same seat orders): a learned seat (its team in team mode)
against copies of the strongest tuned policy, a search seat (team) in its place, and the
control (the strongest tuned policy in every seat, the learned seats' line-up positions
counted).  Each line-up's win share is the share of the games its seat (team) won, with its
Wilson 95% interval; learned minus search is paired by game (the normal interval of the mean
of the per-game differences).  Games/s is the CPU time of the engine's play calls in this one
process, after a first call of each line-up has loaded its kernels; the line-ups play in
alternating chunks, so the machine's drift falls on all alike.  Writes
bench/results/learned-strength.csv and the table in docs/search.md between its
``learned:begin`` and ``learned:end`` marks (``--render``: the table again from the file).
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from simulator.core.game import LEARNED_POLICY, SEARCH_POLICY, get_game  # noqa: E402
from simulator.core.rng import game_seeds  # noqa: E402
from simulator.core.stats import Z95, wilson  # noqa: E402
from simulator.experiments.lab import Design, batch_ids, seated_plan  # noqa: E402
from simulator.experiments.learn import with_learned  # noqa: E402
from simulator.experiments.tune import line_up  # noqa: E402
from simulator.run.plan import seat_policy_ids  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "learned-strength.csv"
DOC = ROOT / "docs" / "search.md"
BEGIN, END = "<!-- learned:begin -->", "<!-- learned:end -->"
# the strongest tuned policy of each game with a learned player (docs/search.md "Strength of
# the defaults": in Karmaggän the rusher_tuned team is the one to beat, in Ekonos
# cash_hoarder_tuned, in Karnaxis tycoon_tuned)
STRONGEST = {
    "karmaggan": "rusher_tuned",
    "ekonos": "cash_hoarder_tuned",
    "karnaxis": "tycoon_tuned",
}
CHUNK = 100
EQUAL = 0.02  # "as strong as the search": the paired interval within 2 points either side


def share(won: np.ndarray) -> tuple[float, float, float]:
    lo, hi = wilson(won.sum(), len(won))
    return float(won.mean()), float(lo), float(hi)


def paired(diff: np.ndarray) -> tuple[float, float, float]:
    mean = float(diff.mean())
    half = Z95 * float(diff.std(ddof=1)) / math.sqrt(len(diff))
    return mean, mean - half, mean + half


def measure(game_name: str, n_players: int, n_games: int, seed: int) -> list[dict]:
    """The three line-ups' rows and the paired difference's (module docstring)."""
    game = get_game(game_name)
    rules = with_learned(game, game.rules(), n_players)
    field = [STRONGEST[game_name]]
    lineups = {
        "learned": line_up(rules, LEARNED_POLICY, field, n_players),
        "search": line_up(rules, SEARCH_POLICY, field, n_players),
        "control": tuple(field * n_players),
    }
    learned_id = game.policy(LEARNED_POLICY, rules).id
    search_id = game.policy(SEARCH_POLICY, rules).id
    params = game.prepare(rules, n_players)
    won = {role: [] for role in lineups}
    cpu = dict.fromkeys(lineups, 0.0)
    for chunk in range(-1, math.ceil(n_games / CHUNK)):  # chunk -1: loading the kernels
        ids = (
            batch_ids(0, 2) if chunk < 0 else batch_ids(chunk, min(CHUNK, n_games - chunk * CHUNK))
        )
        seeds = game_seeds(seed, ids)
        for role, lineup in lineups.items():
            seats = seat_policy_ids(game, seated_plan(Design(game_name, lineup, seed), rules), ids)
            if role == "learned":  # its seats: the search's and the control's there count
                counted = seats == learned_id
            elif role == "search":  # the same seat orders, search in the learned places
                assert (counted == (seats == search_id)).all()
            start = time.process_time()
            played = game.play(params, seeds, seats)
            if chunk >= 0:
                cpu[role] += time.process_time() - start
                won[role].append((np.asarray(played["players"]["won"], bool) & counted).any(axis=1))
    rows = []
    for role in lineups:
        w = np.concatenate(won[role]).astype(float)
        rows.append(row(game_name, n_players, role, ",".join(lineups[role]), seed, w, share(w)))
        rows[-1].update(cpu_s=round(cpu[role], 2), games_per_s=round(len(w) / cpu[role], 1))
    diff = np.concatenate(won["learned"]).astype(float) - np.concatenate(won["search"])
    rows.append(row(game_name, n_players, "learned - search", "", seed, diff, paired(diff)))
    rows[-1]["games_per_s"] = round(cpu["search"] / cpu["learned"], 1)  # the ratio
    return rows


def row(game_name, n_players, role, lineup, seed, values, estimate) -> dict:
    value, lo, hi = estimate
    return {
        "game": game_name,
        "players": n_players,
        "role": role,
        "lineup": lineup,
        "seed": seed,
        "games": len(values),
        "win": round(value, 4),
        "low": round(lo, 4),
        "high": round(hi, 4),
        "cpu_s": "",
        "games_per_s": "",
    }


def percent(r: dict) -> str:
    return f"{100 * r['win']:.1f}% ({100 * r['low']:.1f}–{100 * r['high']:.1f})"


def points(r: dict) -> str:
    return f"{100 * r['win']:+.1f} ({100 * r['low']:+.1f} to {100 * r['high']:+.1f})"


def verdict(diff: dict) -> str:
    """What the paired interval shows of the learned player beside the search."""
    if diff["low"] > 0:
        return "learned stronger"
    if diff["high"] < 0:
        return "search stronger" + (" by under 2 points" if diff["low"] > -EQUAL else "")
    if -EQUAL < diff["low"] and diff["high"] < EQUAL:
        return "within 2 points"
    return "not told apart"


def table(rows: list[dict]) -> str:
    lines = [
        "| game | players | learned | search | learned − search (points) | so | control "
        "| learned games/s | search games/s | × search |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    by = {(r["game"], r["players"], r["role"]): r for r in rows}
    for game_name, n in dict.fromkeys((r["game"], r["players"]) for r in rows):
        learned, search, control, diff = (
            by[game_name, n, role] for role in ("learned", "search", "control", "learned - search")
        )
        lines.append(
            f"| {game_name} | {n} | {percent(learned)} | {percent(search)} "
            f"| {points(diff)} | {verdict(diff)} | {percent(control)} | {learned['games_per_s']:,} "
            f"| {search['games_per_s']:,} | {diff['games_per_s']}× |"
        )
    return "\n".join(lines)


def write_doc(rows: list[dict]) -> None:
    """The table of every game's rows, after a line per run saying how it was measured."""
    runs = []
    for game_name in dict.fromkeys(r["game"] for r in rows):
        mine = [r for r in rows if r["game"] == game_name]
        first = mine[0]
        lineups = "; ".join(
            f"{r['players']} players `{r['lineup']}`" for r in mine if r["role"] == "learned"
        )
        runs.append(
            f"{game_name}: `{first['command']}` at {first['commit']}, {first['date']}, load "
            f"{first['load']}: {first['games']:,} games a line-up on seed {first['seed']}; the "
            f"learned line-ups {lineups}, the search in the learned seats' places."
        )
    write_between(DOC, (BEGIN, END), RESULTS, runs, table(rows))


def write_between(doc: Path, marks: tuple[str, str], results: Path, runs: list[str], body: str):
    """``body`` (a table) in ``doc`` between its ``marks``, after a line per run."""
    begin, end = marks
    head, rest = doc.read_text(encoding="utf-8").split(begin)
    _, tail = rest.split(end)
    text = (
        f"\n{results.relative_to(ROOT)}, each game's rows from its last run:\n\n"
        + "\n\n".join(runs)
        + f"\n\n{body}\n"
    )
    doc.write_text(head + begin + text + end + tail, encoding="utf-8")


def read_rows(results: Path = RESULTS, numbers=("win", "low", "high", "games_per_s")):
    """A results file's rows, numbers as numbers."""
    with open(results, encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r.update({k: int(r[k]) for k in ("players", "seed", "games")})
        r.update({k: float(r[k]) for k in numbers})
    return rows


def run_record(script: str, argv) -> dict:
    """What a results row says of its run: the commit, the date, the load and the command."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    return {
        "commit": commit,
        "date": date.today().isoformat(),
        "load": f"{os.getloadavg()[0]:.1f}",
        "command": f"python bench/{script}"
        + "".join(f" {a}" for a in (argv if argv is not None else sys.argv[1:])),
    }


def save_rows(results: Path, rows: list[dict]) -> None:
    results.parent.mkdir(parents=True, exist_ok=True)
    with open(results, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1600, help="games a line-up")
    parser.add_argument("--seed", type=int, default=707, help="never used for tuning or fits")
    parser.add_argument("--players", type=int, nargs="*", help="[default: the study's counts]")
    parser.add_argument(
        "--game", choices=sorted(STRONGEST), nargs="*", help="[default: every game with one]"
    )
    parser.add_argument("--render", action="store_true", help="only write the doc's table")
    args = parser.parse_args(argv)
    if args.render:
        write_doc(read_rows())
        return
    run = run_record("learned_strength.py", argv)
    games = args.game or list(STRONGEST)
    kept = [r for r in (read_rows() if RESULTS.exists() else []) if r["game"] not in games]
    rows = []
    for game_name in games:
        for n in args.players or get_game(game_name).study.player_counts:
            rows += [{**r, **run} for r in measure(game_name, n, args.games, args.seed)]
            print(table(rows), flush=True)
    save_rows(RESULTS, kept + rows)  # the other games' rows as their last run left them
    write_doc(read_rows())


if __name__ == "__main__":
    main()
