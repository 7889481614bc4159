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


def test_re_analysis_analyses_the_unedited_files_as_the_scan_read_them(tmp_path, monkeypatch):
    # Re-analysis takes the scan's own reads of the files no edit touches (read_by_scan) instead of
    # reading the tree again: a helper changed on disk after the scan is seen only by a re-analysis
    # without the scan's Context, which reads every file.
    app = write(tmp_path, TWO_TRANSACTIONS)
    helpers = app.root / "bank" / "helpers.py"
    helpers.write_text("def touch(pk):\n    return pk\n", "utf-8")
    services = app.root / "bank" / "services.py"
    services.write_text(services.read_text("utf-8").replace(
        "from bank.tasks import audit\n", "from bank.tasks import audit\nfrom bank.helpers import touch\n").replace(
        "    audit.delay(account_id)\n", "    touch(account_id)\n    audit.delay(account_id)\n"), "utf-8")
    result, found = _scanned(app.root, monkeypatch)
    rename = next(c for c in found if c.transaction == "bank/services.py:8")
    by_path = edits_by_path(rename.rewrite.edits)
    originals = {path: (app.root / path).read_text("utf-8") for path in by_path}
    texts = {path: apply(originals[path], edits) for path, edits in by_path.items()}
    tables = result.cache.tables("django")
    helpers.write_text("from bank.models import Customer\n\n\ndef touch(pk):\n"
                       "    Customer.objects.filter(pk=pk).update(credit=0)\n", "utf-8")
    args = (app.root, Config(), texts, {rename.transaction}, tables, by_path, originals)
    shared, _verdicts, _records, _reached = django_reanalysis.reanalyse(*args, result.context)
    read_again, _verdicts, _records, _reached = django_reanalysis.reanalyse(*args)

    def entities(transactions):
        return sorted(s.get("entity") for s in _statements(transactions[rename.transaction]))

    assert entities(shared) == ["Account"]
    assert entities(read_again) == ["Account", "Customer"]


def _statements(txn):
    from analyzer.rewrite.verify import _statements as statements

    return statements(txn)


def test_python_sources_takes_files_read_already_and_reads_the_others(tmp_path):
    from analyzer.django.files import DEFAULT_EXCLUDES, FileProblem, python_sources

    app = write(tmp_path, TWO_TRANSACTIONS)
    (app.root / "bank" / "broken.py").write_bytes(b"x = '\xff'\n")  # not UTF-8: a FileProblem
    read = list(python_sources(app.root, DEFAULT_EXCLUDES, 1_000_000))
    assert any(isinstance(s, FileProblem) for s in read)
    known = {s.rel: s for s in read if not isinstance(s, FileProblem) and s.rel != "bank/models.py"}
    again = list(python_sources(app.root, DEFAULT_EXCLUDES, 1_000_000, known))
    assert again == read
    assert all((s is known.get(s.rel)) == (s.rel in known) for s in again if not isinstance(s, FileProblem))
    # a file read under another root is not taken for this one's
    elsewhere = {rel: replace(s, path=tmp_path / rel) for rel, s in known.items()}
    assert all(s is not elsewhere.get(s.rel) for s in python_sources(app.root, DEFAULT_EXCLUDES, 1_000_000, elsewhere))
