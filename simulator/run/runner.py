"""Batch runner: plays a plan's games in chunks on worker processes and writes the dataset.

A plan is split into tasks (variant × chunk of consecutive game ids).  Each task plays its
games with seeds derived from ``(seed, game_id)``, builds Arrow tables and writes its parts
atomically, so the dataset is identical whatever ``--jobs``, backend or interruption.  The
parent process only dispatches tasks, shows progress and writes the manifest: memory stays
flat however many games are played.

Backends: ``joblib`` (local worker processes) and ``dask`` (the workers of a dask.distributed
scheduler, given its address; they write parts straight into OUT, which must therefore be a
path every worker can reach, e.g. a shared filesystem: docs/cluster.md).
"""

from __future__ import annotations

import os
import platform
import shlex
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa

import simulator
from simulator.core.errors import Fault, Interrupted, UserError
from simulator.core.game import Game, get_game
from simulator.core.rng import game_seeds
from simulator.core.seating import Seating, neighbour, team_mode
from simulator.run import store, whole
from simulator.run.warm import warm_up
from simulator.run.workers import Progress, Workers

MAX_PARTS = 100_000  # parts per table: keeps the task list and the manifest small
MAX_CHUNK = 100_000  # games per task: a chunk's output arrays must fit in memory


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
    seats: list[str]  # the line-up: policy of each seat before seating
    seed: int
    chunk_size: int
    variants: list[Variant]
    fixed_seats: bool = False  # True: the line-up as listed; else balanced orders
    until_ci: float | None = None  # stop once every win-rate interval is narrower than this
    field: str | None = None  # who plays: a rung of the ladder or policies (None: not recorded)

    @property
    def n_chunks(self) -> int:
        return -(-self.n_games // self.chunk_size)

    def tasks(self):
        """(task, variant index, first game id, n games): chunk by chunk, every variant of a
        chunk together, so a run stopped early holds the same games for every variant."""
        for c in range(self.n_chunks):
            first = c * self.chunk_size
            for v in range(len(self.variants)):
                yield (
                    c * len(self.variants) + v,
                    v,
                    first,
                    min(self.chunk_size, self.n_games - first),
                )


def plan_policies(game: Game, plan: Plan) -> tuple:
    """The policies a plan's seats can name: built-ins and the knob sets of its base rules
    (every variant of a plan defines the same sets, so ids agree across variants)."""
    return game.policy_set(plan.variants[0].rules if plan.variants else None)


def plan_seating(plan: Plan) -> Seating:
    """The plan's seating design (see :mod:`simulator.core.seating`)."""
    return Seating.of(plan.seats, plan.fixed_seats, team_mode(v.rules for v in plan.variants))


def seat_policy_ids(game: Game, plan: Plan, game_ids: np.ndarray) -> np.ndarray:
    """int8[n, n_players]: the policy id at each seat of each game under the plan's seating."""
    ids = {p.name: p.id for p in plan_policies(game, plan)}
    lineup = np.array([ids[name] for name in plan.seats], dtype=np.int8)
    positions = plan_seating(plan).positions(game_seeds(plan.seed, game_ids), game_ids)
    return lineup[positions]


def strings(labels, codes) -> pa.Array:
    """Decode int codes into a string column without one Python object per row."""
    return pa.array(list(labels), type=pa.string()).take(pa.array(np.asarray(codes, np.int32)))


def constant(value, n: int) -> pa.Array:
    if isinstance(value, str):
        return strings([value], np.zeros(n, np.int32))
    return pa.array(np.full(n, value))


def narrow(values, dtype, name: str) -> np.ndarray:
    """``values`` as the contract's ``dtype``, refusing to wrap a value that does not fit."""
    values = np.asarray(values)
    info = np.iinfo(dtype)
    if values.size and (values.min() < info.min or values.max() > info.max):
        raise Fault(
            f"games.{name} reached {values.max():,}, beyond the {np.dtype(dtype).name} "
            "column the dataset records it in; these rules make games too long"
        )
    return values.astype(dtype)


def ranks(score: np.ndarray) -> np.ndarray:
    """int8 rank per seat, 1 = best, ties share the better rank."""
    return (1 + (score[:, None, :] > score[:, :, None]).sum(axis=2)).astype(np.int8)


def build_tables(game: Game, plan: Plan, variant: Variant, game_ids, seeds, seat_ids, raw) -> dict:
    """Arrow tables of one task from the engine's columns plus the contract's common columns."""
    n, p = seat_ids.shape
    policy_names = [pol.name for pol in game.policy_set(variant.rules)]

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
    games = {
        "game_id": pa.array(game_ids.astype(np.int64)),
        "variant": constant(variant.name, n),
        "seed": pa.array(seeds),
        "n_players": constant(np.int8(p), n),
        "winner_seat": pa.array(g["winner_seat"].astype(np.int8)),
        "length": pa.array(narrow(g["length"], np.int16, "length")),
    }
    games.update({k: column(k, v) for k, v in g.items() if k not in games})
    games.update({k: constant(v, n) for k, v in variant.values.items()})
    games["engine_version"] = constant(game.engine_version, n)

    pl = raw["players"]
    score = pl["score"].astype(np.float64)
    players = {
        "game_id": pa.array(np.repeat(game_ids.astype(np.int64), p)),
        "variant": constant(variant.name, n * p),
        "seat": pa.array(np.tile(np.arange(p, dtype=np.int8), n)),
        "policy": strings(policy_names, seat_ids.reshape(-1)),
        "score": pa.array(score.reshape(-1)),
        "rank": pa.array(ranks(score).reshape(-1)),
        "won": pa.array(pl["won"].astype(bool).reshape(-1)),
    }
    if p > 1:  # the seat that plays just before: neighbour effects (simulator.analysis.neighbours)
        players["left_policy"] = strings(policy_names, neighbour(seat_ids).reshape(-1))
    players.update({k: column(k, v) for k, v in pl.items() if k not in players})

    tables = {"games": pa.table(games), "players": pa.table(players)}
    for name in game.timelines:
        t = raw[name]
        index = np.asarray(t["game_index"])
        cols = {
            "game_id": pa.array(game_ids.astype(np.int64)[index]),
            "variant": constant(variant.name, len(index)),
        }
        cols.update({k: column(k, v) for k, v in t.items() if k != "game_index"})
        tables[name] = pa.table(cols)
    return tables


def play_task(
    plan: Plan,
    params: tuple,
    task: int,
    variant_index: int,
    first: int,
    n: int,
    out: str,
    parent: int | None = None,
) -> int:
    """Play and write one task; returns (task, its number of games).  Runs in a worker process.

    ``parent`` is the pid of the process running the plan: a local worker whose parent has
    died (killed, even by SIGKILL) stops before playing or writing instead of playing on.
    """
    stop_if_orphaned(parent)
    game = get_game(plan.game)
    game_ids = np.arange(first, first + n, dtype=np.int64)
    seeds = game_seeds(plan.seed, game_ids)
    seat_ids = seat_policy_ids(game, plan, game_ids)
    raw = game.play(params, seeds, seat_ids)
    tables = build_tables(game, plan, plan.variants[variant_index], game_ids, seeds, seat_ids, raw)
    stamp = whole.part_stamp(plan, game.engine_version, task, variant_index, first, n)
    metadata = {**whole.metadata(stamp), b"balsim.version": simulator.__version__.encode()}
    stop_if_orphaned(parent)
    for name, table in tables.items():
        store.write_part(Path(out), name, task, table.replace_schema_metadata(metadata))
    return task, n


def stop_if_orphaned(parent: int | None) -> None:
    if parent is not None and os.getpid() != parent and os.getppid() != parent:
        os._exit(1)  # nobody is left to collect the result; the parts written so far are whole


def table_names(game: Game) -> tuple[str, ...]:
    return ("games", "players") + game.timelines


def manifest_for(plan: Plan, game: Game, status: str) -> dict:
    import numba

    return {
        "format": store.FORMAT,
        "balsim_version": simulator.__version__,
        "engine_version": game.engine_version,
        "game": plan.game,
        "n_games": plan.n_games,
        "n_players": plan.n_players,
        "seats": plan.seats,
        "fixed_seats": plan.fixed_seats,
        "seating": plan_seating(plan).record(),
        "field": plan.field,
        "seed": plan.seed,
        "chunk_size": plan.chunk_size,
        "until_ci": plan.until_ci,
        "length_unit": game.length_unit,
        "variants": [asdict(v) for v in plan.variants],
        "tables": list(table_names(game)),
        "status": status,
        "versions": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "numba": numba.__version__,
            "pyarrow": pa.__version__,
        },
    }


