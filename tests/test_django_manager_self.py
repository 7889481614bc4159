"""A transaction in a custom Manager or QuerySet method: `self` is the rows of the one model the
class serves (transactions._managed_entity); a class two models share names no model, and the
transaction says what it could not see instead of guessing one."""

from __future__ import annotations

from analyzer.config import load
from analyzer.scan import scan
from conftest import django_project

MODELS = """from django.db import models, transaction


class ArchivableQuerySet(models.QuerySet):
    @transaction.atomic
    def archive(self):
        self.update(name="archived")


class TicketManager(models.Manager):
    @transaction.atomic
    def purge(self, name):
        self.filter(name=name).delete()


class Note(models.Model):
    name = models.CharField(max_length=20)
    objects = ArchivableQuerySet.as_manager()


class Memo(models.Model):
    name = models.CharField(max_length=20)
    objects = ArchivableQuerySet.as_manager()


class Ticket(models.Model):
    name = models.CharField(max_length=20)
    objects = TicketManager()
"""


def _transactions(tmp_path) -> dict[str, dict]:
    root = django_project(tmp_path / "project", "app", "Unused", {"models.py": MODELS})
    result = scan(root, load(root), rewrites=False)
    return {record["function"]: record for record in result.records if record["type"] == "transaction"}


def test_a_manager_of_one_model_walks_self_as_that_models_rows(tmp_path):
    purge = _transactions(tmp_path)["app.models.TicketManager.purge"]
    assert [(step["node"], step["kind"], step["entity"]) for step in purge["steps"]] == [("statement", "delete", "Ticket")]


def test_a_queryset_two_models_share_is_no_models_rows_and_says_so(tmp_path):
    archive = _transactions(tmp_path)["app.models.ArchivableQuerySet.archive"]
    assert [(step["node"], step["callee"], step["reason"]) for step in archive["steps"]] == [
        ("unresolved", "self.update", "no-definition")]
