"""`kill -9` of a process in the middle of writing a store leaves it consistent: the previous
scan of the application, complete, and a re-run completes the new one."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

from hostile_inputs import ROOT, assert_clean, django_app, run

from analyzer import store

# A real writer process: stores application "victim" with N transactions, through write_app.
WRITER = """
import sys
from pathlib import Path
from analyzer import store

def analysis(n):
    txn = {"id": "", "file": "a.py", "line": 1, "end_line": 2, "function": "f", "boundary": "atomic-decorator",
           "interactivity": "one-shot", "rw_inferable": "full", "read_set": [], "write_set": [], "reasons": [],
           "statements": [{"id": f"s{i}", "file": "a.py", "line": 2, "entity": "A", "kind": "update",
                           "api": "update", "attributes": ["pk"], "inferability": "cda", "flags": [], "via": []}
                          for i in range(20)],
           "suggestions": []}
    return {"transactions": [dict(txn, id=f"a.py:{i}", line=i) for i in range(n)], "entities": [], "diagnostics": []}

db = store.connect(Path(sys.argv[1]))
n = int(sys.argv[2])
app = {"name": "victim", "root": "/x", "frontend": "django", "tool_version": "test"}
print("writing", flush=True)
while True:
    store.write_app(db, app, [{"path": "a.py", "lines": 2}], "", {"pk": analysis(n), "auto": analysis(n)})
    if n < 1000:
        break
"""


def counts(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    result = db.execute("SELECT (SELECT count(*) FROM apps), (SELECT count(*) FROM transactions),"
                        " (SELECT count(*) FROM statements)").fetchone()
    db.close()
    return result


def test_kill_9_during_write_keeps_the_previous_scan(tmp_path):
    path = tmp_path / "store.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", WRITER, str(path), "10"], check=True, env=env, timeout=120)
    assert counts(path) == (1, 20, 400)

    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), "4000"], env=env, stdout=subprocess.PIPE)
    assert writer.stdout.readline() == b"writing\n"
    journal = path.with_name(path.name + "-journal")
    deadline = time.monotonic() + 120
    while not journal.exists() and time.monotonic() < deadline:   # inside write_app's transaction
        time.sleep(0.005)
    assert journal.exists()
    time.sleep(0.2)
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=30)
    assert writer.returncode == -signal.SIGKILL

    assert counts(path) == (1, 20, 400)            # the previous complete state, nothing half-written
    reopened = store.connect(path)                  # still a store txscan accepts and writes
    reopened.close()


def test_kill_9_of_a_scan_then_rerun_completes(tmp_path):
    app = django_app(tmp_path / "src")
    path = tmp_path / "store.db"
    scan = subprocess.Popen([sys.executable, "-m", "analyzer.cli", "scan", str(app), "--db", str(path)],
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, cwd=ROOT)
    deadline = time.monotonic() + 60
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.005)
    scan.send_signal(signal.SIGKILL)
    scan.wait(timeout=30)
    if path.exists():
        apps, _, _ = counts(path)
        assert apps in (0, 1)
    assert_clean(run("scan", app, "--db", path), 0)
    assert counts(path)[0] == 1
