"""Decorators as written in real code: a trailing comment (`# noqa: TX101`, `# type: ignore`)
on the decorator line must not hide the transaction it opens."""

from __future__ import annotations

from analyzer.scan import scan

MODELS = """\
from django.db import models


class Wallet(models.Model):
    balance = models.IntegerField(default=0)
"""

SERVICES = """\
from django.db import transaction

from .models import Wallet


@transaction.atomic  # noqa: TX110 - the balance is checked by the caller
def top_up(wallet_id, amount):
    wallet = Wallet.objects.get(pk=wallet_id)
    wallet.balance += amount
    wallet.save()


@transaction.atomic(savepoint=False)  # type: ignore[misc]
def reset(wallet_id):
    Wallet.objects.filter(pk=wallet_id).update(balance=0)
"""


def test_a_comment_after_the_decorator_keeps_the_transaction(tmp_path):
    (tmp_path / "wallets").mkdir()
    (tmp_path / "wallets" / "__init__.py").write_text("")
    (tmp_path / "wallets" / "models.py").write_text(MODELS)
    (tmp_path / "wallets" / "services.py").write_text(SERVICES)
    result = scan(tmp_path, frontend="django", rewrites=False)
    found = {t["function"]: t for t in result.analyses["pk"]["transactions"]}
    assert set(found) == {"wallets.services.top_up", "wallets.services.reset"}
    assert [s["api"] for s in found["wallets.services.top_up"]["statements"]] == ["get", "save"]
    assert found["wallets.services.top_up"]["interactivity"] == "interactive-nonstrict"
    assert found["wallets.services.reset"]["boundary"] == "atomic-decorator"
