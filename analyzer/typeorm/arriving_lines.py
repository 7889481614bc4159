"""ts-plugin's IR decoded line by line as it arrives (analyzer/typeorm/bridge.py).

ts-plugin prints the meta record, the entities and the explicit transactions as soon as its
explicit walks are done, and the rest after its autocommit walks (ts-plugin/src/cli.ts). The
scan decodes those first lines, and works on each record (analyzer/typeorm/early_work.py),
during the autocommit walks, on the machine's other core. A line is decoded exactly as
`ir.loads` decodes it; at the first line that is not IR, decoding stops and the caller decodes
the whole output again, so that every failure reads as it always did.
"""

from __future__ import annotations

import fcntl
import json
from collections.abc import Callable

from .. import ir

#: bytes of lines decoded before the pipe is looked at again: node, writing the next lines
#: meanwhile, finds room in the pipe (widen_pipe) and is not kept waiting
BATCH_BYTES = 1 << 18

#: the pipe's size asked for (Linux): the front end's output is written ahead of the decoding
PIPE_BYTES = 1 << 20


def widen_pipe(fd: int) -> None:
    """Ask for a pipe of PIPE_BYTES (64 KiB by default); kept as it is where that is refused."""
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (AttributeError, OSError):
        pass


class ArrivingLines:
    """The records of the lines added so far, each handed to `arriving` once decoded."""

    def __init__(self, arriving: Callable[[dict], None] | None = None) -> None:
        self._arriving = arriving
        self._decoded: list[dict] = []
        self._data = b""  # bytes added and not yet decoded start at self._at
        self._at = 0
        self._added: list[bytes] = []  # chunks added since the last batch
        self._failed = False

    def add(self, chunk: bytes) -> None:
        if not self._failed:
            self._added.append(chunk)

    def waiting(self) -> bool:
        """Whether a whole line (or more) waits to be decoded."""
        if self._failed:
            return False
        return any(b"\n" in chunk for chunk in self._added) or self._data.find(b"\n", self._at) >= 0

    def decode_some(self, budget: int = BATCH_BYTES) -> None:
        """Decode whole lines, about `budget` bytes of them."""
        self._take_added()
        done = 0
        while done < budget and not self._failed:
            end = self._data.find(b"\n", self._at)
            if end < 0:
                return
            self._decode(self._data[self._at:end])
            done += end + 1 - self._at
            self._at = end + 1

    def decode_rest(self) -> None:
        """Decode every line left, the last one too when no newline ends it."""
        while self.waiting():
            self.decode_some(len(self._data) + sum(map(len, self._added)))
        self._take_added()
        if not self._failed and self._at < len(self._data):
            self._decode(self._data[self._at:])
            self._at = len(self._data)

    def records(self) -> list[dict] | None:
        """Every record decoded (after decode_rest), or None when a line is not IR."""
        return None if self._failed else self._decoded

    def _take_added(self) -> None:
        if self._added:
            self._data = self._data[self._at:] + b"".join(self._added)
            self._at = 0
            self._added = []

    def _decode(self, raw: bytes) -> None:
        """One line, as ir.loads reads it: stripped, skipped when blank, JSON of this IR version."""
        try:
            line = raw.decode("utf-8").strip()
            if not line:
                return
            record = json.loads(line)
            if record.get("ir") != ir.IR_VERSION:
                raise ValueError("unsupported IR version")
        except (UnicodeDecodeError, ValueError, AttributeError):
            self._failed = True
            self._data, self._added, self._decoded = b"", [], []
            return
        self._decoded.append(record)
        if self._arriving is not None:
            self._arriving(record)
