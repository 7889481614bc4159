"""parsing.py gives libcst's own trees, and leaves node validation on for everything else."""

from __future__ import annotations

import libcst as cst
import pytest

from analyzer.django.parsing import parse_module
from conftest import ROOT

FILES = sorted((ROOT / "corpus" / "samples" / "django").rglob("*.py"))[:30] + sorted((ROOT / "analyzer" / "django").glob("*.py"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_same_tree_as_libcst(path):
    text = path.read_text("utf-8")
    try:
        expected = cst.parse_module(text)
    except cst.ParserSyntaxError:
        with pytest.raises(cst.ParserSyntaxError):
            parse_module(text)
        return
    parsed = parse_module(text)
    assert parsed.deep_equals(expected)
    assert parsed.code == text


def test_syntax_errors_still_raise_and_validation_comes_back():
    with pytest.raises(cst.ParserSyntaxError):
        parse_module("def f(:\n    pass\n")
    # A node built by hand after a parse (as rewrites do) is still checked.
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")
