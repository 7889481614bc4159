"""Which files of a repository the Django front end reads, and reading them safely.

Bad input is data, not an exception: a file that cannot be decoded or is too large becomes
a diagnostic and the scan goes on.
"""

from __future__ import annotations

import codecs
import fnmatch
import os
import re
import stat
from dataclasses import dataclass
from functools import cached_property, lru_cache
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

    @cached_property
    def line_texts(self) -> list[str]:
        """The text's lines, split at newlines only, as tree-sitter numbers rows (`str.splitlines`
        also splits at form feeds and other separators, which shifts the numbering)."""
        return self.text.split("\n")

    @cached_property
    def lines_with_ends(self) -> list[str]:
        """text.splitlines(keepends=True), made once: every definition parsed from the file is
        a slice of it."""
        return self.text.splitlines(keepends=True)

    def lines_between(self, first: int, last: int) -> str:
        """Lines `first`..`last` (1-based, inclusive), joined by newlines."""
        return "\n".join(self.line_texts[first - 1:last])


@dataclass
class FileProblem:
    rel: str
    code: str
    message: str


def iter_python_files(root: Path, excludes=DEFAULT_EXCLUDES, exclude_files=DEFAULT_EXCLUDE_FILES,
                      problems: list[FileProblem] | None = None):
    """Python files under root in sorted order (deterministic), pruning excluded folders.

    A folder that cannot be listed is appended to `problems` (when given): its files are not
    silently lost.
    """
    def unreadable(error: OSError) -> None:
        if problems is not None and error.filename is not None:
            rel = display_path(Path(os.fsdecode(error.filename)), root)
            problems.append(FileProblem(rel, "unreadable", f"folder cannot be read: {error.strerror or error}; "
                                                       "its files are not analysed"))

    excluded_dir, excluded_file = glob_matcher(tuple(excludes)), glob_matcher(tuple(exclude_files))
    for dirpath, dirnames, filenames in os.walk(root, onerror=unreadable):
        dirnames[:] = sorted(d for d in dirnames if not excluded_dir(os.path.normcase(d)))
        for name in sorted(filenames):
            if name.endswith(".py") and not excluded_file(os.path.normcase(name)):
                yield Path(dirpath) / name


@lru_cache(maxsize=16)
def glob_matcher(patterns: tuple[str, ...]):
    """Whether a (normcase'd) name matches any of the glob `patterns`, as fnmatch.fnmatch
    decides it, in one regular expression (a name is tried against every pattern otherwise)."""
    if not patterns:
        return lambda _name: None
    return re.compile("|".join(fnmatch.translate(os.path.normcase(p)) for p in patterns)).match


def python_sources(root: Path, excludes=DEFAULT_EXCLUDES, max_bytes: int = DEFAULT_MAX_BYTES,
                   read_already: dict | None = None):
    """Every Python file of a scan, read: SourceFile, or FileProblem (file or folder) in path order.
    `read_already` (relative path -> SourceFile read from this root with these settings) is taken
    instead of reading those files again (re-analysis of rewrites passes the scan's own)."""
    problems: list[FileProblem] = []
    for path in iter_python_files(root, excludes, problems=problems):
        yield from _drain(problems)
        known = read_already.get(display_path(path, root)) if read_already else None
        yield known if known is not None and known.path == path else read_source(path, root, max_bytes)
    yield from _drain(problems)


def _drain(problems: list[FileProblem]):
    while problems:
        yield problems.pop(0)


def display_path(path: Path, root: Path) -> str:
    """`path` relative to root with "/" separators, as text that always encodes to UTF-8.

    File names are bytes on POSIX: undecodable bytes (kept by Python as lone surrogates) are
    shown as `\\xNN`, so the name survives into the IR, JSON and the store.
    """
    rel = path.relative_to(root).as_posix() if path != root else "."
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _declared_encoding(data: bytes) -> str:
    for line in data.split(b"\n", 2)[:2]:
        match = _CODING.match(line)
        if match:
            try:
                return codecs.lookup(match.group(1).decode("ascii")).name
            except (LookupError, UnicodeDecodeError):
                return "utf-8"
    return "utf-8"


