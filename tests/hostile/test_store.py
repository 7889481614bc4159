"""Stores: only txscan's own file is ever opened for writing; everything else is refused untouched."""

from __future__ import annotations

import os
import shutil
import sqlite3
import threading

import pytest
from hostile_inputs import assert_clean, digest, django_app, run

from analyzer import store


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    return django_app(tmp_path_factory.mktemp("app") / "src")


@pytest.fixture(scope="module")
def scanned_store(tmp_path_factory, app):
    path = tmp_path_factory.mktemp("store") / "good.db"
    assert_clean(run("scan", app, "--db", path), 0)
    return path


@pytest.fixture
def good_store(tmp_path, scanned_store):
    """A fresh copy of a real store for each test (tests change modes, lock it, merge into it)."""
    path = tmp_path / "good.db"
    shutil.copyfile(scanned_store, path)
    return path


def django_dev_database(path):
    """An SQLite file of another application (what a Django project's db.sqlite3 looks like)."""
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE django_migrations (id INTEGER PRIMARY KEY, app TEXT, name TEXT);"
                     "INSERT INTO django_migrations (app, name) VALUES ('auth', '0001_initial');"
                     "CREATE TABLE apps (id INTEGER PRIMARY KEY, name TEXT);")
    db.commit()
    db.close()
    return path


def foreign_files(tmp_path, good_store):
    """name -> a file that is not a usable txscan store."""
    files = {"django": django_dev_database(tmp_path / "db.sqlite3")}
    files["text"] = tmp_path / "notes.db"
    files["text"].write_text("not a database\n" * 20)
    files["empty"] = tmp_path / "empty.db"
    files["empty"].write_bytes(b"")
    data = good_store.read_bytes()
    files["truncated"] = tmp_path / "truncated.db"
    files["truncated"].write_bytes(data[: len(data) // 2])
    files["header-only"] = tmp_path / "header.db"
    files["header-only"].write_bytes(data[:60])
    corrupt = bytearray(data)
    corrupt[4096:8192] = b"\xa5" * 4096   # page 2 onwards overwritten
    files["corrupt"] = tmp_path / "corrupt.db"
    files["corrupt"].write_bytes(bytes(corrupt))
    old = bytearray(data)
    old[68:72] = b"\0\0\0\0"              # a store of this version from before the store id
    files["without-id"] = tmp_path / "old.db"
    files["without-id"].write_bytes(bytes(old))
    return files


FOREIGN = ["django", "text", "empty", "truncated", "header-only", "corrupt", "without-id"]


@pytest.mark.parametrize("kind", FOREIGN)
def test_scan_refuses_foreign_store_untouched(tmp_path, app, good_store, kind):
    target = foreign_files(tmp_path, good_store)[kind]
    before = digest(target)
    result = run("scan", app, "--db", target)
    assert_clean(result, 2)
    assert str(target) in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert digest(target) == before


@pytest.mark.parametrize("kind", FOREIGN)
def test_report_and_merge_refuse_foreign_store_untouched(tmp_path, good_store, kind):
    source = foreign_files(tmp_path, good_store)[kind]
    before, target_before = digest(source), digest(good_store)
    assert_clean(run("report", source, "--out", tmp_path / "report"), 2)
    assert_clean(run("merge", good_store, source), 2)   # as a source
    assert_clean(run("merge", source, good_store), 2)   # as the target
    assert digest(source) == before and digest(good_store) == target_before


def test_report_never_writes_the_store_it_reads(tmp_path, good_store):
    before = digest(good_store)
    good_store.chmod(0o444)
    result = run("report", good_store, "--out", tmp_path / "report")
    assert_clean(result, 0)
    assert digest(good_store) == before
    assert not (tmp_path / "good.db-journal").exists()


def test_merge_reads_sources_read_only(tmp_path, good_store):
    before = digest(good_store)
    result = run("merge", tmp_path / "all.db", good_store)
    assert_clean(result, 0)
    assert digest(good_store) == before
    reader = store.open_reader(tmp_path / "all.db")
    assert reader.execute("SELECT name FROM apps").fetchall() == [("src",)]
    with pytest.raises(sqlite3.OperationalError):
        reader.execute("DELETE FROM apps")   # mode=ro
    reader.close()


def test_store_identifies_itself(good_store):
    db = sqlite3.connect(good_store)
    assert db.execute("PRAGMA application_id").fetchone()[0] == store.APPLICATION_ID
    db.close()


@pytest.mark.parametrize("where", ["folder", "under-a-file", "missing-parent-under-file", "fifo", "dev-zero"])
def test_unusable_store_paths_are_one_line(tmp_path, app, where):
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    target = {"folder": tmp_path, "under-a-file": blocker / "x.db", "fifo": tmp_path / "fifo.db",
              "dev-zero": tmp_path / "zero.db", "missing-parent-under-file": blocker / "deeper" / "x.db"}[where]
    if where == "fifo":
        os.mkfifo(target)
    elif where == "dev-zero":
        os.symlink("/dev/zero", target)
    assert_clean(run("scan", app, "--db", target), 2)
    assert_clean(run("report", target, "--out", tmp_path / "r"), 2)
    assert blocker.read_text() == "x"


def test_locked_store_is_one_line(tmp_path, app, good_store):
    holder = sqlite3.connect(good_store, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        result = run("scan", app, "--db", good_store)
        assert_clean(result, 2)
        assert "locked" in result.stderr
    finally:
        holder.rollback()
        holder.close()


@pytest.mark.parametrize("option", ["--ir-folder", "--ir-under-file", "--out-file"])
def test_unusable_outputs(tmp_path, app, good_store, option):
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    if option == "--ir-folder":
        result = run("scan", app, "--no-db", "--ir", tmp_path)
    elif option == "--ir-under-file":
        result = run("scan", app, "--no-db", "--ir", blocker / "ir.jsonl")
    else:
        result = run("report", good_store, "--out", blocker)
    assert_clean(result, 2)
    assert blocker.read_text() == "x"


def test_concurrent_writer_and_reader(tmp_path, app, good_store):
    """A report while another process writes: both finish, each with a consistent view."""
    errors = []

    def write():
        try:
            db = store.connect(good_store)
            db.close()
        except store.StoreError as exc:
            errors.append(exc)

    thread = threading.Thread(target=write)
    thread.start()
    result = run("report", good_store, "--out", tmp_path / "report")
    thread.join()
    assert_clean(result)
    assert not errors or all("locked" in str(e) for e in errors)
