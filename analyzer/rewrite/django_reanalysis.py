"""Re-analysis of a Django project with one round's edits applied, for the verification of its
rewrites: what re-analysis of a rewritten copy of the project would find of the transactions
whose claims are checked, without copying or re-scanning the project.

The front end runs again over the project's own files, with the edited texts standing in for
their files (nothing is written into the project), and reuses the work of the scan being
verified (its cache tables, analyzer/cache/django.py), as a warm scan after editing those files
would:
- an unchanged file is not indexed again: its module facts are the scan's own objects where
  the scan's Context is given (the same text and package give the same facts), else the
  scan's kept facts; an edited one is
  read as the copy's file would be (written and read back the same way), and its index facts
  are the scan's with the edited top-level definitions parsed again and those below moved
  (index_patch.py), or, where that patch is not provably the same, the file indexed whole;
- a definition of an unchanged file that the scan parsed is not parsed again (the scan's
  parse, of the same lines of the same module object; a failed parse is made again, for its
  diagnostics);
- the call graph is the scan's where the edits change none of its edges (call_graph_reuse.py);
- boundaries are looked for only in the definitions holding a checked transaction's line
  (reused where such a definition did not change);
- only the checked transactions are walked (a transaction's walk does not depend on which
  other transactions a scan walks: summaries of helpers are the same whichever walk computed
  them, as the warm scan already relies on);
- the core classifies only those transactions: interactivity is decided from a transaction's
  own steps (core/classify.py), and the claims read nothing else.
"""

from __future__ import annotations

import json
from pathlib import Path

from .. import ir
from ..cache import index_facts
from ..cache.cachefile import text_digest
from ..cache.django import DjangoReuse
from ..django.files import FileProblem, source_of_bytes
from .call_graph_reuse import same_call_graph
from .index_patch import patched_module


class _EditedProject(DjangoReuse):
    """The scan's cached work, with the edited files' texts in place of theirs; boundaries and
    walks only where the claims look."""

    def __init__(self, tables: dict, edited: dict, wanted: set[str], edits: dict | None = None,
                 originals: dict | None = None, scan_context=None) -> None:
        super().__init__(tables)
        # the scan's own Context (django/context.py): its modules and parsed definitions are shared
        # where no edit reaches them
        self._scan_context = scan_context
        self._scan_modules = {info.rel: info for info in scan_context.index.modules.values()} \
            if scan_context is not None else {}
        self._edited = edited
        self._edits = edits or {}  # per file, the edits of `edited`'s text (offsets in `originals`)
        self._originals = originals or {}
        self._wanted = wanted
        self._lines: dict[str, list[int]] = {}  # per file, the lines of the wanted transactions
        for found in sorted(wanted):
            rel, line = found.rsplit(":", 1)
            self._lines.setdefault(rel, []).append(int(line))

    def read_by_scan(self) -> dict:
        """The files the scan read and indexed, as it read them (by relative path): reading them
        again would give the same texts (0.13 CPU s of each round on the 300k-line synthetic
        project). An edited file is read as the scan read it too; index_add puts its edited
        text in its place. The files the scan could not index are read again."""
        return {rel: info.source for rel, info in self._scan_modules.items()}

    def index_add(self, index, source):
        edited = self._edited.get(source.rel)
        if isinstance(edited, FileProblem):
            # The copy's file would not have been analysed (too deep to parse, say): the
            # front end leaves a file out where indexing it recurses too deep.
            raise RecursionError(edited.message)
        if edited is None:
            shared = self._scan_module(index, source)
            return index.add_info(shared) if shared is not None else super().index_add(index, source)
        patched = self._patched(index, source, edited)
        if patched is None:
            return super().index_add(index, edited)
        index.add_info(patched)
        # (the facts themselves are not kept: this scan's tables are never written)
        self.written["files"][source.rel] = [text_digest(edited.text), index.package_prefix,
                                             index_facts.shape(patched), None]
        return patched

    def _scan_module(self, index, source):
        """The scan's ModuleInfo of `source` where the scan indexed this very text with the same
        package (what indexing it again would give), its files entry written as DjangoReuse
        writes it; else None."""
        info = self._scan_modules.get(source.rel)
        if info is None or info.source.text != source.text or self._scan_context.index.package_prefix != index.package_prefix:
            return None
        digest = text_digest(source.text)
        kept = self.old.get("files", {}).get(source.rel)
        self.written["files"][source.rel] = kept if kept and kept[0] == digest and kept[1] == index.package_prefix \
            else [digest, index.package_prefix, index_facts.shape(info), None]
        return info

    def begin(self, ctx, options, atomic_requests):
        super().begin(ctx, options, atomic_requests)
        if self._scan_context is not None:
            ctx._parsed.update(self._parsed_by_scan(ctx))
            graph = same_call_graph(self._scan_context.index, ctx.index)
            if graph is not None:
                ctx.index.adopt_call_graph(graph)  # (read only, by both)

    def _parsed_by_scan(self, ctx) -> dict:
        """The scan's parsed definitions of the modules shared with it (the very module objects of
        this index): parse_definition would parse the same lines of the same module the same way.
        A failed parse (None, with its diagnostic) is left to be made again."""
        modules = ctx.index.modules
        return {qualname: parsed for qualname, parsed in self._scan_context._parsed.items()
                if parsed is not None and modules.get(parsed.info.name) is parsed.info}

    def _patched(self, index, source, edited):
        """The scan's index facts of `source` patched with its edits (index_patch.py), where the
        scan indexed this very text and the edits give the edited one; else None."""
        kept = self.old.get("files", {}).get(source.rel)
        edits = self._edits.get(source.rel)
        if not kept or not edits or kept[1] != index.package_prefix or kept[3] is None \
                or self._originals.get(source.rel) != source.text or kept[0] != text_digest(source.text):
            return None
        old = index_facts.load(kept[3], source)
        return patched_module(index, old, source.text, edited, edits)

    def boundaries(self, ctx, info, qualname, first, last, cls, find):
        # A boundary is found in a definition holding its line (a function, or the class of a
        # method_decorator): the others cannot give a wanted transaction.
        if not any(first <= line <= last for line in self._lines.get(info.rel, ())):
            return []
        return super().boundaries(ctx, info, qualname, first, last, cls, find)

    def transaction(self, ctx, stub, walk, find_boundaries, view_functions):
        if f"{stub.parsed.info.rel}:{stub.line}" not in self._wanted:
            return None, [], []
        return super().transaction(ctx, stub, walk, find_boundaries, view_functions)

    def reached(self) -> dict[str, set[str]]:
        """Per walked transaction id, the files its walk read definitions from."""
        out: dict[str, set[str]] = {}
        for key, entry in self.written["transactions"].items():
            rel, line = json.loads(key)[:2]
            out[f"{rel}:{line}"] = {r[0] for r in entry.get("reach", [])}
        return out


