"""Re-analysis walks the checked transactions on both cores (django_reanalysis.py,
shared_work.py): the transactions of some files in a helper process forked once every boundary
is found, the others in the scan's own. What verification concludes, and what re-analysis
returns, is what one process gives."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from textwrap import dedent

import pytest
from django_projects import TWO_TRANSACTIONS, write

from analyzer import forked
from analyzer.cache import ScanCache
from analyzer.config import Config
from analyzer.rewrite import apply, django_reanalysis
from analyzer.rewrite.edits import Edit, edits_by_path
from analyzer.rewrite.plan import candidates
from analyzer.rewrite.verify import verify
from analyzer.scan import scan

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="helpers run on Linux only")

FILES = 4  # service modules, two checked transactions each


def _project(tmp_path):
    app = write(tmp_path, TWO_TRANSACTIONS)
    for number in range(1, FILES):
        (app.root / "bank" / f"services{number}.py").write_text(dedent(TWO_TRANSACTIONS), "utf-8")
    return app


def _planned(root):
    result = scan(root, Config(), "django", rewrites=False, cache=ScanCache())
    found = candidates(root, "django", result.records, result.analyses)
    return result, [c for c in found if c.rewrite is not None]


def _verified(root, helpers: str, monkeypatch, spoil=None):
    """What verification concludes of every candidate with helpers on ("1") or off ("0"), and
    the processes the walks ran in (the re-analysis walks at least one file in a helper)."""
    monkeypatch.setenv(forked.ENV, helpers)
    monkeypatch.setattr(django_reanalysis, "MIN_SHARED_WALKS", 1)
    pids = _walk_processes(monkeypatch)
    result, found = _planned(root)
    if spoil is not None:
        spoil(found)
    entities = {r["name"]: r for r in result.records if r["type"] == "entity"}
    verify(root, "django", Config(), found, entities, result.cache)
    return [(c.transaction, c.suggestion, c.rewrite, c.refused, c.makes_one_shot) for c in found], pids


def _walk_processes(monkeypatch) -> set:
    """The process ids the re-analysis walks run in (noted as the walks run, in either process)."""
    pids: set = set()
    shared = django_reanalysis.work_shared

    def noting(items, work, key, min_items=None):
        done = shared(items, lambda item: (os.getpid(), work(item)), key, min_items)
        pids.update(pid for pid, _result in done)
        return [result for _pid, result in done]

    monkeypatch.setattr(django_reanalysis, "work_shared", noting)
    return pids


def test_two_processes_verify_what_one_process_verifies(tmp_path, monkeypatch):
    app = _project(tmp_path)
    alone, pids = _verified(app.root, "0", monkeypatch)
    assert pids == {os.getpid()}
    shared, pids = _verified(app.root, "1", monkeypatch)
    assert len(pids) == 2 and os.getpid() in pids  # both processes walked
    assert shared == alone
    verified = [t for t, _s, rewrite, _r, _o in alone if rewrite is not None and rewrite.verified]
    assert len(verified) == 2 * FILES


def test_a_claim_refused_in_the_helper_is_refused_as_in_one_process(tmp_path, monkeypatch):
    app = _project(tmp_path)

    def spoil(found):
        # every rename rewrite leaves the call inside its transaction: re-analysis must refuse it
        for candidate in found:
            if candidate.transaction.endswith(":7"):
                rel = candidate.transaction.rsplit(":", 1)[0]
                text = (app.root / rel).read_text("utf-8")
                start = text.index("    audit.delay(account_id)\n")
                candidate.rewrite = replace(candidate.rewrite, edits=(
                    Edit(rel, start, start + len("    audit.delay(account_id)\n"),
                         "    audit.delay(account_id)  # later\n"),))

    alone, _pids = _verified(app.root, "0", monkeypatch, spoil)
    shared, pids = _verified(app.root, "1", monkeypatch, spoil)
    assert len(pids) == 2
    assert shared == alone
    refused = {t: r for t, _s, rewrite, r, _o in alone if rewrite is None}
    assert set(refused) == {f"bank/services{n if n else ''}.py:7" for n in range(FILES)}
    assert set(refused.values()) == {"re-analysis of the rewritten code does not confirm it: "
                                     "bank.tasks.audit.delay still runs inside the transaction"}


def test_re_analysis_on_two_processes_returns_what_one_process_returns(tmp_path, monkeypatch):
    app = _project(tmp_path)
    result, found = _planned(app.root)
    edits = {e for c in found for e in c.rewrite.edits}
    by_path = edits_by_path(edits)
    originals = {path: (app.root / path).read_text("utf-8") for path in by_path}
    texts = {path: apply(originals[path], found_edits) for path, found_edits in by_path.items()}
    wanted = {c.transaction for c in found}  # (an on-commit rewrite moves no transaction's line)
    monkeypatch.setattr(django_reanalysis, "MIN_SHARED_WALKS", 1)
    answers = {}
    for helpers in ("0", "1"):
        monkeypatch.setenv(forked.ENV, helpers)
        pids = _walk_processes(monkeypatch)
        answers[helpers] = django_reanalysis.reanalyse(app.root, Config(), texts, wanted,
                                                       result.cache.tables("django"), by_path, originals)
        assert len(pids) == int(helpers) + 1
    assert answers["1"] == answers["0"]
    transactions, verdicts, _records, reached = answers["1"]
    assert set(transactions) == wanted and set(verdicts) == wanted
    assert all(t.rsplit(":", 1)[0] in reached[t] for t in wanted)


# -- the scan's own facts, shared with re-analysis where no edit reaches them -------------------

HELPER_IN_THE_SAME_FILE = """\
    from django.db import transaction

    from bank.models import Account, Customer
    from bank.tasks import audit


    def _log(account_id):
        return account_id


    @transaction.atomic
    def rename(account_id, number):
        Account.objects.filter(pk=account_id).update(number=number)
        _log(account_id)
        audit.delay(account_id)
