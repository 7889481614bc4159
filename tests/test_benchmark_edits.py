"""The benchmark's one-line changes (scripts/benchmark_edits.py) are code in the function that
holds the line, and the file still parses: at every transaction's and statement's line of the
samples, the lines the benchmark edits at."""

from __future__ import annotations

import ast
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, SAMPLES

sys.path.insert(0, str(ROOT / "scripts"))
_spec = importlib.util.spec_from_file_location("benchmark_edits", ROOT / "scripts" / "benchmark_edits.py")
edits = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(edits)

TYPESCRIPT = edits.typescript_module()


def _edited_lines(app: Path) -> list[tuple[str, int]]:
    expected = json.loads((app / "expected.json").read_text("utf-8"))
    lines = set()
    for transaction in expected["transactions"]:
        lines.add((transaction["file"], transaction["line"]))
        lines.update((s["file"], s["line"]) for s in transaction["statements"])
    return sorted(lines)


def _functions(tree: ast.AST) -> dict[str, str]:
    """Each function's tree by its qualified name, without the benchmark's statement."""
    out = {}

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            name = prefix
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}.{child.name}"
                if not isinstance(child, ast.ClassDef):
                    out[name] = ast.dump(child, include_attributes=False)
            visit(child, name)

    visit(tree, "")
    return out


def _holding_function(tree: ast.AST, line: int) -> str | None:
    held = None

    def visit(node, prefix):
        nonlocal held
        for child in ast.iter_child_nodes(node):
            name = prefix
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}.{child.name}"
                start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                if not isinstance(child, ast.ClassDef) and start <= line <= child.end_lineno:
                    held = name
            visit(child, name)

    visit(tree, "")
    return held


DJANGO_APPS = sorted(p for p in (SAMPLES / "django").iterdir() if (p / "expected.json").is_file())


@pytest.mark.parametrize("app", DJANGO_APPS, ids=lambda p: p.name)
def test_python_edits_change_the_function_holding_the_line_and_nothing_else(app, tmp_path):
    checked = 0
    for rel, line in _edited_lines(app):
        source = app / rel
        before = ast.parse(source.read_text("utf-8"))
        holder = _holding_function(before, line)
        if holder is None:
            continue
        copy = tmp_path / "edited.py"
        shutil.copyfile(source, copy)
        at = edits.insert_statement(copy, line)
        text = copy.read_text("utf-8")
        assert text.splitlines()[at - 1].strip() == edits.PYTHON_STATEMENT
        after = ast.parse(text)
        old, new = _functions(before), _functions(after)
        assert old.keys() == new.keys()
        changed = {name for name in old if old[name] != new[name]}
        # the function holding the line, and the functions around it
        assert holder in changed, (rel, line)
        assert all(holder == name or holder.startswith(name + ".") for name in changed), (rel, line, changed)
        assert _holding_function(after, at) == holder
        checked += 1
    assert checked >= 5


def test_python_header_lines_put_the_statement_in_the_body(tmp_path):
    source = tmp_path / "views.py"
    source.write_text(
        "from django.db import transaction\n"
        "\n"
        "class Orders:\n"
        "    @transaction.atomic\n"
        "    def pay(self, order):\n"
        '        """Pay."""\n'
        "        order.save()\n"
        "\n"
        "    def ship(self, order):\n"
        "        with transaction.atomic():\n"
        "            order.refresh_from_db()\n"
        "            order.save()\n"
        "        return order\n")
    assert edits.insert_statement(source, 4) == 7  # after the docstring, in pay's body
    assert source.read_text().splitlines()[6] == "        _benchmark_edit = 1"
    assert edits.insert_statement(source, 11) == 13  # the `with` line: inside its body
    assert source.read_text().splitlines()[12] == "            _benchmark_edit = 1"
    ast.parse(source.read_text())


def test_crlf_files_keep_their_line_endings(tmp_path):
    # Rewritten with LF endings, every line of the file would change: a warm scan would then
    # measure a whole-file change, not one statement.
    source = tmp_path / "services.py"
    before = b"def pay(order):\r\n    order.save()\r\n\r\n\r\ndef ship(order):\r\n    order.save()\r\n"
    source.write_bytes(before)
    assert edits.insert_statement(source, 2) == 3
    after = source.read_bytes()
    assert after == before.replace(b"    order.save()\r\n\r\n", b"    order.save()\r\n    _benchmark_edit = 1\r\n\r\n", 1)
    broken = tmp_path / "broken.py"
    broken.write_bytes(b"def f(:\r\n    pass")
    assert edits.insert_statement(broken, 1) == 3
    assert broken.read_bytes() == b"def f(:\r\n    pass\r\n_benchmark_edit = 1\r\n"


def test_a_file_that_does_not_parse_gets_the_statement_at_its_end(tmp_path):
    source = tmp_path / "broken.py"
    source.write_text("def f(:\n    pass")
    assert edits.insert_statement(source, 1) == 3
    assert source.read_text().endswith("    pass\n_benchmark_edit = 1\n")


_TS_CHECK = r"""
const ts = require(process.argv[1]);
const fs = require("fs");
const [file, line, at] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const sf = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
const lineOf = (pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
let holder;
(function visit(n) {
  if (lineOf(n.getStart(sf)) > line || lineOf(n.getEnd()) < line) return;
  if (ts.isFunctionLike(n) && n.body && ts.isBlock(n.body)) holder = n;
  ts.forEachChild(n, visit);
})(sf);
console.log(JSON.stringify({
  errors: sf.parseDiagnostics.length,
  holds: !!holder && lineOf(holder.getStart(sf)) <= at && at <= lineOf(holder.getEnd()),
  statement: fs.readFileSync(file, "utf8").split("\n")[at - 1].trim(),
}));
"""

TYPEORM_APPS = sorted(p for p in (SAMPLES / "typeorm").iterdir() if (p / "expected.json").is_file())


@pytest.mark.parametrize("app", TYPEORM_APPS, ids=lambda p: p.name)
def test_typescript_edits_are_in_the_function_holding_the_line_and_parse(app, tmp_path):
    checked = 0
    for rel, line in _edited_lines(app):
        copy = tmp_path / Path(rel).name
        shutil.copyfile(app / rel, copy)
        at = edits.insert_statement(copy, line, str(TYPESCRIPT))
        out = subprocess.run(["node", "-e", _TS_CHECK, str(TYPESCRIPT), str(copy), str(line), str(at)],
                             capture_output=True, text=True, check=True).stdout
        assert json.loads(out) == {"errors": 0, "holds": True, "statement": edits.TYPESCRIPT_STATEMENT}, (rel, line)
        checked += 1
    assert checked >= 5
