"""Generated Python modules (hypothesmith) around `atomic` blocks, through the whole scan:
no crash, deterministic output. Budget: see fuzz.py (ci profile: 20 + 10 examples)."""

from __future__ import annotations

import shutil
import tempfile
import textwrap
from pathlib import Path

import hypothesmith
import pytest
from fuzz import examples, scan_twice
from hostile_inputs import MODELS
from hypothesis import given, settings
from hypothesis import strategies as st

# hypothesmith compiles what it generates; `1()` and the like are valid syntax CPython warns about.
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")

HEADER = "from django.db import transaction\n\nfrom .models import Account\n\n\n"


def wrapped(code: str, how: str) -> str:
    body = textwrap.indent(code.strip("\n") or "pass", "        ")
    if how == "with":
        return HEADER + f"def generated(pk):\n    with transaction.atomic():\n{body}\n" \
            "        Account.objects.filter(pk=pk).update(balance=0)\n"
    return HEADER + "@transaction.atomic\ndef generated(pk):\n    if pk:\n" + body + \
        "\n    Account.objects.select_for_update().get(pk=pk).save()\n"


def scan_module(module: str, generated: str) -> str:
    root = Path(tempfile.mkdtemp(prefix="txscan-fuzz-"))
    try:
        app = root / "app"
        app.mkdir()
        (app / "__init__.py").write_text("")
        (app / "models.py").write_text(MODELS)
        (app / "wrapped.py").write_text(module, encoding="utf-8", errors="surrogatepass")
        (app / "plain.py").write_text(generated, encoding="utf-8", errors="surrogatepass")
        return scan_twice(root)
    finally:
        shutil.rmtree(root)


@settings(max_examples=examples(20))
@given(code=hypothesmith.from_grammar(), how=st.sampled_from(["with", "decorator"]))
def test_generated_python_around_atomic(code, how):
    scan_module(wrapped(code, how), code)


@settings(max_examples=examples(10))
@given(code=hypothesmith.from_node(), how=st.sampled_from(["with", "decorator"]))
def test_generated_syntax_trees_around_atomic(code, how):
    scan_module(wrapped(code, how), code)
