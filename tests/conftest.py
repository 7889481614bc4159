"""Shared fixtures: scans are cached per session because several tests read the same scan."""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import os
import sys
from pathlib import Path

import pytest

from analyzer import config
from analyzer.config import Config
from analyzer.scan import scan

# Core tests build IR by hand with tests/core/ir_builders.py.
sys.path.insert(0, str(Path(__file__).resolve().parent / "core"))

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "corpus" / "samples"
FIXTURES = Path(__file__).resolve().parent / "fixtures"

# The fixtures are applications to scan, never tests to run: their own tests/ folders (which the
# front ends must skip) hold test_*.py modules that import Django.
collect_ignore_glob = ["fixtures/*"]


@pytest.fixture
def collector_on():
    """The cyclic garbage collector on before and after the test, whatever the test did with it
    (the process phases pause and restart it)."""
    gc.enable()
    yield
    gc.enable()


def django_projects() -> list[Path]:
    """Every Django fixture with expected results, then every Django sample."""
    return sorted(p.parent for p in (FIXTURES / "django").glob("*/expected.json")) + \
        sorted(p for p in (SAMPLES / "django").iterdir() if p.is_dir())


def record_calls(monkeypatch, owner, name: str, projects: list[Path], *, replaced_in=None) -> list[tuple]:
    """(*arguments, result) of every call of owner.<name> while each project is scanned (rewrites off),
    to compare a shortcut's answers with its slow path's. replaced_in: the module whose reference is
    replaced, when the caller imported the function under its own name."""
    calls: list[tuple] = []
    original = getattr(owner, name)

    def recording(*arguments):
        result = original(*arguments)
        calls.append((*arguments, result))
        return result

    monkeypatch.setattr(replaced_in or owner, name, recording)
    for project in projects:
        settings = config.load(project) if (project / "pyproject.toml").is_file() else Config()
        scan(project, settings, "django", rewrites=False)
    return calls


def _caches_in_repository() -> set[str]:
    """The .txscan folders under tests/ and corpus/ (fixtures and samples), found without entering them."""
    found = set()
    for base in (ROOT / "tests", ROOT / "corpus"):
        for folder, subfolders, _ in os.walk(base):
            if ".txscan" in subfolders:
                found.add(os.path.relpath(os.path.join(folder, ".txscan"), ROOT))
            subfolders[:] = [name for name in subfolders if name not in (".txscan", "node_modules", "__pycache__")]
    return found


@pytest.fixture(autouse=True, scope="module")
def repository_left_unwritten(request):
    """A test runs txscan on copies (tmp_path) or with --no-cache: a warm cache written into a committed
    fixture or sample outlives the run and is copied along by later tests (a pre-commit test then saw
    txscan rewrite it and failed)."""
    before = _caches_in_repository()
    yield
    written = sorted(_caches_in_repository() - before)
    if written:
        # Under pytest-xdist another worker's module may be the writer: the message names when, not who.
        pytest.fail(f"a warm cache was written into the repository while {request.module.__name__} ran: "
                    f"{', '.join(written)}", pytrace=False)


@functools.lru_cache(maxsize=None)
def scan_cached(path: str, frontend: str | None = None):
    return scan(Path(path), Config(), frontend)


def sample_apps(orm: str) -> list[Path]:
    folder = SAMPLES / orm
    if not folder.is_dir():
        return []
    return sorted(p.parent for p in folder.glob("*/expected.json"))


def load_expected(app: Path) -> dict:
    return json.loads((app / "expected.json").read_text("utf-8"))


@pytest.fixture
def scan_app():
    return lambda path, frontend=None: scan_cached(str(path), frontend)


def write_files(root: Path, files: dict[str, str]) -> Path:
    """`files` (path under `root` -> text) written at `root`, folders made as needed."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def django_sample_texts() -> list[tuple[Path, str]]:
    """(path, text) of every Python module of the Django samples and fixtures that reads as UTF-8
    (a few fixtures are deliberately not)."""
    out = []
    for path in sorted([*(ROOT / "corpus" / "samples" / "django").rglob("*.py"),
                        *(ROOT / "tests" / "fixtures" / "django").rglob("*.py")]):
        try:
            out.append((path, path.read_text("utf-8")))
        except UnicodeDecodeError:
            continue
    return out


def ir_statements(steps: list) -> list[dict]:
    """The statement steps of an IR transaction's `steps`, branches' arms and loop bodies included,
    in order."""
    out = []
    for step in steps:
        if step.get("node") == "statement":
            out.append(step)
        for arm in step.get("arms", []):
            out += ir_statements(arm)
        out += ir_statements(step.get("body", []))
    return out


def replace_once(path: Path, old: str, new: str) -> None:
    """The first `old` of the file replaced by `new`; `old` must be there (an edit a test makes)."""
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


@contextlib.contextmanager
def background_writers(monkeypatch):
    """The background writers (analyzer.forked.in_background) started inside the block, in the
    order they were started; they run as usual."""
    from analyzer import forked

    writers: list = []
    in_background = forked.in_background

    def recording(task):
        writers.append(in_background(task))
        return writers[-1]

    monkeypatch.setattr(forked, "in_background", recording)
    try:
        yield writers
    finally:
        monkeypatch.setattr(forked, "in_background", in_background)


def django_project(root: Path, app: str, model: str, sources: dict[str, str]) -> Path:
    """A small Django project written at `root`: manage.py, package `app` with one model class
    `model` (a `name` field) in models.py, and `sources` (file name in the package -> text)."""
    (root / app).mkdir(parents=True)
    (root / "manage.py").write_text("", "utf-8")
    (root / app / "__init__.py").write_text("", "utf-8")
    (root / app / "models.py").write_text(
        f"from django.db import models\n\n\nclass {model}(models.Model):\n    name = models.CharField(max_length=20)\n",
        "utf-8")
    for name, text in sources.items():
        (root / app / name).write_text(text, "utf-8")
    return root


def typeorm_project(root: Path, sources: dict[str, str]) -> Path:
    """A small TypeORM project written at `root`: package.json depending on typeorm, and
    `sources` (path under src/ -> text)."""
    (root / "src").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "shop", "dependencies": {"typeorm": "0.3.20"}}\n', "utf-8")
    for name, text in sources.items():
        (root / "src" / name).write_text(text, "utf-8")
    return root
