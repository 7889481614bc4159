"""Inline suppressions in Python and TypeScript, and unused ones reported (TX900)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lintkit import FIXTURES, lint

from analyzer.lint.suppressions import parse

HERE = Path(__file__).resolve().parent
PROJECT = HERE / "projects" / "checkout"


def test_comment_forms_are_parsed():
    lines = ["x()  # noqa: TX101, TX103", "y()  # txscan: ignore[TX110]", "z()  # noqa: E501",
             "w()  # NOQA:tx101"]
    found = {(s.target_line, s.codes) for s in parse("a.py", lines)}
    assert found == {(1, ("TX101", "TX103")), (2, ("TX110",)), (4, ("TX101",))}
    ts = ["a(); // txscan-ignore TX101", "// txscan-ignore-next-line TX103, TX105", "b();"]
    assert {(s.comment_line, s.target_line, s.codes) for s in parse("a.ts", ts)} == {
        (1, 1, ("TX101",)), (2, 3, ("TX103", "TX105"))}


@pytest.fixture
def project(tmp_path) -> Path:
    copy = tmp_path / "checkout"
    shutil.copytree(PROJECT, copy)
    return copy


def _annotate(path: Path, line: int, comment: str) -> None:
    lines = path.read_text("utf-8").splitlines()
    lines[line - 1] += comment
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("comment", ["  # noqa: TX103", "  # txscan: ignore[TX103]", "  # noqa: TX101,TX103"])
def test_python_suppression_silences_only_its_line_and_code(project, comment):
    _annotate(project / "shop" / "services.py", 14, comment)
    outcome = lint(project)
    codes = [f.code for f in outcome.findings]
    assert "TX103" not in codes and {"TX101", "TX110", "TX303"} <= set(codes)
    assert outcome.suppressed == 1
    # TX101 named in the same comment matched nothing on that line: reported as unused.
    assert ("TX900" in codes) == ("TX101" in comment)


def test_unused_suppression_is_reported(project):
    _annotate(project / "shop" / "services.py", 27, "  # noqa: TX101")
    outcome = lint(project)
    unused = [f for f in outcome.findings if f.code == "TX900"]
    assert [(f.location.path, f.location.line) for f in unused] == [("shop/services.py", 27)]
    assert "TX101" in unused[0].message


def test_unused_suppression_can_be_ignored(project):
    _annotate(project / "shop" / "services.py", 27, "  # noqa: TX101")
    assert not [f for f in lint(project, select=("TX1",)).findings if f.code == "TX900"]


def test_typescript_suppressions():
    folder = FIXTURES / "unused-suppression" / "typeorm"
    outcome = lint(folder, select=("TX101", "TX900"))
    # The next-line comment silences the HTTP call; the trailing one on a clean line is unused.
    assert [(f.location.line, f.code) for f in outcome.findings] == [(7, "TX900")]
    assert outcome.suppressed == 1
