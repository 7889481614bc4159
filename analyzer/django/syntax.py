"""Small helpers over libcst nodes shared by the boundary finder and the walker."""

from __future__ import annotations

import libcst as cst

from .ast_convert import _Span, is_converted
from .node_types import ATTRIBUTE, NAME
from .spans import back_space, call_paren, own_parens, reindent, skip_space

_EMPTY = cst.Module(body=[])


def dotted(node) -> str | None:
    """`a.b.c` for a Name/Attribute chain, None for anything else."""
    kind = type(node)
    if kind in NAME:
        return node.value
    if kind in ATTRIBUTE:
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def code(node: cst.CSTNode) -> str:
    """Source text of a node (costly: libcst code generation; use for messages and small nodes)."""
    if is_converted(node):
        text = _converted_code(node)
        if text is not None:
            return text
        node = _libcst_twin(node)
    try:
        return _EMPTY.code_for_node(node)
    except Exception:  # noqa: BLE001 - rendering is best effort, for messages only
        return type(node).__name__


def _converted_code(node) -> str | None:
    """The text libcst would print for an expression of a converted tree: its source span and
    the parentheses that are its own (libcst keeps them on the innermost node they enclose)."""
    source, where, indent = node._pos
    if where is None or not isinstance(node, cst.BaseExpression):
        return None
    text = source.text
    if isinstance(where, _Span):
        start, stop = where.start, where.stop
    else:
        start = source.offset(where.lineno, where.col_offset)
        stop = source.offset(where.end_lineno, where.end_col_offset)
    if isinstance(node, cst.GeneratorExp) and text[start:start + 1] == "(" and call_paren(text, start):
        # `f(x for x in y)`: the parentheses are the call's
        start, stop = skip_space(text, start + 1, stop - 1), back_space(text, stop - 1)
    start, stop = own_parens(text, start, stop)
    return reindent(text[start:stop], indent)


def _libcst_twin(node):
    """The libcst node matching a converted statement (libcst prints its comments and blank
    lines, which a converted tree does not hold): the definition is parsed again with libcst."""
    from .ast_convert import twin
    return twin(node)
