"""positions.py gives the same start lines as libcst's PositionProvider, on real-looking code."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from analyzer.django.positions import line_numbers
from conftest import ROOT

FILES = sorted((ROOT / "corpus" / "samples" / "django").rglob("*.py"))
FILES += sorted((ROOT / "tests" / "fixtures" / "django").rglob("services.py"))
FILES += sorted((ROOT / "analyzer" / "django").glob("*.py"))


def _parses(path: Path) -> bool:
    try:
        cst.parse_module(path.read_text("utf-8"))
        return True
    except (cst.ParserSyntaxError, UnicodeDecodeError):
        return False  # the deliberately broken fixtures


FILES = [p for p in FILES if _parses(p)]

TRICKY = '''\
@decorator(
    arg=1,
)
def f(a,
      b):
    """Doc
    string."""
    x = (
        a.b
    )
    y = call(
        "multi\\nline", """triple
quoted""", \\
        z)  # comment

    # leading comment
    if x:
        return [i for i in y
                if i]
    note = (
        """a string in parentheses
        over lines"""
    )
    count = (1
             )
    return note, count
'''


def _compare(source: str) -> list:
    module = cst.parse_module(source)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    expected = wrapper.resolve(PositionProvider)
    starts, _ends = line_numbers(wrapper.module)
    wrong = []
    for node, position in expected.items():
        if isinstance(node, (cst.BaseExpression, cst.BaseSmallStatement, cst.BaseCompoundStatement,
                             cst.SimpleStatementLine, cst.Decorator)):
            if starts.get(node) != position.start.line:
                wrong.append((type(node).__name__, starts.get(node), position.start.line))
    return wrong


def test_tricky_layout():
    assert _compare(TRICKY) == []


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_matches_position_provider(path: Path):
    assert _compare(path.read_text("utf-8")) == []


def test_offset():
    starts, _ = line_numbers(cst.parse_module("x = 1\ny = f()\n"), first_line=41)
    calls = [line for node, line in starts.items() if isinstance(node, cst.Call)]
    assert calls == [42]


def _all_nodes(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _all_nodes(child)


@pytest.mark.parametrize("path", FILES[:40], ids=lambda p: p.name)
def test_children_read_from_fields_are_libcst_children(path: Path):
    from analyzer.django.positions import children

    module = cst.parse_module(path.read_text("utf-8"))
    for node in _all_nodes(module):
        listed = node.children
        fast = children(node)
        assert len(fast) == len(listed) and all(a is b for a, b in zip(fast, listed)), type(node).__name__


def test_children_of_tricky_code_are_libcst_children():
    from analyzer.django.positions import children

    source = TRICKY + "async def g(a, /, b, *args, c=1, **kw) -> 'T':\n    async with x as (y, z):\n" \
                      "        print(f'{a!r:>{b}}', *args, **kw)\n        return lambda *, q: q[1:2, ::3]\n"
    for node in _all_nodes(cst.parse_module(source)):
        assert [id(c) for c in children(node)] == [id(c) for c in node.children], type(node).__name__
