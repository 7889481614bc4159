"""Finding a call in a Python module with libcst, and the facts about its surroundings that
decide whether moving it is safe (loops, try blocks, nested atomic blocks, later rebinding)."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..django.parsing import parse_module as parse_unchecked
from ..django.positions import children, line_numbers
from . import checks


@dataclass
class Located:
    module: cst.Module  # the whole module, or the top-level statement around the call alone (see locate)
    call: cst.Call
    statement: cst.CSTNode  # the statement line holding the call (SimpleStatementLine)
    ancestors: list[cst.CSTNode]  # innermost first, up to the module
    lines: dict  # node -> start line in the module, for the nodes of the top-level statement around the call
    parents: dict  # node -> parent, for the call and each of its ancestors
    span: tuple[int, int] | None = None  # offsets in the text of `module` when it is one statement alone
    outline: checks.Outline | None = None  # the whole text's top level, with a statement alone

    def text_with(self, text: str, module: cst.Module) -> str:
        """`text` with the located module's code replaced by `module`'s (a rewrite of it)."""
        if self.span is None:
            return module.code
        start, end = self.span
        return text[:start] + module.code + text[end:]


def locate(text: str, line: int, callee: str, imports: str | None = None, whole: bool = False) -> Located | None:
    """find_call in `text`, parsing with libcst only the top-level statement around `line` (from
    its first line to the next statement's), found by Python's own parser; libcst's parse of a
    whole module cost seconds where a rewrite reads one function.

    The whole module is parsed instead (as find_call always did) when the compiler does not
    accept the text, the statement does not parse alone as one statement, or `imports` (a name a
    rewrite may import) is not imported at module level but occurs in the text: whether the
    module already uses that name is then read from libcst's tree."""
    found = None if whole else _statement_alone(text, line)
    if found is None or (imports is not None and _import_of(found[2], imports) is None and _mentions(text, imports)):
        module = parse(text)
        return module and find_call(module, line, callee, text)
    module, span, top = found
    located = _find(module, (0, _line_of(top, span[0]) - 1), line, callee)
    if located is not None:
        located.span, located.outline = span, top
    return located


def _line_of(top: checks.Outline, offset: int) -> int:
    return bisect.bisect_right(top.offsets, offset)


def _import_of(top: checks.Outline, name: str):
    return top.transaction if name == "transaction" else top.f_import


def _mentions(text: str, name: str) -> bool:
    """`name` occurs in `text` as a word (any non-ASCII character counts as part of a name)."""
    return re.search(rf"(?<![0-9A-Za-z_\x80-\U0010ffff]){re.escape(name)}(?![0-9A-Za-z_\x80-\U0010ffff])", text) is not None


def _statement_alone(text: str, line: int) -> tuple[cst.Module, tuple[int, int], checks.Outline] | None:
    top = checks.outline(text)
    if top is None:
        return None
    index = bisect.bisect_right(top.starts, line) - 1
    if index < 0 or line > top.groups[index][1]:
        return None
    return _parsed_alone(text, index)


@lru_cache(maxsize=64)
def _parsed_alone(text: str, index: int) -> tuple[cst.Module, tuple[int, int], checks.Outline] | None:
    top = checks.outline(text)
    start = top.offsets[top.groups[index][0] - 1]
    end = top.offsets[top.groups[index + 1][0] - 1] if index + 1 < len(top.groups) else len(text)
    try:
        module = parse_unchecked(text[start:end])
    except cst.ParserSyntaxError:
        return None
    if len(module.body) != 1 or module.header:
        return None
    return module, (start, end), top


def with_import(located: Located, text: str, line: str) -> str | None:
    """`text` (the module of `located` with its rewrite applied to the statement alone) with the
    import statement `line` where add_import puts it: after the module's leading imports (and
    docstring). None when that place is not above the statement (the caller parses the module)."""
    top = located.outline
    index = 0
    for position, kind in enumerate(top.kinds):
        if kind == "import" or (position == 0 and kind == "expr"):
            index = position + 1
        else:
            break
    if index == 0 or top.groups[index - 1][1] >= len(top.offsets):
        return None
    at = top.offsets[top.groups[index - 1][1]]
    if at > located.span[0]:
        return None
    return text[:at] + line + text[at:]


def dotted(node: cst.CSTNode) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else ""
    if isinstance(node, cst.Call):
        return dotted(node.func)
    return ""


@lru_cache(maxsize=4)
def parse(text: str) -> cst.Module | None:
    """The module, parsed once for the rewrites of all transactions of a file. It is only read
    (rewrites build new modules with deep_replace), so it is parsed as the analysis parses,
    without re-validating what the parser built; the nodes a rewrite builds are validated."""
    try:
        return parse_unchecked(text)
    except cst.ParserSyntaxError:
        return None


def _top_level_at(module: cst.Module, line: int, text: str | None = None) -> tuple[int, int] | None:
    """The index in module.body of the top-level statement spanning `line`, and the number of
    module lines before its own first line (its leading comments and blank lines included).

    With the module's `text`, the statement is found by the compiler's line numbers and its
    position confirmed by its own code found there; the module's code is not generated."""
    found = _located_by_text(module, line, text) if text is not None else None
    if found is not None:
        return found
    for index, (before, lines, _code) in enumerate(_top_level(module)):
        if before < line <= before + lines:
            return index, before
    return None


@lru_cache(maxsize=4)
def _statement_lines(module: cst.Module, text: str) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...]] | None:
    """(first line, last line) of each of module.body's statements by the compiler's numbering
    (statements on one line joined by `;` are one libcst statement), and each line's offset;
    None when they cannot be paired with module.body."""
    found = checks.top_level_statements(text)
    if found is None:
        return None
    spans, offsets, _future = found
    groups: list[list[int]] = []
    for start, end in spans:
        if groups and start <= groups[-1][1]:
            groups[-1][1] = max(groups[-1][1], end)
        else:
            groups.append([start, end])
    if len(groups) != len(module.body):
        return None
    return tuple((start, end) for start, end in groups), offsets


