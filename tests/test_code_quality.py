"""Static checks of txscan's own code: no undefined or unused names, no syntax errors."""

import subprocess
import sys

from conftest import ROOT


def test_ruff_finds_no_errors():
    completed = subprocess.run([sys.executable, "-m", "ruff", "check", "--select", "F,E9", "--output-format",
                                "concise", "analyzer", "scripts", "tests"], capture_output=True, text=True, cwd=ROOT)
    assert completed.returncode == 0, completed.stdout + completed.stderr
