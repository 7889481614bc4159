"""Helpers for the lint tests: run `lint` in-process on a folder, read inline expectations."""

from __future__ import annotations

import io
import re
from pathlib import Path

from analyzer.lint import LintOptions, run
from analyzer.lint.settings import Overrides

FIXTURES = Path(__file__).resolve().parent / "fixtures"
_EXPECT = re.compile(r"(?:#|//)\s*(error|ok):\s*((?:TX\d{3}[\s,]*)+)")
SOURCE_SUFFIXES = (".py", ".ts")


def expectations(folder: Path) -> tuple[set[tuple[str, int, str]], set[tuple[str, int, str]]]:
    """(expected findings, lines that must stay clean) as (path, line, code), from `# error: TX101` / `# ok: TX101`."""
    errors, oks = set(), set()
    for path in sorted(folder.rglob("*")):
        if path.suffix not in SOURCE_SUFFIXES or "node_modules" in path.parts:
            continue
        rel = path.relative_to(folder).as_posix()
        for number, text in enumerate(path.read_text("utf-8").splitlines(), 1):
            for kind, codes in _EXPECT.findall(text):
                for code in re.findall(r"TX\d{3}", codes):
                    (errors if kind == "error" else oks).add((rel, number, code))
    return errors, oks


def lint(folder: Path, select: tuple[str, ...] | None = None, **kwargs):
    options = LintOptions(paths=[folder], overrides=Overrides(select=select), **kwargs)
    return run(options)


def render(outcome, fmt: str) -> str:
    from analyzer.lint.formats import RENDERERS

    stream = io.StringIO()
    RENDERERS[fmt](outcome, stream, False)
    return stream.getvalue()
