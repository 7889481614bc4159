"""`--format json`: the findings as data (paths relative to the project root)."""

from __future__ import annotations

import json

from .common import fingerprints, rule_of


def _location(loc) -> dict:
    out = {"path": loc.path, "line": loc.line, "col": loc.col}
    if loc.label:
        out["label"] = loc.label
    return out


def document(outcome) -> dict:
    findings = []
    for finding, fingerprint in zip(outcome.findings, fingerprints(outcome)):
        findings.append({
            "code": finding.code,
            "rule": rule_of(finding).name,
            "message": finding.message,
            **_location(finding.location),
            "function": finding.function,
            "transaction": finding.transaction or None,
            "boundary": _location(finding.boundary) if finding.boundary else None,
            "chain": [_location(step) for step in finding.chain],
            "fix": finding.fix or None,
            "fingerprint": fingerprint,
        })
    return {
        "txscan_lint": 1,
        "root": outcome.root.name,
        "frontend": outcome.frontend,
        "findings": findings,
        "notes": outcome.notes,
        "summary": {"findings": len(findings), "suppressed": outcome.suppressed, "baselined": outcome.baselined},
    }


def render(outcome, stream, colour: bool) -> None:
    stream.write(json.dumps(document(outcome), indent=2, sort_keys=True, ensure_ascii=False) + "\n")
