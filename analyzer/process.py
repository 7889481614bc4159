"""How a command's process treats its heap: rare collector passes, no teardown.

`txscan scan` and `txscan lint` build a large heap that lives until the command ends (indexes,
parsed definitions, summaries, records). The cyclic garbage collector's passes at its default
pace (every 700 allocations) cost 15-20% of a scan's CPU time (taiga-back, saleor) and found
little to free each time; with no passes at all, though, the cycles a scan does make pile up
(a 300k-line project: 1.3 GB instead of 650 MB). A pass every 50,000 allocations, over what
was made since the heap was frozen, costs what no pass costs and frees what the default frees
(300k-line project: 39.6 s user and 652 MB, against 39.1 s / 1.3 GB without passes and 52.9 s /
650 MB at the default pace). The interpreter's normal exit frees the heap object by object, for
memory the operating system takes back at once anyway.

Within a scan, what one phase builds and the next ones keep is frozen at the boundary between
them (phase_boundary(): before the walks, after the explicit ones, as the IR's round trip
starts), so the older generations' passes stop traversing it again; the IR's round trip and
the core, which make no reference cycles, run without passes (acyclic_phase()); and while
transactions are walked the older generation waits for the walks' end (WALK_THRESHOLDS). The
walks' own state has no cycles (a transaction's recorder, the autocommit phase's call sites):
it is freed as it is dropped, and freezing leaves no garbage behind (saleor: 42 objects when
the core starts, 93,600 before). The collector's CPU time in a cold scan's process (2 runs
each, on a loaded machine): saleor 1.80-1.93 s -> 0.75 s (the core's passes, 0.58-0.62 s, are
gone), the 300k-line project 2.09 s -> 0.83 s, taiga-back 0.23 s -> 0.17 s; peaks unchanged
(saleor 450 -> 446-449 MiB, the 300k-line project 529 -> 527 MiB).
"""

from __future__ import annotations

import atexit
import gc
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager


# Young collections every 50,000 allocations (the default is 700); older generations as usual.
LARGE_HEAP_THRESHOLDS = (50_000, 20, 10)
# While the transactions are walked: the older generations' passes wait for the walks' end,
# where what the walks made is frozen (they traversed it all to find a few hundred objects).
WALK_THRESHOLDS = (50_000, 1_000, 10)


# Whether the collector's pace is this module's (one_large_job(), or large_heap_pace() until the
# outermost scan ends): only then do phase boundaries freeze what is alive.
_paced = False


def one_large_job() -> None:
    """This process runs one command over a large heap, then ends: rare collector passes."""
    global _paced
    gc.freeze()  # what exists now (the imported modules): never looked at again
    gc.set_threshold(*LARGE_HEAP_THRESHOLDS)
    _paced = True


# Nested scans (re-analysis of rewritten copies) whose structures die before the scan's end.
_held = 0


def _boundaries_apply() -> bool:
    """A caller that paused the collector, or set its own pace, keeps its heap as it is."""
    return _paced and not _held and gc.isenabled()


@contextmanager
def short_lived() -> Iterator[None]:
    """Work whose structures die before the scan ends (re-analysis of rewritten copies, a
    front end run inside the scan): its phase boundaries freeze nothing, so that its cycles
    are collected when it drops them."""
    global _held
    _held += 1
    try:
        yield
    finally:
        _held -= 1


def phase_boundary(walks: bool = False) -> None:
    """Between two phases of a scan: what is alive now stays alive to the scan's end (or is
    freed by its reference count, which freezing does not stop), so it is frozen, out of the
    collector's view; the passes of the phases after look only at what those phases make.
    Frozen without a young pass first: the walks make next to no cycles, so the pass found little
    to free (healthchecks: 46, 363 and 968 objects at its three boundaries; saleor 1,133, taiga-back
    6,292) and cost the scan 3-8 ms each on healthchecks, 47 ms on saleor, on its critical path.
    What it would have freed stays until the outermost scan ends (large_heap_pace unfreezes).
    `walks`: the phase after walks transactions, at WALK_THRESHOLDS (until the next boundary
    without it)."""
    if _boundaries_apply():
        gc.freeze()
        gc.set_threshold(*(WALK_THRESHOLDS if walks else LARGE_HEAP_THRESHOLDS))


def modules_imported() -> None:
    """Modules a scan imports as it goes (libcst and the Django analysis, imported once the
    process indexing ahead is forked) live to its end like those one_large_job() froze: frozen
    too, without a pass (imports make next to no garbage). The young passes that followed
    traversed them (healthchecks: 0.012 CPU s of the scan's process; with a helper forked after
    them, writing to the pages the two processes shared copied them as well)."""
    if _boundaries_apply():
        gc.freeze()


# Tracked objects made since the last collector pass or freeze above which kept_loads() collects
# them before it freezes (below it, they are a few bookkeeping objects of the scan, not garbage).
KEPT_LOADS_SINCE = 1_000


def kept_loads(text: str):
    """json.loads(text) of what the scan keeps to its end (a warm cache's entry): decoded with the
    collector paused, then frozen with what is alive, as at a phase boundary. JSON makes no
    reference cycles, yet young passes traversed every decoded container once and found nothing
    to free (saleor's warm re-scan: about 0.1 CPU s). What the scan made since the last pass or
    freeze, past a few objects, is collected first (all generations: older garbage is not frozen
    either). Not to be called while a walk holds state it will drop (its cycles would be frozen);
    json.loads as it is where phases do not freeze (a caller's own pace, short-lived work)."""
    if not _boundaries_apply():
        return json.loads(text)
    young, older, _oldest = gc.get_count()
    if young > KEPT_LOADS_SINCE or older:
        gc.collect()
    gc.disable()
    try:
        return json.loads(text)
    finally:
        gc.freeze()
        gc.enable()


@contextmanager
def acyclic_phase() -> Iterator[None]:
    """A phase that makes no reference cycles (the IR's round trip, the core's verdicts;
    tests/test_process_phases.py checks it) and starts no process: it runs without collector
    passes, which would only traverse what it builds and find nothing to free, and what it
    built is frozen when it ends. What came before is frozen first (phase_boundary())."""
    if not _boundaries_apply():
        yield
        return
    phase_boundary()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


@contextmanager
def large_heap_pace() -> Iterator[None]:
    """one_large_job() for the length of a scan, for every caller of scan() (survey workers,
    lint, tests); the collector's pace is set back, as it was, when the outermost scan ends. A
    caller that disabled the collector keeps it disabled."""
    global _paced
    was = gc.get_threshold()
    outermost = gc.isenabled() and not _paced
    if outermost:
        one_large_job()
    try:
        yield
    finally:
        if outermost:
            _paced = False
            gc.set_threshold(*was)
            gc.unfreeze()


def leave(status: int) -> None:
    """End the process now with `status`, after flushing output and running the atexit
    functions (closing helper processes, removing temporary folders), without the teardown.

    A flush that fails (the reader of stdout went away) raises, as the normal exit would."""
    sys.stdout.flush()
    sys.stderr.flush()
    run_exit_functions = getattr(atexit, "_run_exitfuncs", None)  # CPython's; elsewhere the normal exit
    if run_exit_functions is None or sys.getprofile() is not None or sys.gettrace() is not None:
        sys.exit(status)  # a profiler or tracer (python -m cProfile) writes its results after the normal exit
    run_exit_functions()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
