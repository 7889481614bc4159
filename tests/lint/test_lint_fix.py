"""`--fix` and `--diff` on the bundled samples: verified rewrites applied, the files still parse,
the fixed findings are gone on re-lint, and every other transaction of the sample keeps its verdict."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import libcst
import pytest
from lintkit import lint

from analyzer.lint import command

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "corpus" / "samples"
CHECKOUT = Path(__file__).resolve().parent / "projects" / "checkout"


def _copy(source: Path, tmp_path: Path) -> Path:
    target = tmp_path / source.name
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("node_modules", ".txscan"))
    return target


def _verdicts(outcome) -> dict[str, tuple]:
    return {t["function"] + "@" + t["boundary"]: (t["interactivity"], t["rw_inferable"])
            for t in outcome.context.analysis["transactions"]}


def _fix(folder: Path) -> tuple[int, str]:
    stream = io.StringIO()
    status = command.main([folder], fix=True, stream=stream)
    return status, stream.getvalue()


def test_diff_shows_the_fix_and_writes_nothing(tmp_path, capsys):
    project = _copy(CHECKOUT, tmp_path)
    before = {p: p.read_text("utf-8") for p in project.rglob("*.py")}
    stream = io.StringIO()
    status = command.main([project], diff=True, stream=stream)
    assert status == 1
    assert stream.getvalue().startswith("--- a/shop/services.py\n+++ b/shop/services.py\n")
    assert "+    transaction.on_commit(lambda: send_receipt.delay(order_id))\n" in stream.getvalue()
    assert "-    send_receipt.delay(order_id)\n" in stream.getvalue()
    assert {p: p.read_text("utf-8") for p in project.rglob("*.py")} == before


@pytest.mark.parametrize("sample", ["shop", "ledger"])
def test_fix_django_sample(sample, tmp_path):
    project = _copy(SAMPLES / "django" / sample, tmp_path)
    before = lint(project)
    fixable = [f for f in before.findings if f.code.startswith("TX10")]
    status, _output = _fix(project)
    after = lint(project)
    for path in {f.location.path for f in fixable}:
        libcst.parse_module((project / path).read_text("utf-8"))  # the fixed file parses
    errors = [(d["file"], d["code"]) for d in after.context.diagnostics if d["code"] == "parse-error"]
    assert errors == [(d["file"], d["code"]) for d in before.context.diagnostics if d["code"] == "parse-error"]
    fixed = len(before.findings) - len(after.findings)
    assert fixed >= 2, "the sample has verified on_commit fixes"
    # What --fix left is exactly what --diff would still do: nothing.
    stream = io.StringIO()
    assert command.main([project], diff=True, stream=stream) == 0 and stream.getvalue() == ""
    # Every transaction whose findings were not fixed keeps its verdict; fixed ones do not get worse.
    touched = {f.transaction for f in before.findings} - {f.transaction for f in after.findings}
    order = ["one-shot", "interactive-nonstrict", "interactive-strict"]
    old, new = _verdicts(before), _verdicts(after)
    assert set(old) == set(new)
    for key, verdict in old.items():
        assert order.index(new[key][0]) <= order.index(verdict[0]), key
    unchanged = [k for k in old if not any(k.startswith(t) for t in touched)]
    assert unchanged and all(new[k][1] == old[k][1] for k in unchanged)
    assert status == (1 if after.findings else 0)


def test_fix_typeorm_statement_onto_the_transaction_manager(tmp_path):
    project = _copy(SAMPLES / "typeorm" / "nest-shop", tmp_path)
    before = lint(project)
    target = [f for f in before.findings if f.code == "TX305" and f.location.path == "src/orders/orders.service.ts"]
    assert target
    _fix(project)
    after = lint(project)
    assert not [d for d in after.context.diagnostics if d["code"] == "parse-error"]
    assert not [f for f in after.findings if f.code == "TX305" and f.location.path == "src/orders/orders.service.ts"]
    others = sorted((f.code, f.location.path) for f in before.findings if f not in target)
    assert sorted((f.code, f.location.path) for f in after.findings) == others
