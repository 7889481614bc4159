"""Puts verified rewrites into a scan's suggestions: code only for a verified rewrite (with the
claim re-analysis confirmed and whether the transaction is then one-shot); otherwise the
suggestion stays prose and says why no code is shown."""

from __future__ import annotations

import textwrap

from . import verified_candidates


def attach(result, config) -> None:
    found = {(c.transaction, *c.suggestion): c for c in verified_candidates(result.root, result, config)}
    for analysis in result.analyses.values():
        for txn in analysis["transactions"]:
            for suggestion in txn["suggestions"]:
                candidate = found.get((txn["id"], suggestion["kind"], suggestion.get("pattern"),
                                       suggestion.get("statement")))
                if candidate is None:
                    continue
                rewrite = candidate.rewrite
                if rewrite is not None and rewrite.verified:
                    suggestion.update(verified=True, claim=rewrite.claim, code=code_of(rewrite),
                                      makes_one_shot=candidate.makes_one_shot,
                                      makes_inferable=rewrite.kind == "reconnaissance")
                else:
                    suggestion["claim"] = f"no code shown: {candidate.refused}"


def code_of(rewrite) -> str:
    """The rewritten lines, each edit's on its own, for display (the edits are what --fix applies)."""
    parts = [textwrap.dedent(e.text).rstrip("\n") for e in sorted(rewrite.edits, key=lambda e: (e.path, e.start))]
    return "\n".join(p for p in parts if p)
