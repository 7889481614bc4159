"""Which rewrite each suggestion of the core gets: the builder for its front end and kind, run on
the file's text. A builder that refuses gives the reason, which becomes the suggestion's prose."""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass, field, replace
from pathlib import Path

from .. import forked
from . import compile_later, shared_work
from .edits import Refused, Rewrite
from .shared_work import work_shared


@dataclass(frozen=True)
class Project:
    """What builders may consult besides the file they edit."""
    root: Path
    entities: dict  # name -> IR entity record
    wrappers: frozenset = frozenset()  # names of the project's own functions that enter a transaction
    reads: set | None = None  # files read through read() (what a cached plan depends on)

    def read(self, path: str) -> str:
        if self.reads is not None:
            self.reads.add(path)
        return (self.root / path).read_text("utf-8")


@dataclass
class Candidate:
    transaction: str  # transaction id
    suggestion: tuple[str, str | None, str | None]  # (kind, pattern, statement id) of the core's suggestion
    rewrite: Rewrite | None = None
    refused: str = ""  # why there is no rewrite, or why it did not verify
    makes_one_shot: bool = False  # the re-analysed transaction is one-shot
    facts: dict = field(default_factory=dict)  # what the claim check needs (step, entity)
    reused: str = ""  # from the warm cache: "planned" (the rewrite), "verified" (and its verification)
    files_read: set = field(default_factory=set, repr=False)  # by its builder (for the warm cache)
    checked: Rewrite | None = field(default=None, repr=False)  # the rewrite that passed the parse and names
    # checks where it was planned (verify.check); another rewrite put in its place is checked again


def _steps(steps: list[dict]):
    for step in steps:
        yield step
        for arm in step.get("arms", []):
            yield from _steps(arm)
        yield from _steps(step.get("body", []))


def step_index(txn: dict) -> dict[str, dict]:
    return {s["id"]: s for s in _steps(txn["steps"]) if s.get("id")}


def candidates(root: Path, frontend: str, records: list[dict], analyses: dict, ids=None, reuse=None,
               then=None, texts: dict | None = None,
               assumed: compile_later.Assumed | None = None) -> list[Candidate]:
    """Every suggestion of the transactions (all, or `ids`) with the rewrite its builder made, or
    why there is none. `reuse` (analyzer.cache.rewrites.RewriteReuse) gives plans kept in the
    warm cache whose inputs did not change. `then(candidate)`, when given, runs on each planned
    candidate where it was planned (verify.check: its parse and names checks). `texts` (path ->
    text) holds the files the builders read, for the checks to read them once (file_text).

    Django's builders run on both cores where a helper process may start (shared_work.py): a
    file's candidates in one process or the other, never in both. When they are shared and
    `assumed` is given, the texts they read are assumed to compile and are noted in it, to be
    confirmed later (compile_later.py)."""
    transactions = {r["id"]: r for r in records if r["type"] == "transaction" and (ids is None or r["id"] in ids)}
    wanted: dict[tuple, dict] = {}
    for analysis in analyses.values():
        for verdict in analysis["transactions"]:
            if verdict["id"] in transactions:
                for suggestion in verdict["suggestions"]:
                    key = (verdict["id"], suggestion["kind"], suggestion.get("pattern"), suggestion.get("statement"))
                    wanted.setdefault(key, suggestion)
    wrappers = frozenset(r["wrapper"].rsplit(".", 1)[-1] for r in records if r["type"] == "transaction" and r.get("wrapper"))
    project = Project(root, {r["name"]: r for r in records if r["type"] == "entity"}, wrappers)
    texts = {} if texts is None else texts
    indexes: dict[str, dict[str, dict]] = {}  # a transaction's steps by id, built once for all its suggestions
    out = []
    jobs = []  # (candidate, builder, transaction, step) of the candidates to plan now
    for (txn_id, kind, pattern, step_id) in sorted(wanted, key=lambda k: tuple(x or "" for x in k)):
        txn = transactions[txn_id]
        if txn_id not in indexes:
            indexes[txn_id] = step_index(txn)
        step = indexes[txn_id].get(step_id)
        candidate = Candidate(txn_id, (kind, pattern, step_id), facts={"step": step, "before": txn})
        builder = _BUILDERS.get((frontend, kind, pattern))
        if builder is not None and step is not None:
            _kept_plan(candidate, reuse)
        if builder is None or step is None:
            candidate.refused = "no rewrite of this kind is verified for this front end"
        elif not candidate.reused:
            jobs.append((candidate, builder, txn, step))
        out.append(candidate)

    # the compiler's verdicts wait for the plans only where planning is shared: a second core is there
    # to give them during re-analysis
    assume = assumed is not None and len(jobs) >= shared_work.MIN_ITEMS and frontend == "django" and forked.allowed()
    if assumed is not None:
        assumed.active = assume

    def plan(job) -> tuple:
        candidate, builder, txn, step = job
        with compile_later.noting(assume) as noted:
            candidate.rewrite, candidate.refused = _build(_builder(builder), root, texts, txn, step, project, candidate)
            if then is not None:
                then(candidate)
        return candidate.rewrite, candidate.refused, candidate.files_read, candidate.checked, noted

    # (TypeScript checks talk to one long-lived node process, which two processes cannot share)
    shared = work_shared(jobs, plan, key=lambda job: job[3]["file"]) if frontend == "django" else map(plan, jobs)
    for job, planned in zip(jobs, shared):
        candidate = job[0]  # (the helper's candidates are copies: what they found is put here)
        candidate.rewrite, candidate.refused, candidate.files_read, candidate.checked, noted = planned
        if noted:
            assumed.add(noted)
    out.extend(_escaped_statements(root, records, transactions, project, texts, reuse))
    return out