def _located_by_text(module: cst.Module, line: int, text: str) -> tuple[int, int] | None:
    found = _statement_lines(module, text)
    if found is None:
        return None
    spans, offsets = found
    index = bisect.bisect_right([start for start, _end in spans], line) - 1
    if index < 0 or line > spans[index][1]:
        return None
    statement = module.body[index]
    decorators = getattr(statement, "decorators", ())
    before = spans[index][0] - 1 - len(statement.leading_lines) - (len(decorators[0].leading_lines) if decorators else 0)
    code = module.code_for_node(statement)
    after = before + code.count("\n")
    if before < 0 or after > len(offsets):
        return None
    if text[offsets[before]:offsets[after] if after < len(offsets) else len(text)] != code:
        return None
    return index, before


@lru_cache(maxsize=4)
def _top_level(module: cst.Module) -> tuple[tuple[int, int, str], ...]:
    """(lines before, lines, code) of each top-level statement: the module's code is generated
    once, not once per rewrite of a transaction in it."""
    out, before = [], len(module.header)
    for statement in module.body:
        code = module.code_for_node(statement)
        lines = code.count("\n")
        out.append((before, lines, code))
        before += lines
    return tuple(out)


@lru_cache(maxsize=8)
def _lines_and_ends(module: cst.Module, index: int, offset: int) -> tuple[cst.Module, dict, dict]:
    """The top-level statement alone (as a module), and the start and end lines (module lines)
    of its nodes, computed once for all rewrites in it (a class holding many transactions).
    positions.py counts lines in one walk; libcst's PositionProvider would generate the
    statement's code again."""
    alone = module.with_changes(header=(), body=[module.body[index]], footer=())
    lines, ends = line_numbers(alone, first_line=offset + 1)
    return alone, lines, ends


