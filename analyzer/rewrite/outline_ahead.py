"""The top-level statements of the files Django rewrites will outline, worked out by another
Python process while the scan finishes its own work, before the rewrites start.

Once the explicit transactions are walked, the scan still runs the autocommit phase, the IR's
round trip and the core alone: the autocommit helper has ended and the second core waits (about
0.9 s on the 300k-line synthetic project). Planning then outlines each file it edits
(checks.outline): a tree-sitter parse of the whole file, 103 files and 116k lines there, about
0.3 CPU s on each of planning's two sides. So when the walks end, the files likely to be outlined
are handed to a new interpreter (not a fork: the scan would copy every page it writes while a
fork lives), which writes python_top_level.top_level() of each, file by file. When the rewrites
start, the answers written so far are told to python_top_level, each for the text planning
reads of its file (checked equal by digest); a file without an answer is parsed by planning as
before. Whether a text compiles is still asked as before (compile_later.py, or the compiler
itself). The answers are the same function's on the same text, from the same Python and the same
tree-sitter, so the output does not change (tests/rewrite/test_outline_ahead.py).

The files likely to be outlined are those of a step a builder outlines unless it refuses it
from the step alone: an effect or a save() written in the transaction's own body (not reached
through a call, `via`). On the synthetic project those are the 103 files outlined; on saleor
25 files, for the 10 outlined.
"""

from __future__ import annotations

import marshal
import os
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

from .. import forked
from ..cache.cachefile import text_digest
from .compile_later import compiler_identity
from .plan import step_index

_FRAME = struct.Struct("<I")  # each answer's length, before it

# Files holding fewer bytes than this are outlined by planning: a new interpreter costs about
# 0.08 CPU s to start and import tree-sitter, what parsing 1 MB (about 25k lines) costs.
MIN_BYTES = 1_000_000


def likely_outlined(transactions: list[dict]) -> list[str]:
    """The files (relative paths, sorted) a builder would outline for a suggestion on one of
    these explicit transactions."""
    # (the builders' own early refusals, checked from the step before they read the text:
    # python_on_commit's effects it never moves, and python_f_expression's "only a save() in the
    # body"; imported here, in the scan, where the builders already are, not by the other process)
    from .python_on_commit import NOT_MOVABLE

    found = set()
    for txn in transactions:
        for step in step_index(txn).values():
            if step.get("via") or not step.get("file"):
                continue
            if step["node"] == "effect" and step.get("category") not in NOT_MOVABLE \
                    or step["node"] == "statement" and step.get("api") == "save" and step.get("kind") == "write":
                found.add(step["file"])
    return sorted(found)


class OutlinesAhead:
    """The process outlining ahead, for one scan: start() when the walks end, take() when the
    rewrites start, stop() when the scan ends (whatever happened in between)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._child: subprocess.Popen | None = None
        self._answers = None  # the file the process writes its answers to
        self.asked: list[str] = []

    def start(self, transactions: list[dict]) -> None:
        """Start outlining the files likely to be read by the rewrites of `transactions`, where a
        helper may start (forked.allowed)."""
        self.asked = likely_outlined(transactions)
        if _size(self.root, self.asked) < MIN_BYTES or not forked.allowed():
            return
        package_parent = str(Path(__file__).resolve().parents[2])
        program = f"import sys; sys.path.insert(0, {package_parent!r}); " \
                  "from analyzer.rewrite.outline_ahead import answer; answer()"
        # (answers go to a file, not a pipe: the scan reads none before the rewrites start, and a
        # full pipe would stop the process)
        self._answers = tempfile.TemporaryFile()  # noqa: SIM115 - closed by stop(), when the scan ends
        try:
            self._child = subprocess.Popen([sys.executable, "-I", "-c", program], stdin=subprocess.PIPE,
                                           stdout=self._answers, stderr=subprocess.DEVNULL)
            self._child.stdin.write(marshal.dumps((sys.getrecursionlimit(), str(self.root), self.asked)))
            self._child.stdin.close()
        except OSError:
            self.stop()

    def take(self, texts: dict) -> int:
        """Tell python_top_level the answers that have come in (each for the text planning reads
        of its file, read now into `texts`, see plan.file_text), stop the process, and return how
        many were told. Waits for none: an answer still to come is worked out by planning."""
        from .plan import file_text
        from .python_top_level import TopStatement, tell

        if self._child is None:
            return 0
        try:
            if forked.setting() == "wait":  # (tests: every answer, however short the scan)
                try:
                    self._child.wait(forked.WAIT_SECONDS)
                except subprocess.TimeoutExpired:
                    pass
            received = os.pread(self._answers.fileno(), os.fstat(self._answers.fileno()).st_size, 0)
        finally:
            self.stop()
        frames = _frames(received)
        if next(frames, None) != _answering():
            return 0  # (another Python, or another tree-sitter, answered: not this one's answers)
        told = {}
        for path, digest, found in frames:
            try:
                text = file_text(self.root, path, texts)
            except (OSError, UnicodeDecodeError):
                continue
            if text_digest(text) == digest:
                told[text] = None if found is None else tuple(TopStatement(*s) for s in found)
        tell(told)
        return len(told)

    def stop(self) -> None:
        child, self._child = self._child, None
        if child is not None:
            child.kill()
            child.wait()
        answers, self._answers = self._answers, None
        if answers is not None:
            answers.close()


def _size(root: Path, paths: list[str]) -> int:
    total = 0
    for path in paths:
        try:
            total += (root / path).stat().st_size
        except OSError:
            pass
    return total


def _frames(data: bytes):
    """The whole answers in `data` (a last one cut short is left out)."""
    at = 0
    while at + _FRAME.size <= len(data):
        (size,) = _FRAME.unpack_from(data, at)
        start = at + _FRAME.size
        if start + size > len(data):
            return
        try:
            yield marshal.loads(data[start:start + size])
        except (EOFError, ValueError, TypeError):
            return
        at = start + size


def _answering() -> tuple:
    """What answers: the Python (its `ast`) and the tree-sitter library and grammar."""
    import tree_sitter
    import tree_sitter_python

    return (*compiler_identity(), tree_sitter.__file__, tree_sitter_python.__file__)


def answer() -> None:  # pragma: no cover - the other process
    """The other process: python_top_level.top_level() of each file given, as plain tuples,
    written one frame per file as soon as it is known."""
    from .python_top_level import top_level

    limit, root, paths = marshal.loads(sys.stdin.buffer.read())
    sys.setrecursionlimit(limit)
    out = sys.stdout.buffer
    frame = marshal.dumps(_answering())
    out.write(_FRAME.pack(len(frame)) + frame)
    for path in paths:
        try:
            text = (Path(root) / path).read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        found = top_level(text)
        plain = None if found is None else tuple((s.start, s.end, s.kind, s.name, s.from_import, s.future)
                                                 for s in found)
        frame = marshal.dumps((path, text_digest(text), plain))
        out.write(_FRAME.pack(len(frame)) + frame)
        out.flush()
