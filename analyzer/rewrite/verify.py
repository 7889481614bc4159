"""Verification of rewrites: the rewritten files parse, and a re-analysis of a copy of the project
with the edits applied confirms each rewrite's claim. Only then is a rewrite `verified`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..core import graph as graph_mod
from ..core.flatten import flatten
from . import checks
from .edits import EditConflict, apply, edits_by_path, map_line, new_line_ranges
from .plan import Candidate, step_index
from .project_copy import edited_copy


def verify(root: Path, frontend: str, config, candidates: list[Candidate], entities: dict) -> None:
    """Marks each candidate's rewrite verified (or says in `refused` why not), in place."""
    pending = [c for c in candidates if c.rewrite is not None and _parses(root, c) and _names_known(root, c, entities)]
    while pending:
        batch, pending = _round(root, pending)
        _check_round(root, frontend, config, batch)


def _parses(root: Path, candidate: Candidate) -> bool:
    for path, edits in edits_by_path(candidate.rewrite.edits).items():
        try:
            text = apply((root / path).read_text("utf-8"), edits)
        except EditConflict as exc:
            problem = str(exc)
        else:
            problem = checks.python_parses(path, text) if path.endswith(".py") else None
        if problem:
            candidate.refused = f"the rewritten code does not parse ({problem})"
            candidate.rewrite = None
            return False
    return True


def _names_known(root: Path, candidate: Candidate, entities: dict) -> bool:
    """The rewritten query names only attributes (and lookups on them) its entity has."""
    if candidate.rewrite.kind == "on-commit":
        return True
    entity_name = (candidate.facts["step"] or {}).get("entity")
    for path, edits in edits_by_path(candidate.rewrite.edits).items():
        if not path.endswith(".py"):
            continue
        original = (root / path).read_text("utf-8")
        text = apply(original, edits)
        unknown = checks.unknown_attributes(entities.get(entity_name or ""),
                                            checks.queryset_keywords(text, new_line_ranges(original, edits)))
        if unknown:
            candidate.refused = f"the rewritten query names {', '.join(unknown)}, which {entity_name} does not have"
            candidate.rewrite = None
            return False
    return True


def _round(root: Path, pending: list[Candidate]) -> tuple[list[Candidate], list[Candidate]]:
    """At most one rewrite per transaction, and no two whose edits overlap (identical edits, such
    as the same added import, are shared); the rest wait for the next round."""
    batch, later, seen = [], [], set()
    taken: list = []
    for candidate in pending:
        edits = set(candidate.rewrite.edits)
        clash = any(e.path == t.path and e != t and e.start < t.end and t.start < e.end for e in edits for t in taken)
        if candidate.transaction in seen or clash:
            later.append(candidate)
            continue
        seen.add(candidate.transaction)
        taken.extend(e for e in edits if e not in taken)
        batch.append(candidate)
    return batch, later


def _check_round(root: Path, frontend: str, config, batch: list[Candidate]) -> None:
    from ..scan import scan  # the scan itself calls this module after its analysis

    edits = {e for c in batch for e in c.rewrite.edits}
    originals = {path: (root / path).read_text("utf-8") for path in edits_by_path(edits)}
    with edited_copy(root, edits) as copy:
        result = scan(copy, config, frontend, rewrites=False)
    by_path = edits_by_path(edits)
    transactions = {r["id"]: r for r in result.records if r["type"] == "transaction"}
    verdicts = {t["id"]: t for t in result.analyses["pk"]["transactions"]}
    for candidate in batch:
        file, line = candidate.transaction.rsplit(":", 1)
        new_line = map_line(originals[file], by_path[file], int(line)) if file in originals else int(line)
        new_id = f"{file}:{new_line}"
        after = transactions.get(new_id)
        if after is None:
            candidate.refused = "re-analysis of the rewritten code no longer finds the transaction"
            candidate.rewrite = None
            continue
        problem = _statements_kept(candidate, after) or \
            _CLAIMS[candidate.rewrite.kind](candidate, after, originals, by_path)
        if problem:
            candidate.refused = f"re-analysis of the rewritten code does not confirm it: {problem}"
            candidate.rewrite = None
            continue
        candidate.rewrite = replace(candidate.rewrite, verified=True)
        candidate.makes_one_shot = verdicts[new_id]["interactivity"] == "one-shot"


def _effect_left(candidate: Candidate, after: dict, originals: dict, by_path: dict) -> str | None:
    effect = candidate.facts["step"]
    file = effect["file"]
    line = map_line(originals[file], by_path[file], effect["line"]) if file in originals else effect["line"]
    for step in step_index(after).values():
        if step["node"] == "effect" and step["file"] == file and step["line"] == line \
                and step["callee"] == effect["callee"]:
            return f"{effect['callee']} still runs inside the transaction"
    return None


def _statements(txn: dict) -> list[dict]:
    return [s for s in step_index(txn).values() if s["node"] == "statement"]


def _statements_kept(candidate: Candidate, after: dict) -> str | None:
    """The rewrite may change the statements of the entity it is about, never any other (a lost
    signal receiver or overridden save() would show up here)."""
    entity = (candidate.facts["step"] or {}).get("entity") if candidate.rewrite.kind != "on-commit" else None

    def others(txn: dict) -> list[tuple[str, str]]:
        return sorted((s.get("entity") or "", s["kind"]) for s in _statements(txn)
                      if entity is None or s.get("entity") != entity)

    if others(candidate.facts["before"]) != others(after):
        return "the transaction's other statements changed"
    return None


def _computed_by_database(candidate: Candidate, after: dict, originals: dict, by_path: dict) -> str | None:
    step = candidate.facts["step"]
    file = step["file"]
    regions = new_line_ranges(originals[file], by_path[file])
    flat = flatten(after["steps"])
    graph = graph_mod.build(flat)
    targets = [s for s in _statements(after) if s["file"] == file and s.get("entity") == step.get("entity")
               and s["kind"] == "write" and any(a <= s["line"] <= b for a, b in regions)]
    if not targets:
        return f"no {step.get('entity')} write is found where the rewrite put it"
    for target in targets:
        for source in graph.predecessors(target["id"]):
            if graph.nodes[source]["node"] == "statement":
                return f"the {step.get('entity')} write still depends on {source}"
    return None


_CLAIMS = {
    "on-commit": _effect_left,
    "f-expression": _computed_by_database,
}
