"""Metrics of a store, per application and for the whole survey, in each CDA mode (SQL only).

Counts are kept as integers and shares unrounded: a number is rounded once, where it is shown.
Every figure is given for three denominators (SCOPES): explicit transactions, autocommit
statements (stored as transactions with boundary `autocommit`), and both together, which is
the study's denominator (TAXONOMY.md).
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter

from .study import FULLY_INFERABLE_THRESHOLD, STUDY

INTERACTIVE = ("interactive-nonstrict", "interactive-strict")
AUTOCOMMIT = "autocommit"
SCOPES = ("explicit", "autocommit", "all")
SCOPE_LABELS = {"explicit": "explicit transactions", "autocommit": "autocommit statements",
                "all": "all together (the study's denominator)"}
COUNTS = ("transactions", "one_shot", "nonstrict", "strict", "rw_full", "rw_partial", "rw_none",
          "mismatch_transactions", "incomplete", "statements", "mismatch_statements")


def share(part: int | None, whole: int | None) -> float | None:
    return part / whole if whole else None


def columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def has_completeness(db: sqlite3.Connection) -> bool:
    """Whether the store records per-transaction completeness (a later schema adds `complete`)."""
    return "complete" in columns(db, "transactions")


def has_autocommit(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM transactions WHERE boundary = ? LIMIT 1", (AUTOCOMMIT,)).fetchone() is not None


def modes(db: sqlite3.Connection) -> list[str]:
    found = {r[0] for r in db.execute("SELECT DISTINCT cda_mode FROM transactions")}
    return sorted(found, key=lambda m: (m != "pk", m)) or ["pk"]


def _scope_sql() -> str:
    return f"CASE WHEN t.boundary = '{AUTOCOMMIT}' THEN 'autocommit' ELSE 'explicit' END"


def _counts(db: sqlite3.Connection, mode: str) -> dict[tuple[int, str], dict[str, int]]:
    """{(app_id, scope): counts} for the explicit and autocommit scopes."""
    incomplete = "sum(NOT t.complete)" if has_completeness(db) else "0"
    rows = db.execute(
        f"SELECT t.app_id, {_scope_sql()}, count(*), sum(t.interactivity = 'one-shot'),"
        " sum(t.interactivity = 'interactive-nonstrict'), sum(t.interactivity = 'interactive-strict'),"
        " sum(t.rw_inferable = 'full'), sum(t.rw_inferable = 'partial'), sum(t.rw_inferable = 'none'),"
        " sum(EXISTS (SELECT 1 FROM statements s WHERE s.transaction_id = t.id AND s.inferability = 'cda-mismatch')),"
        f" {incomplete}, sum(t.statements),"
        " sum((SELECT count(*) FROM statements s WHERE s.transaction_id = t.id AND s.inferability = 'cda-mismatch'))"
        " FROM transactions t WHERE t.cda_mode = ? GROUP BY 1, 2", (mode,)).fetchall()
    return {(row[0], row[1]): dict(zip(COUNTS, (int(v or 0) for v in row[2:]), strict=True)) for row in rows}


def _with_shares(counts: dict[str, int]) -> dict:
    total = counts["transactions"]
    return {
        **counts,
        "interactive": counts["nonstrict"] + counts["strict"],
        "one_shot_share": share(counts["one_shot"], total),
        "nonstrict_share": share(counts["nonstrict"], total),
        "strict_share": share(counts["strict"], total),
        "interactive_share": share(counts["nonstrict"] + counts["strict"], total),
        "rw_full_share": share(counts["rw_full"], total),
        "rw_partial_share": share(counts["rw_partial"], total),
        "rw_none_share": share(counts["rw_none"], total),
        "cda_mismatch_transaction_share": share(counts["mismatch_transactions"], total),
        "cda_mismatch_statement_share": share(counts["mismatch_statements"], counts["statements"]),
        "incomplete_share": share(counts["incomplete"], total),
    }


def apps(db: sqlite3.Connection, mode: str) -> list[dict]:
    counts = _counts(db, mode)
    zero = dict.fromkeys(COUNTS, 0)
    out = []
    rows = db.execute("SELECT id, name, frontend, url, git_commit, subdir, status, error, files, lines FROM apps"
                      " ORDER BY name").fetchall()
    for app_id, name, frontend, url, commit, subdir, status, error, files, lines in rows:
        explicit = counts.get((app_id, "explicit"), zero)
        autocommit = counts.get((app_id, "autocommit"), zero)
        together = {k: explicit[k] + autocommit[k] for k in COUNTS}
        reasons = Counter(r[0] for r in db.execute(
            "SELECT r.category FROM reasons r JOIN transactions t ON t.id = r.transaction_id"
            " WHERE t.app_id = ? AND t.cda_mode = ?", (app_id, mode)))
        diagnostics = db.execute("SELECT file, line, code, severity, message FROM diagnostics WHERE app_id = ?"
                                 " ORDER BY file, line, code, message", (app_id,)).fetchall()
        out.append({
            "app": name, "frontend": frontend, "url": url, "commit": commit, "subdir": subdir, "status": status,
            "error": error, "files": files, "lines": lines,
            "scopes": {"explicit": _with_shares(explicit), "autocommit": _with_shares(autocommit),
                       "all": _with_shares(together)},
            # No wall times here: reports must be byte-identical for the same code (timings stay in
            # the store's `timings` table).
            "reasons": dict(sorted(reasons.items())),
            "diagnostics": [{"file": f, "line": n, "code": c, "severity": s, "message": m}
                            for f, n, c, s, m in diagnostics],
        })
    return out


def headline_fractions(scanned: list[dict]) -> dict:
    """The study's five headline figures over applications' counts of one scope: {key: (part, whole)}."""
    total = sum(a["transactions"] for a in scanned)
    with_interactive = [a for a in scanned if a["interactive"]]
    return {
        "apps_without_interactive": (len(scanned) - len(with_interactive), len(scanned)),
        "interactive_share_in_other_apps": (sum(a["interactive"] for a in with_interactive),
                                            sum(a["transactions"] for a in with_interactive)),
        "strict_share_of_all": (sum(a["strict"] for a in scanned), total),
        "apps_with_58pct_fully_inferable": (
            sum(1 for a in scanned if a["rw_full"] >= FULLY_INFERABLE_THRESHOLD * a["transactions"]), len(scanned)),
        "cda_mismatch_share_of_transactions": (sum(a["mismatch_transactions"] for a in scanned), total),
    }


def survey(per_app: list[dict], autocommit_measured: bool) -> dict:
    """The study's survey-level figures, per scope, over applications with at least one transaction in it."""
    scopes = {}
    for scope in SCOPES:
        scanned = [a["scopes"][scope] for a in per_app if a["status"] == "ok" and a["scopes"][scope]["transactions"]]
        fractions = headline_fractions(scanned)
        scopes[scope] = {
            "measured": scope == "explicit" or autocommit_measured,
            "applications": len(scanned),
            "transactions": sum(a["transactions"] for a in scanned),
            "figures": {k: share(*v) for k, v in fractions.items()},
            "fractions": {k: list(v) for k, v in fractions.items()},
        }
    return {"applications": len(per_app), "failed": sum(1 for a in per_app if a["status"] != "ok"),
            "autocommit_measured": autocommit_measured, "scopes": scopes, "study": STUDY}


