"""Autocommit statements: ORM call sites reached outside explicit transactions (TAXONOMY.md).

The fixture tests/fixtures/django/autocommit_entry_points holds the cases side by side (a helper
called inside and outside a transaction, a statement inside `atomic`, a signal receiver, a
management command, module-level code, a test file that is not scanned); its expected.json is
compared by test_django_fixtures.py. These tests check the contract around them: IR, order,
verdicts, the store, lint, the JSON and terminal outputs, and the option that turns them off.
"""

from __future__ import annotations

import json
import re
import sqlite3

import pytest

from typer.testing import CliRunner

from analyzer import ir, store
from analyzer.cli import app
from analyzer.report import metrics
from analyzer.scan import app_row, scan
from analyzer.config import Config
from analyzer.django.files import python_sources
from analyzer.lint.runner import LintOptions
from analyzer.lint.settings import Overrides
from analyzer.lint.runner import run as lint_run
from conftest import FIXTURES, ROOT, django_project, ir_statements, scan_cached

FIXTURE = FIXTURES / "django" / "autocommit_entry_points"
SHOP = ROOT / "corpus" / "samples" / "django" / "shop"


def _records(path=FIXTURE):
    return [r for r in scan_cached(str(path), "django").records if r["type"] == "transaction"]


def test_autocommit_records_follow_the_ir_contract():
    records = _records()
    autocommit = [r for r in records if r["boundary"] == "autocommit"]
    assert len(autocommit) == 7
    for record in autocommit:
        assert ir.validation_errors(record) == []
        file, line, column, suffix = record["id"].rsplit(":", 3)
        assert (file, int(line), suffix) == (record["file"], record["line"], "autocommit") and int(column) >= 1
        ids = [s["id"] for s in record["steps"]]
        assert ids == [f"s{n}" for n in range(1, len(ids) + 1)]
        assert all(s["node"] == "statement" and s["via"] == [] for s in record["steps"])
    # After the explicit transactions, each group in file/line/column order.
    kinds = [r["boundary"] == "autocommit" for r in records]
    assert kinds == sorted(kinds)
    keys = [(r["file"], r["line"], int(r["id"].rsplit(":", 2)[-2])) for r in autocommit]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)


def test_helper_called_inside_and_outside_counts_in_both():
    records = _records()
    explicit = next(r for r in records if r["function"] == "bank.services.withdraw")
    inside = [s for s in ir_statements(explicit["steps"]) if s["line"] == 8]
    assert inside and inside[0]["via"] == ["bank.services.log_entry"]
    assert any(r["boundary"] == "autocommit" and r["function"] == "bank.services.log_entry" for r in records)
    # _debit runs only inside withdraw's transaction; close's block only inside its own.
    autocommit_lines = {(r["file"], r["line"]) for r in records if r["boundary"] == "autocommit"}
    assert ("bank/services.py", 12) not in autocommit_lines
    assert not {("bank/services.py", 28), ("bank/services.py", 29)} & autocommit_lines
    assert ("bank/services.py", 26) in autocommit_lines
    assert not any(r["file"].startswith("bank/tests/") for r in records)


def test_autocommit_is_one_shot_without_suggestions_in_both_modes():
    result = scan_cached(str(SHOP), "django")
    for mode in ("pk", "auto"):
        autocommit = [t for t in result.analyses[mode]["transactions"] if t["boundary"] == "autocommit"]
        assert autocommit
        for txn in autocommit:
            assert txn["interactivity"] == "one-shot" and txn["reasons"] == [] and txn["suggestions"] == []
            assert txn["complete"] is True
    get_or_create = next(t for t in scan_cached(str(FIXTURE), "django").analyses["pk"]["transactions"]
                         if t["function"] == "bank.services.ensure_account")
    assert [s["kind"] for s in get_or_create["statements"]] == ["read", "insert"]
    assert get_or_create["interactivity"] == "one-shot"


