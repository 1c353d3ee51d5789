"""Pig wrapper (rulebook: docs/games/pig.md).

The wrapper checks the rules, turns them into the kernel's arrays, allocates outputs and
decodes traces; the kernels in :mod:`engine` only loop.
"""

import numpy as np

from policies import pig as policies
from simulator.core.game import Game, StudyPlan, policy_knobs
from simulator.core.rules import RulesError, require
from simulator.core.trace import new_trace
from simulator.games.pig import chunk
from simulator.games.pig import state as S

ENGINE_VERSION = "pig-1"


def check(rules: dict) -> None:
    """Impossible values, and what the engine's state and the output columns hold, each
    refused naming its key."""
    setup, die = rules["setup"], rules["die"]
    require(
        rules,
        "setup.player_counts",
        setup["player_counts"] == [S.MAX_PLAYERS],
        f"Pig is played by {S.MAX_PLAYERS} players",
    )
    require(
        rules, "setup.target", 1 <= setup["target"] <= S.MAX_TARGET, f"must be 1..{S.MAX_TARGET}"
    )
    require(
        rules,
        "setup.second_player_points",
        0 <= setup["second_player_points"] < setup["target"],
        "must be 0 or more and below setup.target",
    )
    require(
        rules,
        "setup.turn_cap",
        1 <= setup["turn_cap"] <= S.MAX_TURN_CAP,
        f"must be 1..{S.MAX_TURN_CAP} (games.length is counted in 16 bits)",
    )
    require(rules, "die.sides", 2 <= die["sides"] <= S.MAX_SIDES, f"must be 2..{S.MAX_SIDES}")
    require(
        rules, "die.bust_face", 1 <= die["bust_face"] <= die["sides"], "must be a face of the die"
    )


def prepare(rules: dict, n_players: int) -> tuple:
    """(rules array, knobs): the CFG_ slots of state.py, and the policies' knobs table."""
    if n_players not in rules["setup"]["player_counts"]:
        raise RulesError("setup.player_counts", f"no Pig setup for {n_players} players")
    cfg = np.zeros(S.N_CFG, dtype=np.int64)
    cfg[S.CFG_PLAYERS] = n_players
    cfg[S.CFG_TARGET] = rules["setup"]["target"]
    cfg[S.CFG_SECOND_START] = rules["setup"]["second_player_points"]
    cfg[S.CFG_TURN_CAP] = rules["setup"]["turn_cap"]
    cfg[S.CFG_SIDES] = rules["die"]["sides"]
    cfg[S.CFG_BUST_FACE] = rules["die"]["bust_face"]
    return cfg, policy_knobs(rules, GAME.policy_set(rules), policies.KNOBS)


PLAYER_COLUMNS = ("score", "won", "start_points", "rolls", "busts", "holds", "turns", "points_lost")


def play_chunk(params: tuple, seeds: np.ndarray, seat_policies: np.ndarray, trace: np.ndarray):
    """(games, players, trace rows of the last game): the kernel's outputs (state.py)."""
    cfg, knobs = params
    out_games = np.zeros((len(seeds), S.N_GAME_OUT), np.int64)
    out_players = np.zeros((len(seeds), cfg[S.CFG_PLAYERS], S.N_PLAYER_OUT), np.int64)
    n = chunk.play_games(cfg, knobs, seeds, seat_policies, out_games, out_players, trace)
    return out_games, out_players, n


def play(params: tuple, seeds: np.ndarray, seat_policies: np.ndarray) -> dict:
    out_games, out_players, _ = play_chunk(params, seeds, seat_policies, new_trace(0))
    players = {name: out_players[:, :, i] for i, name in enumerate(PLAYER_COLUMNS)}
    players["won"] = players["won"].astype(bool)
    for name in PLAYER_COLUMNS[2:]:
        players[name] = players[name].astype(np.int32)
    games = {
        "winner_seat": out_games[:, S.G_WINNER],
        "length": out_games[:, S.G_LENGTH],
        "end_reason": out_games[:, S.G_END_REASON],
    }
    return {"games": games, "players": players}


def trace_game(params: tuple, seed: int, seat_policies: np.ndarray, max_events: int = 100_000):
    """The trace rows (int64[k, TRACE_WIDTH]) of one game."""
    trace = new_trace(max_events)
    seeds, seats = np.array([seed], np.uint64), np.array([seat_policies], np.int8)
    return trace[: play_chunk(params, seeds, seats, trace)[2]]


def replay(params: tuple, seed: int, seat_policies: np.ndarray, rules: dict) -> list[str]:
    """A readable play-by-play of one game."""
    return [describe(row) for row in trace_game(params, seed, seat_policies).tolist()]


def describe(row) -> str:
    """One trace row (``[event, turn, seat, a, b, c, d]``, see state.py) as a line of text."""
    event, turn, seat, a, b, _, _ = row
    at = f"turn {turn + 1} seat {seat}:"
    if event == S.EV_ROLL:
        return f"{at} rolls {a}, turn total {b}"
    if event == S.EV_BUST:
        return f"{at} rolls {a} and loses the turn total of {b}"
    if event == S.EV_HOLD:
        return f"{at} banks {a}, score {b}"
    if event == S.EV_WIN:
        return f"{at} reaches {a} and wins"
    return f"no winner after {a} turns (the turn cap)"


GAME = Game(
    name="pig",
    engine_version=ENGINE_VERSION,
    player_counts=range(2, 3),
    default_players=2,
    chunk_size=50_000,
    length_unit="turns",
    policies=policies.POLICIES,
    knob_names=policies.KNOBS,
    check=check,
    prepare=prepare,
    play=play,
    replay=replay,
    categories={"end_reason": ("target", "turn_cap")},
    exercised=(
        ("action", "hold", "holds"),
        ("event", "bust", "busts"),
    ),
    score_unit="points banked",
    study=StudyPlan(in_study=False),  # a template and a known-answer check, not a study
    compile_seconds=3,
)
