"""Every output format against a committed snapshot, and SARIF against the OASIS 2.1.0 schema.

Snapshots live in tests/lint/snapshots/; `TXSCAN_UPDATE_SNAPSHOTS=1 pytest tests/lint` rewrites
them (review the diff before committing).
"""

from __future__ import annotations

import json
import os
from functools import cache, lru_cache
from pathlib import Path

import jsonschema
import pytest
from lintkit import FIXTURES, lint, render

from analyzer.lint.formats import FORMATS
from analyzer.lint.formats.github import step_summary

HERE = Path(__file__).resolve().parent
PROJECT = HERE / "projects" / "checkout"
SNAPSHOTS = HERE / "snapshots"
REPO = HERE.parents[1]
# Reference data kept outside the repository (its README grants no copy): ../shared/schemas from the
# repository root in CI, ../../shared from a worktree checked out one level deeper.
SARIF_SCHEMA = next((p for p in (REPO.parent / "shared" / "schemas" / "sarif-schema-2.1.0.json",
                                 REPO.parent.parent / "shared" / "schemas" / "sarif-schema-2.1.0.json") if p.is_file()),
                    REPO.parent / "shared" / "schemas" / "sarif-schema-2.1.0.json")


@cache
def _outcome(folder: Path):
    return lint(folder)


def _render_in(folder: Path, fmt: str, monkeypatch) -> str:
    monkeypatch.chdir(folder)  # display paths are relative to the working folder, as in ruff
    return render(_outcome(folder), fmt)


def check_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("TXSCAN_UPDATE_SNAPSHOTS"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"no snapshot {name}: run with TXSCAN_UPDATE_SNAPSHOTS=1"
    assert text == path.read_text("utf-8"), f"{name} differs from the snapshot (TXSCAN_UPDATE_SNAPSHOTS=1 to update)"


@pytest.mark.parametrize("fmt", FORMATS)
def test_format_snapshot(fmt, monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    check_snapshot(f"checkout.{fmt}.txt", _render_in(PROJECT, fmt, monkeypatch))


def test_github_step_summary_snapshot(monkeypatch, tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    _render_in(PROJECT, "github", monkeypatch)
    text = summary.read_text("utf-8")
    assert text.startswith("earlier step\n")  # appended, never overwritten
    check_snapshot("checkout.github-summary.md", text[len("earlier step\n"):])
    assert text[len("earlier step\n"):] == step_summary(_outcome(PROJECT))


def test_concise_is_one_line_per_finding(monkeypatch):
    lines = _render_in(PROJECT, "concise", monkeypatch).splitlines()
    outcome = _outcome(PROJECT)
    assert len(lines) == len(outcome.findings) + 1
    for line, finding in zip(lines, outcome.findings):
        assert line.startswith(f"{finding.location.path}:{finding.location.line}:{finding.location.col}: {finding.code} ")


def test_transaction_findings_carry_boundary_and_chain():
    outcome = _outcome(PROJECT)
    http = next(f for f in outcome.findings if f.code == "TX101")
    assert (http.location.path, http.location.line) == ("shop/payments.py", 5)
    assert (http.boundary.path, http.boundary.line) == ("shop/services.py", 8)
    assert [(s.path, s.line) for s in http.chain] == [("shop/services.py", 8), ("shop/payments.py", 4),
                                                       ("shop/payments.py", 5)]


@lru_cache(maxsize=1)
def _sarif_validator():
    if not SARIF_SCHEMA.is_file():
        pytest.fail(f"the SARIF schema is missing at {SARIF_SCHEMA} (../shared/schemas from the repository root)")
    return jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text("utf-8")))


@pytest.mark.parametrize("folder", [PROJECT, FIXTURES / "statement-outside-transaction-manager" / "typeorm",
                                    FIXTURES / "unused-suppression" / "django"], ids=lambda p: p.parent.name)
def test_sarif_is_valid_2_1_0(folder, monkeypatch):
    doc = json.loads(_render_in(folder, "sarif", monkeypatch))
    errors = sorted(_sarif_validator().iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert not errors, [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5]]
    run = doc["runs"][0]
    assert run["results"], "the folder has findings"
    for rule in run["tool"]["driver"]["rules"]:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["markdown"].startswith(f"# {rule['id']} ")
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
        assert rule["properties"]["precision"] in ("very-high", "high", "medium", "low")
        assert rule["properties"]["tags"]
    for result in run["results"]:
        assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert not location["artifactLocation"]["uri"].startswith("/")
        assert location["region"]["startLine"] >= 1 and location["region"]["startColumn"] >= 1
        assert result["partialFingerprints"]["primaryLocationLineHash"]


def test_sarif_related_location_and_code_flow(monkeypatch):
    doc = json.loads(_render_in(PROJECT, "sarif", monkeypatch))
    result = next(r for r in doc["runs"][0]["results"] if r["ruleId"] == "TX101")
    related = result["relatedLocations"][0]["physicalLocation"]
    assert (related["artifactLocation"]["uri"], related["region"]["startLine"]) == ("shop/services.py", 8)
    flow = result["codeFlows"][0]["threadFlows"][0]["locations"]
    assert [loc["location"]["physicalLocation"]["region"]["startLine"] for loc in flow] == [8, 4, 5]


def test_output_is_deterministic(monkeypatch):
    first = {fmt: _render_in(PROJECT, fmt, monkeypatch) for fmt in ("json", "sarif")}
    again = lint(PROJECT)
    assert {fmt: render(again, fmt) for fmt in ("json", "sarif")} == first
