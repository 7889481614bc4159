"""Apply the taxonomy to a scan's IR: one verdict record per transaction."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import cda as cda_mod
from . import graph as graph_mod
from . import completeness, inferability, interactivity, rwset, suggestions
from ..ir import sort_key
from . import reuse as reuse_mod
from .flatten import flatten, occurrences, predicate_terms
from .reuse import CoreReuse


# Boundary of a statement run outside any explicit transaction (docs/IR.md).
AUTOCOMMIT = "autocommit"


@dataclass(frozen=True)
class Settings:
    cda_mode: str = "pk"  # "pk" | "auto"
    cda_entities: dict = field(default_factory=dict)  # entity -> [attributes]


def _statements(flat) -> list[dict]:
    return [fs.step for fs in flat if fs.node == "statement"]


def _interactivity(flat, autocommit: bool, frontend: str) -> tuple[str, list[dict], list[dict]]:
    """(verdict, reasons, on-commit suggestions) of one transaction; its dependencies are
    dropped once these are known (they are the largest thing the core builds)."""
    if autocommit:
        # An autocommit transaction is one call site, one request to the database: one-shot by
        # definition (TAXONOMY.md), even when Django runs it as a read and a conditional insert.
        return interactivity.ONE_SHOT, [], []
    reasons = interactivity.effect_reasons(flat)
    if reasons is not None:
        # strictly interactive whatever depends on what: of the dependencies, only which effects'
        # results later steps use is needed, and that is found without the graph
        return interactivity.STRICT, reasons, suggestions.on_commit(flat, graph_mod.effects_used_later(flat), frontend)
    verdict, reasons = interactivity.classify(flat, graph_mod.build(flat))
    return verdict, reasons, []


def _cda_inputs(flat) -> list[list]:
    counts = occurrences(flat) if any(fs.node == "repeat" for fs in flat) else {}
    statements = _statements(flat)
    weights = {id(s): counts[s["id"]] for s in statements if counts.get(s["id"], 1) > 1}
    return cda_mod.statement_inputs(statements, weights)


def analyze(records: list[dict], settings: Settings = Settings(), shared: dict | None = None,
            reuse: CoreReuse | None = None) -> dict:
    """`shared`: what does not depend on the settings (each transaction's flat steps,
    dependencies and interactivity), kept there by the first call and reused by the next ones
    on the same records (the CDA modes of one scan). `reuse`: the verdicts of an earlier scan,
    by IR line (core/reuse.py)."""
    shared = {} if shared is None else shared
    meta = next((r for r in records if r["type"] == "meta"), {"frontend": "django"})
    frontend = meta.get("frontend", "django")
    entities = {r["name"]: r for r in records if r["type"] == "entity"}
    transactions = [r for r in records if r["type"] == "transaction"]
    diagnostics = [r for r in records if r["type"] == "diagnostic"]

    flats = shared.setdefault("flats", {})  # made when first needed: a reused verdict needs none

    def flat_of(txn: dict):
        flat = flats.get(txn["id"])
        if flat is None:
            flat = flats[txn["id"]] = flatten(txn["steps"])
        return flat

    decided = shared.setdefault("interactivity", {})
    inputs = shared.get("cda_inputs")
    if inputs is None:
        inputs = shared["cda_inputs"] = {}
        for txn in transactions:
            kept = reuse.cda_inputs(txn) if reuse is not None else None
            inputs[txn["id"]] = kept if kept is not None else _cda_inputs(flat_of(txn))
    cdas = cda_mod.compute(settings.cda_mode, [i for t in transactions for i in inputs[t["id"]]],
                           settings.cda_entities)
    default_cda = cda_mod.EntityCDA("?", settings.cda_mode)
    context = reuse_mod.context_digest(frontend, settings.cda_mode, cdas, entities) if reuse is not None else ""

    verdicts = []
    existing = {(d["file"], d["line"], d["code"]) for d in diagnostics}
    transaction_diagnostics: list[dict] = []

    def computed(txn: dict) -> tuple[dict, list[dict]]:
        """A transaction's verdict and its own diagnostics, worked out (not reused)."""
        flat = flat_of(txn)
        autocommit = txn["boundary"] == AUTOCOMMIT
        if txn["id"] not in decided:
            found = reuse.interactivity(txn) if reuse is not None else None
            decided[txn["id"]] = found if found is not None else _interactivity(flat, autocommit, frontend)
        verdict, reasons, after_commit = decided[txn["id"]]
        reasons = [dict(r) for r in reasons]
        statements_out, read_set, write_set, suggested = [], [], [], []
        for statement in _statements(flat):
            entity = entities.get(statement.get("entity") or "")
            unique_sets = [frozenset(u) for u in (entity or {}).get("unique", [])]
            infer, flags = inferability.classify(statement, cdas.get(statement.get("entity"), default_cda), unique_sets,
                                                cdas)
            symbol = rwset.render(statement, infer)
            (write_set if rwset.is_write(statement) else read_set).append(symbol)
            statements_out.append({
                "id": statement["id"],
                "file": statement["file"],
                "line": statement["line"],
                "entity": statement.get("entity"),
                "kind": statement["kind"],
                "api": statement["api"],
                "attributes": sorted({t["attribute"] for t in predicate_terms(statement.get("predicate"))}),
                "inferability": infer,
                "flags": sorted(set(flags)),
                "via": statement.get("via", []),
            })
            if infer == "cda-mismatch" and not autocommit:
                suggested.append(suggestions.reconnaissance(statement, frontend))
        incomplete = completeness.incomplete_sites(txn, flat)
        own = completeness.diagnostics(txn, flat, incomplete, set())
        if verdict == interactivity.NONSTRICT:
            suggested.extend(suggestions.one_shot(flat, reasons, frontend))
        elif verdict == interactivity.STRICT:
            suggested.extend(dict(s) for s in after_commit)
        out = {
            "id": txn["id"],
            "file": txn["file"],
            "line": txn["line"],
            "end_line": txn.get("end_line", txn["line"]),
            "function": txn["function"],
            "boundary": txn["boundary"],
            "wrapper": txn.get("wrapper"),
            "interactivity": verdict,
            "reasons": reasons,
            "complete": not incomplete,
            "incomplete": incomplete,
            "rw_inferable": inferability.transaction_rw_inferable([s["inferability"] for s in statements_out]),
            "read_set": sorted(set(read_set)),
            "write_set": sorted(set(write_set)),
            "statements": statements_out,
            "suggestions": suggested,
        }
        if reuse is not None:
            reuse.keep(txn, settings.cda_mode, context, decided[txn["id"]], inputs[txn["id"]], out, own)
        return out, own

    for txn in transactions:
        kept = reuse.verdict(txn, settings.cda_mode, context) if reuse is not None else None
        verdict, own = kept if kept is not None else computed(txn)
        verdicts.append(verdict)
        transaction_diagnostics.extend(d for d in own if (d["file"], d["line"], d["code"]) not in existing)
    return {
        "frontend": frontend,
        "cda_mode": settings.cda_mode,
        "cda": {name: {"mode": c.mode, "attributes": c.attributes} for name, c in sorted(cdas.items())},
        "transactions": verdicts,
        "entities": [entities[name] for name in sorted(entities)],
        "diagnostics": sorted(diagnostics + transaction_diagnostics, key=sort_key),
    }

