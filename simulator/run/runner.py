"""Batch runner: plays a plan's games in chunks on worker processes and writes the dataset.

A plan (:mod:`simulator.run.plan`) is split into tasks (variant × chunk of consecutive game
ids).  Each task plays its games with seeds derived from ``(seed, game_id)``, builds Arrow
tables and writes its parts atomically, so the dataset is identical whatever ``--jobs``,
backend or interruption.  The parent process only dispatches tasks, shows progress and writes
the manifest: memory stays flat however many games are played.

Backends: ``joblib`` (local worker processes) and ``dask`` (the workers of a dask.distributed
scheduler, given its address; they write parts straight into OUT, which must therefore be a
path every worker can reach, e.g. a shared filesystem: docs/cluster.md).
"""

from __future__ import annotations

import os
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import simulator
from simulator.core.errors import Fault, Interrupted, UserError
from simulator.core.game import Game, get_game
from simulator.core.rng import game_seeds
from simulator.run import outputs, store, whole
from simulator.run.plan import (
    Plan,
    check_size,
    manifest_for,
    resumable_plan,
    resume_command,
    seat_policy_ids,
    table_names,
)
from simulator.run.replicates import play_tables
from simulator.run.warm import warm_up
from simulator.run.workers import WRITING, Progress, Workers


def play_task(
    plan: Plan,
    params: list[tuple],
    task: int,
    variant_index: int,
    first: int,
    n: int,
    out: str,
    parent: int | None = None,
) -> int:
    """Play and write one task; returns (task, its number of games).  Runs in a worker process.
    ``params``: the engine arrays of each replicate of the variant (one without replicates).

    ``parent`` is the pid of the process running the plan: a local worker whose parent has
    died (killed, even by SIGKILL) stops before playing or writing instead of playing on.
    """
    stop_if_orphaned(parent)
    game = get_game(plan.game)
    game_ids = np.arange(first, first + n, dtype=np.int64)
    seeds = game_seeds(plan.seed, game_ids)
    seat_ids = seat_policy_ids(game, plan, game_ids)
    tables = play_tables(game, plan.variants[variant_index], params, game_ids, seeds, seat_ids)
    stamp = whole.part_stamp(plan, game.engine_version, task, variant_index, first, n)
    metadata = {**whole.metadata(stamp), b"balsim.version": simulator.__version__.encode()}
    with WRITING:
        stop_if_orphaned(parent)
        for name, table in tables.items():
            store.write_part(Path(out), name, task, table.replace_schema_metadata(metadata))
    return task, n


def stop_if_orphaned(parent: int | None) -> None:
    if parent is not None and os.getpid() != parent and os.getppid() != parent:
        os._exit(1)  # nobody is left to collect the result; the parts written so far are whole


