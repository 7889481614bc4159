"""Parameters worked out once per definition (analyzer/django/parameters.py): the Signature a
walk binds and types a call's arguments with must be what the definition gives when worked out
again, and every walk of a definition after its first must take the kept one."""

from __future__ import annotations

import pytest

from analyzer.django import parameters, walker
from analyzer.django.values import Val, constant
from conftest import SAMPLES, django_projects, record_calls

def _scan_recording(projects, monkeypatch) -> list[tuple]:
    """(ctx, definition, fn, signature handed out) of every signature_of call of the scans."""
    return record_calls(monkeypatch, parameters, "signature_of", projects, replaced_in=walker)


def _fields(signature: parameters.Signature) -> tuple:
    return (signature.receiver, signature.receiver_class, signature.ordered, signature.star_arg,
            signature.keyword_only, signature.star_kwarg, signature.typed)


@pytest.mark.parametrize("project", django_projects(), ids=lambda p: p.name)
def test_a_kept_signature_is_the_one_worked_out_again(project, monkeypatch):
    for ctx, definition, fn, signature in _scan_recording([project], monkeypatch):
        assert _fields(signature) == _fields(parameters._signature(definition, fn))
        parsed = ctx.parse_definition(ctx.index.modules[fn.module], fn.qualname, fn.line, fn.end_line)
        for name, param in signature.typed:
            if name in signature.entities:
                fresh = parameters._annotation_entity(ctx, parsed, param) or (
                    ctx.entity_by_param_name.get(name) if param.annotation is None else None)
                assert signature.entities[name] is fresh


def test_helpers_walked_again_take_the_kept_signature(monkeypatch):
    asked = _scan_recording([SAMPLES / "django" / "shop"], monkeypatch)
    by_definition: dict = {}
    for _ctx, definition, _fn, signature in asked:
        by_definition.setdefault(id(definition), set()).add(id(signature))
    assert len(asked) > len(by_definition)  # definitions walked more than once
    assert all(len(kept) == 1 for kept in by_definition.values())


def test_binding_follows_the_signature():
    source = "class Ledger:\n    def post(self, account, amount=5, *rest, note=None, **extra):\n        pass\n"
    from analyzer.django.ast_convert import convert
    module, _starts, _ends, _text = convert(source, 1)
    definition = module.body[0].body.body[0]

    class Fn:
        cls = "app.Ledger"
        decorators: list = []

    signature = parameters._signature(definition, Fn())
    account = Val("instance", frozenset({("result", "s1")}), entity="Account", origin="s1")
    env = walker.bind_parameters(signature, [account, constant("7"), constant("8")], [("flag", constant("1"))], None)
    assert list(env) == ["self", "account", "amount", "rest", "note", "extra"]
    assert env["self"] == Val("self", ref="app.Ledger")
    assert env["amount"] == constant("7") and env["note"] == constant("None")
    assert env["rest"].items == (constant("8"),)
    assert walker.bind_parameters(signature, [account], [], None)["amount"] == constant("5")
