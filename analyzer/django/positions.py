"""Line numbers of libcst nodes, computed by counting newlines in one pass.

libcst's PositionProvider regenerates the code of every node to find positions, which was
half of a scan's time on large applications. The deep pass only needs start lines (and an end
line for a few statements); one walk over the tree counting `Newline` tokens and the newlines
inside string literals and whitespace gives exactly the start lines PositionProvider gives
(tests/test_positions.py compares the two).

The walk reads each node's children from its fields (`children`), not from libcst's
`CSTNode.children`, which rebuilds and re-validates the node to list them and cost most of the
numbering.
"""

from __future__ import annotations

import dataclasses

import libcst as cst
from libcst._nodes.base import BaseLeaf

from .node_types import kinds

# Children that come before a node's first token: PositionProvider does not count them.
_BEFORE_START = kinds(cst.EmptyLine, cst.LeftParen, cst.Decorator)
_NOT_TEXT = kinds(cst.SimpleWhitespace, cst.Comment)
# Tokens that may have parentheses of their own (`lpar`/`rpar`), their text in `value`.
_VALUED = kinds(cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)

# type -> its dataclass field names; (type, fields holding nodes) -> those fields in source order
# (None: the order could not be told from the fields, libcst's own listing is used).
_FIELDS: dict[type, tuple[str, ...]] = {}
_ORDER: dict[tuple, tuple[str, ...] | None] = {}
_IS_NODE: dict[type, bool] = {}
_UNKNOWN = object()
_LEAF = BaseLeaf


def _is_node(kind: type) -> bool:
    known = _IS_NODE.get(kind)
    if known is None:
        known = _IS_NODE[kind] = issubclass(kind, cst.CSTNode)
    return known


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """`node.children`, in the same (lexical) order, read from the node's fields.

    Which fields are visited in which order is fixed per node type and per set of fields that
    hold nodes (libcst's `_visit_and_replace_children` is straight-line code per type): it is
    learnt once per such shape from libcst's own `children` and reused.
    """
    kind = type(node)
    names = _FIELDS.get(kind)
    if names is None:
        # A leaf (whitespace, a newline, an operator) has no children whatever its fields hold.
        names = _FIELDS[kind] = () if issubclass(kind, _LEAF) else tuple(f.name for f in dataclasses.fields(kind))
    present = []
    found = []
    for name in names:
        value = getattr(node, name)
        value_type = type(value)
        if value_type is tuple or value_type is list:
            if value and _is_node(type(value[0])):
                present.append(name)
                found.append(value)
        elif _is_node(value_type):
            present.append(name)
            found.append((value,))
    if not present:
        return []
    key = (kind, *present)
    order = _ORDER.get(key, _UNKNOWN)
    if order is _UNKNOWN:
        order = _ORDER[key] = _learn(node, dict(zip(present, found)))
    if order is None:
        return list(node.children)
    out: list[cst.CSTNode] = []
    for name in order:
        out.extend(found[present.index(name)])
    return out


def _learn(node: cst.CSTNode, values: dict[str, tuple]) -> tuple[str, ...] | None:
    """The order of `values`' fields in libcst's listing of this node's children, or None when
    the listing is not the fields' nodes one field after another."""
    listed = node.children
    owner = {}
    for name, nodes in values.items():
        for child in nodes:
            if id(child) in owner:
                return None  # one node in two fields: which comes first cannot be told
            owner[id(child)] = name
    order: list[str] = []
    for child in listed:
        name = owner.get(id(child))
        if name is None:
            return None
        if not order or order[-1] != name:
            order.append(name)
    if len(order) != len(set(order)) or set(order) != set(values):
        return None
    rebuilt = [child for name in order for child in values[name]]
    if len(rebuilt) != len(listed) or any(a is not b for a, b in zip(rebuilt, listed)):
        return None
    return tuple(order)


def line_numbers(root: cst.CSTNode, first_line: int = 1) -> tuple[dict, dict]:
    """(start line, end line) of every node under root; lines are 1-based, offset by first_line - 1."""
    starts: dict[cst.CSTNode, int] = {}
    ends: dict[cst.CSTNode, int] = {}
    line = first_line
    last = first_line
    newline, before_start, right_paren, valued = cst.Newline, _BEFORE_START, cst.RightParen, _VALUED
    not_text = _NOT_TEXT

    def walk(node: cst.CSTNode) -> None:
        nonlocal line, last
        if type(node) is newline:
            starts[node] = ends[node] = line
            line += 1
            return
        kids = children(node)
        if not kids:
            starts[node] = line
            value = getattr(node, "value", None)
            if type(value) is str:
                if type(node) not in not_text:
                    last = line + value.count("\n")
                    line = last
                else:
                    line += value.count("\n")  # a backslash continuation
            ends[node] = last
            return
        # A token with parentheses of its own (a string, a number, a name in `(...)`) has its
        # text between them: its newlines count before its first `)`. (The end line stays where
        # the token does not move it: the parentheses are walked instead, as ast_convert.py has it.)
        pending = node.value.count("\n") if type(node) in valued else 0
        start = None
        for child in kids:
            if start is None and type(child) not in before_start:
                start = line
            if pending and type(child) is right_paren:
                line += pending
                pending = 0
            walk(child)
        starts[node] = start if start is not None else line
        ends[node] = last

    walk(root)
    return starts, ends
