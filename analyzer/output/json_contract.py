"""The `--format json` document (the contract of the scan command)."""

from __future__ import annotations

import json
from collections import Counter
from json.encoder import encode_basestring as _string  # json's own (C) string encoder, not ASCII-only

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
    """`json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False)` and a newline, written by
    _indented(): with an indent, the json module encodes in Python, one generator per container
    (0.46 s for saleor's 17 MB); _indented() writes the same text in two thirds of the time. A document
    holding what _indented() does not write (floats, keys that are not strings) goes to json."""
    try:
        return _indented(doc)
    except _NotPlain:
        return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


class _NotPlain(Exception):
    pass


def _indented(doc) -> str:
    parts: list[str] = []
    append = parts.append

    def value(o, indent: str) -> None:
        kind = type(o)
        if kind is str:
            append(_string(o))
        elif kind is dict:
            if any(type(key) is not str for key in o):
                raise _NotPlain
            keys = sorted(o)
            container([o[key] for key in keys], [_string(key) + ": " for key in keys], "{", "}", indent)
        elif kind is list or kind is tuple:
            container(o, None, "[", "]", indent)
        elif o is None:
            append("null")
        elif o is True:
            append("true")
        elif o is False:
            append("false")
        elif kind is int:
            append(int.__repr__(o))
        else:
            raise _NotPlain

    def container(items, labels: list[str] | None, opening: str, closing: str, indent: str) -> None:
        """`items` one per line, each after its label (a dict's key) when there are labels."""
        if not items:
            append(opening + closing)
            return
        inner = indent + "  "
        separator = ",\n" + inner
        append(opening + "\n" + inner)
        for position, item in enumerate(items):
            if position:
                append(separator)
            if labels is not None:
                append(labels[position])
            value(item, inner)
        append("\n" + indent + closing)

    value(doc, "")
    append("\n")
    return "".join(parts)
