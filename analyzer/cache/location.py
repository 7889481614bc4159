"""Where a scan keeps its warm cache: `.txscan/cache/` in the scanned project, another folder
given with --cache-dir, or nowhere.

txscan writes only into a folder that is its own: `.txscan/` (created by txscan, also holding
the store) or a folder the user named. A read-only project, or a `.txscan` that is not a folder,
gives one info line and a scan without a cache, never an error: the cache only saves time.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

CACHE_FOLDER = "cache"


class CacheDirError(Exception):
    """An explicit --cache-dir that cannot be used (the command line prints it and exits 2)."""


def _info(message: str) -> None:
    print(f"txscan: info: {message}", file=sys.stderr)


def project_cache(root: Path) -> Path | None:
    """`root/.txscan/cache`, when txscan may write there; None (with one info line) otherwise."""
    own = root / ".txscan"
    if own.exists() or own.is_symlink():
        if own.is_symlink() or not own.is_dir():
            _info(f"{own} is not txscan's folder; scanning without a cache")
            return None
        target = own
    else:
        target = root
    if not os.access(target, os.W_OK | os.X_OK):
        _info(f"{target} is read-only; scanning without a cache")
        return None
    folder = own / CACHE_FOLDER
    if folder.exists() and (folder.is_symlink() or not folder.is_dir()):
        _info(f"{folder} is not txscan's cache folder; scanning without a cache")
        return None
    return folder


def explicit_cache(folder: Path) -> Path:
    """A folder given with --cache-dir: created when missing, and it must be writable."""
    if folder.exists() and not folder.is_dir():
        raise CacheDirError(f"--cache-dir {folder} is not a folder")
    if not folder.exists():
        parent = folder.parent if str(folder.parent) else Path(".")
        if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
            raise CacheDirError(f"--cache-dir {folder}: folder {parent} does not exist or is not writable")
    elif not os.access(folder, os.W_OK | os.X_OK):
        raise CacheDirError(f"--cache-dir {folder} is not writable")
    return folder