def breakdowns(db: sqlite3.Connection, mode: str) -> dict:
    """Counts behind the plots: mismatches by kind and API, strict reasons, what rewrites convert."""
    mismatches = db.execute(
        "SELECT s.kind, s.api, count(*) FROM statements s JOIN transactions t ON t.id = s.transaction_id"
        " WHERE t.cda_mode = ? AND s.inferability = 'cda-mismatch' GROUP BY s.kind, s.api ORDER BY 3 DESC, 1, 2",
        (mode,)).fetchall()
    strict = db.execute(
        "SELECT r.category, count(*) FROM reasons r JOIN transactions t ON t.id = r.transaction_id"
        " WHERE t.cda_mode = ? AND t.interactivity = 'interactive-strict' GROUP BY r.category ORDER BY 2 DESC, 1",
        (mode,)).fetchall()
    convertible = {}
    for verdict in INTERACTIVE:
        total = db.execute("SELECT count(*) FROM transactions WHERE cda_mode = ? AND interactivity = ?",
                           (mode, verdict)).fetchone()[0]
        converted = db.execute(
            "SELECT count(DISTINCT t.id) FROM transactions t JOIN suggestions g ON g.transaction_id = t.id"
            " WHERE t.cda_mode = ? AND t.interactivity = ? AND g.makes_one_shot = 1", (mode, verdict)).fetchone()[0]
        convertible[verdict] = {"total": total, "one_shot_after_rewrite": converted}
    return {
        "mismatch_by_kind": {k: sum(n for kk, _a, n in mismatches if kk == k)
                             for k in sorted({k for k, _a, _n in mismatches})},
        "mismatch_by_api": [{"kind": k, "api": a, "count": n} for k, a, n in mismatches],
        "strict_reasons": dict(strict),
        "convertible": convertible,
    }


