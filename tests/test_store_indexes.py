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
