"""The SQLite store: one file per scan or survey (docs/STORE.md).

Each application is written in one SQLite transaction that first deletes its old rows, so an
interrupted write leaves the previous consistent state and a re-run completes it.
"""

from __future__ import annotations

import functools
import json
import os
import sqlite3
import stat
from pathlib import Path

from . import rows

SCHEMA_VERSION = 1
# `PRAGMA application_id` of every txscan store ("txsc" in ASCII): a store says it is one,
# and any other file, SQLite or not, is refused before SQLite is asked to open it.
APPLICATION_ID = 0x74787363
LOCK_TIMEOUT_SECONDS = 2.0

_SQLITE_MAGIC = b"SQLite format 3\0"


class StoreError(Exception):
    pass


# One encoder for every column (json.dumps with options builds a new one per call: tens of
# thousands of times per application).
_JSON = json.JSONEncoder(sort_keys=True, ensure_ascii=False)


# json.dumps's C encoder, made once: JSONEncoder.encode makes one per call (tens of thousands of
# small lists per application); check_circular off (the rows are trees), same text.
_C_ENCODE = json.encoder.c_make_encoder and json.encoder.c_make_encoder(
    None, _JSON.default, json.encoder.encode_basestring, None, _JSON.key_separator, _JSON.item_separator,
    True, False, True)


def _j(value) -> str:
    if _C_ENCODE is None or isinstance(value, str):
        return _JSON.encode(value)
    return "".join(_C_ENCODE(value, 0))


def _header(path: Path) -> bytes:
    """The first 100 bytes of a would-be store, read without SQLite (which could change the file)."""
    if path.is_dir():
        raise StoreError(f"{path} is a folder, not a txscan store")
    try:
        # Without blocking: a FIFO given as a store must not hang txscan.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise StoreError(f"{path} is not a regular file, not a txscan store")
            header, size = os.read(fd, 100), info.st_size
        finally:
            os.close(fd)
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if len(header) < 100 or not header.startswith(_SQLITE_MAGIC):
        raise StoreError(f"{path} is not a txscan store (not an SQLite database); left untouched")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    # The in-header page count is valid when "version-valid-for" equals the change counter.
    if page_size < 512 or (header[92:96] == header[24:28] and size < pages * page_size):
        raise StoreError(f"{path} is truncated or corrupt ({size} bytes); left untouched")
    application_id = int.from_bytes(header[68:72], "big")
    if application_id != APPLICATION_ID:
        if application_id == 0 and int.from_bytes(header[60:64], "big") == SCHEMA_VERSION:
            raise StoreError(f"{path} has no txscan store id (written by an earlier txscan, or not a txscan "
                             "store); left untouched: scan into a new store")
        raise StoreError(f"{path} is an SQLite database of another application, not a txscan store; left untouched")
    return header


def _checked_version(db: sqlite3.Connection, path: Path) -> None:
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version != SCHEMA_VERSION:
        db.close()
        raise StoreError(f"{path} has store schema version {version}; this txscan reads version {SCHEMA_VERSION}")


def _checked_integrity(db: sqlite3.Connection, path: Path) -> None:
    try:
        result = db.execute("PRAGMA quick_check").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        result = str(exc)
    if result != "ok":
        db.close()
        raise StoreError(f"{path} is corrupt ({result}); left untouched")


def _sqlite_error(path: Path, exc: sqlite3.Error) -> StoreError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return StoreError(f"{path} is locked by another process (waited {LOCK_TIMEOUT_SECONDS:g} s)")
    return StoreError(f"{path}: {text}")


def connect(path: Path) -> sqlite3.Connection:
    """Open a store to write, creating it when missing; anything but a txscan store is refused."""
    path = Path(path)
    if not (path.exists() or path.is_symlink()):
        _create(path)
    _header(path)
    try:
        db = sqlite3.connect(path, timeout=LOCK_TIMEOUT_SECONDS)
    except sqlite3.Error as exc:
        raise _sqlite_error(path, exc) from exc
    try:
        db.execute("PRAGMA foreign_keys = ON")
        # Freed pages are left as they are, not overwritten with zeros (Debian's SQLite zeroes
        # them by default): replacing an application's IR frees and refills megabytes of pages,
        # and a store holds nothing a reader of its free pages could not scan again.
        db.execute("PRAGMA secure_delete = OFF")
        _checked_version(db, path)
        _checked_integrity(db, path)
    except sqlite3.Error as exc:
        db.close()
        raise _sqlite_error(path, exc) from exc
    return db


