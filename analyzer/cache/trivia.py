"""Whether a definition changed only in comment and blank lines, and where its lines went.

A walk reads a definition as Python's parser gives it: comments and blank lines are no part of
it, only the lines of everything else are. So a definition whose *code lines* (every line but
those holding nothing or only a comment) are the same text in the same order as when a
transaction was walked gives the same walk, each location on a code line moved to where that
line is today (analyzer/cache/django.py moves the kept result instead of walking again).

A line that looks like a comment or is blank may lie inside a string spanning lines; there it is
text of the program. So the layout kept for a definition (`layout`, cheap: one pass over its
lines) digests its code lines, numbers the others and digests each run of them between two code
lines (a *gap*); today's text is tokenized (`line_map`, only for a definition whose text changed)
and the change is taken as trivia only when every gap inside a string spanning lines today is the
same text as then. Outside strings such lines are comments and blank lines whatever they say;
inside, the string's text from its first line to its last is then what it is today, so it ends
where it does today and the tokens of then and now are the same, comments aside. A backslash
continuation joins a line to the next, so a definition holding one is never taken (neither then
nor now), nor one the tokenizer reads with an error token (Python 3.12's f-strings spanning lines).
"""

from __future__ import annotations

import io
import tokenize

from .cachefile import text_digest


def _is_trivia(line: str) -> bool:
    stripped = line.lstrip(" \t\f\r\n")  # the whitespace of Python's tokenizer, no other
    return not stripped or stripped.startswith("#")


def _continued(line: str) -> bool:
    return line.rstrip("\r\n").endswith("\\")


def layout(lines: list[str]) -> str | None:
    """`code digest:offsets of the other lines:gaps` of a definition's lines (with their ends),
    None when a line continues on the next (a backslash at its end) or ends otherwise than with a
    newline but the last (str.splitlines cuts at form feeds and other separators too). A gap is
    `n=digest` of the lines between code lines n-1 and n (0-based)."""
    code, others, gaps = [], [], {}
    for offset, line in enumerate(lines):
        if _continued(line) or (not line.endswith("\n") and offset < len(lines) - 1):
            return None  # (a line cut at another separator than a newline: not the tokenizer's rows)
        if _is_trivia(line):
            others.append(str(offset))
            gaps.setdefault(len(code), []).append(line)
        else:
            code.append(line)
    gap_digests = ",".join(f"{n}={text_digest(''.join(texts))}" for n, texts in gaps.items())
    return f"{text_digest(''.join(code))}:{','.join(others)}:{gap_digests}"


def _string_rows(text: str) -> list[tuple[int, int]] | None:
    """(first, last) 0-based rows of every string token spanning lines; None when the text does
    not tokenize cleanly."""
    rows = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.ERRORTOKEN:
                return None
            if token.type == tokenize.STRING and token.end[0] > token.start[0]:
                rows.append((token.start[0] - 1, token.end[0] - 1))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    return rows


def line_map(kept: str | None, first: int, lines: list[str], first_now: int) -> dict[int, int] | None:
    """Old line -> today's line of every code line of a definition kept with layout `kept` at
    line `first`, whose lines today (`lines`) start at `first_now`; None unless only comment and
    blank lines changed outside strings (module docstring)."""
    now = layout(lines)
    if kept is None or now is None:
        return None
    kept_code, kept_others, kept_gaps = kept.split(":")
    code, others, gaps = now.split(":")
    if code != kept_code:
        return None
    trivia_now = {int(o) for o in others.split(",") if o}
    code_rows_now = [row for row in range(len(lines)) if row not in trivia_now]
    code_index_now = {row: index for index, row in enumerate(code_rows_now)}
    trivia_then = {int(o) for o in kept_others.split(",") if o}
    code_rows_then = [row for row in range(len(code_rows_now) + len(trivia_then)) if row not in trivia_then]
    if len(code_rows_then) != len(code_rows_now):
        return None  # the kept offsets do not fit today's code lines
    spans = _string_rows("".join(lines))
    if spans is None:
        return None
    gaps_then, gaps_now = _gaps(kept_gaps), _gaps(gaps)
    for start, end in spans:
        first_code, last_code = code_index_now.get(start), code_index_now.get(end)
        if first_code is None or last_code is None:
            return None  # a string ending on a line that looks like a comment: not taken
        if any(gaps_then.get(n) != gaps_now.get(n) for n in range(first_code + 1, last_code + 1)):
            return None  # text inside the string changed
    return {first + then: first_now + now_row for then, now_row in zip(code_rows_then, code_rows_now)}


def _gaps(text: str) -> dict[int, str]:
    return {int(n): digest for n, _, digest in (item.partition("=") for item in text.split(",") if item)}
