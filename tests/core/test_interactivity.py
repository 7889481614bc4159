"""Interactivity rules (docs/VERDICTS.md): valid (one-shot) and invalid (interactive) cases."""

import pytest

from analyzer.core import analyze
from ir_builders import branch, effect, loop, records, src, stmt, term, txn


def verdict(*steps):
    result = analyze(records(txn(*steps)))["transactions"][0]
    return result["interactivity"], sorted({r["category"] for r in result["reasons"]})


ONE_SHOT = {
    "empty transaction": [],
    "single statement": [stmt("s1", predicate=term("pk"))],
    "independent statements": [stmt("s1", predicate=term("pk")), stmt("s2", kind="write", predicate=term("pk"))],
    "database-side arithmetic": [stmt("s1", kind="write", predicate=term("pk"),
                                      values=[{"attribute": "balance", "sources": [src("expression", "F(balance)")]}])],
    "loop over an input": [loop([src("input", "items")], stmt("s1", kind="insert"))],
    "branch on an input": [branch([src("input", "flag")], [stmt("s1", predicate=term("pk"))], [])],
}

INTERACTIVE = {
    "read-modify-write": ([stmt("s1", predicate=term("pk")),
                           stmt("s2", kind="write", predicate=term("pk"), uses=["s1"])], ["read-modify-write"]),
    "key from a read": ([stmt("s1", predicate=term("email")),
                         stmt("s2", kind="write", predicate=term("pk", "eq", src("result", "s1")))], ["dependent-key"]),
    "generated id": ([stmt("s1", kind="insert"),
                      stmt("s2", kind="insert", values=[{"attribute": "order", "sources": [src("generated", "s1")]}])],
                     ["generated-key"]),
    "exists then insert": ([stmt("s1", api="exists", predicate=term("email")),
                            branch([src("result", "s1")], [stmt("s2", kind="insert")], [])], ["conditional"]),
    "loop over fetched rows": ([stmt("s1", api="filter.iterate", predicate=term("owner")),
                                loop([src("result", "s1")], stmt("s2", kind="delete",
                                                                  predicate=term("pk", "eq", src("result", "s1"))))],
                               ["dependent-key", "loop-over-results"]),
}


@pytest.mark.parametrize("steps", ONE_SHOT.values(), ids=ONE_SHOT.keys())
def test_one_shot(steps):
    assert verdict(*steps) == ("one-shot", [])


@pytest.mark.parametrize("steps,reasons", INTERACTIVE.values(), ids=INTERACTIVE.keys())
def test_nonstrict(steps, reasons):
    assert verdict(*steps) == ("interactive-nonstrict", reasons)


def test_any_effect_is_strict_even_without_dependencies():
    assert verdict(stmt("s1", predicate=term("pk")), effect("s2", "email", "django.core.mail.send_mail")) == (
        "interactive-strict", ["email"])


def test_strict_reasons_name_every_effect():
    result = analyze(records(txn(effect("s1", "http"), effect("s2", "sleep", "time.sleep", line=3))))
    reasons = result["transactions"][0]["reasons"]
    assert [(r["category"], r["callee"], r["line"]) for r in reasons] == [
        ("http", "requests.post", 1), ("sleep", "time.sleep", 3)]


def test_unresolved_steps_do_not_change_the_verdict():
    unresolved = {"node": "unresolved", "file": "app/services.py", "line": 2, "via": [], "callee": "handler",
                  "reason": "callable held in a variable"}
    assert verdict(stmt("s1", predicate=term("pk")), unresolved) == ("one-shot", [])


def test_reference_to_a_later_step_is_not_a_dependency():
    # A loop body may name a step that runs after it in program order: not a dependency.
    assert verdict(stmt("s1", predicate=term("pk", "eq", src("result", "s2"))), stmt("s2", predicate=term("pk"))) == (
        "one-shot", [])


def test_suggestions_follow_the_verdict():
    rmw = analyze(records(txn(stmt("s1", predicate=term("pk", "eq", src("input", "account_id"))),
                              stmt("s2", kind="write", predicate=term("pk", "eq", src("input", "account_id")),
                                   uses=["s1"], values=[{"attribute": "balance", "sources": [src("result", "s1")],
                                                         "text": "account.balance - amount"}]))))
    suggestion = rmw["transactions"][0]["suggestions"][0]
    assert suggestion["kind"] == "one-shot" and suggestion["pattern"] == "read-modify-write"
    # Never assumed: only re-analysis of a verified rewrite sets makes_one_shot and shows code.
    assert suggestion["makes_one_shot"] is False and suggestion["code"] == ""
    assert "The Account value written is computed from a value read" in suggestion["explanation"]
    strict = analyze(records(txn(stmt("s1", predicate=term("pk")), effect("s2"))))["transactions"][0]
    assert [s["kind"] for s in strict["suggestions"]] == ["on-commit"]
    assert strict["suggestions"][0]["makes_one_shot"] is False and strict["suggestions"][0]["code"] == ""


def _nest(depth: int) -> list:
    """`depth` branches, each on the result of a read just before it, nested inside each other,
    with a write at the bottom; the read before branch k is s{k}, the write s{depth + 1}."""
    inner = [stmt(f"s{depth + 1}", kind="write", predicate=term("pk"), line=depth + 1)]
    for level in range(depth, 0, -1):
        inner = [stmt(f"s{level}", predicate=term("pk"), line=level), branch([src("result", f"s{level}")], inner, [])]
    return inner


def test_every_enclosing_branch_controls_a_nested_statement():
    """Control dependencies are gathered per branch scope: the write at the bottom of a nest
    depends on the read deciding each branch around it, the read before branch k on the k - 1
    branches around that read, and nothing else."""
    depth = 60
    result = analyze(records(txn(*_nest(depth))))["transactions"][0]
    pairs = {(r["depends_on"], r["statement"]) for r in result["reasons"]}
    assert {r["category"] for r in result["reasons"]} == {"conditional"}
    expected = {(f"s{k}", f"s{later}") for later in range(2, depth + 2) for k in range(1, later)}
    assert pairs == expected


def test_a_branch_repeated_around_a_loop_gives_each_kind_once():
    """The same read deciding an enclosing loop and a branch inside it: one dependency with
    both kinds, each kind's reason once."""
    steps = [stmt("s1", api="filter.iterate", predicate=term("owner")),
             loop([src("result", "s1")], branch([src("result", "s1")], [stmt("s2", kind="write", predicate=term("pk"))], []))]
    assert verdict(*steps) == ("interactive-nonstrict", ["conditional", "loop-over-results"])
    reasons = analyze(records(txn(*steps)))["transactions"][0]["reasons"]
    assert sorted((r["category"], r["depends_on"], r["statement"]) for r in reasons) == [
        ("conditional", "s1", "s2"), ("loop-over-results", "s1", "s2")]
