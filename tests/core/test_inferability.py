"""Statement inferability in CDA mode pk and auto (docs/VERDICTS.md), valid and invalid cases."""

import pytest

from analyzer.core import Settings, analyze
from ir_builders import AND, NOT, OR, entity, records, src, stmt, term, txn


def infer(statement, mode="pk", entities=None, config=None):
    result = analyze(records(txn(statement), entities=entities), Settings(mode, config or {}))
    return result["transactions"][0]["statements"][0]["inferability"]


CASES = {
    "pk equality": (stmt("s1", predicate=term("pk")), "key"),
    "pk in a list of inputs": (stmt("s1", predicate=term("pk", "in")), "key"),
    "pk plus another attribute": (stmt("s1", predicate=AND(term("pk"), term("status"))), "key"),
    "insert": (stmt("s1", kind="insert"), "insert"),
    "dynamic filter": (stmt("s1", predicate=AND(), dynamic=True), "unknown"),
    "unparsed raw sql": (stmt("s1", kind="raw", predicate=None, api="cursor.execute"), "unknown"),
    "no predicate": (stmt("s1", predicate=AND(), api="all.iterate"), "full-scan"),
    "other attribute": (stmt("s1", predicate=term("email")), "cda-mismatch"),
    "foreign key": (stmt("s1", predicate=term("customer")), "cda-mismatch"),
    "range": (stmt("s1", predicate=term("created", "range")), "range"),
    "null test": (stmt("s1", predicate=term("deleted_at", "null")), "range"),
    "negation": (stmt("s1", predicate=NOT(term("status"))), "range"),
    "pattern": (stmt("s1", predicate=term("name", "pattern")), "pattern"),
    "pattern wins over range": (stmt("s1", predicate=AND(term("name", "pattern"), term("created", "range"))),
                                "pattern"),
    "pk from a read": (stmt("s1", predicate=term("pk", "eq", src("result", "s0"))), "dependent"),
    "or of pk lookups": (stmt("s1", predicate=OR(term("pk"), term("pk"))), "key"),
    "or with a non-key branch": (stmt("s1", predicate=OR(term("pk"), term("email"))), "cda-mismatch"),
    "pk range": (stmt("s1", predicate=term("pk", "range")), "range"),
}


@pytest.mark.parametrize("statement,expected", CASES.values(), ids=CASES.keys())
def test_pk_mode(statement, expected):
    assert infer(statement) == expected


def test_unique_attribute_is_flagged_but_still_a_mismatch_in_pk_mode():
    result = analyze(records(txn(stmt("s1", predicate=term("email"))), entities=[entity(unique=[["email"]])]))
    statement = result["transactions"][0]["statements"][0]
    assert statement["inferability"] == "cda-mismatch"
    assert "unique-key" in statement["flags"]


def test_auto_mode_chooses_the_chain_covering_most_statements():
    statements = [stmt(f"s{i}", predicate=term("email"), line=i) for i in range(1, 4)]
    statements.append(stmt("s9", predicate=term("pk"), line=9))
    statements.append(stmt("s10", predicate=term("owner"), line=10))
    result = analyze(records(*[txn(s, line=s["line"]) for s in statements]), Settings("auto"))
    assert result["cda"]["Account"]["attributes"] == ["email"]
    by_line = {t["line"]: t["statements"][0]["inferability"] for t in result["transactions"]}
    assert by_line[1] == "key"          # on the chosen chain
    assert by_line[9] == "key"          # a primary-key lookup is never a mismatch
    assert by_line[10] == "cda-mismatch"  # off the chain


def test_auto_mode_composite_chain_accepts_prefixes():
    sets = [AND(term("tenant"), term("slug"))] * 2 + [term("tenant")] + [term("owner")]
    result = analyze(records(*[txn(stmt("s1", predicate=p, line=i), line=i) for i, p in enumerate(sets, 1)]),
                     Settings("auto"))
    assert result["cda"]["Account"]["attributes"] == ["slug", "tenant"]
    by_line = {t["line"]: t["statements"][0]["inferability"] for t in result["transactions"]}
    assert by_line == {1: "key", 2: "key", 3: "key", 4: "cda-mismatch"}


