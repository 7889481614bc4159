"""What a function's callers pass (django/caller_arguments.py), kept across scans.

A transaction that starts in an untyped helper takes its parameters from its callers: each
caller is walked up to its call (its own helpers followed a little way), callers-of-callers a
few levels up. Those walks are made again whenever the transaction is walked again, though
their answer changes only when what they read does. What they read:
- the function's own definition (its signature binds the arguments) and every definition the
  caller walks reached (`callers`: the callers, their callers, the helpers followed in them);
- which functions call each of those (the call graph's predecessors decide who is walked);
- the project-wide facts every walk reads (DjangoReuse.digest, part of the key).
So each answer the scan's memo (Context.caller_arguments, keyed by (function, levels)) worked
out is kept with the reach rows of those definitions, the digests of their callers' names and
the parse diagnostics of the definitions; a later scan takes it while all of those are today's,
without walking. An answer holding a value values.py cannot write is not kept.
"""

from __future__ import annotations

import json

from . import values

TABLE = "caller_arguments"
# Whether kept answers are taken (tests switch it off to compare with walking every time).
TAKE_KEPT = True


def table_key(digest: str, qualname: str, levels: int) -> str:
    return json.dumps([digest, qualname, levels])


class KeptCallerArguments(dict):
    """Context.caller_arguments under a warm cache: the scan's memo by (function, levels), filled
    from the kept answers on a miss, keeping every answer worked out in this scan. Each answer
    knows what it read (its reach rows and the functions whose callers it asked): every read of
    it tells the reuse, so the walk taking it (a transaction, or an outer answer being worked
    out) depends on them too, whether the answer was walked now, earlier in the scan, or kept."""

    def __init__(self, reuse) -> None:
        super().__init__()
        self._reuse = reuse
        self.read: dict = {}      # key -> (reach rows [file, qualname, first, last], functions asked)
        self._open: list = []     # answers being worked out, innermost last: [key, rows, asked]
        self.taken = 0            # answers taken from the cache instead of walking the callers

    def parsed(self, row: list) -> None:
        """A definition read (Context.parse_definition) while answers are worked out."""
        for frame in self._open:
            frame[1][(row[0], row[1])] = row

    def __getitem__(self, key):
        rows, asked = self.read.get(key, ((), (key[0],)))
        for frame in self._open:
            frame[1].update(((r[0], r[1]), r) for r in rows)
            frame[2].update(asked)
        self._reuse.answer_read(rows, asked)
        return super().__getitem__(key)

    def __contains__(self, key) -> bool:
        if super().__contains__(key):
            return True
        kept = self._reuse.kept_caller_arguments(*key) if TAKE_KEPT else None
        if kept is None:
            self._open.append([key, {}, {key[0]}])
            return False
        found, callers, rows, asked = kept
        super().__setitem__(key, (found, callers))
        self.read[key] = (rows, asked)
        self.taken += 1
        return True

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        while self._open and self._open[-1][0] != key:  # (one left open by an error)
            self._open.pop()
        rows, asked = {}, {key[0]}
        if self._open:
            _key, rows, asked = self._open.pop()
        self.read[key] = self._reuse.keep_caller_arguments(key[0], key[1], value, rows, asked)


class AnswerTable(dict):
    """The table as written: in key order. Answers are worked out in walking order, which a scan
    with a helper process changes (the helper walks transactions from the last); the file is the
    same either way (tests/test_autocommit_helper.py compares them)."""

    def items(self):
        return sorted(super().items())


class TransactionTable(dict):
    """DjangoReuse.written["transactions"], which a helper process's transaction walks are added
    to (autocommit_parallel: `update(entries)`): the answers such a walk worked out travel in its
    transaction's entry (HANDED) and join the answer table here, as if worked out in the scan."""

    def __init__(self, answers: dict) -> None:
        super().__init__()
        self._answers = answers

    def update(self, pairs=(), **more) -> None:
        for key, entry in (pairs.items() if isinstance(pairs, dict) else pairs):
            if isinstance(entry, dict) and HANDED in entry:
                entry = dict(entry)
                self._answers.update(entry.pop(HANDED))
            self[key] = entry
        for key, entry in more.items():
            self[key] = entry


# The field of a transaction's entry that hands its walk's new answers over from a helper process.
HANDED = "caller_answers"


def carry(old: dict, written: dict, digest: str) -> None:
    """Carry over, unread, the kept answers made under today's project facts: a scan that walks
    no transaction taking callers' arguments must not drop them (a kept answer whose definitions
    changed since is refused when it is asked for, and replaced when worked out again)."""
    table = old.get(TABLE, {})
    prefix = json.dumps([digest])[:-1]
    for key in table:
        if isinstance(key, str) and key.startswith(prefix):
            carried = table.carried(key) if hasattr(table, "carried") else None
            written[key] = carried if carried is not None else table[key]


def entry(found: dict, callers: set, reach: list[list], callers_digests: list[list],
          parse_diagnostics: list[list]) -> dict | None:
    """The kept form of one answer, None when a value cannot be written."""
    try:
        encoded = [[name, [values.encode(v) for v in candidates]] for name, candidates in found.items()]
    except TypeError:
        return None
    return {"found": encoded, "callers": sorted(callers), "reach": reach, "callers_digests": callers_digests,
            "parse_diagnostics": parse_diagnostics}


def answer(kept: dict) -> tuple[dict, set] | None:
    """(found, callers) as caller_arguments._collect gives them, from a kept entry (decoded)."""
    try:
        found = {name: [values.decode(v) for v in candidates] for name, candidates in kept["found"]}
        return found, set(kept["callers"])
    except (KeyError, TypeError, ValueError):
        return None