def _ancestry(module: cst.Module, alone: cst.Module, target: cst.CSTNode, line: int, lines: dict,
              ends: dict) -> dict:
    """Parents of `target` and of each of its ancestors, up to the module (the parent of the
    top-level statement). The search descends only into nodes whose lines hold `line` (the
    target's first line, which every ancestor's lines hold); every node is searched when that
    does not find it."""
    for pruned in (True, False):
        path: list = []
        stack: list = [(alone, 0)]
        while stack:
            node, depth = stack.pop()
            del path[depth:]
            path.append(node)
            if node is target:
                parents = {path[i + 1]: path[i] for i in range(len(path) - 1)}
                parents[path[1]] = module
                return parents
            for child in reversed(children(node)):
                if not pruned or lines.get(child, line + 1) <= line <= ends.get(child, line - 1):
                    stack.append((child, depth + 1))
    return {}


def _leftmost(module: cst.Module, index: int, offset: int, calls: set) -> cst.Call:
    """Of several calls on one line, the one starting leftmost (the innermost of calls starting
    at the same column: `eval(name)(args)` gives `eval(name)`). Columns come from libcst's
    PositionProvider, asked only in this rare case."""
    alone = module.with_changes(header=(), body=[module.body[index]], footer=())
    found = None
    for node, position in MetadataWrapper(alone, unsafe_skip_copy=True).resolve(PositionProvider).items():
        if node in calls and (found is None or found[1] > position.start.column):
            found = (node, position.start.column)
    return found[0]


def find_call(module: cst.Module, line: int, callee: str, text: str | None = None) -> Located | None:
    """The call on `line` whose name ends like `callee` (`shop.tasks.process_return.delay`), the
    leftmost one when there are several.

    Lines and parents are computed for the top-level statement around the line only, not the
    whole module: a rewrite looks no further."""
    found_top = _top_level_at(module, line, text)
    if found_top is None:
        return None
    return _find(module, found_top, line, callee)


def _find(module: cst.Module, found_top: tuple[int, int], line: int, callee: str) -> Located | None:
    alone, lines, ends = _lines_and_ends(module, *found_top)
    last = callee.rsplit(".", 1)[-1]
    # (which of several matches is taken does not depend on their order: the leftmost)
    matches = [node for node, at in lines.items() if at == line and isinstance(node, cst.Call)
               and dotted(node.func).rsplit(".", 1)[-1] == last]
    if not matches:
        return None
    found = matches[0] if len(matches) == 1 else _leftmost(module, *found_top, set(matches))
    parents = _ancestry(module, alone, found, line, lines, ends)
    ancestors, node = [], found
    while node in parents:
        node = parents[node]
        ancestors.append(node)
    statement = next((a for a in ancestors if isinstance(a, cst.SimpleStatementLine)), None)
    if statement is None:
        return None
    return Located(module, found, statement, ancestors, lines, parents)


def is_atomic(node: cst.CSTNode, wrappers=frozenset()) -> bool:
    """`transaction.atomic`, `atomic`, `transaction.atomic(using=...)` or one of the project's own
    wrappers around it, as a with item or decorator."""
    name = dotted(node).rsplit(".", 1)[-1]
    return "atomic" in name.lower() or name in wrappers


@lru_cache(maxsize=4)
def local_atomic_wrappers(module: cst.Module, text: str | None = None) -> frozenset[str]:
    """Module-level functions whose body enters `atomic` (context managers or decorators of the
    project's own that the front end may not report as boundaries when nested). Found once per
    module; only a function whose text mentions `atomic` has its body's code generated (with
    the module's `text`, the lines from the end of the statement before it to the start of the
    one after it, which hold all of its code)."""
    found = _statement_lines(module, text) if text is not None else None
    if found is None:
        windows = [code for _before, _lines, code in _top_level(module)]
    else:
        spans, offsets = found
        bounds = [0, *(end for _start, end in spans[:-1])]
        nexts = [offsets[start - 1] for start, _end in spans[1:]] + [len(text)]
        windows = [text[offsets[bound]:stop] for bound, stop in zip(bounds, nexts)]
    return frozenset(statement.name.value for statement, window in zip(module.body, windows)
                     if isinstance(statement, cst.FunctionDef) and "atomic" in window
                     and "atomic" in module.code_for_node(statement.body))


