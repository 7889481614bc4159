"""Helper processes forked from a scan, on a machine with a second core (Linux).

A forked process shares the scan's heap as it is (the index, the models, the tables to write)
without pickling or re-importing anything. Two kinds are used: the autocommit phase's walks
(django/autocommit_parallel.py) and the warm cache's file, written while the scan goes on
(cache/__init__.py). Neither changes what a scan outputs; each falls back to doing its work in
the scan's own process when it cannot start or fails.

Helpers start only with a core to spare (allowed()): not on a busy machine, nor in a survey
whose jobs already use every core. TXSCAN_HELPERS=0 keeps every scan in one process; =1 starts
helpers whatever the load and the autocommit helper whatever the project's size (a warm scan,
whose walks are in its cache, still starts none); =wait also makes the autocommit phase wait for
it first (tests, measuring its share).
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
import time
from collections.abc import Callable

from . import timing

TYPE_CHECKING = False  # (typing is not imported before a scan's first fork: analyzer.scan imports this module)
if TYPE_CHECKING:
    from typing import NoReturn, TypeVar

    T = TypeVar("T")

ENV = "TXSCAN_HELPERS"
# How much of a core the others may be using (load average) for one to count as spare.
SPARE = 0.5
# How long a background task may take past the point the scan needs its result; beyond it the
# task is killed and the caller does the work itself (a stuck helper never hangs a scan).
WAIT_SECONDS = 120.0


def setting() -> str:
    return os.environ.get(ENV, "")


def allowed() -> bool:
    """Whether helper processes may be started here: Linux (fork is safe there), not turned
    off, and a core to spare: two usable cores, the last minute's load average under one core
    less than that (on a busy machine a helper only takes time from the scan it helps)."""
    if setting() == "0" or not hasattr(os, "fork") or not sys.platform.startswith("linux"):
        return False
    if setting() in ("1", "wait"):
        return True
    if threading.active_count() > 1:
        # A process with other threads (a Dask worker, an embedding application) may fork while
        # one of them holds a lock the child then needs (stdio, imports, the allocator): the
        # child could hang. Only a single-threaded scan forks unless told to.
        return False
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores >= 2 and os.getloadavg()[0] < cores - 1 + SPARE


def fork() -> int | None:
    """os.fork() with the scan's buffered output flushed first (else printed twice); None when
    no process could be started. In the child, the collector leaves the inherited heap alone
    (freezing it keeps it from being traversed, and its pages from being copied one by one)."""
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        pid = os.fork()
    except OSError:
        return None
    if pid == 0:
        gc.freeze()
        timing.mark("forked")
    return pid


class Background:
    """A task run in a forked process; finish() waits for it."""

    def __init__(self, pid: int, task: Callable[[], None]) -> None:
        self.pid = pid
        self.task = task

    def finish(self, timeout: float | None = None) -> bool:
        """Wait for the task, at most `timeout` seconds (WAIT_SECONDS); False when it did not end
        well or in time (it is then killed and reaped, and the caller's to redo)."""
        try:
            code = wait(self.pid, WAIT_SECONDS if timeout is None else timeout)
        except ChildProcessError:
            return False
        if code is None:
            stop(self.pid)
            return False
        return code == 0


def poll(ready: Callable[[], T | None], seconds: float, first_delay: float = 0.001,
         longest_delay: float = 0.05) -> T | None:
    """What `ready()` returns once it is not None, asked again after pauses that double from
    `first_delay` up to `longest_delay`; None when `seconds` have passed first."""
    deadline = time.monotonic() + seconds
    delay = first_delay
    while True:
        result = ready()
        if result is not None:
            return result
        if time.monotonic() >= deadline:
            return None
        time.sleep(delay)
        delay = min(delay * 2, longest_delay)


def wait(pid: int, seconds: float) -> int | None:
    """The exit code of the forked process `pid` once it ends, within `seconds`; None if it is
    still running then."""
    def exit_code() -> int | None:
        done, status = os.waitpid(pid, os.WNOHANG)
        return os.waitstatus_to_exitcode(status) if done else None

    return poll(exit_code, seconds)


# Processes stop() killed without waiting for them to end: reap_stopped() reaps them.
_stopped: list[int] = []


def stop(pid: int, wait: bool = True) -> None:
    """Kill the forked process `pid` (done or not) and reap it. `wait=False`: reaped later, by
    reap_stopped(). A killed process ends only once the system has freed its memory, a heap the
    size of the scan's (healthchecks' autocommit helper: 4-8 ms of the scan waiting at load 2-3):
    a caller that has more to do first need not wait for it."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if wait:
        _reap(pid)
    else:
        _stopped.append(pid)


def reap_stopped() -> None:
    """Reap every process stop() killed without waiting (analyzer.scan.scan() does as it ends)."""
    while _stopped:
        _reap(_stopped.pop())


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def in_background(task: Callable[[], None]) -> Background | None:
    """`task()` in a forked process (None: not started, the caller runs it itself)."""
    if not allowed():
        return None
    pid = fork()
    if pid is None:
        return None
    if pid == 0:  # pragma: no cover - the forked process
        run_and_exit(task)
    return Background(pid, task)


def run_and_exit(task: Callable[[], None]) -> NoReturn:  # pragma: no cover - the forked process
    """In a forked process: `task()`, then end the process without the scan's teardown, with
    status 0 when the task returned and 1 when it raised."""
    status = 1
    try:
        task()
        sys.stdout.flush()
        sys.stderr.flush()
        status = 0
    finally:
        os._exit(status)