def _kept_plan(candidate: Candidate, reuse) -> None:
    kept = reuse.planned(candidate) if reuse is not None else None
    if kept is not None:
        from ..cache.rewrites import rewrite_from_json

        candidate.rewrite, candidate.refused = rewrite_from_json(kept["rewrite"]), kept["refused"]
        candidate.reused = "planned"


def _escaped_statements(root: Path, records: list[dict], transactions: dict, project: Project, texts: dict, reuse=None):
    """A ts-manager candidate per `escaped-manager` diagnostic inside a transaction's callback."""
    out = []
    for diagnostic in records:
        if diagnostic["type"] != "diagnostic" or diagnostic["code"] != "escaped-manager":
            continue
        for txn in transactions.values():
            if txn["file"] == diagnostic["file"] and txn["line"] <= diagnostic["line"] <= txn.get("end_line", 0):
                candidate = Candidate(txn["id"], ("ts-manager", None, f"{diagnostic['file']}:{diagnostic['line']}"),
                                      facts={"step": diagnostic, "before": txn})
                _kept_plan(candidate, reuse)
                candidate.rewrite, candidate.refused = _build(_builder("typescript_manager"), root, texts, txn,
                                                              diagnostic, project, candidate)
                out.append(candidate)
    return out


def _build(builder, root: Path, texts: dict, txn: dict, step: dict, project: Project,
           candidate: Candidate) -> tuple[Rewrite | None, str]:
    """The builder's rewrite, or why there is none; a failure inside a builder is a refusal too
    (the suggestion stays prose and the scan completes). The files it read are noted in
    `candidate.files_read`. With a warm cache (`candidate.reused` set by the caller), a plan kept
    there is taken instead."""
    if candidate.reused:
        return candidate.rewrite, candidate.refused
    candidate.files_read = {step["file"]}
    project = replace(project, reads=candidate.files_read)
    try:
        return builder(step["file"], _text(root, step["file"], texts), txn, step, project), ""
    except Refused as exc:
        return None, str(exc)
    except Exception as exc:  # noqa: BLE001
        return None, f"the rewrite failed ({type(exc).__name__}: {exc})"[:300]


def file_text(root: Path, path: str, texts: dict) -> str:
    """The text of the file at `path`, read once per scan's rewrites: `texts` holds those read
    already (by the builders or the checks), the rest is read (raising what reading raises)."""
    if path not in texts:
        texts[path] = (root / path).read_text("utf-8")
    return texts[path]


def _text(root: Path, path: str, texts: dict) -> str:
    """file_text for a builder: a file that cannot be read refuses the rewrite."""
    try:
        return file_text(root, path, texts)
    except (OSError, UnicodeDecodeError) as exc:
        raise Refused(f"{path} cannot be read") from exc


# Builders by (front end, suggestion kind, pattern): the module whose `rewrite` builds it,
# imported when first used (a TypeScript scan does not load libcst for the Python builders).
_BUILDERS = {
    ("django", "on-commit", None): "python_on_commit",
    ("django", "one-shot", "read-modify-write"): "python_f_expression",
    ("typeorm", "one-shot", "read-modify-write"): "typescript_increment",
}


def import_builders(frontend: str) -> None:
    """Import the builders of `frontend`'s rewrites now, not at their first candidate: a Django
    scan imports them with the generated code table at hand (scan.py, generated_code.py)."""
    for (kind_frontend, _kind, _pattern), module in _BUILDERS.items():
        if kind_frontend == frontend:
            _builder(module)


@functools.cache
def _builder(module: str):
    """The module's `rewrite`, imported once (asking importlib for every candidate cost 0.7% of
    the rewrites phase on the 300k-line synthetic project)."""
    return importlib.import_module(f"{__package__}.{module}").rewrite
