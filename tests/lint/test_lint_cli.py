"""The `txscan lint` command as a user runs it: exit codes, errors as one line, colour, config."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lintkit import FIXTURES

HERE = Path(__file__).resolve().parent
PROJECT = HERE / "projects" / "checkout"
TXSCAN = [sys.executable, "-m", "analyzer.cli"]
REPO = HERE.parents[1]


def txscan(*args: str, cwd: Path = PROJECT, env: dict | None = None) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    environment.pop("GITHUB_STEP_SUMMARY", None)
    # A lint keeps its warm cache in the project's .txscan/ by default; the committed fixtures are
    # linted without one, so the repository is never written (a copy under tmp_path keeps the default).
    in_repository = Path(cwd).resolve().is_relative_to(REPO)
    return subprocess.run([*TXSCAN, "lint", *(("--no-cache",) if in_repository else ()), *args],
                          capture_output=True, text=True, cwd=cwd, env=environment, timeout=300)


@pytest.fixture
def project(tmp_path) -> Path:
    copy = tmp_path / "checkout"
    shutil.copytree(PROJECT, copy)
    return copy


@pytest.mark.parametrize("fmt", ["concise", "full", "json", "sarif", "github"])
def test_findings_exit_1_in_every_format(fmt):
    completed = txscan(".", "--format", fmt)
    assert completed.returncode == 1, completed.stderr
    assert completed.stderr == ""


def test_exit_zero_flag():
    assert txscan(".", "--exit-zero").returncode == 0


def test_clean_paths_exit_0():
    # The project has findings, but none in this file: the project is analysed, the path reported.
    completed = txscan("shop/models.py")
    assert completed.returncode == 0, completed.stdout
    assert completed.stdout == "All checks passed!\n"


def test_only_the_given_paths_are_reported():
    completed = txscan("shop/payments.py")
    assert completed.returncode == 1
    # The HTTP call is found because the whole project is analysed (the transaction is in services.py).
    assert completed.stdout.splitlines()[0].startswith("shop/payments.py:5:21: TX101 ")
    assert "services.py" not in completed.stdout.split("\n", 1)[0]
    assert len(completed.stdout.splitlines()) == 2


def test_select_and_ignore():
    only = txscan(".", "--select", "TX103")
    assert only.returncode == 1 and only.stdout.count(": TX") == 1 and ": TX103 " in only.stdout
    rest = txscan(".", "--ignore", "TX1,TX303")
    assert rest.returncode == 0, rest.stdout
    extended = txscan(".", "--select", "TX303", "--extend-select", "TX2,TX110")
    assert [line.split(" ")[1] for line in extended.stdout.splitlines()[:-1]] == ["TX110", "TX303"]


@pytest.mark.parametrize("args, message", [
    (("--select", "TX999"), "unknown rule code or prefix 'TX999'"),
    (("--format", "xml"), "--format must be one of"),
    (("missing/path.py",), "missing/path.py does not exist"),
])
def test_usage_errors_exit_2_with_one_line(args, message):
    completed = txscan(*(args if args[0] == "missing/path.py" else (".", *args)))
    assert completed.returncode == 2
    assert completed.stderr.count("\n") == 1 and message in completed.stderr
    assert "Traceback" not in completed.stderr


@pytest.mark.parametrize("section, message", [
    ('[tool.txscan.lint]\nselect = "TX101"\n', "select must be a list of rule codes"),
    ('[tool.txscan.lint]\nignore = ["TX77"]\n', "unknown rule code or prefix 'TX77'"),
    ('[tool.txscan.lint]\nselct = ["TX101"]\n', "unknown key 'selct'"),
    ('[tool.txscan.lint\n', "pyproject.toml"),
])
def test_bad_settings_exit_2_with_one_line(project, section, message):
    (project / "pyproject.toml").write_text(section, encoding="utf-8")
    completed = txscan(".", cwd=project)
    assert completed.returncode == 2
    assert completed.stderr.count("\n") == 1 and message in completed.stderr, completed.stderr


def test_pyproject_settings_and_per_file_ignores(project):
    (project / "pyproject.toml").write_text(
        '[tool.txscan.lint]\nignore = ["TX110"]\n[tool.txscan.lint.per-file-ignores]\n"shop/pay*.py" = ["TX101"]\n',
        encoding="utf-8")
    codes = {line.split(" ")[1] for line in txscan(".", cwd=project).stdout.splitlines()[:-1]}
    assert codes == {"TX103", "TX303"}


def test_nearest_settings_file_wins(project):
    (project / "pyproject.toml").write_text('[tool.txscan.lint]\nselect = ["TX101"]\n', encoding="utf-8")
    (project / "shop" / "txscan.toml").write_text('[lint]\nselect = ["TX303"]\n', encoding="utf-8")
    codes = {line.split(" ")[1] for line in txscan(".", cwd=project).stdout.splitlines()[:-1]}
    assert codes == {"TX303"}  # every finding is in shop/, where shop/txscan.toml is nearest
    (project / "shop" / "txscan.toml").unlink()
    codes = {line.split(" ")[1] for line in txscan(".", cwd=project).stdout.splitlines()[:-1]}
    assert codes == {"TX101"}


def test_command_line_select_overrides_settings(project):
    (project / "pyproject.toml").write_text('[tool.txscan.lint]\nselect = ["TX101"]\n', encoding="utf-8")
    codes = {line.split(" ")[1] for line in txscan(".", "--select", "TX103", cwd=project).stdout.splitlines()[:-1]}
    assert codes == {"TX103"}


def test_no_colour_unless_a_terminal_asks(project):
    plain = txscan(".", env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert "\x1b[" not in plain.stdout
    forced = txscan(".", env={"FORCE_COLOR": "1"})
    assert "\x1b[" in forced.stdout
    piped = txscan(".")
    assert "\x1b[" not in piped.stdout


def test_paths_of_two_projects_are_refused():
    one = FIXTURES / "lost-update" / "django"
    two = FIXTURES / "write-in-loop" / "django"
    completed = txscan(str(one), str(two))
    assert completed.returncode == 2 and "different projects" in completed.stderr


def test_typescript_project_from_a_subfolder():
    folder = FIXTURES / "missing-await" / "typeorm"
    completed = txscan("src/orders.ts", cwd=folder)
    assert completed.returncode == 1
    assert [line.split(" ")[1] for line in completed.stdout.splitlines()[:-1]] == ["TX306", "TX306"]