def edited_sources(texts: dict[str, str], max_bytes: int, root: Path) -> dict:
    """Each edited file as the front end would read it from a copy holding `texts` (written as
    UTF-8, read back with its declared encoding, normalised): a SourceFile (its path the one in
    `root`), or a FileProblem. Decoded from the bytes a copy would hold, without writing them:
    the temporary files cost more than the re-analysis' other reading (write and read back,
    0.1 CPU s on the 300k-line synthetic project)."""
    return {rel: source_of_bytes(text.encode("utf-8"), root / rel, rel, max_bytes)
            for rel, text in sorted(texts.items())}


def reanalyse(root: Path, config, texts: dict[str, str], wanted: set[str],
              tables: dict, edits: dict | None = None, originals: dict | None = None,
              scan_context=None) -> tuple[dict, dict, list[dict], dict]:
    """(transaction records by id, their pk-mode verdicts by id, the records classified, files
    each walk read by id) of the transactions `wanted` (ids in the edited files) of `root` with
    the files of `texts` replaced by those texts. `tables`: the Django cache tables of the scan
    of `root` ({} without: everything is found again). `edits` (per file, the edits giving its
    text of `texts` from its text of `originals`) let an edited file's index facts be patched
    from the scan's instead of indexing the file again. `scan_context` (the scan's Context) shares
    its module facts and parsed definitions where the edits do not reach them."""
    from ..core import Settings, analyze
    from ..django import frontend as django_frontend
    from ..process import large_heap_pace
    from ..scan import django_options

    options = django_options(config, autocommit=False)
    edited = edited_sources(texts, options.max_file_bytes, root.resolve())
    # a file read back as other than the text its edits give is not patched
    same = {rel: found for rel, found in (edits or {}).items()
            if not isinstance(edited.get(rel), FileProblem) and edited[rel].text == texts[rel]}
    reuse = _EditedProject(tables, edited, wanted, same, originals, scan_context)
    with large_heap_pace():
        found = django_frontend.scan(root, options, reuse, reuse.read_by_scan())
    kept = [r for r in found.records if r["type"] in ("meta", "entity")
            or (r["type"] == "transaction" and r["id"] in wanted)]
    records = list(ir.loads(ir.dumps(kept)))  # as the core sees a scan's records
    verdicts = analyze(records, Settings("pk", config.cda_entities))["transactions"]
    transactions = {r["id"]: r for r in records if r["type"] == "transaction"}
    return transactions, {v["id"]: v for v in verdicts}, records, reuse.reached()
