"""Per-seat and per-game values, beyond wins and scores, that the report's flags measure.

``balsim sensitivity`` (and ``tune`` and ``fit``) see a batch of games as
:class:`~simulator.experiments.metrics.Outcomes`: wins, scores, length and groups.  Some flags
measure other things (a game's own: who presides the most valuable company, whose loans reach
the cap; and the runaway leader), so a screen could not say which assumed keys they depend
on.  :func:`flag_values` computes those things from an engine's raw output with the analysis's
own definitions (a chunk of games made into the frames the analysis reads), and the metrics
``presidency_edge``, ``loan_cap_binding:policy=P``, ``delinquency_rate:policy=P`` and
``runaway_rate`` read them (:mod:`simulator.experiments.metrics`):

* what the game's own analyses give (``flag_values`` of ``simulator.games.GAME.analysis``):
  ``top_president`` bool[n, p], the seat presides the single most valuable company;
  ``cap_binding`` / ``delinquent`` bool[n, p], the seat's peak loans reached the cap, it got a
  delinquent payment notice;
* ``leader_won`` / ``has_leader`` bool[n]: the leader two thirds into the game (by the
  game's ``Game.leader``) won it; the game has a checkpoint
  (:func:`simulator.analysis.core.runaway_games`).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from simulator.analysis.core import runaway_games, seat_frame
from simulator.core.game import Game


def flag_values(game: Game, rules: dict, raw: dict, won: np.ndarray) -> dict[str, np.ndarray]:
    """The values above that ``game``'s output ``raw`` allows (``won`` bool[n, p])."""
    own = game.hook("analysis")
    out = dict(own.flag_values(rules, raw, won)) if hasattr(own, "flag_values") else {}
    leader = game.leader
    if leader is not None and leader.value in raw.get(leader.timeline, {}):
        out["leader_won"], out["has_leader"] = runaway(
            raw[leader.timeline], leader.time, leader.value, won
        )
    return out


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
