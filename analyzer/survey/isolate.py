"""One application, one process: run analyzer/survey/worker.py under a time and a memory limit.

A survey must survive any one application: a native parser that segfaults on deep nesting, a
front end that never returns, a scan that takes all the memory. Each application therefore runs
in a fresh process (leading a process group of its own, so that node, started by the TypeScript
front end, belongs to it), and whatever ends that process is turned into that application's
result: the scan's own result, or a failure whose reason names the signal, the time limit or the
memory limit. The same function runs on a Dask worker (analyzer/survey/distributed.py), so a
crash on a remote machine is one application's failure there too.
"""

from __future__ import annotations

import os
import pickle
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .fingerprint import fingerprint, source_hashes
from .manifest import App
from .worker import MEMORY_EXIT

# Defaults: well above what the largest real applications of the corpus need on one core,
# low enough that a runaway scan cannot take a shared machine down with it.
DEFAULT_SECONDS = 1800.0
DEFAULT_MEMORY_MB = 4096


@dataclass(frozen=True)
class Limits:
    seconds: float = DEFAULT_SECONDS   # wall time of one application; 0 = no limit
    memory_mb: int = DEFAULT_MEMORY_MB  # data memory of each of its processes (RLIMIT_DATA); 0 = no limit


class Children:
    """The worker processes running now, so that an interrupted survey can kill them all."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: set[subprocess.Popen] = set()
        self.stopped = False

    def start(self, command: list[str], **options) -> subprocess.Popen | None:
        with self._lock:
            if self.stopped:
                return None
            process = subprocess.Popen(command, **options)
            self._live.add(process)
            return process

    def finish(self, process: subprocess.Popen) -> None:
        _kill_group(process)  # node may outlive a worker that crashed
        with self._lock:
            self._live.discard(process)

    def kill_all(self) -> None:
        with self._lock:
            self.stopped = True
            for process in self._live:
                _kill_group(process)


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def failure(reason: str, hashes: dict[str, str], seconds: float = 0.0) -> dict:
    return {"ok": False, "error": reason, "hashes": hashes, "seconds": seconds}


def run_isolated(app: App, folder: str, config, hashes: dict[str, str], limits: Limits = Limits(),
                 check_checkout: bool = False, children: Children | None = None) -> dict:
    """Scan one application in its own process; never raises, a failure is a result.

    `check_checkout` (remote workers): the folder must exist here and hold the same sources as
    the checkout the survey hashed, or the stored hashes would describe other code.
    """
    started = time.perf_counter()
    if check_checkout:
        where = f"{folder} on {socket.gethostname()}"
        if not Path(folder).is_dir():
            return failure(f"no checkout at {where}", hashes)
        if fingerprint(source_hashes(Path(folder))) != fingerprint(hashes):
            return failure(f"the checkout at {where} differs from the one the survey hashed", hashes)
    children = children or Children()
    with tempfile.TemporaryDirectory(prefix="txscan-survey-") as scratch:
        job, result, log = Path(scratch, "job"), Path(scratch, "result"), Path(scratch, "stderr")
        job.write_bytes(pickle.dumps({"app": app, "folder": folder, "config": config, "hashes": hashes,
                                      "memory_mb": limits.memory_mb}))
        reason = _run_worker(children, [sys.executable, "-m", "analyzer.survey.worker", str(job), str(result),
                                        str(os.getpid())], log, limits)
        seconds = time.perf_counter() - started
        if reason is not None:
            return failure(reason, hashes, seconds)
        try:
            payload = pickle.loads(result.read_bytes())
        except (OSError, pickle.UnpicklingError, EOFError) as exc:
            return failure(f"the worker ended without a readable result: {exc}", hashes, seconds)
    if not payload["ok"] and limits.memory_mb and _out_of_memory(payload["error"]):
        payload["error"] = f"memory limit of {limits.memory_mb} MiB reached: {payload['error']}"
    return payload


def _run_worker(children: Children, command: list[str], log: Path, limits: Limits) -> str | None:
    """Run the worker to its end; None when it wrote its result, else the reason it did not."""
    # The worker's stdin is a pipe whose only writer is this process: EOF tells it we are gone.
    watch_read, watch_write = os.pipe()
    try:
        with log.open("wb") as stderr:
            process = children.start(command, stdin=watch_read, stdout=subprocess.DEVNULL, stderr=stderr,
                                     start_new_session=True, close_fds=True)
        reason = "the survey was interrupted before this application started"
    except OSError as exc:
        process, reason = None, f"the worker could not be started: {exc}"
    finally:
        os.close(watch_read)
    if process is None:
        os.close(watch_write)
        return reason
    try:
        try:
            status = process.wait(timeout=limits.seconds or None)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            process.wait()
            return f"timed out after {limits.seconds:g} s"
    finally:
        children.finish(process)
        os.close(watch_write)
    if status == 0:
        return None
    if status == MEMORY_EXIT:
        return f"memory limit of {limits.memory_mb} MiB reached (MemoryError)"
    if status < 0:
        if children.stopped:
            return "the survey was interrupted while this application was scanned"
        name = signal.Signals(-status).name
        return f"worker killed by {name} ({signal.strsignal(-status)})"
    return f"worker exited with status {status}: {_last_line(log)}"


def _out_of_memory(error: str) -> bool:
    # node under the limit: "JavaScript heap out of memory" / "Fatal process OOM in ..."
    lowered = error.lower()
    return "out of memory" in lowered or "process oom" in lowered or "memoryerror" in lowered


def _last_line(log: Path) -> str:
    lines = [line for line in log.read_text("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1][:500] if lines else "(nothing on stderr)"
