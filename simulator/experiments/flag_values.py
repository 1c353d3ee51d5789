"""Per-seat and per-game values, beyond wins and scores, that the report's flags measure.

``balsim sensitivity`` (and ``tune`` and ``fit``) see a batch of games as
:class:`~simulator.experiments.metrics.Outcomes`: wins, scores, length and groups.  The presidency,
loan and runaway-leader flags measure other things, so a screen could not say which assumed keys
they depend on.  :func:`flag_values` computes those things from an engine's raw output with
the analysis's own definitions (a chunk of games made into the frames the analysis reads),
and the metrics ``presidency_edge``, ``loan_cap_binding:policy=P``,
``delinquency_rate:policy=P`` and ``runaway_rate`` read them (:mod:`simulator.experiments.metrics`):

* ``top_president`` bool[n, p]: the seat presides the single most valuable company, at
  mid-game where the engine records it (:func:`simulator.games.ekonos.analysis.with_presidency`);
* ``cap_binding`` / ``delinquent`` bool[n, p]: the seat's peak loans reached the cap; it got a
  delinquent payment notice (:func:`simulator.games.karnaxis.analysis.loan_summary`);
* ``leader_won`` / ``has_leader`` bool[n]: the leader two thirds into the game won it; the
  game has a checkpoint (:func:`simulator.analysis.core.runaway_games`).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from simulator.analysis.core import runaway_games
from simulator.games.ekonos.analysis import PRESIDENCY_KINDS, with_presidency
from simulator.games.karnaxis.analysis import PEAK_LOANS, loan_cap

RUNAWAY_TIMELINES = {"years": ("year", "cash_usd"), "rounds": ("round", "blood_coins")}


def flag_values(rules: dict, raw: dict, won: np.ndarray) -> dict[str, np.ndarray]:
    """The values above that the engine's output ``raw`` allows (``won`` bool[n, p])."""
    players, games = raw["players"], raw["games"]
    out = {}
    if any(name.endswith(("_president", "_president_mid")) for name in players):
        out["top_president"] = top_presidents(players, games, won.shape)
    peak = next((c for c in PEAK_LOANS if c in players), None)
    if peak:
        out["cap_binding"] = np.asarray(players[peak]) >= loan_cap(rules)
    if "delinquent_notices" in players:
        out["delinquent"] = np.asarray(players["delinquent_notices"]) > 0
    for name, (time, value) in RUNAWAY_TIMELINES.items():
        if name in raw and value in raw[name]:
            out["leader_won"], out["has_leader"] = runaway(raw[name], time, value, won)
    return out


def seat_frame(won: np.ndarray, columns: dict) -> pl.DataFrame:
    """One row per (game, seat) of a chunk: game_id (the game's index), seat, won, columns."""
    n, p = won.shape
    return pl.DataFrame(
        {
            "game_id": np.repeat(np.arange(n), p),
            "seat": np.tile(np.arange(p), n),
            "won": won.reshape(-1),
            **{k: np.asarray(v).reshape(-1) for k, v in columns.items()},
        }
    )


def top_presidents(players: dict, games: dict, shape: tuple) -> np.ndarray:
    presidents = {k: v for k, v in players.items() if k.endswith(("_president", "_president_mid"))}
    values = {
        k: np.asarray(v)
        for k, v in games.items()
        if k.startswith("company") and k.endswith(("_value", "_value_mid"))
    }
    seats = seat_frame(np.zeros(shape, bool), presidents)
    frame = with_presidency(pl.DataFrame({"game_id": np.arange(shape[0]), **values}), seats)
    kinds = frame.sort("game_id", "seat").collect()["presidency"].to_numpy()
    return (kinds == PRESIDENCY_KINDS[0]).reshape(shape)


def runaway(
    timeline: dict, time: str, value: str, won: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    frame = pl.DataFrame(
        {
            "game_id": np.asarray(timeline["game_index"]),
            "seat": timeline["seat"],
            time: timeline[time],
            value: timeline[value],
        }
    )
    games = runaway_games(frame, seat_frame(won, {}), time, value).collect()
    leader_won, has_leader = np.zeros(len(won), bool), np.zeros(len(won), bool)
    index = games["game_id"].to_numpy()
    leader_won[index], has_leader[index] = games["won"].to_numpy(), True
    return leader_won, has_leader