def test_results_of_other_call_sites_are_inputs_of_an_autocommit_statement():
    """`touch(account.pk)` after `Account.objects.get(...)`: the view's later statement does not
    depend on a step of its own transaction (each call site is its own one-shot transaction)."""
    for record in _records(SHOP):
        if record["boundary"] != "autocommit":
            continue
        own = {s["id"] for s in record["steps"]}
        text = json.dumps(record["steps"])
        for step_id in re.findall(r'"step": "(s\d+)"', text):
            assert step_id in own, record["id"]


def test_scan_without_autocommit_reports_explicit_transactions_only():
    with_autocommit = scan(FIXTURE, Config(), "django", rewrites=False)
    without = scan(FIXTURE, Config(), "django", rewrites=False, autocommit=False)
    explicit = [t for t in with_autocommit.analyses["pk"]["transactions"] if t["boundary"] != "autocommit"]
    assert without.analyses["pk"]["transactions"] == explicit
    assert not any(r.get("boundary") == "autocommit" for r in without.records)


def test_autocommit_output_is_deterministic():
    first = scan(FIXTURE, Config(), "django", rewrites=False).ir_text
    second = scan(FIXTURE, Config(), "django", rewrites=False).ir_text
    assert first == second and ":autocommit" in first


def test_store_keeps_autocommit_rows_and_reports_count_them(tmp_path):
    result = scan_cached(str(FIXTURE), "django")
    db = store.connect(tmp_path / "s.db")
    store.write_app(db, app_row("bank", result, Config()), result.files, result.ir_text, result.analyses)
    rows = db.execute("SELECT txn_key, interactivity FROM transactions WHERE boundary = 'autocommit' AND "
                      "cda_mode = 'pk' ORDER BY txn_key").fetchall()
    assert len(rows) == 7 and {r[1] for r in rows} == {"one-shot"}
    assert metrics.has_autocommit(db)
    db.close()
    reader = sqlite3.connect(tmp_path / "s.db")
    assert reader.execute("SELECT count(*) FROM statements s JOIN transactions t ON t.id = s.transaction_id "
                          "WHERE t.boundary = 'autocommit' AND t.cda_mode = 'pk'").fetchone()[0] == 8
    reader.close()


def test_cli_json_lists_them_and_the_terminal_summarises_them(tmp_path):
    runner = CliRunner()
    completed = runner.invoke(app, ["scan", str(FIXTURE), "--format", "json", "--no-db", "--no-cache"])
    assert completed.exit_code == 0, completed.output
    doc = json.loads(completed.output)
    assert doc["summary"]["autocommit"] == 7
    assert sum(t["boundary"] == "autocommit" for t in doc["transactions"]) == 7
    assert "bank/views.py:8:15:autocommit" in {t["id"] for t in doc["transactions"]}
    table = runner.invoke(app, ["scan", str(FIXTURE), "--no-db", "--no-cache"])
    assert table.exit_code == 0
    assert "7 autocommit statements" in " ".join(table.output.split())
    assert "bank/views.py:8 " not in table.output  # summarised, not one row per call site
    off = runner.invoke(app, ["scan", str(FIXTURE), "--format", "json", "--no-db", "--no-cache", "--no-autocommit"])
    assert json.loads(off.output)["summary"]["autocommit"] == 0


def test_lint_rules_do_not_fire_on_autocommit_statements():
    """Rules are about explicit transactions: a scan that holds autocommit statements (a CDA
    mismatch, full scans, a get_or_create outside any transaction) gives the same findings as one
    without them, for every rule (those off by default too), TX301 included."""
    def findings(autocommit: bool):
        result = scan(SHOP, Config(), "django", rewrites=False, autocommit=autocommit)
        outcome = lint_run(LintOptions(paths=[SHOP], overrides=Overrides(select=("TX",))), scan_result=result)
        return sorted((f.code, f.location.path, f.location.line) for f in outcome.findings)

    with_autocommit = findings(True)
    assert with_autocommit == findings(False)
    assert with_autocommit  # the sample has findings about its explicit transactions


