"""Checks of rewritten source before it is shown as code: it parses, and it names only
attributes the entity has. libcst is imported by the Python checks only: a TypeScript scan
does not load it."""

from __future__ import annotations

import bisect
import re
import warnings
from dataclasses import dataclass
from functools import cached_property, lru_cache


def python_parses(path: str, text: str, original: str | None = None, edits=()) -> str | None:
    """None when `text` is valid Python; otherwise why not. libcst accepts some code the
    compiler rejects (a repeated keyword argument), so both parse it; nothing is executed.

    Given the `original` text and the `edits` that made `text` of it, only the top-level
    statements the edits fall in are parsed again (see edited_chunks); the original must have
    been parsed by libcst already (a rewrite is built from its tree). Whenever a check of the
    parts fails, or cannot be made, the whole text is checked, so a refusal says what it said
    when whole files were parsed."""
    chunks = edited_chunks(original, edits) if original is not None and edits else None
    if chunks is not None and all(_parse_problem("", chunk) is None for _first, chunk in chunks):
        return None
    return _parse_problem(path, text)


def _parse_problem(path: str, text: str) -> str | None:
    import libcst as cst

    from ..django.parsing import parse_module as parse_unchecked

    try:
        # Whether libcst's parser accepts the text: its per-node validation of what it parsed
        # only confirms what the grammar guaranteed (django/parsing.py), so it is left out.
        parse_unchecked(text)
    except cst.ParserSyntaxError as exc:
        return f"{path}:{exc.raw_line}: {exc.message}"
    return compile_problem(path, text)


