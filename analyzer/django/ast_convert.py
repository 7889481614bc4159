"""Definitions parsed with Python's `ast` and turned into libcst-shaped trees.

libcst's parser and the walk that numbers its nodes were half of the Django front end. Python's
own parser is about ten times faster and puts line numbers on every node. This module parses a
definition with `ast` and builds the libcst nodes the deep pass reads (real libcst classes, so
`isinstance` and the `visit_X`/`_e_X` dispatch by class name keep working), holding only the
fields the analysis reads: no whitespace, comments, commas or parentheses. Start and end lines
are worked out as positions.py counts them on a libcst tree (a node starts at its first token,
parentheses, decorators and comment lines before it left out; it ends at its last name, number
or string). Anything this module does not map raises `Unsupported`, and the definition is
parsed with libcst instead (context.py), so nothing is lost.

tests/test_ast_convert.py compares the converted tree with libcst's on a fixture of tricky
syntax: same node types, same fields, same start and end lines, same source text (`syntax.code`).
"""

from __future__ import annotations

import __future__
import ast
import re
from bisect import bisect_right

import libcst as cst

from ..generated_code import run
from .spans import MAY_CLOSE as _MAY_CLOSE
from .spans import STRING_START as _STRING_START
from .spans import Unsupported, back_space, call_paren, own_parens
from .spans import skip_space as _skip_space
from .spans import string_end as _string_end

# ---------------------------------------------------------------------------------------------
# Converted node classes: subclasses of libcst's with the same name, `_pos` for their source
# text, and children/visit read from the semantic fields (libcst's own rebuild the node, which
# needs the whitespace fields a converted node does not have).

# libcst class name -> the fields a converted node holds, children fields in source order first.
_SHAPES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # name: (child fields in source order, other (non-node) fields)
    "Module": (("body",), ()),
    "Name": ((), ("value",)),
    "Integer": ((), ("value",)),
    "Float": ((), ("value",)),
    "Imaginary": ((), ("value",)),
    "SimpleString": ((), ("value",)),
    "Ellipsis": ((), ()),
    "ConcatenatedString": (("left", "right"), ()),
    "FormattedString": (("parts",), ("start", "end")),
    "FormattedStringText": ((), ("value",)),
    "FormattedStringExpression": (("expression", "format_spec"), ("conversion",)),
    "Attribute": (("value", "attr"), ()),
    "Call": (("func", "args"), ()),
    "Arg": (("keyword", "value"), ("star",)),
    "Subscript": (("value", "slice"), ()),
    "SubscriptElement": (("slice",), ()),
    "Index": (("value",), ("star",)),
    "Slice": (("lower", "upper", "step"), ()),
    "BinaryOperation": (("left", "operator", "right"), ()),
    "BooleanOperation": (("left", "operator", "right"), ()),
    "UnaryOperation": (("operator", "expression"), ()),
    "Comparison": (("left", "comparisons"), ()),
    "ComparisonTarget": (("operator", "comparator"), ()),
    "IfExp": (("body", "test", "orelse"), ()),
    "Lambda": (("params", "body"), ()),
    "Parameters": (("posonly_params", "posonly_ind", "params", "star_arg", "kwonly_params", "star_kwarg"), ()),
    "Param": (("name", "annotation", "default"), ("star",)),
    "ParamStar": ((), ()),
    "ParamSlash": ((), ()),
    "Annotation": (("annotation",), ()),
    "Tuple": (("elements",), ()),
    "List": (("elements",), ()),
    "Set": (("elements",), ()),
    "Dict": (("elements",), ()),
    "Element": (("value",), ()),
    "StarredElement": (("value",), ()),
    "DictElement": (("key", "value"), ()),
    "StarredDictElement": (("value",), ()),
    "ListComp": (("elt", "for_in"), ()),
    "SetComp": (("elt", "for_in"), ()),
    "GeneratorExp": (("elt", "for_in"), ()),
    "DictComp": (("key", "value", "for_in"), ()),
    "CompFor": (("asynchronous", "target", "iter", "ifs", "inner_for_in"), ()),
    "CompIf": (("test",), ()),
    "Asynchronous": ((), ()),
    "Await": (("expression",), ()),
    "Yield": (("value",), ()),
    "From": (("item",), ()),
    "NamedExpr": (("target", "value"), ()),
    "SimpleStatementLine": (("body",), ()),
    "SimpleStatementSuite": (("body",), ()),
    "IndentedBlock": (("body",), ()),
    "Expr": (("value",), ()),
    "Assign": (("targets", "value"), ()),
    "AssignTarget": (("target",), ()),
    "AnnAssign": (("target", "annotation", "value"), ()),
    "AugAssign": (("target", "operator", "value"), ()),
    "Return": (("value",), ()),
    "Raise": (("exc", "cause"), ()),
    "Assert": (("test", "msg"), ()),
    "Del": (("target",), ()),
    "Pass": ((), ()),
    "Break": ((), ()),
    "Continue": ((), ()),
    "Import": (("names",), ()),
    "ImportFrom": (("relative", "module", "names"), ()),
    "ImportAlias": (("name", "asname"), ()),
    "ImportStar": ((), ()),
    "AsName": (("name",), ()),
    "Dot": ((), ()),
    "Global": (("names",), ()),
    "Nonlocal": (("names",), ()),
    "NameItem": (("name",), ()),
    "If": (("test", "body", "orelse"), ()),
    "Else": (("body",), ()),
    "For": (("asynchronous", "target", "iter", "body", "orelse"), ()),
    "While": (("test", "body", "orelse"), ()),
    "Try": (("body", "handlers", "orelse", "finalbody"), ()),
    "ExceptHandler": (("type", "name", "body"), ()),
    "Finally": (("body",), ()),
    "With": (("asynchronous", "items", "body"), ()),
    "WithItem": (("item", "asname"), ()),
    "Decorator": (("decorator",), ()),
    "FunctionDef": (("decorators", "asynchronous", "name", "params", "returns", "body"), ("type_parameters",)),
    "ClassDef": (("decorators", "name", "bases", "keywords", "body"), ("type_parameters",)),
}

