"""Whether the files rewrites read compile, confirmed while the rewrites are re-analysed instead
of before they are planned (rewrite/compile_later.py): the answer is the compiler's, a text that
does not compile makes the scan plan and verify again as if nothing had been assumed, and
shared planning really leaves the compile to the other process."""

from __future__ import annotations

import sys

import pytest
from conftest import FIXTURES, SAMPLES
from django_projects import TWO_TRANSACTIONS, write

from analyzer import forked
from analyzer.cache import ScanCache
from analyzer.config import Config, load
from analyzer.rewrite import compile_later, python_top_level, shared_work
from analyzer.scan import scan

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="helpers run on Linux only")

# Texts the compiler refuses (tree-sitter reads most without an error), and some it accepts.
REFUSED = [
    "def f(a, a):\n    return a\n",  # a repeated parameter
    "return 1\n",  # outside a function
    "x = 1\nnonlocal x\n",
    "def f():\n    x = 1\n    global x\n",  # a global after its use
    "from os import path\nfrom __future__ import annotations\n",  # a late __future__ import
    "type Point = tuple[int, int]\n",  # Python 3.12 syntax, where the scan runs on 3.11
    "f(**a, *b)\n",
    "s = '\udcff'\n",  # a lone surrogate (undecodable bytes read with surrogateescape)
]
ACCEPTED = ["x = 1\n", "async def f():\n    await g()\n", "# only a comment\n", "", "s = 'caf\u00e9'\n"]


@pytest.fixture
def shared_planning(monkeypatch):
    monkeypatch.setenv(forked.ENV, "1")
    monkeypatch.setattr(shared_work, "MIN_ITEMS", 1)


def _python_files() -> list[str]:
    files = sorted((SAMPLES / "django").rglob("*.py")) + sorted((FIXTURES / "django").rglob("*.py"))
    return [path.read_bytes().decode("utf-8", "surrogateescape") for path in files]


def test_the_other_process_answers_as_the_compiler_does(shared_planning, monkeypatch):
    texts = _python_files() + REFUSED + ACCEPTED
    assumed = compile_later.Assumed()
    assumed.active = True
    assumed.add(texts)
    monkeypatch.setattr(compile_later, "_failing", lambda _texts: pytest.fail("the scan compiled them itself"))
    assumed.start()
    failing = assumed.failing()
    noted = list(assumed.texts)  # (each distinct text once)
    assert failing == [i for i, text in enumerate(noted) if not python_top_level.compiles(text)]
    assert set(REFUSED) <= {noted[i] for i in failing}


def test_without_the_other_process_the_scan_compiles_them(monkeypatch):
    monkeypatch.setenv(forked.ENV, "0")
    assumed = compile_later.Assumed()
    assumed.active = True
    assumed.add(REFUSED + ACCEPTED)
    assumed.start()
    assert assumed.failing() == list(range(len(REFUSED)))


def _found(result) -> list:
    return [(c.transaction, c.suggestion, c.rewrite, c.refused, c.makes_one_shot) for c in result.rewrites]


@pytest.mark.parametrize("sample", ["shop", "ledger", "forum"])
def test_shared_planning_leaves_the_compile_to_the_other_process(sample, shared_planning, monkeypatch):
    root = SAMPLES / "django" / sample
    monkeypatch.setenv(forked.ENV, "0")
    alone = _found(scan(root, load(root), "django", cache=ScanCache(), autocommit=False))
    monkeypatch.setenv(forked.ENV, "1")
    compile_later.forget_outlines()
    compiled_here = []
    compiles = python_top_level.compiles
    monkeypatch.setattr(python_top_level, "compiles", lambda text: compiled_here.append(text) or compiles(text))
    confirmed = []
    failing = compile_later.Assumed.failing

    def confirming(self):
        confirmed.append((len(self.texts), self._child is not None))
        return failing(self)

    monkeypatch.setattr(compile_later.Assumed, "failing", confirming)
    assert _found(scan(root, load(root), "django", cache=ScanCache(), autocommit=False)) == alone
    [(noted, in_other_process)] = confirmed
    assert noted and in_other_process
    assert not compiled_here  # (planning outlined the files without compiling them)


def test_a_file_that_does_not_compile_is_planned_again_as_without_the_assumption(tmp_path, shared_planning,
                                                                                 monkeypatch):
    # tree-sitter reads this module without an error; the compiler refuses it (a repeated
    # parameter). Checked alone, the edited statements would parse and compile.
    project = write(tmp_path, TWO_TRANSACTIONS + "\n\n    def twice(a, a):\n        return a\n")
    monkeypatch.setenv(forked.ENV, "0")
    alone = _found(scan(project.root, Config(), "django", cache=ScanCache(), autocommit=False))
    assert any("does not parse" in refused for _t, _s, _r, refused, _o in alone)
    monkeypatch.setenv(forked.ENV, "1")
    forgotten = []
    forget = compile_later.forget_outlines
    monkeypatch.setattr(compile_later, "forget_outlines", lambda: (forgotten.append(1), forget()))
    compile_later.forget_outlines()
    forgotten.clear()
    assert _found(scan(project.root, Config(), "django", cache=ScanCache(), autocommit=False)) == alone
    assert forgotten  # the assumption failed, and was dropped


def test_an_answer_from_another_python_is_not_taken(shared_planning, monkeypatch):
    assumed = compile_later.Assumed()
    assumed.active = True
    assumed.add(REFUSED + ACCEPTED)
    assumed.start()
    monkeypatch.setattr(compile_later, "compiler_identity", lambda: ("another", 0))
    compiled_here = []
    failing = compile_later._failing
    monkeypatch.setattr(compile_later, "_failing", lambda texts: compiled_here.append(texts) or failing(texts))
    assert assumed.failing() == list(range(len(REFUSED)))
    assert compiled_here
