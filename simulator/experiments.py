"""Play candidates on common game seeds: the shared core of ``tune``, ``fit`` and ``sensitivity``.

A *candidate* is a full set of rules (a rules variant, or the default rules plus a knob set).
:class:`Lab` plays every candidate of a batch on the same game ids, hence the same seeds and
seat orders (common random numbers), in worker processes, and returns each candidate's
:class:`~simulator.metrics.Outcomes`; the metrics module turns those into estimates.  Which
games a batch plays depends only on its game ids, so results do not depend on ``--jobs``.

Also here, because all three tools need them: changing rules keys (:func:`with_values`),
the range a numeric key may take under the game's checks (:func:`checked_range`), and writing
outputs atomically (:func:`write_text_atomic`, :func:`finish_out_dir`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simulator.errors import UserError
from simulator.flag_values import flag_values
from simulator.game import Game, get_game
from simulator.metrics import GROUP_COLUMNS, Outcomes
from simulator.rng import game_seeds
from simulator.rules import RulesError, lookup, merge, nest
from simulator.runner import Plan, Progress, Variant, Workers, seat_policy_ids
from simulator.seating import Seating, team_mode

HELD_OUT = 1 << 40     # game ids from here on are kept for final, held-out comparisons
NOT_SCRIPTED = ("random", "search")   # built-ins that are not a scripted field policy
MAX_BLOCK = 24         # batches round up to whole rounds of at most this many seat orders


@dataclass(frozen=True)
class Design:
    """Who plays: the game, the line-up (policy of each seat before seating) and the seed."""
    game: str
    lineup: tuple[str, ...]
    seed: int = 1

    @property
    def n_players(self) -> int:
        return len(self.lineup)

    def block(self, rules: dict) -> int:
        """Games per whole round of seat orders: batches of this many games seat every policy
        equally often (the number of distinct orders, when small; else one per seat)."""
        orders = Seating.of(self.lineup, teams=team_mode([rules])).orders
        return len(orders) if orders is not None and len(orders) <= MAX_BLOCK else self.n_players


def seated_plan(design: Design, rules: dict) -> Plan:
    """A plan seating ``design.lineup`` the way ``balsim run`` does by default, so that
    :func:`simulator.runner.seat_policy_ids` gives every game's seat order."""
    return Plan(game=design.game, n_games=0, n_players=design.n_players,
                seats=list(design.lineup), seed=design.seed, chunk_size=1,
                variants=[Variant("candidate", rules)])


def play_chunk(design: Design, rules: dict, params: tuple, game_ids: np.ndarray) -> Outcomes:
    """Play one candidate's games ``game_ids`` (runs in a worker process)."""
    game = get_game(design.game)
    seats = seat_policy_ids(game, seated_plan(design, rules), game_ids)
    raw = game.play(params, game_seeds(design.seed, game_ids), seats)
    return outcomes_from_raw(game, rules, raw, seats)


def _play_task(key, design, rules, params, game_ids):
    return key, play_chunk(design, rules, params, game_ids)


def outcomes_from_raw(game: Game, rules: dict, raw: dict, seats: np.ndarray) -> Outcomes:
    """The columns the metrics read, from an engine's ``play`` output."""
    players, games = raw["players"], raw["games"]
    n, p = seats.shape
    groups = {"seat": (np.broadcast_to(np.arange(p), (n, p)), tuple(str(s) for s in range(p))),
              "policy": (seats.astype(np.int16), tuple(pol.name for pol in game.policy_set(rules)))}
    for name in GROUP_COLUMNS:
        if name in players:
            column = players[name]
            if isinstance(column, tuple):          # (codes, labels) from the rules
                groups[name] = (np.asarray(column[0]), tuple(str(x) for x in column[1]))
            else:
                groups[name] = (np.asarray(column), tuple(str(x) for x in range(p)))
    reasons = games["end_reason"]
    if isinstance(reasons, tuple):
        codes, labels = reasons
    else:
        codes, labels = reasons, game.categories.get("end_reason", ())
    won = np.asarray(players["won"], bool)
    return Outcomes(won=won, score=np.asarray(players["score"], np.float64),
                    length=np.asarray(games["length"], np.float64),
                    end_reason=np.asarray(codes, np.int16), end_reasons=tuple(labels), groups=groups,
                    extra=flag_values(rules, raw, won))


