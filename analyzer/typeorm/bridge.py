"""Run the node-based TypeORM front end and read its IR.

ts-plugin is compiled JavaScript; node is needed only for TypeScript scans, and its absence
(or a missing build) is a clear error, never a silent empty scan. Nothing is downloaded.
Every way node can fail (missing, killed, timed out, a non-zero exit, output that is not IR)
is a `FrontendUnavailable` with one line saying which, never a traceback.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from .. import ir


class FrontendUnavailable(Exception):
    pass


# node's flags for ts-plugin's scripts. --expose-gc: ts-plugin collects a large heap in full at
# two turns of its scan, which lowers its peak memory (ts-plugin/src/scan.ts, collectLargeGarbage).
# The compiler's code cache is made under these flags (scripts/bundle_ts_plugin.py) and V8 takes it
# under the same flags only (ts-plugin/src/code-cache.ts).
NODE_FLAGS = ("--expose-gc",)


def plugin_path() -> Path:
    override = os.environ.get("TXSCAN_TS_PLUGIN")
    if override:
        return Path(override)
    here = Path(__file__).resolve()
    # The copy inside the package (scripts/bundle_ts_plugin.py) first, then a source checkout's build.
    for candidate in (here.parent / "_plugin" / "dist" / "cli.js", here.parents[2] / "ts-plugin" / "dist" / "cli.js"):
        if candidate.exists():
            return candidate
    return here.parents[2] / "ts-plugin" / "dist" / "cli.js"


def settings_argument(depth: int | None, max_file_bytes: int, exclude: list[str] | tuple[str, ...] = (),
                      **extra) -> str:
    """The one `--settings` JSON object of ts-plugin's command line (ts-plugin/README.md)."""
    bound = {"depth": depth} if depth is not None else {}  # none: the front end's walk has no depth bound
    return json.dumps({**bound, "maxFileBytes": max_file_bytes, "exclude": list(exclude), **extra},
                      sort_keys=True, ensure_ascii=True)


def run(root: Path, depth: int | None = None, max_file_bytes: int = 2_000_000, timeout: float = 3600,
        exclude: list[str] | tuple[str, ...] = (), arguments: list[str] | tuple[str, ...] = (), **extra_settings) -> list[dict]:
    """ts-plugin's records; `arguments` are more options of its command line (the warm cache's)."""
    started = start(root, depth, max_file_bytes, timeout, exclude, arguments, **extra_settings)
    records = started.records()
    started.finish()
    return records


def start(root: Path, depth: int | None = None, max_file_bytes: int = 2_000_000, timeout: float = 3600,
          exclude: list[str] | tuple[str, ...] = (), arguments: list[str] | tuple[str, ...] = (), serve: bool = False,
          **extra_settings) -> Run:
    """ts-plugin started on `root` (as `run`): the caller prepares its own work meanwhile, on the
    machine's other core, then takes the records (`Run.records`), and ends with `Run.finish`.
    `serve`: after its records, the process re-analyses edited files on request (`Run.reanalyse`)
    until `finish`."""
    node = shutil.which("node")
    if node is None:
        raise FrontendUnavailable("node was not found on PATH; it is needed to scan TypeScript applications")
    cli = plugin_path()
    if not cli.is_file():
        raise FrontendUnavailable(f"the TypeScript front end is not built ({cli} is missing); "
                                  "run `npm ci && npm run build --workspace ts-plugin`")
    # (serving: node writes each answer on its end of a pipe, named by --serve)
    answers, answering = os.pipe() if serve else (-1, -1)
    command = [node, *NODE_FLAGS, str(cli), "--settings", settings_argument(depth, max_file_bytes, exclude, **extra_settings),
               *arguments, *(["--serve", str(answering)] if serve else []), os.fspath(root)]
    try:
        return Run(command, timeout, answers=answers, answering=answering)
    finally:
        if serve:
            os.close(answering)


