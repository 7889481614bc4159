"""The table of compiled generated code (analyzer/generated_code.py): it gives the functions
compiling gives, it is used where it is meant to be, and a table that is not this interpreter's
or is damaged is not read."""

from __future__ import annotations

import __future__
import json
import subprocess
import sys
from pathlib import Path

import pytest

from analyzer import generated_code

ROOT = Path(__file__).resolve().parents[1]

# In a fresh process: the front end's analysis modules and the rewrite modules imported as a scan
# imports them, with the table at argv[1]; prints how many texts were compiled, and the code of
# every generated function (libcst's and the rewrite modules' dataclass methods, ast_convert's
# constructors) as marshal bytes.
_IMPORT_AS_A_SCAN = r"""
import json, marshal, sys
from pathlib import Path
from analyzer import generated_code
generated_code.TABLE = Path(sys.argv[1])
from analyzer.django import frontend
frontend._import_analysis(0.0)
from analyzer.scan import import_rewrites
import_rewrites("django")
import dataclasses, libcst
from analyzer.django import ast_convert
functions = {}
for name in sorted(dir(libcst)):
    cls = getattr(libcst, name)
    if isinstance(cls, type) and issubclass(cls, libcst.CSTNode):
        for method in ("__init__", "__eq__", "__repr__", "__hash__", "__setattr__", "__delattr__"):
            function = cls.__dict__.get(method)
            if hasattr(function, "__code__"):
                functions[f"{name}.{method}"] = marshal.dumps(function.__code__).hex()
for kind, make in sorted(ast_convert._MAKE.items()):
    functions[f"make {kind}"] = marshal.dumps(make.__code__).hex()
for module in sorted(name for name in sys.modules if name.startswith("analyzer.rewrite.")):
    for name, cls in sorted(vars(sys.modules[module]).items()):
        if dataclasses.is_dataclass(cls) and isinstance(cls, type) and cls.__module__ == module:
            for method in ("__init__", "__eq__", "__repr__", "__hash__", "__setattr__", "__delattr__"):
                function = cls.__dict__.get(method)
                if hasattr(function, "__code__"):
                    functions[f"{module}.{name}.{method}"] = marshal.dumps(function.__code__).hex()
print(json.dumps({"compiled": generated_code.compiled, "functions": functions}))
"""


def _import_as_a_scan(table: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", _IMPORT_AS_A_SCAN, str(table)], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A table built as scripts/setup.sh builds it, in a fresh process."""
    path = tmp_path_factory.mktemp("generated") / "table.bin"
    subprocess.run([sys.executable, "-c", "import sys; from pathlib import Path; from analyzer import generated_code; "
                    "generated_code.build(Path(sys.argv[1]))", str(path)], cwd=ROOT, check=True)
    return path


def test_each_code_in_the_table_is_what_compiling_its_text_gives(built):
    table = generated_code.read_table(built)
    by_flags = {flags for flags, _text in table}
    assert len(table) > 500 and by_flags == {0, __future__.annotations.compiler_flag}
    for (flags, text), code in table.items():
        assert code == compile(text, "<string>", "exec", flags, dont_inherit=True)


def test_imports_with_the_table_compile_nothing_and_make_the_same_functions(built, tmp_path):
    with_table = _import_as_a_scan(built)
    without = _import_as_a_scan(tmp_path / "missing.bin")
    assert with_table["compiled"] == 0
    assert without["compiled"] >= len(generated_code.read_table(built))
    assert len(with_table["functions"]) > 300  # libcst's node classes and ast_convert's constructors
    assert any(name.startswith("analyzer.rewrite.python_syntax.") for name in with_table["functions"])
    assert with_table["functions"] == without["functions"]


def test_setup_built_the_table_a_scan_reads():
    assert generated_code.read_table(generated_code.TABLE), "scripts/setup.sh builds analyzer/_generated_code.bin"


@pytest.mark.parametrize("damage", ["other interpreter", "flipped byte", "truncated", "not a table", "empty"])
def test_a_damaged_or_foreign_table_is_not_read(built, tmp_path, damage):
    data = built.read_bytes()
    header = len(generated_code._HEADER)
    if damage == "other interpreter":
        data = data[:header - 2] + bytes([data[header - 2] ^ 1]) + data[header - 1:]
    elif damage == "flipped byte":
        data = data[:-100] + bytes([data[-100] ^ 0x20]) + data[-99:]
    elif damage == "truncated":
        data = data[: len(data) // 2]
    elif damage == "not a table":
        body = generated_code.marshal.dumps([("def f(): pass", 1)])
        data = generated_code._HEADER + generated_code._digest(body) + body
    else:
        data = b""
    path = tmp_path / "table.bin"
    path.write_bytes(data)
    assert generated_code.read_table(path) == {}


def test_entries_of_the_wrong_types_are_left_out(tmp_path):
    good = compile("x = 1", "<string>", "exec", 0, dont_inherit=True)
    body = generated_code.marshal.dumps({(0, "x = 1"): good, (0, "y = 2"): "not code", ("0", "z = 3"): good,
                                         "w = 4": good})
    path = tmp_path / "table.bin"
    path.write_bytes(generated_code._HEADER + generated_code._digest(body) + body)
    assert generated_code.read_table(path) == {(0, "x = 1"): good}
