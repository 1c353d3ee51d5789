"""The search finished by the learned value beside today's search, at equal CPU per game.

For each game whose search reads the learned player (a search knob ``learned_value``) and each
player count asked, on fresh seeds and the very same games (same seeds, same seat orders):

* ``today``: today's search seat (``search``, the printed budget; its team in team mode)
  against copies of the strongest tuned policy;
* ``learned value``: the search with ``learned_value = 1`` and the budget given (``--rollouts``,
  ``--horizon``, ``--top-k``) in its place: it keeps the learned player's pick unless a rival
  beats it, and values its rollouts at their horizon by the learned weights;
* ``head to head``: one seat of each, the rest the strongest tuned policy, balanced seating
  (in team mode each search's side wins with its teammate).

Win shares with their Wilson 95% intervals; the head-to-head difference (learned value minus
today, the same games) with the normal interval of the mean of the per-game differences.
Games/s is the CPU time of the engine's play calls of each alone line-up in this one process
(after a first call has loaded the kernels), the line-ups alternating chunk by chunk, so the
machine's drift falls on all alike; "CPU ×" is the learned-value search's CPU per game over
today's.  Writes bench/results/search-strength.csv and the table in docs/search.md between
its ``search:begin`` and ``search:end`` marks (``--render``: the table again from the file).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from learned_strength import (
    STRONGEST,
    paired,
    percent,
    points,
    read_rows,
    row,
    run_record,
    save_rows,
    share,
    write_between,
)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from simulator.core.game import LEARNED_VALUE_KNOB, SEARCH_POLICY, get_game  # noqa: E402
from simulator.core.rng import game_seeds  # noqa: E402
from simulator.experiments.lab import Design, batch_ids, seated_plan  # noqa: E402
from simulator.experiments.learn import with_learned  # noqa: E402
from simulator.experiments.tune import line_up  # noqa: E402
from simulator.run.plan import seat_policy_ids, with_knob_sets  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "search-strength.csv"
DOC = ROOT / "docs" / "search.md"
BEGIN, END = "<!-- search:begin -->", "<!-- search:end -->"
NEW = "search_learned"  # the knob set this script plays beside today's search
CHUNK = 100
ROLES = ("today", "learned value", "h2h today", "h2h learned value", "h2h difference")  # rows
GAMES_WITH = ("ekonos", "karmaggan", "karnaxis")  # the games whose search reads the learned player


def measure(game_name: str, n_players: int, n_games: int, seed: int, budget: dict) -> list[dict]:
    """The three line-ups' rows and the head-to-head difference's (module docstring)."""
    game = get_game(game_name)
    new = {"base": SEARCH_POLICY, LEARNED_VALUE_KNOB: 1, **budget}
    rules = with_knob_sets(with_learned(game, game.rules(), n_players), {NEW: new})
    field = [STRONGEST[game_name]]
    both = [SEARCH_POLICY, NEW, *field * (n_players - 2)]
    lineups = {
        "today": line_up(rules, SEARCH_POLICY, field, n_players),
        "learned value": line_up(rules, NEW, field, n_players),
        "head to head": tuple(both),
    }
    old_id, new_id = (game.policy(name, rules).id for name in (SEARCH_POLICY, NEW))
    params = game.prepare(rules, n_players)
    won = {key: [] for key in ("today", "learned value", "h2h today", "h2h learned value")}
    cpu = {role: 0.0 for role in lineups}
    for chunk in range(-1, math.ceil(n_games / CHUNK)):  # chunk -1: loading the kernels
        size = 2 if chunk < 0 else min(CHUNK, n_games - chunk * CHUNK)
        ids = batch_ids(max(chunk, 0), size)
        seeds = game_seeds(seed, ids)
        for role, lineup in lineups.items():
            seats = seat_policy_ids(game, seated_plan(Design(game_name, lineup, seed), rules), ids)
            start = time.process_time()
            played = game.play(params, seeds, seats)
            if chunk < 0:
                continue
            cpu[role] += time.process_time() - start
            game_won = np.asarray(played["players"]["won"], bool)
            if role == "head to head":
                won["h2h today"].append((game_won & (seats == old_id)).any(axis=1))
                won["h2h learned value"].append((game_won & (seats == new_id)).any(axis=1))
            else:
                mine = seats == (old_id if role == "today" else new_id)
                won[role].append((game_won & mine).any(axis=1))
    w = {key: np.concatenate(v).astype(float) for key, v in won.items()}
    rows = []
    for role in ("today", "learned value"):
        lineup = ",".join(lineups[role])
        rows.append(row(game_name, n_players, role, lineup, seed, w[role], share(w[role])))
        rows[-1].update(cpu_s=round(cpu[role], 2), games_per_s=round(len(w[role]) / cpu[role], 1))
    for key in ("h2h today", "h2h learned value"):
        rows.append(row(game_name, n_players, key, ",".join(both), seed, w[key], share(w[key])))
    diff = w["h2h learned value"] - w["h2h today"]
    rows.append(row(game_name, n_players, "h2h difference", "", seed, diff, paired(diff)))
    rows[-1]["games_per_s"] = round(cpu["learned value"] / cpu["today"], 2)  # the CPU ratio
    for r in rows:
        r["budget"] = " ".join(f"{k}={v}" for k, v in new.items() if k != "base")
    return rows


def verdict(diff: dict) -> str:
    if diff["low"] > 0:
        return "learned value stronger"
    if diff["high"] < 0:
        return "today's stronger"
    return "not told apart"


def table(rows: list[dict]) -> str:
    lines = [
        "| game | players | learned-value budget | alone: today | alone: learned value "
        "| head to head: today | head to head: learned value | difference (points) | so "
        "| CPU × |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    by = {(r["game"], r["players"], r["role"]): r for r in rows}
    for game_name, n in dict.fromkeys((r["game"], r["players"]) for r in rows):
        today, new, h_today, h_new, diff = (by[game_name, n, role] for role in ROLES)
        lines.append(
            f"| {game_name} | {n} | {diff['budget']} | {percent(today)} | {percent(new)} "
            f"| {percent(h_today)} | {percent(h_new)} | {points(diff)} | {verdict(diff)} "
            f"| {diff['games_per_s']}× |"
        )
    return "\n".join(lines)


def write_doc(rows: list[dict]) -> None:
    """The table of every game's rows, after a line per run saying how it was measured."""
    runs = []
    for game_name in dict.fromkeys(r["game"] for r in rows):
        first = next(r for r in rows if r["game"] == game_name)
        runs.append(
            f"{game_name}: `{first['command']}` at {first['commit']}, {first['date']}, load "
            f"{first['load']}: {first['games']:,} games a line-up on seed {first['seed']}."
        )
    write_between(DOC, (BEGIN, END), RESULTS, runs, table(rows))


