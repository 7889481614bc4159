"""What each function's calls and decorators resolve to, kept per file in the warm cache.

The boundaries' passes (find_wrappers and candidates, django/boundaries.py) ask it of every
function of the project through RepoIndex.call_targets / decorator_targets: on saleor about
0.1 s of name resolution in every scan, warm ones included. What one function's calls and
decorators resolve to depends on its file's text (the calls and decorators, the imports of the
function, of the functions around it and of its module) and on what the rest of the project
shows to name resolution: every module's name, file, shape and the imports other modules can see
(DjangoReuse.modules_digest), the same ground the call graph's kept edges stand on. So each
file's answers are kept under (file, content digest, that digest) and handed to the index while
both are today's; any other file's are worked out as before, and kept for the next scan.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from ..django.index import ModuleInfo, RepoIndex

KINDS = ("calls", "decorators")


class KeptTargets:
    """One scan's use of the `targets` table: `kept` (the last scan's), `written` (this one's)."""

    def __init__(self, index: RepoIndex, kept: Mapping, written: dict, files: Mapping, project: str) -> None:
        self.index, self.kept, self.written = index, kept, written
        self._keys: dict[str, str] = {}
        for info in _modules(index):
            entry = files.get(info.rel)
            if entry:
                self._keys[info.rel] = json.dumps([info.rel, entry[0], project])
        self._primed: set[str] = set()

    def prime(self) -> None:
        """Hand the index the kept answers of every file whose key holds."""
        for info in _modules(self.index):
            key = self._keys.get(info.rel)
            entry = self.kept.get(key) if key is not None else None
            functions = list(info.functions.values())
            if not _fits(entry, functions):
                continue
            for fn, answers in zip(functions, entry):
                for kind, found in zip(KINDS, answers):
                    if found is not None:
                        self.index.remember_targets(fn, kind, set(found))
            self.written[key] = entry
            self._primed.add(info.rel)

    def keep(self) -> None:
        """Keep, per file not primed, the answers the index worked out (None: not asked)."""
        for info in _modules(self.index):
            key = self._keys.get(info.rel)
            if key is None or info.rel in self._primed:
                continue
            self.written[key] = [[_listed(self.index.remembered_targets(fn, kind)) for kind in KINDS]
                                 for fn in info.functions.values()]


def _modules(index: RepoIndex) -> list[ModuleInfo]:
    # a module registered under a source-root alias too is one file
    return list({id(info): info for info in index.modules.values()}.values())


def _listed(found: set[str] | None) -> list[str] | None:
    return sorted(found) if found is not None else None


def _fits(entry, functions: list) -> bool:
    """Whether a kept entry is one `keep` writes for these functions (a damaged one is not used)."""
    return type(entry) is list and len(entry) == len(functions) and all(
        type(answers) is list and len(answers) == len(KINDS) and all(
            found is None or (type(found) is list and all(type(t) is str for t in found)) for found in answers)
        for answers in entry)