def _create(path: Path) -> None:
    """A new, empty store, built under a temporary name and linked into place complete: a
    process killed while creating it leaves no half-made file at `path`."""
    import tempfile  # (only a new store needs it: not imported by every scan)

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".new", dir=path.parent)
        os.close(fd)
    except OSError as exc:
        raise StoreError(f"cannot create {path}: {exc.strerror or exc}") from exc
    try:
        db = sqlite3.connect(temporary)
        with db:
            db.execute("BEGIN IMMEDIATE")
            for statement in _schema_statements():
                db.execute(statement)
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.close()
        os.link(temporary, path)
    except FileExistsError:
        pass  # created meanwhile by another process: used as it is (and checked like any store)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"cannot create {path}: {getattr(exc, 'strerror', None) or exc}") from exc
    finally:
        Path(temporary).unlink(missing_ok=True)


def open_reader(path: Path) -> sqlite3.Connection:
    """Open a store read-only (`mode=ro`): reports and merge sources never write to what they read."""
    path = Path(path)
    if not path.exists():
        raise StoreError(f"{path} does not exist")
    _header(path)
    _recover(path)
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=LOCK_TIMEOUT_SECONDS)
        _checked_version(db, path)
        _checked_integrity(db, path)
    except sqlite3.Error as exc:
        raise _sqlite_error(path, exc) from exc
    return db


def _recover(path: Path) -> None:
    """Roll back what a writer killed mid-transaction left (a hot journal) before reading.

    A read-only connection cannot roll a hot journal back and fails with "attempt to write a
    readonly database"; the store is txscan's own (its header was checked), so it is opened for
    writing once, which makes SQLite restore the last committed state, and closed again.
    """
    journal = path.with_name(path.name + "-journal")
    try:
        hot = journal.is_file() and journal.stat().st_size > 0
    except OSError:
        hot = False
    if not hot:
        return
    try:
        db = sqlite3.connect(path, timeout=LOCK_TIMEOUT_SECONDS)
        try:
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise _sqlite_error(path, exc) from exc


@functools.lru_cache(maxsize=1)
def _schema_statements() -> tuple[str, ...]:
    """schema.sql's statements, read when a store is first created or brought up to date (not at
    import: most commands never need it, nor importlib.resources)."""
    from importlib import resources

    text = resources.files(__package__).joinpath("schema.sql").read_text("utf-8")
    statements, current = [], []
    for line in text.splitlines():
        current.append(line)
        if sqlite3.complete_statement("\n".join(current)):
            statements.append("\n".join(current))
            current = []
    return tuple(statements)


def _digest_table() -> str:
    """The statement creating `row_digests`, which stores made before it lack."""
    return next(s for s in _schema_statements() if "row_digests (" in s)


def write_app(db: sqlite3.Connection, app: dict, files: list[dict], ir_text: str,
              analyses: dict[str, dict], seconds: float | None = None) -> int:
    """Replace everything stored for `app["name"]` with this scan's results, atomically."""
    try:
        return _write_app(db, app, files, ir_text, analyses, seconds)
    except sqlite3.Error as exc:
        raise _sqlite_error(Path(_database_file(db)), exc) from exc


def _database_file(db: sqlite3.Connection) -> str:
    try:
        return db.execute("PRAGMA database_list").fetchone()[2] or "the store"
    except sqlite3.Error:
        return "the store"


_APP_TABLES = ("files", "ir", "entities", "diagnostics", "timings")
# Tables whose rows a re-write deletes and inserts again; the IR (one row of megabytes) is
# updated in place instead, which reuses its pages rather than freeing and allocating them.
_REWRITTEN_TABLES = tuple(table for table in _APP_TABLES if table != "ir")


