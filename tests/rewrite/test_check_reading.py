"""How the rewrite checks read: libcst's parse of a rewritten statement without its per-node
validation, the edited files read once for planning and checks, and the edited texts of a
re-analysis decoded in memory. Each answer is compared with the slow path it replaces."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from django_projects import write

from analyzer.config import Config
from analyzer.django.files import read_source
from analyzer.rewrite import checks, verified_candidates
from analyzer.rewrite.django_reanalysis import edited_sources
from analyzer.scan import scan
from conftest import FIXTURES, SAMPLES

PYTHON_FILES = sorted([*(SAMPLES / "django").rglob("*.py"), *(FIXTURES / "django").rglob("*.py")])

BROKEN = [
    "def f(:\n    pass\n",
    "f(a=1, a=2)\n",  # libcst parses it, the compiler does not
    "return 1\n",
    "def f():\n    nonlocal x\n",
    "x = (\n",
    "class C:\npass\n",
    "print 'python 2'\n",
    "async def f():\n    yield from g()\n",
    "def f():\n\tif x:\n        pass\n",
    "lambda: (yield)\n",
]


def _validated_problem(path: str, text: str) -> str | None:
    """What the check said when libcst validated every node it parsed (the slow path)."""
    try:
        cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        return f"{path}:{exc.raw_line}: {exc.message}"
    return checks.compile_problem(path, text)


def _statements(text: str) -> list[str]:
    top = checks.outline(text)
    if top is None:
        return [text]
    lines = text.split("\n")
    return ["\n".join(lines[first - 1:last]) + "\n" for first, last in top.groups]


def test_the_parse_check_without_validation_answers_as_with_it():
    texts = [*BROKEN]
    for path in PYTHON_FILES:
        try:
            text = path.read_text("utf-8")
        except UnicodeDecodeError:  # (fixtures of undecodable files)
            continue
        texts += [text, *_statements(text)]
    assert len(texts) > 200
    for text in texts:
        assert checks._parse_problem("f.py", text) == _validated_problem("f.py", text), text


def test_the_names_check_reads_the_same_keywords_without_validation():
    text = "def f(a):\n    A.objects.filter(pk=a, b__gte=1).update(c=2)\n    A.objects.get(d=3)\n"
    assert checks.queryset_keywords(text, [(2, 2)]) == {"pk", "b__gte", "c"}
    assert checks.queryset_keywords(text, [(1, 3)], [(1, text)]) == {"pk", "b__gte", "c", "d"}


EDITED_TEXTS = {
    "plain.py": "x = 1\n",
    "crlf.py": "x = 1\r\ny = 2\r\n",
    "latin.py": "# -*- coding: latin-1 -*-\ns = 'é'\n",  # written as UTF-8, read back as latin-1
    "bad_codec.py": "# coding: rot13\nx = 1\n",
    "unknown_codec.py": "# coding: nothing-like-this\nx = 1\n",
    "bom.py": "\ufeffx = 1\n",
    "nul.py": "x = '\0'\n",
    "breaks.py": "s = 'a\x0cb'\nt = 1\u2028\n",
    "deep.py": "x = " + "(" * 400 + ")" * 400 + "\n",
    "large.py": "x = 1\n" * 40,
}


@pytest.mark.parametrize("max_bytes", [1_500_000, 100])
def test_edited_texts_are_read_as_files_holding_them_would_be(tmp_path, max_bytes):
    root = tmp_path / "project"
    found = edited_sources(EDITED_TEXTS, max_bytes, root)
    copy = tmp_path / "copy"
    copy.mkdir()
    for rel, text in EDITED_TEXTS.items():
        (copy / rel).write_text(text, "utf-8")
        expected = read_source(copy / rel, copy, max_bytes)
        if hasattr(expected, "path"):
            expected = type(expected)(root / rel, rel, expected.text, expected.lines)
        assert found[rel] == expected, rel
    assert {type(f).__name__ for f in found.values()} == {"SourceFile", "FileProblem"}


NOTIFY = """\
    from django.core.mail import send_mail
    from django.db import transaction

    from bank.models import Account


    @transaction.atomic
    def close(account_id):
        Account.objects.filter(pk=account_id).update(balance=0)
        send_mail("closed", "done", "bank@example.com", ["owner@example.com"])


    @transaction.atomic
    def reopen(account_id):
        Account.objects.filter(pk=account_id).update(balance=1)
        send_mail("reopened", "done", "bank@example.com", ["owner@example.com"])
"""


def test_planning_and_the_checks_read_each_edited_file_once(tmp_path, monkeypatch):
    app = write(tmp_path, NOTIFY).root
    result = scan(app, Config(), "django", rewrites=False)
    reads: list[str] = []
    read_text = Path.read_text

    def counted(self, *args, **kwargs):
        reads.append(self.name)
        return read_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", counted)
    found = verified_candidates(app, result, Config())
    verified = [c for c in found if c.rewrite is not None and c.rewrite.verified]
    assert len(verified) == 2  # two rewrites of one file, planned, checked and re-analysed
    assert reads.count("services.py") == 1
