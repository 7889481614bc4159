"""What a transaction's callers pass, kept across scans (analyzer/cache/caller_arguments.py).

A transaction walked again after an edit takes the answer of its caller walks from the warm cache
when nothing those walks read changed (definitions that only moved included), and walks its
callers again otherwise. Every scan here is compared with a scan without a cache, and each test
says whether the kept answer was taken, so that one silently never taken (or taken when it must
not be) fails.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ir_statements, replace_once

from analyzer.cache import ScanCache, cachefile
from analyzer.cache import caller_arguments as kept_callers
from analyzer.cache.django import DjangoReuse
from analyzer.config import load
from analyzer.output import json_contract
from analyzer.scan import scan


SAVE_ALL, FORWARD = "app.helpers.save_all", "app.views.forward"


def _project(root: Path) -> None:
    """`save_all` saves what its callers pass; `place` passes what `make_orders` (a helper the
    caller walk follows) builds, `place_lines` goes through `forward`, whose own callers are
    asked in turn. `audit` is reached by the transaction's walk, never by the caller walks."""
    (root / "app").mkdir(parents=True)
    (root / "manage.py").write_text("")
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "models.py").write_text(
        "from django.db import models\n\n\nclass Order(models.Model):\n    total = models.IntegerField()\n\n\n"
        "class Invoice(models.Model):\n    number = models.IntegerField()\n\n\n"
        "class Line(models.Model):\n    amount = models.IntegerField()\n\n\n"
        "class Audit(models.Model):\n    note = models.IntegerField()\n")
    (root / "app" / "audit.py").write_text(
        "from .models import Audit\n\n\ndef audit():\n    Audit.objects.create(note=1)\n")
    (root / "app" / "helpers.py").write_text(
        "from django.db import transaction\n\nfrom .audit import audit\n\n\n@transaction.atomic\n"
        "def save_all(instances):\n    for item in instances:\n        item.save()\n    audit()\n")
    (root / "app" / "factory.py").write_text(
        "from .models import Order\n\n\ndef make_orders():\n    return [Order(total=1)]\n")
    (root / "app" / "views.py").write_text(
        "from .factory import make_orders\nfrom .helpers import save_all\nfrom .models import Line\n\n\n"
        "def place(request):\n    save_all(make_orders())\n\n\n"
        "def forward(items):\n    save_all(items)\n\n\n"
        "def place_lines(request):\n    forward([Line(amount=1)])\n")


def _scan(root: Path, cache: ScanCache | None) -> tuple[str, str, list]:
    """(JSON contract of both CDA modes, IR, the functions whose kept callers' answer was taken)."""
    taken = []
    real = DjangoReuse.kept_caller_arguments

    def counted(self, *args):
        found = real(self, *args)
        if found is not None:
            taken.append(args[0])
        return found

    DjangoReuse.kept_caller_arguments = counted
    try:
        result = scan(root, load(root), cache=cache)
    finally:
        DjangoReuse.kept_caller_arguments = real
    documents = "".join(json_contract.dumps(json_contract.document(result.analyses[mode], root.name, result.lines,
                                                                   len(result.files))) for mode in ("pk", "auto"))
    return documents, result.ir_text, sorted(taken)


def _saved(ir_text: str) -> list[str]:
    txn = next(json.loads(line) for line in ir_text.splitlines()
               if '"type": "transaction"' in line and '"app/helpers.py:' in line)
    return sorted({s["entity"] for s in ir_statements(txn["steps"])})


def _warm_equals_cold(root: Path, folder: Path) -> list:
    """Scan with the cache and without; assert the same outputs; return the answers taken."""
    documents, ir_text, taken = _scan(root, ScanCache(folder))
    assert (documents, ir_text) == _scan(root, None)[:2]
    return taken


def test_an_edit_the_caller_walks_never_read_takes_their_kept_answer(tmp_path):
    root, folder = tmp_path / "project", tmp_path / "cache"
    _project(root)
    cold = _scan(root, ScanCache(folder))
    assert cold[2] == [] and _saved(cold[1]) == ["Audit", "Line", "Order"]
    assert len(cachefile.load(folder, "django")[kept_callers.TABLE]) >= 2  # save_all's and forward's
    replace_once(root / "app" / "audit.py", "    Audit.objects.create(note=1)\n",
                 "    Audit.objects.create(note=1)\n    Audit.objects.create(note=2)\n")
    assert _warm_equals_cold(root, folder) == [SAVE_ALL]


def test_a_kept_answer_is_not_taken_when_a_definition_its_walks_read_changed(tmp_path):
    root, folder = tmp_path / "project", tmp_path / "cache"
    _project(root)
    _scan(root, ScanCache(folder))
    replace_once(root / "app" / "factory.py", "from .models import Order\n", "from .models import Invoice, Order\n")
    replace_once(root / "app" / "factory.py", "    return [Order(total=1)]", "    return [Invoice(number=1)]")
    assert _warm_equals_cold(root, folder) == [FORWARD]  # forward's callers' answer read nothing changed
    assert _saved(_scan(root, None)[1]) == ["Audit", "Invoice", "Line"]


def test_a_kept_answer_is_taken_when_the_definitions_it_read_only_moved(tmp_path):
    root, folder = tmp_path / "project", tmp_path / "cache"
    _project(root)
    _scan(root, ScanCache(folder))
    views = root / "app" / "views.py"
    views.write_text("# a line above every caller moves them\n" + views.read_text())
    replace_once(root / "app" / "audit.py", "    Audit.objects.create(note=1)\n",
                 "    Audit.objects.create(note=1)\n    Audit.objects.create(note=2)\n")
    assert _warm_equals_cold(root, folder) == [SAVE_ALL]
    # and kept at the lines they moved to: the next edit takes it again, without a move
    replace_once(root / "app" / "audit.py", "note=2)", "note=3)")
    assert _warm_equals_cold(root, folder) == [SAVE_ALL]


def test_a_caller_of_a_caller_added_in_another_file_is_walked(tmp_path):
    """`forward` passes its own parameter: its callers are asked too. A new caller of it, in a
    file no walk read, changes what `save_all` saves, whether the answer was worked out earlier
    in the scan or kept from the last one."""
    root, folder = tmp_path / "project", tmp_path / "cache"
    _project(root)
    _scan(root, ScanCache(folder))
    (root / "app" / "billing.py").write_text(
        "from .models import Invoice\nfrom .views import forward\n\n\n"
        "def bill(request):\n    forward([Invoice(number=2)])\n")
    assert _warm_equals_cold(root, folder) == []
    assert _saved(_scan(root, None)[1]) == ["Audit", "Invoice", "Line", "Order"]
    replace_once(root / "app" / "audit.py", "    Audit.objects.create(note=1)\n",
                 "    Audit.objects.create(note=1)\n    Audit.objects.create(note=2)\n")
    assert _warm_equals_cold(root, folder) == [SAVE_ALL]


def test_switched_off_the_kept_answers_give_the_same_outputs(tmp_path, monkeypatch):
    root, folder = tmp_path / "project", tmp_path / "cache"
    _project(root)
    _scan(root, ScanCache(folder))
    replace_once(root / "app" / "audit.py", "note=1)", "note=5)")
    taken = _scan(root, ScanCache(folder, frozen=True))
    monkeypatch.setattr(kept_callers, "TAKE_KEPT", False)
    walked = _scan(root, ScanCache(folder, frozen=True))
    assert taken[:2] == walked[:2] and taken[2] == [SAVE_ALL] and walked[2] == []