def plan_from_manifest(manifest: dict, where: Path | str = "the manifest") -> Plan:
    """The plan a dataset was started with (``n_games`` is the budget of an --until-ci run);
    ``where`` names the manifest in the error when it is damaged."""
    try:
        fields = {k: manifest[k] for k in ("game", "n_players", "seats", "seed", "chunk_size")}
        plan = Plan(
            n_games=manifest.get("games_budget", manifest["n_games"]),
            fixed_seats=recorded_fixed_seats(manifest),
            until_ci=manifest.get("until_ci"),
            field=manifest.get("field"),
            variants=[Variant(**v) for v in manifest["variants"]],
            **fields,
        )
    except KeyError as e:
        raise store.StoreError(f"{where} is damaged (no {e})") from None
    except TypeError as e:
        raise store.StoreError(f"{where} is damaged ({e})") from None
    counts = {"n_games": 1, "n_players": 1, "seed": 0, "chunk_size": 1}
    for name, least in counts.items():  # a hand edit could make them anything
        value = getattr(plan, name)
        if type(value) is not int or value < least:
            raise store.StoreError(f"{where} is damaged ({name} is {value!r})")
    if type(manifest["n_games"]) is not int:
        raise store.StoreError(f"{where} is damaged (n_games is {manifest['n_games']!r})")
    if not plan.variants:
        raise store.StoreError(f"{where} is damaged (no variants)")
    return plan


