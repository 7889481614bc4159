"""The index remembers its answers (resolved names, class bases, MROs, the call graph) and forgets
them when a module is added; a scan pauses the garbage collector and gives it back as it was."""

from __future__ import annotations

import gc
from pathlib import Path

from analyzer.django.files import SourceFile
from analyzer.django.index import RepoIndex
from analyzer.process import LARGE_HEAP_THRESHOLDS
from analyzer import scan as scan_module
from analyzer.scan import scan
from conftest import SAMPLES


def source(rel: str, text: str) -> SourceFile:
    return SourceFile(Path("/app") / rel, rel, text, text.count("\n") + 1)


def test_a_module_added_later_changes_the_remembered_answers():
    index = RepoIndex()
    index.add(source("shop/views.py", "from shop.services import place_order\n"
                                      "from shop.base import Base\n"
                                      "class View(Base):\n    def get(self):\n        place_order()\n"))
    assert index.resolve("shop.views", "place_order") == "shop.services.place_order"
    assert index.class_bases(index.cls("shop.views.View")) == ["shop.base.Base"]
    mro = index.mro("shop.views.View")
    assert [c.qualname for c in mro] == ["shop.views.View"]  # shop.base is not indexed yet
    mro.clear()  # a caller's own list: the remembered answer stays
    assert [c.qualname for c in index.mro("shop.views.View")] == ["shop.views.View"]
    assert "shop.views.View.get" in index.call_graph()
    assert list(index.call_graph().predecessors("shop.views.View.get")) == []
    # `shop.services` re-exports the function from a module added now: the old answers are stale.
    index.add(source("shop/services/__init__.py", "from .checkout import place_order\n"))
    index.add(source("shop/services/checkout.py", "def place_order():\n    pass\n"))
    index.add(source("shop/base.py", "from shop.mixins import Base\n"))
    index.add(source("shop/mixins.py", "class Base:\n    pass\n"))
    assert index.resolve("shop.views", "place_order") == "shop.services.checkout.place_order"
    assert index.class_bases(index.cls("shop.views.View")) == ["shop.mixins.Base"]
    assert [c.qualname for c in index.mro("shop.views.View")] == ["shop.views.View", "shop.mixins.Base"]
    assert list(index.call_graph().predecessors("shop.services.checkout.place_order")) == ["shop.views.View.get"]


def test_callers_are_listed_in_the_order_their_calls_were_indexed():
    index = RepoIndex()
    index.add(source("m.py", "def target():\n    pass\n\ndef b():\n    target()\n\ndef a():\n    target()\n"
                             "\nclass Thing:\n    def __init__(self):\n        pass\n\ndef make():\n    Thing()\n"))
    graph = index.call_graph()
    assert list(graph.predecessors("m.target")) == ["m.b", "m.a"]
    assert list(graph.predecessors("m.Thing.__init__")) == ["m.make"]  # a class call reaches __init__
    assert "m.nowhere" not in graph


def test_a_scan_gives_the_collector_back_as_it_found_it(monkeypatch):
    gc.enable()
    frozen, pace = gc.get_freeze_count(), gc.get_threshold()
    seen = []
    inner = scan_module._scan

    def observed(*args, **kwargs):  # the pace the scan's own work runs at
        seen.append((gc.isenabled(), gc.get_threshold()))
        return inner(*args, **kwargs)

    monkeypatch.setattr(scan_module, "_scan", observed)
    first = scan(SAMPLES / "django" / "shop", rewrites=False)
    assert seen == [(True, LARGE_HEAP_THRESHOLDS)]  # collecting, at the rare pace
    assert gc.isenabled() and gc.get_freeze_count() == frozen and gc.get_threshold() == pace
    gc.disable()
    try:
        second = scan(SAMPLES / "django" / "shop", rewrites=False)
        assert not gc.isenabled()  # a caller that paused it keeps it paused
    finally:
        gc.enable()
    assert first.ir_text == second.ir_text and first.analyses == second.analyses


def test_forgotten_call_targets_are_worked_out_again_the_same():
    """The scan drops the remembered callees and decorators once boundaries are found (memory);
    asked again (a rewrite's re-analysis, a later pass), they come back as they were."""
    index = RepoIndex()
    index.add(source("shop/services.py", "from django.db import transaction\nfrom shop.mail import send\n"
                                         "@transaction.atomic\ndef place_order():\n    send()\n"))
    fn = index.function("shop.services.place_order")
    calls, decorators = set(index.call_targets(fn)), set(index.decorator_targets(fn))
    assert calls == {"shop.mail.send"} and decorators == {"django.db.transaction.atomic"}
    index.forget_targets()
    assert index.call_targets(fn) == calls and index.decorator_targets(fn) == decorators