class Lab:
    """Plays batches of candidates on worker processes, with one progress bar for the whole
    experiment (``total`` games).  Use as a context manager; workers are reused across
    batches."""

    def __init__(self, game: Game, jobs: int = 1, progress: bool = False, total: int = 0):
        self.game = game
        self.jobs = jobs
        self.workers = Workers(jobs, "joblib", None)
        self.bar = Progress(max(total, 1), progress)
        self.played = 0

    def __enter__(self):
        self.workers.__enter__()
        self.bar.__enter__()
        return self

    def __exit__(self, *exc):
        self.bar.__exit__(*exc)
        return self.workers.__exit__(*exc)

    def prepare(self, design: Design, rules: dict) -> tuple:
        """Validate a candidate's rules and build its engine arrays (RulesError on bad values)."""
        self.game.validate(rules)
        for name in design.lineup:
            self.game.policy(name, rules)
        return self.game.prepare(rules, design.n_players)

    def play(self, design: Design, candidates: list[dict], game_ids: np.ndarray) -> list[Outcomes]:
        """Every candidate's outcomes on the same games ``game_ids`` (int64[n])."""
        game_ids = np.asarray(game_ids, dtype=np.int64)
        params = [self.prepare(design, rules) for rules in candidates]
        size = chunk_games(len(game_ids), len(candidates), self.jobs, self.game.chunk_size)
        starts = range(0, len(game_ids), size)
        tasks = [((c, start), design, rules, params[c], game_ids[start:start + size])
                 for c, rules in enumerate(candidates) for start in starts]
        parts: dict = {}
        for key, outcomes in self.workers.map(_play_task, tasks):
            parts[key] = outcomes
            self.played += outcomes.n_games
            self.bar.advance(outcomes.n_games)
        return [Outcomes.concat([parts[(c, start)] for start in starts])
                for c in range(len(candidates))]

    def probe(self, design: Design, rules: dict) -> Outcomes:
        """A few games of ``rules`` in this process, to learn what groups and labels the games
        record before the real work starts.  Not counted as played."""
        ids = np.arange(HELD_OUT - 2 * design.n_players, HELD_OUT, dtype=np.int64)
        return play_chunk(design, rules, self.prepare(design, rules), ids)


