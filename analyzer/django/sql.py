"""A deliberately small SQL reader for raw statements: table, kind and WHERE columns.

It understands the simple single-table statements applications write by hand
(`SELECT ... FROM t WHERE a = %s AND b IN (...)`, `UPDATE t SET ... WHERE id = %s`,
`DELETE FROM t WHERE ...`, `INSERT INTO t ...`). Anything else (joins, subqueries,
CTEs, SQL built at run time) is reported as unparsed, which the core treats as unknown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_PLACEHOLDER = re.compile(r"%s|%\(\w+\)s|\?|(?<!:):\w+|\$\d+")
_IDENT = r'[`"\[]?([A-Za-z_][\w.]*)[`"\]]?'
_HEADS = [
    ("select", re.compile(rf"^\s*select\s+.+?\s+from\s+{_IDENT}(?:\s+(?:as\s+)?\w+)?\s*(where\s+(?P<where>.+?))?\s*(group\s+by|order\s+by|limit|for\s+update|$)", re.I | re.S)),
    ("update", re.compile(rf"^\s*update\s+{_IDENT}\s+set\s+(?P<set>.+?)\s*(where\s+(?P<where>.+?))?\s*(returning|$)", re.I | re.S)),
    ("delete", re.compile(rf"^\s*delete\s+from\s+{_IDENT}\s*(where\s+(?P<where>.+?))?\s*(returning|$)", re.I | re.S)),
    ("insert", re.compile(rf"^\s*insert\s+into\s+{_IDENT}", re.I | re.S)),
]
_COMPARISON = re.compile(
    r"^\s*(?:\w+\.)?[`\"]?(\w+)[`\"]?\s*(=|==|<>|!=|<=|>=|<|>|\bnot\s+in\b|\bin\b|\bnot\s+like\b|\blike\b|\bilike\b|\bis\s+not\s+null\b|\bis\s+null\b|\bbetween\b)",
    re.I,
)
_OPS = {"=": "eq", "==": "eq", "in": "in", "<>": "ne", "!=": "ne", "not in": "ne", "<": "range", ">": "range",
        "<=": "range", ">=": "range", "between": "range", "like": "pattern", "ilike": "pattern",
        "not like": "pattern", "is null": "null", "is not null": "null"}


@dataclass
class ParsedSQL:
    kind: str
    table: str
    where: list[tuple[str, str]] = field(default_factory=list)  # (column, op) in placeholder order
    has_where: bool = False
    set_placeholders: int = 0


def parse(sql: str | None) -> ParsedSQL | None:
    if not sql:
        return None
    text = " ".join(sql.strip().rstrip(";").split())
    if re.search(r"\bjoin\b|\bunion\b|\(\s*select\b|^\s*with\b", text, re.I):
        return None
    for kind, pattern in _HEADS:
        match = pattern.match(text)
        if not match:
            continue
        table = match.group(1).split(".")[-1]
        result = ParsedSQL(kind, table)
        if kind == "insert":
            return result
        if kind == "update":
            result.set_placeholders = len(_PLACEHOLDER.findall(match.group("set")))
        where = match.groupdict().get("where")
        if where:
            result.has_where = True
            for part in re.split(r"\s+(?:and|or)\s+", where, flags=re.I):
                part = part.strip().strip("()")
                comparison = _COMPARISON.match(part)
                if comparison is None:
                    return None
                op = _OPS[" ".join(comparison.group(2).lower().split())]
                result.where.append((comparison.group(1), op))
            if re.search(r"\s+or\s+", where, re.I):
                # OR of conditions: keep the columns, but no column pins a row on its own.
                result.where = [(column, "other" if op == "eq" else op) for column, op in result.where]
        return result
    return None
