"""Call-context keys hashed once (analyzer/django/summaries.py, ContextKey).

A key must partition calling contexts exactly as the frozen form of the context (freeze()) did:
two calls share a summary or an instance when, and only when, their frozen contexts are equal.
"""

from __future__ import annotations

import pytest

from analyzer import config
from analyzer.config import Config
from analyzer.django.summaries import CallContext, ContextKey, freeze
from analyzer.django.values import Val, constant
from analyzer.scan import scan
from conftest import FIXTURES, SAMPLES

DJANGO_PROJECTS = sorted(p.parent for p in (FIXTURES / "django").glob("*/expected.json")) + \
    sorted(p for p in (SAMPLES / "django").iterdir() if p.is_dir())


def _contexts_of(project, monkeypatch) -> list[tuple]:
    """(key, frozen canonical context) of every call context the scan of `project` makes."""
    made: list[tuple] = []
    original = ContextKey.of

    def recording(canonical):
        key = original(canonical)
        made.append((key, freeze(canonical)))
        return key

    monkeypatch.setattr(ContextKey, "of", staticmethod(recording))
    settings = config.load(project) if (project / "pyproject.toml").is_file() else Config()
    scan(project, settings, "django", rewrites=False)
    return made


@pytest.mark.parametrize("project", DJANGO_PROJECTS, ids=lambda p: p.name)
def test_keys_partition_contexts_as_their_frozen_forms(project, monkeypatch):
    made = _contexts_of(project, monkeypatch)
    frozen_of_key: dict = {}
    key_of_frozen: dict = {}
    for key, frozen in made:
        assert frozen_of_key.setdefault(key, frozen) == frozen  # equal keys: equal contexts
        assert key_of_frozen.setdefault(frozen, key) == key     # equal contexts: equal keys
        assert hash(key) == hash(key_of_frozen[frozen])
    assert len(frozen_of_key) == len(key_of_frozen)


def test_the_samples_make_contexts_that_are_looked_up_by_these_keys(monkeypatch):
    made = _contexts_of(SAMPLES / "django" / "shop", monkeypatch)
    assert made and all(type(key) is ContextKey for key, _frozen in made)
    assert len({key for key, _frozen in made}) < len(made)  # some contexts recur: the key is what finds them


def test_a_context_holding_a_dict_is_keyed_by_its_frozen_form():
    predicate = {"attribute": "pk", "op": "=", "sources": [{"kind": "input", "name": "pk"}]}
    q = Val("q", frozenset({("input", "pk")}), predicate=predicate)
    first = CallContext("app.helpers.find", [q], (), None, False, False)
    again = CallContext("app.helpers.find", [Val("q", frozenset({("input", "pk")}), predicate=dict(predicate))],
                        (), None, False, False)
    other = CallContext("app.helpers.find", [Val("q", frozenset({("input", "pk")}), predicate={"op": "="})],
                        (), None, False, False)
    assert first.key == again.key and hash(first.key) == hash(again.key)
    assert first.key != other.key
    assert first.key.parts[0] == "T"  # the frozen form (a dict cannot be hashed as it is)


def test_step_ids_become_placeholders_in_the_key():
    read_one = Val("instance", frozenset({("result", "s3")}), entity="Account", origin="s3")
    read_two = Val("instance", frozenset({("result", "s9")}), entity="Account", origin="s9")
    first = CallContext("app.helpers.charge", [read_one, constant("1")], (), None, False, False)
    second = CallContext("app.helpers.charge", [read_two, constant("1")], (), None, False, False)
    in_loop = CallContext("app.helpers.charge", [read_two, constant("1")], (), None, True, False)
    assert first.key == second.key and hash(first.key) == hash(second.key)
    assert first.from_placeholder == {"#0": "s3"} and second.from_placeholder == {"#0": "s9"}
    assert in_loop.key != second.key
