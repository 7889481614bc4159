"""Each application of a survey runs in its own process: a crash, a hang or a memory blow-up is
that application's failure (with its reason), the others are stored, the exit status says so,
and stopping the survey (SIGTERM, kill -9) leaves no process behind and a consistent store.

Faults are real: a SIGSEGV from an invalid read, a loop that never ends, allocations until
MemoryError under the real limit, a real node process that never answers. They are injected
through the TXSCAN_SURVEY_FAULT test hook (analyzer/survey/worker.py) or a TypeScript front end
script written here, because inputs that crash a front end today are being fixed at their root.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from analyzer.config import Config
from analyzer.survey import manifest, runner
from analyzer.survey.isolate import Limits
from analyzer.survey.worker import FAULT_VARIABLE
from conftest import SAMPLES
from test_survey import TXSCAN, Quiet, write_manifest


def marked_processes(mark: str) -> list[int]:
    """Live processes (not this one) whose environment holds `mark`: a survey's whole tree."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if f"TXSCAN_TEST_MARK={mark}".encode() in (entry / "environ").read_bytes().split(b"\0"):
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                if state != "Z":
                    found.append(int(entry.name))
        except OSError:
            continue
    return found


def wait_until(condition, seconds: float):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    return condition()


@pytest.fixture
def checkouts(tmp_path):
    folder = tmp_path / "checkouts"
    for name, sample in (("shop", "django/shop"), ("crash", "django/shop"), ("greedy", "django/ledger"),
                         ("slow", "django/ledger"), ("stuck-node", "typeorm/express-ledger")):
        shutil.copytree(SAMPLES / sample, folder / name, ignore=shutil.ignore_patterns(".txscan", "node_modules"))
    return folder


@pytest.fixture
def mark(monkeypatch):
    value = uuid.uuid4().hex
    monkeypatch.setenv("TXSCAN_TEST_MARK", value)
    return value


def app_rows(db: Path) -> dict[str, tuple[str, str | None]]:
    with sqlite3.connect(db) as connection:
        return {name: (status, error) for name, status, error in connection.execute(
            "SELECT name, status, error FROM apps")}


def test_segfault_and_memory_limit_fail_one_application_each(checkouts, tmp_path, monkeypatch, mark):
    monkeypatch.setenv(FAULT_VARIABLE, "crash=segfault,greedy=allocate")
    apps = [manifest.App("crash", "django"), manifest.App("greedy", "django"), manifest.App("shop", "django")]
    db = tmp_path / "survey.db"
    outcomes = {o.name: o for o in runner.run(apps, checkouts, db, Config(), jobs=2, reporter=Quiet(3),
                                              limits=Limits(seconds=300, memory_mb=512))}
    assert outcomes["crash"].status == "failed"
    assert outcomes["crash"].detail == "worker killed by SIGSEGV (Segmentation fault)"
    assert outcomes["greedy"].status == "failed"
    assert outcomes["greedy"].detail == "memory limit of 512 MiB reached (MemoryError)"
    assert outcomes["shop"].status == "scanned" and outcomes["shop"].transactions > 0
    rows = app_rows(db)
    assert rows["crash"] == ("failed", "worker killed by SIGSEGV (Segmentation fault)")
    assert rows["greedy"][0] == "failed" and rows["shop"] == ("ok", None)
    with sqlite3.connect(db) as connection:
        stored = connection.execute("SELECT count(*) FROM transactions t JOIN apps a ON a.id = t.app_id"
                                    " WHERE a.name = 'shop'").fetchone()[0]
    assert stored == 2 * outcomes["shop"].transactions  # both CDA modes
    assert marked_processes(mark) == []


def test_time_limit_kills_the_application_and_its_processes(checkouts, tmp_path, monkeypatch, mark):
    monkeypatch.setenv(FAULT_VARIABLE, "slow=hang")
    started = time.monotonic()
    [outcome] = runner.run([manifest.App("slow", "django")], checkouts, tmp_path / "survey.db", Config(),
                           reporter=Quiet(1), limits=Limits(seconds=3, memory_mb=0))
    assert outcome.status == "failed" and outcome.detail == "timed out after 3 s"
    assert time.monotonic() - started < 60
    assert marked_processes(mark) == []


def test_node_front_end_stuck_past_the_time_limit_is_killed(checkouts, tmp_path, monkeypatch, mark):
    # A front end script that never answers: node itself must be killed, not only the worker.
    sleeper = tmp_path / "sleeper.js"
    sleeper.write_text("setInterval(() => {}, 1000);\n")
    monkeypatch.setenv("TXSCAN_TS_PLUGIN", str(sleeper))
    [outcome] = runner.run([manifest.App("stuck-node", "typeorm")], checkouts, tmp_path / "survey.db", Config(),
                           reporter=Quiet(1), limits=Limits(seconds=4, memory_mb=0))
    assert outcome.status == "failed" and outcome.detail == "timed out after 4 s"
    assert marked_processes(mark) == []


