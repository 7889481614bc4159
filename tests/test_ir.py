"""The IR contract: every record the front end emits validates against the schema, and the same
input gives byte-identical IR, store rows and JSON output."""

from __future__ import annotations

import sqlite3

import pytest

from analyzer import config, ir, store
from analyzer.config import Config
from analyzer.output import json_contract
from analyzer.scan import app_row, scan
from conftest import sample_apps, scan_cached

APPS = sample_apps("django")


@pytest.mark.parametrize("app", APPS, ids=lambda p: p.name)
def test_sample_ir_validates_against_the_schema(app):
    result = scan_cached(str(app), "django")
    problems = [(r["type"], error) for r in result.records for error in ir.validation_errors(r)]
    assert not problems, problems[:5]


def test_schema_rejects_bad_records():
    assert ir.validation_errors({"ir": 1, "type": "diagnostic", "file": "a.py", "line": 1, "code": "x",
                                 "severity": "fatal", "message": "m"})
    assert ir.validation_errors({"ir": 2, "type": "meta", "frontend": "django", "root": "x"})


def test_ir_round_trips():
    result = scan_cached(str(APPS[0]), "django")
    text = ir.dumps(result.records)
    assert ir.dumps(ir.loads(text)) == text


def _dump(db_path) -> list:
    with sqlite3.connect(db_path) as connection:
        tables = [r[0] for r in connection.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name != 'timings' ORDER BY name")]
        return [(t, sorted(map(repr, connection.execute(f"SELECT * FROM {t}").fetchall()))) for t in tables]


def test_same_input_gives_identical_ir_rows_and_json(tmp_path):
    app = APPS[0]
    outputs = []
    for attempt in range(2):
        result = scan(app, Config(), "django")
        db_path = tmp_path / f"run{attempt}.db"
        connection = store.connect(db_path)
        store.write_app(connection, app_row(app.name, result, Config()), result.files, result.ir_text,
                        result.analyses, result.seconds)
        connection.close()
        doc = json_contract.dumps(json_contract.document(result.analyses["pk"], app.name, result.lines,
                                                         len(result.files)))
        outputs.append((result.ir_text, _dump(db_path), doc))
    assert outputs[0] == outputs[1]


def test_rescan_replaces_rows_instead_of_duplicating(tmp_path):
    app = APPS[0]
    result = scan_cached(str(app), "django")
    connection = store.connect(tmp_path / "s.db")
    for _ in range(2):
        store.write_app(connection, app_row(app.name, result, Config()), result.files, result.ir_text,
                        result.analyses)
    count = connection.execute("SELECT count(*) FROM transactions").fetchone()[0]
    assert count == 2 * len(result.analyses["pk"]["transactions"])
    assert connection.execute("SELECT count(*) FROM apps").fetchone()[0] == 1


def test_store_views_answer_questions(tmp_path):
    app = APPS[0]
    result = scan_cached(str(app), "django")
    connection = store.connect(tmp_path / "s.db")
    store.write_app(connection, app_row(app.name, result, Config()), result.files, result.ir_text, result.analyses)
    row = connection.execute("SELECT transactions, one_shot + nonstrict + strict FROM v_apps WHERE cda_mode='pk'").fetchone()
    assert row[0] == row[1] == len(result.analyses["pk"]["transactions"])
    assert connection.execute("SELECT count(*) FROM v_statements").fetchone()[0] > 0


def test_store_refuses_a_newer_schema(tmp_path):
    path = tmp_path / "future.db"
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA user_version = 99")
    with pytest.raises(store.StoreError):
        store.connect(path)


def test_incomplete_transactions_are_stored_with_their_sites_and_diagnostics(tmp_path):
    from conftest import FIXTURES
    fixture = FIXTURES / "django" / "completeness_incomplete"
    result = scan(fixture, config.load(fixture), "django")  # its pyproject sets the depth
    for record in ir.loads(result.ir_text):
        assert ir.validation_errors(record) == []
    tied = [d for d in result.analyses["pk"]["diagnostics"] if d.get("transaction")]
    assert all(ir.validation_errors(d) == [] for d in tied)
    assert {d["code"] for d in tied} == {"unresolved-call", "unresolved-receiver", "no-statement-found", "depth-limit"}
    connection = store.connect(tmp_path / "s.db")
    store.write_app(connection, app_row(fixture.name, result, Config()), result.files, result.ir_text, result.analyses)
    rows = dict(connection.execute(
        "SELECT txn_key, complete FROM transactions WHERE cda_mode = 'pk'").fetchall())
    assert rows == {"billing/services.py:9": 1, "billing/services.py:14": 0, "billing/services.py:20": 0,
                    "billing/services.py:25": 0, "billing/services.py:58": 0,
                    "billing/services.py:67": 0}
    sites = connection.execute("SELECT incomplete FROM transactions WHERE txn_key = 'billing/services.py:58'"
                               " AND cda_mode = 'pk'").fetchone()[0]
    assert '"reason": "depth-limit"' in sites
    keys = {r[0] for r in connection.execute("SELECT txn_key FROM diagnostics WHERE code = 'no-statement-found'")}
    assert keys == {"billing/services.py:20", "billing/services.py:25", "billing/services.py:67"}
