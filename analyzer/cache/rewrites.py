"""Rewrites kept in the warm cache: each suggestion's planned rewrite (or why there is none) and
its verification (verified, or refused with the reason), reused where nothing they depend on
changed (docs/DECISIONS.md, "Rewrites in the warm cache").

What a candidate depends on, and how each part is checked:
- planning (the builder and the parse and names checks): txscan's code (the cache file's
  fingerprint), the scan's settings, the transaction's IR record, the suggestion, every entity
  record, the project's atomic wrappers, and the content of every file the builder read or the
  rewrite edits;
- verification (re-analysis of a copy with the edits of the candidate's round): the same, the
  project-wide facts (Django: the digest every transaction's walk depends on, and every module's
  imports; TypeScript: every source file), the texts of all edits of the round, and, for each file
  the re-analysed transaction's walk read in the copy and each file the round edits that the
  candidate's claim reads (its transaction's file, the file of its statement or call): the
  file's content and the round's edits in it.
A round whose candidates are all unchanged is not re-analysed; otherwise its copy is made and
scanned as in a cold scan, and only the changed candidates are checked again.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from .. import __version__
from ..digests import blake2b
from ..rewrite.edits import edits_by_path
from .cachefile import text_digest

TABLE = "rewrites"


def _dumps(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=list)


def edits_digest(edits) -> str:
    return text_digest(_dumps(sorted([e.path, e.start, e.end, e.text] for e in edits)))


class RewriteReuse:
    """One scan's use of the cached rewrites: reads the earlier scan's table, writes this one's.
    Without a cache folder nothing is read or written (every candidate is planned and verified)."""

    def __init__(self, cache, root: Path, result, config) -> None:
        self.enabled = cache is not None and getattr(cache, "folder", None) is not None
        self._cache = cache
        self.old = cache.tables(TABLE) if self.enabled else {}
        self.written: dict = {"candidates": {}}
        self.root = root
        self._result = result
        self._settings = text_digest(_dumps([__version__, result.frontend, dataclasses.asdict(config)]))
        self._files: dict[str, str | None] = {}
        self._records: dict[int, str] = {}
        self._shared: str | None = None
        self._project: str | None = None

    # -- inputs ------------------------------------------------------------------------------
    def file_digest(self, rel: str) -> str | None:
        if rel not in self._files:
            try:
                self._files[rel] = blake2b((self.root / rel).read_bytes(), digest_size=16).hexdigest()
            except OSError:
                self._files[rel] = None
        return self._files[rel]

    def _record(self, txn: dict) -> str:
        if id(txn) not in self._records:
            # a record of the scan is named by the digest of the IR line it was read from (core/reuse.py)
            known = (getattr(self._result, "record_digests", None) or {}).get(id(txn))
            self._records[id(txn)] = known[1] if known is not None and known[0] is txn else text_digest(_dumps(txn))
        return self._records[id(txn)]

    def _shared_inputs(self) -> str:
        """Settings, entity records and the project's atomic wrappers: what every builder consults."""
        if self._shared is None:
            records = self._result.records
            entities = [r for r in records if r["type"] == "entity"]
            wrappers = sorted({r["wrapper"] for r in records if r["type"] == "transaction" and r.get("wrapper")})
            self._shared = text_digest(_dumps([self._settings, entities, wrappers]))
        return self._shared

    def _project_facts(self) -> str:
        """What the re-analysis of any copy depends on besides the files it reads."""
        if self._project is None:
            if self._result.frontend == "django":
                tables = self._cache.tables("django") if self._cache is not None else {}
                digests = sorted({t.get("digest", "") for t in tables.get("transactions", {}).values()})
                imports = {rel: facts[3].get("imports") for rel, facts in sorted(tables.get("files", {}).items())}
                self._project = text_digest(_dumps([digests, imports]))
            else:
                files = sorted(f["path"] for f in self._result.files)
                self._project = text_digest(_dumps([[path, self.file_digest(path)] for path in files]))
        return self._project

    @staticmethod
    def key(candidate) -> str:
        return _dumps([candidate.transaction, *candidate.suggestion])

    def _plan_digest(self, candidate) -> str:
        return text_digest(_dumps([self._shared_inputs(), self._record(candidate.facts["before"]),
                               candidate.facts["step"], list(candidate.suggestion)]))

    # -- planning ----------------------------------------------------------------------------
    def planned(self, candidate) -> dict | None:
        """The cached plan of `candidate` (its rewrite before verification, or why there is
        none), when its inputs are as then; the entry is kept for this scan."""
        if not self.enabled:
            return None
        key = self.key(candidate)
        entry = self.old.get("candidates", {}).get(key)
        if entry is None or entry.get("plan") != self._plan_digest(candidate) \
                or any(self.file_digest(rel) != digest for rel, digest in entry["plan_files"].items()):
            return None
        kept = self.written["candidates"][key] = dict(entry)
        return kept

    def keep_plan(self, candidate, files_read) -> None:
        """Record a plan made in this scan (after the parse and names checks)."""
        if not self.enabled:
            return
        files = set(files_read) | {e.path for e in (candidate.rewrite.edits if candidate.rewrite else ())}
        self.written["candidates"][self.key(candidate)] = {
            "plan": self._plan_digest(candidate),
            "plan_files": {rel: self.file_digest(rel) for rel in sorted(files)},
            "rewrite": rewrite_json(candidate.rewrite),
            "refused": candidate.refused,
        }

    # -- verification --------------------------------------------------------------------------
    def round_context(self, batch) -> dict:
        edits = [e for c in batch for e in c.rewrite.edits]
        by_path = edits_by_path(set(edits))
        texts = sorted({(e.path, e.text) for e in edits})
        return {"digest": text_digest(_dumps([self._project_facts(), texts])),
                "edits": {path: edits_digest(found) for path, found in by_path.items()}}

    def _file_state(self, rel: str, context: dict) -> list:
        return [self.file_digest(rel), context["edits"].get(rel, "")]

    def verdict(self, candidate, context: dict) -> dict | None:
        """The cached verification of `candidate` in a round like `context`, if still valid."""
        if not self.enabled:
            return None
        entry = self.written["candidates"].get(self.key(candidate))
        verdict = entry.get("verdict") if entry else None
        if verdict is None or verdict["round"] != context["digest"] \
                or any(self._file_state(rel, context) != state for rel, state in verdict["files"].items()):
            return None
        return verdict

    def keep_verdict(self, candidate, context: dict, files_read) -> None:
        if not self.enabled:
            return
        entry = self.written["candidates"].get(self.key(candidate))
        if entry is None:
            return
        step = candidate.facts["step"] or {}
        files = set(files_read) | {candidate.transaction.rsplit(":", 1)[0]}
        files |= {step["file"]} if step.get("file") else set()
        entry["verdict"] = {
            "round": context["digest"],
            "files": {rel: self._file_state(rel, context) for rel in sorted(files)},
            "verified": bool(candidate.rewrite is not None and candidate.rewrite.verified),
            "refused": candidate.refused,
            "makes_one_shot": candidate.makes_one_shot,
        }

    def save(self) -> None:
        if self.enabled:
            self._cache.keep(TABLE, self.written)


def rewrite_json(rewrite) -> list | None:
    if rewrite is None:
        return None
    return [rewrite.kind, rewrite.title, [[e.path, e.start, e.end, e.text] for e in rewrite.edits],
            rewrite.claim, rewrite.step_line]


def rewrite_from_json(values, verified: bool = False):
    from ..rewrite.edits import Edit, Rewrite

    if values is None:
        return None
    kind, title, edits, claim, step_line = values
    return Rewrite(kind, title, tuple(Edit(*e) for e in edits), verified, claim, step_line)
