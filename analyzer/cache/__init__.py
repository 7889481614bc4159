"""The warm cache: what an earlier scan of the same files found, reused where nothing it
depends on changed (docs/DECISIONS.md, "Warm cache").

A `ScanCache` lives in one folder (`.txscan/cache/` of the scanned project, or --cache-dir) or
only in memory (re-analysis of rewritten copies reuses the scan it verifies). The outputs of a
scan with a cache are byte for byte those of a scan without one (tests/test_cache.py).
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .. import forked, timing
from . import cachefile, location

_PROJECT_CACHES = contextvars.ContextVar("project_caches", default=False)


class ScanCache:
    """The cached tables of each front end, loaded once, written back after a scan."""

    def __init__(self, folder: Path | None = None, frozen: bool = False) -> None:
        self.folder = folder
        self.frozen = frozen
        self._tables: dict[str, dict] = {}
        self._writing: dict = {}  # per front end (or "core"), its file being written by a forked process (analyzer/forked.py)
        self._background = False

    def read_only(self) -> "ScanCache":
        """The same tables, never replaced: for scans of rewritten copies, whose results are
        not the project's."""
        view = ScanCache(None, frozen=True)
        view._tables = self._tables
        return view

    def tables(self, frontend: str) -> dict:
        if frontend not in self._tables:
            with timing.phase("cache"):
                self._tables[frontend] = cachefile.load(self.folder, frontend) if self.folder else {}
        return self._tables[frontend]

    def keep_in_background(self, frontend: str, tables: dict, redo: bool = True) -> None:
        """keep(), its file (of the tables as they are now) written by a forked process while the
        scan goes on; settle() waits for it. `redo=False`: the scan changes the tables' objects
        after this, so a file the forked process failed to write is not written from them then
        (the file stays as it was: its entries are kept by content, so they stay true)."""
        self._background = True
        try:
            self.keep(frontend, tables)
            if not redo and frontend in self._writing:
                self._writing[frontend].task = lambda: None
        finally:
            self._background = False

    def keep(self, frontend: str, tables: dict) -> None:
        """The tables of the scan just made become the cache (entries it did not use are dropped)."""
        if self.frozen:
            return
        self.settle(frontend)  # the other files may go on being written
        read = self._tables.get(frontend)
        self._tables[frontend] = tables
        if self.folder is not None:
            with timing.phase("cache"):
                folder = self.folder

                def save() -> None:
                    cachefile.save(folder, frontend, tables, read)

                background = self._background and cachefile.worth_a_process(tables, read)
                writing = forked.in_background(save) if background else None
                if writing is None:
                    save()
                else:
                    self._writing[frontend] = writing

    def settle(self, frontend: str | None = None) -> None:
        """Wait for the files written in the background (that of `frontend` only, when given);
        each is written here if that failed."""
        for name in [frontend] if frontend is not None else sorted(self._writing):
            writing = self._writing.pop(name, None)
            if writing is not None:
                with timing.phase("cache"):
                    if not writing.finish():
                        writing.task()


@contextmanager
def project_caches() -> Iterator[None]:
    """Scans inside (those a command such as `txscan lint` makes) use their project's own
    `.txscan/cache` unless given another cache; library calls of scan() use none by default."""
    token = _PROJECT_CACHES.set(True)
    try:
        yield
    finally:
        _PROJECT_CACHES.reset(token)


def default_for(root: Path) -> ScanCache | None:
    if not _PROJECT_CACHES.get():
        return None
    folder = location.project_cache(root)
    return ScanCache(folder) if folder is not None else None
