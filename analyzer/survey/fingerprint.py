"""Content hashes of an application's source files: what decides whether a re-scan is needed.

Verdicts are interprocedural (a transaction's statements come from helpers in other files),
so the unit of reuse is the application: when no source file's hash changed, and the tool
version and settings are the same, the stored results are kept as they are.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..django.files import DEFAULT_MAX_BYTES, display_path, read_bytes

SOURCE_SUFFIXES = (".py", ".ts", ".tsx", ".mts", ".cts", ".js")
SKIPPED = {".git", "node_modules", ".venv", "venv", "__pycache__", "dist", "build", ".txscan", ".tox"}


def source_hashes(root: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> dict[str, str]:
    """sha256 of every source file, read the way a scan reads them (regular files only, size
    checked first): a FIFO or a link to /dev/zero named like a source file must not hang or
    exhaust a survey. A file that cannot be read is hashed by why it is not read, so a change
    in that is a change too."""
    hashes: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED)
        for name in sorted(filenames):
            if name.endswith(SOURCE_SUFFIXES):
                path = Path(dirpath) / name
                data = read_bytes(path, max_bytes)
                if isinstance(data, tuple):
                    data = ":".join(data).encode("utf-8")
                hashes[display_path(path, root)] = hashlib.sha256(data).hexdigest()
    return hashes


def fingerprint(hashes: dict[str, str]) -> str:
    digest = hashlib.sha256()
    for path in sorted(hashes):
        digest.update(f"{path}\0{hashes[path]}\n".encode("utf-8"))
    return digest.hexdigest()