def recorded_fixed_seats(manifest: dict) -> bool:
    """Whether a dataset seats its line-up as listed; one written with rotated seats by an older
    balsim cannot be continued or replayed (its seat orders are no longer made)."""
    if "fixed_seats" in manifest:
        return bool(manifest["fixed_seats"])
    if manifest.get("rotate_seats"):
        raise UserError(
            "this dataset was written with rotated seats by an older balsim; "
            "play it again with --force"
        )
    return True


def resumable_plan(out: Path) -> Plan:
    """The plan recorded in ``out``, refused when this balsim's engine plays other games."""
    manifest = store.read_manifest(out)
    plan = plan_from_manifest(manifest, out / store.MANIFEST)
    game = get_game(plan.game)
    if manifest.get("engine_version") != game.engine_version:
        raise UserError(
            f"{out} was played by {game.name} engine {manifest.get('engine_version')}, "
            f"this balsim has engine {game.engine_version}: its games would differ; "
            "start again with --force"
        )
    return plan


def check_size(plan: Plan) -> None:
    """Refuse a plan whose task list or chunks could not fit in memory, before anything runs."""
    if not 1 <= plan.chunk_size <= MAX_CHUNK:
        raise UserError(f"--chunk-size must be 1..{MAX_CHUNK:,}, not {plan.chunk_size:,}")
    parts = plan.n_chunks * len(plan.variants)
    if plan.n_games < 1 or parts > MAX_PARTS:
        raise UserError(
            f"-n {plan.n_games:,} in chunks of {plan.chunk_size:,} games makes "
            f"{parts:,} parts; at most {MAX_PARTS:,} (raise --chunk-size or lower -n)"
        )


def resume_command(plan: Plan, shown: Path) -> str:
    return f"balsim run {plan.game} --out {shlex.quote(str(shown))} --resume"


