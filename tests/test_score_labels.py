"""scripts/score_labels.py: scoring real scans of the bundled samples against hand labels.

The fixture tests/fixtures/labels/samples.json labels transactions of the shop (Django) and
express-ledger (TypeORM) samples by reading their code; shop-04 is deliberately mislabelled
(verdicts, one CDA flag, one statement that does not exist) and must show up as disagreement.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, SAMPLES

SCRIPT = ROOT / "scripts" / "score_labels.py"
LABELS = FIXTURES / "labels" / "samples.json"
TXSCAN = Path(sys.executable).parent / "txscan"


def score(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          timeout=900, check=False)


@pytest.fixture(scope="module")
def scans(tmp_path_factory):
    """Real scans of the two samples, made once through the script's --save-scans."""
    folder = tmp_path_factory.mktemp("scans")
    result = score(LABELS, "--checkouts", SAMPLES, "--save-scans", folder, "--json")
    assert result.returncode == 0, result.stderr
    return folder, json.loads(result.stdout)


def test_metrics_per_orm(scans):
    _, result = scans
    django, typeorm = result["per_orm"]["django"], result["per_orm"]["typeorm"]
    assert django["transactions"] == 4 and typeorm["transactions"] == 2  # the wrapper is not scored
    assert django["detection"] == 1.0 and typeorm["detection"] == 1.0
    # shop-04's verdicts are wrong, the three other Django labels agree
    assert django["interactivity"] == 0.75 and django["rw_set"] == 0.75
    # 10 labelled Django statements, the invented one at line 2 is not found
    assert django["counts"]["statements"] == 10 and django["counts"]["statements_found"] == 9
    assert django["statement_recall"] == 0.9
    # the raw UPDATE by id is wrongly labelled a CDA mismatch: 8 of 9 matched statements agree
    assert django["cda_mismatch"] == round(8 / 9, 3)
    assert django["effect_recall"] == 1.0  # apply_async in schedule_pickup
    assert typeorm == {**typeorm, "interactivity": 1.0, "rw_set": 1.0, "statement_recall": 1.0,
                       "cda_mismatch": 1.0, "effect_recall": None}
    assert result["overall"]["counts"]["statements"] == 13
    assert result["overall"]["interactivity"] == round(5 / 6, 3)


def test_the_wrong_label_is_listed_as_disagreement(scans):
    _, result = scans
    by_id = {txn["id"]: txn for txn in result["transactions"]}
    wrong = by_id["shop-04"]["disagreements"]
    assert "interactivity one-shot (label interactive-strict)" in wrong
    assert "rw set full (label none)" in wrong
    assert any(item.startswith("missed statement shop/services/customers.py:2 ") for item in wrong)
    assert any(item.startswith("cda-mismatch not set at shop/services/customers.py:19") for item in wrong)
    assert all(not by_id[i]["disagreements"] for i in ("shop-01", "shop-02", "shop-03", "ledger-01", "ledger-02"))


def test_statement_reported_inside_a_helper_matches(scans):
    _, result = scans
    # mark_shipped() is a custom QuerySet method: the update is written in managers.py
    shipped = next(t for t in result["transactions"] if t["id"] == "shop-02")
    assert shipped["statements"] == {"labelled": 1, "found": 1, "reported": 1}


def test_wrappers_are_listed_not_scored(scans):
    _, result = scans
    assert result["wrappers"] == [{"id": "shop-05", "role": "wrapper", "file": "shop/helpers.py", "line": 25,
                                   "reported_as_transaction": False}]


def test_saved_scans_give_the_same_scores(scans):
    folder, result = scans
    again = score(LABELS, "--scan-json", folder, "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == result


def test_explicit_txscan_and_text_output():
    assert TXSCAN.exists()
    result = score(LABELS, "--checkouts", SAMPLES, "--txscan", TXSCAN)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1].split() == ["django", "4", "1.00", "0.75", "0.75", "0.90", "0.89", "1.00"]
    assert "  shop-04  shop/services/customers.py:16" in result.stdout


