"""The checks of a rewrite read only the top-level statements it edits (and the compiler's
verdict on the original file once): a rewrite that does not parse, does not compile, or names
a field the entity lacks is refused as when whole files were parsed, with the same reason."""

from __future__ import annotations

import difflib
from dataclasses import replace

import pytest
from django_projects import write

from analyzer.config import Config
from analyzer.rewrite import checks
from analyzer.rewrite.edits import Edit, apply, diff_edits, diff_replaced_lines
from analyzer.rewrite.verify import verify
from conftest import SAMPLES

DEPOSIT = """\
    from django.db import transaction

    from bank.models import Account


    def audit(account):
        return account.pk


    @transaction.atomic
    def deposit(account_id, amount):
        account = Account.objects.select_for_update().get(pk=account_id)
        account.balance += amount
        account.save(update_fields=["balance"])
        return account


    def report(account):
        return audit(account)
"""

NOTIFY = """\
    from django.core.mail import send_mail
    from django.db import transaction

    from bank.models import Account


    @transaction.atomic
    def close(account_id):
        Account.objects.filter(pk=account_id).update(balance=0)
        send_mail("closed", "done", "bank@example.com", ["owner@example.com"])


    def report(account):
        return account.pk
"""


def _verified(tmp_path, kind: str):
    app = write(tmp_path, DEPOSIT if kind == "f-expression" else NOTIFY)
    result, found = app.candidates()
    [candidate] = [c for c in found if c.rewrite is not None and c.rewrite.kind == kind]
    assert candidate.rewrite.verified, candidate.refused
    entities = {r["name"]: r for r in result.records if r["type"] == "entity"}
    return app, candidate, entities


def _reverify(app, candidate, entities, old: str, new: str):
    edits = tuple(replace(e, text=e.text.replace(old, new)) for e in candidate.rewrite.edits)
    assert edits != candidate.rewrite.edits
    again = replace(candidate, rewrite=replace(candidate.rewrite, edits=edits, verified=False), refused="")
    verify(app.root, "django", Config(), [again], entities)
    return again


@pytest.mark.parametrize(("old", "new", "reason"), [
    ('update(balance=F("balance")', 'update(balance=F("balance"', "does not parse"),  # unclosed
    ('update(balance=F("balance") + amount)', 'update(balance=F("balance") + amount, balance=0)',
     "keyword argument repeated"),  # the compiler's check: libcst accepts it
    ('update(balance=F("balance")', 'update(balanse=F("balance")', "names balanse, which Account does not have"),
    ("    Account.objects", "  Account.objects", "does not parse"),  # an indentation the block does not have
])
def test_a_broken_f_expression_is_refused_by_the_edited_statement_checks(tmp_path, old, new, reason):
    app, candidate, entities = _verified(tmp_path, "f-expression")
    again = _reverify(app, candidate, entities, old, new)
    assert again.rewrite is None and reason in again.refused


def test_a_broken_on_commit_is_refused_and_the_intact_one_still_verifies(tmp_path):
    app, candidate, entities = _verified(tmp_path, "on-commit")
    again = _reverify(app, candidate, entities, "lambda: send_mail(", "lambda send_mail(")
    assert again.rewrite is None and again.refused.startswith("the rewritten code does not parse (bank/services.py:")
    intact = replace(candidate, rewrite=replace(candidate.rewrite, verified=False))
    verify(app.root, "django", Config(), [intact], entities)
    assert intact.rewrite is not None and intact.rewrite.verified, intact.refused