def transactions(db: sqlite3.Connection, mode: str) -> list[dict]:
    """Every transaction of one CDA mode with its reasons, statements and suggestions (four queries in all,
    whatever the number of transactions: a survey holds tens of thousands)."""
    present = columns(db, "transactions")
    extra = "".join(f", t.{c}" if c in present else ", NULL" for c in ("complete", "incomplete"))
    sql = ("SELECT a.name, t.id, t.txn_key, t.file, t.line, t.function, t.boundary, t.wrapper, t.interactivity,"
           " t.rw_inferable, t.statements, t.read_set, t.write_set, t.excerpt" + extra +
           " FROM transactions t JOIN apps a ON a.id = t.app_id WHERE t.cda_mode = ? ORDER BY a.name, t.file, t.line,"
           " t.txn_key")
    reasons = _by_transaction(db, "SELECT r.transaction_id, r.category, r.callee, r.file, r.line FROM reasons r"
                                  " JOIN transactions t ON t.id = r.transaction_id WHERE t.cda_mode = ?"
                                  " ORDER BY r.transaction_id, r.category, r.file, r.line", mode)
    statements = _by_transaction(db, "SELECT s.transaction_id, s.file, s.line, s.entity, s.kind, s.api,"
                                     " s.inferability, s.flags FROM statements s JOIN transactions t"
                                     " ON t.id = s.transaction_id WHERE t.cda_mode = ? ORDER BY s.transaction_id,"
                                     " s.rowid", mode)
    suggestions = _by_transaction(db, "SELECT g.transaction_id, g.kind, g.pattern, g.line, g.explanation, g.code"
                                      " FROM suggestions g JOIN transactions t ON t.id = g.transaction_id"
                                      " WHERE t.cda_mode = ? ORDER BY g.transaction_id, g.rowid", mode)
    out = []
    for row in db.execute(sql, (mode,)).fetchall():
        (name, tid, key, file, line, function, boundary, wrapper, verdict, rw, count, read_set, write_set, excerpt,
         complete, incomplete) = row
        steps = statements.get(tid, [])
        out.append({
            "app": name, "key": key, "file": file, "line": line, "function": function,
            "boundary": boundary, "wrapper": wrapper, "interactivity": verdict, "rw_inferable": rw,
            "statement_count": count,
            "read_set": json.loads(read_set), "write_set": json.loads(write_set), "excerpt": excerpt or "",
            "complete": None if complete is None else bool(complete),
            "incomplete": _json_list(incomplete),
            "cda_mismatch": any(s[5] == "cda-mismatch" for s in steps),
            "reasons": [{"category": c, "callee": e, "file": f, "line": n} for c, e, f, n in reasons.get(tid, [])],
            "statements": [{"file": f, "line": n, "entity": e, "kind": k, "api": a, "inferability": i,
                            "flags": json.loads(fl)} for f, n, e, k, a, i, fl in steps],
            "suggestions": [{"kind": k, "pattern": p, "line": n, "explanation": x, "code": c}
                            for k, p, n, x, c in suggestions.get(tid, [])],
        })
    return out


def _by_transaction(db: sqlite3.Connection, sql: str, mode: str) -> dict[int, list[tuple]]:
    """Rows of a child table grouped by their transaction id (the first column), in the query's order."""
    grouped: dict[int, list[tuple]] = {}
    for row in db.execute(sql, (mode,)):
        grouped.setdefault(row[0], []).append(row[1:])
    return grouped


def _json_list(text: str | None) -> list:
    """The `incomplete` column: a JSON list of where the walk went blind (strings or records)."""
    if not text:
        return []
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return [str(text)]
    return value if isinstance(value, list) else [value]
