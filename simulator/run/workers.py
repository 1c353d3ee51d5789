"""Where tasks run: local worker processes (joblib) or a dask.distributed cluster, and the
progress bar that counts the games they play."""

from __future__ import annotations

import os
import sys
import threading
import time
import warnings

from simulator.core.errors import UserError

IDLE_WORKER_SECONDS = 10
ORPHAN_CHECK_SECONDS = 1.0


class Workers:
    """Runs task functions on ``jobs`` local processes (joblib) or, given the address of a
    dask.distributed ``scheduler``, on that cluster's workers.

    ``parent`` is this process's pid for local workers (they stop when it dies), None for dask.
    ``slots`` (once entered) is how many tasks run at once: ``jobs``, or the cluster's threads.
    """

    def __init__(self, jobs: int, scheduler: str | None = None):
        self.jobs, self.scheduler = jobs, scheduler
        self.parent = None if scheduler else os.getpid()
        self.slots = jobs

    def __enter__(self):
        if self.scheduler:
            self.client = dask_client(self.scheduler)
            self.slots = cluster_slots(self.client, self.scheduler)
        elif self.jobs != 1:
            from joblib import Parallel, parallel_config

            # loky restarts idle workers between runs and says so; nothing is lost
            warnings.filterwarnings(
                "ignore", message="A worker stopped while some jobs", category=UserWarning
            )
            # every worker watches this process from its start (even one still importing when
            # this process is killed), so it ends within ORPHAN_CHECK_SECONDS of this one
            # (one whose task holds the interpreter stops at the task's end: stop_if_orphaned)
            with parallel_config(
                backend="loky",
                idle_worker_timeout=IDLE_WORKER_SECONDS,
                initializer=watch,
                initargs=(self.parent,),
            ):
                self.parallel = Parallel(n_jobs=self.jobs, return_as="generator_unordered")
            self.parallel.__enter__()
        return self

    def map(self, function, args_list):
        """Results of ``function(*args)`` for every args, in completion order."""
        if not args_list:
            return
        if self.scheduler:
            from distributed import as_completed

            futures = [self.client.submit(function, *a, pure=False) for a in args_list]
            try:
                for future in as_completed(futures):
                    yield future.result()
            finally:  # stopped early (Ctrl-C, a failed task): the cluster drops the rest
                self.client.cancel(futures)
        elif self.jobs == 1 or len(args_list) == 1:
            for a in args_list:
                yield function(*a)
        else:
            from joblib import delayed

            yield from self.parallel(
                delayed(in_worker)(self.parent, function, *a) for a in args_list
            )

    def __exit__(self, *exc):
        if self.scheduler:
            self.client.close()
        elif self.jobs != 1:
            self.parallel.__exit__(*exc)
        return False


def in_worker(parent: int, function, *args):
    """``function(*args)`` in a local worker process that ends itself once ``parent`` (the
    command's process) is gone, even killed by SIGKILL: a thread checks every
    ORPHAN_CHECK_SECONDS whenever the task lets it run (a kernel holding the interpreter
    stops at its end)."""
    watch(parent)
    return function(*args)


def watch(parent: int) -> None:
    """Starts, once per worker process, the thread that ends it when ``parent`` is gone."""
    global WATCHED
    if WATCHED is None:
        WATCHED = threading.Thread(target=watch_parent, args=(parent,), daemon=True)
        WATCHED.start()


WATCHED: threading.Thread | None = None  # the watching thread of this worker process


def watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(ORPHAN_CHECK_SECONDS)
    os._exit(1)


def dask_client(address: str | None):
    """A client of the scheduler at ``address``; a malformed or unreachable address is one
    line naming it (the connection timeout is dask's ``distributed.comm.timeouts.connect``)."""
    from distributed import Client
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        protocol, location = parse_address(address or "", strict=True)
        if protocol in ("tcp", "tls", "ws", "wss", "ucx"):
            parse_host_port(location)
    except (ValueError, TypeError) as e:
        raise UserError(
            f"--scheduler '{address}' is not a scheduler address like tcp://HOST:8786 ({e})"
        ) from None
    try:
        answers_as_a_scheduler(address)
        return Client(address)
    except (OSError, TimeoutError) as e:
        raise UserError(f"cannot reach the dask scheduler at {address} ({e})") from None
    except Exception as e:  # it answered, but not in dask's protocol
        raise UserError(
            f"{address} did not answer as a dask scheduler ({type(e).__name__}: {e})"
        ) from None


def cluster_slots(client, address: str) -> int:
    """The threads of the cluster's workers (tasks that run at once), said on stderr: a
    cluster with no worker yet runs the tasks when the first joins."""
    workers = client.scheduler_info()["workers"].values()
    threads = sum(w.get("nthreads", 1) for w in workers)
    waiting = "" if workers else "; the tasks wait for the first worker to join"
    print(
        f"dask cluster at {address}: {len(workers)} worker(s), {threads} thread(s){waiting}",
        file=sys.stderr,
        flush=True,
    )
    return max(threads, 1)


def answers_as_a_scheduler(address: str) -> None:
    """Connect and shake hands with ``address`` within dask's connect timeout: dask's own
    client waits without end for the handshake of a server that accepts and never answers."""
    import asyncio

    import dask
    from dask.utils import parse_timedelta
    from distributed.comm import connect

    seconds = parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), "s")

    async def shake_hands():
        comm = await connect(address, timeout=seconds)
        await comm.close()

    try:
        asyncio.run(asyncio.wait_for(shake_hands(), seconds))
    except asyncio.TimeoutError:
        raise TimeoutError(f"no answer within {seconds:g} s") from None


class Progress:
    """Games done, games/s and ETA on stderr; silent when off or stderr is not a terminal."""

    def __init__(self, total: int, enabled: bool, label: str = ""):
        self.total, self.done, self.label = total, 0, f"{label} " if label else ""
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
        sys.stderr.write(
            f"\r{self.label}[{'#' * filled}{'.' * (width - filled)}] "
            f"{self.done:,}/{self.total:,} games  {rate:,.0f} games/s  {eta} "
        )
        sys.stderr.flush()

    def __exit__(self, *exc):
        if self.enabled:
            sys.stderr.write("\n")
        return False
