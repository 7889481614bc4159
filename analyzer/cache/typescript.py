"""Reuse of a TypeScript scan's work.

A cache in a folder (`.txscan/cache/`, --cache-dir) is ts-plugin's own file there,
`typeorm-walks.json` (ts-plugin/src/warm-cache.ts): per file, digests of its content, its shape
and its units; per transaction and autocommit unit, its records and the units its walks read.
ts-plugin reuses what did not change and walks the rest; this side gives it the file and a key
naming what the cache is valid for (the settings, txscan's code, ts-plugin's code and stubs), and
reads back which transactions were walked.

A cache only in memory (re-analysis of rewritten copies) keeps the whole IR, reused when no
file ts-plugin reads and no setting changed (`project_digest`).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from ..digests import blake2b
from . import cachefile

WALKS_FILE = "typeorm-walks.json"

_READ = (".ts", ".tsx", ".mts", ".cts", ".json", ".lock", "pnpm-lock.yaml")
_SKIPPED = {"node_modules", ".git", ".txscan", "__pycache__"}


def project_digest(root: Path, settings: str, plugin: Path) -> str:
    digest = blake2b(settings.encode(), digest_size=16)
    digest.update(plugin_digest(plugin).encode())
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIPPED)
        for name in sorted(filenames):
            if name.endswith(_READ):
                path = Path(dirpath) / name
                try:
                    content = path.read_bytes()
                except OSError:
                    content = b"\0unreadable"
                digest.update(os.fsencode(path.relative_to(root)) + b"\0")
                digest.update(blake2b(content, digest_size=16).digest())
    return digest.hexdigest()


def plugin_digest(plugin: Path) -> str:
    """ts-plugin's compiled code and its declaration stubs (the ORM's types when not installed)."""
    digest = blake2b(digest_size=16)
    for folder, pattern in ((plugin.parent, "*.js"), (plugin.parent.parent / "stubs", "*.ts")):
        for path in sorted(folder.rglob(pattern)):
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_key(settings: str, plugin: Path) -> str:
    """What a cache file is valid for: these settings, this txscan and this ts-plugin."""
    text = json.dumps([settings, cachefile.code_fingerprint(), plugin_digest(plugin)])
    return blake2b(text.encode(), digest_size=16).hexdigest()


class WarmRun:
    """The arguments of one ts-plugin run with the cache in `folder`, and what it reports."""

    def __init__(self, folder: Path, settings: str, plugin: Path) -> None:
        self._scratch = tempfile.TemporaryDirectory(prefix="txscan-ts-")
        self.report = Path(self._scratch.name) / "report.json"
        self.arguments = ["--cache", os.fspath(folder / WALKS_FILE), "--cache-key", cache_key(settings, plugin),
                          "--cache-report", os.fspath(self.report)]

    def walked(self) -> list[str]:
        """Ids of the transactions the run walked (the others were reused)."""
        try:
            walked = json.loads(self.report.read_text("utf-8")).get("walked", [])
        except (OSError, ValueError):
            walked = []
        finally:
            self._scratch.cleanup()
        return [w for w in walked if isinstance(w, str)]
