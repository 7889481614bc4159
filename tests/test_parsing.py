"""parsing.py gives libcst's own trees, and leaves node validation on for everything else."""

from __future__ import annotations

import libcst as cst
import pytest

from analyzer.django.parsing import parse_module
from conftest import ROOT

FILES = sorted((ROOT / "corpus" / "samples" / "django").rglob("*.py"))[:30] + sorted((ROOT / "analyzer" / "django").glob("*.py"))


def _both(libcst_parse, parse, text: str):
    """(libcst's tree, ours) of `text`, or None when both raise libcst's syntax error."""
    try:
        expected = libcst_parse(text)
    except cst.ParserSyntaxError:
        with pytest.raises(cst.ParserSyntaxError):
            parse(text)
        return None
    return expected, parse(text)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_same_tree_as_libcst(path):
    text = path.read_text("utf-8")
    trees = _both(cst.parse_module, parse_module, text)
    if trees is None:
        return
    expected, parsed = trees
    assert parsed.deep_equals(expected)
    assert parsed.code == text


def test_syntax_errors_still_raise_and_validation_comes_back():
    with pytest.raises(cst.ParserSyntaxError):
        parse_module("def f(:\n    pass\n")
    # A node built by hand after a parse (as rewrites do) is still checked.
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")


def _assignment_texts() -> list[str]:
    """The values of every module- and class-level assignment of the Django samples, as the
    index keeps them: what models.py and dispatch.py parse as expressions."""
    from analyzer.django.files import DEFAULT_EXCLUDES, FileProblem, python_sources
    from analyzer.django.index import RepoIndex

    index = RepoIndex("")
    texts: set[str] = set()
    for source in python_sources(ROOT / "corpus" / "samples" / "django", DEFAULT_EXCLUDES, 2_000_000):
        if isinstance(source, FileProblem):
            continue
        info = index.add(source)
        texts.update(info.assigns.values())
        stack = list(info.classes.values())
        while stack:
            cls = stack.pop()
            texts.update(cls.assigns.values())
            stack.extend(cls.inner.values())
    return sorted(texts)


def test_expressions_match_libcst_node_for_node():
    from analyzer.django import ast_convert
    from analyzer.django.parsing import parse_expression

    texts = _assignment_texts()
    assert len(texts) > 200
    converted = 0
    for text in texts:
        trees = _both(cst.parse_expression, parse_expression, text)
        if trees is None:
            continue
        expected, parsed = trees
        assert list(ast_convert.pairs(parsed, expected)), text  # raises where a field differs
        converted += ast_convert.is_converted(parsed)
    assert converted == len(texts)  # none needed libcst's parser


def test_expression_fallback_and_reuse():
    from analyzer.django import ast_convert
    from analyzer.django.parsing import parse_expression

    # Not an expression for Python's parser, one for libcst's: libcst's tree.
    starred = parse_expression("*models")
    assert isinstance(starred, cst.StarredElement) and not ast_convert.is_converted(starred)
    for bad in ("  indented", "x = 1", "yield x", "f(", "a; b"):
        with pytest.raises(cst.ParserSyntaxError):
            parse_expression(bad)
    field = parse_expression('models.CharField("name " "x", max_length=80)')
    assert ast_convert.is_converted(field) and field is parse_expression('models.CharField("name " "x", max_length=80)')
    assert field.args[0].value.evaluated_value == "name x"
    assert [a.keyword.value for a in field.args if a.keyword] == ["max_length"]
