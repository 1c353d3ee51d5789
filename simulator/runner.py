"""Batch runner: plays a plan's games in chunks on worker processes and writes the dataset.

A plan is split into tasks (variant × chunk of consecutive game ids).  Each task plays its
games with seeds derived from ``(seed, game_id)``, builds Arrow tables and writes its parts
atomically, so the dataset is identical whatever ``--jobs``, backend or interruption.  The
parent process only dispatches tasks, shows progress and writes the manifest: memory stays
flat however many games are played.

Backends: ``joblib`` (local worker processes) and ``dask`` (a dask.distributed scheduler; the
workers write parts straight into OUT, which must therefore be a path every worker can reach,
e.g. a shared filesystem).
"""

from __future__ import annotations

import platform
import sys
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa

import simulator
from simulator import store
from simulator.errors import UserError
from simulator.game import Game, get_game
from simulator.rng import game_seeds
from simulator.seating import Seating, neighbour, team_mode


@dataclass
class Variant:
    name: str
    rules: dict
    values: dict = field(default_factory=dict)  # varied key -> value, written as columns


@dataclass
class Plan:
    game: str
    n_games: int
    n_players: int
    seats: list[str]                 # the line-up: policy of each seat before seating
    seed: int
    chunk_size: int
    variants: list[Variant]
    fixed_seats: bool = False        # True: the line-up as listed; else balanced orders
    until_ci: float | None = None    # stop once every win-rate interval is narrower than this

    @property
    def n_chunks(self) -> int:
        return -(-self.n_games // self.chunk_size)

    def tasks(self):
        """(task, variant index, first game id, n games): chunk by chunk, every variant of a
        chunk together, so a run stopped early holds the same games for every variant."""
        for c in range(self.n_chunks):
            first = c * self.chunk_size
            for v in range(len(self.variants)):
                yield (c * len(self.variants) + v, v, first,
                       min(self.chunk_size, self.n_games - first))


def plan_seating(plan: Plan) -> Seating:
    """The plan's seating design (see :mod:`simulator.seating`)."""
    return Seating.of(plan.seats, plan.fixed_seats, team_mode(v.rules for v in plan.variants))


def seat_policy_ids(game: Game, plan: Plan, game_ids: np.ndarray) -> np.ndarray:
    """int8[n, n_players]: the policy id at each seat of each game under the plan's seating."""
    lineup = np.array([game.policy(name).id for name in plan.seats], dtype=np.int8)
    positions = plan_seating(plan).positions(game_seeds(plan.seed, game_ids), game_ids)
    return lineup[positions]


def strings(labels, codes) -> pa.Array:
    """Decode int codes into a string column without one Python object per row."""
    return pa.array(list(labels), type=pa.string()).take(pa.array(np.asarray(codes, np.int32)))


def constant(value, n: int) -> pa.Array:
    if isinstance(value, str):
        return strings([value], np.zeros(n, np.int32))
    return pa.array(np.full(n, value))


def ranks(score: np.ndarray) -> np.ndarray:
    """int8 rank per seat, 1 = best, ties share the better rank."""
    return (1 + (score[:, None, :] > score[:, :, None]).sum(axis=2)).astype(np.int8)


def build_tables(game: Game, plan: Plan, variant: Variant, game_ids, seeds, seat_ids, raw) -> dict:
    """Arrow tables of one task from the engine's columns plus the contract's common columns."""
    n, p = seat_ids.shape
    policy_names = [pol.name for pol in sorted(game.policies, key=lambda x: x.id)]

    def column(name, values):
        """Arrow column; ``(codes, labels)`` pairs and ``game.categories`` become strings."""
        if isinstance(values, tuple):
            codes, labels = values
            return strings(labels, np.asarray(codes).reshape(-1))
        values = np.asarray(values).reshape(-1)
        if name in game.categories:
            return strings(game.categories[name], values)
        return pa.array(values)

    g = raw["games"]
    games = {"game_id": pa.array(game_ids.astype(np.int64)), "variant": constant(variant.name, n),
             "seed": pa.array(seeds), "n_players": constant(np.int8(p), n),
             "winner_seat": pa.array(g["winner_seat"].astype(np.int8)),
             "length": pa.array(g["length"].astype(np.int16))}
    games.update({k: column(k, v) for k, v in g.items() if k not in games})
    games.update({k: constant(v, n) for k, v in variant.values.items()})
    games["engine_version"] = constant(game.engine_version, n)

    pl = raw["players"]
    score = pl["score"].astype(np.float64)
    players = {"game_id": pa.array(np.repeat(game_ids.astype(np.int64), p)),
               "variant": constant(variant.name, n * p),
               "seat": pa.array(np.tile(np.arange(p, dtype=np.int8), n)),
               "policy": strings(policy_names, seat_ids.reshape(-1)),
               "score": pa.array(score.reshape(-1)),
               "rank": pa.array(ranks(score).reshape(-1)),
               "won": pa.array(pl["won"].astype(bool).reshape(-1))}
    if p > 1:  # the seat that plays just before: neighbour effects (simulator.analysis.neighbours)
        players["left_policy"] = strings(policy_names, neighbour(seat_ids).reshape(-1))
    players.update({k: column(k, v) for k, v in pl.items() if k not in players})

    tables = {"games": pa.table(games), "players": pa.table(players)}
    for name in game.timelines:
        t = raw[name]
        index = np.asarray(t["game_index"])
        cols = {"game_id": pa.array(game_ids.astype(np.int64)[index]),
                "variant": constant(variant.name, len(index))}
        cols.update({k: column(k, v) for k, v in t.items() if k != "game_index"})
        tables[name] = pa.table(cols)
    stamp = {b"balsim.game": game.name.encode(), b"balsim.engine_version": game.engine_version.encode(),
             b"balsim.version": simulator.__version__.encode()}
    return {name: table.replace_schema_metadata(stamp) for name, table in tables.items()}


def play_task(plan: Plan, params: tuple, task: int, variant_index: int, first: int, n: int,
              out: str) -> int:
    """Play and write one task; returns its number of games.  Runs in a worker process."""
    game = get_game(plan.game)
    game_ids = np.arange(first, first + n, dtype=np.int64)
    seeds = game_seeds(plan.seed, game_ids)
    seat_ids = seat_policy_ids(game, plan, game_ids)
    raw = game.play(params, seeds, seat_ids)
    tables = build_tables(game, plan, plan.variants[variant_index], game_ids, seeds, seat_ids, raw)
    for name, table in tables.items():
        store.write_part(Path(out), name, task, table)
    return n


def table_names(game: Game) -> tuple[str, ...]:
    return ("games", "players") + game.timelines


def manifest_for(plan: Plan, game: Game, status: str) -> dict:
    import numba
    return {
        "balsim_version": simulator.__version__,
        "engine_version": game.engine_version,
        "game": plan.game, "n_games": plan.n_games, "n_players": plan.n_players,
        "seats": plan.seats, "fixed_seats": plan.fixed_seats,
        "seating": plan_seating(plan).record(), "seed": plan.seed,
        "chunk_size": plan.chunk_size, "until_ci": plan.until_ci,
        "length_unit": game.length_unit,
        "variants": [asdict(v) for v in plan.variants],
        "tables": list(table_names(game)),
        "status": status,
        "versions": {"python": platform.python_version(), "numpy": np.__version__,
                     "numba": numba.__version__, "pyarrow": pa.__version__},
    }


def plan_from_manifest(manifest: dict) -> Plan:
    if "fixed_seats" not in manifest:
        raise UserError("this dataset was written with rotated seats by an older balsim; "
                        "play it again (with --force) to continue or replay it")
    fields = {k: manifest[k] for k in ("game", "n_games", "n_players", "seats", "seed",
                                        "chunk_size", "fixed_seats", "until_ci")}
    return Plan(variants=[Variant(**v) for v in manifest["variants"]], **fields)


def execute(plan: Plan | None, out: Path, jobs: int = -1, backend: str = "joblib",
            scheduler: str | None = None, resume: bool = False, force: bool = False,
            progress: bool = True) -> dict:
    """Run ``plan`` into ``out`` and return the finished manifest.

    With ``resume`` the plan is the one recorded in ``out``'s manifest and only the tasks whose
    parts are missing are played.  With ``plan.until_ci`` games are played in waves of
    ``WAVE_CHUNKS`` chunks until every win-rate interval (by seat and by policy, in every
    variant) is narrower than it, or ``plan.n_games`` (the budget) is reached; waves do not
    depend on ``jobs``, so neither does where the run stops.
    """
    if resume:
        plan = plan_from_manifest(store.read_manifest(out))
    game = get_game(plan.game)
    params = [game.prepare(v.rules, plan.n_players) for v in plan.variants]
    if not resume:
        store.prepare_out(out, force)
        store.write_manifest(out, manifest_for(plan, game, "running"))
    tasks = list(plan.tasks())
    done = store.finished_tasks(out, table_names(game), range(len(tasks)))
    wave = WAVE_CHUNKS * len(plan.variants) if plan.until_ci else len(tasks)
    started = time.perf_counter()
    played, played_tasks, stop = 0, [], None
    with Progress(plan.n_games * len(plan.variants), progress) as bar, \
            Workers(jobs, backend, scheduler) as workers:
        bar.advance(sum(t[3] for t in tasks if t[0] in done), fresh=False)
        for start in range(0, len(tasks), wave):
            batch = tasks[start:start + wave]
            todo = [(plan, params[v], t, v, first, n, str(out))
                    for t, v, first, n in batch if t not in done]
            for n in workers.map(play_task, todo):
                played += n
                bar.advance(n)
            played_tasks += batch
            if plan.until_ci:
                stop = widest_interval(out, [t for t, *_ in played_tasks])
                if stop <= plan.until_ci:
                    break
    elapsed = time.perf_counter() - started
    manifest = manifest_for(plan, game, "complete")
    manifest["parts"] = {name: [{"file": f"{name}/{store.part_name(t)}",
                                 "rows": store.part_rows(out, name, t)} for t, *_ in played_tasks]
                         for name in table_names(game)}
    if plan.until_ci:
        games = sum(n for _, v, _, n in played_tasks if v == 0)
        reached = stop <= plan.until_ci
        manifest.update(n_games=games, games_budget=plan.n_games, stopped={
            "reason": "interval width reached" if reached else "game budget reached",
            "widest_interval": round(float(stop), 6), "games_per_variant": games})
    manifest["played_this_run"] = {"games": played, "seconds": round(elapsed, 3)}
    store.write_manifest(out, manifest)
    return manifest


WAVE_CHUNKS = 4


def widest_interval(out: Path, tasks: list[int]) -> float:
    """Widest Wilson 95% interval of the win rate by seat and by policy in every variant."""
    import polars as pl

    from simulator.analysis.stats import wilson
    players = pl.scan_parquet([out / "players" / store.part_name(t) for t in tasks])
    widest = 0.0
    for key in ("seat", "policy"):
        counts = players.group_by("variant", key).agg(
            pl.col("won").sum().alias("wins"), pl.len().alias("n")).collect()
        low, high = wilson(counts["wins"].to_numpy(), counts["n"].to_numpy())
        widest = max(widest, float(np.max(high - low)))
    return widest


class Workers:
    """Runs task functions on local processes (joblib) or a dask.distributed cluster."""

    def __init__(self, jobs: int, backend: str, scheduler: str | None):
        self.jobs, self.backend, self.scheduler = jobs, backend, scheduler

    def __enter__(self):
        if self.backend == "dask":
            from distributed import Client
            self.client = Client(self.scheduler)
        elif self.jobs != 1:
            from joblib import Parallel
            # loky restarts idle workers between runs and says so; nothing is lost
            warnings.filterwarnings("ignore", message="A worker stopped while some jobs",
                                    category=UserWarning)
            self.parallel = Parallel(n_jobs=self.jobs, return_as="generator_unordered")
            self.parallel.__enter__()
        return self

    def map(self, function, args_list):
        """Results of ``function(*args)`` for every args, in completion order."""
        if not args_list:
            return
        if self.backend == "dask":
            from distributed import as_completed
            futures = [self.client.submit(function, *a, pure=False) for a in args_list]
            for future in as_completed(futures):
                yield future.result()
        elif self.jobs == 1 or len(args_list) == 1:
            for a in args_list:
                yield function(*a)
        else:
            from joblib import delayed
            yield from self.parallel(delayed(function)(*a) for a in args_list)

    def __exit__(self, *exc):
        if self.backend == "dask":
            self.client.close()
        elif self.jobs != 1:
            self.parallel.__exit__(*exc)
        return False


class Progress:
    """Games done, games/s and ETA on stderr; silent when off or stderr is not a terminal."""

    def __init__(self, total: int, enabled: bool):
        self.total, self.done = total, 0
        self.enabled = enabled and sys.stderr.isatty()
        self.start = time.perf_counter()
        self.fresh = 0

    def __enter__(self):
        self._draw()
        return self

    def advance(self, n: int, fresh: bool = True) -> None:
        """Count n more games done; ``fresh=False`` for games found done by --resume."""
        self.done += n
        self.fresh += n if fresh else 0
        self._draw()

    def _draw(self) -> None:
        if not self.enabled:
            return
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        rate = self.fresh / elapsed
        left = (self.total - self.done) / rate if rate > 0 else float("nan")
        width = 30
        filled = int(width * self.done / max(self.total, 1))
        eta = f"ETA {left:5.0f}s" if left == left else "ETA    ?"
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done:,}/{self.total:,} "
                         f"games  {rate:,.0f} games/s  {eta} ")
        sys.stderr.flush()

    def __exit__(self, *exc):
        if self.enabled:
            sys.stderr.write("\n")
        return False
