"""Text edits and rewrites: the data a fix is made of, and how edits are applied."""

from __future__ import annotations

import difflib
import itertools
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Edit:
    path: str  # '/'-separated, relative to the scanned root
    start: int  # offsets into the file's text
    end: int
    text: str


@dataclass(frozen=True)
class Rewrite:
    kind: str  # on-commit, f-expression, conditional-update, reconnaissance, ts-increment, ts-manager
    title: str
    edits: tuple[Edit, ...]
    verified: bool  # parsed, names only the entity's fields, and re-analysis confirmed the claim
    claim: str  # what re-analysis of the rewritten code confirmed (or, unverified, what it would claim)
    step_line: int  # line of the statement or effect the rewrite is about (in the original file)


class Refused(Exception):
    """A rewrite would not be safe or cannot be located; the message says why (shown as prose)."""


class EditConflict(ValueError):
    pass


def apply(text: str, edits) -> str:
    """`text` with `edits` (all for this one file) applied; overlapping edits are an error."""
    ordered = sorted(set(edits), key=lambda e: (e.start, e.end))
    for before, after in itertools.pairwise(ordered):
        if after.start < before.end:
            raise EditConflict(f"overlapping edits at offsets {before.start} and {after.start}")
    out, cursor = [], 0
    for edit in ordered:
        out.append(text[cursor:edit.start])
        out.append(edit.text)
        cursor = edit.end
    out.append(text[cursor:])
    return "".join(out)


def diff_edits(path: str, old: str, new: str) -> tuple[Edit, ...]:
    """The smallest line-level edits turning `old` into `new` (a codemod's output into edits):
    difflib's, over the whole files.

    difflib's cost grows with a file's repeated lines (blank lines, `return`s) while a rewrite
    changes a few lines of it, so the lines both texts start and end with are set aside first
    where that provably gives difflib's own result (see _ends)."""
    old_lines, offsets, codes = _lines(old)
    new_lines = new.splitlines(keepends=True)
    head, tail = _ends(old_lines, new_lines, codes)
    matcher = difflib.SequenceMatcher(a=old_lines[head:len(old_lines) - tail],
                                      b=new_lines[head:len(new_lines) - tail], autojunk=False)
    return tuple(Edit(path, offsets[head + i1], offsets[head + i2], "".join(new_lines[head + j1:head + j2]))
                 for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal")


@lru_cache(maxsize=8)
def _lines(text: str) -> tuple[list[str], list[int], list[int]]:
    """The lines of `text` (ends kept), the offset of each line's start (and of the end), and a
    number per distinct line: computed once per file, not once per rewrite of it."""
    lines = text.splitlines(keepends=True)
    offsets = [0, *itertools.accumulate(len(line) for line in lines)]
    ids: dict[str, int] = {}
    codes = [ids.setdefault(line, len(ids) + 1) for line in lines]
    return lines, offsets, codes


def _ends(old: list[str], new: list[str], codes: list[int]) -> tuple[int, int]:
    """How many lines at the start and at the end of both texts difflib matches before the rest
    (0, 0 when that cannot be shown). difflib first matches the longest common run of lines
    (the earliest on a tie), then the longest in what is left on each side. The common head and
    tail are those runs (the longer first, the head on a tie) unless another common run is at
    least as long as the shorter of them; such a run has at least a fifth of its length, less
    the changed lines, outside the changed lines on both sides, which is then a run of the old
    text found at two places. Where the old text repeats no run of that length, it is neither."""
    most = min(len(old), len(new))
    head = 0
    while head < most and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < most and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    if tail > head:
        head = min(head, most - tail)
    else:
        tail = min(tail, most - head)
    changed = len(old) + len(new) - 2 * (head + tail)
    shorter = min(head, tail) or max(head, tail)
    if _repeats(codes, (shorter - changed) // 5):
        return 0, 0
    return head, tail


def _repeats(codes: list[int], run: int) -> bool:
    """Some `run` consecutive lines occur at two places of the lines numbered `codes` (a number
    per distinct line; run < 1: unknown). Windows are compared by a rolling hash: a collision
    only makes the answer a cautious yes."""
    if run < 1:
        return True
    if run > len(codes) - 1:
        return False
    base, modulus = 1_000_003, (1 << 61) - 1
    top = pow(base, run - 1, modulus)
    value = 0
    for code in codes[:run]:
        value = (value * base + code) % modulus
    seen = {value}
    for index in range(run, len(codes)):
        value = ((value - codes[index - run] * top) * base + codes[index]) % modulus
        if value in seen:
            return True
        seen.add(value)
    return False


def map_line(text: str, edits, line: int) -> int:
    """Where line `line` of `text` is after `edits` (lines added or removed above it shift it)."""
    lines = text.splitlines(keepends=True)
    offset = sum(len(x) for x in lines[:line - 1])
    shift = 0
    for edit in edits:
        if edit.end <= offset:
            shift += edit.text.count("\n") - text[edit.start:edit.end].count("\n")
    return line + shift


def edits_by_path(edits) -> dict[str, list[Edit]]:
    grouped: dict[str, list[Edit]] = {}
    for edit in edits:
        grouped.setdefault(edit.path, []).append(edit)
    return grouped


def new_line_ranges(text: str, edits) -> list[tuple[int, int]]:
    """The (first, last) lines each edit's text occupies in the edited file (line-aligned edits)."""
    ranges = []
    for edit in sorted(edits, key=lambda e: e.start):
        first = map_line(text, edits, text[:edit.start].count("\n") + 1)
        ranges.append((first, first + max(edit.text.count("\n") - 1, 0)))
    return ranges

