"""Re-analysis patches an edited file's index facts (only the edited top-level definitions are
parsed again, those below moved): the patch is exactly what indexing the whole edited file
gives, it is refused where that cannot be shown, and verification through it finds what a scan
of an edited copy finds."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from textwrap import dedent

from django_projects import TWO_TRANSACTIONS, write

from analyzer.cache import ScanCache, index_facts
from analyzer.config import Config
from analyzer.django.files import SourceFile
from analyzer.django.index import RepoIndex
from analyzer.rewrite import apply
from analyzer.rewrite.django_reanalysis import reanalyse
from analyzer.rewrite.edits import Edit
from analyzer.rewrite.index_patch import patched_module
from analyzer.rewrite.plan import candidates
from analyzer.rewrite.verify import verify
from analyzer.scan import scan

MODULE = dedent("""\
    from django.db import transaction

    from bank.models import Account


    def first(pk):
        row = Account.objects.get(pk=pk)
        return row


    @transaction.atomic
    def second(pk):
        Account.objects.filter(pk=pk).update(number="x")

        def inner():
            return pk

        return inner


    class Service:
        limit = 3

        def run(self, pk):
            return first(pk)

        class Nested:
            def go(self):
                return second(1)


    def last():
        return Service().run(2)
""")


def _source(text: str, rel: str = "bank/services.py") -> SourceFile:
    return SourceFile(Path("/nowhere") / rel, rel, text, text.count("\n") + 1)


def _facts(info) -> tuple:
    return index_facts.dump(info), info.has_error, info.python2_line, index_facts.shape(info)


def _patched(text: str, edits: list[Edit]):
    """(the patch of `text`'s facts with `edits`, or None; the facts of the whole edited text)."""
    old = RepoIndex().add(_source(text))
    copy = index_facts.load(json.loads(json.dumps(index_facts.dump(old))), _source(text))
    edited = _source(apply(text, edits))
    return patched_module(RepoIndex(), copy, text, edited, edits), RepoIndex().add(edited)


def _at(text: str, old: str, new: str) -> Edit:
    start = text.index(old)
    return Edit("bank/services.py", start, start + len(old), new)


def test_edits_in_two_definitions_give_the_whole_files_facts_with_the_definitions_below_moved():
    edits = [_at(MODULE, "    row = Account.objects.get(pk=pk)\n",
                 "    row = Account.objects.get(pk=pk)\n    row.refresh_from_db()\n    audit(row)\n"),
             _at(MODULE, "        return first(pk)\n", "        first(pk)\n        return None\n")]
    patched, whole = _patched(MODULE, edits)
    assert patched is not None
    assert _facts(patched) == _facts(whole)
    functions = patched.functions
    assert functions["bank.services.first"].calls == ["Account.objects.get", "audit", "row.refresh_from_db"]
    # below the first edit: 2 lines down; below the second (in the class): 3 lines down
    assert (functions["bank.services.second"].line, functions["bank.services.second"].end_line) == (13, 20)
    assert functions["bank.services.second.inner"].line == 17
    assert (patched.classes["Service"].line, patched.classes["Service"].end_line) == (23, 32)
    assert functions["bank.services.Service.Nested.go"].line == 31
    assert patched.classes["Service"].inner["Nested"].line == 30
    assert functions["bank.services.last"].line == 35
    assert patched.classes["Service"].methods["run"] is functions["bank.services.Service.run"]


def test_an_edit_removing_lines_inside_a_decorated_function_moves_what_follows_up():
    edits = [_at(MODULE, '    Account.objects.filter(pk=pk).update(number="x")\n\n', "")]
    patched, whole = _patched(MODULE, edits)
    assert patched is not None and _facts(patched) == _facts(whole)
    assert patched.functions["bank.services.second.inner"].line == 13
    assert patched.functions["bank.services.last"].line == 30


def test_what_cannot_be_shown_the_same_is_left_to_indexing_the_whole_file():
    refused = {
        # a statement at column 0 ends the definition early
        "column 0": [_at(MODULE, "    return row\n", "    return row\nrow = 1\n")],
        # an edit outside every definition (an import)
        "import": [Edit("bank/services.py", 0, 0, "from django.db.models import F\n")],
        # a definition added inside one, or removed, changes which functions the file has
        "function removed": [_at(MODULE, "\n    def inner():\n        return pk\n\n    return inner\n",
                                 "\n    return pk\n")],
        "new function": [_at(MODULE, "    return row\n", "    def helper():\n        pass\n    return row\n")],
        # a class body's import is a module fact
        "class import": [_at(MODULE, "    limit = 3\n", "    limit = 3\n    import os\n")],
        # no longer ending at a line end
        "line end": [_at(MODULE, "    return row\n", "    return row")],
    }
    for why, edits in refused.items():
        assert _patched(MODULE, edits)[0] is None, why
    broken = MODULE.replace("def last():", "def last(:")
    assert _patched(broken, [_at(broken, "    row = Account", "    row =  Account")])[0] is None


TWO_IN_ONE_FILE = """\
    from django.db import transaction

    from bank.models import Account, Customer
    from bank.tasks import audit


    def notify(account_id):
        audit.delay(account_id)


    @transaction.atomic
    def rename(account_id, number):
        Account.objects.filter(pk=account_id).update(number=number)
        notify(account_id)


    @transaction.atomic
    def credit(customer_id, amount):
        Customer.objects.filter(pk=customer_id).update(credit=amount)
        audit.delay(customer_id)
"""


def _scan_of_copy(tmp_path, root, rel: str, text: str) -> dict:
    copy = tmp_path / "copy" / root.name
    shutil.copytree(root, copy)
    (copy / rel).write_text(text, "utf-8")
    return {r["id"]: r for r in scan(copy, Config(), "django", rewrites=False, autocommit=False).records
            if r["type"] == "transaction"}


def test_re_analysis_through_the_patch_sees_an_edit_in_another_function_and_moved_lines(tmp_path):
    app = write(tmp_path, TWO_IN_ONE_FILE)
    text = app.services
    result = scan(app.root, Config(), "django", rewrites=False, cache=ScanCache())
    tables = result.cache.tables("django")
    # the helper's effect leaves `rename` (an edit in another function than the transaction's),
    # and two lines added there move `credit` from line 17 to 19
    edits = [_at(text, "    audit.delay(account_id)\n",
                 "    # after commit\n    # (the row is saved by then)\n"
                 "    transaction.on_commit(lambda: audit.delay(account_id))\n")]
    edited = apply(text, edits)
    expected = _scan_of_copy(tmp_path, app.root, "bank/services.py", edited)
    assert set(expected) == {"bank/services.py:13", "bank/services.py:19"}
    old = index_facts.load(tables["files"]["bank/services.py"][3], _source(text))
    assert patched_module(RepoIndex(), old, text, _source(edited), edits) is not None  # the patch is taken
    transactions, verdicts, _records, _reached = reanalyse(
        app.root, Config(), {"bank/services.py": edited}, set(expected), tables,
        {"bank/services.py": edits}, {"bank/services.py": text})
    assert transactions == expected
    assert verdicts["bank/services.py:13"]["interactivity"] == "one-shot"
    assert verdicts["bank/services.py:19"]["interactivity"] != "one-shot"


def test_two_rewrites_of_one_file_verified_in_one_round_each_see_their_own_edit(tmp_path):
    app = write(tmp_path, TWO_TRANSACTIONS)
    result = scan(app.root, Config(), "django", rewrites=False, cache=ScanCache())
    found = [c for c in candidates(app.root, "django", result.records, result.analyses) if c.rewrite is not None]
    by_line = {c.transaction: c for c in found}
    assert set(by_line) == {"bank/services.py:7", "bank/services.py:13"}
    rename, credit = by_line["bank/services.py:7"], by_line["bank/services.py:13"]
    # the rename rewrite also adds lines above the credit transaction (same round: no overlap)
    text = app.services
    padding = _at(text, "    Account.objects.filter(pk=account_id).update(number=number)\n",
                  "    # renamed first,\n    # then told\n    Account.objects.filter(pk=account_id).update(number=number)\n")
    rename.rewrite = replace(rename.rewrite, edits=(*rename.rewrite.edits, padding))
    entities = {r["name"]: r for r in result.records if r["type"] == "entity"}
    verify(app.root, "django", Config(), [rename, credit], entities, result.cache)
    assert rename.rewrite is not None and rename.rewrite.verified and rename.makes_one_shot
    assert credit.rewrite is not None and credit.rewrite.verified and credit.makes_one_shot
