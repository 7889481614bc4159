"""`txscan survey` and `txscan merge`: manifests, parallel scans, incremental re-runs, failures."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from analyzer.config import Config
from analyzer.survey import manifest, runner
from conftest import SAMPLES

TXSCAN = [sys.executable, "-m", "analyzer.cli"]


class Quiet(runner.Reporter):
    def __init__(self, total):
        super().__init__(total, stream=open("/dev/null", "w"))


def write_manifest(path: Path, entries: list[dict]) -> Path:
    lines = []
    for entry in entries:
        lines.append("[[app]]")
        lines.extend(f'{key} = "{value}"' for key, value in entry.items())
        lines.append("")
    path.write_text("\n".join(lines))
    return path


@pytest.fixture
def corpus(tmp_path):
    checkouts = tmp_path / "checkouts"
    for name in ("shop", "ledger"):
        shutil.copytree(SAMPLES / "django" / name, checkouts / name, ignore=shutil.ignore_patterns(".txscan"))
    entries = [{"name": "shop", "orm": "django", "url": "https://example.org/shop.git", "commit": "a" * 40},
               {"name": "ledger", "orm": "django"},
               {"name": "absent", "orm": "django", "url": "https://example.org/absent.git", "commit": "b" * 40}]
    return write_manifest(tmp_path / "corpus.toml", entries), checkouts, tmp_path / "survey.db"


def counts(db: Path) -> dict:
    with sqlite3.connect(db) as connection:
        return {table: connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in ("apps", "transactions", "statements", "files")}


def test_manifest_errors(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[app]]\nname = "x"\norm = "rails"\n')
    with pytest.raises(manifest.ManifestError, match="orm must be"):
        manifest.load(bad)
    twice = write_manifest(tmp_path / "twice.toml", [{"name": "a"}, {"name": "a"}])
    with pytest.raises(manifest.ManifestError, match="twice"):
        manifest.load(twice)


def test_survey_scans_in_parallel_reports_missing_and_resumes(corpus):
    manifest_path, checkouts, db = corpus
    apps = manifest.load(manifest_path)
    outcomes = {o.name: o for o in runner.run(apps, checkouts, db, Config(), jobs=2, reporter=Quiet(3))}
    assert outcomes["shop"].status == "scanned" and outcomes["ledger"].status == "scanned"
    assert outcomes["absent"].status == "missing"
    assert f"git clone https://example.org/absent.git {checkouts / 'absent'}" in outcomes["absent"].detail
    assert f"checkout {'b' * 40}" in outcomes["absent"].detail
    first = counts(db)
    assert first["apps"] == 2 and first["transactions"] > 0

    # Nothing changed: nothing is analysed again, and no row is duplicated.
    again = {o.name: o.status for o in runner.run(apps, checkouts, db, Config(), reporter=Quiet(3))}
    assert again == {"shop": "unchanged", "ledger": "unchanged", "absent": "missing"}
    assert counts(db) == first

    # One file changes: only that application is scanned again.
    target = checkouts / "ledger" / "ledger" / "services" / "accounts.py"
    target.write_text(target.read_text() + "\n# touched\n")
    third = {o.name: o.status for o in runner.run(apps, checkouts, db, Config(), reporter=Quiet(3))}
    assert third["ledger"] == "scanned" and third["shop"] == "unchanged"
    assert counts(db) == first


def test_interrupted_survey_resumes(corpus):
    manifest_path, checkouts, db = corpus
    apps = manifest.load(manifest_path)
    # The first run stops after one application (as a kill would), leaving a consistent store.
    runner.run(apps[:1], checkouts, db, Config(), reporter=Quiet(1))
    assert counts(db)["apps"] == 1
    outcomes = {o.name: o.status for o in runner.run(apps, checkouts, db, Config(), reporter=Quiet(3))}
    assert outcomes == {"shop": "unchanged", "ledger": "scanned", "absent": "missing"}
    assert counts(db)["apps"] == 2


def test_failing_application_is_recorded_and_the_survey_goes_on(tmp_path, corpus):
    _manifest, checkouts, db = corpus
    (checkouts / "broken").mkdir()
    (checkouts / "broken" / "package.json").write_text('{"dependencies": {"typeorm": "0.3.0"}}')
    apps = [manifest.App("broken", "typeorm"), manifest.App("shop", "django")]
    env_plugin = tmp_path / "missing-plugin.js"
    import os
    os.environ["TXSCAN_TS_PLUGIN"] = str(env_plugin)
    try:
        outcomes = {o.name: o for o in runner.run(apps, checkouts, db, Config(), reporter=Quiet(2))}
    finally:
        del os.environ["TXSCAN_TS_PLUGIN"]
    assert outcomes["broken"].status == "failed" and "not built" in outcomes["broken"].detail
    assert outcomes["shop"].status == "scanned"
    with sqlite3.connect(db) as connection:
        status, error = connection.execute("SELECT status, error FROM apps WHERE name = 'broken'").fetchone()
    assert status == "failed" and "not built" in error


def test_cli_survey_and_merge(corpus, tmp_path):
    manifest_path, checkouts, _db = corpus
    one = write_manifest(tmp_path / "one.toml", [{"name": "shop", "orm": "django"}])
    two = write_manifest(tmp_path / "two.toml", [{"name": "ledger", "orm": "django"}])
    for path, db in ((one, tmp_path / "a.db"), (two, tmp_path / "b.db")):
        result = subprocess.run([*TXSCAN, "survey", str(path), "--checkouts", str(checkouts), "--db", str(db)],
                                capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        assert "[1/1]" in result.stderr  # plain progress lines when not on a terminal
    merged = tmp_path / "merged.db"
    result = subprocess.run([*TXSCAN, "merge", str(merged), str(tmp_path / "a.db"), str(tmp_path / "b.db")],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    together = counts(merged)
    assert together["apps"] == 2
    assert together["transactions"] == counts(tmp_path / "a.db")["transactions"] + counts(tmp_path / "b.db")["transactions"]
    # Merging again replaces, never duplicates.
    subprocess.run([*TXSCAN, "merge", str(merged), str(tmp_path / "a.db")], check=True, capture_output=True)
    assert counts(merged) == together


def test_cli_survey_usage_errors(tmp_path):
    result = subprocess.run([*TXSCAN, "survey", str(tmp_path / "none.toml"), "--checkouts", str(tmp_path),
                             "--db", str(tmp_path / "x.db")], capture_output=True, text=True)
    assert result.returncode == 2 and "no such manifest" in result.stderr