def compile_problem(path: str, text: str) -> str | None:
    """What Python's compiler refuses in the text, None when it compiles."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return f"{path}:{exc.lineno}: {exc.msg}"
    return None


@dataclass(frozen=True)
class Outline:
    """A module's top level as Python's own parser sees it (the compiler accepted the text)."""
    spans: tuple[tuple[int, int], ...]  # (first line, last line) of each top-level statement, decorators included
    offsets: tuple[int, ...]  # offset of each line's start
    future: int  # last line of the `from __future__` imports, 0 without
    groups: tuple[tuple[int, int], ...]  # the same, statements sharing a line joined (libcst's statements)
    kinds: tuple[str, ...]  # per group: "import" (imports only), "expr" (imports and expressions), "def", "other"
    names: tuple[str | None, ...]  # per group: a function's name
    transaction: str | None  # local name of `from django.db import transaction` at module level
    f_import: tuple | None  # (module,) of the first module-level `from module import F`

    @cached_property
    def starts(self) -> list[int]:
        """The first line of each group, for bisect (once per module, not per rewrite)."""
        return [start for start, _end in self.groups]


@lru_cache(maxsize=512)
def outline(original: str) -> Outline | None:
    """The Outline of a text the compiler accepts; None when it does not, or when it numbers lines
    differently from a split at newlines (a bare carriage return). Compiled and outlined once per
    text (python_top_level.py), for planning and for the checks of every rewrite of the module."""
    from .python_top_level import statements as top_level

    if original.count("\r") != original.count("\r\n"):
        return None
    found = top_level(original)
    if found is None:
        return None
    offsets = [0]
    for line in original.split("\n")[:-1]:
        offsets.append(offsets[-1] + len(line) + 1)
    future = max((s.end for s in found if s.future), default=0)
    groups: list[list] = []
    for statement in found:
        if groups and statement.start <= groups[-1][1]:
            groups[-1][1] = max(groups[-1][1], statement.end)
            groups[-1][2].append(statement)
        else:
            groups.append([statement.start, statement.end, [statement]])
    kinds, names = [], []
    for _start, _end, statements in groups:
        if all(s.kind == "import" for s in statements):
            kinds.append("import")
        elif all(s.kind in ("import", "expr") for s in statements):
            kinds.append("expr")
        elif len(statements) == 1 and statements[0].kind == "def":
            kinds.append("def")
        else:
            kinds.append("other")
        names.append(statements[0].name if kinds[-1] == "def" else None)
    transaction = f_import = None
    for statement in found:
        if statement.from_import is None:
            continue
        module, aliases = statement.from_import
        for name, asname in aliases:
            if transaction is None and module == "django.db" and name == "transaction":
                transaction = asname or "transaction"
            if f_import is None and name == "F" and asname is None:
                f_import = (module,)
    return Outline(tuple((s.start, s.end) for s in found), tuple(offsets), future,
                   tuple((a, b) for a, b, _ in groups), tuple(kinds), tuple(names), transaction, f_import)


def top_level_statements(original: str) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...], int] | None:
    """((first line, last line) of each top-level statement, decorators included; offset of each
    line's start; last line of the `from __future__` imports, 0 without) of a text the compiler
    accepts; None when it does not (see outline)."""
    found = outline(original)
    return None if found is None else (found.spans, found.offsets, found.future)


def edited_chunks(original: str, edits) -> list[tuple[int, str]] | None:
    """(first line in the edited text, text) of each run of the original's top-level statements
    that `edits` fall in (with the statement just above each edit, whose end it may move), with
    the edits applied. Each run begins and ends where a top-level statement does, so the edited
    text parses and compiles exactly when each run does: the rest is the original's text, which
    the compiler accepted (checked here, once per file) and libcst parsed to build the rewrite.
    Statements are found by Python's own parser (C, an order of magnitude faster than libcst).
    None when the original does not compile, edits overlap or an edit is above the end of its
    `from __future__` imports (which only the start of a file may hold): the caller checks the
    whole text."""
    found = top_level_statements(original)
    if found is None:
        return None
    spans, offsets, future = found
    starts = [start for start, _end in spans]

    def line_of(offset: int) -> int:
        return bisect.bisect_right(offsets, offset)

    runs: list[list] = []  # [first line, last line, edits] in the original
    for edit in sorted(set(edits), key=lambda e: (e.start, e.end)):
        if runs and edit.start < runs[-1][2][-1].end:
            return None
        first, last = line_of(edit.start), line_of(max(edit.end - 1, edit.start))
        if first <= future:  # what comes before a __future__ import decides whether it compiles
            return None
        low = max(bisect.bisect_left(starts, first) - 1, 0)
        high = bisect.bisect_right(starts, line_of(edit.end)) - 1
        if high >= low:
            first, last = min(first, spans[low][0]), max([last, *(end for _start, end in spans[low:high + 1])])
        if runs and first <= runs[-1][1] + 1:
            runs[-1][1] = max(runs[-1][1], last)
            runs[-1][2].append(edit)
        else:
            runs.append([first, last, [edit]])
    out, shift = [], 0
    for first, last, run_edits in runs:
        begin = offsets[first - 1]
        end = offsets[last] if last < len(offsets) else len(original)
        pieces, cursor = [], begin
        for edit in run_edits:
            pieces += [original[cursor:edit.start], edit.text]
            cursor = edit.end
        pieces.append(original[cursor:end])
        out.append((first + shift, "".join(pieces)))
        shift += sum(e.text.count("\n") - original.count("\n", e.start, e.end) for e in run_edits)
    return out


def unknown_attributes(entity: dict | None, attributes) -> list[str]:
    """The attributes (Django lookups allowed: `stock__gte`) the entity does not have."""
    if entity is None:
        return sorted(set(attributes))
    known = set(entity.get("fields", [])) | set(entity.get("pk", [])) | {"pk"}
    known |= {f"{r['attribute']}_id" for r in entity.get("relations", [])}
    return sorted({a for a in attributes if a.split("__", 1)[0] not in known})


def queryset_keywords(text: str, lines: list[tuple[int, int]], chunks=None) -> set[str]:
    """Keyword names passed to filter()/exclude()/get()/update() on the given lines of `text`;
    given `chunks` (edited_chunks, holding those lines), only they are parsed."""
    import libcst as cst

    from ..django.parsing import parse_module as parse_unchecked
    from ..django.positions import line_numbers

    names = set()
    for first, chunk in chunks if chunks is not None else [(1, text)]:
        starts, _ends = line_numbers(parse_unchecked(chunk), first_line=first)  # (only read)
        for node, line in starts.items():
            if (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                    and node.func.attr.value in ("filter", "exclude", "get", "update")
                    and any(a <= line <= b for a, b in lines)):
                names.update(arg.keyword.value for arg in node.args if arg.keyword is not None)
    return names


_INCREMENT = re.compile(r"\.(?:increment|decrement)\(\s*(\w+)\s*,\s*\{([^{}]*)\}\s*,\s*\"(\w+)\"")
_KEY = re.compile(r"(?:^|,)\s*(\w+)\s*(?::|,|$)")


def typeorm_increments(text: str, lines: list[tuple[int, int]]) -> list[tuple[str, list[str]]]:
    """(entity, attributes named) of each `increment(Entity, { key: ... }, "column", n)` on the lines."""
    out = []
    all_lines = text.splitlines()
    for first, last in lines:
        for match in _INCREMENT.finditer("\n".join(all_lines[first - 1:last])):
            keys = _KEY.findall(match.group(2))
            out.append((match.group(1), [*keys, match.group(3)]))
    return out
