"""Compiled code for the functions generated while the Django front end's modules (and a Django
scan's rewrite modules) are imported.

libcst's node classes (about 250) are dataclasses: for each, Python writes `__init__`, `__eq__`,
`__repr__`, `__hash__` and the frozen setters as text and compiles it (`dataclasses._create_fn`),
and ast_convert.py writes the constructor of each of its node classes the same way. Compiling
those texts (737 when measured, before the rewrite modules' and the autocommit phase's joined
the table) was 45% of the instructions of the imports a Django scan or lint makes before its
analysis (callgrind: 1.24 G -> 0.68 G; the benchmark's imports phase 0.15 -> 0.09-0.10 s).

The code objects are kept in a table that scripts/setup.sh builds once (`python -m
analyzer.generated_code`, next to this module; git ignores it). A text is looked up by itself and
the compiler flags it is compiled with, and a table made by another interpreter (bytecode magic
number, optimisation level) or whose digest does not match its content is not read: what the
table gives is what compiling the text gives, so nothing changes but time. A text it lacks
(another libcst version) is compiled as before. Nothing writes the table during a scan.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import marshal
import os
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .digests import blake2b

TABLE = Path(__file__).with_name("_generated_code.bin")
_HEADER = b"txscan generated code 1\n" + importlib.util.MAGIC_NUMBER + bytes([sys.flags.optimize])
_DIGEST = 32  # blake2b of the marshalled table, after the header

_table: dict | None = None  # (flags, text) -> code, once read
_recorded: dict | None = None  # while the table is built: every text compiled
compiled = 0  # texts this process compiled (the table did not have them)


def read_table(path: Path = TABLE) -> dict:
    """The table at `path`, or {} when it is missing, damaged or another interpreter's."""
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    body = data[len(_HEADER) + _DIGEST:]
    if not data.startswith(_HEADER) or data[len(_HEADER):len(_HEADER) + _DIGEST] != _digest(body):
        return {}
    try:
        table = marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(table, dict):
        return {}
    return {key: code for key, code in table.items()
            if type(key) is tuple and len(key) == 2 and type(key[0]) is int and type(key[1]) is str
            and type(code) is types.CodeType}


def run(text: str, globals: dict, locals: dict | None = None, *, flags: int = 0) -> None:
    """`exec(text, globals, locals)` for a `text` compiled with `flags` (the `__future__` flags
    the caller's own exec would have compiled it with), its code taken from the table."""
    global _table, compiled
    if _table is None:
        _table = read_table(TABLE)
    code = _table.get((flags, text))
    if code is None:
        code = compile(text, "<string>", "exec", flags, dont_inherit=True)
        compiled += 1
        if _recorded is not None:
            _recorded[(flags, text)] = code
    exec(code, globals, locals)


def _dataclasses_exec(text, globals=None, locals=None):
    # dataclasses.py has no `__future__` import: its exec compiles with no flags
    if type(text) is not str:
        return exec(text, globals, locals)
    return run(text, globals, locals)


_ABSENT = object()


@contextmanager
def dataclasses_compiled_ahead() -> Iterator[None]:
    """While imports run: dataclasses takes the code of the functions it generates from the table
    (its `exec`, a name it looks up in its own module first, then in builtins)."""
    saved = dataclasses.__dict__.get("exec", _ABSENT)
    dataclasses.exec = _dataclasses_exec
    try:
        yield
    finally:
        if saved is _ABSENT:
            dataclasses.__dict__.pop("exec", None)
        else:
            dataclasses.exec = saved


def _digest(body: bytes) -> bytes:
    return blake2b(body, digest_size=_DIGEST).digest()


def build(path: Path = TABLE) -> int:
    """Import the Django front end's modules and a Django scan's rewrite modules (in a process that
    has not imported them yet) and write every text they compiled, with its code, to `path`; the
    number of texts."""
    global _recorded, _table
    from .scan import import_rewrites  # (imported before a scan reads the table: not recorded)

    _recorded, _table = {}, {}
    try:
        with dataclasses_compiled_ahead():
            from .django import frontend

            frontend.import_analysis_modules()
            import_rewrites("django")  # (it reads the table itself, as a scan does)
        table = _recorded
    finally:
        _recorded = _table = None
    body = marshal.dumps(table)
    partial = path.with_name(path.name + f".{os.getpid()}.partial")
    partial.write_bytes(_HEADER + _digest(body) + body)
    os.replace(partial, path)
    return len(table)


if __name__ == "__main__":
    if "libcst" in sys.modules:  # pragma: no cover - a wrong way to run it
        sys.exit("generated_code: libcst was imported before the table was built")
    # the module as the front end imports it (run as __main__, this file is a second copy)
    from analyzer import generated_code

    print(f"generated code: {generated_code.build()} texts in {TABLE.name}")
