"""The call graph's edges kept in the warm cache (analyzer/cache/django.py, `call_edges`): a
file's edges are taken from the last scan only while its text and the project-wide facts are
as then, and the graph built from them is the one worked out from the index, edge for edge
and in the same order, after each kind of edit."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import replace_once, write_files

from analyzer.cache import ScanCache
from analyzer.cache.django import DjangoReuse
from analyzer.config import load
from analyzer.django import frontend
from analyzer.scan import django_options

FILES = {
    "manage.py": "",
    "app/__init__.py": "",
    "app/models.py": "from django.db import models\n\n\nclass Order(models.Model):\n    total = models.IntegerField()\n\n\n"
                     "class Invoice(models.Model):\n    number = models.IntegerField()\n",
    "app/helpers.py": "def save_all(items):\n    for item in items:\n        item.save()\n\n\n"
                      "class Maker:\n    def __init__(self, order):\n        save_all([order])\n",
    "app/views.py": "from .helpers import Maker, save_all\nfrom .models import Order\n\n\n"
                    "def create(request):\n    save_all([Order(total=1)])\n    return Maker(Order(total=2))\n",
    "app/billing.py": "from .models import Invoice\n\n\ndef bill():\n    return Invoice(number=2)\n",
}


@pytest.fixture(autouse=True)
def _one_process(monkeypatch):
    monkeypatch.setenv("TXSCAN_HELPERS", "0")


def _project(root: Path) -> Path:
    return write_files(root, FILES)


def _graph(index) -> list[tuple[str, list[str]]]:
    graph = index.call_graph()
    return [(name, list(graph.predecessors(name))) for name in graph._callers]


def _scan(root: Path, folder: Path) -> tuple[list, list, int]:
    """(the call graph with the cache's edges, the one worked out from the index, how many
    functions' edges were taken from the cache); the cache file is written for the next scan."""
    cache = ScanCache(folder)
    reuse = DjangoReuse(cache.tables("django"))
    frontend.scan(root, django_options(load(root)), reuse)
    index = reuse.context.index
    taken = []
    kept = index.kept_edges

    def counted(fn):
        found = kept(fn)
        if found is not None:
            taken.append(fn.qualname)
        return found

    index.kept_edges = counted
    index._call_graph = None
    warm = _graph(index)
    cache.keep("django", reuse.written)
    index.kept_edges = index.made_edges = None
    index._call_graph = None
    return warm, _graph(index), len(taken)


def test_kept_edges_give_the_graph_worked_out_from_the_index_after_each_edit(tmp_path):
    root = _project(tmp_path / "project")
    folder = tmp_path / "cache"
    warm, fresh, taken = _scan(root, folder)
    assert warm == fresh and taken == 0  # nothing kept yet
    warm, fresh, taken = _scan(root, folder)
    assert warm == fresh and taken == len(fresh)  # nothing changed: every function's edges kept
    assert ("app.helpers.save_all", ["app.helpers.Maker.__init__", "app.views.create"]) in fresh
    # A caller added in another file (its own file changed, the others' edges kept).
    replace_once(root / "app" / "billing.py", "from .models import Invoice\n",
                 "from .helpers import save_all\nfrom .models import Invoice\n")
    replace_once(root / "app" / "billing.py", "    return Invoice(number=2)", "    save_all([Invoice(number=2)])")
    warm, fresh, taken = _scan(root, folder)
    assert warm == fresh and 0 < taken < len(fresh)
    assert "app.billing.bill" in dict(fresh)["app.helpers.save_all"]
    # The class a call names loses its __init__ (a project-wide fact: nothing kept), then a
    # function moves to another module (the callers' text is unchanged, their targets are not).
    replace_once(root / "app" / "helpers.py", "    def __init__(self, order):", "    def start(self, order):")
    warm, fresh, taken = _scan(root, folder)
    assert warm == fresh and taken == 0
    assert "app.views.create" not in dict(fresh).get("app.helpers.Maker.start", [])
    _scan(root, folder)
    (root / "app" / "savers.py").write_text("def save_all(items):\n    for item in items:\n        item.save()\n")
    replace_once(root / "app" / "helpers.py", "def save_all(items):\n    for item in items:\n        item.save()\n",
                 "from .savers import save_all\n")
    warm, fresh, taken = _scan(root, folder)
    assert warm == fresh and dict(fresh)["app.savers.save_all"]
    assert "app.helpers.save_all" not in dict(fresh)


def test_kept_edges_are_decoded_only_when_the_graph_is_built_and_a_damaged_entry_is_made_again(tmp_path, capsys):
    root = _project(tmp_path / "project")
    folder = tmp_path / "cache"
    _scan(root, folder)
    # A scan starting decodes none of the kept edges (asking whether a table holds a key must
    # not decode its entry): only building the graph does.
    cache = ScanCache(folder)
    reuse = DjangoReuse(cache.tables("django"))
    frontend.scan(root, django_options(load(root)), reuse)
    kept = reuse.old["call_edges"]
    assert len(kept) and all(kept.decoded(key) is None for key in kept)
    # A damaged entry (the helpers' file) is carried over unread by a scan that does not build
    # the graph; the one building it finds it damaged and works the file's edges out again.
    path = folder / "django.json"
    lines = path.read_text().split("\n")
    damaged = [n for n, line in enumerate(lines) if line.startswith("call_edges\t") and "app/helpers.py" in line]
    assert len(damaged) == 1
    lines[damaged[0]] = lines[damaged[0]][:-1]  # the entry's closing brace cut
    path.write_text("\n".join(lines))
    warm, fresh, taken = _scan(root, folder)
    assert warm == fresh and 0 < taken < len(fresh)
    assert "is damaged" in capsys.readouterr().err
    warm, fresh, taken = _scan(root, folder)
    assert warm == fresh and taken == len(fresh)
