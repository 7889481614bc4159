"""A scan's trace (TXSCAN_TRACE_FILE, analyzer/timing.py): every process of the scan appends its
phases to one file, scripts/trace_timeline.py draws them, and the output is the untraced one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SAMPLES

REPO = Path(__file__).resolve().parent.parent
SHOP = SAMPLES / "django" / "shop"


def _scan(env: dict) -> str:
    done = subprocess.run([sys.executable, "-m", "analyzer.cli", "scan", str(SHOP), "--format", "json", "--no-db",
                           "--no-cache"], capture_output=True, text=True, env={**os.environ, **env}, cwd=REPO)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="helper processes run on Linux only")
def test_every_process_of_a_scan_traces_its_phases_into_one_file(tmp_path):
    trace = tmp_path / "trace.txt"
    traced = _scan({"TXSCAN_HELPERS": "1", "TXSCAN_TRACE_FILE": str(trace)})
    assert traced == _scan({"TXSCAN_HELPERS": "1"})
    phases: dict[str, set[str]] = {}
    for line in trace.read_text("utf-8").splitlines():
        pid, start, end, name = line.split(" ", 3)
        assert float(start) <= float(end)
        phases.setdefault(pid, set()).add(name)
    scan_pid = next(iter(phases))  # the scan writes first
    assert {"index", "models", "boundaries", "walk", "autocommit", "core"} <= phases[scan_pid]
    others = [names for pid, names in phases.items() if pid != scan_pid]
    assert any("index ahead" in names for names in others)  # the process indexing ahead
    assert any({"helper facts", "helper walks"} <= names for names in others)  # the helper
    drawn = subprocess.run([sys.executable, str(REPO / "scripts" / "trace_timeline.py"), str(trace)],
                           capture_output=True, text=True, check=True).stdout
    assert drawn.splitlines()[0].startswith(f"p0 (pid {scan_pid})")
    assert f"{len(phases)} processes" in drawn

