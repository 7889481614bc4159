"""A small Django project written per test, scanned for real, and its rewrites verified for real
(re-analysis of a rewritten copy), in the before/after style of LibCST's CodemodTest."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

from analyzer.config import Config
from analyzer.rewrite import apply, verified_candidates
from analyzer.scan import scan

MODELS = """\
from django.db import models


class Customer(models.Model):
    email = models.EmailField(unique=True)
    credit = models.IntegerField(default=0)


class Account(models.Model):
    number = models.CharField(max_length=20, unique=True)
    balance = models.IntegerField(default=0)
    owner = models.ForeignKey(Customer, on_delete=models.CASCADE)


class Stamped(models.Model):
    count = models.IntegerField(default=0)
    modified = models.DateTimeField(auto_now=True)
"""

TASKS = """\
from celery import shared_task


@shared_task
def audit(account_id):
    return account_id
"""

# Two transactions of one module, each calling a Celery task inside the transaction.
TWO_TRANSACTIONS = """\
    from django.db import transaction

    from bank.models import Account, Customer
    from bank.tasks import audit


    @transaction.atomic
    def rename(account_id, number):
        Account.objects.filter(pk=account_id).update(number=number)
        audit.delay(account_id)


    @transaction.atomic
    def credit(customer_id, amount):
        Customer.objects.filter(pk=customer_id).update(credit=amount)
        audit.delay(customer_id)
"""


class Project:
    def __init__(self, root: Path):
        self.root = root

    @property
    def services(self) -> str:
        return (self.root / "bank" / "services.py").read_text("utf-8")

    def candidates(self):
        result = scan(self.root, Config(), "django", rewrites=False)
        return result, verified_candidates(self.root, result, Config())

    def only(self, kind: str):
        """The one candidate of `kind` (a rewrite, verified or not, or a refusal)."""
        _result, found = self.candidates()
        matching = [c for c in found if c.rewrite is not None and c.rewrite.kind == kind or
                    c.rewrite is None and c.suggestion[0] == _SUGGESTION[kind][0]
                    and c.suggestion[1] == _SUGGESTION[kind][1]]
        assert len(matching) == 1, [(c.suggestion, c.refused) for c in found]
        return matching[0]

    def rewritten(self, kind: str) -> tuple[str, object]:
        candidate = self.only(kind)
        assert candidate.rewrite is not None and candidate.rewrite.verified, candidate.refused
        return apply(self.services, candidate.rewrite.edits), candidate


_SUGGESTION = {"on-commit": ("on-commit", None), "f-expression": ("one-shot", "read-modify-write")}


def write(tmp_path: Path, services: str, models: str = MODELS) -> Project:
    root = tmp_path / "bankapp"
    (root / "bank").mkdir(parents=True)
    (root / "manage.py").write_text("")
    (root / "bank" / "__init__.py").write_text("")
    (root / "bank" / "models.py").write_text(models)
    (root / "bank" / "tasks.py").write_text(TASKS)
    (root / "bank" / "services.py").write_text(dedent(services))
    return Project(root)
