"""Content hashes of an application's source files: what decides whether a re-scan is needed.

Verdicts are interprocedural (a transaction's statements come from helpers in other files),
so the unit of reuse is the application: when no source file's hash changed, and the tool
version and settings are the same, the stored results are kept as they are.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

SOURCE_SUFFIXES = (".py", ".ts", ".tsx", ".mts", ".cts", ".js")
SKIPPED = {".git", "node_modules", ".venv", "venv", "__pycache__", "dist", "build", ".txscan", ".tox"}


def source_hashes(root: Path) -> dict[str, str]:
    hashes: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED)
        for name in sorted(filenames):
            if name.endswith(SOURCE_SUFFIXES):
                path = Path(dirpath) / name
                try:
                    hashes[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
                except OSError:
                    continue
    return hashes


def fingerprint(hashes: dict[str, str]) -> str:
    digest = hashlib.sha256()
    for path in sorted(hashes):
        digest.update(f"{path}\0{hashes[path]}\n".encode("utf-8"))
    return digest.hexdigest()
