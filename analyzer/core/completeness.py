"""Completeness of one transaction (docs/VERDICTS.md, "Completeness").

A verdict is only as good as what the front end saw. Every `unresolved` step the walk emitted
(a receiver of unknown type, a callable chosen at run time, a depth or budget limit) is a
place where statements or effects may be missing; a transaction without any statement is
almost always one whose statements the walk did not reach. Such a transaction is incomplete:
its verdict stands as a lower bound, and the places are listed. The core adds the
diagnostics tied to the transaction itself, so that every front end gets the same ones.
"""

from __future__ import annotations

from ..ir import diagnostic
from .flatten import FlatStep

NO_STATEMENT = "no-statement-found"
# Reason codes of `unresolved` steps (docs/IR.md) whose diagnostic has its own code; any other
# reason is reported as `unresolved-call`.
_DIAGNOSTIC_CODE = {"unresolved-receiver": "unresolved-receiver", "depth-limit": "depth-limit",
                    "budget": "depth-limit"}


def incomplete_sites(txn: dict, flat: list[FlatStep]) -> list[dict]:
    """The places where the walk went blind, deduplicated and sorted (file, line, callee, reason)."""
    sites = {(fs.step["file"], fs.step["line"], fs.step.get("callee", ""), fs.step.get("reason", ""))
             for fs in flat if fs.node == "unresolved"}
    if not any(fs.node == "statement" for fs in flat):
        sites.add((txn["file"], txn["line"], "", NO_STATEMENT))
    return [{"file": f, "line": line, "callee": callee, "reason": reason}
            for f, line, callee, reason in sorted(sites)]


def diagnostics(txn: dict, flat: list[FlatStep], incomplete: list[dict], existing: set[tuple]) -> list[dict]:
    """Diagnostics tied to the transaction, one per incomplete site; a front end's own
    diagnostic at the same place with the same code is not repeated."""
    details = {(fs.step["file"], fs.step["line"], fs.step.get("callee", ""), fs.step.get("reason", "")):
               fs.step.get("detail") for fs in flat if fs.node == "unresolved"}
    out = []
    for site in incomplete:
        if site["reason"] == NO_STATEMENT:
            code = NO_STATEMENT
            message = f"no statement found in transaction {txn['id']}: its verdict is not a finding"
        else:
            code = _DIAGNOSTIC_CODE.get(site["reason"], "unresolved-call")
            detail = details.get((site["file"], site["line"], site["callee"], site["reason"]))
            message = f"{site['callee']}: {site['reason']}{f' ({detail})' if detail else ''} (in transaction {txn['id']})"
        if (site["file"], site["line"], code) in existing:
            continue
        record = diagnostic(site["file"], site["line"], code, message, "warning")
        record["transaction"] = txn["id"]
        out.append(record)
    return out
