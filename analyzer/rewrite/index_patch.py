"""The index facts of an edited file, patched from the scan's instead of indexing the file again:
only the top-level definitions the edits fall in are parsed (RepoIndex.index_lines), and every
definition below an edit is moved by the lines the edits above it added or removed.

A patch is made only where it is provably what indexing the whole edited file gives; otherwise
the answer is None and the caller indexes the file whole:
- the file indexed without errors and Python 2 statements, and so does each edited definition;
- every edit lies inside one top-level `def` or `class` (decorators included) starting at column
  0, and the definition's new text still ends at a line end;
- parsed alone, the new text is one definition of the same name, from its first line to its
  last (a statement added at column 0 would end it earlier), defining the same functions in the
  same order, and adding nothing to the module's imports and assignments (a class body's
  imports and assignments are module facts: a class is compared with its old text parsed alone).
tree-sitter parses a top-level statement the same alone as amid its file: at its boundaries
the indentation is 0 and nothing is pending.
"""

from __future__ import annotations

import bisect
import itertools
from dataclasses import dataclass

from ..django.files import SourceFile
from ..django.index import ClassInfo, ModuleInfo, RepoIndex
from .edits import Edit


@dataclass
class _Region:
    """One edited top-level definition: its old lines and offsets, and its edits."""
    first: int
    last: int
    start: int
    end: int
    name: str
    is_class: bool
    edits: list


def patched_module(index: RepoIndex, old: ModuleInfo, old_text: str, source: SourceFile,
                   edits: list[Edit]) -> ModuleInfo | None:
    """`old` (the facts of `old_text`, a fresh copy: it is changed and returned) made the facts of
    `source` (`old_text` with `edits`), or None where that is not provably what `index.add` of
    `source` gives."""
    if old.has_error or old.python2_line or not edits:
        return None
    starts = _line_starts(old_text)
    regions = _regions(old, old_text, starts, edits)
    if regions is None:
        return None
    new_text = source.text
    chars = lines = 0  # what the edits above the current region added
    moves: list[tuple[int, int]] = []  # (old last line of a region, lines added up to its end)
    fresh_by_region = []
    for region, inside in zip(regions, _functions_inside(old, regions)):
        added_chars = sum(len(e.text) - (e.end - e.start) for e in region.edits)
        added_lines = sum(e.text.count("\n") - old_text.count("\n", e.start, e.end) for e in region.edits)
        start, end = region.start + chars, region.end + chars + added_chars
        if end < len(new_text) and new_text[end - 1] != "\n":
            return None
        first, last = region.first + lines, region.last + lines + added_lines
        fresh = index.index_lines(old, source, new_text[start:end], first)
        if not _stands_alone(old, region, inside, fresh, first, last, index, old_text):
            return None
        fresh_by_region.append((region, fresh))
        chars += added_chars
        lines += added_lines
        moves.append((region.last, lines))
    return _merged(old, source, fresh_by_region, moves)


def _line_starts(text: str) -> list[int]:
    """Offsets of the lines' starts (line n starts at [n - 1]), and the text's end (lines as
    tree-sitter numbers them: split at newlines only)."""
    starts = [0, *itertools.accumulate(len(line) + 1 for line in text.split("\n"))]
    if text.endswith("\n") or not text:
        starts.pop()  # (the empty line after the last newline)
    else:
        starts[-1] = len(text)
    return starts


def _regions(old: ModuleInfo, old_text: str, starts: list[int], edits: list[Edit]) -> list[_Region] | None:
    """The top-level definitions holding the edits (each edit inside one), in file order."""
    tops = sorted([(fn.line, fn.end_line, fn.qualname, False) for fn in old.functions.values()
                   if fn.parent is None and fn.cls is None]
                  + [(cls.line, cls.end_line, name, True) for name, cls in old.classes.items()])
    # Top-level definitions do not overlap; one that seems to (a definition in an `if` block
    # beside another of the same name) is left to the whole file's indexing.
    if any(after[0] <= before[1] for before, after in itertools.pairwise(tops)):
        return None
    firsts = [top[0] for top in tops]
    regions: dict[int, _Region] = {}
    for edit in sorted(set(edits), key=lambda e: (e.start, e.end)):
        line = bisect.bisect_right(starts, edit.start)  # the line the edit starts on
        at = bisect.bisect_right(firsts, line) - 1
        if at < 0:
            return None
        first, last, name, is_class = tops[at]
        if last >= len(starts):
            return None
        start, end = starts[first - 1], starts[last]
        if not (start <= edit.start and edit.end <= end) or old_text[start:start + 1] in ("", " ", "\t", "\n", "#"):
            return None
        regions.setdefault(at, _Region(first, last, start, end, name, is_class, [])).edits.append(edit)
    return [regions[at] for at in sorted(regions)]


def _functions_inside(old: ModuleInfo, regions: list[_Region]) -> list[list[str]]:
    """Per region, the old functions whose first line is in it, in the module's order."""
    firsts = [region.first for region in regions]
    inside: list[list[str]] = [[] for _ in regions]
    for qualname, fn in old.functions.items():
        at = bisect.bisect_right(firsts, fn.line) - 1
        if at >= 0 and fn.line <= regions[at].last:
            inside[at].append(qualname)
    return inside


def _stands_alone(old: ModuleInfo, region: _Region, inside: list[str], fresh: ModuleInfo, first: int, last: int,
                  index: RepoIndex, old_text: str) -> bool:
    """Whether `fresh` (the region's new text indexed alone) is what the whole file's indexing
    finds of it (`inside`: the old functions in the region), and can take the old definition's
    place."""
    if fresh.has_error or fresh.python2_line or fresh.imports or fresh.assigns:
        return False
    if list(fresh.functions) != inside:
        return False
    if region.is_class:
        cls = fresh.classes.get(region.name)
        if list(fresh.classes) != [region.name] or (cls.line, cls.end_line) != (first, last):
            return False
        before = index.index_lines(old, old.source, old_text[region.start:region.end], region.first)
        return not (before.imports or before.assigns or before.has_error)
    fn = fresh.functions.get(region.name)
    return not fresh.classes and fn is not None and fn.parent is None and fn.cls is None \
        and (fn.line, fn.end_line) == (first, last)


def _merged(old: ModuleInfo, source: SourceFile, fresh_by_region: list, moves: list[tuple[int, int]]) -> ModuleInfo:
    lasts = [last for last, _lines in moves]

    def moved(line: int) -> int:
        at = bisect.bisect_left(lasts, line) - 1  # regions ending above `line`
        return line + moves[at][1] if at >= 0 else line

    replaced = {q: fn for _region, fresh in fresh_by_region for q, fn in fresh.functions.items()}
    for qualname, fn in old.functions.items():
        if qualname in replaced:
            old.functions[qualname] = replaced[qualname]  # (an existing key keeps its place)
        else:
            fn.line, fn.def_line, fn.end_line = moved(fn.line), moved(fn.def_line), moved(fn.end_line)
    classes = {region.name: fresh.classes[region.name] for region, fresh in fresh_by_region if region.is_class}
    for name, cls in old.classes.items():
        if name in classes:
            old.classes[name] = classes[name]
        else:
            _move_class(cls, moved)
    old.source = source
    return old


def _move_class(cls: ClassInfo, moved) -> None:
    cls.line, cls.end_line = moved(cls.line), moved(cls.end_line)
    for inner in cls.inner.values():
        _move_class(inner, moved)
