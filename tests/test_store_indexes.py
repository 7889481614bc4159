"""Replacing an application in a store stays linear: every column a cascading delete looks rows
up by is the first column of an index (else each deleted transaction scans the child tables)."""

from __future__ import annotations

from analyzer import store
from analyzer.config import Config
from analyzer.scan import app_row
from conftest import SAMPLES, scan_cached


def test_every_cascading_foreign_key_is_indexed(tmp_path):
    db = store.connect(tmp_path / "s.db")
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    missing = []
    for table in tables:
        cascading = [row[3] for row in db.execute(f"PRAGMA foreign_key_list({table})") if row[6] == "CASCADE"]
        leading = set()
        for index in db.execute(f"PRAGMA index_list({table})"):
            columns = [c[2] for c in db.execute(f"PRAGMA index_info({index[1]})")]
            leading.add(columns[0])
        pk = [row[1] for row in sorted(db.execute(f"PRAGMA table_info({table})"), key=lambda r: r[5]) if row[5]]
        if pk:
            leading.add(pk[0])
        missing += [f"{table}.{column}" for column in cascading if column not in leading]
    db.close()
    assert tables and not missing, missing


def test_rescan_into_the_same_store_replaces_the_rows(tmp_path):
    result = scan_cached(str(SAMPLES / "django" / "shop"))
    path = tmp_path / "s.db"

    def rows(db):
        return {table: sorted(map(repr, db.execute(f"SELECT * FROM {table}"))) for table in
                ("transactions", "statements", "reasons", "suggestions", "diagnostics")}

    db = store.connect(path)
    store.write_app(db, app_row("shop", result, Config()), result.files, result.ir_text, result.analyses)
    first = rows(db)
    store.write_app(db, app_row("shop", result, Config()), result.files, result.ir_text, result.analyses)
    second = rows(db)
    db.close()
    assert first["transactions"] and first["reasons"]
    assert {t: len(r) for t, r in first.items()} == {t: len(r) for t, r in second.items()}


def test_transaction_ids_are_those_sqlite_gives_and_child_rows_follow_them(tmp_path):
    """A transaction's id is the one SQLite gives a new row (largest + 1, also after another
    application's rows were deleted), and every child row names its own transaction."""
    result = scan_cached(str(SAMPLES / "django" / "shop"))
    db = store.connect(tmp_path / "s.db")
    for name in ("first", "second", "first"):
        store.write_app(db, app_row(name, result, Config()), result.files, result.ir_text, result.analyses)
    ids = {name: [r[0] for r in db.execute("SELECT t.id FROM transactions t JOIN apps a ON a.id = t.app_id "
                                           "WHERE a.name = ? ORDER BY t.rowid", (name,))] for name in ("first", "second")}
    count = sum(len(a["transactions"]) for a in result.analyses.values())
    assert ids["second"] == list(range(count + 1, 2 * count + 1))      # after the first app's
    assert ids["first"] == list(range(2 * count + 1, 3 * count + 1))   # rewritten after the second's
    for mode, analysis in result.analyses.items():
        for txn in analysis["transactions"]:
            tid, stored = db.execute("SELECT t.id, t.statements FROM transactions t JOIN apps a ON a.id = t.app_id "
                                     "WHERE a.name = 'first' AND t.cda_mode = ? AND t.txn_key = ?",
                                     (mode, txn["id"])).fetchone()
            steps = [r[0] for r in db.execute("SELECT step_id FROM statements WHERE transaction_id = ? ORDER BY rowid",
                                              (tid,))]
            assert stored == len(steps) and steps == [s["id"] for s in txn["statements"]]
            reasons = db.execute("SELECT COUNT(*) FROM reasons WHERE transaction_id = ?", (tid,)).fetchone()[0]
            assert reasons == len(txn["reasons"])
    db.close()
