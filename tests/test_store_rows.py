"""A re-write of an application writes only the transactions whose rows changed, and leaves the
store exactly as a whole rewrite would: every table, every row, ids and rowids included."""

from __future__ import annotations

import copy
import sqlite3

import pytest

from analyzer import store
from analyzer.config import Config
from analyzer.scan import app_row
from conftest import SAMPLES, scan_cached


@pytest.fixture(scope="module")
def shop():
    result = scan_cached(str(SAMPLES / "django" / "shop"))
    assert len(result.analyses["pk"]["transactions"]) >= 4
    return result


def _write(path, name, result, analyses=None, whole=False):
    db = store.connect(path)
    if whole:  # without digests, the store cannot tell what it holds: everything is written
        with db:
            db.execute("DELETE FROM row_digests WHERE transaction_id IN (SELECT t.id FROM transactions t"
                       " JOIN apps a ON a.id = t.app_id WHERE a.name = ?)", (name,))
    store.write_app(db, app_row(name, result, Config()), result.files, result.ir_text,
                    analyses if analyses is not None else result.analyses, 1.0)
    db.close()


def _dump(path) -> list:
    db = sqlite3.connect(path)
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    out = [(t, db.execute(f"SELECT rowid, * FROM {t} ORDER BY rowid").fetchall()) for t in tables]
    db.close()
    return out


def _changed_transactions(path) -> set[int]:
    """Ids of transactions whose row is not the one first written (marked below)."""
    db = sqlite3.connect(path)
    ids = {r[0] for r in db.execute("SELECT id FROM transactions WHERE boundary NOT LIKE '%#'")}
    db.close()
    return ids


def _mark(path):
    db = sqlite3.connect(path)
    with db:
        db.execute("UPDATE transactions SET boundary = boundary || '#'")
    db.close()


def _variants(analyses):
    """(name, analyses) edits of one scan's results, each as a re-scan could give them."""
    def edited(change):
        out = copy.deepcopy(analyses)
        change(out)
        return out

    def moved(a):
        for mode in a:
            a[mode]["transactions"][1]["line"] += 1
            a[mode]["transactions"][1]["statements"][0]["line"] += 1

    def statement_dropped(a):
        txn = next(t for t in a["pk"]["transactions"] if len(t["statements"]) > 1)
        txn["statements"].pop()

    def keys_swapped(a):  # two transactions take each other's key: stored keys are unique
        txns = a["pk"]["transactions"]
        txns[0]["id"], txns[1]["id"] = txns[1]["id"], txns[0]["id"]

    def removed(a):
        a["auto"]["transactions"].pop(0)

    def added(a):
        a["pk"]["transactions"].append(dict(a["pk"]["transactions"][0], id="extra.py:1"))

    return [("same", analyses), ("moved", edited(moved)), ("statement dropped", edited(statement_dropped)),
            ("keys swapped", edited(keys_swapped)), ("removed", edited(removed)), ("added", edited(added))]


def test_a_rewrite_equals_a_whole_rewrite_after_every_kind_of_change(tmp_path, shop):
    for number, (kind, analyses) in enumerate(_variants(shop.analyses)):
        kept, whole = tmp_path / f"kept{number}.db", tmp_path / f"whole{number}.db"
        for path, rewrite in ((kept, False), (whole, True)):
            _write(path, "other", shop)
            _write(path, "shop", shop)
            _write(path, "shop", shop, analyses, whole=rewrite)
        assert _dump(kept) == _dump(whole), kind
        db = sqlite3.connect(kept)
        stored = db.execute("SELECT count(*) FROM transactions t JOIN apps a ON a.id = t.app_id"
                            " WHERE a.name = 'shop'").fetchone()[0]
        db.close()
        assert stored == sum(len(a["transactions"]) for a in analyses.values()), kind


