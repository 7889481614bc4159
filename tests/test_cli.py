"""The `txscan scan` command: exit codes, the JSON contract, the store, the readable summary."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from conftest import SAMPLES

TXSCAN = [sys.executable, "-m", "analyzer.cli"]
SHOP = SAMPLES / "django" / "shop"


def run(*args, cwd=None):
    return subprocess.run([*TXSCAN, *map(str, args)], capture_output=True, text=True, cwd=cwd)


def test_missing_path_is_a_usage_error():
    result = run("scan", "/nonexistent/app")
    assert result.returncode == 2
    assert "does not exist" in result.stderr


def test_file_instead_of_folder_is_a_usage_error(tmp_path):
    target = tmp_path / "x.py"
    target.write_text("x = 1\n")
    result = run("scan", target)
    assert result.returncode == 2
    assert "not a folder" in result.stderr


def test_unknown_option_is_a_usage_error():
    assert run("scan", SHOP, "--cda", "nonsense").returncode == 2


def test_bad_config_is_reported(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.txscan]\ncda = "sometimes"\n')
    result = run("scan", tmp_path, "--no-db")
    assert result.returncode == 2
    assert "cda must be" in result.stderr


def test_json_contract(tmp_path):
    db = tmp_path / "scan.db"
    result = run("scan", SHOP, "--format", "json", "--db", db, "--no-cache")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert set(doc) >= {"transactions", "entities", "diagnostics"}
    assert doc["transactions"], "the shop sample has transactions"
    for txn in doc["transactions"]:
        assert not Path(txn["file"]).is_absolute() and "\\" not in txn["file"]
        assert isinstance(txn["line"], int) and txn["line"] >= 1
        assert txn["interactivity"] in ("one-shot", "interactive-nonstrict", "interactive-strict")
        assert txn["rw_inferable"] in ("full", "partial", "none")
        for reason in txn["reasons"]:
            assert {"category", "callee", "file", "line"} <= set(reason)
        for statement in txn["statements"]:
            assert {"file", "line", "entity", "kind", "api", "attributes", "inferability", "via"} <= set(statement)
            assert statement["inferability"] in ("key", "insert", "cda-mismatch", "dependent", "range", "pattern",
                                                 "full-scan", "unknown")
    # The store holds the same transactions, under both CDA modes.
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT cda_mode, count(*) FROM transactions GROUP BY cda_mode").fetchall()
    assert dict(rows) == {"auto": len(doc["transactions"]), "pk": len(doc["transactions"])}


def test_default_store_location_and_table_output(tmp_path):
    import shutil
    app = tmp_path / "shop"
    shutil.copytree(SHOP, app, ignore=shutil.ignore_patterns(".txscan"))
    result = run("scan", app)
    assert result.returncode == 0, result.stderr
    assert (app / ".txscan" / "txscan.db").is_file()
    assert "verdicts:" in result.stdout and "interactive-strict" in result.stdout


def test_cda_auto_changes_the_mode(tmp_path):
    result = run("scan", SHOP, "--format", "json", "--no-db", "--no-cache", "--cda", "auto")
    doc = json.loads(result.stdout)
    assert doc["cda_mode"] == "auto"
    assert all(entry["mode"] in ("auto", "config") for entry in doc["cda"].values())


def test_version():
    result = run("--version")
    assert result.returncode == 0 and result.stdout.startswith("txscan ")
