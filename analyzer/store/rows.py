"""An application's transaction rows, and re-writing only those that changed.

A re-scan after a one-file change gives mostly the rows the store already holds; deleting and
inserting them all again was most of the store's time on a warm scan. So each transaction's
rows (its own, its reasons, statements and suggestions) are digested and the digest is kept in
`row_digests`; the next write of the same application replaces only the transactions whose
digest or place changed.

The store must end exactly as a whole rewrite would leave it, ids and rowids included (a whole
rewrite deletes the application's rows and SQLite gives the new rows the largest id + 1). That
holds when the application's rows are the last ones of every table, contiguous, as every write
of it leaves them: then a whole rewrite would give them the same ids again. `layout` checks it
(by indexed look-ups only) and says None when not so (another application written since, an
older store, rows edited by hand); the caller then writes everything.
"""

from __future__ import annotations

import marshal
import sqlite3
from collections.abc import Callable

from ..digests import blake2b

CHILDREN = ("reasons", "statements", "suggestions")

_TRANSACTION = ("INSERT INTO transactions (id, app_id, cda_mode, txn_key, file, line, end_line, function, boundary,"
                " wrapper, interactivity, rw_inferable, statements, read_set, write_set, excerpt, complete,"
                " incomplete) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
_CHILD = {
    "reasons": "INSERT INTO reasons (rowid, transaction_id, category, callee, file, line) VALUES (?,?,?,?,?,?)",
    "statements": "INSERT INTO statements (rowid, transaction_id, step_id, file, line, entity, kind, api, attributes,"
                  " inferability, flags, via) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
    "suggestions": "INSERT INTO suggestions (rowid, transaction_id, kind, pattern, step_id, file, line,"
                   " makes_one_shot, makes_inferable, explanation, code) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
}
_DIGEST = ("INSERT INTO row_digests (transaction_id, digest, reasons, statements, suggestions)"
           " VALUES (?,?,?,?,?)")


class Transaction:
    """One transaction record to store in one CDA mode: the digest of what its rows are made
    of, and the rows (without their ids), made only when they are written."""

    __slots__ = ("mode", "record", "digest", "_encode", "_rows")

    def __init__(self, mode: str, record: dict, encode: Callable) -> None:
        self.mode, self.record, self._encode, self._rows = mode, record, encode, None
        # The rows are a function of the mode and the record: equal marshal bytes (version 2,
        # without references, so shared or interned strings do not change them) mean equal
        # rows. A record holding what marshal cannot write is digested by its rows instead.
        try:
            data = marshal.dumps((mode, record), 2)
        except ValueError:
            data = b"rows" + marshal.dumps(self.rows(), 2)
        self.digest = blake2b(data, digest_size=16).hexdigest()

    def counts(self) -> tuple[int, int, int]:
        t = self.record
        return len(t["reasons"]), len(t["statements"]), len(t["suggestions"])

    def rows(self) -> tuple[tuple, tuple[list, list, list]]:
        """(the transaction's row, (its reasons, statements, suggestions)), ids left out."""
        if self._rows is None:
            t, encode = self.record, self._encode
            row = (self.mode, t["id"], t["file"], t["line"], t["end_line"], t["function"], t["boundary"],
                   t.get("wrapper"), t["interactivity"], t["rw_inferable"], len(t["statements"]),
                   encode(t["read_set"]), encode(t["write_set"]), t.get("excerpt"), int(t.get("complete", True)),
                   encode(t.get("incomplete", [])))
            reasons = [(r["category"], r.get("callee"), r["file"], r["line"]) for r in t["reasons"]]
            statements = [(s["id"], s["file"], s["line"], s.get("entity"), s["kind"], s["api"],
                           encode(s["attributes"]), s["inferability"], encode(s["flags"]), encode(s["via"]))
                          for s in t["statements"]]
            suggestions = [(g["kind"], g.get("pattern"), g.get("statement"), g["file"], g["line"],
                            int(g["makes_one_shot"]), int(g["makes_inferable"]), g["explanation"], g["code"])
                           for g in t["suggestions"]]
            self._rows = (row, (reasons, statements, suggestions))
        return self._rows


def transactions(analyses: dict[str, dict], encode: Callable) -> list[Transaction]:
    """Every transaction of every CDA mode, modes in order (the order they are stored in)."""
    return [Transaction(mode, t, encode) for mode in sorted(analyses) for t in analyses[mode]["transactions"]]


def insert(db: sqlite3.Connection, app_id: int, rows: list[Transaction], first_id: int | None = None,
           child_rowids: dict[str, int] | None = None) -> None:
    """Insert transactions with their children and digests, in order: ids from `first_id` (None:
    those SQLite gives), child rowids from `child_rowids` per table (absent: those SQLite gives)."""
    child_rowids = dict(child_rowids or {})
    for number, transaction in enumerate(rows):
        row, children_rows = transaction.rows()
        if first_id is None:
            tid = db.execute(_TRANSACTION, (None, app_id, *row)).lastrowid
        else:
            tid = first_id + number
            db.execute(_TRANSACTION, (tid, app_id, *row))
        for table, children in zip(CHILDREN, children_rows, strict=True):
            if not children:
                continue
            start = child_rowids.get(table)
            if start is None:
                db.executemany(_CHILD[table], [(None, tid, *child) for child in children])
            else:
                db.executemany(_CHILD[table], [(start + k, tid, *child) for k, child in enumerate(children)])
                child_rowids[table] = start + len(children)
        db.execute(_DIGEST, (tid, transaction.digest, *transaction.counts()))


def _tail(db: sqlite3.Connection, table: str, key: str, low: int, high: int | None = None) -> tuple | None:
    """(first rowid, count) of the rows of `table` whose `key` is `low` (or in low..high), when
    they are the table's last rows, contiguous, and right after the others (so a rewrite would
    give them these rowids again; first rowid None when there are none); else None."""
    where = f"{key} = ?" if high is None else f"{key} BETWEEN ? AND ?"
    args = (low,) if high is None else (low, high)
    count, first, last = db.execute(f"SELECT count(*), min(rowid), max(rowid) FROM {table} WHERE {where}",
                                    args).fetchone()
    if not count:
        return None, 0
    before = db.execute(f"SELECT coalesce(max(rowid), 0) FROM {table} WHERE rowid < ?", (first,)).fetchone()[0]
    largest = db.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0]
    if last - first + 1 != count or largest != last or before != first - 1:
        return None
    return first, count


