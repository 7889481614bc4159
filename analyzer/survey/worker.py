"""The process that scans one application of a survey (`python -m analyzer.survey.worker JOB RESULT PARENT`).

It is started by analyzer/survey/isolate.py leading a process group of its own (setsid), so that
the application's whole process tree (this process and the node front end it may start) can be killed as one.
It reads its job (pickled by the parent) from JOB, applies its memory limit to itself, scans,
and writes the result to RESULT. Whatever happens inside the scan stays inside this process:
an exception is written as a failed result, a MemoryError exits with MEMORY_EXIT, and a crash
(SIGSEGV in a native parser) ends only this process, which the parent records.

It never outlives the survey: the parent's death is noticed twice, by the kernel (Linux
PR_SET_PDEATHSIG sends SIGTERM) and by EOF on stdin (a pipe only the parent holds open); either
kills this process group, node included.
"""

from __future__ import annotations

import os
import pickle
import shutil
import signal
import sys
import threading
import time
import traceback
from pathlib import Path

MEMORY_EXIT = 3

# Test hook, never set by txscan itself: TXSCAN_SURVEY_FAULT="APP=KIND[,APP=KIND...]" makes the
# worker of the application named APP fail the way KIND says, for real, so that the tests can check how a
# survey records a crash (segfault: SIGSEGV), a scan that never ends (hang) and one that takes
# all the memory it is allowed (allocate: MemoryError under the limit). See docs/SURVEY.md.
FAULT_VARIABLE = "TXSCAN_SURVEY_FAULT"


_ENDING = threading.RLock()  # the signal handler (maybe twice) and the EOF thread may all get here


def _kill_own_group(parent: int, scratch: Path, parent_gone: bool = False) -> None:
    _ENDING.acquire()
    try:
        if parent_gone or os.getppid() != parent or _stdin_closed(1.0):
            # nobody is left to remove the job's scratch folder
            shutil.rmtree(scratch, ignore_errors=True)
        os.killpg(os.getpgid(0), signal.SIGKILL)
    finally:
        os._exit(1)


def _stdin_closed(seconds: float) -> bool:
    """EOF on stdin within `seconds`: the parent process has ended. (The parent-death signal
    comes when the *thread* that started us ends, before the process does: getppid() can still
    name a parent that is going away.)"""
    import select

    try:
        readable, _, _ = select.select([0], [], [], seconds)
        return bool(readable) and os.read(0, 1) == b""
    except OSError:
        return False


def _watch_parent(parent: int, scratch: Path) -> None:
    """Die with the parent: by the kernel's parent-death signal and by EOF on stdin."""
    signal.signal(signal.SIGTERM, lambda *_args: _kill_own_group(parent, scratch))
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        try:
            ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the signal was armed
        _kill_own_group(parent, scratch)

    def wait_for_eof() -> None:
        try:
            while os.read(0, 4096):
                pass
        except OSError:
            pass
        # EOF: the parent closed its end, which it does only after this process ended, or died
        # (its descriptors are closed before the kernel re-parents us, so getppid() may lag).
        _kill_own_group(parent, scratch, parent_gone=True)

    threading.Thread(target=wait_for_eof, daemon=True).start()


def _limit_memory(megabytes: int) -> None:
    """RLIMIT_DATA (heap and private writable mappings, Linux >= 4.7), inherited by node.

    Not RLIMIT_AS: V8 reserves gigabytes of address space it never uses, so node fails to
    start or to grow its heap under any address-space limit that would protect the machine."""
    if megabytes > 0:
        import resource

        limit = megabytes * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))


def _fault(app_name: str) -> None:
    faults = dict(item.partition("=")[::2] for item in os.environ.get(FAULT_VARIABLE, "").split(",") if item)
    kind = faults.get(app_name)
    if kind == "segfault":
        import ctypes

        ctypes.string_at(0)  # a real invalid read: the kernel sends SIGSEGV
    elif kind == "hang":
        while True:
            time.sleep(1)
    elif kind == "allocate":
        hoard = []
        while True:
            hoard.append(bytearray(64 * 1024 * 1024))


def scan_job(job: dict) -> dict:
    """Scan one application; an exception is a failed result (the survey goes on)."""
    from .. import timing
    from ..scan import scan

    app, hashes = job["app"], job["hashes"]
    started = time.perf_counter()
    try:
        _fault(app.name)
        result = scan(Path(job["folder"]), job["config"], app.orm)
    except MemoryError:
        raise
    except Exception as exc:  # noqa: BLE001 - a failing application is recorded and the survey goes on
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc(limit=5),
                "hashes": hashes, "seconds": time.perf_counter() - started}
    files = result.files or [{"path": p, "lines": 0, "status": "ok"} for p in sorted(hashes)]
    for entry in files:
        entry["sha256"] = hashes.get(entry["path"])
    return {"ok": True, "frontend": result.frontend, "files": files, "lines": result.lines, "ir": result.ir_text,
            "analyses": result.analyses, "hashes": hashes, "seconds": time.perf_counter() - started,
            # Shown on the terminal only (wall times never reach the store's rows): how much of the
            # application's time went to re-analysing rewritten copies to verify suggested rewrites.
            "rewrite_seconds": timing.taken().get("rewrites", 0.0)}


def main(argv: list[str]) -> int:
    job_path, result_path, parent = Path(argv[0]), Path(argv[1]), int(argv[2])
    _watch_parent(parent, job_path.parent)
    job = pickle.loads(job_path.read_bytes())
    _limit_memory(job["memory_mb"])
    try:
        payload = scan_job(job)
        data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    except MemoryError:
        return MEMORY_EXIT
    temporary = result_path.with_suffix(".part")
    temporary.write_bytes(data)
    temporary.replace(result_path)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except MemoryError:
        os._exit(MEMORY_EXIT)
