"""A cheap text pass over TypeScript for hygiene rules that look outside transactions.

Comments, strings and template literals are blanked (same length, newlines kept) so that
braces and identifiers can be matched with regular expressions without a TypeScript parser in
the Python process; positions in the masked text are positions in the source.
"""

from __future__ import annotations


def mask(source: str) -> str:
    out = list(source)
    i, n = 0, len(source)

    def blank(start: int, end: int) -> None:
        for k in range(start, min(end, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        ch = source[i]
        nxt = source[i + 1] if i + 1 < n else ""
        if ch == "/" and nxt == "/":
            end = source.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif ch == "/" and nxt == "*":
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            blank(i, end)
            i = end
        elif ch in "'\"`":
            j = i + 1
            while j < n and source[j] != ch:
                if source[j] == "\\":
                    j += 1
                elif ch != "`" and source[j] == "\n":
                    break
                j += 1
            blank(i + 1, j)
            i = j + 1
        else:
            i += 1
    return "".join(out)


def enclosing_block(masked: str, offset: int) -> tuple[int, int]:
    """(start, end) offsets of the innermost `{ ... }` around an offset (the whole text if none)."""
    depth = 0
    start = 0
    for k in range(offset, -1, -1):
        ch = masked[k]
        if ch == "}":
            depth += 1
        elif ch == "{":
            if depth == 0:
                start = k
                break
            depth -= 1
    else:
        return 0, len(masked)
    depth = 0
    for k in range(start, len(masked)):
        ch = masked[k]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return start, k + 1
    return start, len(masked)


def block_ranges(masked: str, keyword: str) -> list[tuple[int, int]]:
    """Offsets of the blocks opened by a keyword (`finally`, `catch (...)`)."""
    import re

    out = []
    for match in re.finditer(rf"\b{keyword}\b[^{{;]*\{{", masked):
        brace = match.end() - 1
        out.append(enclosing_block(masked, brace + 1))
    return out


def line_col(source: str, offset: int) -> tuple[int, int]:
    line = source.count("\n", 0, offset) + 1
    col = offset - (source.rfind("\n", 0, offset) + 1) + 1
    return line, col
