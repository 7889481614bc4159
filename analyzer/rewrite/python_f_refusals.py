"""The f-expression rewrite's commonest refusals, decided from Python's own parser (`ast`, C)
before libcst parses and numbers the statement: the object is used between its read and its
save() ("... is used between its read and its save()"), the save() has no update_fields
("save() without update_fields writes every column ..."), or a new value reads another attribute
of the object ("the new x reads obj.y, which update() cannot"). On the 300k-line synthetic project
the first two are all 922 f-expression candidates that reach the builder (none gets a rewrite), and
libcst's parse and line numbering of their 461 functions was about a seventh of rewrite planning;
the third is healthchecks' one candidate, whose class-sized statement libcst took 0.05 s over.

The answer is python_f_expression.rewrite's own refusal for the same save(), given only where
the two parsers' trees correspond statement for statement and name for name; anything else (a
rewrite, another refusal, a shape outside this one) is None and the builder decides with libcst
as before. The shape:
- the text compiles (checks.outline) and the top-level statement holding the save() is ASCII
  (Python normalises non-ASCII names, libcst keeps them as written);
- the save() is a statement of its own, `obj.save(...)` on one line, with no call among its
  arguments (the only call libcst can match on that line), in an indented block whose
  statements each begin their own line (no `;`: a libcst line is one `ast` statement);
- walking back from the save() (as _read_and_assignments does), each statement is an
  assignment to one of obj's attributes whose value does not name obj (its text), the read
  `obj = ....objects....get(...)`, or another statement: `ast` names obj there (every `ast.Name`
  is a libcst Name that names_in counts) or obj is not a word of its text (a libcst Name is
  one); a statement naming obj in another way (a parameter, a `global`, a pattern) is left to
  libcst;
- an assignment whose value names obj is refused where _to_f refuses it: its first `obj.attr`
  (in the text's order, which is the order libcst leaves them in: one cannot hold another) that
  is not the assigned attribute. A value with an f-string is left to libcst (Python 3.11 does not
  always place the expressions inside one where the text has them).
tests/rewrite/test_f_refusals.py compares every answer with the builder's on a whole module.
"""

from __future__ import annotations

import ast
import bisect
import re
from functools import lru_cache

from . import checks
from .python_top_level import parsed_quietly

USED_BETWEEN = "{obj} is used between its read and its save(); update() would not see that"
NO_UPDATE_FIELDS = ("save() without update_fields writes every column (auto_now fields too), update() only the "
                    "changed ones")
READS_OTHER = "the new {attribute} reads {obj}.{other}, which update() cannot"


def early_refusal(text: str, line: int) -> str | None:
    """The refusal python_f_expression.rewrite gives for the save() on `line` of `text`, where it
    can be told from `ast` (see the module's docstring); None otherwise."""
    top = checks.outline(text)
    if top is None:
        return None
    index = bisect.bisect_right(top.starts, line) - 1
    if index < 0 or line > top.groups[index][1]:
        return None
    parsed = _statement_alone(text, index)
    if parsed is None:
        return None
    tree, lines = parsed
    found = _save_statement(tree, line - top.groups[index][0] + 1, lines)
    if found is None:
        return None
    block, at, obj, call = found
    assigned: set[str] = set()
    for statement in reversed(block[:at]):
        assignment = _assignment(statement)
        if assignment is not None and assignment[0] == obj:
            attribute, value = assignment[1], assignment[2]
            if attribute in assigned:
                return None  # assigned twice: the builder says
            if _names_word(_source(lines, value), obj):
                return _reads_other(value, obj, attribute)  # (None: _to_f decides)
            assigned.add(attribute)
            continue
        if _is_get_into(statement, obj):
            if not assigned or call.args or call.keywords:
                return None
            return NO_UPDATE_FIELDS
        if any(isinstance(node, ast.Name) and node.id == obj for node in ast.walk(statement)):
            return USED_BETWEEN.format(obj=obj)
        if _names_word(_lines_of(lines, statement), obj):
            return None
    return None


@lru_cache(maxsize=64)
def _statement_alone(text: str, index: int) -> tuple[ast.Module, list[str]] | None:
    """The top-level statement `index` of the outline, from its first line to the next
    statement's (python_syntax._parsed_alone's text), parsed by `ast`, and its lines; None when
    it is not ASCII or does not parse alone."""
    top = checks.outline(text)
    start = top.offsets[top.groups[index][0] - 1]
    end = top.offsets[top.groups[index + 1][0] - 1] if index + 1 < len(top.groups) else len(text)
    alone = text[start:end]
    if not alone.isascii():
        return None
    tree = parsed_quietly(alone)
    if tree is None or len(tree.body) != 1:
        return None
    return tree, alone.split("\n")


