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

    difflib matches the longest run of lines both texts have (the earliest on a tie), then
    matches what is left on each side of it the same way. Its search costs grow with a file's
    repeated lines (blank lines, `return`s) while a rewrite changes a few lines of it; at each
    step, the run both texts start or end with is taken without a search where it is provably
    the one difflib finds (_common_end), and difflib searches the rest."""
    return _diff(path, old, new.splitlines(keepends=True))


def diff_replaced_lines(path: str, old: str, first: int, last: int, replacement: str) -> tuple[Edit, ...]:
    """diff_edits(path, old, new) for the `new` text that is `old` with its lines first..last-1
    (0-based, as str.splitlines numbers them) replaced by `replacement`, without building `new`
    and splitting it into lines again: its lines are the old ones around the new ones.

    That holds when `replacement` ends a line with "\n" (a "\r" could join the "\n" starting
    the line after it) and does not start with "\n" (which the "\r" ending the line before it
    would join). Otherwise the new text is built and diffed as diff_edits does."""
    old_lines, offsets, _runs = _lines(old)
    if not (0 <= first <= last <= len(old_lines)):
        raise ValueError(f"lines {first}..{last} are not lines of the text")
    if not replacement.endswith("\n") or replacement.startswith("\n"):
        return diff_edits(path, old, old[:offsets[first]] + replacement + old[offsets[last]:])
    return _diff(path, old, [*old_lines[:first], *replacement.splitlines(keepends=True), *old_lines[last:]])


def _diff(path: str, old: str, new_lines: list[str]) -> tuple[Edit, ...]:
    old_lines, offsets, runs = _lines(old)
    edits = []
    i = j = 0
    for a, b, size in [*_matching_blocks(old_lines, new_lines, runs), (len(old_lines), len(new_lines), 0)]:
        if i < a or j < b:
            edits.append(Edit(path, offsets[i], offsets[a], "".join(new_lines[j:b])))
        i, j = a + size, b + size
    return tuple(edits)


def text_lines(text: str) -> tuple[list[str], list[int]]:
    """The lines of `text` as str.splitlines(keepends=True) gives them (the caller must not
    change the list), and the offset of each line's start (and of the end): made once per file
    and shared with diff_edits."""
    lines, offsets, _runs = _lines(text)
    return lines, offsets


@lru_cache(maxsize=8)
def _lines(text: str) -> tuple[list[str], list[int], "_Runs"]:
    """The lines of `text` (ends kept), the offset of each line's start (and of the end), and
    which runs of its lines repeat: computed once per file, not once per rewrite of it."""
    lines = text.splitlines(keepends=True)
    offsets = [0, *itertools.accumulate(len(line) for line in lines)]
    ids: dict[str, int] = {}
    return lines, offsets, _Runs([ids.setdefault(line, len(ids) + 1) for line in lines])


class _Runs:
    """Whether some run of a file's lines occurs at two places, by a number per distinct line
    (`codes`). What was found for the whole file is kept: a run found twice has its shorter
    parts found twice, and one found once its longer ones (the rewrites of one file ask about
    runs of many lengths)."""

    def __init__(self, codes: list[int]) -> None:
        self.codes = codes
        self.repeated = 0  # a run this long occurs twice
        self.unique = max(len(codes), 1)  # no run this long does

    def repeat(self, run: int, lo: int, hi: int) -> bool:
        """Some `run` consecutive lines of codes[lo:hi] occur twice there (run < 1: unknown).
        The whole file is asked first: where no run that long repeats in it, none does in part."""
        if run < 1:
            return True
        if run >= self.unique:
            return False
        if run > self.repeated:
            if _repeats(self.codes, run):
                self.repeated = run
            else:
                self.unique = run
                return False
        return lo == 0 and hi == len(self.codes) or _repeats(self.codes[lo:hi], run)


def _matching_blocks(a: list[str], b: list[str], runs: "_Runs") -> list[tuple[int, int, int]]:
    """difflib.SequenceMatcher(a=a, b=b, autojunk=False)'s matching blocks (before it joins
    adjacent ones, which leaves the differences as they are): its own loop, each range's longest
    match taken from _common_end where that shows it, else from difflib's search (over the two
    ranges alone, which finds what a search over the whole texts limited to them finds)."""
    queue = [(0, len(a), 0, len(b))]
    blocks = []
    while queue:
        alo, ahi, blo, bhi = queue.pop()
        found = _common_end(a, b, runs, alo, ahi, blo, bhi)
        if found is None:
            match = difflib.SequenceMatcher(a=a[alo:ahi], b=b[blo:bhi], autojunk=False).find_longest_match()
            found = (alo + match.a, blo + match.b, match.size)
        i, j, k = found
        if k:
            blocks.append(found)
            if alo < i and blo < j:
                queue.append((alo, i, blo, j))
            if i + k < ahi and j + k < bhi:
                queue.append((i + k, ahi, j + k, bhi))
    blocks.sort()
    return blocks


def _common_end(a: list[str], b: list[str], runs: "_Runs", alo: int, ahi: int, blo: int,
                bhi: int) -> tuple[int, int, int] | None:
    """The longest match difflib finds in a[alo:ahi] and b[blo:bhi] when it is the run both start
    with (head) or end with (tail); None when that cannot be shown.

    Say the tail is the longer (the head case is the same, mirrored; the head also wins ties, as
    difflib takes the earliest). Write the ranges as H X T and H Y T (h, x, y, t lines; H the
    common head, cut where it would reach T). Take another match of t or more lines. Its lines
    facing H in the second range equal lines of the first range at another offset, unless it
    lies on the head's diagonal; those facing T likewise, unless it lies on the tail's; at most
    y face Y. With no run of r lines found twice in the first range, fewer than r lines face H
    and fewer than r face T off those diagonals: t <= 2r - 2 + y. On the tail's diagonal it lies
    left of the tail (the tail cannot grow), within H Y: t <= h + y, or, where the two
    diagonals differ (x != y), fewer than r face H: t <= r - 1 + y. On the head's diagonal it
    lies within H (at most h lines, fewer than t) or beside it, where an uncut head ends at a
    line the two ranges do not share (the ends leave lines between them, h + t <= the shorter
    range): it starts right of H, fewer than r lines face T, t <= r - 1 + y; a cut head gives
    at most h lines facing H: t <= h + r - 1 + y. So with t >= 2r - 1 + y, and t > h when the
    ends leave lines between them, else t >= h + y + r, the tail is the only match of t lines."""
    most = min(ahi - alo, bhi - blo)
    head = _common_length(lambda n: a[alo:alo + n] == b[blo:blo + n], most)
    tail = _common_length(lambda n: a[ahi - n:ahi] == b[bhi - n:bhi], most)
    if head + tail <= most:  # neither end was cut
        long_end, other = max(head, tail), min(head, tail)
        middle = bhi - blo - head - tail  # y: lines of the second range in neither end
        run = (long_end - middle + 1) // 2
    else:
        if tail > head:
            long_end, other = tail, min(head, most - tail)
        else:
            long_end, other = head, min(tail, most - head)
        middle = bhi - blo - long_end - other
        run = min(long_end - other - middle, (long_end - middle + 1) // 2)
    if runs.repeat(run, alo, ahi):
        return None
    if tail > head:
        return ahi - tail, bhi - tail, tail
    return alo, blo, head


def _common_length(same, most: int) -> int:
    """The largest n <= most with same(n) (lines compared as slices, which Python compares
    without a loop of its own; same(n) holds for every n up to the answer)."""
    low, high = 0, most
    while low < high:
        middle = (low + high + 1) // 2
        if same(middle):
            low = middle
        else:
            high = middle - 1
    return low


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


@lru_cache(maxsize=256)
def _line_offsets(text: str) -> list[int]:
    """The offset of each line's start (and of the end), as _lines gives them, without the
    repeated runs: map_line asks about every file of a round, twice."""
    return [0, *itertools.accumulate(len(line) for line in text.splitlines(keepends=True))]


def map_line(text: str, edits, line: int) -> int:
    """Where line `line` of `text` is after `edits` (lines added or removed above it shift it)."""
    offsets = _line_offsets(text)  # made once per file, not once per line asked
    offset = offsets[line - 1] if 0 <= line - 1 < len(offsets) else \
        sum(len(x) for x in text.splitlines(keepends=True)[:line - 1])
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

