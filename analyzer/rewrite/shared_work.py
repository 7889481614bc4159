"""Planning and checking rewrites on both cores: the candidates of about half the files are
planned in a helper process forked from the scan (analyzer/forked.py), the others in the scan's
own process, and the helper sends back what it found (a rewrite, or why there is none).

Each candidate's plan reads only the files and the scan's records (plan.py), so where it is made
does not change it; a file's candidates stay in one process, which parses the file once for all
of them. A helper that cannot start, fails, hangs or sends damaged data changes nothing but the
time taken: the scan plans its candidates itself.
"""

from __future__ import annotations

import os
import pickle
import select
import time
from collections import Counter
from collections.abc import Callable

from .. import forked

# Fewer items than this are not worth a process (its start and the copy of what it sends).
MIN_ITEMS = 200
# How long the helper may take past the moment the scan has finished its own share.
WAIT_SECONDS = forked.WAIT_SECONDS


def work_shared(items: list, work: Callable, key: Callable) -> list:
    """[work(item) for item in items], the items of some keys (`key(item)`) worked on in a
    forked process where a helper may start (forked.allowed). `work`'s results must pickle."""
    if len(items) < MIN_ITEMS or not forked.allowed():
        return [work(item) for item in items]
    theirs = _their_keys([key(item) for item in items])
    if not theirs:
        return [work(item) for item in items]
    helped = [i for i, item in enumerate(items) if key(item) in theirs]
    read_end, write_end = os.pipe()
    pid = forked.fork()
    if pid is None:
        os.close(read_end)
        os.close(write_end)
        return [work(item) for item in items]
    if pid == 0:  # pragma: no cover - the forked process
        def send() -> None:
            os.close(read_end)
            _write_all(write_end, pickle.dumps([work(items[i]) for i in helped], pickle.HIGHEST_PROTOCOL))

        forked.run_and_exit(send)
    os.close(write_end)
    results: list = [None] * len(items)
    try:
        taken = set(helped)
        for i, item in enumerate(items):
            if i not in taken:
                results[i] = work(item)
    except BaseException:
        forked.stop(pid)
        os.close(read_end)
        raise
    try:
        sent = _received(read_end, pid, helped)
    finally:
        os.close(read_end)
    for i, result in zip(helped, sent if sent is not None else (work(items[i]) for i in helped)):
        results[i] = result
    return results


def _their_keys(keys: list) -> set:
    """About half the items' keys, balanced by how many items each has (the largest first, each
    to the lighter side; the scan's own side takes ties)."""
    counts = Counter(keys)
    loads = [0, 0]
    theirs = set()
    for found, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        side = 0 if loads[0] <= loads[1] else 1
        loads[side] += count
        if side:
            theirs.add(found)
    return theirs


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _received(fd: int, pid: int, helped: list) -> list | None:
    """What the helper sent, read until it closes its end (at most WAIT_SECONDS), if it ended
    well and sent one result per item; None otherwise (the helper is then stopped)."""
    chunks = []
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            forked.stop(pid)
            return None
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
    code = forked.wait(pid, max(deadline - time.monotonic(), 1.0))
    if code is None:
        forked.stop(pid)
        return None
    if code != 0:
        return None
    try:
        sent = pickle.loads(b"".join(chunks))
    except Exception:  # noqa: BLE001 - damaged data: the scan does the work itself
        return None
    return sent if isinstance(sent, list) and len(sent) == len(helped) else None
