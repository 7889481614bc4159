"""Re-analysis of a round's edits takes the scan's call graph where building it again would give
the same graph (analyzer/rewrite/call_graph_reuse.py): the graph taken must be the one built from
scratch for the edited files, and an edit that changes an edge, a name's resolution or the
functions gets a graph of its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from django_projects import TWO_TRANSACTIONS, write

from analyzer import forked
from analyzer.cache import ScanCache
from analyzer.config import Config
from analyzer.django.files import SourceFile
from analyzer.django.index import RepoIndex
from analyzer.rewrite import apply, django_reanalysis
from analyzer.rewrite.call_graph_reuse import same_call_graph
from analyzer.rewrite.edits import edits_by_path
from analyzer.rewrite.plan import candidates
from analyzer.scan import scan

FILES = {
    "shop/helpers.py": "def audit(pk):\n    return pk\n\ndef other(pk):\n    return pk\n\nclass Row:\n"
                       "    def __init__(self, pk):\n        self.pk = pk\n",
    "shop/services.py": "from shop.helpers import audit, other, Row\nfrom shop import helpers\n\n"
                        "def pay(pk):\n    audit(pk)\n    send(pk)\n    return Row(pk)\n\n"
                        "def refund(pk):\n    helpers.audit(pk)\n",
    "shop/views.py": "from shop.services import pay\n\ndef view(request):\n    return pay(1)\n",
}


def _source(rel: str, text: str) -> SourceFile:
    return SourceFile(Path("/app") / rel, rel, text, text.count("\n") + 1)


def _indexes(services: str) -> tuple[RepoIndex, RepoIndex]:
    """The scan's index (its graph built), and the index of the same files with shop/services.py
    holding `services`: the other modules' facts are the scan's own objects, as in re-analysis."""
    scan_index, edited = RepoIndex(), RepoIndex()
    for rel, text in FILES.items():
        info = scan_index.add(_source(rel, text))
        if rel == "shop/services.py":
            edited.add(_source(rel, services))
        else:
            edited.add_info(info)
    scan_index.call_graph()
    return scan_index, edited


def _edges(graph) -> list:
    return [(node, list(graph.predecessors(node))) for node in graph._callers]


@pytest.mark.parametrize("services", [
    # on_commit around a call, a line added above, the same callee written through its module
    FILES["shop/services.py"].replace("    send(pk)\n", "    transaction.on_commit(lambda: send(pk))\n"),
    FILES["shop/services.py"].replace("def pay(pk):\n", "# moved\ndef pay(pk):\n"),
    FILES["shop/services.py"].replace("    audit(pk)\n    send", "    helpers.audit(pk)\n    send"),
    FILES["shop/services.py"].replace("    send(pk)\n", "    send(pk)\n    audit(pk)\n"),
], ids=["on-commit", "lines-moved", "same-callee", "callee-again"])
def test_the_scan_graph_is_taken_where_it_is_the_graph_built_again(services):
    scan_index, edited = _indexes(services)
    taken = same_call_graph(scan_index, edited)
    assert taken is scan_index.built_call_graph()
    assert _edges(taken) == _edges(edited.call_graph())  # (built from scratch: edited had none)


@pytest.mark.parametrize("services", [
    FILES["shop/services.py"].replace("    audit(pk)\n    send", "    other(pk)\n    send"),  # another callee
    FILES["shop/services.py"].replace("    send(pk)\n", "    send(pk)\n    other(pk)\n"),  # an edge added
    FILES["shop/services.py"].replace("from shop import helpers\n", "from shop import helpers\nimport json\n"),
    FILES["shop/services.py"] + "\ndef added(pk):\n    return pk\n",  # a function added
    FILES["shop/services.py"].replace("def refund(pk):\n    helpers.audit(pk)\n",
                                      "def refund(pk):\n    def inner():\n        pass\n    helpers.audit(pk)\n"),
], ids=["other-callee", "edge-added", "import-added", "function-added", "nested-added"])
def test_an_edit_changing_the_graph_or_what_names_resolve_to_is_not_given_the_scan_graph(services):
    scan_index, edited = _indexes(services)
    assert same_call_graph(scan_index, edited) is None


def test_no_graph_is_taken_from_a_scan_that_built_none():
    scan_index, edited = _indexes(FILES["shop/services.py"])
    scan_index.add_info(scan_index.modules["shop.views"])  # (adding a module forgets the graph)
    assert scan_index.built_call_graph() is None
    assert same_call_graph(scan_index, edited) is None


def test_re_analysis_takes_the_scan_graph_and_finds_what_it_finds_without(tmp_path, monkeypatch):
    monkeypatch.setenv(forked.ENV, "0")
    app = write(tmp_path, TWO_TRANSACTIONS)
    result = scan(app.root, Config(), "django", rewrites=False, cache=ScanCache())
    found = [c for c in candidates(app.root, "django", result.records, result.analyses) if c.rewrite is not None]
    assert found
    by_path = edits_by_path({e for c in found for e in c.rewrite.edits})
    originals = {path: (app.root / path).read_text("utf-8") for path in by_path}
    texts = {path: apply(originals[path], edits) for path, edits in by_path.items()}
    wanted = {c.transaction for c in found}
    tables = result.cache.tables("django")
    scan_graph = result.context.index.built_call_graph()
    assert scan_graph is not None
    taken = []
    adopt = RepoIndex.adopt_call_graph
    monkeypatch.setattr(RepoIndex, "adopt_call_graph", lambda index, graph: (taken.append(graph), adopt(index, graph)))
    shared = django_reanalysis.reanalyse(app.root, Config(), texts, wanted, tables, by_path, originals, result.context)
    assert taken == [scan_graph]
    alone = django_reanalysis.reanalyse(app.root, Config(), texts, wanted, tables, by_path, originals)
    assert taken == [scan_graph]  # (without the scan's Context, the graph is built)
    assert shared == alone
