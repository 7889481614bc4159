"""Constant folding of branch conditions, for paths a call site can never take.

Inlined helpers are walked with their call's arguments: `def fetch(pk, retries=None)` called
as `fetch(pk)` has `retries is None` known to be true, so its retry-and-sleep branch is not
part of that transaction. Only conditions whose every operand is a known literal fold; anything
else (inputs, query results, calls) stays unknown and both arms are walked as before.
"""

from __future__ import annotations

import ast

import libcst as cst

from .node_types import NAME, NUMBER_OR_STRING
from .values import Val

UNKNOWN = object()


def literal_value(val: Val | None):
    """The Python value of a Val that is a literal constant, or UNKNOWN."""
    if val is None or val.kind != "plain" or not val.sources or not val.text:
        return UNKNOWN
    if any(kind != "constant" for kind, _ in val.sources):
        return UNKNOWN
    try:
        return ast.literal_eval(val.text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return UNKNOWN


def fold(node: cst.BaseExpression, env: dict[str, Val]):
    """True/False when the condition is decided by literals alone, else UNKNOWN."""
    value = _value(node, env)
    if value is UNKNOWN:
        return UNKNOWN
    try:
        return bool(value)
    except Exception:  # noqa: BLE001 - an odd literal with no truth value
        return UNKNOWN


def _value(node, env: dict[str, Val]):
    kind = type(node)
    if kind in NAME:
        if node.value in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[node.value]
        return literal_value(env.get(node.value))
    if kind in NUMBER_OR_STRING:
        try:
            return ast.literal_eval(node.value)
        except (ValueError, SyntaxError):
            return UNKNOWN
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        inner = _value(node.expression, env)
        return UNKNOWN if inner is UNKNOWN else not inner
    if isinstance(node, cst.BooleanOperation):
        left = _value(node.left, env)
        if left is UNKNOWN:
            return UNKNOWN
        if isinstance(node.operator, cst.And):
            return left if not left else _value(node.right, env)
        return left if left else _value(node.right, env)
    if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
        left = _value(node.left, env)
        right = _value(node.comparisons[0].comparator, env)
        if left is UNKNOWN or right is UNKNOWN:
            return UNKNOWN
        operator = node.comparisons[0].operator
        try:
            if isinstance(operator, cst.Is):
                return left is right
            if isinstance(operator, cst.IsNot):
                return left is not right
            if isinstance(operator, cst.Equal):
                return left == right
            if isinstance(operator, cst.NotEqual):
                return left != right
            if isinstance(operator, cst.LessThan):
                return left < right
            if isinstance(operator, cst.LessThanEqual):
                return left <= right
            if isinstance(operator, cst.GreaterThan):
                return left > right
            if isinstance(operator, cst.GreaterThanEqual):
                return left >= right
        except TypeError:
            return UNKNOWN
    return UNKNOWN