def _write_app(db: sqlite3.Connection, app: dict, files: list[dict], ir_text: str,
               analyses: dict[str, dict], seconds: float | None) -> int:
    transactions = rows.transactions(analyses, _j)
    with db:
        if not rows.has_digest_table(db):
            db.execute(_digest_table())  # stores made before it get it on their next write
        placed = rows.layout(db, app["name"], _APP_TABLES)
        ir_kept = False  # the IR row updated in place
        if placed is None:
            db.execute("DELETE FROM apps WHERE name = ?", (app["name"],))
            app_id = db.execute(f"INSERT INTO apps ({_APP_COLUMNS}) VALUES ({_APP_MARKS})",
                                _app_values(app, files)).lastrowid
        else:
            # The application's rows lie as a rewrite would lay them out again (store/rows.py):
            # its own row is updated, its per-application rows written again, and of its
            # transactions only those that changed.
            app_id = placed[0]
            db.execute(f"UPDATE apps SET ({_APP_COLUMNS}) = ({_APP_MARKS}) WHERE id = ?",
                       (*_app_values(app, files), app_id))
            for table in _REWRITTEN_TABLES:
                db.execute(f"DELETE FROM {table} WHERE app_id = ?", (app_id,))
            ir_kept = bool(ir_text) and db.execute("UPDATE ir SET text = ? WHERE app_id = ?",
                                                   (ir_text, app_id)).rowcount == 1
            if not ir_kept:
                db.execute("DELETE FROM ir WHERE app_id = ?", (app_id,))
        db.executemany("INSERT INTO files (app_id, path, lines, status, sha256) VALUES (?,?,?,?,?)",
                       [(app_id, f["path"], f.get("lines", 0), f.get("status", "ok"), f.get("sha256"))
                        for f in files])
        if ir_text and not ir_kept:
            db.execute("INSERT INTO ir (app_id, text) VALUES (?, ?)", (app_id, ir_text))
        first = next(iter(analyses.values()), None)
        if first is not None:
            auto = analyses.get("auto", {}).get("cda", {})
            db.executemany(
                "INSERT INTO entities (app_id, name, qualname, table_name, file, line, pk, unique_sets, relations,"
                " abstract, cda_auto) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                [(app_id, e["name"], e["qualname"], e.get("table"), e["file"], e["line"], _j(e["pk"]),
                  _j(e["unique"]), _j(e["relations"]), int(e["abstract"]),
                  _j(auto[e["name"]]["attributes"]) if e["name"] in auto else None)
                 for e in first["entities"]])
            db.executemany(
                "INSERT INTO diagnostics (app_id, file, line, code, severity, message, txn_key) VALUES (?,?,?,?,?,?,?)",
                [(app_id, d["file"], d["line"], d["code"], d["severity"], d["message"], d.get("transaction"))
                 for d in first["diagnostics"]])
        if placed is None:
            rows.insert(db, app_id, transactions)
        else:
            rows.replace_changed(db, app_id, placed[1], placed[2], placed[3], transactions)
        if seconds is not None:
            db.execute("INSERT INTO timings (app_id, seconds) VALUES (?, ?)", (app_id, round(seconds, 3)))
    return app_id


_APP_COLUMNS = ("name, root, frontend, url, git_commit, subdir, tool_version, settings, status, error, files, lines,"
                " fingerprint")
_APP_MARKS = ",".join("?" * len(_APP_COLUMNS.split(",")))


def _app_values(app: dict, files: list[dict]) -> tuple:
    return (app["name"], app["root"], app["frontend"], app.get("url"), app.get("commit"), app.get("subdir"),
            app["tool_version"], _j(app.get("settings", {})), app.get("status", "ok"), app.get("error"),
            app.get("files", len(files)), app.get("lines", sum(f.get("lines", 0) for f in files)),
            app.get("fingerprint"))


def stored_fingerprint(db: sqlite3.Connection, name: str) -> tuple[str | None, str | None, str | None, str | None]:
    """(fingerprint, tool_version, settings, status) of the stored scan of an application."""
    row = db.execute("SELECT fingerprint, tool_version, settings, status FROM apps WHERE name = ?", (name,)).fetchone()
    return tuple(row) if row else (None, None, None, None)


def merge(target: sqlite3.Connection, source_path: Path) -> list[str]:
    """Copy every application of another store into this one (replacing same-named ones)."""
    source = open_reader(source_path)
    names = [r[0] for r in source.execute("SELECT name FROM apps ORDER BY name")]
    for name in names:
        cursor = source.execute("SELECT * FROM apps WHERE name = ?", (name,))
        app = dict(zip([d[0] for d in cursor.description], cursor.fetchone(), strict=True))
        old_id = app.pop("id")
        with target:
            target.execute("DELETE FROM apps WHERE name = ?", (name,))
            columns = ", ".join(app)
            new_id = target.execute(f"INSERT INTO apps ({columns}) VALUES ({', '.join('?' * len(app))})",
                                    list(app.values())).lastrowid
            for table in ("files", "ir", "entities", "diagnostics", "timings"):
                _copy_rows(source, target, table, "app_id", old_id, new_id)
            cursor = source.execute("SELECT * FROM transactions WHERE app_id = ? ORDER BY id", (old_id,))
            columns = [d[0] for d in cursor.description]
            for row in cursor.fetchall():
                values = dict(zip(columns, row, strict=True))
                old_tid = values.pop("id")
                values["app_id"] = new_id
                new_tid = target.execute(
                    f"INSERT INTO transactions ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
                    list(values.values())).lastrowid
                for table in ("reasons", "statements", "suggestions"):
                    _copy_rows(source, target, table, "transaction_id", old_tid, new_tid)
    source.close()
    return names


def _copy_rows(source, target, table: str, key: str, old: int, new: int) -> None:
    cursor = source.execute(f"SELECT * FROM {table} WHERE {key} = ? ORDER BY rowid", (old,))
    columns = [d[0] for d in cursor.description]
    rows = [[new if c == key else v for c, v in zip(columns, row, strict=True)] for row in cursor.fetchall()]
    if rows:
        target.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", rows)