_OPERATORS = {
    ast.Add: "Add", ast.Sub: "Subtract", ast.Mult: "Multiply", ast.Div: "Divide",
    ast.FloorDiv: "FloorDivide", ast.Mod: "Modulo", ast.Pow: "Power", ast.LShift: "LeftShift",
    ast.RShift: "RightShift", ast.BitOr: "BitOr", ast.BitXor: "BitXor", ast.BitAnd: "BitAnd",
    ast.MatMult: "MatrixMultiply",
}
_UNARY = {ast.UAdd: "Plus", ast.USub: "Minus", ast.Not: "Not", ast.Invert: "BitInvert"}
_BOOL = {ast.And: "And", ast.Or: "Or"}
_COMPARE = {
    ast.Eq: "Equal", ast.NotEq: "NotEqual", ast.Lt: "LessThan", ast.LtE: "LessThanEqual",
    ast.Gt: "GreaterThan", ast.GtE: "GreaterThanEqual", ast.Is: "Is", ast.IsNot: "IsNot",
    ast.In: "In", ast.NotIn: "NotIn",
}
for _name in [*_OPERATORS.values(), *_UNARY.values(), *_BOOL.values(), *_COMPARE.values()]:
    _SHAPES[_name] = ((), ())
    _SHAPES[_name + "Assign"] = ((), ()) if _name in _OPERATORS.values() else _SHAPES.get(_name + "Assign", ((), ()))
_SHAPES = {name: shape for name, shape in _SHAPES.items() if hasattr(cst, name)}

_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _children(node) -> list:
    out = []
    for name in _CHILD_FIELDS[type(node)]:
        value = getattr(node, name)
        if type(value) is list:
            out.extend(value)
        elif isinstance(value, cst.CSTNode):
            out.append(value)
    return out


def _visit(node, visitor):
    """CSTNode.visit for a read-only visitor: on_visit, the children, on_leave."""
    if visitor.on_visit(node):
        for child in _children(node):
            child.visit(visitor)
    visitor.on_leave(node)
    return node


def _make_class(name: str) -> type:
    base = getattr(cst, name)
    # identity hashing as CSTNode's, in C: line tables are dicts keyed by node
    kind = type(name, (base,), {"__slots__": ("_pos",), "__module__": base.__module__,
                                "children": property(_children), "visit": _visit,
                                "__qualname__": base.__qualname__,
                                "__hash__": object.__hash__, "__eq__": object.__eq__})
    _CHILD_FIELDS[kind] = _SHAPES[name][0]
    return kind


_CLASSES: dict[str, type] = {name: _make_class(name) for name in _SHAPES}
_new = object.__new__
_set = object.__setattr__


def _maker(kind: str):
    """make(_pos, *, field=...) for one converted class: slot setters called directly (the
    dataclass constructor would validate, and a generic setter loop costs twice as much)."""
    cls = _CLASSES[kind]
    fields = [*_SHAPES[kind][0], *_SHAPES[kind][1]]
    names = {"new": object.__new__, "cls": cls, "set__pos": cls._pos.__set__}
    names.update({f"set_{f}": getattr(cls, f).__set__ for f in fields})
    star = ", *, " + ", ".join(fields) if fields else ""
    body = "".join(f"    set_{f}(o, {f})\n" for f in fields)
    run(f"def make(_pos{star}):\n    o = new(cls)\n{body}    set__pos(o, _pos)\n    return o\n", names,
        flags=__future__.annotations.compiler_flag)  # (as this module's own exec would compile it)
    return names["make"]


_MAKE = {kind: _maker(kind) for kind in _CLASSES}
_NAME = _CLASSES["Name"]
_set_value = cst.Name.value.__set__
_set_pos = _NAME._pos.__set__


def is_converted(node) -> bool:
    return type(node) in _CHILD_FIELDS




# ---------------------------------------------------------------------------------------------
# Source text: ast columns are UTF-8 byte offsets; converted to character offsets per line.

class Source:
    """The parsed text, its lines, and the character offset of each line's start.

    The lines are str.splitlines()'s, which also break at form feeds, vertical tabs and the
    separators U+001C-U+001E, U+0085, U+2028 and U+2029, where `ast` does not: the front end's
    texts have none of those (files.normalise makes them spaces), so the two number lines alike."""

    def __init__(self, text: str, first_line: int) -> None:
        self.text = text
        self.first_line = first_line
        self.lines = text.splitlines(keepends=True)
        starts = [0]
        for line in self.lines:
            starts.append(starts[-1] + len(line))
        self.starts = starts
        self.root = None          # the converted tree of text
        self.twins = None         # id(converted node) -> libcst node, made on first need (twin)
        if text.isascii():
            # Most definitions are ASCII: a byte column is a character column, and the converter
            # asks for an offset several times per node.
            self.offset = lambda lineno, col: starts[lineno - 1] + col

    def offset(self, lineno: int, col: int) -> int:
        """Character offset in text of (1-based line, UTF-8 byte column)."""
        line = self.lines[lineno - 1] if lineno <= len(self.lines) else ""
        if not line.isascii():
            col = len(line.encode("utf-8")[:col].decode("utf-8", "replace"))
        return self.starts[lineno - 1] + col

    def line_of(self, offset: int) -> int:
        """1-based line of a character offset."""
        return max(bisect_right(self.starts, offset) - 1, 0) + 1


# ---------------------------------------------------------------------------------------------

