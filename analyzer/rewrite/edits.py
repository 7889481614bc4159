"""Text edits and rewrites: the data a fix is made of, and how edits are applied."""

from __future__ import annotations

import difflib
import itertools
from dataclasses import dataclass


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
    """The smallest line-level edits turning `old` into `new` (a codemod's output into edits)."""
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    offsets = [0]
    for line in old_lines:
        offsets.append(offsets[-1] + len(line))
    edits = []
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            edits.append(Edit(path, offsets[i1], offsets[i2], "".join(new_lines[j1:j2])))
    return tuple(edits)


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