def read_bytes(path: Path, max_bytes: int) -> bytes | tuple[str, str]:
    """The content of a regular file of at most max_bytes, or (code, reason) why it is not read.

    The file is opened without blocking and checked with fstat on the open descriptor, so a
    FIFO named `x.py` cannot hang the scan and a link to /dev/zero is never read; the size is
    checked before reading, and no more than max_bytes + 1 bytes are ever read.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        return "unreadable", f"cannot read: {exc.strerror or exc}"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return "unreadable", f"not a regular file ({_file_kind(info.st_mode)}); not read"
        if info.st_size > max_bytes:
            return _too_large(info.st_size, max_bytes)
        chunks, remaining = [], max_bytes + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
    except OSError as exc:
        return "unreadable", f"cannot read: {exc.strerror or exc}"
    finally:
        os.close(fd)
    if len(data) > max_bytes:  # grew after the check
        return "too-large", f"over the limit of {max_bytes} bytes; not analysed"
    return data


def _too_large(size: int, max_bytes: int) -> tuple[str, str]:
    return "too-large", f"{size} bytes is over the limit of {max_bytes}; not analysed"


def _file_kind(mode: int) -> str:
    for test, kind in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return kind
    return "a special file"


# Characters str.splitlines() (and so libcst) takes as line breaks, but Python's tokenizer does
# not: inside a string literal or at the start of a line they are valid Python. They become
# spaces in the text the front end analyses, so every parser sees the same lines as Python.
_NOT_LINE_BREAK_CHARACTERS = "\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_NOT_LINE_BREAKS = str.maketrans({c: " " for c in _NOT_LINE_BREAK_CHARACTERS})
_LINE_ENDINGS = re.compile(r"\r\n?")


def normalise(text: str) -> str:
    """Python source as the front end parses it: `\n` line ends (CR-only and CRLF files too)."""
    if "\r" in text:
        text = _LINE_ENDINGS.sub("\n", text)
    # translate() looks every character up; most files have none of these characters. Each is
    # looked for on its own (str's search, not a regular expression's character class, which
    # tried every position: saleor's 1,141 files 0.020 -> 0.004 CPU s).
    return text.translate(_NOT_LINE_BREAKS) if has_not_line_break(text) else text


def has_not_line_break(text: str) -> bool:
    """Whether `text` holds a character normalise() makes a space."""
    return any(character in text for character in _NOT_LINE_BREAK_CHARACTERS)


def read_source(path: Path, root: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> SourceFile | FileProblem:
    rel = display_path(path, root)
    data = read_bytes(path, max_bytes)
    if isinstance(data, tuple):
        return FileProblem(rel, *data)
    return decoded_source(data, path, rel)


def source_of_bytes(data: bytes, path: Path, rel: str, max_bytes: int = DEFAULT_MAX_BYTES) -> SourceFile | FileProblem:
    """What read_source gives for a regular file holding `data` at `path` (not read: the rewrites'
    re-analysis has the edited files' content in memory)."""
    if len(data) > max_bytes:
        return FileProblem(rel, *_too_large(len(data), max_bytes))
    return decoded_source(data, path, rel)


def decoded_source(data: bytes, path: Path, rel: str) -> SourceFile | FileProblem:
    """The SourceFile of a file's content read at most max_bytes long, or why it is not analysed."""
    if b"\0" in data[:8192]:
        return FileProblem(rel, "decode-error", "binary content (NUL byte)")
    encoding = _declared_encoding(data)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        return FileProblem(rel, "decode-error", f"not valid {encoding} at byte {exc.start}: {exc.reason}")
    except (UnicodeError, LookupError, ValueError, TypeError):
        # a declared codec that is not a text encoding (`coding: rot13`, `hex`, `undefined`)
        return FileProblem(rel, "decode-error", f"declared encoding {encoding} cannot decode this file")
    if text.startswith("\ufeff"):
        text = text[1:]
    text = normalise(text)
    from .nesting import nesting_problem  # tree-sitter: not for the TypeScript scans that read files here

    too_deep = nesting_problem(text)
    if too_deep:
        return FileProblem(rel, "parse-error", too_deep)
    return SourceFile(path, rel, text, text.count("\n") + 1)


def module_name(rel: str) -> str:
    parts = rel[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)
