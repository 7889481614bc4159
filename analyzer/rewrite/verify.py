"""Verification of rewrites: the rewritten files parse, and a re-analysis of the project with the
edits applied confirms each rewrite's claim. Only then is a rewrite `verified`. Django: the
project is re-analysed in place, the edited texts standing in for their files
(django_reanalysis.py); TypeScript: a copy of the project with the edits is scanned."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..cache import ScanCache
from ..core import graph as graph_mod
from ..core.flatten import flatten
from . import checks, typescript_syntax
from .edits import EditConflict, apply, edits_by_path, map_line, new_line_ranges
from .plan import Candidate, file_text, step_index
from .project_copy import edited_copy, edited_texts


def verify(root: Path, frontend: str, config, candidates: list[Candidate], entities: dict, cache=None,
           reuse=None, scan_context=None, texts: dict | None = None, served=None) -> None:
    """Marks each candidate's rewrite verified (or says in `refused` why not), in place.

    `cache` (analyzer.cache.ScanCache) is the work of the scan of `root`: re-analysis then reuses
    it for what the edits did not change (Django: only the checked transactions are walked;
    TypeScript: only the transactions of the round's files).
    `reuse` (analyzer.cache.rewrites.RewriteReuse) holds plans and verifications of an earlier
    scan: a round whose candidates are all unchanged is not re-analysed (the rounds are formed as
    without it, from every candidate).
    `scan_context` (Django: the scan's Context) shares its module facts and parsed definitions
    with re-analysis where the edits do not reach them (django_reanalysis.py).
    `texts` (path -> text, see plan.file_text) holds files already read during the scan's rewrites.
    `served` (TypeScript: the scan's ts-plugin process, typeorm.bridge.Run) re-analyses the edits
    in the program the scan built, instead of a scan of an edited copy."""
    texts = {} if texts is None else texts
    pending = []
    for candidate in candidates:
        if candidate.rewrite is None:
            if not candidate.reused and candidate.files_read and reuse is not None:
                reuse.keep_plan(candidate, candidate.files_read)
            continue
        if candidate.reused or candidate.checked is candidate.rewrite or check(root, candidate, entities, texts):
            pending.append(candidate)
        if not candidate.reused and reuse is not None:
            reuse.keep_plan(candidate, candidate.files_read)
    while pending:
        batch, pending = _round(root, pending)
        context = reuse.round_context(batch) if reuse is not None else None
        changed = [c for c in batch if not _kept_verdict(c, reuse, context)]
        if changed:
            _check_round(root, frontend, config, batch, texts, cache, changed, reuse, context, scan_context, served)


def check(root: Path, candidate: Candidate, entities: dict, texts: dict) -> bool:
    """The checks before re-analysis: the rewritten files parse and the rewritten query names
    only what its entity has. Otherwise the candidate's rewrite is dropped, with the reason.
    `texts`: see plan.file_text."""
    if candidate.rewrite is None:
        return False
    if not (_parses(root, candidate, texts) and _names_known(root, candidate, entities, texts)):
        return False
    candidate.checked = candidate.rewrite
    return True


def _kept_verdict(candidate: Candidate, reuse, context) -> bool:
    verdict = reuse.verdict(candidate, context) if reuse is not None else None
    if verdict is None:
        return False
    candidate.refused, candidate.makes_one_shot = verdict["refused"], verdict["makes_one_shot"]
    candidate.rewrite = replace(candidate.rewrite, verified=True) if verdict["verified"] else None
    candidate.reused = "verified"
    return True


def _parses(root: Path, candidate: Candidate, texts: dict) -> bool:
    for path, edits in edits_by_path(candidate.rewrite.edits).items():
        original = file_text(root, path, texts)
        try:
            text = apply(original, edits)
        except EditConflict as exc:
            problem = str(exc)
        else:
            problem = checks.python_parses(path, text, original, edits) if path.endswith(".py") \
                else _typescript_parses(path, text)
        if problem:
            candidate.refused = f"the rewritten code does not parse ({problem})"
            candidate.rewrite = None
            return False
    return True


def _typescript_parses(path: str, text: str) -> str | None:
    try:
        errors = typescript_syntax.parse_errors(path, text)
    except typescript_syntax.Unavailable as exc:
        return str(exc)
    return "; ".join(errors[:3]) or None


def _names_known(root: Path, candidate: Candidate, entities: dict, texts: dict) -> bool:
    """The rewritten query names only attributes (and lookups on them) its entity has."""
    if candidate.rewrite.kind in ("on-commit", "ts-manager"):
        return True
    entity_name = (candidate.facts["step"] or {}).get("entity")
    for path, edits in edits_by_path(candidate.rewrite.edits).items():
        original = file_text(root, path, texts)
        text = apply(original, edits)
        regions = new_line_ranges(original, edits)
        if path.endswith(".py"):
            keywords = checks.queryset_keywords(text, regions, checks.edited_chunks(original, edits))
            unknown = checks.unknown_attributes(entities.get(entity_name or ""), keywords)
        else:
            unknown = []
            for named, attributes in checks.typeorm_increments(text, regions):
                if named != entity_name:
                    unknown.append(f"the entity {named}")
                unknown += checks.unknown_attributes(entities.get(named), attributes)
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


def _check_round(root: Path, frontend: str, config, batch: list[Candidate], texts: dict, cache=None, checked=None,
                 reuse=None, context=None, scan_context=None, served=None) -> None:
    """Re-analyses the project with the edits of the whole `batch` and checks the claims of
    `checked` (by default, the whole batch)."""
    checked = batch if checked is None else checked
    edits = {e for c in batch for e in c.rewrite.edits}
    by_path = edits_by_path(edits)
    originals = {path: file_text(root, path, texts) for path in by_path}
    new_ids = {}
    for candidate in checked:
        file, line = candidate.transaction.rsplit(":", 1)
        new_ids[id(candidate)] = f"{file}:{map_line(originals[file], by_path[file], int(line)) if file in originals else line}"
    try:
        if frontend == "typeorm":
            transactions, verdicts, records, reached = _reanalysed_typescript(root, config, batch, edits, cache, served)
        else:
            from .django_reanalysis import reanalyse

            edited = {path: apply(originals[path], found) for path, found in by_path.items()}
            tables = cache.tables("django") if cache is not None else {}
            transactions, verdicts, records, reached = reanalyse(root, config, edited, set(new_ids.values()), tables,
                                                                 by_path, originals, scan_context)
    except Exception as exc:  # noqa: BLE001 - a failed re-analysis leaves the suggestions in prose
        for candidate in checked:  # (not kept in the warm cache: the failure may not come from the inputs)
            candidate.refused = f"the rewritten code could not be re-analysed ({type(exc).__name__}: {exc})"[:300]
            candidate.rewrite = None
        return
    claims = {"originals": originals, "by_path": by_path, "records": records}
    for candidate in checked:
        new_id = new_ids[id(candidate)]
        own = {e.path for e in candidate.rewrite.edits}
        _confirm(candidate, transactions.get(new_id), verdicts.get(new_id), claims)
        if reuse is not None:
            reuse.keep_verdict(candidate, context, reached.get(new_id, set()) | own)


def _reanalysed_typescript(root: Path, config, batch: list[Candidate], edits, cache,
                           served=None) -> tuple[dict, dict, list[dict], dict]:
    """TypeScript: the project with the edits, walking the transactions of the batch's files
    (ts-plugin builds one program of the whole project): by the scan's own ts-plugin process
    (`served`), which reuses the program of the scan for every file the edits leave unchanged,
    else (no such process, or one that does not answer) by a scan of an edited copy."""
    walk_files = sorted({c.transaction.rsplit(":", 1)[0] for c in batch})
    if served is not None:
        from ..typeorm.bridge import FrontendUnavailable

        try:
            records = served.reanalyse(edited_texts(root, edits), walk_files)
        except FrontendUnavailable:
            pass  # the copy is scanned: the outcome is the same, only slower
        else:
            return _typescript_findings(records, config)
    from ..scan import scan  # the scan itself calls this module after its analysis

    observed = _ObservedCache(cache.read_only()) if cache else None
    with edited_copy(root, edits) as copy:
        result = scan(copy, config, "typeorm", rewrites=False, autocommit=False, cache=observed,
                      walk_files=walk_files)
    transactions = {r["id"]: r for r in result.records if r["type"] == "transaction"}
    verdicts = {t["id"]: t for t in result.analyses["pk"]["transactions"]}
    return transactions, verdicts, result.records, {}


def _typescript_findings(records: list[dict], config) -> tuple[dict, dict, list[dict], dict]:
    """What _reanalysed_typescript gives of the records of a re-analysis: the records as the IR's
    round trip gives them back, and the core's pk verdicts of them (as a scan makes both)."""
    from .. import ir
    from ..core import Settings, analyze

    records = list(ir.loads(ir.dumps(records)))
    transactions = {r["id"]: r for r in records if r["type"] == "transaction"}
    verdicts = {t["id"]: t for t in analyze(records, Settings("pk", config.cda_entities))["transactions"]}
    return transactions, verdicts, records, {}


def _confirm(candidate: Candidate, after: dict | None, verdict: dict | None, claims: dict) -> None:
    """Verified, or refused with the reason: what re-analysis found of the candidate's transaction."""
    if after is None:
        candidate.refused = "re-analysis of the rewritten code no longer finds the transaction"
        candidate.rewrite = None
        return
    problem = _statements_kept(candidate, after) or _CLAIMS[candidate.rewrite.kind](candidate, after, claims)
    if problem:
        candidate.refused = f"re-analysis of the rewritten code does not confirm it: {problem}"
        candidate.rewrite = None
        return
    candidate.rewrite = replace(candidate.rewrite, verified=True)
    candidate.makes_one_shot = verdict["interactivity"] == "one-shot"


class _ObservedCache(ScanCache):
    """The scan's own work, read-only, for the scan of a rewritten copy; what that scan would
    have kept is held here (which files each transaction's walk read), never written."""

    def __init__(self, shared: ScanCache) -> None:
        super().__init__(None, frozen=True)
        self._shared = shared
        self.kept: dict[str, dict] = {}

    def tables(self, frontend: str) -> dict:
        return self._shared.tables(frontend)

    def keep(self, frontend: str, tables: dict) -> None:
        self.kept[frontend] = tables


def _effect_left(candidate: Candidate, after: dict, context: dict) -> str | None:
    originals, by_path = context["originals"], context["by_path"]
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
    if candidate.rewrite.kind == "ts-manager":  # it adds the statement; _on_manager checks the rest
        return None
    entity = (candidate.facts["step"] or {}).get("entity") if candidate.rewrite.kind != "on-commit" else None

    def others(txn: dict) -> list[tuple[str, str]]:
        return sorted((s.get("entity") or "", s["kind"]) for s in _statements(txn)
                      if entity is None or s.get("entity") != entity)

    if others(candidate.facts["before"]) != others(after):
        return "the transaction's other statements changed"
    return None


def _computed_by_database(candidate: Candidate, after: dict, context: dict) -> str | None:
    step = candidate.facts["step"]
    file = step["file"]
    regions = new_line_ranges(context["originals"][file], context["by_path"][file])
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


def _on_manager(candidate: Candidate, after: dict, context: dict) -> str | None:
    """The statement no longer escapes: no escaped-manager diagnostic at its line, and the
    transaction now has a statement there besides every statement it had."""
    diagnostic = candidate.facts["step"]
    at = (diagnostic["file"], diagnostic["line"])
    if any(r["type"] == "diagnostic" and r["code"] == "escaped-manager" and (r["file"], r["line"]) == at
           for r in context["records"]):
        return "the statement still runs outside the transaction"
    statements = _statements(after)
    if not any((s["file"], s["line"]) == at for s in statements):
        return "the transaction has no statement where the rewrite put it"

    def kinds(txn: dict) -> list[tuple[str, str]]:
        return sorted((s.get("entity") or "", s["kind"]) for s in _statements(txn) if (s["file"], s["line"]) != at)
    if kinds(candidate.facts["before"]) != kinds(after):
        return "the transaction's other statements changed"
    return None


_CLAIMS = {
    "on-commit": _effect_left,
    "f-expression": _computed_by_database,
    "ts-increment": _computed_by_database,
    "ts-manager": _on_manager,
}