class _Converter:
    def __init__(self, source: Source) -> None:
        self.src = source
        self.off = source.first_line - 1
        self.starts: dict = {}
        self.ends: dict = {}
        self.last = source.first_line     # line of the last name, number or string seen
        self._no_pos = (source, None, "")
        self.indent = ""                  # indentation of the statement being converted

    # -- bookkeeping ---------------------------------------------------------------------------

    def _n(self, kind: str, pos, **fields):
        """A converted node; `pos` (its ast node or a _Span) gives its source text to syntax.code."""
        return _MAKE[kind](self._no_pos if pos is None else (self.src, pos, self.indent), **fields)

    def _p(self, pos):
        return self._no_pos if pos is None else (self.src, pos, self.indent)

    def _name_node(self, value: str, pos):
        node = _new(_NAME)
        _set_value(node, value)
        _set_pos(node, self._no_pos if pos is None else (self.src, pos, self.indent))
        return node

    def _done(self, node, start: int):
        """Record a node made after its children: it starts at `start` (snippet line) and ends
        at the last valued token seen."""
        self.starts[node] = start + self.off
        self.ends[node] = self.last
        return node

    def _leaf(self, kind: str, value: str, start: int, end: int, pos=None):
        """A name, number or string: a token that moves the end line (unless it has parentheses
        of its own: positions.py then walks them instead of the token, see _own_parens)."""
        node = self._name_node(value, pos) if kind == "Name" else self._n(kind, pos, value=value)
        self.starts[node] = start + self.off
        if pos is None or not self._parenthesized_leaf(pos):
            self.last = end + self.off
        elif end != start:
            raise Unsupported("parenthesized multi-line string")
        self.ends[node] = self.last
        return node

    def _parenthesized_leaf(self, pos) -> bool:
        src = self.src
        text = src.text
        if type(pos) is _Span:
            start, stop = pos.start, pos.stop
        else:
            start = src.offset(pos.lineno, pos.col_offset)
            stop = src.offset(pos.end_lineno, pos.end_col_offset)
        # Parentheses of its own need a `)` after the token and a `(` before it. Most tokens are
        # followed by something else (one character to look at), or follow something else than
        # `(` on their line; only the rest are worth own_parens' search.
        if stop >= len(text) or text[stop] not in _MAY_CLOSE:
            return False
        j = start
        while j and text[j - 1] in " \t":
            j -= 1
        if j and text[j - 1] not in "(\n\\":
            return False
        return own_parens(text, start, stop)[0] != start

    def _end_after(self, node) -> int:
        """Snippet line where the text of an ast expression ends, its own parentheses included
        (where the whitespace before the next token starts)."""
        src = self.src
        begin = src.offset(node.lineno, node.col_offset)
        stop = src.offset(node.end_lineno, node.end_col_offset)
        return src.line_of(max(own_parens(src.text, begin, stop)[1] - 1, 0))

    def _outer_start(self, made) -> int:
        """Snippet line where an expression starts with its own parentheses (what a wrapper
        node such as Arg or Element starts at)."""
        start = self.starts[made] - self.off
        pos = made._pos[1]
        if pos is None:
            return start
        src = self.src
        text = src.text
        if isinstance(pos, _Span):
            begin, stop = pos.start, pos.stop
        else:
            begin = src.offset(pos.lineno, pos.col_offset)
            kind = type(pos)
            if kind is ast.Tuple or kind is ast.GeneratorExp:
                # their ast span holds their own parentheses (a sole generator argument: the call's)
                if kind is ast.Tuple or text[begin] != "(" or not call_paren(text, begin):
                    stop = src.offset(pos.end_lineno, pos.end_col_offset)
                    return src.line_of(own_parens(text, begin, stop)[0])
                return start
            stop = src.offset(pos.end_lineno, pos.end_col_offset)
            if stop >= len(text) or text[stop] not in _MAY_CLOSE:
                return start          # no `)` after it: no parentheses of its own
            j = begin
            while j and text[j - 1] in " \t":
                j -= 1
            if j and text[j - 1] != "\n":
                return start          # the parentheses, if any, are on the same line
        opened = own_parens(text, begin, stop)[0]
        return start if opened == begin else src.line_of(opened)

    def _bare(self, kind: str, start: int, **fields):
        """A node without valued tokens (an operator, `pass`, `...`): ends where the last token was."""
        node = self._n(kind, None, **fields)
        return self._done(node, start)

    def _name(self, value: str, line: int):
        return self._leaf("Name", value, line, line)

    def _text(self, node) -> str:
        src = self.src
        return src.text[src.offset(node.lineno, node.col_offset):src.offset(node.end_lineno, node.end_col_offset)]

    def _line_after(self, lineno: int) -> int:
        """The first line after `lineno` that is not blank or a comment (the `else:`/`finally:`
        line after a block that ends on `lineno`)."""
        lines = self.src.lines
        i = lineno
        while i < len(lines):
            stripped = lines[i].strip()
            if stripped and not stripped.startswith("#"):
                return i + 1
            i += 1
        raise Unsupported("no line after block")

    def _colon_line(self, lineno: int, col: int) -> int:
        """Line of the `:` that ends a compound statement's header, searching from (lineno, col)."""
        text = self.src.text
        pos = self.src.offset(lineno, col)
        n = len(text)
        depth = 0
        while pos < n:
            pos = _skip_space(text, pos, n)
            if pos >= n:
                break
            ch = text[pos]
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
            elif ch == ":" and depth <= 0:
                return self.src.line_of(pos)
            elif ch in "'\"" or (ch.isalpha() and _STRING_START.match(text, pos) and ch in "rRbBuUfF"):
                if _STRING_START.match(text, pos):
                    pos = _string_end(text, pos)
                    continue
            pos += 1
        raise Unsupported("no colon")

    # -- expressions ---------------------------------------------------------------------------

    def expr(self, node):
        method = _EXPRESSIONS.get(type(node))
        if method is None:
            raise Unsupported(type(node).__name__)
        return method(self, node)

    def opt(self, node):
        return None if node is None else self.expr(node)

    def e_Name(self, node):
        return self._leaf("Name", node.id, node.lineno, node.end_lineno, node)

    def e_Constant(self, node):
        value = node.value
        if value is None or value is True or value is False:
            return self._leaf("Name", repr(value), node.lineno, node.end_lineno, node)
        if value is Ellipsis:
            made = _MAKE["Ellipsis"](self._p(node))
            return self._done(made, node.lineno)
        if isinstance(value, (str, bytes)):
            return self._strings(node, [])
        text = self._text(node)
        if text[-1:] in "jJ":
            kind = "Imaginary"
        elif isinstance(value, int):
            kind = "Integer"
        else:
            kind = "Float"
        return self._leaf(kind, text, node.lineno, node.end_lineno, node)

    def e_JoinedStr(self, node):
        return self._strings(node, [v for v in node.values if isinstance(v, ast.FormattedValue)])

    def _strings(self, node, values: list):
        """One string literal or implicitly concatenated ones: SimpleString/FormattedString,
        nested right into ConcatenatedString as libcst does."""
        src = self.src
        text = src.text
        pos = src.offset(node.lineno, node.col_offset)
        end = src.offset(node.end_lineno, node.end_col_offset)
        pieces = []
        while True:
            stop = _string_end(text, pos)
            pieces.append((pos, stop))
            pos = _skip_space(text, stop, end)
            if pos >= end:
                break
        values = list(values)
        made = []
        for start, stop in pieces:
            line = src.line_of(start)
            raw = text[start:stop]
            prefix = _STRING_START.match(raw)
            if "f" in prefix.group(0).lower():
                if "\n" in raw:
                    raise Unsupported("multi-line f-string")
                made.append(self._fstring(raw, prefix, line, values))
            else:
                made.append(self._leaf("SimpleString", raw, line, src.line_of(stop - 1), _Span(start, stop)))
        if values:
            raise Unsupported("f-string parts not matched")
        right = made[-1]
        for i in range(len(made) - 2, -1, -1):
            right = self._n("ConcatenatedString", _Span(pieces[i][0], pieces[-1][1]), left=made[i], right=right)
            self.starts[right] = self.starts[made[i]]
            self.ends[right] = self.last
        return right

    def _fstring(self, raw: str, prefix, line: int, values: list):
        quote = prefix.group(1)
        body_start = prefix.end()
        body = raw[body_start:len(raw) - len(quote)]
        parts = self._fparts(body, line, values)
        made = _MAKE["FormattedString"](self._no_pos, parts=parts, start=raw[:body_start], end=quote)
        return self._done(made, line)

    def _fparts(self, body: str, line: int, values: list) -> list:
        parts = []
        i = 0
        n = len(body)
        text_start = 0
        while i < n:
            ch = body[i]
            if ch == "\\" :
                i += 2
                continue
            if ch in "{}":
                if body.startswith(ch * 2, i):
                    i += 2
                    continue
                if ch == "}":
                    raise Unsupported("stray } in f-string")
                if i > text_start:
                    parts.append(self._leaf("FormattedStringText", body[text_start:i], line, line))
                i = self._fexpression(body, i, line, values, parts)
                text_start = i
                continue
            i += 1
        if n > text_start:
            parts.append(self._leaf("FormattedStringText", body[text_start:n], line, line))
        return parts

    def _fexpression(self, body: str, i: int, line: int, values: list, parts: list) -> int:
        """One `{expression!conversion:spec}` of an f-string starting at body[i]; returns the
        offset after its closing brace."""
        depth = 0
        j = i + 1
        n = len(body)
        quote = None
        expr_end = conv_at = spec_at = None
        while j < n:
            ch = body[j]
            if quote:
                if ch == quote:
                    quote = None
            elif ch in "'\"":
                quote = ch
            elif ch in "([{":
                depth += 1
            elif ch in ")]" or ch == "}" and depth > 0:
                depth -= 1
            elif depth == 0 and ch == "!" and body[j + 1:j + 2] != "=":
                expr_end = j
                conv_at = j + 1
            elif depth == 0 and ch == ":" and conv_at is None or depth == 0 and ch == ":" and conv_at is not None:
                if expr_end is None:
                    expr_end = j
                spec_at = j + 1
                break
            elif depth == 0 and ch == "}":
                if expr_end is None:
                    expr_end = j
                break
            elif depth == 0 and ch == "=" and body[j + 1:j + 2] in ("}", "!", ":") and body[j - 1:j] not in "=!<>":
                raise Unsupported("f-string self-documenting expression")
            j += 1
        else:
            raise Unsupported("unterminated f-string expression")
        if not values:
            raise Unsupported("f-string expression without value")
        value = values.pop(0)
        expression = self.expr(value.value)
        conversion = body[conv_at:(spec_at - 1 if spec_at is not None else j)].strip() if conv_at is not None else None
        format_spec = None
        if spec_at is not None:
            # the spec runs to the matching closing brace; nested {…} are expressions too
            k = spec_at
            nested = 0
            while k < n:
                if body[k] == "{":
                    nested += 1
                elif body[k] == "}":
                    if nested == 0:
                        break
                    nested -= 1
                k += 1
            else:
                raise Unsupported("unterminated format spec")
            spec_values = [v for v in value.format_spec.values if isinstance(v, ast.FormattedValue)] \
                if value.format_spec is not None else []
            format_spec = self._fparts(body[spec_at:k], line, spec_values)
            if spec_values:
                raise Unsupported("format spec parts not matched")
            j = k
        made = _MAKE["FormattedStringExpression"](self._no_pos, expression=expression, conversion=conversion,
                     format_spec=format_spec)
        self._done(made, line)
        parts.append(made)
        return j + 1

    def e_Attribute(self, node):
        value = self.expr(node.value)
        attr = self._name(node.attr, node.end_lineno)
        return self._done(_MAKE["Attribute"](self._p(node), value=value, attr=attr), node.lineno)

    def e_Call(self, node):
        func = self.expr(node.func)
        args = [self._arg(item) for item in _in_source_order(node.args, node.keywords)]
        return self._done(_MAKE["Call"](self._p(node), func=func, args=args), node.lineno)

    def _arg(self, node):
        if isinstance(node, ast.keyword):
            if node.arg is None:
                value = self.expr(node.value)
                return self._done(_MAKE["Arg"](self._no_pos, keyword=None, value=value, star="**"), node.lineno)
            keyword = self._name(node.arg, node.lineno)
            value = self.expr(node.value)
            return self._done(_MAKE["Arg"](self._no_pos, keyword=keyword, value=value, star=""), node.lineno)
        if isinstance(node, ast.Starred):
            value = self.expr(node.value)
            return self._done(_MAKE["Arg"](self._no_pos, keyword=None, value=value, star="*"), node.lineno)
        value = self.expr(node)
        return self._done(_MAKE["Arg"](self._no_pos, keyword=None, value=value, star=""), self._outer_start(value))

    def e_Subscript(self, node):
        value = self.expr(node.value)
        slice_node = node.slice
        if isinstance(slice_node, ast.Tuple) and not self._parenthesized(slice_node):
            elements = [self._subscript_element(e) for e in slice_node.elts]
        else:
            elements = [self._subscript_element(slice_node)]
        return self._done(_MAKE["Subscript"](self._p(node), value=value, slice=elements), node.lineno)

    def _subscript_element(self, node):
        if isinstance(node, ast.Slice):
            lower, upper, step = self.opt(node.lower), self.opt(node.upper), self.opt(node.step)
            made = self._done(_MAKE["Slice"](self._p(node), lower=lower, upper=upper, step=step), node.lineno)
        elif isinstance(node, ast.Starred):
            raise Unsupported("starred subscript")
        else:
            value = self.expr(node)
            made = self._done(_MAKE["Index"](self._no_pos, value=value, star=None), self._outer_start(value))
        return self._done(_MAKE["SubscriptElement"](self._no_pos, slice=made), self._outer_start(made))

    def _parenthesized(self, node) -> bool:
        """A tuple whose span is its own parentheses."""
        text = self._text(node)
        if not text.startswith("("):
            return False
        depth = 0
        i = 0
        n = len(text)
        while i < n:
            ch = text[i]
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
                if depth == 0:
                    return i == n - 1
            elif ch == "#":
                i = text.find("\n", i)
                if i < 0:
                    return False
            elif _STRING_START.match(text, i) and (ch in "'\"" or not (text[i - 1:i].isalnum() or text[i - 1:i] == "_")):
                i = _string_end(text, i)
                continue
            i += 1
        return False

    def e_BinOp(self, node):
        left = self.expr(node.left)
        operator = self._bare(_OPERATORS[type(node.op)], self._end_after(node.left))
        right = self.expr(node.right)
        return self._done(_MAKE["BinaryOperation"](self._p(node), left=left, operator=operator, right=right), node.lineno)

    def e_BoolOp(self, node):
        values = node.values
        left = self.expr(values[0])
        src = self.src
        begin = src.offset(node.lineno, node.col_offset)
        previous = values[0]
        for index, value in enumerate(values[1:], 1):
            operator = self._bare(_BOOL[type(node.op)], self._end_after(previous))
            right = self.expr(value)
            pos = node
            if index < len(values) - 1:   # `a and b and c`: libcst's inner `a and b` spans less
                stop = src.offset(value.end_lineno, value.end_col_offset)
                stop = own_parens(src.text, src.offset(value.lineno, value.col_offset), stop)[1]
                pos = _Span(begin, stop)
            left = self._done(_MAKE["BooleanOperation"](self._p(pos), left=left, operator=operator, right=right),
                              node.lineno)
            previous = value
        return left

    def e_UnaryOp(self, node):
        operator = self._bare(_UNARY[type(node.op)], node.lineno)
        expression = self.expr(node.operand)
        return self._done(_MAKE["UnaryOperation"](self._p(node), operator=operator, expression=expression), node.lineno)

    def e_Compare(self, node):
        left = self.expr(node.left)
        comparisons = []
        previous = node.left
        for op, comparator in zip(node.ops, node.comparators):
            operator = self._bare(_COMPARE[type(op)], self._end_after(previous))
            previous = comparator
            value = self.expr(comparator)
            comparisons.append(self._done(_MAKE["ComparisonTarget"](self._no_pos, operator=operator, comparator=value),
                                          self.starts[operator] - self.off))
        return self._done(_MAKE["Comparison"](self._p(node), left=left, comparisons=comparisons), node.lineno)

    def e_IfExp(self, node):
        body = self.expr(node.body)
        test = self.expr(node.test)
        orelse = self.expr(node.orelse)
        return self._done(_MAKE["IfExp"](self._p(node), body=body, test=test, orelse=orelse), node.lineno)

    def e_Lambda(self, node):
        params = self._parameters(node.args, node.lineno, lambda_=True)
        body = self.expr(node.body)
        return self._done(_MAKE["Lambda"](self._p(node), params=params, body=body), node.lineno)

    def e_NamedExpr(self, node):
        target = self.expr(node.target)
        value = self.expr(node.value)
        return self._done(_MAKE["NamedExpr"](self._p(node), target=target, value=value), node.lineno)

    def e_Await(self, node):
        expression = self.expr(node.value)
        return self._done(_MAKE["Await"](self._p(node), expression=expression), node.lineno)

    def e_Yield(self, node):
        value = self.opt(node.value)
        return self._done(_MAKE["Yield"](self._p(node), value=value), node.lineno)

    def e_YieldFrom(self, node):
        item = self.expr(node.value)
        value = self._done(_MAKE["From"](self._no_pos, item=item), node.lineno)
        return self._done(_MAKE["Yield"](self._p(node), value=value), node.lineno)

    def _elements(self, elts) -> list:
        out = []
        for elt in elts:
            if isinstance(elt, ast.Starred):
                value = self.expr(elt.value)
                out.append(self._done(_MAKE["StarredElement"](self._p(elt), value=value), elt.lineno))
            else:
                value = self.expr(elt)
                out.append(self._done(_MAKE["Element"](self._no_pos, value=value), self._outer_start(value)))
        return out

    def e_Tuple(self, node):
        elements = self._elements(node.elts)
        start = self.starts[elements[0]] - self.off if elements else node.end_lineno
        return self._done(_MAKE["Tuple"](self._p(node), elements=elements), start)

    def e_List(self, node):
        return self._done(_MAKE["List"](self._p(node), elements=self._elements(node.elts)), node.lineno)

    def e_Set(self, node):
        return self._done(_MAKE["Set"](self._p(node), elements=self._elements(node.elts)), node.lineno)

    def e_Dict(self, node):
        elements = []
        for key, value in zip(node.keys, node.values):
            if key is None:
                item = self.expr(value)
                elements.append(self._done(_MAKE["StarredDictElement"](self._no_pos, value=item), value.lineno))
            else:
                made_key = self.expr(key)
                made_value = self.expr(value)
                elements.append(self._done(_MAKE["DictElement"](self._no_pos, key=made_key, value=made_value),
                                           self._outer_start(made_key)))
        return self._done(_MAKE["Dict"](self._p(node), elements=elements), node.lineno)

    def _comprehension(self, generators, before):
        """The `for … in … if …` chain; each part starts where the whitespace before its keyword
        does, at the end of what precedes it (`before`, an ast node)."""
        made = []
        for gen in generators:
            gen_start = self._end_after(before)
            asynchronous = self._bare("Asynchronous", gen.target.lineno) if gen.is_async else None
            target = self.expr(gen.target)
            iter_ = self.expr(gen.iter)
            ifs = []
            before = gen.iter
            for test in gen.ifs:
                if_start = self._end_after(before)
                made_test = self.expr(test)
                ifs.append(self._done(_MAKE["CompIf"](self._no_pos, test=made_test), if_start))
                before = test
            made.append((asynchronous, target, iter_, ifs, gen_start))
        # inner_for_in nests the later `for`s inside the earlier; ends are those of the last
        inner = None
        for asynchronous, target, iter_, ifs, gen_start in reversed(made):
            comp = _MAKE["CompFor"](self._no_pos, asynchronous=asynchronous, target=target, iter=iter_, ifs=ifs,
                           inner_for_in=inner)
            self._done(comp, gen_start)
            inner = comp
        return inner

    def e_ListComp(self, node):
        elt = self.expr(node.elt)
        for_in = self._comprehension(node.generators, node.elt)
        return self._done(_MAKE["ListComp"](self._p(node), elt=elt, for_in=for_in), node.lineno)

    def e_SetComp(self, node):
        elt = self.expr(node.elt)
        for_in = self._comprehension(node.generators, node.elt)
        return self._done(_MAKE["SetComp"](self._p(node), elt=elt, for_in=for_in), node.lineno)

    def e_GeneratorExp(self, node):
        elt = self.expr(node.elt)
        for_in = self._comprehension(node.generators, node.elt)
        return self._done(_MAKE["GeneratorExp"](self._p(node), elt=elt, for_in=for_in), self._outer_start(elt))

    def e_DictComp(self, node):
        key = self.expr(node.key)
        value = self.expr(node.value)
        for_in = self._comprehension(node.generators, node.value)
        return self._done(_MAKE["DictComp"](self._p(node), key=key, value=value, for_in=for_in), node.lineno)

    # -- parameters ------------------------------------------------------------------------------

    def _param(self, arg, star, default, lambda_):
        name = self._leaf("Name", arg.arg, arg.lineno, arg.lineno)
        annotation = None
        if arg.annotation is not None and not lambda_:
            value = self.expr(arg.annotation)
            annotation = self._done(_MAKE["Annotation"](self._no_pos, annotation=value), self.starts[name] - self.off)
        made_default = self.opt(default)
        return self._done(_MAKE["Param"](self._no_pos, name=name, annotation=annotation, default=made_default, star=star),
                          arg.lineno)

    def _parameters(self, args: ast.arguments, line: int, lambda_: bool = False):
        positional = args.posonlyargs + args.args
        defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        posonly = [self._param(a, "", defaults[i], lambda_) for i, a in enumerate(args.posonlyargs)]
        posonly_ind = cst.MaybeSentinel.DEFAULT
        if posonly:
            posonly_ind = self._bare("ParamSlash", self.last - self.off)
        skip = len(args.posonlyargs)
        params = [self._param(a, "", defaults[skip + i], lambda_) for i, a in enumerate(args.args)]
        star_arg = cst.MaybeSentinel.DEFAULT
        if args.vararg is not None:
            star_arg = self._param(args.vararg, "*", None, lambda_)
        elif args.kwonlyargs:
            first = args.kwonlyargs[0]
            at = back_space(self.src.text, self.src.offset(first.lineno, first.col_offset))
            while at > 0 and self.src.text[at - 1] in ",*":
                at = back_space(self.src.text, at - 1)
            star = self.src.text.find("*", at)
            star_arg = self._bare("ParamStar", self.src.line_of(star))
        kwonly = [self._param(a, "", d, lambda_) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
        star_kwarg = self._param(args.kwarg, "**", None, lambda_) if args.kwarg is not None else None
        made = _MAKE["Parameters"](self._no_pos, posonly_params=posonly, posonly_ind=posonly_ind, params=params,
                     star_arg=star_arg, kwonly_params=kwonly, star_kwarg=star_kwarg)
        kids = _children(made)
        self.starts[made] = self.starts[kids[0]] if kids else line + self.off
        self.ends[made] = self.last
        return made

    # -- statements ----------------------------------------------------------------------------

    def block(self, statements: list, header_line: int):
        """The body of a compound statement: an indented block, or statements after the colon."""
        if statements[0].lineno == header_line:
            body = self._small_line(statements)
            made = _MAKE["SimpleStatementSuite"](self._no_pos, body=body)
            return self._done(made, header_line)
        body = self.statements(statements)
        made = _MAKE["IndentedBlock"](self._no_pos, body=body)
        return self._done(made, header_line)

    def statements(self, statements: list) -> list:
        out = []
        i = 0
        n = len(statements)
        outer = self.indent
        lines = self.src.lines
        while i < n:
            stmt = statements[i]
            line = lines[stmt.lineno - 1]
            self.indent = line[:len(line) - len(line.lstrip(" \t"))]
            method = _COMPOUND.get(type(stmt))
            if method is not None:
                out.append(method(self, stmt))
                i += 1
                continue
            j = i + 1
            while j < n and statements[j].lineno == statements[j - 1].end_lineno \
                    and type(statements[j]) not in _COMPOUND:
                j += 1
            body = self._small_line(statements[i:j])
            made = _MAKE["SimpleStatementLine"](self._no_pos, body=body)
            self.starts[made] = self.starts[body[0]]
            self.ends[made] = self.last
            out.append(made)
            i = j
        self.indent = outer
        return out

    def _small_line(self, statements: list) -> list:
        out = []
        for stmt in statements:
            method = _SMALL.get(type(stmt))
            if method is None:
                raise Unsupported(type(stmt).__name__)
            out.append(method(self, stmt))
        return out

    def s_Expr(self, node):
        value = self.expr(node.value)
        return self._done(_MAKE["Expr"](self._no_pos, value=value), self._outer_start(value))

    def s_Assign(self, node):
        targets = []
        for target in node.targets:
            made = self.expr(target)
            targets.append(self._done(_MAKE["AssignTarget"](self._no_pos, target=made), self._outer_start(made)))
        value = self.expr(node.value)
        return self._done(_MAKE["Assign"](self._no_pos, targets=targets, value=value), node.lineno)

    def s_AnnAssign(self, node):
        target = self.expr(node.target)
        annotation_value = self.expr(node.annotation)
        annotation = self._done(_MAKE["Annotation"](self._no_pos, annotation=annotation_value),
                                self._end_after(node.target))
        value = self.opt(node.value)
        return self._done(_MAKE["AnnAssign"](self._no_pos, target=target, annotation=annotation, value=value), node.lineno)

    def s_AugAssign(self, node):
        target = self.expr(node.target)
        operator = self._bare(_OPERATORS[type(node.op)] + "Assign", self.last - self.off)
        value = self.expr(node.value)
        return self._done(_MAKE["AugAssign"](self._no_pos, target=target, operator=operator, value=value), node.lineno)

    def s_Return(self, node):
        value = self.opt(node.value)
        return self._done(_MAKE["Return"](self._no_pos, value=value), node.lineno)

    def s_Raise(self, node):
        exc = self.opt(node.exc)
        cause = None
        if node.cause is not None:
            item = self.expr(node.cause)
            cause = self._done(_MAKE["From"](self._no_pos, item=item), self._end_after(node.exc))
        return self._done(_MAKE["Raise"](self._no_pos, exc=exc, cause=cause), node.lineno)

    def s_Assert(self, node):
        test = self.expr(node.test)
        msg = self.opt(node.msg)
        return self._done(_MAKE["Assert"](self._no_pos, test=test, msg=msg), node.lineno)

    def s_Delete(self, node):
        if len(node.targets) == 1:
            target = self.expr(node.targets[0])
        else:
            elements = self._elements(node.targets)
            target = self._done(_MAKE["Tuple"](self._no_pos, elements=elements), self.starts[elements[0]] - self.off)
        return self._done(_MAKE["Del"](self._no_pos, target=target), node.lineno)

    def s_Pass(self, node):
        return self._bare("Pass", node.lineno)

    def s_Break(self, node):
        return self._bare("Break", node.lineno)

    def s_Continue(self, node):
        return self._bare("Continue", node.lineno)

    def _dotted(self, dotted: str, line: int, end_line: int):
        parts = dotted.split(".")
        made = self._name(parts[0], line)
        for part in parts[1:]:
            attr = self._name(part, end_line)
            made = self._done(_MAKE["Attribute"](self._no_pos, value=made, attr=attr), self._outer_start(made))
        return made

    def _alias(self, alias):
        name = self._dotted(alias.name, alias.lineno, alias.lineno)
        asname = None
        if alias.asname is not None:
            as_name = self._name(alias.asname, alias.end_lineno)
            asname = self._done(_MAKE["AsName"](self._no_pos, name=as_name), self.ends[name] - self.off)
        return self._done(_MAKE["ImportAlias"](self._no_pos, name=name, asname=asname), alias.lineno)

    def s_Import(self, node):
        names = [self._alias(a) for a in node.names]
        return self._done(_MAKE["Import"](self._no_pos, names=names), node.lineno)

    def s_ImportFrom(self, node):
        relative = [self._bare("Dot", node.lineno) for _ in range(node.level or 0)]
        module = self._dotted(node.module, node.lineno, node.lineno) if node.module else None
        if len(node.names) == 1 and node.names[0].name == "*":
            names = self._bare("ImportStar", node.lineno)
        else:
            names = [self._alias(a) for a in node.names]
        return self._done(_MAKE["ImportFrom"](self._no_pos, relative=relative, module=module, names=names), node.lineno)

    def _global(self, node, kind: str):
        names = []
        for name in node.names:
            made = self._name(name, node.lineno)
            names.append(self._done(_MAKE["NameItem"](self._no_pos, name=made), node.lineno))
        return self._done(self._n(kind, None, names=names), node.lineno)

    def s_Global(self, node):
        if node.end_lineno != node.lineno:
            raise Unsupported("global over lines")
        return self._global(node, "Global")

    def s_Nonlocal(self, node):
        if node.end_lineno != node.lineno:
            raise Unsupported("nonlocal over lines")
        return self._global(node, "Nonlocal")

    # compound statements

    def _else(self, statements: list, after_line: int, kind: str = "Else"):
        """An `else:`/`finally:` clause after a block whose last statement ends on after_line."""
        line = self._line_after(after_line)
        body = self.block(statements, self._colon_line(line, 0))
        return self._done(self._n(kind, None, body=body), line)

    def c_If(self, node):
        test = self.expr(node.test)
        body = self.block(node.body, self._colon_line(node.test.end_lineno, node.test.end_col_offset))
        orelse = None
        if node.orelse:
            first = node.orelse[0]
            if len(node.orelse) == 1 and isinstance(first, ast.If) \
                    and self.src.lines[first.lineno - 1].lstrip().startswith("elif") \
                    and self._line_after(node.body[-1].end_lineno) == first.lineno:
                orelse = self.c_If(first)
            else:
                orelse = self._else(node.orelse, node.body[-1].end_lineno)
        return self._done(_MAKE["If"](self._no_pos, test=test, body=body, orelse=orelse), node.lineno)

    def c_While(self, node):
        test = self.expr(node.test)
        body = self.block(node.body, self._colon_line(node.test.end_lineno, node.test.end_col_offset))
        orelse = self._else(node.orelse, node.body[-1].end_lineno) if node.orelse else None
        return self._done(_MAKE["While"](self._no_pos, test=test, body=body, orelse=orelse), node.lineno)

    def c_For(self, node, asynchronous=None):
        target = self.expr(node.target)
        iter_ = self.expr(node.iter)
        body = self.block(node.body, self._colon_line(node.iter.end_lineno, node.iter.end_col_offset))
        orelse = self._else(node.orelse, node.body[-1].end_lineno) if node.orelse else None
        return self._done(_MAKE["For"](self._no_pos, asynchronous=asynchronous, target=target, iter=iter_, body=body,
                                orelse=orelse), node.lineno)

    def c_AsyncFor(self, node):
        return self.c_For(node, self._bare("Asynchronous", node.lineno))

    def c_Try(self, node):
        body = self.block(node.body, self._colon_line(node.lineno, node.col_offset + 3))
        handlers = []
        for handler in node.handlers:
            kind = self.opt(handler.type)
            name = None
            if handler.name is not None:
                as_name = self._name(handler.name, handler.type.end_lineno)
                name = self._done(_MAKE["AsName"](self._no_pos, name=as_name), self._end_after(handler.type))
            if handler.type is not None:
                header = self._colon_line(handler.type.end_lineno, handler.type.end_col_offset)
            else:
                header = self._colon_line(handler.lineno, handler.col_offset + 6)
            handler_body = self.block(handler.body, header)
            handlers.append(self._done(_MAKE["ExceptHandler"](self._no_pos, type=kind, name=name, body=handler_body),
                                       handler.lineno))
        last_end = (node.handlers[-1].body if node.handlers else node.body)[-1].end_lineno
        orelse = None
        if node.orelse:
            orelse = self._else(node.orelse, last_end)
            last_end = node.orelse[-1].end_lineno
        finalbody = self._else(node.finalbody, last_end, "Finally") if node.finalbody else None
        return self._done(_MAKE["Try"](self._no_pos, body=body, handlers=handlers, orelse=orelse, finalbody=finalbody),
                          node.lineno)

    def c_With(self, node, asynchronous=None):
        text = self.src.lines[node.lineno - 1]
        keyword_at = self.src.offset(node.lineno, node.col_offset) - self.src.starts[node.lineno - 1]
        after = text[keyword_at:].split("with", 1)[1].lstrip() if "with" in text[keyword_at:] else ""
        if after.startswith("(") and self.src.offset(node.items[0].context_expr.lineno,
                                                     node.items[0].context_expr.col_offset) \
                != self.src.offset(node.lineno, node.col_offset) + len(text[keyword_at:]) - len(after):
            raise Unsupported("parenthesized with items")
        items = []
        for item in node.items:
            made = self.expr(item.context_expr)
            asname = None
            if item.optional_vars is not None:
                target = self.expr(item.optional_vars)
                asname = self._done(_MAKE["AsName"](self._no_pos, name=target), self._end_after(item.context_expr))
            items.append(self._done(_MAKE["WithItem"](self._no_pos, item=made, asname=asname), self._outer_start(made)))
        last = node.items[-1].optional_vars or node.items[-1].context_expr
        body = self.block(node.body, self._colon_line(last.end_lineno, last.end_col_offset))
        return self._done(_MAKE["With"](self._no_pos, asynchronous=asynchronous, items=items, body=body), node.lineno)

    def c_AsyncWith(self, node):
        return self.c_With(node, self._bare("Asynchronous", node.lineno))

    def _decorators(self, node) -> list:
        out = []
        for decorator in node.decorator_list:
            made = self.expr(decorator)
            out.append(self._done(_MAKE["Decorator"](self._no_pos, decorator=made), decorator.lineno))
        return out

    def c_FunctionDef(self, node, asynchronous=None):
        decorators = self._decorators(node)
        if asynchronous is True:
            asynchronous = self._bare("Asynchronous", node.lineno)
        text = self.src.lines[node.lineno - 1]
        name_line = node.lineno
        if not _names_definition(text, "def", node.name):
            raise Unsupported("def split over lines")
        name = self._name(node.name, name_line)
        params = self._parameters(node.args, name_line)
        returns = None
        if node.returns is not None:
            value = self.expr(node.returns)
            returns = self._done(_MAKE["Annotation"](self._no_pos, annotation=value), self._outer_start(value))
        header = self._def_colon(node)
        body = self.block(node.body, header)
        return self._done(_MAKE["FunctionDef"](self._no_pos, decorators=decorators, asynchronous=asynchronous, name=name,
                                params=params, returns=returns, body=body, type_parameters=None), node.lineno)

    def _def_colon(self, node) -> int:
        if node.returns is not None:
            return self._colon_line(node.returns.end_lineno, node.returns.end_col_offset)
        args = node.args
        everything = [*args.posonlyargs, *args.args, *args.kwonlyargs, *args.defaults,
                      *(d for d in args.kw_defaults if d is not None)]
        if args.vararg is not None:
            everything.append(args.vararg)
        if args.kwarg is not None:
            everything.append(args.kwarg)
        if not everything:
            return self._colon_line(node.lineno, self._after_name(node))
        last = max(everything, key=lambda n: (n.end_lineno, n.end_col_offset))
        return self._colon_line(last.end_lineno, last.end_col_offset)

    def _after_name(self, node) -> int:
        line = self.src.lines[node.lineno - 1]
        start = next(m.end() for m in _DEFINES.finditer(line) if m.group(2) == node.name)
        return len(line[:start].encode("utf-8"))

    def c_AsyncFunctionDef(self, node):
        return self.c_FunctionDef(node, asynchronous=True)

    def c_ClassDef(self, node):
        decorators = self._decorators(node)
        text = self.src.lines[node.lineno - 1]
        if not _names_definition(text, "class", node.name):
            raise Unsupported("class split over lines")
        name = self._name(node.name, node.lineno)
        items = [(a.lineno, a.col_offset, a) for a in node.bases] + \
                [(k.lineno, k.col_offset, k) for k in node.keywords]
        items.sort(key=lambda item: (item[0], item[1]))
        bases, keywords = [], []
        for item in items:
            arg = self._arg(item[2])
            (keywords if arg.keyword is not None or arg.star == "**" else bases).append(arg)
        if items:
            last = max((i[2] for i in items), key=lambda n: (n.end_lineno, n.end_col_offset))
            header = self._colon_line(last.end_lineno, last.end_col_offset)
        else:
            header = self._colon_line(node.lineno, self._after_name(node))
        body = self.block(node.body, header)
        return self._done(_MAKE["ClassDef"](self._no_pos, decorators=decorators, name=name, bases=bases, keywords=keywords,
                                body=body, type_parameters=None), node.lineno)


def _methods(prefix: str) -> dict:
    """ast node class -> the converter's method for it (`e_Name` for ast.Name): looked up by type."""
    return {getattr(ast, name[len(prefix):]): method for name, method in vars(_Converter).items()
            if name.startswith(prefix) and hasattr(ast, name[len(prefix):])}


_EXPRESSIONS = _methods("e_")
_COMPOUND = _methods("c_")      # statements with a block of their own
_SMALL = _methods("s_")         # statements of a line


_DEFINES = re.compile(r"\b(def|class)\s+(\w+)")


def _in_source_order(args: list, keywords: list) -> list:
    """A call's positional and keyword arguments as they are written: ast keeps them apart, each
    in order, and a keyword comes before a positional one only with `*` unpacking (`f(a=1, *b)`)."""
    if not keywords:
        return args
    if not args or (args[-1].lineno, args[-1].col_offset) < (keywords[0].lineno, keywords[0].col_offset):
        return [*args, *keywords]
    return sorted([*args, *keywords], key=lambda item: (item.lineno, item.col_offset))


def _names_definition(line: str, keyword: str, name: str) -> bool:
    """Whether `keyword name` is on the line (not split over lines by a backslash)."""
    return any(m.group(1) == keyword and m.group(2) == name for m in _DEFINES.finditer(line))


class _Span:
    """The character span of a node with no ast node of its own (one piece of a concatenation)."""

    __slots__ = ("start", "stop")

    def __init__(self, start: int, stop: int) -> None:
        self.start = start
        self.stop = stop


# What convert() and convert_expression() raise for a text they do not convert: the caller parses it
# with libcst instead, which reports any syntax error the text has.
NOT_CONVERTED = (SyntaxError, ValueError, RecursionError, MemoryError, Unsupported)


def convert(text: str, first_line: int) -> tuple[cst.Module, dict, dict, Source]:
    """Parse `text` (whose first line is line `first_line` of its file) with ast and convert it.

    Raises SyntaxError/ValueError/RecursionError as ast.parse does, Unsupported for what is not
    mapped."""
    tree = ast.parse(text)
    source = Source(text, first_line)
    converter = _Converter(source)
    body = converter.statements(tree.body)
    module = converter._n("Module", None, body=body)
    converter.starts[module] = first_line
    converter.ends[module] = converter.last
    source.root = module
    return module, converter.starts, converter.ends, source


def convert_expression(text: str):
    """One expression (the value of a module- or class-level assignment, as the index keeps
    it) parsed with ast and converted. Raises as convert() does; SyntaxError for text that is
    not a single expression."""
    return _Converter(Source(text, 1)).expr(ast.parse(text, mode="eval").body)


def pairs(converted, real):
    """(converted node, libcst node) for every node of a converted tree and the libcst tree of the
    same text, matched field by field; ValueError where the two differ in shape."""
    stack = [(converted, real)]
    while stack:
        mine, theirs = stack.pop()
        name = type(mine).__name__
        if type(theirs).__name__ != name or not isinstance(theirs, cst.CSTNode):
            raise ValueError(f"{name} converted where libcst has {type(theirs).__name__}")
        yield mine, theirs
        children, others = _SHAPES[name]
        for field in others:
            if getattr(mine, field) != getattr(theirs, field):
                raise ValueError(f"{name}.{field}: {getattr(mine, field)!r} != {getattr(theirs, field)!r}")
        for field in reversed(children):
            a, b = getattr(mine, field), getattr(theirs, field)
            if isinstance(a, list) or isinstance(b, (list, tuple)) and isinstance(a, list):
                if not isinstance(b, (list, tuple)) or len(a) != len(b):
                    raise ValueError(f"{name}.{field}: {len(a)} converted, libcst has {b!r:.80}")
                stack.extend(reversed(list(zip(a, b))))
            elif isinstance(a, cst.CSTNode):
                stack.append((a, b))
            elif a != b and not (a is None and b is cst.MaybeSentinel.DEFAULT):
                raise ValueError(f"{name}.{field}: {a!r} != {b!r:.80}")


def twin(node):
    """The libcst node of the same text as a converted node (parsed again, once per definition)."""
    source = node._pos[0]
    if source.twins is None:
        from .parsing import parse_module
        real = parse_module(source.text)
        source.twins = {id(mine): theirs for mine, theirs in pairs(source.root, real)}
    return source.twins[id(node)]
