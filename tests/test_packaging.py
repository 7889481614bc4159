"""Packaging for CI: a wheel built from a clean clone carries both front ends, installs into a fresh
virtual environment with its dependencies from the package index, scans a TypeORM sample exactly as
the development tree does, and says in one line what is missing (node, the report extra)."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT, SAMPLES

TYPEORM_SAMPLE = SAMPLES / "typeorm" / "nest-shop"


def _run(command, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, timeout=900, **kwargs)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv with the wheel built from a `git clone` of this checkout's HEAD."""
    tmp = tmp_path_factory.mktemp("packaging")
    clone = tmp / "clone"
    assert _run(["git", "clone", "--quiet", str(ROOT), str(clone)]).returncode == 0
    assert not (clone / "analyzer" / "typeorm" / "_plugin").exists()  # a clean clone has no build
    built = _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp / "wheels"), "."],
                 cwd=clone)
    assert built.returncode == 0, built.stderr
    wheel = next((tmp / "wheels").glob("txscan-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "analyzer/typeorm/_plugin/dist/cli.js" in names
    assert "analyzer/typeorm/_plugin/node_modules/typescript/lib/typescript.js" in names
    assert "analyzer/typeorm/_plugin/dist/typescript.code-cache" in names  # made by the build's node
    env_dir = tmp / "venv"
    venv.create(env_dir, with_pip=True)
    pip = _run([str(env_dir / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)])
    assert pip.returncode == 0, pip.stderr
    return env_dir


def test_the_wheel_scans_a_typeorm_sample_like_the_development_tree(installed, tmp_path):
    command = ["scan", str(TYPEORM_SAMPLE), "--format", "json", "--no-db", "--no-cache"]
    # Run from elsewhere, so nothing of the source tree can be picked up.
    from_wheel = _run([str(installed / "bin" / "txscan"), *command], cwd=tmp_path)
    assert from_wheel.returncode == 0, from_wheel.stderr
    from_tree = _run([sys.executable, "-m", "analyzer.cli", *command], cwd=ROOT)
    assert from_tree.returncode == 0, from_tree.stderr
    assert '"frontend": "typeorm"' in from_wheel.stdout
    assert from_wheel.stdout == from_tree.stdout


def test_the_wheel_installs_without_the_report_extra_and_says_how_to_get_it(installed, tmp_path):
    listing = _run([str(installed / "bin" / "python"), "-m", "pip", "list", "--format", "freeze"]).stdout.lower()
    assert "matplotlib" not in listing and "jinja2" not in listing
    report = _run([str(installed / "bin" / "txscan"), "report", str(tmp_path / "x.db"), "--out", str(tmp_path)])
    assert report.returncode == 2
    assert report.stderr == ("txscan: error: txscan report needs jinja2 and matplotlib; install them with: "
                             "pip install 'txscan[report]'\n")


def test_a_typeorm_scan_without_node_is_one_clear_line(installed, tmp_path):
    env = {**os.environ, "PATH": str(installed / "bin")}  # the venv only: no node
    # --no-cache: the sample's warm cache (left by another test) would give its records without node.
    scan = _run([str(installed / "bin" / "txscan"), "scan", str(TYPEORM_SAMPLE), "--no-db", "--no-cache"], env=env,
                cwd=tmp_path)
    assert scan.returncode == 2
    assert scan.stderr == ("txscan: error: node was not found on PATH; it is needed to scan TypeScript "
                           "applications\n")
