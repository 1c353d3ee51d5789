"""One pool of workers per command: its phases (the runner's chunks, a lab's batches, the
report's sections) run on the same local processes, which stay up through the pauses between
phases instead of being started again."""

import os
import time
from pathlib import Path

from conftest import small_plan

from simulator.report import in_processes
from simulator.run.runner import execute

PAUSE = 11  # seconds: longer than the 10 s after which idle workers used to stop


def worker_processes() -> set[int]:
    """The pids of this process's local worker processes (loky's)."""
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes()
        except (OSError, IndexError):
            continue
        if int(stat[1]) == os.getpid() and b"popen_loky" in command:
            found.add(int(entry.name))
    return found


def test_the_phases_of_a_command_share_one_pool_through_its_pauses(tmp_path):
    execute(small_plan("ekonos", n_games=200, chunk_size=50), tmp_path / "ds", jobs=2)
    first = worker_processes()
    assert len(first) == 2
    time.sleep(PAUSE)  # a phase of the command's own process (an answer, a report)
    assert len(set(in_processes(os.getpid, [()] * 8, 2)) - first) == 0
    assert worker_processes() == first
