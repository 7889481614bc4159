"""Builders and checks shared by the hostile-input suite (tests/hostile/).

Every input is generated at run time in a temporary folder; nothing large is committed. Every
command runs as a real `txscan` process, and every check of its outcome goes through
`assert_clean`: exit status 0, 1 or 2 only, and no traceback on any stream.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from test_bad_input import GOOD_MODELS as MODELS  # the same small app
from test_bad_input import GOOD_SERVICE as SERVICE

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "corpus" / "samples"
TXSCAN = [sys.executable, "-m", "analyzer.cli"]
TIMEOUT = 240



def django_app(root: Path, extra: dict[str, str | bytes] | None = None) -> Path:
    """A two-file Django app with one transaction (`app.services.touch`), plus `extra` files."""
    (root / "app").mkdir(parents=True, exist_ok=True)
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "models.py").write_text(MODELS)
    (root / "app" / "services.py").write_text(SERVICE)
    for name, content in (extra or {}).items():
        path = root / "app" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")
    return root


def typeorm_app(root: Path) -> Path:
    """A copy of the express-ledger sample (its own code, with expected results)."""
    shutil.copytree(SAMPLES / "typeorm" / "express-ledger", root, symlinks=True)
    return root


def run(*args, env: dict | None = None) -> subprocess.CompletedProcess:
    """`txscan ARGS` through its real entry point (`analyzer.cli.main`), in this process.

    A process per case would cost most of the suite's time in interpreter start-up; the inputs
    that can crash or hang a process (deep nesting, FIFOs, killed writers) use `run_process`.
    """
    from analyzer import cli

    stdout, stderr = io.StringIO(), io.StringIO()
    saved_argv, saved_env = sys.argv, dict(os.environ)
    sys.argv = ["txscan", *map(os.fspath, args)]
    os.environ.update(env or {})
    code = 0
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            cli.main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv = saved_argv
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(sys.argv, code, stdout.getvalue(), stderr.getvalue())


def run_process(*args, env: dict | None = None, prefix: list[str] | None = None, cwd: Path | None = None,
                timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    """`txscan ARGS` as its own process (for inputs that could crash or hang it)."""
    full_env = {**os.environ, **(env or {})}
    full_env["PYTHONPATH"] = str(ROOT) + os.pathsep + full_env.get("PYTHONPATH", "")
    return subprocess.run([*(prefix or []), *TXSCAN, *map(os.fspath, args)], capture_output=True,
                          text=True, errors="replace", env=full_env, cwd=cwd or ROOT, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def assert_clean(result: subprocess.CompletedProcess, status: int | None = None) -> None:
    """The rules every run obeys whatever the input: 0/1/2, no traceback, errors in one line."""
    assert result.returncode in (0, 1, 2), (result.returncode, result.stderr[-2000:])
    for stream in (result.stdout, result.stderr):
        assert "Traceback (most recent call last)" not in stream, stream[-3000:]
        assert "    at " not in stream, stream[-3000:]  # a node stack trace
    if status is not None:
        assert result.returncode == status, (result.returncode, result.stdout[-1000:], result.stderr[-2000:])
    if result.returncode == 2:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert lines, "exit 2 without a message"
        assert lines[0].startswith("txscan: ") or "Usage:" in result.stderr, result.stderr


def scan_json(root: Path, *args, process: bool = False, **kwargs) -> dict:
    result = (run_process if process else run)("scan", root, "--format", "json", "--no-db", *args, **kwargs)
    assert_clean(result, 0)
    return json.loads(result.stdout)


def diagnostics_by_file(doc: dict) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for d in doc["diagnostics"]:
        found.setdefault(d["file"], set()).add(d["code"])
    return found


def functions(doc: dict) -> list[str]:
    return sorted(t["function"] for t in doc["transactions"])


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def world_readable_tmp() -> Path:
    """A temporary folder another user can enter (pytest's own tmp folders are private)."""
    folder = Path(tempfile.mkdtemp(prefix="txscan-hostile-"))
    folder.chmod(0o755)
    return folder


def unprivileged() -> list[str]:
    """Command prefix running txscan as a user file permissions apply to (root ignores chmod 000)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: permissions cannot be tested")
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
