"""How a command's process treats its heap: no collector passes, no teardown.

`txscan scan` and `txscan lint` build a large heap that lives until the command ends (indexes,
parsed definitions, summaries, records) and make few reference cycles. The cyclic garbage
collector's passes over that heap found little to free but cost 15-20% of a scan's CPU time
(taiga-back, saleor), and the interpreter's normal exit frees the heap object by object, for
memory the operating system takes back at once anyway.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys


def one_large_job() -> None:
    """This process runs one command over a large heap, then ends: no collector passes."""
    gc.freeze()  # the imported modules: never looked at again
    gc.disable()


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
