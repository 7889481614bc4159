"""Deep nesting: one such file is a diagnostic, the rest of the scan completes (no SIGSEGV,
no RecursionError, no lost scan). Each case runs as its own process: a crash shows as one."""

from __future__ import annotations

import json

from hostile_inputs import diagnostics_by_file, django_app, functions, scan_json, typeorm_app

ATOMIC = "from django.db import transaction\n\n\n@transaction.atomic\ndef deep():\n"


def python_cases() -> dict[str, str]:
    blocks = "".join(" " * (i + 1) + "if x:\n" for i in range(1000)) + " " * 1001 + "pass\n"
    return {
        "parens.py": ATOMIC + "    x = " + "(" * 1500 + "1" + ")" * 1500 + "\n",
        "calls.py": ATOMIC + "    x = " + "f(" * 1500 + "1" + ")" * 1500 + "\n",
        "lists.py": ATOMIC + "    x = " + "[" * 1500 + "1" + "]" * 1500 + "\n",
        "chain.py": ATOMIC + "    x = " + " + ".join(["a"] * 5000) + "\n",
        "blocks.py": ATOMIC + blocks,
        "moderate.py": ATOMIC + "    x = " + "(" * 40 + "1" + ")" * 40 + "\n",  # real code is never deeper
    }


def test_python_deep_nesting_is_a_diagnostic(tmp_path):
    cases = python_cases()
    doc = scan_json(django_app(tmp_path, cases), process=True)
    found = diagnostics_by_file(doc)
    for name in cases:
        if name == "moderate.py":
            # Not a parse error (the core may still say its transaction has no statement).
            assert "parse-error" not in found.get(f"app/{name}", set()), found
        else:
            assert found.get(f"app/{name}") == {"parse-error"}, (name, found)
    assert functions(doc) == ["app.moderate.deep", "app.services.touch"]


def test_typescript_deep_nesting_is_a_diagnostic(tmp_path):
    root = typeorm_app(tmp_path / "ledger")
    expression = "export const x = " + "(" * 2000 + "1" + ")" * 2000 + ";\n"
    calls = "declare function f(a: unknown): unknown;\nexport const y = " + "f(" * 2000 + "1" + ")" * 2000 + ";\n"
    blocks = "export function g(a: number) {\n" + "if (a) {\n" * 1000 + "}\n" * 1000 + "}\n"
    arrays = "export const z = " + "[" * 2000 + "]" * 2000 + ";\n"
    for name, text in {"expr.ts": expression, "calls.ts": calls, "blocks.ts": blocks, "arrays.ts": arrays}.items():
        (root / "src" / name).write_text(text)
    doc = scan_json(root, process=True)
    found = diagnostics_by_file(doc)
    for name in ("expr.ts", "calls.ts", "blocks.ts", "arrays.ts"):
        assert found.get(f"src/{name}") == {"parse-error"}, (name, found)
    # the application's own transactions are all still there
    expected = json.loads((root / "expected.json").read_text("utf-8"))
    assert len(doc["transactions"]) == len(expected["transactions"]) + len(expected.get("autocommit", []))


def test_nesting_measure_on_real_shapes():
    """Ordinary code never pays for the exact measure; deep code is caught whatever its shape."""
    from hostile_inputs import SAMPLES

    from analyzer.django.nesting import MAX_TREE_DEPTH, could_be_deep, nesting_problem, tree_depth

    for path in sorted((SAMPLES / "django").rglob("*.py")):
        text = path.read_text("utf-8")
        assert not could_be_deep(text), path
        assert tree_depth(text, MAX_TREE_DEPTH) < 40
    for name, text in python_cases().items():
        assert (nesting_problem(text) is None) == (name == "moderate.py"), name
