"""The walk's values (analyzer/django/values.py): Val and QuerySet write their __init__ out for
speed, and `replace` copies them without dataclasses.replace's bookkeeping; both must behave as
the dataclass versions do."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from analyzer.django.values import QuerySet, Val, replace


@pytest.mark.parametrize("cls", [Val, QuerySet])
def test_the_written_out_init_takes_the_fields_in_order_with_their_defaults(cls):
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    fields = dataclasses.fields(cls)
    assert [p.name for p in parameters] == [f.name for f in fields]
    for parameter, field in zip(parameters, fields):
        expected = inspect.Parameter.empty if field.default is dataclasses.MISSING else field.default
        assert parameter.default == expected, field.name


def test_a_val_is_built_frozen_equal_and_hashed_by_its_fields():
    qs = QuerySet("Order", chain=("filter",), uses=frozenset({"s1"}))
    made = Val("qs", frozenset({("result", "s1")}), entity="Order", qs=qs)
    assert made == Val(kind="qs", sources=frozenset({("result", "s1")}), entity="Order", qs=qs)
    assert hash(made) == hash(Val("qs", frozenset({("result", "s1")}), entity="Order", qs=qs))
    assert list(vars(made)) == [f.name for f in dataclasses.fields(Val)]
    assert made.prefetched == frozenset() and made.attrs == () and made.text == ""
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.kind = "plain"


@pytest.mark.parametrize("value", [
    Val("instance", frozenset({("input", "order")}), entity="Order", key=frozenset({("input", "order.pk")})),
    QuerySet("Order", predicates=({"attribute": "pk"},), lock=True),
])
def test_replace_gives_what_dataclasses_replace_gives(value):
    field = "entity"
    ours, theirs = replace(value, **{field: "Line"}), dataclasses.replace(value, **{field: "Line"})
    assert ours == theirs and type(ours) is type(theirs) and vars(ours) == vars(theirs)
    assert list(vars(ours)) == list(vars(theirs))
    assert getattr(value, field) == "Order"  # the original is left as it was
    with pytest.raises(TypeError):
        replace(value, no_such_field=1)


def test_replace_hands_other_dataclasses_to_dataclasses_replace():
    @dataclasses.dataclass
    class Other:
        a: int = 0

    assert replace(Other(1), a=2) == Other(2)


def test_a_constant_is_the_literal_value_made_once():
    from analyzer.django import values
    from analyzer.django.values import constant

    text = "'a literal longer than forty characters, cut in its source'"
    made = constant(text)
    assert made == Val("plain", frozenset({("constant", text[:40])}), text=text)
    assert constant(text) is made  # shared: the walk meets the same literals at every call
    assert constant() == Val("plain", frozenset({("constant", "")}), text="")
    values._CONSTANTS.clear()
    assert constant(text) == made and constant(text) is not made  # made again once forgotten


def test_the_end_of_the_walks_forgets_the_shared_literals():
    from types import SimpleNamespace

    from analyzer.django import summaries, values
    from analyzer.django.values import constant

    made = constant("'kept until the walks end'")
    ctx = SimpleNamespace(summaries=object(), signatures={"a definition": "its signature"})
    summaries.release(ctx)
    assert ctx.summaries is None and ctx.signatures == {} and not values._CONSTANTS
    assert constant("'kept until the walks end'") is not made