class Run:
    """One ts-plugin process under way. It prints the IR and closes its output before it writes
    its warm cache file (ts-plugin/src/cli.ts): `records` reads the IR to its end and returns
    while node may still write that file; `finish` waits for node's end and its exit status.
    Its messages go to an unnamed temporary file, never a pipe that nobody reads."""

    def __init__(self, command: list[str], timeout: float, answers: int = -1, answering: int = -1) -> None:
        self._deadline = time.monotonic() + timeout
        self._timeout = timeout
        self._stderr = tempfile.TemporaryFile()
        #: whether the records' keys stand in the order a JSON round trip in Python gives (set by `records`)
        self.keys_in_python_order = False
        self._answers = answers  # this side of the served process's answers (start(serve=True)); -1: none
        self._answered = b""  # what was read of the answers past the last one taken
        self._asking = threading.Lock()  # (one request and its answer at a time)
        self._owner = os.getpid()  # (a forked copy never uses the pipes)
        try:
            self._process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self._stderr,
                                             stdin=subprocess.PIPE if answers >= 0 else subprocess.DEVNULL,
                                             pass_fds=(answering,) if answering >= 0 else (), env=node_environment())
        except OSError as exc:
            self._stderr.close()
            self._close_answers()
            raise FrontendUnavailable(f"cannot run node ({command[0]}): {exc.strerror or exc}") from exc

    def records(self) -> list[dict]:
        """The IR records ts-plugin printed (within the timeout from its start)."""
        try:
            stdout = self._read_output()
        except BaseException:
            self.stop()
            raise
        if not stdout or self._process.poll() not in (None, 0):
            self.finish()  # nothing printed, or a failure: the exit status says what went wrong (raises)
        try:
            records = _decoded(stdout)
        except FrontendUnavailable:
            self.finish()  # a front end that failed while printing says so first
            raise
        self.keys_in_python_order = keys_sort_alike(stdout)
        return records

    @property
    def serving(self) -> bool:
        """Whether the process was started to answer requests after its records (re-analyses of
        edited files, syntax facts) and may still do so, for this Python process (not a fork of it)."""
        return self._answers >= 0 and not self._stderr.closed and self._owner == os.getpid()

    def reanalyse(self, texts: dict[str, str], walk_files: list[str]) -> list[dict]:
        """The records of the application with the files of `texts` (path under the root ->
        text) edited, walking the explicit transactions of `walk_files` only and making no
        autocommit transaction: what a scan of an edited copy with those settings gives
        (ts-plugin/src/serve-edits.ts), from the process of this scan, which reuses its program
        for every unchanged file. Asked after `records`; a FrontendUnavailable when the process
        does not answer (the caller may scan a copy instead: nothing else is changed)."""
        return _decoded(self._ask({"texts": texts, "walkFiles": walk_files}))

    def syntax_facts(self, request: dict) -> dict:
        """rewrite-check.js's answer to `request` ({"files": [...]}, analyzer/rewrite/typescript_syntax.py),
        from this process, whose compiler is loaded already; a FrontendUnavailable as `reanalyse`."""
        try:
            answer = json.loads(self._ask(request).decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            self._close_answers()
            raise FrontendUnavailable(f"the TypeScript front end's syntax facts are not JSON: {exc}") from exc
        if not isinstance(answer, dict) or not isinstance(answer.get("files"), list):
            self._close_answers()
            raise FrontendUnavailable("the TypeScript front end's syntax facts are not as rewrite-check writes them")
        return answer

    def _ask(self, request: dict) -> bytes:
        """The answer's bytes of one request (ts-plugin/src/serve-edits.ts), one request at a time."""
        with self._asking:
            if not self.serving or self._process.stdin is None or self._process.stdin.closed:
                raise FrontendUnavailable("the TypeScript front end is not serving requests")
            line = json.dumps(request, ensure_ascii=True).encode("ascii") + b"\n"
            try:
                self._write_request(line)
                header = json.loads(self._read_answer(None).decode("utf-8"))
                if isinstance(header, dict) and isinstance(header.get("error"), str):
                    refused = header["error"]  # (this request only: the process goes on serving)
                else:
                    size = header.get("bytes") if isinstance(header, dict) else None
                    if type(size) is not int or size < 0:
                        raise ValueError("an answer's header is not as ts-plugin writes it")
                    return self._read_answer(size)
            except (OSError, ValueError, FrontendUnavailable) as exc:
                self._close_answers()  # the answers are out of step, or the process is gone: no more requests
                if isinstance(exc, FrontendUnavailable):
                    raise
                raise FrontendUnavailable(f"the TypeScript front end's answer failed: {exc}") from exc
        raise FrontendUnavailable(f"the TypeScript front end could not answer: {refused}")

    def _write_request(self, request: bytes) -> None:
        pipe = self._process.stdin
        os.set_blocking(pipe.fileno(), False)
        with selectors.DefaultSelector() as selector:
            selector.register(pipe, selectors.EVENT_WRITE)
            while request:
                self._wait(selector)
                request = request[os.write(pipe.fileno(), request):]

    def _read_answer(self, size: int | None) -> bytes:
        """The next `size` bytes of the answers (None: up to the next newline, which is dropped)."""
        have = bytearray(self._answered)
        with selectors.DefaultSelector() as selector:
            selector.register(self._answers, selectors.EVENT_READ)
            while True:
                end = have.find(b"\n") if size is None else (size if len(have) >= size else -1)
                if end >= 0:
                    self._answered = bytes(have[end + (1 if size is None else 0):])
                    return bytes(have[:end])
                self._wait(selector)
                chunk = os.read(self._answers, 1 << 20)
                if not chunk:
                    raise ValueError("the process ended before its answer")
                have += chunk

    def _wait(self, selector: selectors.BaseSelector) -> None:
        """Until `selector` has an event, within the run's time."""
        left = self._deadline - time.monotonic()
        if left <= 0 or not selector.select(left):
            raise self._too_late()

    def _too_late(self) -> FrontendUnavailable:
        return FrontendUnavailable(f"the TypeScript front end did not finish within {self._timeout:g} s")

    def finish(self) -> None:
        """Wait for node's end (its warm cache file written); a failure is a FrontendUnavailable.
        A serving process is told first that no more requests come (the end of its stdin)."""
        if self._stderr.closed:
            return
        self._end_requests()
        try:
            returncode = self._process.wait(timeout=max(0.0, self._deadline - time.monotonic()))
        except subprocess.TimeoutExpired as exc:
            self.stop()
            raise self._too_late() from exc
        except BaseException:
            self.stop()
            raise
        self._stderr.seek(0)
        stderr = self._stderr.read()
        self._close()
        if returncode < 0:
            name = _signal_name(-returncode)
            raise FrontendUnavailable(f"the TypeScript front end was killed by {name} (out of memory or stopped)")
        if returncode != 0:
            raise FrontendUnavailable(f"the TypeScript front end failed (exit {returncode}): {_last_line(stderr)}")
        _forward_info(stderr)

    def stop(self) -> None:
        """End the process if it still runs (the caller gave up on it)."""
        if self._process.poll() is None:
            self._process.kill()
            self._process.wait()
        self._end_requests()
        self._close()

    def _end_requests(self) -> None:
        self._close_answers()
        if self._process.stdin is not None and not self._process.stdin.closed:
            try:
                self._process.stdin.close()
            except OSError:  # (a process that ended: nothing was left to read its input)
                pass

    def _close_answers(self) -> None:
        if self._answers >= 0:
            os.close(self._answers)
            self._answers = -1

    def _read_output(self) -> bytes:
        """Everything node prints, to its end, read as it comes (node waits while a pipe is full)."""
        chunks = []
        pipe = self._process.stdout
        with selectors.DefaultSelector() as selector:
            selector.register(pipe, selectors.EVENT_READ)
            while True:
                try:
                    self._wait(selector)
                except FrontendUnavailable:
                    self.stop()
                    raise
                chunk = os.read(pipe.fileno(), 1 << 20)
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)

    def _close(self) -> None:
        if self._process.stdout is not None:
            self._process.stdout.close()
        self._stderr.close()