def _edits_at_every_boundary(text: str, per_line: int | None = None):
    """Edits that insert, delete or replace lines at every line of `text`: valid and invalid.
    `per_line`: that many of the snippets at each line, a different few at each next line (each
    snippet still lands at every few lines), for checks that parse whole files with libcst."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    snippets = ["", "    x = 1\n", "x = (\n", "\n", "  y = 2\n", "return 5\n", "f(a=1, a=2)\n", "        pass\n", "'''\n",
                "@decorator\n", "# note\n"]
    for index in range(len(lines) + 1):
        chosen = snippets if per_line is None else \
            [snippets[(index * per_line + k) % len(snippets)] for k in range(per_line)]
        for width in (0, 1):
            for snippet in chosen:
                end = min(index + width, len(lines))
                if snippet or end > index:
                    yield (Edit("f.py", offsets[index], offsets[end], snippet),)
    if len(lines) > 4:  # two edits far apart, as an added import and a changed call
        yield (Edit("f.py", offsets[1], offsets[1], "import os\n"), Edit("f.py", offsets[-2], offsets[-1], "x = (\n"))


@pytest.mark.parametrize("sample", ["shop", "ledger", "forum"])
def test_the_edited_statement_checks_agree_with_parsing_the_whole_file(sample):
    compared = 0
    for path in sorted((SAMPLES / "django" / sample).rglob("*.py"))[:12]:
        original = path.read_text("utf-8")
        for edits in _edits_at_every_boundary(original, per_line=3):
            text = apply(original, edits)
            assert checks.python_parses("f.py", text, original, edits) == checks.python_parses("f.py", text), \
                (path, edits)
            compared += 1
    assert compared > 500


def _whole_file_diff(old: str, new: str, path: str = "f.py") -> tuple[Edit, ...]:
    """difflib over the whole files, as diff_edits computed its edits before it set the common
    ends aside."""
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    offsets = [0]
    for line in old_lines:
        offsets.append(offsets[-1] + len(line))
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    return tuple(Edit(path, offsets[i1], offsets[i2], "".join(new_lines[j1:j2]))
                 for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal")


@pytest.mark.parametrize("sample", ["shop", "ledger", "forum"])
def test_diff_edits_are_those_of_difflib_over_the_whole_file(sample):
    for path in sorted((SAMPLES / "django" / sample).rglob("*.py"))[:12]:
        original = path.read_text("utf-8")
        for edits in _edits_at_every_boundary(original):
            text = apply(original, edits)
            assert diff_edits("f.py", original, text) == _whole_file_diff(original, text)


def _repetitive_module(functions: int) -> list[str]:
    """Lines of a module whose functions repeat each other's lines (generated code, templates):
    the runs difflib must not mistake for the ones a rewrite left alone."""
    lines = ["from django.db import transaction\n", "\n"]
    for n in range(functions):
        lines += ["\n", "@transaction.atomic\n", f"def service_{n % 4}(pk):\n", "    row = load(pk)\n",
                  "    row.counter += 1\n" if n % 3 else "    notify(pk)\n", "    row.save()\n", "    return row\n"]
    return lines


@pytest.mark.parametrize("functions", [3, 12, 40])
def test_diff_edits_are_difflibs_where_runs_of_lines_repeat(functions):
    old_lines = _repetitive_module(functions)
    old = "".join(old_lines)
    compared = 0
    for at in range(0, len(old_lines) + 1, 3):
        for new_lines in (
            old_lines[:at] + ["    transaction.on_commit(lambda: notify(pk))\n"] + old_lines[at + 1:],  # replaced
            old_lines[:at] + old_lines[max(at - 7, 0):at] + old_lines[at:],  # lines above repeated
            old_lines[:2] + ["from django.db.models import F\n"] + old_lines[2:at] + old_lines[at + 2:],  # two places
        ):
            new = "".join(new_lines)
            assert diff_edits("f.py", old, new) == _whole_file_diff(old, new), (at, new)
            compared += 1
    assert compared > 10


@pytest.mark.parametrize("functions", [3, 12])
def test_diff_of_replaced_lines_is_the_diff_of_the_text_they_make(functions):
    """diff_replaced_lines (the on-commit rewrite's edits, from the lines it replaces) gives what
    diff_edits gives for the whole text built with those lines, also where line ends could
    join across the replacement ("\\r" then "\\n") and with line breaks other than "\\n"."""
    old_lines = _repetitive_module(functions)
    variants = ["".join(old_lines), "".join(old_lines).replace("\n", "\r\n"),
                "".join(old_lines).replace("    row.save()\n", "    row.save()\x0c\n"),
                "".join(line.replace("\n", "\r") if n % 5 == 0 else line for n, line in enumerate(old_lines))]
    replacements = ["    transaction.on_commit(lambda: notify(pk))\n", "    row.save()\n", "", "\n",
                    "    a()\r\n    b()\n", "    tail()\r", "\nhead()\n", "    no_end()", "    x = '\x0c'\n"]
    compared = 0
    for old in variants:
        lines = old.splitlines(keepends=True)
        for first in range(0, len(lines) + 1, 2):
            for last in (first, min(first + 1, len(lines)), min(first + 3, len(lines))):
                for replacement in replacements:
                    new = "".join(lines[:first]) + replacement + "".join(lines[last:])
                    assert diff_replaced_lines("f.py", old, first, last, replacement) == \
                        diff_edits("f.py", old, new) == _whole_file_diff(old, new), (old, first, last, replacement)
                    compared += 1
    assert compared > 1000


def test_diff_edits_of_a_rewrite(tmp_path):
    app, candidate, _entities = _verified(tmp_path, "f-expression")
    original = (app.root / "bank" / "services.py").read_text("utf-8")
    text = apply(original, candidate.rewrite.edits)
    path = "bank/services.py"
    assert candidate.rewrite.edits == _whole_file_diff(original, text, path) == diff_edits(path, original, text)


def test_an_edit_above_a_future_import_is_checked_with_the_whole_file():
    original = '"""Doc."""\n\n# note\n\nfrom __future__ import annotations\n\nimport os\n'
    for line in range(1, 6):
        offset = sum(len(x) for x in original.splitlines(keepends=True)[:line - 1])
        edits = (Edit("f.py", offset, offset, "x = 1\n"),)
        text = apply(original, edits)
        problem = checks.python_parses("f.py", text, original, edits)
        assert problem == checks.python_parses("f.py", text)
        assert problem and "from __future__ imports must occur at the beginning of the file" in problem
    below = (Edit("f.py", len(original), len(original), "x = 1\n"),)
    assert checks.python_parses("f.py", apply(original, below), original, below) is None
