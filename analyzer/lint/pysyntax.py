"""The cheap syntax pass for hygiene rules that look at Python code outside transactions.

tree-sitter (already the Django front end's whole-repository parser): a file is parsed once per
lint run, and rules ask small questions of its nodes: which calls name a method, which `with`
blocks or decorators open a transaction around a node, which function encloses it.
"""

from __future__ import annotations

import tree_sitter as ts

from ..python_grammar import PYTHON as _LANGUAGE

_PARSER = ts.Parser(_LANGUAGE)
_CALLS = ts.Query(_LANGUAGE, "(call function: (attribute attribute: (identifier) @method)) @call")
_TRIES = ts.Query(_LANGUAGE, "(try_statement) @try")
_FUNCTIONS = ("function_definition",)


def parse(data: bytes) -> ts.Tree:
    return _PARSER.parse(data)


def text(node: ts.Node) -> str:
    return node.text.decode("utf-8", "replace")


def method_calls(tree: ts.Tree, method: str) -> list[ts.Node]:
    """Every `<receiver>.<method>(...)` call node, in source order."""
    cursor = ts.QueryCursor(_CALLS)
    out = []
    for _pattern, captures in cursor.matches(tree.root_node):
        if text(captures["method"][0]) == method:
            out.append(captures["call"][0])
    return sorted(out, key=lambda n: n.start_byte)


def method_name(call: ts.Node) -> ts.Node:
    """The `method` of a `receiver.method(...)` call (where a finding about the call points)."""
    return call.child_by_field_name("function").child_by_field_name("attribute")


def try_statements(tree: ts.Tree) -> list[ts.Node]:
    cursor = ts.QueryCursor(_TRIES)
    return sorted(cursor.captures(tree.root_node).get("try", []), key=lambda n: n.start_byte)


def position(node: ts.Node, line_text: str) -> tuple[int, int]:
    """1-based line and column (in characters, as editors count) of a node's start."""
    row, byte_col = node.start_point
    return row + 1, len(line_text.encode("utf-8")[:byte_col].decode("utf-8", "replace")) + 1


def is_atomic_call(node: ts.Node) -> bool:
    """`transaction.atomic(...)`, `atomic(...)`, `db.transaction.atomic`, or the bare name as decorator."""
    target = node.child_by_field_name("function") if node.type == "call" else node
    if target is None:
        return False
    name = text(target).split("(")[0].strip()
    return name == "atomic" or name.endswith(".atomic")


def _decorator_opens_transaction(decorator: ts.Node) -> bool:
    expr = decorator.named_children[0] if decorator.named_children else None
    if expr is None:
        return False
    if is_atomic_call(expr):
        return True
    if expr.type == "call":
        name = text(expr.child_by_field_name("function") or expr)
        if name.endswith("method_decorator"):
            args = expr.child_by_field_name("arguments")
            return args is not None and any(is_atomic_call(a) for a in args.named_children)
    return False


def with_values(with_stmt: ts.Node):
    """The context-manager expressions of a `with` statement (`atomic()` in `with atomic() as x:`)."""
    for clause in with_stmt.named_children:
        if clause.type != "with_clause":
            continue
        for item in clause.named_children:
            value = item.child_by_field_name("value") or (item.named_children[0] if item.named_children else None)
            if value is not None and value.type == "as_pattern":
                value = value.named_children[0]
            if value is not None:
                yield value


def opens_transaction(with_stmt: ts.Node) -> bool:
    return any(is_atomic_call(value) for value in with_values(with_stmt))


def transaction_blocks(node: ts.Node) -> list[ts.Node]:
    """The atomic `with` statements and atomic-decorated functions around a node, innermost first.

    Stops at the enclosing function that is not itself atomic: what its callers do is the
    scan's business (call chains), not syntax's.
    """
    out = []
    current = node.parent
    while current is not None:
        if current.type == "with_statement" and opens_transaction(current):
            out.append(current)
        if current.type in _FUNCTIONS:
            decorated = current.parent if current.parent is not None and current.parent.type == "decorated_definition" else None
            if decorated is not None and any(_decorator_opens_transaction(d) for d in decorated.named_children
                                             if d.type == "decorator"):
                out.append(current)
            break
        current = current.parent
    return out


def enclosing_function(node: ts.Node, module: str) -> str:
    """Qualified name of the function around a node (`pkg.mod.Class.method`), or the module."""
    names = []
    current = node.parent
    while current is not None:
        if current.type in ("function_definition", "class_definition"):
            name = current.child_by_field_name("name")
            if name is not None:
                names.append(text(name))
        current = current.parent
    return ".".join([module, *reversed(names)]) if names else module


def module_name(rel: str) -> str:
    stem = rel.removesuffix(".py")
    parts = stem.split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def reraises(clause: ts.Node) -> bool:
    """Whether an except clause raises again (anywhere in it, outside nested definitions)."""
    stack = list(clause.named_children)
    while stack:
        node = stack.pop()
        if node.type == "raise_statement":
            return True
        if node.type not in ("function_definition", "class_definition", "lambda"):
            stack.extend(node.named_children)
    return False


def inside(node: ts.Node, ancestor: ts.Node) -> bool:
    return ancestor.start_byte <= node.start_byte and node.end_byte <= ancestor.end_byte
