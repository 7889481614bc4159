"""The core's part of the warm cache: each transaction's verdicts, kept by the text of its IR
line (docs/DECISIONS.md, "Warm cache: core verdicts by IR line").

A transaction's verdict in one CDA mode is a function of its own IR line and of a few
project-wide facts: the front end, every entity's CDA in that mode and the unique sets of the
entities. Its interactivity (the dependency graph, the largest thing the core builds) is a
function of its IR line and the front end alone. So, keyed by a digest of the front end and the
IR line, the `verdicts` table holds:
- `cda`: what the transaction's statements give the CDA computation (entity, attribute set,
  weight), so that the CDAs are computed without flattening unchanged transactions;
- per CDA mode, the verdict record and the transaction's own diagnostics before the front
  end's diagnostics are taken out of them, with a digest of the project-wide facts they were
  decided under (`context`): reused only when that digest is today's.
and the `interactivity` table (verdict, reasons, on-commit suggestions), read only for a
transaction whose verdict is worked out again (a warm scan reuses nearly every verdict and
never decodes the others' interactivity; they are written back as the text they were read as).
The two modes' verdicts differ in a few fields of a few statements (inferability depends on the
CDA), so the first mode (BASE) is kept whole and the others as what differs from it (`like`):
the top-level fields that differ, per statement the fields that differ, the diagnostics when
they differ. That halves the file and its decoding.
Nothing else is read, so a reused verdict is the one the core would compute
(tests/test_core_reuse.py compares warm and cold scans byte for byte).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from ..cache.cachefile import Entries, text_digest

TABLE = "verdicts"
INTERACTIVITY = "interactivity"
BASE = "pk"  # the mode whose verdicts are kept whole; the others' as what differs from them


class CoreReuse:
    """One scan's use of the core cache: reads `tables` (an earlier scan's), writes `written`."""

    def __init__(self, tables: Mapping, ir_text: str, records: list[dict], frontend: str) -> None:
        old, interactivity = tables.get(TABLE), tables.get(INTERACTIVITY)
        # only entries read from the file: those a scan kept in memory are the verdicts it went on
        # to give excerpts and rewrites (a second scan with the same ScanCache must not take them)
        self.old = old if isinstance(old, Entries) else {}
        self.old_interactivity = interactivity if isinstance(interactivity, Entries) else None
        self.written: dict = {TABLE: {}, INTERACTIVITY: {}}
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
        key = self._keys.get(txn["id"])
        if key is None or self.old_interactivity is None or self._kept(txn) is None:
            return None
        return self.old_interactivity.get(key)

    def cda_inputs(self, txn: dict):
        kept = self._kept(txn)
        return kept.get("cda") if kept is not None else None

    def verdict(self, txn: dict, mode: str, context: str) -> tuple[dict, list[dict]] | None:
        """(verdict, diagnostics before filtering) kept for this IR line, mode and context."""
        kept = self._kept(txn)
        stored = kept.get(mode) if kept is not None else None
        if not isinstance(stored, dict) or stored.get("context") != context:
            return None
        decided = _whole(kept, mode)
        if decided is None:
            return None
        self.reused += 1
        key = self._keys[txn["id"]]
        self.written[TABLE].setdefault(key, kept)  # or the copy another mode made
        if key not in self.written[INTERACTIVITY] and self.old_interactivity is not None:
            carried = self.old_interactivity.carried(key)
            if carried is not None:
                self.written[INTERACTIVITY][key] = carried
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
        self.written[INTERACTIVITY][key] = interactivity
        entry["cda"] = cda_inputs
        modes = {m: _whole(entry, m) for m in entry if m != "cda"}
        modes[mode] = {"context": context, "verdict": verdict, "diagnostics": diagnostics}
        for m, decided in modes.items():
            if decided is None:
                del entry[m]
            elif m == BASE or BASE not in modes:
                entry[m] = decided
            else:
                entry[m] = _difference(modes[BASE], decided)


def _whole(entry: dict, mode: str) -> dict | None:
    """The mode's {context, verdict, diagnostics} of a kept entry, made whole when it is kept as
    what differs from the BASE mode's (its containers then its own: no record of one mode shares a
    list or dict another mode's record could be changed through); None when it is not there."""
    stored = entry.get(mode)
    if not isinstance(stored, dict) or "like" not in stored:
        return stored
    base = entry.get(stored["like"])
    if not isinstance(base, dict) or "like" in base:
        return None
    verdict = dict(base["verdict"])
    verdict.update(stored["verdict"])  # only fields the base has: the base's field order is kept
    statements = [dict(s) for s in verdict["statements"]]
    for number, fields in stored.get("statements", ()):
        statements[number].update(fields)
    verdict["statements"] = statements
    verdict["reasons"] = [dict(r) for r in verdict["reasons"]]
    verdict["suggestions"] = [dict(g) for g in verdict["suggestions"]]
    diagnostics = stored["diagnostics"] if "diagnostics" in stored else [dict(d) for d in base["diagnostics"]]
    return {"context": stored["context"], "verdict": verdict, "diagnostics": diagnostics}


def _same(a, b) -> bool:
    # JSON tells true from 1 and 1.0 from 1; Python's == does not
    return type(a) is type(b) and a == b


def _difference(base: dict, decided: dict) -> dict:
    """`decided` kept as what differs from `base` (both whole), or whole when their fields are
    not the same ones in the same order (then no difference rebuilds it exactly)."""
    was, now = base["verdict"], decided["verdict"]
    if list(was) != list(now) or "statements" not in now:
        return decided
    changed = {k: v for k, v in now.items() if k != "statements" and not _same(v, was[k])}
    patches = []
    if len(was["statements"]) == len(now["statements"]) and all(
            list(a) == list(b) for a, b in zip(was["statements"], now["statements"])):
        for number, (a, b) in enumerate(zip(was["statements"], now["statements"])):
            fields = {k: v for k, v in b.items() if not _same(v, a[k])}
            if fields:
                patches.append([number, fields])
    else:
        changed["statements"] = now["statements"]
    out = {"context": decided["context"], "like": BASE, "verdict": changed}
    if patches:
        out["statements"] = patches
    if not _same(decided["diagnostics"], base["diagnostics"]):
        out["diagnostics"] = decided["diagnostics"]
    return out


def context_digest(frontend: str, mode: str, cdas: dict, entities: dict[str, dict]) -> str:
    """The project-wide facts a verdict in `mode` reads besides its IR line.

    A verdict reads an entity's CDA only through its chain (inferability.classify: the sets that
    pin it, the CDA attributes, the joined tables' pins), and an entity with an empty chain reads
    as one without a CDA at all (the primary key). So only the entities with a chain are facts:
    in the `pk` mode (no configured CDAs) the facts do not depend on which entities the
    transactions use, and a scan without autocommit statements (`txscan lint`) or one where a
    changed file uses another model keeps reusing every verdict."""
    facts = [frontend, mode,
             sorted((name, [sorted(s) for s in c.chain]) for name, c in cdas.items() if c.chain),
             sorted((name, e.get("unique", [])) for name, e in entities.items())]
    return text_digest(json.dumps(facts, sort_keys=True))
