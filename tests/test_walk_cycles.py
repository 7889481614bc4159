"""A transaction's walk makes no reference cycles, so it runs without collector passes
(process.acyclic_work): literals.py reads literals as ast.literal_eval does, without the cycles
ast.literal_eval leaves behind, and every walk of every Django fixture and sample leaves no
cyclic garbage."""

from __future__ import annotations

import ast
import gc
import re

import libcst as cst
import pytest

from analyzer import forked, process
from analyzer.config import Config
from analyzer.django import ast_convert, literals, transactions
from analyzer.process import acyclic_work, large_heap_pace, short_lived
from analyzer.scan import scan
from conftest import django_projects, record_calls

pytestmark = pytest.mark.usefixtures("collector_on")

TEXTS = [
    "'order'", '"order"', "'''a\nb'''", "r'\\d+'", "b'raw'", "u'x'", "'a' 'b'", "  'indented'", "\t7",
    "0", "42", "-1", "+1", "0x1F", "1_000", "3.5", "1e-3", "2j", "1+2j", "-1-2j", "None", "True", "False",
    "()", "(1,)", "(1, 'a')", "[1, [2]]", "{1, 2}", "set()", "{'a': 1}", "{'a': [1]}", "{**a}",
    "Value", "defaultdict", "instance.__class__.__name__", "WebhookEventAsyncType.PERMISSIONS.get",
    "list()", "f(x)", "x + 1", "-x", "not True", "a if b else c", "lambda: 1", "[x for x in y]",
    "default:retries", "", "'unterminated", "1 +", "f'{x}'", "...", "Ellipsis", "(yield)",
]


def outcome(evaluate, text):
    try:
        value = evaluate(text)
    except Exception as exc:  # noqa: BLE001 - the exception is the outcome compared
        return ("raises", type(exc), re.sub(r" at 0x[0-9a-f]+", "", str(exc)))  # (the node's address)
    return ("value", type(value), repr(value))


@pytest.mark.parametrize("text", TEXTS)
def test_literal_eval_gives_what_ast_literal_eval_gives(text):
    assert outcome(literals.literal_eval, text) == outcome(ast.literal_eval, text)


def test_literal_eval_equals_ast_literal_eval_on_every_fixture(monkeypatch):
    texts = []
    original = literals.literal_eval

    def recording(text):
        texts.append(text)
        return original(text)

    monkeypatch.setattr(literals, "literal_eval", recording)
    for project in django_projects():
        scan(project, Config(), "django", rewrites=False)
    assert texts
    for text in texts:
        assert outcome(original, text) == outcome(ast.literal_eval, text)


@pytest.mark.parametrize("text", [
    "'a' 'b'", "b'a' b'b'", "'a' 'b' 'c'", "'a' f'{b}'", "f'{a}' 'b'", "'x'", "r'\\d' '+'", "'a' 'b' f'{c}'",
    "'a' \\\n 'b'",
])
def test_string_value_is_libcst_evaluated_value(text):
    converted = ast_convert.convert_expression(text)
    expected = outcome(lambda _: converted.evaluated_value, text)  # libcst's property, on its subclass
    assert outcome(lambda _: literals.string_value(converted), text) == expected
    try:
        parsed = cst.parse_expression(text)
    except cst.CSTValidationError:
        return  # libcst refuses to build str and bytes concatenated; the converted tree has them
    assert outcome(lambda _: parsed.evaluated_value, text) == expected
    assert outcome(lambda _: literals.string_value(parsed), text) == expected


def test_string_value_equals_evaluated_value_on_every_fixture(monkeypatch):
    calls = record_calls(monkeypatch, literals, "string_value", django_projects())
    assert calls
    for node, value in calls:
        assert node.evaluated_value == value and type(node.evaluated_value) is type(value)


def cyclic_garbage(work) -> list:
    """The objects only the collector would free that `work()` leaves behind."""
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        work()
        gc.collect()
        return list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def composite(text: str) -> bool:
    try:
        return type(ast.parse(text.lstrip(" \t"), mode="eval").body) in literals._COMPOSITE
    except SyntaxError:
        return False


def test_literals_leave_no_cyclic_garbage_where_ast_literal_eval_does():
    def read(evaluate, texts):
        for text in texts:
            try:
                evaluate(text)
            except Exception:  # noqa: BLE001 - refused texts must leave nothing either
                pass

    # A container or a signed number still goes through ast.literal_eval (none is read in a
    # fixture's or a real application's walk); constants, names and the rest leave nothing.
    read_by_the_walk = [text for text in TEXTS if not composite(text)]
    assert cyclic_garbage(lambda: read(ast.literal_eval, read_by_the_walk))  # what literals.py avoids
    assert cyclic_garbage(lambda: read(literals.literal_eval, read_by_the_walk)) == []


def test_no_walk_of_any_fixture_leaves_cyclic_garbage(monkeypatch):
    monkeypatch.setenv(forked.ENV, "0")
    walk = transactions._walk_transaction
    left: dict[str, list] = {}

    def observed(ctx, parsed, boundary):
        result = []
        garbage = cyclic_garbage(lambda: result.append(walk(ctx, parsed, boundary)))
        if garbage:
            left[f"{parsed.info.rel}:{boundary.line}"] = sorted({getattr(o, "__qualname__", type(o).__name__) for o in garbage if callable(o)})
        return result[0]

    monkeypatch.setattr(transactions, "_walk_transaction", observed)
    for project in django_projects():
        scan(project, Config(), "django", rewrites=False)
    assert left == {}, repr(left)


def test_a_scan_walks_transactions_without_passes_and_freezes_what_they_leave(monkeypatch):
    monkeypatch.setenv(forked.ENV, "0")
    walk = transactions._walk_transaction
    during, kept = [], []

    def observed(ctx, parsed, boundary):
        during.append(gc.isenabled())
        return walk(ctx, parsed, boundary)

    outer = transactions.walk_transaction

    def returned(*args):
        result = outer(*args)
        kept.append(gc.is_tracked(result[0]) and not any(o is result[0] for o in gc.get_objects()))
        return result

    monkeypatch.setattr(transactions, "_walk_transaction", observed)
    monkeypatch.setattr(transactions, "walk_transaction", returned)
    for project in django_projects()[:12]:
        scan(project, Config(), "django", rewrites=False)
    assert during and not any(during)  # no pass while walking
    assert kept and all(kept)  # the transaction made is frozen, out of the passes' view
    assert gc.isenabled()


def test_acyclic_work_leaves_the_collector_alone_outside_a_paced_scan():
    with acyclic_work():
        assert gc.isenabled()  # no scan's pace: a caller's own settings
    with large_heap_pace(), short_lived(), acyclic_work():
        assert gc.isenabled()  # work whose structures die before the scan ends: collected as usual
    with large_heap_pace():
        frozen = gc.get_freeze_count()
        with acyclic_work():
            assert not gc.isenabled()
            made = [[n] for n in range(5)]
        assert gc.isenabled() and gc.get_freeze_count() > frozen
        assert not any(o is made for o in gc.get_objects())
    assert process._paced is False
