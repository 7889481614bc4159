"""`--format sarif`: SARIF 2.1.0 for code scanning (GitHub, GitLab, IDEs).

Rules carry their generated Markdown help, default level, precision and tags; results their
location (URIs relative to the working folder under `%SRCROOT%`, as GitHub resolves them from
the checkout), the transaction boundary as a related location, the call chain as a code flow and
`partialFingerprints.primaryLocationLineHash` so that alerts survive moved lines.
"""

from __future__ import annotations

import json

from ... import __version__
from ..docs import render_markdown
from .common import display_path, fingerprints, rule_of

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
BASE = "%SRCROOT%"


def _physical(outcome, loc) -> dict:
    return {"artifactLocation": {"uri": display_path(outcome, loc.path), "uriBaseId": BASE},
            "region": {"startLine": loc.line, "startColumn": loc.col}}


def rule_descriptor(rule) -> dict:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.doc.what},
        "help": {"text": f"{rule.doc.why}\n\nFix: {rule.doc.fix}", "markdown": render_markdown(rule)},
        "defaultConfiguration": {"level": rule.level, "enabled": rule.enabled_by_default},
        "properties": {"precision": rule.precision, "tags": list(rule.tags),
                       "problem.severity": {"error": "error", "warning": "warning", "note": "recommendation"}[rule.level]},
    }


def document(outcome) -> dict:
    rules = sorted(({r.code: r for r in outcome.rules} | {f.code: rule_of(f) for f in outcome.findings}).items())
    index = {code: i for i, (code, _rule) in enumerate(rules)}
    results = []
    for finding, fingerprint in zip(outcome.findings, fingerprints(outcome)):
        rule = rule_of(finding)
        result = {
            "ruleId": finding.code,
            "ruleIndex": index[finding.code],
            "level": rule.level,
            "message": {"text": finding.message + (f" (fix: {finding.fix})" if finding.fix else "")},
            "locations": [{"physicalLocation": _physical(outcome, finding.location)}],
            "partialFingerprints": {"primaryLocationLineHash": fingerprint},
        }
        if finding.boundary is not None:
            result["relatedLocations"] = [{"id": 1, "physicalLocation": _physical(outcome, finding.boundary),
                                           "message": {"text": finding.boundary.label}}]
        if len(finding.chain) > 1:
            result["codeFlows"] = [{"threadFlows": [{"locations": [
                {"location": {"physicalLocation": _physical(outcome, step), "message": {"text": step.label}},
                 "nestingLevel": depth}
                for depth, step in enumerate(finding.chain)]}]}]
        if finding.function:
            result["properties"] = {"function": finding.function}
        results.append(result)
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "txscan", "version": __version__, "semanticVersion": __version__,
                                "rules": [rule_descriptor(rule) for _code, rule in rules]}},
            "columnKind": "unicodeCodePoints",
            "results": results,
            "invocations": [{"executionSuccessful": True,
                             "toolExecutionNotifications": [{"message": {"text": note}, "level": "note"}
                                                            for note in outcome.notes]}],
        }],
    }


def render(outcome, stream, colour: bool) -> None:
    stream.write(json.dumps(document(outcome), indent=2, sort_keys=True, ensure_ascii=False) + "\n")
