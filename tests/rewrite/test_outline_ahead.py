"""The top-level statements of the files rewrites outline, worked out by another process while the
scan finishes (rewrite/outline_ahead.py): its answers are python_top_level's own, a scan plans
with them instead of parsing the files again and finds the same rewrites, and an answer that is
not for the text planning reads, or from another Python, is not taken."""

from __future__ import annotations

import shutil
import sys

import pytest
from conftest import SAMPLES, django_sample_texts

from analyzer import forked
from analyzer.cache import ScanCache
from analyzer.config import load
from analyzer.rewrite import compile_later, outline_ahead, python_top_level, shared_work
from analyzer.scan import scan

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="helpers run on Linux only")

# Texts tree-sitter reads with an error (Python's `ast` is asked then), or not as Python numbers them.
AWKWARD = [
    "x = 1; y = 2\n",  # two statements on a line
    "@decorator\n# a comment\ndef f():\n    pass\n    # trailing comment\n",
    "print 'python 2'\n",
    "def f(a, a):\n    return a\n",  # does not compile; its outline is asked of top_level alone
    "from __future__ import annotations\nfrom .models import F as G, transaction\n",
]


def _transactions(paths: list[str]) -> list[dict]:
    """One explicit transaction per file, with an effect in its own body there."""
    return [{"id": f"{path}:1", "steps": [{"id": "e1", "node": "effect", "file": path, "line": 1,
                                           "category": "http", "callee": "requests.post"}]} for path in paths]


def _project(tmp_path) -> list[str]:
    paths = []
    for number, (source, _text) in enumerate(django_sample_texts()):
        paths.append(f"pkg/m{number}.py")
        (tmp_path / "pkg").mkdir(exist_ok=True)
        shutil.copyfile(source, tmp_path / paths[-1])  # (its bytes: line endings as they are)
    for number, text in enumerate(AWKWARD):
        paths.append(f"awkward{number}.py")
        (tmp_path / paths[-1]).write_text(text, "utf-8")
    return paths


@pytest.fixture(autouse=True)
def small_projects_too(monkeypatch):
    monkeypatch.setattr(outline_ahead, "MIN_BYTES", 1)


@pytest.fixture
def waiting(monkeypatch):
    monkeypatch.setenv(forked.ENV, "wait")  # take() then waits for every answer
    yield
    python_top_level.tell({})


def test_the_answers_are_those_of_top_level(tmp_path, waiting):
    paths = _project(tmp_path)
    ahead = outline_ahead.OutlinesAhead(tmp_path)
    ahead.start(_transactions(paths))
    texts: dict[str, str] = {}
    assert ahead.take(texts) == len(set(texts.values())) and sorted(texts) == sorted(paths)  # (by distinct text)
    told = {text: python_top_level.top_level(text) for text in texts.values()}
    python_top_level.tell({})
    assert told == {text: python_top_level.top_level(text) for text in texts.values()}
    assert None in told.values() and any(found and len(found) > 3 for found in told.values())


def test_an_answer_for_another_text_or_from_another_python_is_not_taken(tmp_path, waiting, monkeypatch):
    (tmp_path / "a.py").write_text("import os\n", "utf-8")
    (tmp_path / "b.py").write_text("import sys\n", "utf-8")
    ahead = outline_ahead.OutlinesAhead(tmp_path)
    ahead.start(_transactions(["a.py", "b.py"]))
    ahead._child.wait()
    (tmp_path / "b.py").write_text("x = 1\n\n\ndef f():\n    pass\n", "utf-8")  # changed since it was read
    texts: dict[str, str] = {}
    assert ahead.take(texts) == 1
    assert python_top_level._told == {"import os\n": python_top_level.top_level("import os\n")}

    monkeypatch.setattr(outline_ahead, "_answering", lambda: ("another", 0, "", ""))
    ahead = outline_ahead.OutlinesAhead(tmp_path)
    ahead.start(_transactions(["a.py"]))
    assert ahead.take({}) == 0


def test_no_process_is_started_without_helpers_or_for_small_files(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text("import os\n", "utf-8")
    monkeypatch.setenv(forked.ENV, "0")
    ahead = outline_ahead.OutlinesAhead(tmp_path)
    ahead.start(_transactions(["a.py"]))
    assert ahead.asked == ["a.py"] and ahead.take({}) == 0
    monkeypatch.setenv(forked.ENV, "wait")
    monkeypatch.setattr(outline_ahead, "MIN_BYTES", 11)  # (a.py holds 10)
    ahead = outline_ahead.OutlinesAhead(tmp_path)
    ahead.start(_transactions(["a.py"]))
    assert ahead.take({}) == 0
    monkeypatch.setattr(outline_ahead, "MIN_BYTES", 10)
    ahead = outline_ahead.OutlinesAhead(tmp_path)
    ahead.start(_transactions(["a.py"]))
    assert ahead.take({}) == 1
    python_top_level.tell({})


def _found(result) -> list:
    return [(c.transaction, c.suggestion, c.rewrite, c.refused, c.makes_one_shot) for c in result.rewrites]


@pytest.mark.parametrize("sample", ["shop", "ledger", "forum"])
@pytest.mark.parametrize("shared", [False, True])
def test_a_scan_plans_with_the_answers_and_finds_the_same_rewrites(sample, shared, monkeypatch):
    root = SAMPLES / "django" / sample
    monkeypatch.setenv(forked.ENV, "0")
    alone = _found(scan(root, load(root), "django", cache=ScanCache()))
    compile_later.forget_outlines()
    monkeypatch.setenv(forked.ENV, "wait")
    if shared:  # (planning on both cores, the compile confirmed later)
        monkeypatch.setattr(shared_work, "MIN_ITEMS", 1)
    taken = []
    take = outline_ahead.OutlinesAhead.take
    monkeypatch.setattr(outline_ahead.OutlinesAhead, "take", lambda self, texts: taken.append(take(self, texts)))
    parsed_here = []
    from_tree_sitter = python_top_level._from_tree_sitter
    monkeypatch.setattr(python_top_level, "_from_tree_sitter",
                        lambda text: parsed_here.append(text) or from_tree_sitter(text))
    assert _found(scan(root, load(root), "django", cache=ScanCache())) == alone
    assert taken and taken[0] > 0
    assert not parsed_here  # (planning outlined every file it read from the answers)
    assert python_top_level._told == {}  # (forgotten once the rewrites are attached)


def test_a_warm_scan_outlines_ahead_only_for_the_transactions_it_walks(tmp_path, monkeypatch):
    root = tmp_path / "shop"
    shutil.copytree(SAMPLES / "django" / "shop", root)
    monkeypatch.setenv(forked.ENV, "wait")
    asked = []
    start = outline_ahead.OutlinesAhead.start
    monkeypatch.setattr(outline_ahead.OutlinesAhead, "start",
                        lambda self, transactions: (start(self, transactions), asked.append(self.asked)))
    cold = _found(scan(root, load(root), cache=ScanCache(tmp_path / "cache")))
    warm = _found(scan(root, load(root), cache=ScanCache(tmp_path / "cache")))  # (every plan kept there)
    assert warm == cold
    assert asked[0] and asked[1] == []
