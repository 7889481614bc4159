"""Helpers shared by the walker's modules: predicate terms, API names, block shapes."""

from __future__ import annotations

import libcst as cst

from .context import Context
from .node_types import BINARY_OPERATION, INDENTED_BLOCK, LEAVING, NUMBER_OR_STRING, SIMPLE_STATEMENT_LINE, \
    SIMPLE_STATEMENT_SUITE
from .syntax import dotted as _dotted
from .values import Val, ir_sources, plain, value_sources

def _text(node) -> str:
    """Cheap text of a dotted name or of simple arithmetic on names (for suggestions)."""
    dotted = _dotted(node)
    if dotted is not None:
        return dotted
    kind = type(node)
    if kind in BINARY_OPERATION:
        left, right = _text(node.left), _text(node.right)
        op = {cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/"}.get(type(node.operator))
        if left and right and op:
            return f"{left} {op} {right}"
    if kind in NUMBER_OR_STRING:
        return node.value
    return ""


def _is_queryset_class(ctx: Context, qualname: str) -> bool:
    return any("QuerySet" in base or "Manager" in base for cls in ctx.index.mro(qualname) for base in cls.bases)


def union_assigned(inst: Val) -> frozenset:
    out: set = set()
    for _attr, sources, _text in inst.assigned:
        out |= set(sources)
    return frozenset(out)


def _statements(body) -> list:
    kind = type(body)
    if kind in INDENTED_BLOCK or kind in SIMPLE_STATEMENT_SUITE:
        return list(body.body)
    if isinstance(body, (list, tuple)):
        return list(body)
    return []


def _exits(block) -> bool:
    """The block ends by leaving: return, raise, continue or break as its last statement."""
    statements = _statements(block)
    if not statements:
        return False
    last = statements[-1]
    if type(last) in SIMPLE_STATEMENT_LINE and last.body:
        return type(last.body[-1]) in LEAVING
    return False


def _raises(block) -> bool:
    """The block ends with `raise`: leaving it aborts every caller up to the transaction."""
    statements = _statements(block)
    last = statements[-1] if statements else None
    return isinstance(last, cst.SimpleStatementLine) and bool(last.body) and isinstance(last.body[-1], cst.Raise)


def _merge(a: dict, b: dict) -> dict:
    """Join two environments after a branch: a name bound differently keeps both origins."""
    merged = dict(a)
    for name, value in b.items():
        if name not in merged:
            merged[name] = value
        elif merged[name] is not value and merged[name] != value:
            left = merged[name]
            if left.kind == value.kind and left.kind in ("instance", "qs", "rows", "model", "email", "extobj"):
                merged[name] = value
            elif left.kind == value.kind == "plain" and bool(left.items) != bool(value.items):
                # `rows = []` then `rows.append(Row(...))` in a loop: the members appended.
                merged[name] = Val("plain", value_sources(left) | value_sources(value),
                                   items=left.items or value.items)
            elif "alts" in (left.kind, value.kind) or (left.kind != value.kind and "func" in (left.kind, value.kind)):
                # `if callback is None: callback = noop`: either may be called afterwards.
                items: list = []
                for item in (left.items if left.kind == "alts" else (left,)) + \
                        (value.items if value.kind == "alts" else (value,)):
                    if item not in items:
                        items.append(item)
                merged[name] = Val("alts", value_sources(left) | value_sources(value), items=tuple(items))
            else:
                merged[name] = plain(value_sources(left) | value_sources(value))
    return merged


def _term(attribute: str, lookup: str, op: str, sources) -> dict:
    return {"attribute": attribute, "lookup": lookup, "op": op, "sources": ir_sources(sources)}


def _source_tuple(source: dict) -> tuple[str, str]:
    return (source["kind"], source.get("step") or source.get("name", ""))


def _predicate(predicates: tuple) -> dict:
    if len(predicates) == 1:
        return predicates[0]
    return {"bool": "and", "args": list(predicates)}


def _api(chain: tuple[str, ...], final: str) -> str:
    shown = [m for m in chain if m not in ("all",)]
    return ".".join([*shown[-3:], final]) if shown else final


def _literal_string(node) -> str | None:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None
