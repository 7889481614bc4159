"""What calls and decorators resolve to, kept per file in the warm cache (analyzer/cache/targets.py,
and the digest of the modules it stands on, DjangoReuse.modules_digest): a file's answers are
handed to the index only while its text and what the project shows to name resolution are as
then. Each answer handed over must be the one resolution gives now, and a warm scan's outputs
those of a scan without a cache, after each kind of edit."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import replace_once, write_files

from analyzer.cache import ScanCache
from analyzer.cache.django import DjangoReuse
from analyzer.config import load
from analyzer.django import frontend
from analyzer.django.index import RepoIndex
from analyzer.output import json_contract
from analyzer.scan import django_options, scan

FILES = {
    "manage.py": "",
    "app/__init__.py": "",
    "app/models.py": "from django.db import models\n\n\nclass Order(models.Model):\n    total = models.IntegerField()\n",
    # a wrapper of atomic, found by find_wrappers; views enter it under a name imported from here
    "app/db.py": "from django.db import transaction\nfrom django.db.transaction import atomic as tx\n\n\n"
                 "def in_transaction():\n    return transaction.atomic()\n",
    "app/views.py": "from .db import in_transaction, tx\nfrom .models import Order\n\n\n"
                    "def create(request):\n    with in_transaction():\n        Order.objects.create(total=1)\n\n\n"
                    "def update(request):\n    with tx():\n        order = Order.objects.get(pk=1)\n"
                    "        order.total = 2\n        order.save()\n",
    "app/other.py": "from .models import Order\n\n\ndef count():\n    return Order.objects.count()\n",
}


@pytest.fixture(autouse=True)
def _one_process(monkeypatch):
    monkeypatch.setenv("TXSCAN_HELPERS", "0")


def _kept_answers(root: Path, folder: Path, monkeypatch) -> tuple[dict, dict]:
    """(the answers the warm cache handed to the index, those resolution gives now for the same
    functions), each {(qualname, kind): sorted targets}; the cache file written for the next scan."""
    handed: dict = {}
    remember = RepoIndex.remember_targets

    def recorded(index, fn, kind, found):
        handed[(fn.qualname, kind)] = (fn, sorted(found))
        remember(index, fn, kind, found)

    monkeypatch.setattr(RepoIndex, "remember_targets", recorded)
    cache = ScanCache(folder)
    reuse = DjangoReuse(cache.tables("django"))
    frontend.scan(root, django_options(load(root)), reuse)
    cache.keep("django", reuse.written)
    monkeypatch.setattr(RepoIndex, "remember_targets", remember)
    index = reuse.context.index
    index.forget_targets()
    fresh = {key: sorted(index.call_targets(fn) if key[1] == "calls" else index.decorator_targets(fn))
             for key, (fn, _found) in handed.items()}
    return {key: found for key, (_fn, found) in handed.items()}, fresh


def _documents(root: Path, cache: ScanCache | None) -> str:
    result = scan(root, load(root), cache=cache)
    return "".join(json_contract.dumps(json_contract.document(result.analyses[mode], root.name, result.lines,
                                                              len(result.files))) for mode in ("pk", "auto"))


def test_kept_answers_are_those_resolution_gives_after_each_edit(tmp_path, monkeypatch):
    root = write_files(tmp_path / "project", FILES)
    folder = tmp_path / "cache"
    handed, fresh = _kept_answers(root, folder, monkeypatch)
    assert handed == {}  # nothing kept yet
    handed, fresh = _kept_answers(root, folder, monkeypatch)
    assert handed == fresh and "django.db.transaction.atomic" in handed[("app.views.update", "calls")]
    assert handed[("app.views.create", "calls")] == ["app.db.in_transaction", "app.models.Order.objects.create"]
    # A comment in one file: the others' answers are kept, the edited file's worked out again.
    replace_once(root / "app" / "other.py", "def count():\n", "def count():\n    # counted\n")
    handed, fresh = _kept_answers(root, folder, monkeypatch)
    assert handed == fresh and ("app.views.update", "calls") in handed
    assert ("app.other.count", "calls") not in handed
    # What `tx` names changes in db.py alone: views.py's text is the same, its answers are not.
    replace_once(root / "app" / "db.py", "from django.db.transaction import atomic as tx",
                 "from contextlib import nullcontext as tx")
    handed, fresh = _kept_answers(root, folder, monkeypatch)
    assert handed == fresh and ("app.views.update", "calls") not in handed
    handed, fresh = _kept_answers(root, folder, monkeypatch)
    assert handed == fresh and handed[("app.views.create", "calls")] == [
        "app.db.in_transaction", "app.models.Order.objects.create"]
    # update's texts now name no transaction: the boundaries' passes never resolved its calls
    # (boundaries.ModuleUses), so there was nothing to keep.
    assert ("app.views.update", "calls") not in handed


def test_warm_scans_give_a_cold_scans_outputs_when_what_a_call_names_changes_elsewhere(tmp_path):
    root = write_files(tmp_path / "project", FILES)
    cache = ScanCache(tmp_path / "cache")
    assert _documents(root, cache) == _documents(root, None)
    assert '"function": "app.views.update"' in _documents(root, cache)
    # `tx` no longer enters a transaction: update's boundary is gone, in the warm scan too
    replace_once(root / "app" / "db.py", "from django.db.transaction import atomic as tx",
                 "from contextlib import nullcontext as tx")
    warm = _documents(root, cache)
    assert warm == _documents(root, None) and '"function": "app.views.update"' not in warm.split('"boundary": "autocommit"')[0]
    # the wrapper stops entering atomic: create's boundary is gone too
    replace_once(root / "app" / "db.py", "    return transaction.atomic()", "    return None")
    assert _documents(root, cache) == _documents(root, None)
    # and comes back, found through a wrapper of the wrapper in another file
    replace_once(root / "app" / "db.py", "    return None", "    return transaction.atomic()")
    replace_once(root / "app" / "other.py", "from .models import Order\n",
                 "from .db import in_transaction\nfrom .models import Order\n\n\n"
                 "def outer():\n    return in_transaction()\n")
    assert _documents(root, cache) == _documents(root, None)


def test_the_kept_modules_digest_is_the_one_worked_out_after_each_edit(tmp_path):
    """DjangoReuse.modules_digest: kept under the modules' shapes and imports, equal to the digest
    worked out from the visible imports; an import another module reads changes it, one no other
    module reads does not."""
    root = write_files(tmp_path / "project", FILES)
    folder = tmp_path / "cache"

    def digests() -> tuple[str, str, bool]:
        cache = ScanCache(folder)
        reuse = DjangoReuse(cache.tables("django"))
        frontend.scan(root, django_options(load(root)), reuse)
        cache.keep("django", reuse.written)
        index = reuse.context.index
        fresh = DjangoReuse({})
        fresh.written["files"] = reuse.written["files"]
        return reuse.modules_digest(index), fresh.modules_digest(index), bool(reuse.old.get("module_facts"))

    kept, worked_out, _ = digests()
    assert kept == worked_out
    first = kept
    kept, worked_out, read = digests()
    assert read and kept == worked_out == first
    replace_once(root / "app" / "other.py", "from .models import Order\n", "import json\nfrom .models import Order\n")
    kept, worked_out, _ = digests()
    assert kept == worked_out == first  # nobody reads other.py's imports
    replace_once(root / "app" / "db.py", "from django.db.transaction import atomic as tx",
                 "from contextlib import nullcontext as tx")
    kept, worked_out, _ = digests()
    assert kept == worked_out != first  # views.py imports tx from db.py
