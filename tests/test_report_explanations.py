"""The explanations of differences with the study (analyzer/report/explanations.py) on a small store whose
answers are known: every row is written here through the store's own writer, so each measured figure
below can be counted by hand."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from analyzer import __version__, store
from analyzer.report import explanations, render
from analyzer.report.study import LABELS, STUDY


def _statement(index: int, line: int, inferability: str = "key") -> dict:
    return {"id": f"s{index}", "file": "app.py", "line": line, "entity": "Order", "kind": "read", "api": "get",
            "attributes": ["pk"], "inferability": inferability, "flags": [], "via": []}


def _txn(line: int, verdict: str = "one-shot", statements: int = 1, boundary: str = "atomic-decorator",
         complete: bool = True, effect: str | None = None, rw: str = "full", mismatch: bool = False) -> dict:
    steps = [_statement(i, line + 1 + i, "cda-mismatch" if mismatch and i == 0 else "key") for i in range(statements)]
    reasons = [{"category": effect, "callee": "client.post", "file": "app.py", "line": line + 9}] if effect else []
    if verdict == "interactive-nonstrict":
        reasons = [{"category": "read-modify-write", "callee": "save", "file": "app.py", "line": line + 2}]
    return {"id": f"app.py:{line}", "file": "app.py", "line": line, "end_line": line + 9, "function": f"f{line}",
            "boundary": boundary, "wrapper": None, "interactivity": verdict, "rw_inferable": rw,
            "statements": steps, "read_set": [], "write_set": [], "excerpt": "", "complete": complete,
            "incomplete": [] if complete else [{"file": "app.py", "line": line + 3, "callee": "h",
                                                "reason": "unresolved-receiver"}],
            "reasons": reasons, "suggestions": []}


AUTO = "autocommit"
APPS = {
    # alpha: 4 explicit (one-shot; non-strict, incomplete; strict through an external call alone, one
    # statement; strict with three statements) and 6 autocommit statements (one a CDA mismatch, one incomplete).
    "alpha": ("django", [
        _txn(10), _txn(20, "interactive-nonstrict", 2, complete=False, rw="partial"),
        _txn(30, "interactive-strict", 1, effect="http"), _txn(40, "interactive-strict", 3, effect="email"),
        *[_txn(100 + 10 * i, boundary=AUTO, mismatch=i == 0, rw="none" if i == 0 else "full", complete=i != 1)
          for i in range(6)]]),
    # beta: 2 explicit one-shot transactions.
    "beta": ("typeorm", [_txn(10), _txn(20)]),
    # gamma: one explicit transaction, interactive only because of an external call.
    "gamma": ("typeorm", [_txn(10, "interactive-strict", 1, effect="queue")]),
    # delta: scanned, no transaction at all.
    "delta": ("django", []),
    # zeta: one explicit one-shot transaction.
    "zeta": ("typeorm", [_txn(10)]),
}


@pytest.fixture(scope="module")
def known(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("explain") / "s.db"
    db = store.connect(path)
    for name, (frontend, transactions) in APPS.items():
        analyses = {mode: {"transactions": transactions, "entities": [], "diagnostics": [], "cda": {}}
                    for mode in ("pk", "auto")}
        # Mode auto resolves alpha's autocommit CDA mismatch (its CDA covers the attribute).
        if name == "alpha":
            analyses["auto"] = {**analyses["auto"], "transactions": [
                {**t, "statements": [{**s, "inferability": "key"} for s in t["statements"]], "rw_inferable": "full"}
                if t["line"] == 100 else t for t in transactions]}
        store.write_app(db, {"name": name, "root": name, "frontend": frontend, "tool_version": __version__,
                             "status": "ok", "files": 1, "lines": 100}, [], "", analyses)
    store.write_app(db, {"name": "epsilon", "root": "epsilon", "frontend": "django", "tool_version": __version__,
                         "status": "failed", "error": "SyntaxError"}, [], "", {})
    db.close()
    return path


def _differences(path: Path) -> dict:
    db = store.open_reader(path)
    try:
        return explanations.differences(db, render.collect(db), "pk")
    finally:
        db.close()


def _evidence(result: dict, figure: str) -> dict[str, str]:
    entry = next(d for d in result["differing"] if d["figure"] == figure)
    return {e["key"]: e["text"] for e in entry["evidence"]}


def test_every_explanation_has_a_doc_a_query_and_known_figures():
    assert len({e.key for e in explanations.EXPLANATIONS}) == len(explanations.EXPLANATIONS)
    for explanation in explanations.EXPLANATIONS:
        assert explanation.doc and explanation.title and explanation.query.lstrip().startswith("SELECT")
        assert set(explanation.figures) <= set(STUDY)


def test_tolerance_decides_which_figures_differ():
    assert explanations.tolerance(0.096) == pytest.approx(0.024)
    assert explanations.tolerance(0.9) == pytest.approx(0.025)
    assert explanations.tolerance(0.005) == pytest.approx(0.005)
    assert not explanations.differs(0.11, 0.096) and explanations.differs(0.13, 0.096)
    assert not explanations.differs(0.009, 0.005) and explanations.differs(0.011, 0.005)
    assert not explanations.differs(None, 0.39)


def test_compared_on_all_together_with_the_counts_of_each_scope(known):
    result = _differences(known)
    assert result["scope"] == "all" and result["mode"] == "pk"
    figures = {d["figure"] for d in result["differing"]} | {a["figure"] for a in result["agreeing"]}
    assert figures == set(LABELS)
    # All together: alpha 10 (3 interactive, 2 strict), beta 2, gamma 1 (strict), zeta 1: 14 transactions.
    strict = next(d for d in result["differing"] if d["figure"] == "strict_share_of_all")
    assert strict["ours"] == pytest.approx(3 / 14)
    scope = _evidence(result, "strict_share_of_all")["scope"]
    assert "Autocommit statements are 42.9% (6/14) of all transactions" in scope
    assert "8 explicit transactions, 6 autocommit statements" in scope
    assert "explicit transactions 37.5%; autocommit statements 0.0%; all together (the study's denominator) 21.4%" \
        in scope


def test_external_calls_measured_per_figure(known):
    result = _differences(known)
    # Interactive: alpha's 3 and gamma's 1; strict: 3, of which 2 with a single statement.
    apps = _evidence(result, "apps_without_interactive")["external-calls"]
    assert "75.0% (3/4) of the interactive transactions" in apps and "Of these, 2 have at most one statement" in apps
    # Without single-statement strict ones gamma has no interactive transaction (beta, gamma, zeta of 4
    # apps); without any strict one, the same (alpha keeps its non-strict one).
    assert "between 75.0% (3/4) and 75.0% (3/4) instead of 50.0% (2/4)" in apps
    share = _evidence(result, "interactive_share_in_other_apps")["external-calls"]
    # No strict counted: alpha 1 of 10. Single-statement strict left out: alpha 2 of 10.
    assert "between 10.0% (1/10) (no strictly interactive transaction counted) and 20.0% (2/10)" in share
    strict = _evidence(result, "strict_share_of_all")["external-calls"]
    assert "without the single-statement ones: 7.1% (1/14) of all transactions strictly interactive" in strict


def test_incomplete_verdicts_are_bounds(known):
    result = _differences(known)
    text = _evidence(result, "interactive_share_in_other_apps")["incomplete"]
    # alpha: the non-strict one and one autocommit statement are incomplete; the latter is one-shot.
    assert text.startswith("14.3% (2/14) of the transactions are incomplete")
    assert "the share would be 45.5% (5/11)" in text
    strict = _evidence(result, "strict_share_of_all")["incomplete"]
    assert "the share would be 35.7% (5/14)" in strict  # 3 strict + 2 incomplete that are not strict


def test_cda_mode_corpus_and_empty_applications(known):
    result = _differences(known)
    mismatch = _evidence(result, "cda_mismatch_share_of_transactions")
    # One transaction of 14 (one statement of 17) has a mismatch in mode pk, none in mode auto.
    assert "CDA pk: 7.1%; CDA auto: 0.0%" in mismatch["cda-mode"]
    assert "pk: 5.9% (1/17) of statements; auto: 0.0% (0/17) of statements" in mismatch["cda-mode"]
    assert "django 10.0% (1/10) over 1 application (3 in the manifest, 2 scanned)" in mismatch["corpus"]
    assert "typeorm 0.0% (0/4) over 3 applications (3 in the manifest, 3 scanned)" in mismatch["corpus"]
    empty = _evidence(result, "apps_without_interactive")["empty-applications"]
    assert "1 application scanned without any transaction in this scope and 1 failed" in empty
    assert "Without transactions: delta." in empty and "the figure would be 60.0% (3/5)" in empty


def test_without_autocommit_rows_the_explicit_figures_are_compared_and_the_scope_says_so(known, tmp_path):
    path = tmp_path / "explicit.db"
    path.write_bytes(known.read_bytes())
    db = sqlite3.connect(path)
    db.execute("DELETE FROM transactions WHERE boundary = 'autocommit'")
    db.commit()
    db.close()
    result = _differences(path)
    assert result["scope"] == "explicit"
    scope = _evidence(result, "strict_share_of_all")["scope"]
    assert scope.startswith("This store has no autocommit rows, so the figure is over 8 explicit transactions only")


def test_the_summary_explains_each_differing_figure(known, tmp_path):
    render.write(known, tmp_path / "out")
    summary = (tmp_path / "out" / "summary.md").read_text()
    section = summary.split("## What explains the differences")[1].split("## Applications")[0]
    result = _differences(known)
    for entry in result["differing"]:
        assert f"### {entry['label']}" in section
    assert section.count("- **Interactivity that comes only from external calls.**") == 3
    # Per application, explicit and all together side by side.
    header = next(line for line in summary.splitlines() if line.startswith("| application |"))
    assert "| explicit |" in header and "| all |" in header and "| interactive (all) |" in header
    alpha = next(line for line in summary.splitlines() if line.startswith("| alpha |"))
    cells = [c.strip() for c in alpha.strip("|").split("|")]
    assert cells[3:5] == ["4", "75.0%"] and cells[8:11] == ["6", "10", "30.0%"]
    assert json.loads((tmp_path / "out" / "metrics.json").read_text())["autocommit_measured"] is True


def test_a_store_without_completeness_says_so_instead_of_failing(known, tmp_path):
    path = tmp_path / "old.db"
    path.write_bytes(known.read_bytes())
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE transactions DROP COLUMN incomplete")
    db.execute("ALTER TABLE transactions DROP COLUMN complete")
    db.commit()
    db.close()
    text = _evidence(_differences(path), "strict_share_of_all")["incomplete"]
    assert text.startswith("This store does not record completeness")
