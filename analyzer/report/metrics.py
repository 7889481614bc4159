"""Metrics of a store, per application and for the whole survey, in each CDA mode (SQL only)."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter

from .study import FULLY_INFERABLE_THRESHOLD, STUDY

INTERACTIVE = ("interactive-nonstrict", "interactive-strict")


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def modes(db: sqlite3.Connection) -> list[str]:
    found = {r[0] for r in db.execute("SELECT DISTINCT cda_mode FROM transactions")}
    return sorted(found, key=lambda m: (m != "pk", m)) or ["pk"]


def apps(db: sqlite3.Connection, mode: str) -> list[dict]:
    rows = db.execute("SELECT id, name, frontend, url, git_commit, status, error, files, lines FROM apps ORDER BY name")
    out = []
    for app_id, name, frontend, url, commit, status, error, files, lines in rows.fetchall():
        txns = db.execute("SELECT id, interactivity, rw_inferable FROM transactions WHERE app_id = ? AND cda_mode = ?",
                          (app_id, mode)).fetchall()
        total = len(txns)
        verdicts = Counter(t[1] for t in txns)
        rw = Counter(t[2] for t in txns)
        statements = db.execute(
            "SELECT s.inferability, s.transaction_id FROM statements s JOIN transactions t ON t.id = s.transaction_id"
            " WHERE t.app_id = ? AND t.cda_mode = ?", (app_id, mode)).fetchall()
        mismatch_txns = {tid for inf, tid in statements if inf == "cda-mismatch"}
        reasons = Counter(r[0] for r in db.execute(
            "SELECT r.category FROM reasons r JOIN transactions t ON t.id = r.transaction_id"
            " WHERE t.app_id = ? AND t.cda_mode = ?", (app_id, mode)))
        diagnostics = db.execute("SELECT count(*) FROM diagnostics WHERE app_id = ?", (app_id,)).fetchone()[0]
        out.append({
            "app": name, "frontend": frontend, "url": url, "commit": commit, "status": status, "error": error,
            "files": files, "lines": lines, "transactions": total, "statements": len(statements),
            "one_shot": verdicts["one-shot"], "nonstrict": verdicts["interactive-nonstrict"],
            "strict": verdicts["interactive-strict"],
            "one_shot_share": _share(verdicts["one-shot"], total),
            "nonstrict_share": _share(verdicts["interactive-nonstrict"], total),
            "strict_share": _share(verdicts["interactive-strict"], total),
            "interactive_share": _share(verdicts["interactive-nonstrict"] + verdicts["interactive-strict"], total),
            "rw_full_share": _share(rw["full"], total), "rw_partial_share": _share(rw["partial"], total),
            "rw_none_share": _share(rw["none"], total),
            "cda_mismatch_statement_share": _share(sum(1 for s in statements if s[0] == "cda-mismatch"),
                                                   len(statements)),
            "cda_mismatch_transaction_share": _share(len(mismatch_txns), total),
            # No wall times here: reports must be byte-identical for the same code (timings stay in
            # the store's `timings` table).
            "reasons": dict(sorted(reasons.items())), "diagnostics": diagnostics,
        })
    return out


def survey(per_app: list[dict]) -> dict:
    """The study's survey-level figures for these applications (apps with at least one transaction)."""
    scanned = [a for a in per_app if a["status"] == "ok" and a["transactions"]]
    total_txns = sum(a["transactions"] for a in scanned)
    interactive_apps = [a for a in scanned if a["nonstrict"] + a["strict"]]
    interactive_in_them = sum(a["nonstrict"] + a["strict"] for a in interactive_apps)
    txns_in_them = sum(a["transactions"] for a in interactive_apps)
    mismatch_txns = sum(round((a["cda_mismatch_transaction_share"] or 0) * a["transactions"]) for a in scanned)
    ours = {
        "apps_without_interactive": _share(len(scanned) - len(interactive_apps), len(scanned)),
        "interactive_share_in_other_apps": _share(interactive_in_them, txns_in_them),
        "strict_share_of_all": _share(sum(a["strict"] for a in scanned), total_txns),
        "apps_with_58pct_fully_inferable": _share(
            sum(1 for a in scanned if (a["rw_full_share"] or 0) >= FULLY_INFERABLE_THRESHOLD), len(scanned)),
        "cda_mismatch_share_of_transactions": _share(mismatch_txns, total_txns),
    }
    return {"applications": len(per_app), "with_transactions": len(scanned), "transactions": total_txns,
            "figures": ours, "study": STUDY}


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
        "mismatch_by_api": [{"kind": k, "api": a, "count": n} for k, a, n in mismatches[:15]],
        "strict_reasons": dict(strict),
        "convertible": convertible,
    }


def transactions(db: sqlite3.Connection, mode: str, app: str | None = None) -> list[dict]:
    sql = ("SELECT a.name, t.id, t.file, t.line, t.function, t.boundary, t.wrapper, t.interactivity, t.rw_inferable,"
           " t.statements, t.read_set, t.write_set, t.excerpt FROM transactions t JOIN apps a ON a.id = t.app_id"
           " WHERE t.cda_mode = ?")
    params: list = [mode]
    if app is not None:
        sql += " AND a.name = ?"
        params.append(app)
    sql += " ORDER BY a.name, t.file, t.line"
    out = []
    for row in db.execute(sql, params).fetchall():
        name, tid, file, line, function, boundary, wrapper, verdict, rw, count, read_set, write_set, excerpt = row
        reasons = db.execute("SELECT category, callee, file, line FROM reasons WHERE transaction_id = ?"
                             " ORDER BY category, file, line", (tid,)).fetchall()
        statements = db.execute("SELECT file, line, entity, kind, api, inferability FROM statements"
                                " WHERE transaction_id = ? ORDER BY rowid", (tid,)).fetchall()
        suggestions = db.execute("SELECT kind, pattern, line, explanation, code FROM suggestions"
                                 " WHERE transaction_id = ? ORDER BY rowid", (tid,)).fetchall()
        out.append({
            "app": name, "file": file, "line": line, "function": function, "boundary": boundary, "wrapper": wrapper,
            "interactivity": verdict, "rw_inferable": rw, "statement_count": count,
            "read_set": json.loads(read_set), "write_set": json.loads(write_set), "excerpt": excerpt or "",
            "reasons": [{"category": c, "callee": e, "file": f, "line": n} for c, e, f, n in reasons],
            "statements": [{"file": f, "line": n, "entity": e, "kind": k, "api": a, "inferability": i}
                           for f, n, e, k, a, i in statements],
            "suggestions": [{"kind": k, "pattern": p, "line": n, "explanation": x, "code": c}
                            for k, p, n, x, c in suggestions],
        })
    return out
