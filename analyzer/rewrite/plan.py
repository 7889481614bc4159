"""Which rewrite each suggestion of the core gets: the builder for its front end and kind, run on
the file's text. A builder that refuses gives the reason, which becomes the suggestion's prose."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from . import python_on_commit
from .edits import Rewrite


@dataclass
class Candidate:
    transaction: str  # transaction id
    suggestion: tuple[str, str | None]  # (kind, statement id) of the core's suggestion
    rewrite: Rewrite | None = None
    refused: str = ""  # why there is no rewrite, or why it did not verify
    makes_one_shot: bool = False  # the re-analysed transaction is one-shot
    facts: dict = field(default_factory=dict)  # what the claim check needs (step, entity)


def _steps(steps: list[dict]):
    for step in steps:
        yield step
        for arm in step.get("arms", []):
            yield from _steps(arm)
        yield from _steps(step.get("body", []))


def step_index(txn: dict) -> dict[str, dict]:
    return {s["id"]: s for s in _steps(txn["steps"]) if s.get("id")}


def candidates(root: Path, frontend: str, records: list[dict], analyses: dict, ids=None) -> list[Candidate]:
    transactions = {r["id"]: r for r in records if r["type"] == "transaction" and (ids is None or r["id"] in ids)}
    wanted: dict[tuple, dict] = {}
    for analysis in analyses.values():
        for verdict in analysis["transactions"]:
            if verdict["id"] in transactions:
                for suggestion in verdict["suggestions"]:
                    wanted.setdefault((verdict["id"], suggestion["kind"], suggestion.get("statement")), suggestion)
    texts: dict[str, str | None] = {}
    out = []
    for (txn_id, kind, step_id), suggestion in sorted(wanted.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] or "")):
        txn = transactions[txn_id]
        step = step_index(txn).get(step_id)
        candidate = Candidate(txn_id, (kind, step_id), facts={"step": step})
        builder = _BUILDERS.get((frontend, kind))
        if builder is None or step is None:
            candidate.refused = "no rewrite of this kind is verified for this front end"
        else:
            path = step["file"]
            if path not in texts:
                try:
                    texts[path] = (root / path).read_text("utf-8")
                except (OSError, UnicodeDecodeError):
                    texts[path] = None
            if texts[path] is None:
                candidate.refused = f"{path} cannot be read"
            else:
                try:
                    candidate.rewrite = builder(path, texts[path], txn, step)
                except python_on_commit.Refused as exc:
                    candidate.refused = str(exc)
        out.append(candidate)
    return out


_BUILDERS = {
    ("django", "on-commit"): python_on_commit.rewrite,
}
