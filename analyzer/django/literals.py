"""The values of Python literals the walk reads, without leaving reference cycles behind.

`ast.literal_eval` defines four nested functions at every call, and each refers to itself
through its closure: every call leaves a few cyclic objects only the collector frees (they were
all the cyclic garbage a transaction's walk made, about 5,000 objects on taiga-back). Nearly
every literal the walk reads is one constant (a string, a number, None), whose value the parse
already holds, and a name or an attribute is refused as `ast.literal_eval` refuses it; only
the others go through `ast.literal_eval`, with the tree parsed once.
"""

from __future__ import annotations

import ast

import libcst as cst


def literal_eval(text: str):
    """`ast.literal_eval(text)`: the same value, or the same exception."""
    tree = ast.parse(text.lstrip(" \t"), mode="eval")  # as ast.literal_eval parses a string
    body = tree.body
    kind = type(body)
    if kind is ast.Constant:
        return body.value
    if kind not in _COMPOSITE:
        # a name, an attribute, a call...: what ast.literal_eval raises for it
        message = "malformed node or string"
        if line := getattr(body, "lineno", None):
            message += f" on line {line}"
        raise ValueError(message + f": {body!r}")
    return ast.literal_eval(tree)


# The root nodes ast.literal_eval may accept besides a constant (a container, set(), a signed
# or complex number); it raises ValueError for any other.
_COMPOSITE = frozenset({ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Call, ast.BinOp, ast.UnaryOp})


def string_value(node) -> str | bytes | None:
    """libcst's `evaluated_value` of a SimpleString or ConcatenatedString (None where a part is
    an f-string, or str and bytes are mixed), by literal_eval above."""
    if isinstance(node, cst.ConcatenatedString):
        left, right = node.left, node.right
        if isinstance(left, cst.FormattedString) or isinstance(right, cst.FormattedString):
            return None
        left_value = string_value(left)
        right_value = string_value(right)
        if right_value is None:
            return None
        if isinstance(left_value, bytes) and isinstance(right_value, bytes):
            return left_value + right_value
        if isinstance(left_value, str) and isinstance(right_value, str):
            return left_value + right_value
        return None
    return literal_eval(node.value)
