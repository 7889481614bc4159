"""Refuse Python files nested too deeply for the recursive parts of the front end.

libcst's native parser crashes the process (SIGSEGV) on about 1,500 nested parentheses, and
recursive tree walks hit Python's recursion limit long before; such a file must be a
diagnostic, not a lost scan. The depth is measured with tree-sitter (iterative, no recursion)
before anything recursive sees the file, and only when a cheap textual estimate says the file
could be deep, so ordinary files pay one regular-expression pass.
"""

from __future__ import annotations

import re

import tree_sitter as ts

from ..python_grammar import PYTHON as _LANGUAGE

# tree-sitter syntax-tree depth above which a file is not analysed. Real code stays far below
# (at most 40 over the 6,715 files of saleor, netbox, django-oscar and paperless-ngx); libcst's
# visitors recurse about 4 Python frames per level of this depth, so 100 keeps every walk
# well inside Python's default recursion limit (libcst's parser itself crashes at about 1,500).
MAX_TREE_DEPTH = 100

# Thresholds of the cheap estimate; any one of them exceeded triggers the exact measurement.
_BRACKET_PASSES = 40           # bracket nesting depth
_INDENT_WIDTHS = 40            # distinct indentation widths (nested blocks need one each)
_LINE_CHARS = 400              # a long line can hold a long operator chain
_CONTINUATIONS = 100           # backslash-continued lines

_INNERMOST_PAIRS = re.compile(r"\(\)|\[\]|\{\}")
_INDENT = re.compile(r"^[ \t]*(?=\S)", re.MULTILINE)
# Without tabs, indentations are runs of spaces: more than _INDENT_WIDTHS distinct ones need
# one of at least _INDENT_WIDTHS spaces, which this finds without collecting them all: a line
# starting with that many spaces is the text's start or follows a newline. Searched for as a
# substring (str's fast search), not as the regular expression `^ {40}` (re.MULTILINE), which
# tried every position of the text: half the estimate's time (saleor: 0.024 of 0.054 CPU s).
_WIDE_PREFIX = " " * _INDENT_WIDTHS
_WIDE_LINE = "\n" + _WIDE_PREFIX
# Every byte but the six brackets, deleted by bytes.translate (brackets are ASCII, so the
# UTF-8 bytes of the text keep them as they are, in order).
_NOT_BRACKET_BYTES = bytes(b for b in range(256) if b not in b"()[]{}")


def could_be_deep(text: str) -> bool:
    if text.count("\\\n") > _CONTINUATIONS:
        return True
    if max(map(len, text.split("\n"))) > _LINE_CHARS:
        return True
    if ("\t" in text or has_wide_indentation(text)) and len(set(_INDENT.findall(text))) > _INDENT_WIDTHS:
        return True
    brackets = text.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKET_BYTES).decode("ascii")
    for _ in range(_BRACKET_PASSES):
        brackets, removed = _INNERMOST_PAIRS.subn("", brackets)
        if not removed:
            return False
    return True


def has_wide_indentation(text: str) -> bool:
    """Whether a line of `text` starts with _INDENT_WIDTHS spaces."""
    return text.startswith(_WIDE_PREFIX) or _WIDE_LINE in text


def tree_depth(text: str, limit: int) -> int:
    """Depth of the tree-sitter syntax tree (walked with a cursor: no recursion), up to limit + 1."""
    cursor = ts.Parser(_LANGUAGE).parse(text.encode("utf-8", "surrogatepass")).walk()
    depth = deepest = 1
    while True:
        if depth <= limit and cursor.goto_first_child():
            depth += 1
            deepest = max(deepest, depth)
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return deepest
            depth -= 1


def nesting_problem(text: str, limit: int = MAX_TREE_DEPTH) -> str | None:
    """Why a file is too deeply nested to analyse, or None."""
    if not could_be_deep(text):
        return None
    depth = tree_depth(text, limit)
    if depth > limit:
        return f"nesting deeper than {limit} syntax levels; file not analysed (its definitions are unknown)"
    return None
