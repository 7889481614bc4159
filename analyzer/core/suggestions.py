"""Rewrite suggestions (docs/VERDICTS.md, "Suggestions"), in prose.

The core decides *what* would help, language-neutrally, and says it in words with the names
found in the IR. It never writes code and never assumes a rewrite's effect: code is attached
later by analyzer.rewrite, only for a rewrite that parsed and whose claim a re-analysis of the
rewritten project confirmed (which also sets `makes_one_shot` / `makes_inferable`).
"""

from __future__ import annotations

from .flatten import FlatStep, predicate_terms


def _suggestion(kind: str, step: dict, explanation: str, pattern: str | None = None) -> dict:
    return {
        "kind": kind,
        "pattern": pattern,
        "statement": step["id"],
        "file": step["file"],
        "line": step["line"],
        # Set only by a verified rewrite (analyzer.rewrite); never assumed here.
        "makes_inferable": False,
        "makes_one_shot": False,
        "verified": False,
        "claim": "",
        "explanation": explanation,
        "code": "",
    }


def _attributes(statement: dict) -> str:
    names = sorted({t["attribute"] for t in predicate_terms(statement.get("predicate"))})
    return ", ".join(names) if names else "its predicate"


def reconnaissance(statement: dict, frontend: str) -> dict:
    entity = statement.get("entity") or "the entity"
    return _suggestion("reconnaissance", statement, (
        f"{entity} rows are selected by {_attributes(statement)}, not by the conflict detection attribute. "
        f"Before the transaction, resolve that predicate to the {entity} keys with a cheap read; inside it, "
        "touch exactly those keys, re-check the original predicate, and retry from the read if the rows "
        "changed in between (OLLP)."))


def one_shot(flat: list[FlatStep], reasons: list[dict], frontend: str) -> list[dict]:
    """One suggestion per non-strict pattern, for the statement the pattern names."""
    by_id = {fs.id: fs.step for fs in flat if fs.id}
    out, seen = [], set()
    for reason in reasons:
        category, target = reason["category"], by_id.get(reason.get("statement"))
        if target is None or (category, target["id"]) in seen:
            continue
        seen.add((category, target["id"]))
        source = by_id.get(reason.get("depends_on")) or {}
        explanation = _EXPLAIN[category].format(
            entity=target.get("entity") or "the row", source=source.get("entity") or "an earlier read",
            increment="increment/decrement" if frontend == "typeorm" else "an F() expression in update()")
        out.append(_suggestion("one-shot", target, explanation, category))
    return out


_EXPLAIN = {
    "read-modify-write": "The {entity} value written is computed from a value read in the same transaction "
    "({source}); let the database compute it in the statement itself ({increment}), so no read round trip "
    "is needed (and no update is lost).",
    "loop-over-results": "{entity} rows fetched in the transaction are written one by one; a single "
    "set-based update computed by the database does the same without the round trips.",
    "conditional": "The {entity} statement runs only if an earlier read ({source}) found something; fold the "
    "condition into the statement's WHERE clause and branch on the number of rows it changed.",
    "generated-key": "The {entity} statement uses the key the database generated for an earlier insert "
    "({source}); keys generated in the application (a UUID, or a sequence value reserved up front) remove "
    "the dependency.",
    "dependent-key": "A key of the {entity} statement comes from an earlier read ({source}); resolve it "
    "before the transaction (reconnaissance), pass it in, and re-check it inside.",
}


def on_commit(flat: list[FlatStep], used: set[str], frontend: str) -> list[dict]:
    """External calls whose results no later step uses can run after commit (`used`: the effects
    a later step depends on, graph.effects_used_later)."""
    effects = [fs.step for fs in flat if fs.node == "effect"]
    after = "after the transaction's callback resolves" if frontend == "typeorm" else \
        "after commit (transaction.on_commit, or delay_on_commit for a Celery task)"
    return [_suggestion("on-commit", effect, (
        f"{effect['callee']} ({effect['category']}) is called inside the transaction and no later statement "
        f"uses its result: run it {after}, or record it in an outbox table inside the transaction."))
        for effect in effects if effect["id"] not in used]