#: UTF-8 lead bytes of the characters from U+E000 on: JavaScript sorts text by UTF-16 code units
#: (a character past U+FFFF is a surrogate pair, below U+E000), Python by code points, and the
#: two orders differ only where such a character is compared with one from U+E000 to U+FFFF
_ORDERED_APART = tuple(bytes([lead]) for lead in range(0xEE, 0xF5))


def _decoded(output: bytes) -> list[dict]:
    """The IR records of ts-plugin's output; anything else is a FrontendUnavailable."""
    try:
        records = list(ir.loads(output.decode("utf-8")))
        for number, record in enumerate(records, 1):
            if not isinstance(record, dict) or record.get("type") not in _RECORD_TYPES:
                raise ValueError(f"record {number} has no known type")
    except UnicodeDecodeError as exc:
        raise FrontendUnavailable(f"the TypeScript front end printed bytes that are not UTF-8 (at byte {exc.start}); "
                                  "not IR") from exc
    except (ValueError, AttributeError) as exc:
        raise FrontendUnavailable(f"the TypeScript front end printed something that is not IR: {exc}") from exc
    return records


def keys_sort_alike(output: bytes) -> bool:
    """Whether every object of ts-plugin's output (UTF-8; its keys sorted by ts-plugin/src/ir.ts
    canonicalJson) has its keys in the order `json.dumps(sort_keys=True)` gives: true unless the
    output holds a character JavaScript and Python order apart (looked for in the bytes: a few
    milliseconds, where a search of the decoded text takes a tenth of a second). Records decoded
    from such an output are then exactly those a JSON round trip in Python would give back
    (analyzer/scan.py)."""
    return output.isascii() or not any(lead in output for lead in _ORDERED_APART)


_RECORD_TYPES = ("meta", "entity", "transaction", "diagnostic")


def node_environment() -> dict[str, str]:
    """The front end's environment: this process's, with one malloc arena for node.

    glibc gives each thread that allocates its own arena and keeps what was freed there; node's
    collector and compiler threads left about 27 MB of such memory in a scan of oneuptime's
    Common (max RSS 1,040 -> 1,013 MB), and one arena cost no measurable CPU (docs/DECISIONS.md).
    A value the user set is kept."""
    return {**os.environ, "MALLOC_ARENA_MAX": os.environ.get("MALLOC_ARENA_MAX", "1")}


def _forward_info(stderr: bytes) -> None:
    """ts-plugin's info lines of a completed scan (its cache damaged or not written) are the user's too."""
    for line in stderr.decode("utf-8", "replace").splitlines():
        if line.startswith("txscan-ts: info: "):
            print(f"txscan: info: {line[len('txscan-ts: info: '):]}", file=sys.stderr)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _last_line(stderr: bytes) -> str:
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    # ts-plugin's own message first; otherwise the first line that is not a stack frame.
    own = [line for line in lines if line.startswith("txscan-ts:")]
    plain = [line for line in lines if not line.startswith("at ")]
    return (own or plain or lines or ["no message"])[0][:500]
