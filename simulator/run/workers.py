"""Where tasks run: local worker processes (joblib) or a dask.distributed cluster, and the
progress bar that counts the games they play.

A command has one pool of workers from its first task to its end: the local processes stay
up between its phases (the looks of an ``ask``, its fields, the rounds of an adaptation, the
report), so each starts once and loads the compiled kernels once; a cluster is reached by
one client, and said once.  :func:`command_pool` scopes that pool to one command (the CLI
wraps every command that plays in it): how long to wait for a cluster's first worker, and
whether the notices are said (``--quiet``).
"""

from __future__ import annotations

import os
import sys
import threading
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass

from simulator.core.errors import Fault, UserError

# Local workers stay this long without a task: longer than any pause between a command's
# phases (an adaptation's rounds, an ask's looks and fields, the report), so none restarts
# within a command; they end with the command, or within a second of its death (watch).
IDLE_WORKER_SECONDS = 600
ORPHAN_CHECK_SECONDS = 1.0
WORKER_TIMEOUT_SECONDS = 180  # how long a command waits for a cluster's first worker


@dataclass
class PoolSettings:
    """What the command says about its pool and how long it waits for a cluster's workers."""

    quiet: bool = False
    worker_timeout: float = WORKER_TIMEOUT_SECONDS


SETTINGS = PoolSettings()
CLIENTS: dict = {}  # scheduler address -> the command's client of that cluster


@contextmanager
def command_pool(quiet: bool = False, worker_timeout: float = WORKER_TIMEOUT_SECONDS):
    """One command's pool: its settings, and at its end the cluster clients it opened closed
    (local workers are reused by the next command of this process, or end with it)."""
    global SETTINGS
    before, SETTINGS = SETTINGS, PoolSettings(quiet, worker_timeout)
    try:
        yield
    finally:
        SETTINGS = before
        close_clients()


def close_clients() -> None:
    while CLIENTS:
        _, client = CLIENTS.popitem()
        client.close()


class Workers:
    """Runs task functions on ``jobs`` local processes (joblib) or, given the address of a
    dask.distributed ``scheduler``, on that cluster's workers: the command's pool, kept warm
    between uses (see the module's docstring).

    ``parent`` is this process's pid for local workers (they stop when it dies), None for dask.
    ``slots`` (once entered) is how many tasks run at once: ``jobs``, or the cluster's threads.
    """

    def __init__(self, jobs: int, scheduler: str | None = None):
        self.jobs, self.scheduler = jobs, scheduler
        self.parent = None if scheduler else os.getpid()
        self.slots = jobs

    def __enter__(self):
        if self.scheduler:
            self.client, self.slots = cluster(self.scheduler)
        elif self.jobs != 1:
            from joblib import Parallel, parallel_config

            # loky restarts a worker that died and says so; nothing is lost
            warnings.filterwarnings(
                "ignore", message="A worker stopped while some jobs", category=UserWarning
            )
            # every worker watches this process from its start (even one still importing when
            # this process is killed), so it ends within ORPHAN_CHECK_SECONDS of this one
            # (one whose task holds the interpreter stops at the task's end: stop_if_orphaned).
            # The same arguments every time: loky then reuses its workers instead of new ones.
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
        if self.jobs != 1 and not self.scheduler:
            self.parallel.__exit__(*exc)  # the workers stay for the command's next phase
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
# Held while a task writes its parts: the watch ends an orphaned worker between two parts,
# never within one (a part cut short would leave its temporary file behind)
WRITING = threading.Lock()


def watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(ORPHAN_CHECK_SECONDS)
    with WRITING:
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


def cluster(address: str):
    """(client, threads) of the cluster at ``address``: the command's one client, said once
    on stderr (unless quiet).  A cluster with no worker yet is waited for, at most
    ``SETTINGS.worker_timeout`` seconds, then the command ends with one line."""
    client = CLIENTS.get(address)
    if client is None:
        client = CLIENTS[address] = dask_client(address)
        workers = client.scheduler_info()["workers"]
        if not workers:
            notice(
                f"dask cluster at {address}: no worker yet; waiting up to "
                f"{SETTINGS.worker_timeout:g} s for one (--worker-timeout)"
            )
            try:
                client.wait_for_workers(1, timeout=SETTINGS.worker_timeout)
            except (TimeoutError, OSError):
                CLIENTS.pop(address).close()
                raise Fault(
                    f"no dask worker joined the cluster at {address} within "
                    f"{SETTINGS.worker_timeout:g} s (--worker-timeout)"
                ) from None
        threads = cluster_threads(client)
        notice(
            f"dask cluster at {address}: {len(client.scheduler_info()['workers'])} worker(s), "
            f"{threads} thread(s)"
        )
    return client, max(cluster_threads(client), 1)


def cluster_threads(client) -> int:
    """The threads of the cluster's workers: the tasks that run at once."""
    return sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values())


def notice(line: str) -> None:
    """A notice of the command on stderr (its pool, its caches), unless it is quiet."""
    if not SETTINGS.quiet:
        print(line, file=sys.stderr, flush=True)


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
