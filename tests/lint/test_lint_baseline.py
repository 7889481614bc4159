"""The baseline: recorded findings are not reported again, even when lines move; new ones are."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lintkit import lint

from analyzer.lint.baseline import BaselineError, load

HERE = Path(__file__).resolve().parent
PROJECT = HERE / "projects" / "checkout"
REPO = HERE.parents[1]


@pytest.fixture
def project(tmp_path) -> Path:
    copy = tmp_path / "checkout"
    shutil.copytree(PROJECT, copy)
    return copy


def test_baseline_round_trip_survives_moved_lines(project, tmp_path):
    baseline = tmp_path / "baseline.json"
    written = lint(project, write_baseline=baseline)
    assert written.baseline_written == 4
    data = json.loads(baseline.read_text("utf-8"))
    assert {e["rule"] for e in data["findings"]} == {"TX101", "TX103", "TX110", "TX303"}
    assert all(e["function"] for e in data["findings"])

    services = project / "shop" / "services.py"
    text = services.read_text("utf-8")
    # Move every line down and re-indent nothing: the findings are the same code.
    services.write_text("# a comment\n\n\n" + text, encoding="utf-8")
    again = lint(project, baseline=baseline)
    assert again.findings == [] and again.baselined == 4

    # A new problem is reported even with the baseline.
    services.write_text(services.read_text("utf-8").replace(
        "    send_receipt.delay(order_id)\n", "    send_receipt.delay(order_id)\n    send_receipt.delay(order_id + 1)\n"),
        encoding="utf-8")
    fresh = lint(project, baseline=baseline)
    assert [(f.code, f.location.line) for f in fresh.findings] == [("TX103", 18)]


def test_identical_lines_are_counted(project, tmp_path):
    baseline = tmp_path / "baseline.json"
    lint(project, write_baseline=baseline)
    services = project / "shop" / "services.py"
    services.write_text(services.read_text("utf-8").replace(
        "    send_receipt.delay(order_id)\n", "    send_receipt.delay(order_id)\n    send_receipt.delay(order_id)\n"),
        encoding="utf-8")
    assert [f.code for f in lint(project, baseline=baseline).findings] == ["TX103"]


def test_bad_baseline_is_one_line_exit_2(project, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(BaselineError):
        load(bad)
    completed = subprocess.run([sys.executable, "-m", "analyzer.cli", "lint", ".", "--baseline", str(bad)],
                               capture_output=True, text=True, cwd=project, env={"PYTHONPATH": str(REPO), "PATH": ""},
                               timeout=300)
    assert completed.returncode == 2 and completed.stderr.count("\n") == 1 and "not a txscan baseline" in completed.stderr


def test_write_baseline_exits_0_and_then_the_run_is_clean(project, tmp_path):
    baseline = tmp_path / "b.json"
    cmd = [sys.executable, "-m", "analyzer.cli", "lint", "."]
    env = {"PYTHONPATH": str(REPO), "PATH": ""}
    first = subprocess.run([*cmd, "--write-baseline", str(baseline)], capture_output=True, text=True, cwd=project,
                           env=env, timeout=300)
    assert first.returncode == 0 and "wrote 4 finding(s)" in first.stderr
    second = subprocess.run([*cmd, "--baseline", str(baseline)], capture_output=True, text=True, cwd=project, env=env,
                            timeout=300)
    assert second.returncode == 0 and "4 in the baseline" in second.stdout
