"""A registry filled at import time decides `row._meta.model in REGISTRY` (analyzer/django/registries.py).

A project-wide post_save receiver queues a task only for models registered with a dispatcher:
saving a model nobody registers must not report the task, saving a registered one must; when
the registry's content cannot be known (registered from inside a function), both report it.
"""

from __future__ import annotations

from pathlib import Path

from analyzer.config import Config
from analyzer.scan import scan

MODELS = """\
from django.db import models


class Account(models.Model):
    balance = models.IntegerField(default=0)


class Audit(models.Model):
    note = models.CharField(max_length=50)
"""

REGISTRY = """\
handler_registry = {}


def register_handler(handler_cls):
    model = handler_cls.model
    handler_registry[model] = handler_cls()


def handler_exists(instance):
    return instance._meta.model in handler_registry.keys()
"""

HANDLERS = """\
from . import registry
from .models import Audit


class AuditHandler:
    model = Audit


registry.register_handler(AuditHandler)
"""

HANDLERS_AT_RUN_TIME = HANDLERS.replace("registry.register_handler(AuditHandler)",
                                        "def setup():\n    registry.register_handler(AuditHandler)")

SIGNALS = """\
from celery import shared_task
from django.db.models.signals import post_save
from django.dispatch import receiver

from . import registry


@shared_task
def notify(pk):
    pass


def call_handler(instance):
    if registry.handler_exists(instance):
        notify.delay(instance.pk)


@receiver(post_save)
def post_save_callback(**kwargs):
    instance = kwargs.get("instance")
    if not instance:
        return
    call_handler(instance)
"""

SERVICES = """\
from django.db import transaction

from .models import Account, Audit


def save_account(pk):
    with transaction.atomic():
        account = Account.objects.select_for_update().get(pk=pk)
        account.balance = 1
        account.save()


def save_audit(pk):
    with transaction.atomic():
        audit = Audit.objects.select_for_update().get(pk=pk)
        audit.note = "seen"
        audit.save()
"""


def make_app(root: Path, handlers: str) -> Path:
    (root / "bank").mkdir(parents=True)
    files = {"__init__.py": "", "models.py": MODELS, "registry.py": REGISTRY, "handlers.py": handlers,
             "signals.py": SIGNALS, "services.py": SERVICES}
    for name, text in files.items():
        (root / "bank" / name).write_text(text)
    return root


def verdicts(root: Path) -> dict[str, tuple[str, list[str]]]:
    result = scan(root, Config(depth=12), "django")
    return {t["function"].rsplit(".", 1)[-1]: (t["interactivity"], [r.get("category") for r in t["reasons"]])
            for t in result.analyses["pk"]["transactions"] if t["function"].startswith("bank.services.")}


def test_a_model_no_module_registers_queues_nothing(tmp_path):
    found = verdicts(make_app(tmp_path, HANDLERS))
    assert found["save_account"][0] == "interactive-nonstrict"
    assert "queue" not in found["save_account"][1]
    assert found["save_audit"][0] == "interactive-strict"
    assert "queue" in found["save_audit"][1]


def test_a_registry_filled_at_run_time_stays_unknown(tmp_path):
    found = verdicts(make_app(tmp_path, HANDLERS_AT_RUN_TIME))
    assert found["save_account"][0] == found["save_audit"][0] == "interactive-strict"
    assert "queue" in found["save_account"][1]


KEYWORDS = """\
from django.db import transaction

from .models import Account, Audit


def touch(**kwargs):
    row = kwargs.get("row")
    other = kwargs.get("other")
    if other is not None:
        Audit.objects.create(note="other")
    row.save()


def update(pk):
    with transaction.atomic():
        account = Account.objects.get(pk=pk)
        touch(row=account)
"""


def test_keyword_arguments_keep_their_rows_and_a_missing_one_is_none(tmp_path):
    """`**kwargs` holding a row: `kwargs.get("row")` is that row (its save is a write of it),
    `kwargs.get("other")`, not passed, is None (the branch on it folds away)."""
    make_app(tmp_path, HANDLERS)
    (tmp_path / "bank" / "keywords.py").write_text(KEYWORDS)
    result = scan(tmp_path, Config(), "django")
    txn = next(t for t in result.analyses["pk"]["transactions"] if t["function"] == "bank.keywords.update")
    assert [(s["entity"], s["kind"]) for s in txn["statements"]] == [("Account", "read"), ("Account", "write")]
