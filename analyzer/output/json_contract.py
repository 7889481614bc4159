"""The `--format json` document (the contract of the scan command)."""

from __future__ import annotations

import json
from collections import Counter

from ..core.classify import AUTOCOMMIT

TRANSACTION_FIELDS = ("id", "file", "line", "end_line", "function", "boundary", "wrapper", "interactivity", "reasons",
                      "complete", "incomplete", "rw_inferable", "read_set", "write_set", "statements", "suggestions", "excerpt")


def summary(analysis: dict) -> dict:
    transactions = analysis["transactions"]
    statements = [s for t in transactions for s in t["statements"]]
    return {
        "transactions": len(transactions),
        "autocommit": sum(1 for t in transactions if t["boundary"] == AUTOCOMMIT),
        "interactivity": dict(sorted(Counter(t["interactivity"] for t in transactions).items())),
        "rw_inferable": dict(sorted(Counter(t["rw_inferable"] for t in transactions).items())),
        "incomplete": sum(1 for t in transactions if not t.get("complete", True)),
        "statements": len(statements),
        "inferability": dict(sorted(Counter(s["inferability"] for s in statements).items())),
        "diagnostics": len(analysis["diagnostics"]),
    }


def document(analysis: dict, root: str, lines: int, files: int) -> dict:
    return {
        "root": root,
        "frontend": analysis["frontend"],
        "cda_mode": analysis["cda_mode"],
        "cda": analysis["cda"],
        "files": files,
        "lines": lines,
        "summary": summary(analysis),
        "transactions": [{k: t.get(k) for k in TRANSACTION_FIELDS} for t in analysis["transactions"]],
        "entities": [{k: v for k, v in e.items() if k not in ("ir", "type")} for e in analysis["entities"]],
        "diagnostics": [{k: v for k, v in d.items() if k not in ("ir", "type")} for d in analysis["diagnostics"]],
    }


def dumps(doc: dict) -> str:
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
