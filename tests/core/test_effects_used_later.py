"""Which effects a later step depends on, found without the dependency graph
(core/graph.py effects_used_later): the answer must be the graph's, repeats and their binds
included, and a transaction with an effect must not build the graph at all."""

from __future__ import annotations

import pytest

from analyzer import config
from analyzer.config import Config
from analyzer.core import analyze, graph
from analyzer.core.flatten import flatten
from analyzer.scan import scan
from conftest import django_projects
from ir_builders import branch, effect, records, src, stmt, txn


def repeat(sid: str, same_as: list[str], bind: dict | None = None) -> dict:
    step = {"node": "repeat", "id": sid, "file": "app/services.py", "line": 1, "via": [], "same_as": same_as}
    if bind:
        step["bind"] = bind
    return step


def from_graph(steps: list[dict]) -> set[str]:
    deps = graph.build(flatten(steps))
    return {source for source, _dst, _kinds in deps.edges() if deps.node(source) == "effect"}


CASES = {
    "no effect": ([stmt("s1"), stmt("s2", uses=["s1"])], set()),
    "effect nobody uses": ([effect("s1"), stmt("s2")], set()),
    "statement uses the effect": ([effect("s1"), stmt("s2", uses=["s1"])], {"s1"}),
    "branch on the effect's result": ([effect("s1"), branch([src("external", "s1")], [stmt("s2")], [])], {"s1"}),
    "a later effect is no source": ([stmt("s2", uses=["s1"]), effect("s1")], set()),
    # the repeat's copy of s2 reads the effect instead of s1
    "bound to the effect": ([stmt("s1"), stmt("s2", uses=["s1"]), effect("s3"),
                             repeat("s4", ["s2"], {"s1": "s3"})], {"s3"}),
    # the inner repeat binds s1 to s3, the outer one s3 to the effect
    "bound through a bind": ([stmt("s1"), stmt("s2", uses=["s1"]), stmt("s3"), repeat("s4", ["s2"], {"s1": "s3"}),
                              effect("s5"), repeat("s6", ["s4"], {"s3": "s5"})], {"s5"}),
    # a source inside the repeated instance is not rebound
    "bound source inside the instance": ([stmt("s1"), stmt("s2", uses=["s1"]), effect("s3"),
                                          repeat("s4", ["s1", "s2"], {"s1": "s3"})], set()),
    # bound to an effect that comes after the repeat: no dependency on a later step
    "bound to a later effect": ([stmt("s1"), stmt("s2", uses=["s1"]), repeat("s3", ["s2"], {"s1": "s4"}),
                                 effect("s4")], set()),
    # two steps of one id: the later one's sources are the id's, as in the graph
    "an id met twice": ([effect("s1"), stmt("s2"), stmt("s3", uses=["s1"]), stmt("s3", uses=["s2"])], set()),
    "repeat under a branch on the effect": ([effect("s1"), stmt("s2"),
                                             branch([src("external", "s1")], [repeat("s3", ["s2"])], [])], {"s1"}),
}


@pytest.mark.parametrize("steps,used", CASES.values(), ids=CASES.keys())
def test_equals_the_graph(steps, used):
    assert from_graph(steps) == used
    assert graph.effects_used_later(flatten(steps)) == used


@pytest.mark.parametrize("project", django_projects(), ids=lambda p: p.name)
def test_equals_the_graph_on_every_transaction(project):
    settings = config.load(project) if (project / "pyproject.toml").is_file() else Config()
    result = scan(project, settings, "django", rewrites=False)
    for record in result.records:
        if record["type"] == "transaction":
            assert graph.effects_used_later(flatten(record["steps"])) == from_graph(record["steps"]), record["id"]


def test_a_transaction_with_an_effect_builds_no_graph(monkeypatch):
    def refused(_flat):
        raise AssertionError("the graph was built for a strictly interactive transaction")

    steps = [stmt("s1"), effect("s2", uses=["s1"]), stmt("s3", uses=["s2"]), effect("s4")]
    expected = from_graph(steps)
    monkeypatch.setattr(graph, "build", refused)
    verdict = analyze(records(txn(*steps)))["transactions"][0]
    assert verdict["interactivity"] == "interactive-strict"
    # the on-commit suggestion names only the effect no later step uses
    assert expected == {"s2"}
    assert [s["statement"] for s in verdict["suggestions"] if s["kind"] == "on-commit"] == ["s4"]
