"""Syntax facts about TypeScript files from the TypeScript parser (ts-plugin's syntax-facts.ts,
run with node): parse errors, the calls on a line, the enclosing functions, the block's
statements. Offsets come back in UTF-16 code units and are converted to string indexes here.

They are asked of the scan's own ts-plugin process while it serves the scan's rewrites
(`answered_by`, bridge.Run.syntax_facts: its compiler is loaded already), else of a
rewrite-check.js process started for them (the same facts, from the same code)."""

from __future__ import annotations

import atexit
import functools
import json
import os
import selectors
import shutil
import subprocess
import threading
import time
from contextlib import contextmanager

from ..typeorm import bridge


class Unavailable(Exception):
    pass


def _script():
    script = bridge.plugin_path().with_name("rewrite-check.js")
    node = shutil.which("node")
    if node is None or not script.is_file():
        raise Unavailable("node or ts-plugin's rewrite-check.js is not available to check TypeScript")
    return node, script


TIMEOUT = 300.0


class _Checker:
    """One rewrite-check.js process (`--lines`) answering every request of this Python process:
    node and the TypeScript parser are loaded once, not once per checked file. A process that
    fails, times out or was started by another (forked) Python process is never reused."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen | None = None
        self._owner = 0

    def ask(self, request: dict) -> dict:
        with self._lock:
            process = self._running()
            try:
                process.stdin.write(json.dumps(request).encode("utf-8") + b"\n")
                process.stdin.flush()
                line = self._read_line(process)
                answer = json.loads(line)
            except (OSError, ValueError) as exc:
                self._stop()
                raise Unavailable(f"rewrite-check failed: {exc}") from exc
            if "error" in answer:
                raise Unavailable(f"rewrite-check failed: {answer['error'][:500]}")
            return answer

    def _running(self) -> subprocess.Popen:
        if self._process is not None and (self._owner != os.getpid() or self._process.poll() is not None):
            self._process = None  # a forked copy's pipes, or a process that ended: start another
        if self._process is None:
            node, script = _script()
            # (a scan's flags, under which the compiler's code cache was made: bridge.NODE_FLAGS)
            self._process = subprocess.Popen([node, *bridge.NODE_FLAGS, str(script), "--lines"], stdin=subprocess.PIPE,
                                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            self._owner = os.getpid()
        return self._process

    def _read_line(self, process: subprocess.Popen) -> bytes:
        deadline = time.monotonic() + TIMEOUT
        chunks = []
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    raise OSError(f"no answer within {TIMEOUT:g} s")
                chunk = os.read(process.stdout.fileno(), 1 << 20)
                if not chunk:
                    raise OSError("the process ended without an answer")
                chunks.append(chunk)
                if chunk.endswith(b"\n"):
                    return b"".join(chunks)

    def _stop(self) -> None:
        if self._process is not None and self._owner == os.getpid():
            self._process.kill()
            self._process.wait()
        self._process = None

    def close(self) -> None:
        with self._lock:
            if self._process is not None and self._owner == os.getpid():
                self._process.stdin.close()
                try:
                    self._process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self._process.kill()
                    self._process.wait()
            self._process = None


_CHECKER = _Checker()
atexit.register(_CHECKER.close)


# The scan's ts-plugin process answering while its rewrites are planned and verified (answered_by).
_served: bridge.Run | None = None


@contextmanager
def answered_by(served: bridge.Run | None):
    """Within this block, facts are asked of `served` (a scan's ts-plugin process started with
    serve=True) while it answers; a question it does not answer goes to rewrite-check.js."""
    global _served
    outer, _served = _served, served
    try:
        yield
    finally:
        _served = outer


def _ask(request: dict) -> dict:
    served = _served
    if served is not None and served.serving:
        try:
            return served.syntax_facts(request)
        except bridge.FrontendUnavailable:
            pass  # (no longer serving: rewrite-check.js answers from here on)
    return _CHECKER.ask(request)


@functools.lru_cache(maxsize=256)
def facts(path: str, text: str, line: int | None = None) -> dict:
    request = {"path": path, "text": text, **({"line": line} if line is not None else {})}
    result = _ask({"files": [request]})["files"][0]
    return _to_indexes(result, text)


def parse_errors(path: str, text: str) -> list[str]:
    return facts(path, text)["errors"]


def _to_indexes(value, text: str):
    """Replace UTF-16 `start`/`end` offsets by Python string indexes (they differ after a character
    outside the Basic Multilingual Plane)."""
    if all(ord(c) <= 0xFFFF for c in text):
        return value
    index, units = {}, 0
    for i, char in enumerate(text):
        index[units] = i
        units += 2 if ord(char) > 0xFFFF else 1
    index[units] = len(text)

    def convert(v):
        if isinstance(v, dict):
            return {k: index.get(x, x) if k in ("start", "end") and isinstance(x, int) else convert(x)
                    for k, x in v.items()}
        if isinstance(v, list):
            return [convert(x) for x in v]
        return v
    return convert(value)


def whole_lines(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of the full lines holding [start, end) when nothing else shares them."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end + 1
    if text[line_start:start].strip() or text[end:line_end].strip():
        return start, end
    return line_start, line_end


def indentation(text: str, start: int) -> str:
    line_start = text.rfind("\n", 0, start) + 1
    return text[line_start:start]
