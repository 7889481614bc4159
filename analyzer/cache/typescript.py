"""Reuse of a TypeScript scan's IR when nothing ts-plugin reads has changed.

The TypeScript front end is one node process over the whole program: its records are reused
whole, or not at all. The digest covers the settings, ts-plugin's own code, and every source
and configuration file of the project (.ts/.tsx/.mts/.cts, .d.ts, .json, lock files); the
dependencies in node_modules are represented by the lock files and package.json files.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_READ = (".ts", ".tsx", ".mts", ".cts", ".json", ".lock", "pnpm-lock.yaml")
_SKIPPED = {"node_modules", ".git", ".txscan", "__pycache__"}


def project_digest(root: Path, settings: str, plugin: Path) -> str:
    digest = hashlib.blake2b(settings.encode(), digest_size=16)
    for folder in (plugin.parent,):
        for path in sorted(folder.rglob("*.js")):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
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
                digest.update(hashlib.blake2b(content, digest_size=16).digest())
    return digest.hexdigest()
