"""Verification re-analyses the project in place (the edited texts stand in for their files):
it finds what a scan of a rewritten copy finds, refuses what that re-analysis does not confirm,
and never writes into the project."""

from __future__ import annotations

import os
import shutil
from dataclasses import replace

from django_projects import TWO_TRANSACTIONS, write

from analyzer.cache import ScanCache
from analyzer.config import Config
from analyzer.rewrite import apply
from analyzer.rewrite.django_reanalysis import reanalyse
from analyzer.rewrite.edits import Edit
from analyzer.rewrite.plan import candidates
from analyzer.rewrite.verify import verify
from analyzer.scan import scan


def _planned(root):
    """The scan of `root` (its work kept in memory) and its candidates, planned, not verified."""
    result = scan(root, Config(), "django", rewrites=False, cache=ScanCache())
    found = candidates(root, "django", result.records, result.analyses)
    return result, [c for c in found if c.rewrite is not None]


def _verify(root, result, found):
    entities = {r["name"]: r for r in result.records if r["type"] == "entity"}
    verify(root, "django", Config(), found, entities, result.cache)


def _edit(text: str, old: str, new: str) -> Edit:
    start = text.index(old)
    return Edit("bank/services.py", start, start + len(old), new)


def _increment(model: str, field: str) -> str:
    """A transaction adding to one column of one row: read, assign, save()."""
    return f"""\
        from django.db import transaction

        from bank.models import {model}


        @transaction.atomic
        def add(pk, amount):
            row = {model}.objects.select_for_update().get(pk=pk)
            row.{field} += amount
            row.save(update_fields=["{field}"])
    """


def _files(root):
    return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(root.rglob("*")) if p.is_file()}


def test_in_place_re_analysis_finds_what_a_scan_of_an_edited_copy_finds(tmp_path):
    app = write(tmp_path, TWO_TRANSACTIONS)
    result, found = _planned(app.root)
    rename = next(c for c in found if c.transaction.endswith(":7"))
    text = app.services
    edited = apply(text, rename.rewrite.edits)
    copy = tmp_path / "copy" / app.root.name
    shutil.copytree(app.root, copy)
    (copy / "bank" / "services.py").write_text(edited, "utf-8")
    expected = {r["id"]: r for r in scan(copy, Config(), "django", rewrites=False, autocommit=False).records
                if r["type"] == "transaction"}
    ids = set(expected)
    assert ids == {"bank/services.py:7", "bank/services.py:13"}
    for tables in ({}, result.cache.tables("django")):  # without the scan's work, and with it
        transactions, verdicts, _records, reached = reanalyse(app.root, Config(), {"bank/services.py": edited},
                                                              ids, tables)
        assert transactions == expected
        assert verdicts["bank/services.py:7"]["interactivity"] == "one-shot"
        assert "bank/services.py" in reached["bank/services.py:7"]
    # only the transactions asked for are walked
    transactions, _verdicts, _records, _reached = reanalyse(app.root, Config(), {"bank/services.py": edited},
                                                            {"bank/services.py:13"}, {})
    assert set(transactions) == {"bank/services.py:13"}


def test_a_claim_re_analysis_does_not_confirm_is_refused_and_the_project_is_not_written(tmp_path):
    app = write(tmp_path, TWO_TRANSACTIONS)
    result, found = _planned(app.root)
    rename = next(c for c in found if c.transaction.endswith(":7"))
    # parses and names nothing new, but leaves the call inside the transaction
    rename.rewrite = replace(rename.rewrite, edits=(_edit(app.services, "    audit.delay(account_id)\n",
                                                          "    audit.delay(account_id)  # later\n"),))
    before = _files(app.root)
    _verify(app.root, result, [rename])
    assert rename.rewrite is None
    assert rename.refused == ("re-analysis of the rewritten code does not confirm it: "
                              "bank.tasks.audit.delay still runs inside the transaction")
    assert _files(app.root) == before
    assert not [p for p in os.listdir(app.root) if p not in ("bank", "manage.py")]


def test_an_edit_that_breaks_another_transaction_refuses_that_transactions_rewrite(tmp_path):
    app = write(tmp_path, TWO_TRANSACTIONS)
    result, found = _planned(app.root)
    rename = next(c for c in found if c.transaction.endswith(":7"))
    credit = next(c for c in found if c.transaction.endswith(":13"))
    # the rename rewrite also deletes the credit transaction's update (same round: no overlap)
    broken = _edit(app.services, "    Customer.objects.filter(pk=customer_id).update(credit=amount)\n", "")
    rename.rewrite = replace(rename.rewrite, edits=(*rename.rewrite.edits, broken))
    _verify(app.root, result, [rename, credit])
    assert credit.rewrite is None
    assert credit.refused == ("re-analysis of the rewritten code does not confirm it: "
                              "the transaction's other statements changed")
    # checked alone, the credit rewrite holds
    _result, again = _planned(app.root)
    credit = next(c for c in again if c.transaction.endswith(":13"))
    _verify(app.root, result, [credit])
    assert credit.rewrite is not None and credit.rewrite.verified and credit.makes_one_shot


def test_a_rewrite_removing_its_transaction_is_refused(tmp_path):
    app = write(tmp_path, TWO_TRANSACTIONS)
    result, found = _planned(app.root)
    rename = next(c for c in found if c.transaction.endswith(":7"))
    rename.rewrite = replace(rename.rewrite, edits=(*rename.rewrite.edits,
                                                    _edit(app.services, "@transaction.atomic\ndef rename", "def rename")))
    _verify(app.root, result, [rename])
    assert rename.rewrite is None
    assert rename.refused == "re-analysis of the rewritten code no longer finds the transaction"


def test_a_field_the_entity_does_not_have_is_refused_before_re_analysis(tmp_path):
    app = write(tmp_path, _increment("Account", "balance"))
    result, found = _planned(app.root)
    (candidate,) = found
    assert candidate.rewrite.kind == "f-expression"
    text = app.services
    edits = [replace(e, text=e.text.replace("update(balance=", "update(balanse=")) for e in candidate.rewrite.edits]
    assert edits != list(candidate.rewrite.edits)
    candidate.rewrite = replace(candidate.rewrite, edits=tuple(edits))
    _verify(app.root, result, [candidate])
    assert candidate.rewrite is None
    assert candidate.refused == "the rewritten query names balanse, which Account does not have"
    assert app.services == text


def test_a_model_overriding_save_gets_no_update_rewrite(tmp_path):
    from django_projects import MODELS

    models = MODELS + """

class Audited(models.Model):
    total = models.IntegerField(default=0)

    def save(self, *args, **kwargs):
        super().save(*args, **kwargs)
"""
    app = write(tmp_path, _increment("Audited", "total"), models)
    candidate = app.only("f-expression")
    assert candidate.rewrite is None
    assert candidate.refused == "Audited overrides save() or has auto_now fields, which update() skips"
