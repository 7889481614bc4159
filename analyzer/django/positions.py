"""Line numbers of libcst nodes, computed by counting newlines in one pass.

libcst's PositionProvider regenerates the code of every node to find positions, which was
half of a scan's time on large applications. The deep pass only needs start lines (and an end
line for a few statements); one walk over the tree counting `Newline` tokens and the newlines
inside string literals and whitespace gives exactly the start lines PositionProvider gives
(tests/test_positions.py compares the two), at about half the cost.
"""

from __future__ import annotations

import libcst as cst

# Children that come before a node's first token: PositionProvider does not count them.
_BEFORE_START = (cst.EmptyLine, cst.LeftParen, cst.Decorator)


def line_numbers(root: cst.CSTNode, first_line: int = 1) -> tuple[dict, dict]:
    """(start line, end line) of every node under root; lines are 1-based, offset by first_line - 1."""
    starts: dict[cst.CSTNode, int] = {}
    ends: dict[cst.CSTNode, int] = {}
    line = first_line
    last = first_line

    def walk(node: cst.CSTNode) -> None:
        nonlocal line, last
        if isinstance(node, cst.Newline):
            starts[node] = ends[node] = line
            line += 1
            return
        children = node.children
        if not children:
            starts[node] = line
            value = getattr(node, "value", None)
            if isinstance(value, str) and not isinstance(node, (cst.SimpleWhitespace, cst.Comment)):
                last = line + value.count("\n")
                line = last
            elif isinstance(value, str):
                line += value.count("\n")  # a backslash continuation
            ends[node] = last
            return
        start = None
        for child in children:
            if start is None and not isinstance(child, _BEFORE_START):
                start = line
            walk(child)
        starts[node] = start if start is not None else line
        ends[node] = last

    walk(root)
    return starts, ends