def execute(
    plan: Plan | None,
    out: Path,
    jobs: int = -1,
    scheduler: str | None = None,
    resume: bool = False,
    force: bool = False,
    progress: bool = True,
    label: str = "",
    writer: str | None = None,
) -> dict:
    """Run ``plan`` into ``out`` and return the finished manifest (``writer``: the command,
    recorded in it).

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
    target = Target(plan, out, resume, force, writer)
    return execute_all([target], jobs, scheduler, progress, label)[0]


@dataclass
class Target:
    """One dataset to write: what :func:`execute` takes besides where the games run."""

    plan: Plan | None  # None with resume: the plan recorded in out
    out: Path
    resume: bool = False
    force: bool = False
    writer: str | None = None  # the command writing it, recorded (a resumed run keeps its own)


def execute_all(
    targets: list[Target],
    jobs: int = -1,
    scheduler: str | None = None,
    progress: bool = True,
    label: str = "",
) -> list[dict]:
    """Run several datasets as one task list on the same workers, so a cluster stays busy
    across them instead of waiting on the last chunks of each in turn; returns their finished
    manifests.  Each dataset is byte for byte the one :func:`execute` writes alone (a task's
    parts depend only on its plan and game ids), and so is what a stop leaves in each."""
    runs = []
    for target in targets:  # every plan checked before any folder is touched
        shown, out = Path(target.out), outputs.place(Path(target.out), outputs.DATASET)
        plan = resumable_plan(out) if target.resume else target.plan
        check_size(plan)
        runs.append(Run(plan, out, shown, target.resume, target.writer))
    with ExitStack() as locks:
        for run in runs:
            locks.enter_context(store.Writing(run.out, run.shown))
        for run, target in zip(runs, targets):
            if run.resume:
                run.done = resumable_tasks(run.out, run.plan, run.game)
                run.writer = store.read_manifest(run.out).get(store.WRITER, run.writer)
            else:
                outputs.owned(
                    run.out, outputs.DATASET, run.writer, target.force, named=f"--out {run.shown}"
                )
        play_runs(runs, Workers(jobs, scheduler), progress, label)
        try:
            return [run.finish() for run in runs]
        except OSError as e:  # the manifest of a finished run (a full disk): its parts are kept
            fault = run_fault(e, folder_of(e, runs))
            raise Fault(f"{fault}; {saved_text(runs, named=True)}") from None


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


def play_runs(runs: list[Run], workers: Workers, progress: bool, label: str) -> None:
    """Play the tasks not done of every run (locked folders; a new dataset unless resumed:
    anything balsim wrote there before is cleared first) on ``workers``.  The engine compiles
    here first, when the kernel cache lacks it: local workers, and a cluster's workers that
    share the cache's folder, then load it instead of each compiling it (docs/cluster.md)."""
    try:
        with workers:
            for run in runs:
                run.start()
            for run in runs:
                warm_up(run.game, run.params[0][0], run.plan.n_players)
            play_waves(runs, workers, progress, label)
    except KeyboardInterrupt:
        for run in runs:
            run.tidy()
        if not any(run.wrote or run.resume for run in runs):
            raise Interrupted("Aborted.") from None
        raise Interrupted(f"Aborted. {saved_text(runs)}") from None
    except BaseException as e:
        for run in runs:
            run.tidy(discard_empty=True)
        fault = run_fault(e, folder_of(e, runs))
        if fault is None:
            raise
        # a part written (even a task's first table alone) keeps its dataset: --resume ends it
        kept = any(run.holds_parts() for run in runs if run.wrote or run.resume)
        raise Fault(f"{fault}; {saved_text(runs, named=True)}" if kept else fault) from None


def play_waves(runs: list[Run], workers: Workers, progress: bool, label: str) -> None:
    """Every run's next wave in one task list, until each is finished or stopped early."""
    started = time.perf_counter()
    with Progress(sum(run.total for run in runs), progress, label) as bar:
        bar.advance(sum(run.saved() for run in runs), fresh=False)
        playing = runs
        while playing:
            waves = [run.next_wave() for run in playing]
            todo = [
                (i, run.plan, run.params[v], t, v, first, n, str(run.out), workers.parent)
                for i, (run, wave) in enumerate(zip(playing, waves))
                for t, v, first, n in wave
                if t not in run.done
            ]
            for i, t, n in workers.map(play_numbered, todo):
                playing[i].done.add(t)
                playing[i].played += n
                playing[i].elapsed = time.perf_counter() - started
                bar.advance(n)
            playing = [run for run, wave in zip(playing, waves) if not run.wave_played(wave)]


def play_numbered(i: int, *args) -> tuple[int, int, int]:
    """(i, task, games) of :func:`play_task`: which of a batch's datasets the task was of."""
    return (i, *play_task(*args))


def saved_text(runs: list[Run], named: bool = False) -> str:
    """What a stop kept; ``named``: the line already names the folder of a single run."""
    saved, total = sum(run.saved(run.out) for run in runs), sum(run.total for run in runs)
    if len(runs) == 1:
        run = runs[0]
        where = "," if named else f" in {run.shown};"
        return (
            f"{saved:,} of {total:,} games are saved{where} "
            f"`{resume_command(run.plan, run.shown)}` finishes the run"
        )
    return f"{saved:,} of {total:,} games are saved in {len(runs)} datasets"