def run_cli(*arguments, env=None):
    return subprocess.run([*TXSCAN, "survey", *map(str, arguments)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=600)


def test_exit_status_when_applications_fail_or_are_missing(checkouts, tmp_path):
    crash = {FAULT_VARIABLE: "crash=segfault"}
    some_failed = write_manifest(tmp_path / "some.toml", [{"name": "crash"}, {"name": "shop"}])
    result = run_cli(some_failed, "--checkouts", checkouts, "--db", tmp_path / "some.db", "-j", "2", env=crash)
    assert result.returncode == 1, result.stderr
    assert "survey: crash: failed: worker killed by SIGSEGV" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert app_rows(tmp_path / "some.db")["shop"] == ("ok", None)

    all_failed = write_manifest(tmp_path / "all.toml", [{"name": "crash"}])
    result = run_cli(all_failed, "--checkouts", checkouts, "--db", tmp_path / "all.db", env=crash)
    assert result.returncode == 1 and "failed 1" in result.stdout

    # Missing checkouts: the present applications are surveyed, every missing one is listed.
    missing = write_manifest(tmp_path / "missing.toml", [{"name": "gone", "url": "https://example.org/gone.git"},
                                                          {"name": "shop"}, {"name": "lost"}])
    result = run_cli(missing, "--checkouts", checkouts, "--db", tmp_path / "missing.db")
    assert result.returncode == 1
    assert "survey: gone: missing: no checkout at" in result.stderr
    assert "git clone https://example.org/gone.git" in result.stderr
    assert "survey: lost: missing:" in result.stderr
    assert app_rows(tmp_path / "missing.db") == {"shop": ("ok", None)}

    fine = write_manifest(tmp_path / "fine.toml", [{"name": "shop"}])
    assert run_cli(fine, "--checkouts", checkouts, "--db", tmp_path / "missing.db").returncode == 0


def start_survey(tmp_path: Path, checkouts: Path, mark: str) -> tuple[subprocess.Popen, Path, Path]:
    """A survey with one quick application and two that never end (in Python, in node)."""
    sleeper = tmp_path / "sleeper.js"
    sleeper.write_text("setInterval(() => {}, 1000);\n")
    path = write_manifest(tmp_path / "corpus.toml", [{"name": "shop"}, {"name": "slow"},
                                                     {"name": "stuck-node", "orm": "typeorm"}])
    db = tmp_path / "survey.db"
    (tmp_path / "tmp").mkdir()
    env = {**os.environ, "TXSCAN_TEST_MARK": mark, FAULT_VARIABLE: "slow=hang", "TXSCAN_TS_PLUGIN": str(sleeper),
           "TMPDIR": str(tmp_path / "tmp")}
    process = subprocess.Popen([*TXSCAN, "survey", str(path), "--checkouts", str(checkouts), "--db", str(db),
                                "-j", "3"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return process, path, db


def node_running(mark: str) -> bool:
    for pid in marked_processes(mark):
        try:
            if Path(f"/proc/{pid}/exe").resolve().name == "node":
                return True
        except OSError:
            continue
    return False


def shop_stored(db: Path) -> bool:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
            return connection.execute("SELECT count(*) FROM apps WHERE name = 'shop'").fetchone()[0] == 1
    except sqlite3.Error:
        return False


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT], ids=lambda s: s.name)
def test_stopping_the_survey_leaves_no_process_and_a_consistent_store(checkouts, tmp_path, how):
    mark = uuid.uuid4().hex
    process, path, db = start_survey(tmp_path, checkouts, mark)
    try:
        assert wait_until(lambda: shop_stored(db) and node_running(mark), 240), "the survey did not get going"
        assert len(marked_processes(mark)) >= 3  # main process, the stuck worker, the node worker and node
        process.send_signal(how)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    stderr = process.stderr.read()
    assert wait_until(lambda: not marked_processes(mark), 30), f"left running: {marked_processes(mark)}"
    if how is signal.SIGKILL:
        assert process.returncode == -signal.SIGKILL
    else:
        assert process.returncode == 128 + how, stderr
        assert f"stopped by {how.name}" in stderr and "Traceback" not in stderr
    with sqlite3.connect(db) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert connection.execute("PRAGMA foreign_key_check").fetchall() == []
    assert app_rows(db) == {"shop": ("ok", None)}
    assert wait_until(lambda: not any((tmp_path / "tmp").iterdir()), 10), "scratch folders left behind"
    # Resumable: the stored application is kept, nothing is scanned twice.
    result = run_cli(write_manifest(tmp_path / "shop.toml", [{"name": "shop"}]), "--checkouts", checkouts, "--db", db)
    assert result.returncode == 0 and "unchanged 1" in result.stdout
