"""Symbolic read/write sets: `Account[pk=$from_id]`, `Order[new]`, `Line[order=@s1.pk]`."""

from __future__ import annotations

from .flatten import predicate_terms

_OPS = {"eq": "=", "in": " in ", "range": "~", "pattern": " like ", "null": " is null", "ne": "!=", "other": "?"}
WRITE_KINDS = ("write", "insert", "delete")


def render_source(source: dict) -> str:
    kind = source["kind"]
    if kind == "input":
        return "$" + source.get("name", "input")
    if kind == "constant":
        return source.get("name", "const")
    if kind == "result":
        return "@" + source.get("step", "?")
    if kind == "generated":
        return "@" + source.get("step", "?") + ".pk"
    if kind == "expression":
        return "expr"
    if kind == "external":
        return "ext@" + source.get("step", "?")
    return "?"


def render_term(term: dict) -> str:
    op = _OPS.get(term["op"], "?")
    if term["op"] == "null":
        return term["attribute"] + op
    values = "|".join(sorted({render_source(s) for s in term["sources"]})) or "?"
    return f"{term['attribute']}{op}{values}"


def render(statement: dict, inferability: str) -> str:
    entity = statement.get("entity") or "?"
    if inferability == "insert":
        return f"{entity}[new]"
    if inferability == "full-scan":
        return f"{entity}[*]"
    terms = predicate_terms(statement.get("predicate"))
    if inferability == "unknown" or not terms:
        return f"{entity}[?]"
    return f"{entity}[{', '.join(sorted({render_term(t) for t in terms}))}]"


def is_write(statement: dict) -> bool:
    if statement["kind"] == "raw":
        sql = statement.get("sql", "").lstrip().lower()
        return not sql.startswith(("select", "with"))
    return statement["kind"] in WRITE_KINDS
