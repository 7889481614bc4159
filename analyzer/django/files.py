"""Which files of a repository the Django front end reads, and reading them safely.

Bad input is data, not an exception: a file that cannot be decoded or is too large becomes
a diagnostic and the scan goes on.
"""

from __future__ import annotations

import codecs
import fnmatch
import os
import re
from dataclasses import dataclass
from pathlib import Path

DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "env", ".env", "virtualenv",
    "site-packages", "node_modules", "__pycache__", "build", "dist", ".eggs", "*.egg-info",
    "migrations", "tests", "test", "testing", "fixtures", ".txscan", ".mypy_cache", ".pytest_cache",
)
DEFAULT_EXCLUDE_FILES = ("test_*.py", "*_test.py", "tests.py", "conftest.py", "setup.py")
DEFAULT_MAX_BYTES = 1_500_000

_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


@dataclass
class SourceFile:
    path: Path          # absolute
    rel: str            # relative to the scanned root, "/" separators
    text: str
    lines: int


@dataclass
class FileProblem:
    rel: str
    code: str
    message: str


def iter_python_files(root: Path, excludes=DEFAULT_EXCLUDES, exclude_files=DEFAULT_EXCLUDE_FILES):
    """Python files under root in sorted order (deterministic), pruning excluded folders."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(
            d for d in dirnames if not any(fnmatch.fnmatch(d, pattern) for pattern in excludes)
        )
        for name in sorted(filenames):
            if name.endswith(".py") and not any(fnmatch.fnmatch(name, p) for p in exclude_files):
                yield Path(dirpath) / name


def _declared_encoding(data: bytes) -> str:
    for line in data.split(b"\n", 2)[:2]:
        match = _CODING.match(line)
        if match:
            try:
                return codecs.lookup(match.group(1).decode("ascii")).name
            except (LookupError, UnicodeDecodeError):
                return "utf-8"
    return "utf-8"


def read_source(path: Path, root: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> SourceFile | FileProblem:
    rel = path.relative_to(root).as_posix()
    try:
        size = path.stat().st_size
        if size > max_bytes:
            return FileProblem(rel, "too-large", f"{size} bytes is over the limit of {max_bytes}; not analysed")
        data = path.read_bytes()
    except OSError as exc:
        return FileProblem(rel, "decode-error", f"cannot read: {exc.strerror or exc}")
    if b"\0" in data[:8192]:
        return FileProblem(rel, "decode-error", "binary content (NUL byte)")
    encoding = _declared_encoding(data)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        return FileProblem(rel, "decode-error", f"not valid {encoding} at byte {exc.start}: {exc.reason}")
    if text.startswith("\ufeff"):
        text = text[1:]
    return SourceFile(path, rel, text, text.count("\n") + 1)


def module_name(rel: str) -> str:
    parts = rel[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)