def test_only_the_changed_transactions_are_written_again(tmp_path, shop):
    path = tmp_path / "s.db"
    _write(path, "shop", shop)
    _mark(path)
    _write(path, "shop", shop)
    assert _changed_transactions(path) == set()  # nothing changed: no transaction written
    moved = _variants(shop.analyses)[1][1]
    _write(path, "shop", shop, moved)
    db = sqlite3.connect(path)
    second = {r[0] for r in db.execute("SELECT id FROM transactions WHERE txn_key = ?",
                                       (moved["pk"]["transactions"][1]["id"],))}
    db.close()
    assert _changed_transactions(path) == second and len(second) == 2  # the moved one, in each mode
    whole = tmp_path / "whole.db"
    _write(whole, "shop", shop, moved)
    assert [t for t in _dump(path) if t[0] != "transactions"] == [t for t in _dump(whole) if t[0] != "transactions"]


def test_a_store_changed_since_its_last_write_is_written_whole(tmp_path, shop):
    """Rows deleted by hand, another application written after it, or one deleted before it:
    what the digests say is no longer what the store holds, or a rewrite would give other ids."""
    edits = {
        "statement deleted": "DELETE FROM statements WHERE rowid = (SELECT max(rowid) FROM statements)",
        "digest missing": "DELETE FROM row_digests WHERE transaction_id = (SELECT max(id) FROM transactions)",
        "application before it deleted": "DELETE FROM apps WHERE name = 'other'",
        "written after another": None,
    }
    for case, edit in edits.items():
        kept, whole = tmp_path / f"{case}.db", tmp_path / f"{case}-whole.db"
        for path in (kept, whole):
            for name in ("shop", "other", "shop"):
                _write(path, name, shop)
            db = sqlite3.connect(path)
            with db:
                db.execute("PRAGMA foreign_keys = ON")
                if edit:
                    db.execute(edit)
            db.close()
            if edit is None:
                _write(path, "other", shop)
            _write(path, "shop", shop, whole=path == whole)
        assert _dump(kept) == _dump(whole), case


def test_a_store_made_before_row_digests_gets_them_on_its_next_write(tmp_path, shop):
    path = tmp_path / "s.db"
    _write(path, "shop", shop)
    db = sqlite3.connect(path)
    with db:
        db.execute("DROP TABLE row_digests")
    db.close()
    _write(path, "shop", shop)
    db = sqlite3.connect(path)
    digests = db.execute("SELECT count(*) FROM row_digests").fetchone()[0]
    db.close()
    assert digests == sum(len(a["transactions"]) for a in shop.analyses.values())


def test_the_app_columns_written_are_the_apps_table_columns(tmp_path):
    """The apps row's placeholders are counted from its column list, which names every column of
    the table but its id (a column added to one and not the other fails here, not in a scan)."""
    from analyzer import store

    db = store.connect(tmp_path / "t.db")
    columns = [row[1] for row in db.execute("PRAGMA table_info(apps)") if row[1] != "id"]
    db.close()
    assert [c.strip() for c in store._APP_COLUMNS.split(",")] == columns
    assert store._APP_MARKS.count("?") == len(columns)


def test_the_ir_row_is_updated_in_place_and_equals_a_whole_rewrite(tmp_path, shop):
    """A re-write updates the application's IR row rather than deleting and inserting it
    (store/__init__.py): the store holds the new IR, as a whole rewrite would, and an IR that
    is gone (empty) leaves no row."""
    def write(path, ir_text, whole=False):
        db = store.connect(path)
        if whole:
            with db:
                db.execute("DELETE FROM row_digests")
        store.write_app(db, app_row("shop", shop, Config()), shop.files, ir_text, shop.analyses, 1.0)
        db.close()

    changed = shop.ir_text.replace("\n", "\n\n", 1)
    for new_ir in (changed, ""):
        kept, whole = tmp_path / f"kept{len(new_ir)}.db", tmp_path / f"whole{len(new_ir)}.db"
        for path, rewrite in ((kept, False), (whole, True)):
            write(path, shop.ir_text)
            write(path, new_ir, whole=rewrite)
        assert _dump(kept) == _dump(whole)
        db = sqlite3.connect(kept)
        assert db.execute("SELECT text FROM ir").fetchall() == ([(new_ir,)] if new_ir else [])
        db.close()
