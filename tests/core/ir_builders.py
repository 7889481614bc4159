"""Small builders of IR records for core tests (the shapes of docs/IR.md)."""

from __future__ import annotations

_counter = {"n": 0}


def src(kind: str, value: str = "") -> dict:
    if kind in ("result", "generated", "external"):
        return {"kind": kind, "step": value}
    return {"kind": kind, "name": value} if value else {"kind": kind}


def term(attribute: str, op: str = "eq", *sources: dict, lookup: str | None = None) -> dict:
    return {"attribute": attribute, "lookup": lookup or attribute, "op": op,
            "sources": list(sources) or [src("input", attribute)]}


def AND(*args):
    return {"bool": "and", "args": list(args)}


def OR(*args):
    return {"bool": "or", "args": list(args)}


def NOT(arg):
    return {"bool": "not", "args": [arg]}


def stmt(sid: str, entity: str = "Account", kind: str = "read", predicate=None, values=(), uses=(), line=1,
         dynamic=False, api="get") -> dict:
    return {"node": "statement", "id": sid, "file": "app/services.py", "line": line, "via": [], "entity": entity,
            "kind": kind, "api": api, "predicate": predicate, "dynamic": dynamic, "values": list(values),
            "uses": list(uses)}


def effect(sid: str, category: str = "http", callee: str = "requests.post", uses=(), line=1) -> dict:
    return {"node": "effect", "id": sid, "file": "app/services.py", "line": line, "via": [], "category": category,
            "callee": callee, "uses": list(uses)}


def branch(uses, *arms) -> dict:
    return {"node": "branch", "file": "app/services.py", "line": 1, "via": [], "uses": list(uses), "arms": list(arms)}


def loop(uses, *body) -> dict:
    return {"node": "loop", "file": "app/services.py", "line": 1, "via": [], "uses": list(uses), "body": list(body)}


def txn(*steps, line: int = 1) -> dict:
    return {"ir": 1, "type": "transaction", "id": f"app/services.py:{line}", "file": "app/services.py", "line": line,
            "end_line": line + 10, "function": f"app.services.f{line}", "boundary": "atomic-decorator",
            "wrapper": None, "options": {}, "steps": list(steps)}


def entity(name: str = "Account", pk=("id",), unique=()) -> dict:
    return {"ir": 1, "type": "entity", "name": name, "qualname": f"app.models.{name}", "table": f"app_{name.lower()}",
            "file": "app/models.py", "line": 1, "pk": list(pk), "unique": [list(u) for u in unique], "fields": [],
            "relations": [], "abstract": False}


def records(*transactions, entities=None) -> list[dict]:
    return [{"ir": 1, "type": "meta", "frontend": "django", "root": "app"}] + list(
        entities if entities is not None else [entity()]) + list(transactions)
