"""Re-analysis of rewrites shares the scan's own Context (django_reanalysis.py): the module facts
of the files no edit touches and the definitions the scan parsed in them. What an edit reaches
(the edited file's other definitions too) is indexed and parsed again, and re-analysis returns
what it returns without the scan's Context."""

from __future__ import annotations

from dataclasses import replace
from textwrap import dedent

from django_projects import TWO_TRANSACTIONS, write

from analyzer import forked
from analyzer.cache import ScanCache
from analyzer.config import Config
from analyzer.rewrite import apply, django_reanalysis
from analyzer.rewrite.edits import Edit, edits_by_path
from analyzer.rewrite.plan import candidates
from analyzer.rewrite.verify import verify
from analyzer.scan import scan

FILES = 4  # service modules, two transactions each


def _project(tmp_path):
    app = write(tmp_path, TWO_TRANSACTIONS)
    for number in range(1, FILES):
        (app.root / "bank" / f"services{number}.py").write_text(dedent(TWO_TRANSACTIONS), "utf-8")
    return app


def _planned(root):
    result = scan(root, Config(), "django", rewrites=False, cache=ScanCache())
    found = candidates(root, "django", result.records, result.analyses)
    return result, [c for c in found if c.rewrite is not None]


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