"""


def _scanned(root, monkeypatch):
    """The scan of `root` in one process (its Context holds every parse), and its candidates."""
    monkeypatch.setenv(forked.ENV, "0")
    return _planned(root)


def test_an_edit_of_a_second_function_of_the_edited_file_is_seen_by_re_analysis(tmp_path, monkeypatch):
    app = write(tmp_path, HELPER_IN_THE_SAME_FILE)
    result, found = _scanned(app.root, monkeypatch)
    (rename,) = found
    # the scan parsed the helper as it was: re-analysis must parse the edited one
    assert result.context._parsed["bank.services._log"] is not None
    text = app.services
    start = text.index("    return account_id\n")
    writes = Edit("bank/services.py", start, start + len("    return account_id\n"),
                  "    Customer.objects.filter(pk=account_id).update(credit=0)\n")
    rename.rewrite = replace(rename.rewrite, edits=(*rename.rewrite.edits, writes))
    entities = {r["name"]: r for r in result.records if r["type"] == "entity"}
    verify(app.root, "django", Config(), [rename], entities, result.cache, scan_context=result.context)
    assert rename.rewrite is None
    assert rename.refused == ("re-analysis of the rewritten code does not confirm it: "
                              "the transaction's other statements changed")
    # the same rewrite without the helper's edit verifies, with the scan's parses shared
    _result, (again,) = _planned(app.root)
    verify(app.root, "django", Config(), [again], entities, result.cache, scan_context=result.context)
    assert again.rewrite is not None and again.rewrite.verified


def test_an_edit_breaking_another_transaction_of_the_file_is_refused_with_the_scan_shared(tmp_path, monkeypatch):
    app = write(tmp_path, TWO_TRANSACTIONS)
    result, found = _scanned(app.root, monkeypatch)
    rename = next(c for c in found if c.transaction.endswith(":7"))
    credit = next(c for c in found if c.transaction.endswith(":13"))
    assert result.context._parsed["bank.services.credit"] is not None
    text = app.services
    update = "    Customer.objects.filter(pk=customer_id).update(credit=amount)\n"
    start = text.index(update)
    rename.rewrite = replace(rename.rewrite, edits=(*rename.rewrite.edits,
                                                    Edit("bank/services.py", start, start + len(update), "")))
    entities = {r["name"]: r for r in result.records if r["type"] == "entity"}
    verify(app.root, "django", Config(), [rename, credit], entities, result.cache, scan_context=result.context)
    assert rename.rewrite is not None and rename.rewrite.verified
    assert credit.rewrite is None
    assert credit.refused == ("re-analysis of the rewritten code does not confirm it: "
                              "the transaction's other statements changed")


def test_re_analysis_with_the_scan_shared_returns_what_it_returns_without(tmp_path, monkeypatch):
    app = _project(tmp_path)
    (app.root / "bank" / "helpers.py").write_text(dedent("""\
        from bank.models import Account


        def touch(pk):
            Account.objects.filter(pk=pk).update(number="x")
    """), "utf-8")
    services = app.root / "bank" / "services.py"
    services.write_text(services.read_text("utf-8").replace(
        "from bank.tasks import audit\n", "from bank.tasks import audit\nfrom bank.helpers import touch\n").replace(
        "    audit.delay(customer_id)\n", "    touch(customer_id)\n    audit.delay(customer_id)\n"), "utf-8")
    result, found = _scanned(app.root, monkeypatch)
    assert result.context._parsed["bank.helpers.touch"] is not None  # (an unedited module's, shared)
    edits = {e for c in found for e in c.rewrite.edits}
    by_path = edits_by_path(edits)
    originals = {path: (app.root / path).read_text("utf-8") for path in by_path}
    texts = {path: apply(originals[path], found_edits) for path, found_edits in by_path.items()}
    wanted = {c.transaction for c in found}
    tables = result.cache.tables("django")
    shared = django_reanalysis.reanalyse(app.root, Config(), texts, wanted, tables, by_path, originals,
                                         result.context)
    alone = django_reanalysis.reanalyse(app.root, Config(), texts, wanted, tables, by_path, originals)
    assert shared == alone
    transactions, _verdicts, _records, reached = shared
    assert set(transactions) == wanted
    assert "bank/helpers.py" in reached["bank/services.py:14"]
