"""The core's part of the warm cache: each transaction's verdicts, kept by the text of its IR
line (docs/DECISIONS.md, "Warm cache: core verdicts by IR line").

A transaction's verdict in one CDA mode is a function of its own IR line and of a few
project-wide facts: the front end, every entity's CDA in that mode and the unique sets of the
entities. Its interactivity (the dependency graph, the largest thing the core builds) is a
function of its IR line and the front end alone. So an entry, keyed by a digest of the front
end and the IR line, holds:
- `interactivity`: (verdict, reasons, on-commit suggestions), reused whenever the line is;
- `cda`: what the transaction's statements give the CDA computation (entity, attribute set,
  weight), so that the CDAs are computed without flattening unchanged transactions;
- per CDA mode, the verdict record and the transaction's own diagnostics before the front
  end's diagnostics are taken out of them, with a digest of the project-wide facts they were
  decided under (`context`): reused only when that digest is today's.
Nothing else is read, so a reused verdict is the one the core would compute
(tests/test_core_reuse.py compares warm and cold scans byte for byte).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from ..cache.cachefile import Entries, text_digest

TABLE = "verdicts"


class CoreReuse:
    """One scan's use of the core cache: reads `tables` (an earlier scan's), writes `written`."""

    def __init__(self, tables: Mapping, ir_text: str, records: list[dict], frontend: str) -> None:
        old = tables.get(TABLE)
        # only entries read from the file: those a scan kept in memory are the verdicts it went on
        # to give excerpts and rewrites (a second scan with the same ScanCache must not take them)
        self.old = old if isinstance(old, Entries) else {}
        self.written: dict = {TABLE: {}}
        # the IR's lines are its records, in order (ir.loads skips blank lines only)
        lines = [line for line in ir_text.split("\n") if line.strip()]
        self._keys: dict[str, str] = {}
        # id(record) -> (record, the digest of its line): what names a transaction record's
        # content elsewhere (the rewrites' cache, cache/rewrites.py) without encoding it again
        self.by_record: dict[int, tuple[dict, str]] = {}
        if len(lines) == len(records):
            prefix = frontend + "\n"
            for record, line in zip(records, lines):
                if record["type"] == "transaction":
                    key = self._keys[record["id"]] = text_digest(prefix + line)
                    self.by_record[id(record)] = (record, key)
        self._entries: dict[str, dict | None] = {}
        self.reused = 0  # verdicts taken from the cache (both modes counted)

    def _kept(self, txn: dict) -> dict | None:
        tid = txn["id"]
        if tid not in self._entries:
            key = self._keys.get(tid)
            entry = self.old.get(key) if key is not None else None
            self._entries[tid] = entry if isinstance(entry, dict) else None
        return self._entries[tid]

    def interactivity(self, txn: dict):
        kept = self._kept(txn)
        return kept.get("interactivity") if kept is not None else None

    def cda_inputs(self, txn: dict):
        kept = self._kept(txn)
        return kept.get("cda") if kept is not None else None

    def verdict(self, txn: dict, mode: str, context: str) -> tuple[dict, list[dict]] | None:
        """(verdict, diagnostics before filtering) kept for this IR line, mode and context."""
        kept = self._kept(txn)
        decided = kept.get(mode) if kept is not None else None
        if not isinstance(decided, dict) or decided.get("context") != context:
            return None
        self.reused += 1
        self.written[TABLE].setdefault(self._keys[txn["id"]], kept)  # or the copy another mode made
        return decided["verdict"], decided["diagnostics"]

    def keep(self, txn: dict, mode: str, context: str, interactivity, cda_inputs, verdict: dict,
             diagnostics: list[dict]) -> None:
        """A verdict computed now. Kept by reference: the scan writes the cache before it adds
        excerpts and rewrites to the records it returns (analyzer/scan.py)."""
        key = self._keys.get(txn["id"])
        if key is None:
            return
        table = self.written[TABLE]
        entry = table.get(key)
        if entry is None or entry is self._entries.get(txn["id"]):
            entry = {k: v for k, v in (self._kept(txn) or {}).items()}
            table[key] = entry
        entry["interactivity"] = interactivity
        entry["cda"] = cda_inputs
        entry[mode] = {"context": context, "verdict": verdict, "diagnostics": diagnostics}


def context_digest(frontend: str, mode: str, cdas: dict, entities: dict[str, dict]) -> str:
    """The project-wide facts a verdict in `mode` reads besides its IR line."""
    facts = [frontend, mode,
             sorted((name, c.mode, [sorted(s) for s in c.chain]) for name, c in cdas.items()),
             sorted((name, e.get("unique", [])) for name, e in entities.items())]
    return text_digest(json.dumps(facts, sort_keys=True))