def chunk_games(n_games: int, n_candidates: int, jobs: int, largest: int) -> int:
    """Games per task: about four tasks per worker over the batch, so that the workers finish
    together even when one candidate's games cost far more than another's (a search seat at
    64 rollouts against one at 1), at most the game's chunk size."""
    per_task = -(-n_games * n_candidates // (4 * max(jobs, 1)))
    return int(max(1, min(n_games, largest, per_task)))


def round_to(n: int, multiple: int) -> int:
    """``n`` rounded up to a multiple: batches of whole rounds of seat orders."""
    return -(-n // multiple) * multiple


def batch_ids(batch: int, size: int, offset: int = 0) -> np.ndarray:
    """Game ids of batch ``batch`` of ``size`` games: consecutive blocks, never reused."""
    return np.arange(offset + batch * size, offset + (batch + 1) * size, dtype=np.int64)


def scripted_field(game: Game, exclude: str | None = None) -> list[str]:
    """The game's scripted built-in policies (not random or search), except ``exclude``."""
    return [p.name for p in game.policies if p.name not in NOT_SCRIPTED and p.name != exclude]


def is_team_game(rules: dict) -> bool:
    return rules.get("game", {}).get("mode") == "team"


# ---- rules keys ---------------------------------------------------------------------------

def with_values(rules: dict, values: dict) -> dict:
    """``rules`` with each dotted key set to its value (checked like ``--set``)."""
    for key, value in values.items():
        rules = merge(rules, nest(key, value))
    return rules


def parse_span(key: str, span: str) -> tuple[float, float]:
    """``LOW:HIGH`` given with a key (``K=LOW:HIGH``)."""
    try:
        low, high = (float(v) for v in span.split(":"))
    except ValueError:
        raise RulesError(key, f"expected {key}=LOW:HIGH, got '{span}'") from None
    return low, high


def numeric_value(rules: dict, key: str):
    """The default value of a numeric rules key (int, float, or a list of numbers)."""
    value = lookup(rules, key)
    numbers = value if isinstance(value, list) else [value]
    if not numbers or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in numbers):
        raise RulesError(key, "not a number (only numeric keys can be varied)")
    return value


def scaled(default, factor: float):
    """``default`` (a number or a list of numbers) times ``factor``; integers stay integers."""
    if isinstance(default, list):
        return [scaled(v, factor) for v in default]
    value = default * factor
    return int(round(value)) if isinstance(default, int) else float(value)


def accepts(game: Game, rules: dict, key: str, value) -> bool:
    """Whether the game's checks accept ``key = value``."""
    try:
        game.validate(with_values(rules, {key: value}))
        return True
    except RulesError:
        return False


def key_step(game: Game, rules: dict, key: str) -> int:
    """The spacing of an integer key's values: the smallest of 1, 2, 5, 10, 20, 50, ... that
    the game's checks accept next to the current value (a loan cap counted in $5,000 notes
    moves by 5,000); 1 for a real key."""
    default = numeric_value(rules, key)
    if not isinstance(default, int) or isinstance(default, bool):
        return 1
    scale = 1
    while scale <= max(abs(default), 1):
        for step in (scale, 2 * scale, 5 * scale):
            if accepts(game, rules, key, default + step) or accepts(game, rules, key, default - step):
                return step
        scale *= 10
    return 1


def on_lattice(value: float, origin: int, step: int) -> int:
    """The integer nearest ``value`` among ``origin + k * step``."""
    return int(origin + round((value - origin) / step) * step)


def lattice_range(low: float, high: float, origin: int, step: int) -> tuple[int, int]:
    """The first and the last of ``origin + k * step`` inside ``[low, high]``."""
    return (int(origin + np.ceil((low - origin) / step) * step),
            int(origin + np.floor((high - origin) / step) * step))


def checked_range(game: Game, rules: dict, key: str, low: float, high: float,
                  step: int = 1) -> tuple[float, float]:
    """The part of ``[low, high]`` that the game's checks accept for ``key`` around its
    current value, found by bisection (checks are bounds, so the accepted set is an interval);
    an integer key moves in ``step`` from its current value.  RulesError when the current
    value's neighbourhood is not accepted at all."""
    default = numeric_value(rules, key)
    if isinstance(default, list):
        raise RulesError(key, "a list cannot be searched; name one number")
    integer = isinstance(default, int)
    # integers: bisect on k in default + k * step; reals: on the value itself
    value = (lambda k: default + k * step) if integer else float
    ok = lambda k: accepts(game, rules, key, value(k))  # noqa: E731

    def edge(inside, outside):
        if ok(outside):
            return outside
        for _ in range(64):
            if abs(outside - inside) <= (1 if integer else 1e-6 * max(1.0, abs(inside))):
                break
            middle = (inside + outside) // 2 if integer else (inside + outside) / 2
            inside, outside = (middle, outside) if ok(middle) else (inside, middle)
        return inside

    if integer:
        low, high = ((v - default) // step for v in lattice_range(low, high, default, step))
        start = min(max(0, low), high)
    else:
        start = min(max(default, low), high)
    if not ok(start):
        raise RulesError(key, f"the game's checks refuse {value(start)}")
    return value(edge(start, low)), value(edge(start, high))


# ---- output ---------------------------------------------------------------------------------

def check_out_file(path: Path, force: bool) -> None:
    if path.exists() and not force:
        raise UserError(f"--out {path} exists; use --force to overwrite it")
    if path.exists() and path.is_dir():
        raise UserError(f"--out {path} is a folder, expected a file")


def write_text_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


OUT_MARK = "balsim.json"   # every output folder of these tools holds this file


def check_out_dir(out: Path, force: bool) -> None:
    """Refuse a non-empty OUT unless ``force``, and never delete a folder these tools did not
    write."""
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} exists and is not a folder")
    if out.exists() and any(out.iterdir()):
        if not force:
            raise UserError(f"--out {out} is not empty; use --force to overwrite it")
        if not (out / OUT_MARK).exists():
            raise UserError(f"--out {out} was not written by balsim (no {OUT_MARK}); "
                            "refusing to delete it")


def new_out_dir(out: Path) -> Path:
    """A temporary folder beside OUT to write into; :func:`finish_out_dir` puts it in place."""
    out.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))


def finish_out_dir(tmp: Path, out: Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    os.replace(tmp, out)