def folder_of(error: BaseException, runs: list[Run]) -> Path:
    """The dataset folder an error's file is in (the first run's when it names none)."""
    name = str(getattr(error, "filename", None) or "")
    return next((run.shown for run in runs if name.startswith(str(run.out))), runs[0].shown)


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
    """The bookkeeping of one dataset's execution: tasks done before, played now, where it
    stopped, and what it wrote."""

    def __init__(self, plan: Plan, out: Path, shown: Path, resume: bool, writer: str | None):
        self.plan, self.out, self.shown, self.resume = plan, out, shown, resume
        self.writer = writer
        self.game = get_game(plan.game)
        self.params = [  # per variant, per replicate
            [self.game.prepare(rules, plan.n_players) for rules in v.replicate_rules()]
            for v in plan.variants
        ]
        self.tasks = list(plan.tasks())
        self.total = plan.n_games * len(plan.variants)
        self.done: set[int] = set()
        self.played, self.played_tasks, self.stop, self.elapsed = 0, [], None, 0.0
        self.next, self.wrote = 0, False

    def start(self) -> None:
        """A new dataset's running manifest, in place of what balsim wrote there before."""
        if not self.resume:
            manifest = store.own_manifest(self.out)
            if manifest is not None:
                store.clear_dataset(self.out, manifest)
            store.write_manifest(self.out, self.manifest("running"))
            self.wrote = True

    def next_wave(self) -> list[tuple]:
        """The next tasks to play: all of them, or WAVE_CHUNKS chunks with ``until_ci``."""
        size = WAVE_CHUNKS * len(self.plan.variants) if self.plan.until_ci else len(self.tasks)
        wave = self.tasks[self.next : self.next + size]
        self.next += size
        return wave

    def wave_played(self, wave: list[tuple]) -> bool:
        """Count ``wave`` played; whether the run is finished (all played, or narrow enough)."""
        self.played_tasks += wave
        if self.plan.until_ci:
            self.stop = widest_interval(self.out, [t for t, *_ in self.played_tasks])
            if self.stop <= self.plan.until_ci:
                return True
        return self.next >= len(self.tasks)

    def saved(self, out: Path | None = None) -> int:
        """Games of the tasks known done, or with ``out`` of those whose parts are all there
        (after a stop, workers may have written parts the parent never heard of)."""
        if out is None:
            return sum(n for t, _, _, n in self.tasks if t in self.done)
        names = table_names(self.game)
        return sum(
            n
            for t, _, _, n in self.tasks
            if all((out / name / store.part_name(t)).exists() for name in names)
        )

    def tidy(self, discard_empty: bool = False) -> None:
        """After a stop: the temporary parts of stopped workers go, and with ``discard_empty``
        the manifest of a new dataset that has no part yet."""
        if self.wrote or self.resume:
            store.remove_temporary_parts(self.out, table_names(self.game))
        if discard_empty and self.wrote and not self.holds_parts():
            store.remove_dataset(self.out)

    def holds_parts(self) -> bool:
        return any(self.out.glob("*/part-*.parquet"))

    def manifest(self, status: str) -> dict:
        """The plan's manifest, with the command that wrote the dataset when it is known."""
        manifest = manifest_for(self.plan, self.game, status)
        return {**manifest, store.WRITER: self.writer} if self.writer else manifest

    def finish(self) -> dict:
        """Write and return the finished manifest."""
        plan, game, out = self.plan, self.game, self.out
        manifest = self.manifest("complete")
        manifest["parts"] = {
            name: [
                {"file": f"{name}/{store.part_name(t)}", "rows": store.part_rows(out, name, t)}
                for t, *_ in self.played_tasks
            ]
            for name in table_names(game)
        }
        if plan.until_ci:
            games = sum(n for _, v, _, n in self.played_tasks if v == 0)
            reached = self.stop <= plan.until_ci
            manifest.update(
                n_games=games,
                games_budget=plan.n_games,
                stopped={
                    "reason": "interval width reached" if reached else "game budget reached",
                    "widest_interval": round(float(self.stop), 6),
                    "games_per_variant": games,
                },
            )
        manifest["played_this_run"] = {"games": self.played, "seconds": round(self.elapsed, 3)}
        store.remove_temporary_parts(out, table_names(game))  # left by workers of a stopped run
        store.write_manifest(out, manifest)
        return manifest


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
