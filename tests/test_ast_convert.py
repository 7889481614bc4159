"""ast_convert.py: a definition parsed with `ast` and converted gives the deep pass what libcst's
own tree gives: the same nodes and fields, the same start and end lines (positions.py), the same
source text for expressions (syntax.code), the same visits; and what it cannot convert is parsed
with libcst (Context.parse_definition)."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from conftest import ROOT

from analyzer.django import ast_convert
from analyzer.django.context import _converted
from analyzer.django.parsing import parse_module
from analyzer.django.positions import line_numbers
from analyzer.django.syntax import code

_EMPTY = cst.Module(body=[])
# node types a converted tree holds; `.` tokens only where they are the node (a relative import)
_SEMANTIC = set(ast_convert._SHAPES) - {"Dot"}

TRICKY = '''\
import os.path as osp
from ..models import (Order,
                      Line as OrderLine)


@decorator(
    arg=1,
)
@other . attr
async def handle(request, order_id: int, /, *args, flag: bool = False, **kwargs) -> "Order":
    """Doc
    string."""
    global COUNTER
    total = (
        Order.objects
        .filter(pk=order_id, **kwargs)
        .select_for_update()
    )
    label = f"order {order_id!r:>{width}} of {total.count()}" "tail" \\
        'more'
    value = (((1)))
    if (n := len(args)) > 2 and not flag or n is not None:
        values = [x * 2 for x in args if x if not x] + list({k: v for k, v in kwargs.items()})
    elif flag:
        values = {*args, *(a for a in args)}
    else:
        values = ()
    async with lock(
        "a"
    ) as held, other():
        await held.wait()
    async for item in stream():
        yield item
    for i, (a, b) in enumerate(pairs):
        continue
    else:
        pass
    while total:
        break
    try:
        os.remove(path)
    except (OSError, ValueError) as exc:
        raise RuntimeError("failed") from exc
    except Exception:
        raise
    else:
        del a, b[0]
    finally:
        cleanup = lambda x, *y, z=1, **w: x[1:2, ::3]
    result = first if flag else \\
        second
    total += 1; other = -total ** 2 // 3
    assert total, (
        "message"
    )

    def inner(a, *, b):
        nonlocal total
        return (
            a
            + b
        )

    class Nested(Base, metaclass=Meta):
        field: int = 0
        data = {"key": [1, 2.5, 3j, ..., None, True], **extra}

    return print((yield), *values, sep=(
        ", "), key=lambda: (x for x in y))
'''


def _both(text: str, first_line: int = 1):
    converted, starts, ends, _source = ast_convert.convert(text, first_line)
    real = parse_module(text)
    real_starts, real_ends = line_numbers(real, first_line=first_line)
    return converted, starts, ends, real, real_starts, real_ends


def _compare(text: str, first_line: int = 1) -> int:
    converted, starts, ends, real, real_starts, real_ends = _both(text, first_line)
    count = 0
    for mine, theirs in ast_convert.pairs(converted, real):
        count += 1
        kind = type(mine).__name__
        if kind == "Module":
            continue   # a file's header comments; a definition's text starts at its first line
        assert (kind, starts[mine], ends[mine]) == (kind, real_starts[theirs], real_ends[theirs]), code(theirs)
        if isinstance(theirs, cst.BaseExpression) and not isinstance(theirs, cst.StarredElement):
            assert code(mine) == _EMPTY.code_for_node(theirs)
    return count


def test_converted_tree_matches_libcst_on_tricky_code() -> None:
    assert _compare(TRICKY) > 400


def test_indented_definition_keeps_its_module_lines() -> None:
    """A method is parsed under a dummy class header, numbered from its line in the module."""
    method = "class _:\n" + "".join("    " + line if line.strip() else line
                                    for line in TRICKY.split("import os.path as osp\n")[0].splitlines(True))
    method += "    def run(self):\n        return (\n            self.a\n        ).b(\n            1)\n"
    assert _compare(method, first_line=41) > 10


def test_visitors_see_the_same_nodes_in_the_same_order() -> None:
    converted, *_rest, real, _starts, _ends = _both(TRICKY)

    class Recorder(cst.CSTVisitor):
        def __init__(self) -> None:
            self.seen: list[str] = []

        def on_visit(self, node) -> bool:
            if type(node).__name__ in _SEMANTIC:
                self.seen.append(type(node).__name__)
            return not isinstance(node, cst.Lambda)   # a visitor that prunes a subtree

        def on_leave(self, original_node) -> None:
            if type(original_node).__name__ in _SEMANTIC:
                self.seen.append("/" + type(original_node).__name__)

    mine, theirs = Recorder(), Recorder()
    converted.visit(mine)
    real.visit(theirs)
    assert mine.seen == theirs.seen
    assert "FormattedStringExpression" in mine.seen and "CompFor" in mine.seen


def test_children_in_libcst_order() -> None:
    converted, *_rest, real, _starts, _ends = _both(TRICKY)
    for mine, theirs in ast_convert.pairs(converted, real):
        names = [type(c).__name__ for c in theirs.children if type(c).__name__ in _SEMANTIC]
        assert [type(c).__name__ for c in mine.children if type(c).__name__ in _SEMANTIC] == names


def test_isinstance_and_literal_values() -> None:
    converted, *_ = ast_convert.convert('x = b"a" b"\\x00"\ny = 0x1F + 1_000\n', 1)
    concat = converted.body[0].body[0].value
    assert isinstance(concat, cst.ConcatenatedString) and concat.evaluated_value == b"a\x00"
    number = converted.body[1].body[0].value.left
    assert isinstance(number, cst.Integer) and number.value == "0x1F"


def test_statement_text_comes_from_libcst() -> None:
    """Statements print with their comments, which a converted tree does not hold: code() parses
    the definition again with libcst for them."""
    text = "def f():\n    # transaction.commit() here\n    x = 1  # trailing\n"
    converted, *_ = ast_convert.convert(text, 1)
    statement = converted.body[0].body.body[0]
    assert code(statement) == "# transaction.commit() here\nx = 1  # trailing\n"


@pytest.mark.parametrize("text", [
    "def f(x):\n    match x:\n        case 1:\n            return x\n",
    'def f(x):\n    return f"""\n{x}\n"""\n',
    'def f(x):\n    return f"{x=}"\n',
    'def f(x):\n    return ("""\n    many lines\n""")\n',
])
def test_unconverted_constructs_fall_back_to_libcst(text: str) -> None:
    with pytest.raises(ast_convert.Unsupported):
        ast_convert.convert(text, 1)
    assert _converted(None, text, False, 0) is None


def test_parse_definition_falls_back_and_reports_syntax_errors(tmp_path: Path) -> None:
    from analyzer.django.context import Context
    from analyzer.django.files import SourceFile
    from analyzer.django.index import RepoIndex
    text = ("def good(x):\n    return x.save()\n\n\n"
            "def fallback(x):\n    match x:\n        case _:\n            return f'{x=}'\n\n\n"
            "def broken(x):\n    return (x\n")
    index = RepoIndex()
    info = index.add(SourceFile(tmp_path / "code.py", "code.py", text, text.count("\n")))
    ctx = Context(index, {}, {}, {}, {}, {})
    good = ctx.parse_definition(info, "code.good", 1, 2)
    assert ast_convert.is_converted(good.node) and good.line(good.node.body.body[0]) == 2
    fallback = ctx.parse_definition(info, "code.fallback", 5, 8)
    assert not ast_convert.is_converted(fallback.node) and fallback.line(fallback.node) == 5
    assert ctx.parse_definition(info, "code.broken", 11, 12) is None
    assert [d["code"] for d in ctx.diagnostics] == ["parse-error"]
    assert "code.broken: syntax error" in ctx.diagnostics[0]["message"]


def test_real_samples_convert_like_libcst() -> None:
    files = sorted((ROOT / "corpus" / "samples" / "django").rglob("*.py"))
    checked = 0
    for path in files:
        text = path.read_text("utf-8")
        try:
            parse_module(text)
            checked += _compare(text)
        except (cst.ParserSyntaxError, SyntaxError, ast_convert.Unsupported):
            continue
    assert checked > 1000


# A token or expression has parentheses of its own only with a `)` after it, past what
# spans.skip_space passes over: own_parens and _parenthesized_leaf look there first.
PARENS_AFTER = '''\
def f(a, b):
    x = (a  # a comment before the closing parenthesis
    )
    t = (
        a# a comment right after the token
    )
    u = (
        b\\
    )
    y = (b \\
    )
    s = (
        b
    ) + (
        a\r
    )
    z = (
        a
    )
    items = [
        (
            a.b  # an element starts at its own parenthesis
        ),
        (
            b.a
        ),
        g(
            (
                a.c\\
            ),
        ),
    ]
    w = g((a)
    ).h(b
    )
    v = ((a
          )) + (b)\t
    return (x if (y) else (
        z)), ("s"  # text
    ), (1
    )
'''


def test_parentheses_after_a_comment_or_line_break_still_count() -> None:
    assert _compare(PARENS_AFTER) > 50


def test_no_backward_search_without_a_closing_parenthesis(monkeypatch) -> None:
    """own_parens searches backwards (back_space, a scan of the lines before) only for a span a
    `)` follows: a line of plain calls and names makes no such search."""
    from analyzer.django import spans
    searched = []
    real = spans.back_space

    def counting(text: str, i: int) -> int:
        searched.append(i)
        return real(text, i)

    monkeypatch.setattr(spans, "back_space", counting)
    ast_convert.convert("def f(a, b):\n    x = a.b.c(a, b=b)[0]\n    y = x + a * 2\n    return x.y\n", 1)
    assert searched == []
    ast_convert.convert("def f(a):\n    return (a\n    )\n", 1)
    assert searched != []
