"""Bad input is reported as diagnostics with file and reason; the scan always completes."""

from __future__ import annotations

from pathlib import Path

from analyzer.config import Config
from analyzer.scan import scan

GOOD_MODELS = """\
from django.db import models


class Account(models.Model):
    balance = models.IntegerField()
"""
GOOD_SERVICE = """\
from django.db import transaction

from .models import Account


@transaction.atomic
def touch(account_id):
    Account.objects.filter(pk=account_id).update(balance=0)
"""


def make_app(root: Path, extra: dict[str, bytes | str]) -> Path:
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "models.py").write_text(GOOD_MODELS)
    (root / "app" / "services.py").write_text(GOOD_SERVICE)
    for name, content in extra.items():
        path = root / "app" / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return root


def diagnostics(result):
    return {(d["file"], d["code"]) for d in result.analyses["pk"]["diagnostics"]}


def assert_good_transaction_found(result):
    assert [t["function"] for t in result.analyses["pk"]["transactions"]] == ["app.services.touch"]


def test_syntax_error(tmp_path):
    result = scan(make_app(tmp_path, {"broken.py": "def f(:\n    pass\n"}), Config())
    assert ("app/broken.py", "parse-error") in diagnostics(result)
    assert_good_transaction_found(result)


def test_python2_file(tmp_path):
    result = scan(make_app(tmp_path, {"legacy.py": 'print "hello"\n'}), Config())
    assert ("app/legacy.py", "parse-error") in diagnostics(result)
    assert_good_transaction_found(result)


def test_undecodable_bytes(tmp_path):
    result = scan(make_app(tmp_path, {"latin.py": b"name = '\xff\xfe caf\xe9'\n"}), Config())
    messages = [d for d in result.analyses["pk"]["diagnostics"] if d["file"] == "app/latin.py"]
    assert messages and messages[0]["code"] == "decode-error" and "utf-8" in messages[0]["message"]
    assert_good_transaction_found(result)


def test_declared_encoding_is_honoured(tmp_path):
    source = "# -*- coding: latin-1 -*-\nname = 'caf\xe9'\n".encode("latin-1")
    result = scan(make_app(tmp_path, {"latin.py": source}), Config())
    assert not [d for d in result.analyses["pk"]["diagnostics"] if d["file"] == "app/latin.py"]


def test_huge_generated_file(tmp_path):
    huge = "".join(f"CONSTANT_{i} = {i}\n" for i in range(120_000))
    config = Config(max_file_bytes=1_000_000)
    result = scan(make_app(tmp_path, {"generated.py": huge}), config)
    assert ("app/generated.py", "too-large") in diagnostics(result)
    assert_good_transaction_found(result)


def test_unresolvable_import_and_unknown_call_inside_a_transaction(tmp_path):
    service = GOOD_SERVICE + """

from app.missing_module import mystery
from app import handlers


@transaction.atomic
def odd(account_id, kind):
    mystery(account_id)
    handlers.REGISTRY[kind](account_id)
    Account.objects.get(pk=account_id)
"""
    result = scan(make_app(tmp_path, {"services.py": service, "handlers.py": "REGISTRY = {}\n"}), Config())
    by_function = {t["function"]: t for t in result.analyses["pk"]["transactions"]}
    assert by_function["app.services.odd"]["statements"][0]["entity"] == "Account"
    codes = {d["code"] for d in result.analyses["pk"]["diagnostics"] if d["file"] == "app/services.py"}
    assert "unresolved-call" in codes


def test_deeply_nested_expression_does_not_crash(tmp_path):
    nested = "x = " + "(" * 400 + "1" + ")" * 400 + "\n"
    result = scan(make_app(tmp_path, {"nested.py": nested}), Config())
    assert_good_transaction_found(result)


def test_empty_folder(tmp_path):
    result = scan(tmp_path, Config(), "django")
    assert result.analyses["pk"]["transactions"] == []


def test_call_explosion_is_bounded(tmp_path, monkeypatch):
    """Every helper calls the next level's helpers several times: the walk must stop, not hang."""
    from analyzer.django import walker

    monkeypatch.setattr(walker, "CALL_BUDGET", 200)
    levels = []
    for level in range(6):
        callee = f"h{level + 1}" if level < 5 else None
        body = "\n".join(f"    {callee}(x)" for _ in range(5)) if callee else "    Account.objects.filter(pk=x).update(balance=0)"
        levels.append(f"def h{level}(x):\n{body}\n")
    service = GOOD_SERVICE + "\n\n" + "\n\n".join(levels) + "\n\n@transaction.atomic\ndef explode(x):\n    h0(x)\n"
    app = make_app(tmp_path, {"services.py": service})
    # Each call after the first of a helper repeats its first instance (one `repeat` step): the
    # 5**6 paths are 6 instances, the transaction is complete and the budget is not touched.
    result = scan(app, Config(depth=8))
    explode = {t["function"]: t for t in result.analyses["pk"]["transactions"]}["app.services.explode"]
    assert explode["complete"] and explode["interactivity"] == "one-shot"
    assert not any("calls followed" in d["message"] for d in result.analyses["pk"]["diagnostics"])
    # Copied at every call, the same helpers exceed the budget: the walk stops and says so.
    from analyzer.django import summaries

    monkeypatch.setattr(summaries, "REPEAT", False)
    result = scan(app, Config(depth=8))
    by_function = {t["function"]: t for t in result.analyses["pk"]["transactions"]}
    assert "app.services.explode" in by_function
    assert any("calls followed" in d["message"] for d in result.analyses["pk"]["diagnostics"])