def execute(
    plan: Plan | None,
    out: Path,
    jobs: int = -1,
    scheduler: str | None = None,
    resume: bool = False,
    force: bool = False,
    progress: bool = True,
    label: str = "",
) -> dict:
    """Run ``plan`` into ``out`` and return the finished manifest.

    With ``resume`` the plan is the one recorded in ``out``'s manifest, every finished part is
    verified (its Parquet footer and row count) and only the tasks whose parts are missing or
    damaged are played.  With ``plan.until_ci`` games are played in waves of ``WAVE_CHUNKS``
    chunks until every win-rate interval (by seat and by policy, in every variant) is narrower
    than it, or ``plan.n_games`` (the budget) is reached; waves do not depend on ``jobs``, so
    neither does where the run stops.  The tasks run on ``jobs`` local processes, or on the
    workers of the dask cluster whose ``scheduler`` address is given.

    Nothing is touched before the plan, the rules and the workers are ready.  Ctrl-C or
    SIGTERM raises :class:`Interrupted` (the parts written are whole; ``--resume`` finishes
    them); a worker killed or a full disk raises :class:`Fault`.  A run that fails before its
    first part removes the manifest it wrote.
    """
    shown, out = Path(out), store.checked_path(out, "--out")
    store.check_outside_datasets(out, "--out", shown)
    if resume:
        plan = resumable_plan(out)
    check_size(plan)
    game = get_game(plan.game)
    params = [game.prepare(v.rules, plan.n_players) for v in plan.variants]
    run = Run(plan, list(plan.tasks()))
    with store.Writing(out, shown):
        if resume:
            run.done = resumable_tasks(out, plan, game)
        else:
            store.check_new_out(out, force)
        return play_into(run, game, params, out, shown, (jobs, scheduler), resume, progress, label)


def resumable_tasks(out: Path, plan: Plan, game: Game) -> set[int]:
    """The tasks of ``plan`` whose parts in ``out`` are whole and its own (the others are
    played again); a part the plan does not have is refused, to be moved out."""
    tables = table_names(game)
    expected = whole.expected_parts(plan, game.engine_version, tables)
    found = whole.survey(out, tables, expected)
    strays = [p for p in found.problems if p.stray]
    if strays:
        more = f" (and {len(strays) - 1} more)" if len(strays) > 1 else ""
        raise UserError(f"{strays[0].text}{more}; move it out of {out} and --resume again")
    return found.whole


def play_into(run, game, params, out, shown, where, resume, progress, label) -> dict:
    """Play ``run``'s tasks not done into the locked folder ``out`` (a new dataset unless
    ``resume``: anything balsim wrote there before is cleared first) on the workers ``where``
    (jobs, scheduler); returns the finished manifest.  The engine compiles here first, when
    the kernel cache lacks it: local workers, and a cluster's workers that share the cache's
    folder, then load it instead of each compiling it (docs/cluster.md)."""
    plan, wrote = run.plan, False
    try:
        with Workers(*where) as workers:
            if not resume:
                manifest = store.own_manifest(out)
                if manifest is not None:
                    store.clear_dataset(out, manifest)
                store.write_manifest(out, manifest_for(plan, game, "running"))
                wrote = True
            warm_up(game, params[0], plan.n_players)
            run.play(workers, params, out, progress, label)
    except KeyboardInterrupt:
        if not (wrote or resume):
            raise Interrupted("Aborted.") from None
        store.remove_temporary_parts(out, table_names(game))
        raise Interrupted(
            f"Aborted. {run.saved(out):,} of {run.total:,} games are saved in "
            f"{shown}; `{resume_command(plan, shown)}` finishes the run"
        ) from None
    except BaseException as e:
        if wrote or resume:
            store.remove_temporary_parts(out, table_names(game))
        if wrote and not any(out.glob("*/part-*.parquet")):
            store.remove_dataset(out)
        fault = run_fault(e, shown)
        if fault is None:
            raise
        saved = run.saved(out) if wrote or resume else 0
        kept = (
            (
                f"; {saved:,} of {run.total:,} games are saved, `{resume_command(plan, shown)}` "
                "finishes the run"
            )
            if saved
            else ""
        )
        raise Fault(f"{fault}{kept}") from None
    manifest = manifest_for(plan, game, "complete")
    manifest["parts"] = {
        name: [
            {"file": f"{name}/{store.part_name(t)}", "rows": store.part_rows(out, name, t)}
            for t, *_ in run.played_tasks
        ]
        for name in table_names(game)
    }
    if plan.until_ci:
        games = sum(n for _, v, _, n in run.played_tasks if v == 0)
        reached = run.stop <= plan.until_ci
        manifest.update(
            n_games=games,
            games_budget=plan.n_games,
            stopped={
                "reason": "interval width reached" if reached else "game budget reached",
                "widest_interval": round(float(run.stop), 6),
                "games_per_variant": games,
            },
        )
    manifest["played_this_run"] = {"games": run.played, "seconds": round(run.elapsed, 3)}
    store.remove_temporary_parts(out, table_names(game))  # left by workers of a stopped run
    store.write_manifest(out, manifest)
    return manifest