def test_undetected_boundary_counts_against_detection(scans, tmp_path):
    folder, _ = scans
    labels = json.loads(LABELS.read_text())
    moved = next(t for t in labels["transactions"] if t["id"] == "ledger-02")
    moved["line"] = 60 + 20  # no transaction within two lines of src/services/ledger.ts:80
    path = tmp_path / "labels.json"
    path.write_text(json.dumps(labels))
    result = json.loads(score(path, "--scan-json", folder, "--json").stdout)
    typeorm = result["per_orm"]["typeorm"]
    assert typeorm["detection"] == 0.5
    assert typeorm["counts"]["statements_found"] == 2 and typeorm["statement_recall"] == round(2 / 3, 3)
    assert next(t for t in result["transactions"] if t["id"] == "ledger-02")["disagreements"] == ["not detected"]


def _score_module():
    spec = importlib.util.spec_from_file_location("score_labels", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_statements_on_one_line_match_by_kind():
    # an M2M add() is a through-table read and an insert written on one line
    labelled = [{"file": "a.py", "line": 7, "kind": "read", "cda_mismatch": True},
                {"file": "a.py", "line": 7, "kind": "insert", "cda_mismatch": False}]
    reported = [{"file": "a.py", "line": 7, "kind": "insert"}, {"file": "a.py", "line": 9, "kind": "read"}]
    assert _score_module().match_statements(labelled, reported, 1) == [None, reported[0]]


def test_statement_line_tolerance_and_span():
    labelled = [{"file": "a.py", "line": 10, "line_end": 13, "kind": "read", "cda_mismatch": False}]
    match = _score_module().match_statements
    for line, found in ((8, False), (9, True), (12, True), (14, True), (15, False)):
        assert (match(labelled, [{"file": "a.py", "line": line, "kind": "read"}], 1)[0] is not None) is found
    assert match(labelled, [{"file": "b.py", "line": 10, "kind": "read"}], 1) == [None]


def test_missing_checkout_is_one_line_and_status_2(tmp_path):
    result = score(LABELS, "--checkouts", tmp_path)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "checkout of shop missing" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("content, reason", [
    (None, "cannot read the label file"),
    ("{not json", "not a JSON label file"),
    ('{"apps": []}', "expected an object with 'apps' and 'transactions'"),
    (('{"apps": [{"name": "a", "orm": "django", "subdir": "."}], "transactions": [{"id": "x", "app": "a", '
      '"file": "f.py", "line": 1, "interactivity": "sometimes", "rw_set": "full", "statements": []}]}'),
     "x: interactivity must be one of"),
])
def test_bad_label_file_is_one_line_and_status_2(tmp_path, content, reason):
    path = tmp_path / "labels.json"
    if content is not None:
        path.write_text(content)
    result = score(path, "--checkouts", SAMPLES)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and reason in result.stderr and str(path) in result.stderr


def test_missing_scan_json_is_one_line_and_status_2(tmp_path):
    result = score(LABELS, "--scan-json", tmp_path)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "shop.json: cannot read the scan" in result.stderr


def test_unknown_txscan_program_is_one_line_and_status_2(tmp_path):
    missing = tmp_path / "no-txscan"
    result = score(LABELS, "--checkouts", SAMPLES, "--txscan", missing)
    assert result.returncode == 2
    assert result.stderr == f"score_labels: {missing}: no such program\n"


def test_failing_txscan_is_one_line_and_status_2(tmp_path):
    failing = tmp_path / "txscan"
    failing.write_text("#!/bin/sh\necho 'boom: cannot scan' >&2\nexit 3\n")
    failing.chmod(0o755)
    result = score(LABELS, "--checkouts", SAMPLES, "--txscan", failing)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "scan failed with status 3: boom: cannot scan" in result.stderr


# ---------------------------------------------------------------- scripts/app_stats.py

APP_STATS = ROOT / "scripts" / "app_stats.py"


def app_stats(*args):
    return subprocess.run([sys.executable, str(APP_STATS), *map(str, args)], capture_output=True, text=True,
                          timeout=900, check=False)


def test_app_stats_table_counts_what_the_scans_hold(scans):
    folder, _ = scans
    result = app_stats("table", folder, "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert set(rows) == {"shop", "express-ledger"}
    for name, row in rows.items():
        scan = json.loads((folder / f"{name}.json").read_text())
        txns = [t for t in scan["transactions"] if t.get("boundary") != "autocommit"]
        assert row["autocommit"] == len(scan["transactions"]) - len(txns)
        assert row["transactions"] == len(txns) > 0
        assert row["one-shot"] + row["non-strict"] + row["strict"] == len(txns)
        assert row["strict"] == sum(t["interactivity"] == "interactive-strict" for t in txns)
        assert row["zero-statement"] == sum(not t["statements"] for t in txns)
        assert sum(row["diagnostics"].values()) == len(scan["diagnostics"])
        assert row["seconds"] is None  # no benchmark file in this folder
    markdown = app_stats("table", folder).stdout
    assert markdown.splitlines()[0].startswith("| application | transactions | autocommit | one-shot | non-strict |")
    shop_line = next(line for line in markdown.splitlines() if line.startswith("| shop |"))
    assert shop_line.endswith("| - | - |")


def test_app_stats_counts_autocommit_apart(tmp_path, scans):
    folder, _ = scans
    scan = json.loads((folder / "shop.json").read_text())
    explicit = len(scan["transactions"])
    extra = dict(scan["transactions"][0], boundary="autocommit", interactivity="interactive-strict")
    scan["transactions"] = [t for t in scan["transactions"] if t.get("boundary") != "autocommit"] + [extra, extra]
    (tmp_path / "shop.json").write_text(json.dumps(scan))
    row = json.loads(app_stats("table", tmp_path, "--json").stdout)["shop"]
    assert row["autocommit"] == 2
    assert row["strict"] == sum(t["interactivity"] == "interactive-strict" for t in scan["transactions"][:-2])
    assert row["one-shot"] + row["non-strict"] + row["strict"] == row["transactions"] <= explicit


def test_autocommit_transactions_are_never_a_labels_match(tmp_path, scans):
    """An autocommit transaction on a labelled boundary's line does not stand in for it."""
    folder, result = scans
    moved = tmp_path / "scans"
    moved.mkdir()
    for path in folder.glob("*.json"):
        scan = json.loads(path.read_text())
        scan["transactions"] = [dict(t, boundary="autocommit") for t in scan["transactions"]]
        (moved / path.name).write_text(json.dumps(scan))
    rescored = json.loads(score(LABELS, "--scan-json", moved, "--json").stdout)
    assert result["per_orm"]["django"]["detection"] == 1.0
    assert rescored["per_orm"]["django"]["detection"] == 0.0


def test_app_stats_collect_scans_and_benchmarks(tmp_path):
    out = tmp_path / "stats"
    result = app_stats("collect", "--manifest", ROOT / "corpus" / "samples.toml", "--checkouts", SAMPLES,
                       "--txscan", TXSCAN, "--out", out, "--apps", "ledger")
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["ledger.bench.json", "ledger.json"]
    rows = json.loads(app_stats("table", out, "--json").stdout)
    assert rows["ledger"]["transactions"] > 0
    assert rows["ledger"]["seconds"] > 0 and rows["ledger"]["peak_mib"] > 0


@pytest.mark.parametrize("make, reason", [
    (lambda d: d / "absent", "not a folder"),
    (lambda d: d, "no scan JSON"),
    (lambda d: (d / "x.json").write_text("[1, 2") and d, "x.json: not scan JSON"),
    (lambda d: (d / "x.json").write_text("{}") and d, "x.json: not scan JSON"),
])
def test_app_stats_bad_input_is_one_line_and_status_2(tmp_path, make, reason):
    result = app_stats("table", make(tmp_path))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and reason in result.stderr


def test_app_stats_unknown_application_is_one_line_and_status_2(tmp_path):
    result = app_stats("collect", "--manifest", ROOT / "corpus" / "samples.toml", "--checkouts", SAMPLES,
                       "--txscan", TXSCAN, "--out", tmp_path, "--apps", "nosuchapp")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "no application named nosuchapp" in result.stderr