def read_results() -> list[dict]:
    return read_rows(RESULTS, ("win", "low", "high"))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games a line-up")
    parser.add_argument("--seed", type=int, default=909, help="never used for tuning or fits")
    parser.add_argument("--players", type=int, nargs="*", default=[4])
    parser.add_argument("--game", choices=GAMES_WITH, nargs="*", help="[default: every one]")
    parser.add_argument("--rollouts", type=int, help="[default: today's search's]")
    parser.add_argument("--horizon", type=int, help="[default: today's search's]")
    parser.add_argument("--top-k", type=int, help="[default: today's search's]")
    parser.add_argument("--render", action="store_true", help="only write the doc's table")
    args = parser.parse_args(argv)
    if args.render:
        write_doc(read_results())
        return
    run = run_record("search_strength.py", argv)
    budget = {
        k: v
        for k, v in (("rollouts", args.rollouts), ("horizon", args.horizon), ("top_k", args.top_k))
        if v is not None
    }
    games = args.game or list(GAMES_WITH)
    kept = [r for r in (read_results() if RESULTS.exists() else []) if r["game"] not in games]
    rows = []
    for game_name in games:
        for n in args.players:
            rows += [{**r, **run} for r in measure(game_name, n, args.games, args.seed, budget)]
            print(table(rows), flush=True)
    save_rows(RESULTS, kept + rows)
    write_doc(read_results())


if __name__ == "__main__":
    main()