def run_fault(error: BaseException, out: Path) -> str | None:
    """One line for a failure that is not the user's input, or None for a real bug."""
    from joblib.externals.loky.process_executor import TerminatedWorkerError

    if isinstance(error, TerminatedWorkerError):
        return "a worker process stopped unexpectedly (killed, or out of memory)"
    if isinstance(error, MemoryError):
        return "out of memory (lower --chunk-size or --jobs)"
    if isinstance(error, OSError) and not isinstance(error, (ConnectionError, TimeoutError)):
        where = f" ({error.filename})" if error.filename else ""
        return f"cannot write the dataset in {out}: {error.strerror or error}{where}"
    return None


class Run:
    """The bookkeeping of one execution: tasks done before, played now, and where it stopped."""

    def __init__(self, plan: Plan, tasks: list[tuple]):
        self.plan, self.tasks = plan, tasks
        self.total = plan.n_games * len(plan.variants)
        self.done: set[int] = set()
        self.played, self.played_tasks, self.stop, self.elapsed = 0, [], None, 0.0

    def saved(self, out: Path | None = None) -> int:
        """Games of the tasks known done, or with ``out`` of those whose parts are all there
        (after a stop, workers may have written parts the parent never heard of)."""
        if out is None:
            return sum(n for t, _, _, n in self.tasks if t in self.done)
        names = table_names(get_game(self.plan.game))
        return sum(
            n
            for t, _, _, n in self.tasks
            if all((out / name / store.part_name(t)).exists() for name in names)
        )

    def play(self, workers: Workers, params: list, out: Path, progress: bool, label: str) -> None:
        plan, tasks, parent = self.plan, self.tasks, workers.parent
        wave = WAVE_CHUNKS * len(plan.variants) if plan.until_ci else len(tasks)
        started = time.perf_counter()
        with Progress(self.total, progress, label) as bar:
            bar.advance(self.saved(), fresh=False)
            for start in range(0, len(tasks), wave):
                batch = tasks[start : start + wave]
                todo = [
                    (plan, params[v], t, v, first, n, str(out), parent)
                    for t, v, first, n in batch
                    if t not in self.done
                ]
                for t, n in workers.map(play_task, todo):
                    self.done.add(t)
                    self.played += n
                    bar.advance(n)
                self.played_tasks += batch
                if plan.until_ci:
                    self.stop = widest_interval(out, [t for t, *_ in self.played_tasks])
                    if self.stop <= plan.until_ci:
                        break
        self.elapsed = time.perf_counter() - started


WAVE_CHUNKS = 4


def widest_interval(out: Path, tasks: list[int]) -> float:
    """Widest Wilson 95% interval of the win rate by seat and by policy in every variant."""
    import polars as pl

    from simulator.core.stats import wilson

    players = pl.scan_parquet([out / "players" / store.part_name(t) for t in tasks])
    widest = 0.0
    for key in ("seat", "policy"):
        counts = (
            players.group_by("variant", key)
            .agg(pl.col("won").sum().alias("wins"), pl.len().alias("n"))
            .collect()
        )
        low, high = wilson(counts["wins"].to_numpy(), counts["n"].to_numpy())
        widest = max(widest, float(np.max(high - low)))
    return widest