FORUM = ROOT / "corpus" / "samples" / "django" / "forum"
_EVENTS = '''from django.db import transaction

from bank.models import Account


def fire(handler, *args):
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(lambda: handler(*args))
    else:
        handler(*args)


class Events:
    def closed(self, account):
        return Account.objects.filter(pk=account.pk).values_list("name", flat=True).first()


@transaction.atomic
def close(account_id):
    account = Account.objects.select_for_update().get(pk=account_id)
    account.delete()
    fire(Events().closed, account)
'''
_OUTSIDE = '''

def close_quietly(account):
    fire(Events().closed, account)
'''


def _handler_project(tmp_path, outside: bool):
    return django_project(tmp_path / ("outside" if outside else "inside"), "bank", "Account",
                          {"events.py": _EVENTS + (_OUTSIDE if outside else "")})


def test_a_handler_a_transaction_reaches_counts_where_its_caller_runs_outside_transactions(tmp_path):
    """A function handed to a helper as a value has no call in the index. The walk of a transaction
    that reaches it through the helper shows who calls it: the helper, which (called outside
    transactions too) makes it run in autocommit; a helper called only inside transactions does
    not (forum sample: ThreadEvents.locked)."""
    def handler_sites(root):
        records = [r for r in scan_cached(str(root), "django").records if r["type"] == "transaction"]
        explicit = next(r for r in records if r["function"] == "bank.events.close")
        assert any(s["via"] == ["bank.events.fire", "bank.events.Events.closed"] for s in ir_statements(explicit["steps"]))
        return [r for r in records if r["boundary"] == "autocommit" and r["function"] == "bank.events.Events.closed"]

    assert len(handler_sites(_handler_project(tmp_path, outside=True))) == 1
    assert handler_sites(_handler_project(tmp_path, outside=False)) == []
    forum = [r for r in _records(FORUM) if r["boundary"] == "autocommit"]
    assert any(r["function"] == "forum.services.locking.ThreadEvents.locked" for r in forum)


def test_module_level_code_is_walked_from_a_converted_tree_as_from_libcsts(monkeypatch):
    """The module-level code the autocommit phase walks is parsed with `ast` and converted
    (call_sites._module_parsed), as definitions are: the records are those of libcst's tree."""
    from analyzer.django import ast_convert, call_sites
    from analyzer.django.context import ParsedModule
    from analyzer.django.parsing import parse_module

    parsed = []
    real = call_sites._module_parsed
    monkeypatch.setattr(call_sites, "_module_parsed", lambda info: parsed.append(real(info)) or parsed[-1])
    converted = [r for r in scan(FIXTURE, Config(), "django", rewrites=False).records if r["type"] == "transaction"]
    assert [p.info.rel for p in parsed] == ["bank/choices.py"] and ast_convert.is_converted(parsed[0].tree)
    assert any(r["function"] == "bank.choices" for r in converted)

    def libcst_parsed(info):
        tree = parse_module(info.source.text)
        return ParsedModule(info, tree, tree, 1)

    monkeypatch.setattr(call_sites, "_module_parsed", libcst_parsed)
    assert [r for r in scan(FIXTURE, Config(), "django", rewrites=False).records if r["type"] == "transaction"] == converted


def test_module_level_code_the_conversion_does_not_map_is_parsed_by_libcst(tmp_path):
    from analyzer.django import ast_convert, call_sites
    from analyzer.django.index import RepoIndex

    # a parenthesized string over several lines: ast_convert leaves it to libcst (Unsupported)
    text = 'from app.models import Account\n\nNOTE = (\n    """two\n    lines"""\n)\nCOUNT = Account.objects.count()\n'
    with pytest.raises(ast_convert.Unsupported):
        ast_convert.convert(text, 1)
    root = django_project(tmp_path, "app", "Account", {"startup.py": text})
    info = RepoIndex().add(next(s for s in python_sources(root) if s.rel == "app/startup.py"))
    parsed = call_sites._module_parsed(info)
    assert parsed is not None and not ast_convert.is_converted(parsed.tree)
    records = [r for r in scan(root, Config(), "django", rewrites=False).records if r["type"] == "transaction"]
    [startup] = [r for r in records if r["function"] == "app.startup"]
    assert [(s["kind"], s["line"]) for s in ir_statements(startup["steps"])] == [("read", 7)]