_BLOCKS = ("body", "orelse", "finalbody")


def _save_statement(tree: ast.Module, line: int, lines: list[str]):
    """(block, index in it, obj, call) of the statement `obj.save(...)` alone on `line` (of the
    statement's own text) in an indented block, as the module's docstring says; None otherwise."""
    for owner in ast.walk(tree):
        blocks = [getattr(owner, name) for name in _BLOCKS if isinstance(getattr(owner, name, None), list)]
        blocks += [handler.body for handler in getattr(owner, "handlers", ())]
        blocks += [case.body for case in getattr(owner, "cases", ())]
        for block in blocks:
            for at, statement in enumerate(block):
                if statement.lineno == line and owner is not tree:
                    return _checked(block, at, statement, lines)
    return None


def _checked(block: list, at: int, statement: ast.stmt, lines: list[str]):
    if not (isinstance(statement, ast.Expr) and statement.end_lineno == statement.lineno):
        return None
    call = statement.value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "save"
            and isinstance(call.func.value, ast.Name)):
        return None
    if any(isinstance(node, ast.Call) for argument in [*call.args, *call.keywords] for node in ast.walk(argument)):
        return None
    previous_end = 0
    for each in block:  # each statement has its lines to itself (with comments)
        first = _first_line(each)
        rest = lines[each.end_lineno - 1][each.end_col_offset:].strip()
        if first <= previous_end or not _begins_its_line(each, lines) or rest[:1] not in ("", "#"):
            return None
        previous_end = each.end_lineno
    return block, at, call.func.value.id, call


def _assignment(statement: ast.stmt) -> tuple[str, str, ast.expr] | None:
    """(object, attribute, value) of `obj.attr = value` / `obj.attr += value` / `obj.attr -= value`
    (python_f_expression._assignment)."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target, value = statement.targets[0], statement.value
    elif isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add | ast.Sub):
        target, value = statement.target, statement.value
    else:
        return None
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
        return target.value.id, target.attr, value
    return None


def _is_get_into(statement: ast.stmt, obj: str) -> bool:
    """python_f_expression._is_get_into: `obj = <...>.objects<...>.get(...)`."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return False
    target, value = statement.targets[0], statement.value
    return (isinstance(target, ast.Name) and target.id == obj and isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute) and value.func.attr == "get"
            and ".objects" in "." + _dotted(value.func.value))


def _dotted(node: ast.expr) -> str:
    """python_syntax.dotted."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    return ""


def _reads_other(value: ast.expr, obj: str, attribute: str) -> str | None:
    """python_f_expression._to_f's refusal of `value` as the new `attribute`: its first read of
    another attribute of `obj`; None where it reads none or holds an f-string."""
    reads = []
    for node in ast.walk(value):
        if isinstance(node, ast.JoinedStr):
            return None
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == obj:
            reads.append((node.lineno, node.col_offset, node.attr))
    other = next((read[2] for read in sorted(reads) if read[2] != attribute), None)
    return None if other is None else READS_OTHER.format(attribute=attribute, obj=obj, other=other)


def _source(lines: list[str], node: ast.AST) -> str:
    """The text of `node` (ASCII: column offsets are characters)."""
    first, last = node.lineno - 1, node.end_lineno - 1
    if first == last:
        return lines[first][node.col_offset:node.end_col_offset]
    return "\n".join([lines[first][node.col_offset:], *lines[first + 1:last], lines[last][:node.end_col_offset]])


def _first_line(statement: ast.stmt) -> int:
    """Its first line, decorators included (`ast` numbers a definition from `def`/`class`)."""
    return min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", ()))])


def _begins_its_line(statement: ast.stmt, lines: list[str]) -> bool:
    """Nothing but indentation comes before it on its first line (a decorator's `@` does)."""
    if getattr(statement, "decorator_list", ()):
        return lines[_first_line(statement) - 1].lstrip().startswith("@")
    return not lines[statement.lineno - 1][:statement.col_offset].strip()


def _lines_of(lines: list[str], statement: ast.stmt) -> str:
    """Its whole lines, decorators included: its own and comments' only (see _checked)."""
    return "\n".join(lines[_first_line(statement) - 1:statement.end_lineno])


def _names_word(text: str, name: str) -> bool:
    return re.search(rf"(?<![0-9A-Za-z_]){re.escape(name)}(?![0-9A-Za-z_])", text) is not None
