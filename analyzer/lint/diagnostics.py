"""Findings from front-end diagnostics (the TypeScript front end reports escaped managers and
missing awaits while it walks a transaction), tied to the transaction whose code holds them."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .context import LintContext
from .model import Finding, Location

_NAME = re.compile(r"`([A-Za-z_$][\w$]*)|^([A-Za-z_$][\w$]*)")


def diagnostic_findings(ctx: LintContext, code: str, diagnostic_code: str, fix: str) -> Iterable[Finding]:
    seen = set()
    for diag in ctx.diagnostics:
        if diag["code"] != diagnostic_code or (diag["file"], diag["line"], diag["message"]) in seen:
            continue
        seen.add((diag["file"], diag["line"], diag["message"]))
        match = _NAME.search(diag["message"])
        needle = next((g for g in match.groups() if g), "") if match else ""
        if "forEach(" in diag["message"]:
            needle = "forEach"
        where = Location(diag["file"], diag["line"], ctx.column(diag["file"], diag["line"], needle))
        txn = _enclosing(ctx, diag["file"], diag["line"])
        boundary = ctx.boundary(txn) if txn else None
        yield Finding(code=code, location=where, message=diag["message"],
                      function=txn.record["function"] if txn else "",
                      boundary=boundary,
                      chain=(boundary, Location(where.path, where.line, where.col, diag["message"])) if boundary else (),
                      fix=fix, transaction=txn.id if txn else "")


def _enclosing(ctx: LintContext, path: str, line: int):
    """The innermost transaction whose boundary span holds the line, else one whose steps run in that file."""
    around = ctx.transaction_around(path, line)
    if around is not None:
        return around
    near = [t for t in ctx.transactions if any(fs.step.get("file") == path for fs in t.flat)]
    return near[0] if near else None
