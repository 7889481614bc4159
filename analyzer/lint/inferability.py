"""Findings for statements whose read/write set is not known before they run (the TX20x rules)."""

from __future__ import annotations

from collections.abc import Iterable

from .context import LintContext
from .model import Finding

DEFAULT_REASON = ("Off by default: read/write-set inferability matters to deterministic databases (Calvin, SLOG, "
                  "Detock) and to their users; for others it is not a bug.")


def inferability_findings(ctx: LintContext, code: str, inferability: tuple[str, ...], message: str,
                          fix: str) -> Iterable[Finding]:
    for txn in ctx.linted_transactions:
        steps = {fs.id: fs.step for fs in txn.flat if fs.id}
        for statement in txn.verdict["statements"]:
            step = steps.get(statement["id"])
            if step is None or statement["inferability"] not in inferability:
                continue
            entity = statement.get("entity") or "an unknown entity"
            attrs = ", ".join(statement["attributes"]) or "no attribute"
            yield ctx.step_finding(code, txn, step,
                                   message.format(api=statement["api"], entity=entity, attributes=attrs,
                                                  cda=", ".join(ctx.analysis["cda"].get(statement.get("entity") or "", {})
                                                                .get("attributes", ["pk"]))),
                                   fix, label=f"{statement['kind']} {entity} ({statement['inferability']})")
