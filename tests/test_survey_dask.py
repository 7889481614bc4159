"""`txscan survey --scheduler`: one Dask task per application on a real dask.distributed cluster
(a LocalCluster listening on TCP, its worker threads in this process), compared row by row with
a local survey of the same manifest."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import tomllib
from pathlib import Path

import pytest
from dask.distributed import LocalCluster

from analyzer.survey.worker import FAULT_VARIABLE
from test_survey import TXSCAN

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "corpus" / "samples"


@pytest.fixture(scope="module")
def scheduler():
    # Two threads in one worker: two applications at a time, each in its own process (2 cores here).
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tcp", host="127.0.0.1",
                      dashboard_address=None) as cluster:
        yield cluster.scheduler_address


@pytest.fixture
def manifest(tmp_path, monkeypatch):
    """The bundled samples plus "crash", the shop sample under another name whose worker segfaults."""
    monkeypatch.setenv(FAULT_VARIABLE, "crash=segfault")  # seen by the CLI and by the in-process Dask worker
    text = (ROOT / "corpus" / "samples.toml").read_text("utf-8")
    path = tmp_path / "samples.toml"
    path.write_text(text + '\n[[app]]\nname = "crash"\norm = "django"\ncheckout = "django/shop"\n')
    return path


def survey(*arguments) -> subprocess.CompletedProcess:
    return subprocess.run([*TXSCAN, "survey", *map(str, arguments)], capture_output=True, text=True,
                          env=os.environ.copy(), timeout=900)


def rows(db: Path) -> dict[str, list[tuple]]:
    """Every stored row, row ids replaced by the application name and transaction key they stand for.

    Row ids follow the order in which results arrive, which differs between runs; everything
    else must be identical. `timings` holds wall times only and is left out."""
    connection = sqlite3.connect(db)
    dump: dict[str, list[tuple]] = {}

    def table(name: str, query: str, drop: set[str]) -> None:
        cursor = connection.execute(query)
        keep = [i for i, d in enumerate(cursor.description) if d[0] not in drop]
        dump[name] = sorted((tuple(row[i] for i in keep) for row in cursor), key=repr)

    table("apps", "SELECT * FROM apps", {"id"})
    for name in ("files", "ir", "entities", "diagnostics"):
        table(name, f"SELECT a.name AS app_name, x.* FROM {name} x JOIN apps a ON a.id = x.app_id", {"app_id"})
    table("transactions", "SELECT a.name AS app_name, t.* FROM transactions t JOIN apps a ON a.id = t.app_id",
          {"id", "app_id"})
    for name in ("reasons", "statements", "suggestions"):
        table(name, f"SELECT a.name AS app_name, t.cda_mode, t.txn_key, x.* FROM {name} x"
                    " JOIN transactions t ON t.id = x.transaction_id JOIN apps a ON a.id = t.app_id",
              {"transaction_id"})
    dump["timed apps"] = sorted(r[0] for r in connection.execute(
        "SELECT a.name FROM timings t JOIN apps a ON a.id = t.app_id"))
    connection.close()
    return dump


def test_dask_survey_stores_the_same_rows_as_a_local_survey(scheduler, manifest, tmp_path):
    names = [app["name"] for app in tomllib.loads(manifest.read_text())["app"]]
    local = survey(manifest, "--checkouts", SAMPLES, "--db", tmp_path / "local.db", "-j", "2")
    distributed = survey(manifest, "--checkouts", SAMPLES, "--db", tmp_path / "dask.db", "--scheduler", scheduler)
    for result in (local, distributed):
        # One application crashed: recorded as failed, the others stored, the exit status says so.
        assert result.returncode == 1, result.stderr
        assert "survey: crash: failed: worker killed by SIGSEGV" in result.stderr
        assert f"failed 1, scanned {len(names) - 1}" in result.stdout
    expected = rows(tmp_path / "local.db")
    assert sorted(r[0] for r in expected["apps"]) == sorted(names)
    assert {r[0]: r[8] for r in expected["apps"]} == {n: "failed" if n == "crash" else "ok" for n in names}
    assert len(expected["transactions"]) > 100 and len(expected["statements"]) > 100
    assert rows(tmp_path / "dask.db") == expected

    # Resumable: a second run on the cluster keeps every stored application and retries the failed one.
    again = survey(manifest, "--checkouts", SAMPLES, "--db", tmp_path / "dask.db", "--scheduler", scheduler)
    assert again.returncode == 1
    assert f"failed 1, unchanged {len(names) - 1}" in again.stdout
    assert rows(tmp_path / "dask.db") == expected


def test_checkout_missing_or_different_on_the_worker_is_that_applications_failure(scheduler, tmp_path):
    from analyzer.config import Config
    from analyzer.survey import distributed, manifest
    from analyzer.survey.fingerprint import source_hashes
    from analyzer.survey.isolate import Limits

    shop = SAMPLES / "django" / "shop"
    jobs = [(manifest.App("shop", "django"), shop, source_hashes(shop)),
            (manifest.App("elsewhere", "django"), tmp_path / "not-on-this-worker", {"a.py": "0" * 64}),
            # The survey hashed one version of the sources, the worker holds another.
            (manifest.App("other", "django"), SAMPLES / "django" / "ledger", source_hashes(shop))]
    client = distributed.connect(scheduler)
    try:
        results = {job[0].name: payload for job, payload in
                   distributed.cluster_results(client, jobs, Config(), Limits(seconds=300, memory_mb=0))}
    finally:
        client.close()
    assert results["shop"]["ok"] and results["shop"]["analyses"]["pk"]["transactions"]
    assert not results["elsewhere"]["ok"]
    assert results["elsewhere"]["error"].startswith(f"no checkout at {tmp_path / 'not-on-this-worker'} on ")
    assert not results["other"]["ok"] and results["other"]["error"].endswith("differs from the one the survey hashed")


def test_without_dask_installed_scheduler_is_a_usage_error_and_jobs_work(tmp_path):
    # dask made unimportable in the CLI's own process, the way it is when the extra is not installed.
    program = ("import sys; sys.modules['dask'] = sys.modules['distributed'] = None; "
               "sys.modules['dask.distributed'] = None; from analyzer.cli import main; main()")
    manifest = tmp_path / "one.toml"
    manifest.write_text('[[app]]\nname = "shop"\ncheckout = "django/shop"\n')
    result = subprocess.run([os.sys.executable, "-c", program, "survey", str(manifest), "--checkouts", str(SAMPLES),
                             "--db", str(tmp_path / "s.db"), "--scheduler", "tcp://127.0.0.1:8786"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert result.stderr.strip() == ("txscan: error: --scheduler needs dask.distributed, which is not installed; "
                                     "install it with: pip install 'txscan[dask]'")
    assert not (tmp_path / "s.db").exists()
    # Without --scheduler, dask is never needed: -j N runs local workers.
    result = subprocess.run([os.sys.executable, "-c", program, "survey", str(manifest), "--checkouts", str(SAMPLES),
                             "--db", str(tmp_path / "s.db"), "-j", "2"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "scanned 1" in result.stdout


def test_unreachable_scheduler_is_a_usage_error(tmp_path):
    manifest = tmp_path / "one.toml"
    manifest.write_text('[[app]]\nname = "shop"\ncheckout = "django/shop"\n')
    result = subprocess.run([*TXSCAN, "survey", str(manifest), "--checkouts", str(SAMPLES), "--db",
                             str(tmp_path / "s.db"), "--scheduler", "tcp://127.0.0.1:9"], capture_output=True,
                            text=True, timeout=120, env={**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"})
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("txscan: error: cannot reach the Dask scheduler at tcp://127.0.0.1:9")
    assert "Traceback" not in result.stderr and not (tmp_path / "s.db").exists()
