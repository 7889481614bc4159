"""Per-statement read/write-set inferability (docs/VERDICTS.md, "Statement inferability")."""

from __future__ import annotations

from itertools import product

from .cda import PK, EntityCDA, across_mismatch
from .flatten import DEPENDENT_KINDS, predicate_terms

EQUALITY_OPS = ("eq", "in")
RANGE_OPS = ("range", "ne", "null")
INFERABLE = ("key", "insert")
# Bound on the alternatives explored for OR-heavy predicates; beyond it we give up (unknown).
_MAX_ALTERNATIVES = 64


def _equality_alternatives(predicate: dict) -> list[list[dict]] | None:
    """Each way the predicate can match, as the equality terms that must hold together."""
    if "bool" not in predicate:
        return [[predicate]] if predicate["op"] in EQUALITY_OPS else [[]]
    if predicate["bool"] == "not":
        return [[]]
    children = [_equality_alternatives(arg) for arg in predicate["args"]]
    if any(c is None for c in children):
        return None
    if predicate["bool"] == "or":
        merged = [alt for child in children for alt in child] or [[]]
    else:
        merged = [[t for part in combo for t in part] for combo in product(*children)] if children else [[]]
    return merged if len(merged) <= _MAX_ALTERNATIVES else None


def _pinning_terms(alternative: list[dict], cda: EntityCDA) -> list[dict] | None:
    """The terms of one alternative that pin the CDA, or None if it does not pin it."""
    pk_terms = [t for t in alternative if t["attribute"] == PK]
    if pk_terms:
        return pk_terms
    attrs = frozenset(t["attribute"] for t in alternative)
    for chain_set in cda.chain:
        if chain_set and chain_set <= attrs:
            return [t for t in alternative if t["attribute"] in chain_set]
    return None


def _has_not(predicate: dict) -> bool:
    if "bool" not in predicate:
        return False
    return predicate["bool"] == "not" or any(_has_not(a) for a in predicate["args"])


def classify(statement: dict, cda: EntityCDA, unique_sets: list[frozenset[str]] = (),
             cdas: dict[str, EntityCDA] | None = None) -> tuple[str, list[str]]:
    """Return (inferability, flags) for one statement; `cdas` (every entity's) judges the
    tables a term joins past the statement's entity."""
    flags: list[str] = []
    predicate = statement.get("predicate")
    terms = predicate_terms(predicate)
    if any(s["kind"] in DEPENDENT_KINDS for t in terms for s in t["sources"]):
        flags.append("dependent")
    ops = {t["op"] for t in terms}
    if "pattern" in ops:
        flags.append("pattern")
    if ops & set(RANGE_OPS) or (predicate and _has_not(predicate)):
        flags.append("range")

    if statement["kind"] == "insert":
        return "insert", flags
    if statement.get("dynamic") or (statement["kind"] == "raw" and predicate is None):
        return "unknown", flags
    if not terms:
        return "full-scan", flags + ["full-scan"]

    alternatives = _equality_alternatives(predicate)
    if alternatives is None:
        return "unknown", flags
    pinning = [_pinning_terms(alt, cda) for alt in alternatives]
    if all(p is not None for p in pinning):
        key_sources = [s for p in pinning for t in p for s in t["sources"]]
        if any(s["kind"] in DEPENDENT_KINDS for s in key_sources):
            return "dependent", flags
        if not across_mismatch(terms, cdas or {}):
            return "key", flags

    # It does not pin the CDA: when it selects by other attributes, a reconnaissance query is
    # needed whatever its category (`username__iexact` is a pattern and a CDA mismatch).
    cda_attrs = {PK, *cda.attributes}
    if any(t["attribute"] not in cda_attrs for t in terms) or across_mismatch(terms, cdas or {}):
        flags.append("cda-mismatch")
    if "other" in ops:
        return "unknown", flags  # a subquery or a database-specific lookup: rows known only by running it
    equality_attrs = {t["attribute"] for alt in alternatives for t in alt}
    if any(u and u <= equality_attrs for u in unique_sets):
        flags.append("unique-key")
    if "pattern" in ops:
        return "pattern", flags
    if "range" in flags:
        return "range", flags
    return "cda-mismatch", flags


def transaction_rw_inferable(inferabilities: list[str]) -> str:
    if not inferabilities:
        return "full"
    good = sum(1 for i in inferabilities if i in INFERABLE)
    if good == len(inferabilities):
        return "full"
    return "none" if good == 0 else "partial"