class AtomicWrappers:
    """The module-level functions of `located`'s module whose body enters `atomic`
    (local_atomic_wrappers), asked name by name: with a statement alone, only a function a
    rewrite asks about (the item of a `with` around the call) is parsed, alone, once."""

    def __init__(self, located: Located, text: str, known=frozenset()) -> None:
        self._located, self._text, self._known = located, text, known
        self._answers: dict[str, bool] = {}

    def __contains__(self, name: str) -> bool:
        if name in self._known:
            return True
        if name not in self._answers:
            self._answers[name] = self._is_wrapper(name)
        return self._answers[name]

    def _is_wrapper(self, name: str) -> bool:
        located, text = self._located, self._text
        if located.span is None:
            return name in local_atomic_wrappers(located.module, text)
        top = located.outline
        for index, (kind, defined) in enumerate(zip(top.kinds, top.names)):
            if kind != "def" or defined != name:
                continue
            start = top.offsets[top.groups[index - 1][1]] if index else 0
            stop = top.offsets[top.groups[index + 1][0] - 1] if index + 1 < len(top.groups) else len(text)
            if "atomic" not in text[start:stop]:
                continue
            alone = _parsed_alone(text, index)
            if alone is None:
                return name in local_atomic_wrappers(parse(text), text)
            if "atomic" in alone[0].code_for_node(alone[0].body[0].body):
                return True
        return False


def enclosing_function(located: Located) -> cst.FunctionDef | None:
    return next((a for a in located.ancestors if isinstance(a, cst.FunctionDef)), None)


def _nodes(root: cst.CSTNode):
    """`root` and every node under it, as a libcst visitor meets them (positions.children lists a
    node's children as libcst's visit does, read from the fields; nothing is rebuilt)."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def names_in(node: cst.CSTNode) -> set[str]:
    """Every plain name an expression reads (the free names a lambda around it would capture):
    not an attribute's name, nor an argument's keyword."""
    found: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind is cst.Name:
            found.add(current.value)
        elif kind is cst.Attribute or kind is cst.Arg:
            stack.append(current.value)
        else:
            stack.extend(children(current))
    return found


_BINDING = {cst.AssignTarget: "target", cst.AugAssign: "target", cst.AnnAssign: "target", cst.For: "target",
            cst.AsName: "name", cst.NamedExpr: "target"}


def rebound_after(function: cst.CSTNode, names: set[str], line: int, lines: dict) -> set[str]:
    """Which of `names` are assigned again after `line` in `function` (a deferred call would see
    the new value)."""
    rebound: set[str] = set()
    for node in _nodes(function):
        field = _BINDING.get(type(node))
        if field is None:
            continue
        target = getattr(node, field)
        for name in names_in(target) if not isinstance(target, cst.Name) else {target.value}:
            if name in names and lines[target] > line:
                rebound.add(name)
    return rebound


def transaction_import(module: cst.Module) -> str | None:
    """The local name of django.db.transaction in `module`, if it is imported at module level."""
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if (isinstance(small, cst.ImportFrom) and small.module is not None
                    and dotted(small.module) == "django.db" and not isinstance(small.names, cst.ImportStar)):
                for alias in small.names:
                    if alias.name.value == "transaction":
                        return alias.asname.name.value if alias.asname else "transaction"
    return None


def add_import(module: cst.Module, line: str) -> cst.Module:
    """`module` with the import statement `line` after its leading imports (and docstring)."""
    body = list(module.body)
    index = 0
    for position, statement in enumerate(body):
        if isinstance(statement, cst.SimpleStatementLine) and all(
                isinstance(s, cst.Import | cst.ImportFrom) or (position == 0 and isinstance(s, cst.Expr))
                for s in statement.body):
            index = position + 1
        else:
            break
    body.insert(index, cst.parse_statement(line))
    return module.with_changes(body=body)
