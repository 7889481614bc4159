"""Whether the files that Django rewrites read compile, confirmed on the other core while the
rewrites are re-analysed, not asked before they are planned.

Planning and the checks outline every file they read (checks.outline), and they outline only a
text that the compiler accepts. That whole-file `compile` cost 0.8 of the 2.4 CPU s of planning on
the 300k-line synthetic project (103 files). Nothing cheaper gives the compiler's verdict
(docs/DECISIONS.md), and nearly every file compiles. So where planning is shared with a helper
process (shared_work.py), planning assumes that each text compiles and notes it (`Assumed`).
When the plans are in, another Python process compiles the noted texts on the second core while
the scan re-analyses the rewrites (on that project the two take about as long).

If the assumption held for every text, planning got the answers that compiling first would have
given. If one text does not compile, or the answer cannot be had, the scan plans and verifies the
rewrites again, this time compiling first. So the output is always the output of the slow path.
"""

from __future__ import annotations

import marshal
import subprocess
import sys
import tempfile
from contextlib import contextmanager

from .. import forked

_noting: list | None = None  # while planning assumes: the texts assumed to compile since noting() began


def assumed_to_compile(text: str) -> bool:
    """True while planning assumes that texts compile (the text is then noted for confirmation),
    False otherwise (the caller compiles it)."""
    if _noting is None:
        return False
    _noting.append(text)
    return True


@contextmanager
def noting(assume: bool):
    """Within this block, when `assume` is true, texts are assumed to compile; the list it yields
    receives them (each once per process: outlines are cached)."""
    global _noting
    if not assume:
        yield []
        return
    outer, _noting = _noting, []
    try:
        yield _noting
    finally:
        _noting = outer


class Assumed:
    """The texts one planning assumed to compile, from the scan's process and the planning helper,
    and their confirmation: start() after planning, then holds() once the rewrites are verified."""

    def __init__(self) -> None:
        self.active = False  # whether planning assumes (candidates() decides: where planning is shared)
        self.texts: dict[str, None] = {}  # (a dict keeps each distinct text once, in order)
        self._child: subprocess.Popen | None = None

    def add(self, texts: list[str]) -> None:
        for text in texts:
            self.texts[text] = None

    def start(self) -> None:
        """Compile the noted texts in another process, where one may start. It is a new
        interpreter, not a fork: the scan copies each page of a forked heap it writes while the
        fork lives (on the synthetic project the re-analysis took 0.93-0.95 CPU s beside a fork,
        0.84-0.93 beside a new interpreter, 0.78-0.85 alone)."""
        if not (self.active and self.texts and forked.allowed()):
            return
        with tempfile.TemporaryFile() as given:
            marshal.dump((sys.getrecursionlimit(), sys.flags.optimize, list(self.texts)), given)
            given.seek(0)
            try:
                self._child = subprocess.Popen([sys.executable, "-I", "-S", "-c", _COMPILER], stdin=given,
                                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            except OSError:
                self._child = None

    def holds(self) -> bool:
        """Whether every noted text compiles (True when planning assumed nothing)."""
        return not self.active or not self.failing()

    def abandon(self) -> None:
        """After a failure: the other process is stopped, and the outlines made under the
        assumption are forgotten (none is kept of a text not known to compile)."""
        if self._child is not None:
            self._child.kill()
            self._child.wait()
            self._child = None
        if self.active:
            forget_outlines()

    def failing(self) -> list[int]:
        """The positions (in `texts`) of the noted texts the compiler refuses: the other
        process's answer, or (when it could not start or give one) the scan's own compile."""
        found = None
        if self._child is not None:
            child, self._child = self._child, None
            try:
                out, _ = child.communicate(timeout=forked.WAIT_SECONDS)
                if child.returncode == 0:
                    compiler, found = marshal.loads(out)
                    if compiler != compiler_identity():  # (sys.executable is another Python: its answer is not this one's)
                        found = None
            except Exception:  # noqa: BLE001 - no answer (hung, killed, damaged): the scan compiles
                child.kill()
                child.wait()
        return found if isinstance(found, list) else _failing(list(self.texts))


def _failing(texts: list[str]) -> list[int]:
    """The positions of the texts that the compiler refuses."""
    from .python_top_level import compiles

    return [i for i, text in enumerate(texts) if not compiles(text)]


def compiler_identity() -> tuple:
    """Which Python answers (another process's answer is taken only from the same one)."""
    return (sys.implementation.name, sys.hexversion)


# The other process's program: _failing without importing txscan (python_top_level.compiles, the
# same call, with the scan's recursion limit and optimisation level; tests/rewrite/
# test_compile_later.py compares the two). It names the Python that answered.
_COMPILER = """
import marshal, sys, warnings
limit, optimize, texts = marshal.load(sys.stdin.buffer)
sys.setrecursionlimit(limit)
failing = []
for i, text in enumerate(texts):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "<original>", "exec", dont_inherit=True, optimize=optimize)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        failing.append(i)
sys.stdout.buffer.write(marshal.dumps(((sys.implementation.name, sys.hexversion), failing)))
"""


def forget_outlines() -> None:
    """Drop every outline and everything derived from one, kept per text: those made under the
    assumption must not be reused once it has failed."""
    from . import checks, python_f_refusals, python_syntax

    for cached in (checks.outline, python_syntax._parsed_alone, python_f_refusals._statement_alone):
        cached.cache_clear()
