"""Wall time per scan phase, for scripts/benchmark.py.

Phases are measured only when asked (`TXSCAN_TIMINGS_FILE` names a file the JSON object of
phase -> seconds is written to, by the process that ran the scan), so outputs never carry wall
times: the same input keeps giving byte-identical JSON, store rows and reports.

`TXSCAN_TRACE_FILE` names a file every process of a scan (the scan, its helper and the process
indexing ahead, django/autocommit_parallel.py) appends its phases to as they end, and moments
(mark()) as they pass: one line `pid start end name` each, in perf_counter seconds, which all
processes of one machine share. scripts/trace_timeline.py draws them, one row per process: the
critical path and where a core waits.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

_seconds: dict[str, float] = {}
_muted = 0
TRACE_VARIABLE = "TXSCAN_TRACE_FILE"


@contextmanager
def phase(name: str) -> Iterator[None]:
    started = time.perf_counter()
    try:
        yield
    finally:
        add(name, time.perf_counter() - started)


def add(name: str, seconds: float) -> None:
    if not _muted:
        _seconds[name] = _seconds.get(name, 0.0) + seconds
        _trace(name, seconds)


def mark(name: str) -> None:
    """A moment of the scan (a process forked, a helper's walks begun), traced when asked."""
    _trace(name, 0.0)


def _trace(name: str, seconds: float) -> None:
    target = os.environ.get(TRACE_VARIABLE)
    if target:
        now = time.perf_counter()
        # appended line by line: helper processes end with os._exit, which flushes nothing
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()} {now - seconds:.6f} {now:.6f} {name}\n")


@contextmanager
def muted() -> Iterator[None]:
    """Record nothing inside (a scan nested in a phase, such as re-analysis of rewrites, would
    otherwise add its own index and walk times to the outer scan's)."""
    global _muted
    _muted += 1
    try:
        yield
    finally:
        _muted -= 1


def lap(name: str, since: float) -> float:
    """Count the time from `since` to now as `name`; return now, the start of the next lap."""
    now = time.perf_counter()
    add(name, now - since)
    return now


def taken() -> dict[str, float]:
    return dict(_seconds)


def write_if_asked() -> None:
    target = os.environ.get("TXSCAN_TIMINGS_FILE")
    if target:
        with open(target, "w", encoding="utf-8") as handle:
            json.dump({k: round(v, 4) for k, v in sorted(_seconds.items())}, handle)
