"""Token-level reading of Python source between the positions `ast` gives: string literals,
the whitespace and comments between tokens, and which parentheses belong to an expression."""

from __future__ import annotations

import keyword
import re


class Unsupported(Exception):
    """A construct the converter does not map: the caller parses the definition with libcst."""


STRING_START = re.compile(r"[rRbBuUfF]{0,2}('''|\"\"\"|'|\")")


def string_end(text: str, pos: int) -> int:
    """End offset of the string literal starting at pos (its prefix included)."""
    match = STRING_START.match(text, pos)
    if match is None:
        raise Unsupported("not a string literal")
    quote = match.group(1)
    begin = i = match.end()
    while True:
        j = text.find(quote, i)
        if j < 0:
            raise Unsupported("unterminated string")
        k = j
        while k > begin and text[k - 1] == "\\":
            k -= 1
        if (j - k) % 2 == 0:   # not escaped
            if len(quote) == 1 and "\n" in text[begin:j].replace("\\\n", ""):
                raise Unsupported("unterminated string")
            return j + len(quote)
        i = j + 1


_SPACE = " \t\n\r\f\\"  # what skip_space passes over, besides comments
# What may come right after a token that has a `)` of its own after it: the `)`, or what
# skip_space passes over before it (whitespace, a line continuation, a comment's `#`).
MAY_CLOSE = frozenset(_SPACE + "#)")


def skip_space(text: str, pos: int, end: int) -> int:
    """Past whitespace, line continuations and comments between two tokens."""
    while pos < end:
        ch = text[pos]
        if ch in _SPACE:
            pos += 1
        elif ch == "#":
            newline = text.find("\n", pos)
            pos = end if newline < 0 else newline
        else:
            break
    return pos


def back_space(text: str, i: int) -> int:
    """Back over whitespace and line continuations before offset i (comments are not skipped:
    a `(` followed by a comment keeps the comment in the parenthesised node's text)."""
    while i > 0:
        ch = text[i - 1]
        if ch in " \t\f":
            i -= 1
        elif ch == "\n":
            # a newline inside parentheses: the line before may end with a comment
            line_start = text.rfind("\n", 0, i - 1) + 1
            line = text[line_start:i - 1]
            hash_at = comment_start(line)
            i = line_start + (hash_at if hash_at is not None else len(line))
            if i > 0 and text[i - 1] == "\\":
                i -= 1
        else:
            break
    return i


def comment_start(line: str) -> int | None:
    """Where a comment starts on a line (outside string literals), None without one."""
    if "#" not in line:
        return None
    i = 0
    n = len(line)
    while i < n:
        ch = line[i]
        if ch == "#":
            return i
        if ch in "'\"":
            quote = ch * 3 if line.startswith(ch * 3, i) else ch
            end = line.find(quote, i + len(quote))
            while end > 0 and line[end - 1] == "\\" and len(quote) == 1:
                end = line.find(quote, end + 1)
            if end < 0:
                return None
            i = end + len(quote)
            continue
        i += 1
    return None


def call_paren(text: str, at: int) -> bool:
    """Whether the `(` at offset `at` opens a call's (or a def's, a class's) arguments rather
    than grouping: it follows a name that is not a keyword, a closing bracket or a string."""
    j = back_space(text, at)
    if j == 0 or "\n" in text[j:at]:
        return False            # at the start of a line: a statement's or a bracket's grouping
    ch = text[j - 1]
    if ch in ")]'\"":
        return True
    if ch.isalnum() or ch == "_":
        k = j
        while k > 0 and (text[k - 1].isalnum() or text[k - 1] == "_"):
            k -= 1
        word = text[k:j]
        return not keyword.iskeyword(word) and not word.isdigit()
    return False



def own_parens(text: str, start: int, stop: int) -> tuple[int, int]:
    """The span start..stop widened to the parentheses that are the expression's own (libcst
    keeps them on the innermost node they enclose; those of a call are the call's)."""
    # Parentheses of its own need a `)` right after the span: looking there first spares the
    # backward search (back_space) for most expressions, which are followed by something else.
    n = len(text)
    after = skip_space(text, stop, n)
    if after >= n or text[after] != ")":
        return start, stop
    opens = []
    i = start
    while True:
        j = back_space(text, i)
        if j > 0 and text[j - 1] == "(":
            opens.append(j - 1)
            i = j - 1
        else:
            break
    if not opens:
        return start, stop
    closes = []
    i = after
    while len(closes) < len(opens):
        i = skip_space(text, i, n)
        if i < n and text[i] == ")":
            closes.append(i)
            i += 1
        else:
            break
    count = len(closes)
    if count and count == len(opens) and call_paren(text, opens[count - 1]):
        count -= 1
    if count:
        return opens[count - 1], closes[count - 1] + 1
    return start, stop


def reindent(text: str, indent: str) -> str:
    """Text of a node as libcst prints it alone: a line that continues inside brackets loses
    the indentation of the block the statement is in (libcst keeps it as "indented"); lines
    inside string literals and after a backslash keep theirs."""
    if not indent or "\n" not in text:
        return text
    out = []
    i = 0
    n = len(text)
    piece = 0
    while i < n:
        ch = text[i]
        if ch == "\n":
            if (i == 0 or text[i - 1] != "\\") and text.startswith(indent, i + 1):
                out.append(text[piece:i + 1])
                i += 1 + len(indent)
                piece = i
                continue
        elif ch == "#":
            newline = text.find("\n", i)
            i = n if newline < 0 else newline
            continue
        elif ch in "'\"" or (ch in "rRbBuUfF" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_"))
                            and STRING_START.match(text, i)):
            if STRING_START.match(text, i):
                try:
                    i = string_end(text, i)
                except Unsupported:
                    return text
                continue
        i += 1
    out.append(text[piece:])
    return "".join(out)
