"""The boundaries' passes look only at the functions whose written calls or decorators can resolve
to atomic, a wrapper, method_decorator or set_autocommit (boundaries.ModuleUses): the wrappers and
the definitions listed must be those of looking at every function, and a module that uses none
of them must not have its functions' calls resolved."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.django import boundaries, orm_catalog
from analyzer.django.files import python_sources
from analyzer.django.index import RepoIndex
from analyzer.django.frontend import _package_prefix
from conftest import SAMPLES

FIXTURES = Path(__file__).parent / "fixtures" / "django"

# Every way a name reaches atomic that resolution knows: an alias, a function's own import, a
# star import re-exporting a wrapper, wrappers of wrappers, a decorator factory, a nested def, a
# qualified name two definitions share, a class under method_decorator; and modules using none.
PROJECT = {
    "shop/__init__.py": "",
    "shop/tx.py": (
        "from contextlib import contextmanager\n"
        "from django.db.transaction import atomic as a\n\n"
        "@contextmanager\n"
        "def locked():\n    with a():\n        yield\n\n"
        "def outer():\n    return locked()\n\n"
        "def retried(fn):\n    def inner(*args):\n        with a():\n            return fn(*args)\n    return inner\n\n"
        "def factory(n):\n    def deco(fn):\n        @a\n        def run(*args):\n            return fn(*args)\n"
        "        return run\n    return deco\n"
    ),
    "shop/reexport.py": "from shop.tx import *\n",
    "shop/services.py": (
        "from shop.reexport import locked, retried\n"
        "from shop import tx\n\n"
        "def pay():\n    with locked():\n        pass\n\n"
        "@retried\ndef refund():\n    pass\n\n"
        "def later():\n    from django.db import transaction\n    with transaction.atomic():\n        pass\n\n"
        "def manual():\n    from django.db import transaction\n    transaction.set_autocommit(False)\n\n"
        "if True:\n    def twice():\n        pass\nelse:\n    def twice():\n        with tx.outer():\n            pass\n"
    ),
    "shop/views.py": (
        "from django.db import transaction\n"
        "from django.utils.decorators import method_decorator\n\n"
        "@method_decorator(transaction.atomic, name='post')\nclass Checkout:\n    def post(self):\n        pass\n\n"
        "class Other:\n    @method_decorator(transaction.atomic)\n    def get(self):\n        pass\n"
    ),
    "shop/formatting.py": "def money(v):\n    return str(v)\n\ndef label(v):\n    return money(v).strip()\n",
}


class _EveryFunction(boundaries.ModuleUses):
    """The passes as they were before the shortcut: every function is looked at."""

    def may_use(self, fn, names, nested=False) -> bool:
        return True


class _Context:
    def __init__(self, index: RepoIndex, wrappers: dict) -> None:
        self.index, self.wrappers = index, wrappers


def _index(root: Path) -> RepoIndex:
    index = RepoIndex(_package_prefix(root))
    for source in python_sources(root, (), 1_500_000):
        if hasattr(source, "text"):
            index.add(source)
    return index


def _found(index: RepoIndex, uses: boundaries.ModuleUses) -> tuple[dict, list]:
    wrappers = boundaries.find_wrappers(index, uses)
    return wrappers, boundaries.candidates(_Context(index, wrappers), uses)


def _projects(tmp_path: Path) -> list[Path]:
    written = tmp_path / "shop_project"
    for rel, text in PROJECT.items():
        (written / rel).parent.mkdir(parents=True, exist_ok=True)
        (written / rel).write_text(text)
    return [written, *sorted(p for p in FIXTURES.iterdir() if p.is_dir()),
            *sorted(p for p in (SAMPLES / "django").iterdir() if p.is_dir())]


def test_the_shortcut_finds_what_looking_at_every_function_finds(tmp_path):
    checked = 0
    for root in _projects(tmp_path):
        index = _index(root)
        assert _found(index, boundaries.ModuleUses(index)) == _found(index, _EveryFunction(index)), root
        checked += 1
    assert checked > 10


def test_the_made_up_project_has_every_kind_of_wrapper_and_candidate(tmp_path):
    index = _index(_projects(tmp_path)[0])
    wrappers, listed = _found(index, boundaries.ModuleUses(index))
    assert wrappers == {"shop.tx.locked": "context", "shop.tx.outer": "context",
                        "shop.tx.retried": "decorator", "shop.tx.factory": "decorator"}
    assert [c[0] for c in listed] == ["shop.services.pay", "shop.services.refund", "shop.services.later",
                                      "shop.services.manual", "shop.services.twice", "shop.views.Checkout",
                                      "shop.views.Other.get"]


def test_a_function_that_can_use_a_name_is_never_skipped(tmp_path):
    names_tried = [set(orm_catalog.ATOMIC), {"shop.tx.locked"}, {"shop.tx.outer", "shop.tx.retried"},
                   orm_catalog.SET_AUTOCOMMIT | orm_catalog.METHOD_DECORATOR]
    for root in _projects(tmp_path):
        index = _index(root)
        uses = boundaries.ModuleUses(index)
        for fn in index.functions.values():
            used = index.call_targets(fn) | index.decorator_targets(fn)
            for names in names_tried:
                if used & names:
                    assert uses.may_use(fn, names), (fn.qualname, names)


class _Counting(RepoIndex):
    """An index that notes the functions whose calls were resolved."""

    def __init__(self, prefix: str) -> None:
        super().__init__(prefix)
        self.resolved_calls_of: set[str] = set()

    def call_targets(self, fn):
        self.resolved_calls_of.add(fn.qualname)
        return super().call_targets(fn)


def test_functions_of_a_module_using_no_transaction_are_not_resolved(tmp_path):
    root = _projects(tmp_path)[0]
    index = _Counting("")
    for source in python_sources(root, (), 1_500_000):
        index.add(source)
    _found(index, boundaries.ModuleUses(index))
    assert not {q for q in index.resolved_calls_of if q.startswith("shop.formatting.")}
    assert "shop.services.pay" in index.resolved_calls_of


@pytest.mark.parametrize("with_uses", [True, False])
def test_the_index_alone_is_enough(tmp_path, with_uses):
    """Callers that give no ModuleUses get the same answer (one is made)."""
    index = _index(_projects(tmp_path)[0])
    uses = boundaries.ModuleUses(index) if with_uses else None
    wrappers = boundaries.find_wrappers(index, uses)
    assert boundaries.candidates(_Context(index, wrappers), uses) == _found(index, _EveryFunction(index))[1]