def test_configured_cda_overrides_both_modes():
    assert infer(stmt("s1", predicate=term("email")), "pk", config={"Account": ["email"]}) == "key"
    assert infer(stmt("s1", predicate=term("owner")), "auto", config={"Account": ["email"]}) == "cda-mismatch"


def test_transaction_rw_set_levels():
    def level(*statements):
        return analyze(records(txn(*statements)))["transactions"][0]["rw_inferable"]

    assert level() == "full"
    assert level(stmt("s1", predicate=term("pk")), stmt("s2", kind="insert")) == "full"
    assert level(stmt("s1", predicate=term("pk")), stmt("s2", predicate=term("email"))) == "partial"
    assert level(stmt("s1", predicate=term("email"))) == "none"


def test_symbolic_sets():
    result = analyze(records(txn(
        stmt("s1", predicate=term("pk", "eq", src("input", "from_id"))),
        stmt("s2", kind="insert", entity="Transfer"),
        stmt("s3", kind="write", predicate=term("owner", "eq", src("result", "s1"))),
    ), entities=[entity(), entity("Transfer")]))["transactions"][0]
    assert result["read_set"] == ["Account[pk=$from_id]"]
    assert result["write_set"] == ["Account[owner=@s1]", "Transfer[new]"]


def test_reconnaissance_suggestion_for_a_mismatch():
    result = analyze(records(txn(stmt("s1", predicate=term("email", "eq", src("input", "email"))))))
    suggestion = result["transactions"][0]["suggestions"][0]
    assert suggestion["kind"] == "reconnaissance"
    # The core speaks in prose; code comes only from a verified rewrite (analyzer.rewrite).
    assert suggestion["code"] == "" and not suggestion["verified"] and not suggestion["makes_inferable"]
    assert "Account rows are selected by email" in suggestion["explanation"]


FLAG_CASES = {
    "pattern on another attribute": (term("username", "pattern"), "pattern", True),
    "range on another attribute": (term("created", "range"), "range", True),
    "range on the primary key": (term("pk", "range"), "range", False),
    "subquery on another attribute": (term("tags", "other"), "unknown", True),
    "equality on another attribute": (term("email"), "cda-mismatch", True),
    "primary key": (term("pk"), "key", False),
}


@pytest.mark.parametrize("predicate,category,mismatch", FLAG_CASES.values(), ids=FLAG_CASES.keys())
def test_cda_mismatch_flag_holds_whatever_the_category(predicate, category, mismatch):
    result = analyze(records(txn(stmt("s1", predicate=predicate))))
    statement = result["transactions"][0]["statements"][0]
    assert statement["inferability"] == category
    assert ("cda-mismatch" in statement["flags"]) is mismatch


def across(attribute: str, lookup: str, *hops: tuple[str, str]) -> dict:
    """A term whose lookup joins other tables, each (entity, attribute selected there)."""
    found = term(attribute, lookup=lookup)
    found["across"] = [{"entity": e, "attribute": a} for e, a in hops]
    return found


ACROSS = {
    "pk pinned, target by a non-key column": (
        AND(term("pk"), across("tags", "tags__name", ("Account.tags", "tag"), ("Tag", "name"))), {}, "cda-mismatch"),
    "pk pinned, target by its key": (AND(term("pk"), across("owner", "owner__pk", ("User", "pk"))), {}, "key"),
    "pk pinned, target by its configured CDA": (
        AND(term("pk"), across("owner", "owner__email", ("User", "email"))), {"User": ["email"]}, "key"),
    "pk pinned, target by another column than its configured CDA": (
        AND(term("pk"), across("owner", "owner__name", ("User", "name"))), {"User": ["email"]}, "cda-mismatch"),
}


@pytest.mark.parametrize("predicate,config,expected", ACROSS.values(), ids=ACROSS.keys())
def test_joined_tables_are_judged_by_their_own_cda(predicate, config, expected):
    assert infer(stmt("s1", predicate=predicate), config=config) == expected
