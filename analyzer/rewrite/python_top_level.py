"""A Python module's top-level statements, as Python's own parser numbers them, for planning
rewrites and checking them (checks.Outline).

Whether the compiler accepts a text is asked of the compiler itself (`compile`, which builds no
Python objects). The statements come from tree-sitter, the parser the index already uses: a
parse of a large module with Python's `ast` built millions of node objects and cost about twice
what compiling it does, where an outline needs a few facts per top-level statement. tree-sitter's
statements are the compiler's for a text the compiler accepts, except for what this module
corrects (a block's trailing comments count in tree-sitter's extent, not in Python's); where
tree-sitter reports an error or its statements do not begin at the start of a line, Python's
`ast` is asked instead.
"""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass
from functools import lru_cache

from .compile_later import assumed_to_compile


@dataclass(frozen=True)
class TopStatement:
    start: int  # first line, decorators included
    end: int  # last line of its last token
    kind: str  # "import", "expr" (an expression statement), "def" (a function definition), "other"
    name: str | None  # a function's name
    from_import: tuple | None  # (module, ((name, asname), ...)) of `from module import ...` (not `*`)
    future: bool = False  # `from __future__ import ...`


@lru_cache(maxsize=512)
def compiles(text: str) -> bool:
    """Whether the compiler accepts `text` (nothing is executed)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "<original>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def statements(text: str) -> tuple[TopStatement, ...] | None:
    """The top-level statements of a text the compiler accepts (None when it does not). While
    planning assumes the text compiles, it is confirmed later (compile_later.py)."""
    if not (assumed_to_compile(text) or compiles(text)):
        return None
    return top_level(text)


# Answers of top_level() worked out by the process outlining ahead (outline_ahead.py), by text.
_told: dict[str, tuple[TopStatement, ...] | None] = {}


def tell(answers: dict[str, tuple[TopStatement, ...] | None]) -> None:
    """Take `answers` (text -> what top_level(text) gives, worked out elsewhere by this same
    function) instead of working them out; `{}` forgets those told before."""
    global _told
    _told = answers


def top_level(text: str) -> tuple[TopStatement, ...] | None:
    """statements() of a text taken to compile: tree-sitter's, else Python's `ast`'s."""
    if _told and text in _told:
        return _told[text]
    found = _from_tree_sitter(text)
    return found if found is not None else _from_ast(text)


_IMPORTS = ("import_statement", "import_from_statement", "future_import_statement")
_ASSIGNMENTS = ("assignment", "augmented_assignment")
_EXTRAS = ("comment", "line_continuation")  # tree-sitter's nodes for what Python's tokenizer skips


def _from_tree_sitter(text: str) -> tuple[TopStatement, ...] | None:
    root = _parser().parse(text.encode("utf-8")).root_node
    if root.has_error:
        return None
    out: list[TopStatement] = []
    previous_end = -1
    for node in root.named_children:
        kind = node.type
        if kind in _EXTRAS:
            continue
        start = node.start_point
        definition = node
        if kind == "decorated_definition":
            definition = node.child_by_field_name("definition")
            first = node.named_children[0]  # a decorator: Python numbers it from its expression
            expression = next((c for c in first.named_children if c.type not in _EXTRAS), None) \
                if first.type == "decorator" else None
            if definition is None or expression is None:
                return None
            start = min(expression.start_point, definition.start_point)
        if start.row != previous_end and node.start_point.column != 0:
            return None  # a statement not starting a line follows another on its line (`;`) only
        end = _last_token(node).end_point.row
        previous_end = end
        if kind in _IMPORTS:
            category = "import"
        elif kind == "expression_statement":
            category = "other" if any(c.type in _ASSIGNMENTS for c in node.named_children) else "expr"
        elif definition.type == "function_definition":
            category = "def"
        else:
            category = "other"
        name = _text(definition.child_by_field_name("name")) if category == "def" else None
        imported = _from_import(node) if kind in ("import_from_statement", "future_import_statement") else None
        out.append(TopStatement(start.row + 1, end + 1, category, name, imported, kind == "future_import_statement"))
    return tuple(out)


def _last_token(node):
    """The last token of `node` (a comment is not a token: Python ends a block before it)."""
    while True:
        children = node.children
        index = len(children) - 1
        while index >= 0 and children[index].type in _EXTRAS:
            index -= 1
        if index < 0:
            return node
        node = children[index]


def _from_import(node) -> tuple | None:
    module_node = node.child_by_field_name("module_name")
    if node.type == "future_import_statement":
        module = "__future__"
    elif module_node is None:
        return None
    elif module_node.type == "relative_import":  # Python keeps the name after the dots (None for `from . import`)
        dotted = next((c for c in module_node.named_children if c.type == "dotted_name"), None)
        module = _text(dotted) if dotted is not None else None
    else:
        module = _text(module_node)
    names = []
    for child in node.named_children:
        if (module_node is not None and child == module_node) or child.type in _EXTRAS:
            continue
        if child.type == "wildcard_import":
            return None
        if child.type == "dotted_name":
            names.append((_text(child), None))
        elif child.type == "aliased_import":
            names.append((_text(child.child_by_field_name("name")), _text(child.child_by_field_name("alias"))))
        else:
            return None
    return (module, tuple(names))


def _text(node) -> str:
    """A name's text as Python reads it (`django . db` is `django.db`)."""
    return "".join(node.text.decode("utf-8").split())


@lru_cache(maxsize=1)
def _parser():
    import tree_sitter as ts

    from ..python_grammar import PYTHON

    return ts.Parser(PYTHON)


def parsed_quietly(text: str) -> ast.Module | None:
    """`ast.parse(text)` without its warnings (invalid escapes and the like), None when Python's
    parser refuses the text."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _from_ast(text: str) -> tuple[TopStatement, ...] | None:
    tree = parsed_quietly(text)
    if tree is None:
        return None
    out = []
    for s in tree.body:
        start = min([s.lineno, *(d.lineno for d in getattr(s, "decorator_list", ()))])
        if isinstance(s, ast.Import | ast.ImportFrom):
            kind = "import"
        elif isinstance(s, ast.Expr):
            kind = "expr"
        elif isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef):
            kind = "def"
        else:
            kind = "other"
        imported = None
        if isinstance(s, ast.ImportFrom) and s.names[0].name != "*":
            imported = (s.module, tuple((a.name, a.asname) for a in s.names))
        out.append(TopStatement(start, s.end_lineno, kind, s.name if kind == "def" else None, imported,
                                isinstance(s, ast.ImportFrom) and s.module == "__future__"))
    return tuple(out)
