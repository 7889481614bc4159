"""Dispatch over values that are one of several: each statement reached through a candidate
records, in `via`, how many candidates there were (the over-approximation), and the untyped
parameters of a transaction take the union of what the application's callers pass."""

from __future__ import annotations

from conftest import FIXTURES, scan_cached


def _transaction(fixture: str, function: str) -> dict:
    analysis = scan_cached(str(FIXTURES / "django" / fixture), "django").analyses["pk"]
    return next(t for t in analysis["transactions"] if t["function"] == function)


def test_parameter_rows_are_the_union_of_the_callers_arguments():
    txn = _transaction("interproc_parameter_union", "crew.bulk.store_all")
    inserts = {(s["entity"], tuple(s["via"])) for s in txn["statements"] if s["kind"] == "insert"}
    assert inserts == {("Crew", ("<dispatch row.save: 2 candidates>",)),
                       ("Shift", ("<dispatch row.save: 2 candidates>",))}
    # The callback passed by one caller (a bound method) sends the email; the default does not.
    assert [r["category"] for r in txn["reasons"]] == ["email"]


def test_a_model_class_parameter_dispatches_over_the_models_passed():
    txn = _transaction("interproc_parameter_union", "crew.bulk.reorder")
    assert sorted((s["entity"], s["via"][0]) for s in txn["statements"]) == [
        ("Crew", "<dispatch model: 2 candidates>"), ("Shift", "<dispatch model: 2 candidates>")]


def test_without_callers_the_parameter_stays_unresolved():
    txn = _transaction("interproc_parameter_union", "crew.bulk.unused_helper")
    assert txn["complete"] is False
    assert {i["reason"] for i in txn["incomplete"]} == {"unresolved-receiver", "no-statement-found"}


def test_dict_and_getattr_candidates_are_counted_in_via():
    exported = _transaction("interproc_dynamic_lookup", "desk.services.dump_everything")
    assert {s["via"][-1] for s in exported["statements"]} == {"<dispatch queryset.iterator: 2 candidates>"}
    archived = _transaction("interproc_dynamic_lookup", "desk.services.Archiver.archive_all")
    assert {s["via"][0] for s in archived["statements"]} == {"<dispatch getattr(self, step): 2 candidates>"}
    handled = _transaction("interproc_dynamic_lookup", "desk.services.apply_action")
    assert {s["via"][0] for s in handled["statements"]} == {"<dispatch actions[action]: 2 candidates>"}


def test_callers_arguments_are_found_with_an_unbounded_depth(monkeypatch):
    """With no depth bound the callers' own helpers are still followed a bounded way (it used to
    fail on `None - CALLER_DEPTH`)."""
    from analyzer import scan as scan_module
    from analyzer.config import Config

    monkeypatch.setitem(scan_module.DEFAULT_DEPTH, "django", None)
    result = scan_module.scan(FIXTURES / "django" / "interproc_parameter_union", Config(), "django")
    txn = next(t for t in result.analyses["pk"]["transactions"] if t["function"] == "crew.bulk.store_all")
    assert {s["entity"] for s in txn["statements"] if s["kind"] == "insert"} == {"Crew", "Shift"}
    assert [r["category"] for r in txn["reasons"]] == ["email"]
