"""A module's top-level statements for planning and checking rewrites (python_top_level.py) are
read off tree-sitter's tree, and are those Python's own parser gives: the same lines, kinds,
names and `from` imports; where the compiler rejects the text there is no outline."""

from __future__ import annotations

from textwrap import dedent

import pytest

from analyzer.rewrite import checks, python_top_level
from conftest import SAMPLES

TRICKY = [
    '''\
    """Module docstring."""
    from __future__ import annotations
    import os; x = 1
    from . import F
    from .models import F as G, H
    from django . db import (transaction as tx,  # a comment inside
        other)
    from django.db.models import *
    ''',
    '''\
    # leading comment
    @decorated(
        "argument",
    )
    @other
    def f():
        x = 1
        # a trailing comment of the block, indented
    # a trailing comment at the left margin

    async def g(): pass
    class C:
        def method(self):
            return """
    text at the left margin
    """
        # comment
    a: int = 3
    b += 1
    "a", "b"
    ''',
    '''\
    x = 1 + \\
        2
    \\
    y = 2
    if x:
        pass
    else:
        pass
    try:
        import json
    except ImportError:
        json = None
    for i in range(3): print(i); continue
    while False: break
    with open("f") as f, open("g") as g:
        pass
    del x
    assert y
    lambda: 1
    match y:
        case 2:
            pass
    ''',
    '''\
    @ \\
     decorator
    def split_decorator():
        return [
    1,
    2]
    def last(): return 1  # no newline at the end''',
]


@pytest.mark.parametrize("text", TRICKY)
def test_tree_sitter_gives_what_pythons_parser_gives(text):
    text = dedent(text)
    assert python_top_level.compiles(text)
    found = python_top_level._from_tree_sitter(text)
    assert found is not None
    assert found == python_top_level._from_ast(text)


def test_the_samples_and_fixtures_outline_as_pythons_parser_does():
    compared = 0
    for path in sorted([*SAMPLES.rglob("*.py"), *(SAMPLES.parents[1] / "tests" / "fixtures").rglob("*.py")]):
        try:
            text = path.read_text("utf-8")
        except UnicodeDecodeError:  # fixtures of undecodable files
            continue
        if not python_top_level.compiles(text):
            continue
        found = python_top_level._from_tree_sitter(text)
        if found is not None:
            assert found == python_top_level._from_ast(text), path
            compared += 1
    assert compared > 300


def test_imports_and_kinds_in_the_outline():
    found = checks.outline(dedent(TRICKY[0]))
    assert found.transaction == "tx"
    assert found.f_import == (None,)  # `from . import F`: Python keeps no module name
    assert found.future == 2
    assert found.kinds == ("expr", "import", "other", "import", "import", "import", "import")


@pytest.mark.parametrize("text", [
    "def f(:\n    pass\n",  # neither parser accepts it
    "def f():\n    return 1\nreturn 2\n",  # tree-sitter does; the compiler does not
    "def f(a, a):\n    pass\n",
])
def test_no_outline_of_a_text_the_compiler_rejects(text):
    assert not python_top_level.compiles(text)
    assert python_top_level.statements(text) is None
    assert checks.outline(text) is None


def test_pythons_parser_is_asked_where_tree_sitter_reports_an_error(monkeypatch):
    text = "x = 1\ndef f():\n    return 2\n"
    monkeypatch.setattr(python_top_level, "_from_tree_sitter", lambda _text: None)
    assert python_top_level.statements(text) == python_top_level._from_ast(text)
    assert [s.kind for s in python_top_level.statements(text)] == ["other", "def"]
