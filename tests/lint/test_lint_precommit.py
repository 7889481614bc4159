"""The pre-commit hooks, run by pre-commit itself (`try-repo`) on a git repository made here.

The `txscan-lint-system` hook uses the txscan of this environment; the `txscan-lint` hook makes
pre-commit build its own virtualenv from this repository (PyPI downloads, about two minutes), so
that test runs when TXSCAN_TEST_PRECOMMIT_INSTALL=1 (CI sets it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
PROJECT = HERE / "projects" / "checkout"


@pytest.fixture
def git_project(tmp_path) -> Path:
    folder = tmp_path / "app"
    shutil.copytree(PROJECT, folder, ignore=shutil.ignore_patterns(".txscan"))
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "app"]):
        subprocess.run(["git", *args], cwd=folder, check=True, env=env, capture_output=True)
    return folder


def try_repo(folder: Path, hook: str, *args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "PRE_COMMIT_HOME": str(folder.parent / "pre-commit-home")}
    env.pop("GITHUB_STEP_SUMMARY", None)
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(REPO), hook, *args], cwd=folder,
                          capture_output=True, text=True, env=env, timeout=timeout)


def test_system_hook_reports_the_staged_files_only(git_project):
    completed = try_repo(git_project, "txscan-lint-system", "--files", "shop/services.py")
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "shop/services.py:14:18: TX103 " in completed.stdout
    assert "shop/payments.py" not in completed.stdout  # not passed by pre-commit, so not reported


def test_system_hook_passes_clean_files(git_project):
    completed = try_repo(git_project, "txscan-lint-system", "--files", "shop/models.py")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "Passed" in completed.stdout


@pytest.mark.skipif(not os.environ.get("TXSCAN_TEST_PRECOMMIT_INSTALL"),
                    reason="installs txscan from PyPI into a fresh virtualenv (set TXSCAN_TEST_PRECOMMIT_INSTALL=1)")
def test_python_hook_installs_and_runs(git_project):
    completed = try_repo(git_project, "txscan-lint", "--all-files", timeout=900)
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "shop/payments.py:5:21: TX101 " in completed.stdout