def layout(db: sqlite3.Connection, name: str, app_tables: tuple[str, ...]):
    """(app id, first transaction id, stored digests and counts in order, first child rowid per
    table) of the application's stored rows when they lie as a rewrite would lay them out
    again (module docstring), else None."""
    found = db.execute("SELECT id FROM apps WHERE name = ?", (name,)).fetchone()
    if found is None or not has_digest_table(db):
        return None
    app_id = found[0]
    if _tail(db, "apps", "id", app_id) is None or any(_tail(db, t, "app_id", app_id) is None for t in app_tables):
        return None
    stored = db.execute("SELECT t.id, d.digest, d.reasons, d.statements, d.suggestions FROM transactions t"
                        " LEFT JOIN row_digests d ON d.transaction_id = t.id WHERE t.app_id = ? ORDER BY t.id",
                        (app_id,)).fetchall()
    if not stored or any(row[1] is None for row in stored):
        return None
    placed = _tail(db, "transactions", "app_id", app_id)
    if placed is None or placed[0] != stored[0][0]:
        return None
    first_id, last_id = stored[0][0], stored[-1][0]
    child_rowids = {}
    for position, table in enumerate(CHILDREN, start=2):
        children = _tail(db, table, "transaction_id", first_id, last_id)
        if children is None or children[1] != sum(row[position] for row in stored):
            return None
        child_rowids[table] = children[0]
    return app_id, first_id, [(row[1], tuple(row[2:])) for row in stored], child_rowids


def replace_changed(db: sqlite3.Connection, app_id: int, first_id: int, stored: list[tuple[str, tuple]],
                    child_rowids: dict[str, int | None], rows: list[Transaction]) -> int:
    """Make the stored transactions `rows`, touching only those that changed: before the first
    place whose child counts differ, a changed transaction is deleted and inserted again at the
    same ids and rowids; from that place on, everything is deleted and inserted anew. Returns
    how many transactions were written."""
    same_until = 0
    for (_digest, counts), new in zip(stored, rows):
        if counts != new.counts():
            break
        same_until += 1
    changed = [number for number in range(same_until) if stored[number][0] != rows[number].digest]
    # Deleted first, inserted after: a transaction's key may be another changed one's old key.
    db.executemany("DELETE FROM transactions WHERE id = ?", [(first_id + number,) for number in changed])
    db.execute("DELETE FROM transactions WHERE app_id = ? AND id >= ?", (app_id, first_id + same_until))
    offsets = {table: child_rowids[table] for table in CHILDREN}
    starts: list[dict[str, int | None]] = []
    for number in range(same_until):
        starts.append(dict(offsets))
        for table, count in zip(CHILDREN, stored[number][1], strict=True):
            if offsets[table] is not None:
                offsets[table] += count
    for number in changed:
        insert(db, app_id, [rows[number]], first_id + number, starts[number])
    insert(db, app_id, rows[same_until:], first_id + same_until)
    return len(changed) + len(rows) - same_until


def has_digest_table(db: sqlite3.Connection) -> bool:
    found = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'row_digests'").fetchone()
    return found is not None
