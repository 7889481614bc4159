"""The warm cache on disk: one JSON file per front end in txscan's own cache folder.

JSON, not pickle: the folder sits inside a scanned checkout, and loading a pickle someone put
there would run their code. The file names its format, its version and a fingerprint of the
analyzer's code; a file that is not such a cache, or is damaged, is ignored with one line and
rebuilt (errors are data), one written by other code is silently rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from functools import lru_cache
from pathlib import Path

from .. import __version__

FORMAT = "txscan-cache"
VERSION = 1


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """txscan's version and a digest of its own Python sources: a development build whose code
    changed without a new version number must not reuse results of the old code."""
    package = Path(__file__).resolve().parents[1]
    digest = hashlib.blake2b(__version__.encode(), digest_size=16)
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _say(message: str) -> None:
    print(f"txscan: info: {message}", file=sys.stderr)


def load(folder: Path, name: str) -> dict:
    """The cached tables of `name` (empty when there is no usable cache file)."""
    path = folder / f"{name}.json"
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        _say(f"cache {path} cannot be read ({getattr(exc, 'strerror', None) or exc}); it is rebuilt")
        return {}
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        _say(f"cache {path} is damaged (not JSON at line {exc.lineno}); it is rebuilt")
        return {}
    if not isinstance(document, dict) or document.get("format") != FORMAT or not isinstance(document.get("tables"), dict):
        _say(f"cache {path} is not a txscan cache; it is rebuilt")
        return {}
    if document.get("version") != VERSION or document.get("code") != code_fingerprint():
        return {}  # written by another txscan: nothing in it can be trusted to be today's result
    return document["tables"]


def save(folder: Path, name: str, tables: dict) -> None:
    """Write atomically (a temporary file renamed over the old one): a scan stopped half-way or
    a concurrent scan never leaves a file that is half one and half the other."""
    document = {"format": FORMAT, "version": VERSION, "code": code_fingerprint(), "tables": tables}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temporary = folder / f".{name}-{os.getpid()}.tmp"
        try:
            # dumps, not dump: json.dump encodes in pure Python, several times slower than the
            # C encoder dumps uses (seconds on a large application's cache).
            text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
            with open(temporary, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(temporary, folder / f"{name}.json")
        finally:
            temporary.unlink(missing_ok=True)
    except OSError as exc:
        _say(f"cache not written to {folder}: {exc.strerror or exc}")
