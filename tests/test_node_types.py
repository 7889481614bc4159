"""node_types.py: a set test `type(node) in kinds(...)` answers what isinstance answers, for every
node class there is (libcst's and the converted ones), and the walk's hot paths use it instead of
ABCMeta's instance check."""

from __future__ import annotations

import abc

import libcst as cst

# Every module that makes a set or a node class (the front end's, the rewrites'), imported first.
import analyzer.django.frontend
import analyzer.rewrite  # noqa: F401
from analyzer.django import ast_convert, node_types
from analyzer.django.folding import fold
from analyzer.django.syntax import dotted
from analyzer.django.walk_helpers import _exits, _statements, _text


def _every_node_class() -> set[type]:
    out, stack = set(), [cst.CSTNode]
    while stack:
        cls = stack.pop()
        if cls not in out:
            out.add(cls)
            stack.extend(cls.__subclasses__())
    return out


def test_every_set_answers_as_isinstance_for_every_node_class() -> None:
    classes = _every_node_class()
    assert len(node_types.MADE) >= 15
    assert {c for c in classes if c in ast_convert._CHILD_FIELDS}, "the converted classes are node classes too"
    for made, bases in node_types.MADE:
        for cls in classes:
            assert (cls in made) == issubclass(cls, bases), (cls, bases)


def test_converted_and_libcst_nodes_are_told_apart_alike() -> None:
    text = "def f(a):\n    x = a.b.c(1)\n    if x:\n        return x\n    return 'y'\n"
    converted, *_ = ast_convert.convert(text, 1)
    real = cst.parse_module(text)
    for tree in (converted, real):
        function = tree.body[0]
        statements = _statements(function.body)
        assert len(statements) == 3
        call = statements[0].body[0].value
        assert dotted(call.func) == "a.b.c"
        assert _text(call.args[0].value) == "1"
        assert _exits(function.body) and _exits(statements[1].body)


class _CountedChecks:
    """ABCMeta.__instancecheck__ counted while in use (libcst's node classes are ABCs)."""

    def __enter__(self):
        self.count = 0
        self.original = abc.ABCMeta.__instancecheck__

        def counted(cls, instance):
            self.count += 1
            return self.original(cls, instance)

        abc.ABCMeta.__instancecheck__ = counted
        return self

    def __exit__(self, *exc):
        abc.ABCMeta.__instancecheck__ = self.original


def test_hot_paths_make_no_abc_instance_check_on_converted_nodes() -> None:
    text = "def f(a):\n    x = a.b.c(1, 'k')\n    if not x:\n        return x\n    return 'y'\n"
    converted, *_ = ast_convert.convert(text, 1)
    function = converted.body[0]
    with _CountedChecks() as checks:
        statements = _statements(function.body)
        call = statements[0].body[0].value
        assert dotted(call.func) == "a.b.c"
        assert [_text(arg.value) for arg in call.args] == ["1", "'k'"]
        assert _exits(function.body)
        assert fold(statements[1].test.expression, {}) is not True
    assert checks.count == 0
