"""A transaction module imported inside the function that opens the transaction (to break an
import cycle, or lazily) still opens a transaction."""

from __future__ import annotations

from analyzer.scan import scan

MODELS = """\
from django.db import models


class Snapshot(models.Model):
    url = models.URLField(unique=True)
    title = models.CharField(max_length=200)
"""

SERVICES = """\
def retitle(pk, title):
    from django.db import transaction

    from .models import Snapshot

    with transaction.atomic():
        snap = Snapshot.objects.get(pk=pk)
        snap.title = title
        snap.save()

"""


def test_a_function_local_transaction_import_opens_a_transaction(tmp_path):
    (tmp_path / "archive").mkdir()
    (tmp_path / "archive" / "__init__.py").write_text("")
    (tmp_path / "archive" / "models.py").write_text(MODELS)
    (tmp_path / "archive" / "services.py").write_text(SERVICES)
    result = scan(tmp_path, frontend="django", rewrites=False)
    found = {t["function"]: t for t in result.analyses["pk"]["transactions"]}
    assert "archive.services.retitle" in found, sorted(found)
    assert [s["api"] for s in found["archive.services.retitle"]["statements"]] == ["get", "save"]
    assert found["archive.services.retitle"]["boundary"] == "atomic-context"
