"""Repeats of calls whose walk read foreign keys (analyzer/django/summaries.py, Entry.repeated).

A call that would give an earlier instance's steps again is one `repeat` step. Where the
instance read a foreign key of a row from outside it (`entry.account`), a later call finds that
read in the transaction's cache: the repeat leaves the read out. Where it read a foreign key of
its own row, a later call reads it again: the repeat runs it again. Where the caller has since
read a foreign key of a row the first instance returned, a later call's new row would not find
it cached: the call is walked. In each case the verdicts are those of copying every call.
"""

from __future__ import annotations

import json

from analyzer.config import Config
from analyzer.django import summaries
from analyzer.scan import scan
from test_summaries import _verdicts, make_app, summaries_steps

HELPERS = """\
from django.db import transaction

from .models import Account, Audit, Entry


def settle(entry):
    account = entry.account
    Account.objects.filter(pk=account.pk).update(balance=entry.amount)


def latest(pk):
    entry = Entry.objects.filter(account_id=pk).first()
    Audit.objects.create(note=entry.account.pk)
    return entry


def newest(pk):
    return Entry.objects.filter(account_id=pk).last()


@transaction.atomic
def settle_twice(entry_id):
    entry = Entry.objects.get(pk=entry_id)
    settle(entry)
    settle(entry)


@transaction.atomic
def latest_twice(pk):
    latest(pk)
    latest(pk)


@transaction.atomic
def read_between(pk):
    first = newest(pk)
    owner = first.account
    second = newest(pk)
    return second.account.balance
"""


def _scan(tmp_path, **settings):
    return scan(make_app(tmp_path, {"helpers.py": HELPERS}), Config(**settings), "django", rewrites=False)


def _steps(result, function: str) -> list:
    txn = next(r for r in result.records if r.get("function") == f"bank.helpers.{function}")
    return summaries_steps(txn["steps"])


def _by_id(steps: list) -> dict:
    return {s["id"]: s for s in steps if "id" in s}


def test_a_repeat_leaves_out_the_foreign_key_read_the_first_call_cached(tmp_path):
    steps = _steps(_scan(tmp_path), "settle_twice")
    reads = [s for s in steps if s["node"] == "statement" and s["api"] == "fk:account"]
    assert len(reads) == 1  # the second settle() finds entry.account cached
    repeat = next(s for s in steps if s["node"] == "repeat")
    assert repeat["callee"] == "bank.helpers.settle"
    ids = _by_id(steps)
    assert [ids[i]["api"] for i in repeat["same_as"]] == ["filter.update"]


def test_a_repeat_runs_again_the_foreign_key_read_of_the_rows_it_reads_itself(tmp_path):
    steps = _steps(_scan(tmp_path), "latest_twice")
    repeat = next(s for s in steps if s["node"] == "repeat")
    ids = _by_id(steps)
    assert [ids[i]["api"] for i in repeat["same_as"]] == ["filter.first", "fk:account", "create"]


def test_a_call_is_walked_when_the_caller_read_a_foreign_key_of_the_row_it_returned(tmp_path):
    steps = _steps(_scan(tmp_path), "read_between")
    assert not any(s["node"] == "repeat" for s in steps)
    # `first.account`, and `second.account` on the second call's new row.
    assert [s["api"] for s in steps if s["node"] == "statement"] == ["filter.last", "fk:account"] * 2


def test_foreign_key_repeats_give_the_verdicts_copying_gives(tmp_path, monkeypatch):
    repeated = _scan(tmp_path / "repeated")
    assert any('"node": "repeat"' in json.dumps(r) for r in repeated.records if r.get("type") == "transaction")
    monkeypatch.setattr(summaries, "REPEAT", False)
    copied = _scan(tmp_path / "copied")
    assert not any('"node": "repeat"' in json.dumps(r) for r in copied.records if r.get("type") == "transaction")
    assert _verdicts(repeated) == _verdicts(copied)


def test_summaries_are_made_canonical_only_when_reused(tmp_path, monkeypatch):
    resolved = []
    original = summaries.resolve

    def counting(summary):
        resolved.append(summary.pending is not None)
        original(summary)

    monkeypatch.setattr(summaries, "resolve", counting)
    released = []
    monkeypatch.setattr("analyzer.django.frontend.release_summaries", lambda ctx: released.append(ctx.summaries))
    _scan(tmp_path)
    store = released[0]
    kept = [s for found in store.by_key.values() for s in found]
    assert kept and any(s.pending is not None for s in kept)  # walked once, never made canonical
    # Only summaries that some call reused were made canonical, each once.
    assert resolved and all(resolved)
    assert sum(1 for s in kept if s.pending is None) == len(resolved)


def test_the_default_depth_is_unbounded(tmp_path):
    from test_summaries import chain

    result = scan(make_app(tmp_path, {"deep.py": chain(30)}), Config(), "django", rewrites=False)
    txn = next(r for r in result.records if r.get("function") == "bank.deep.deep")
    assert not any(s["node"] == "unresolved" for s in summaries_steps(txn["steps"]))
    assert [s["node"] for s in txn["steps"]] == ["statement"] + ["repeat"] * 30
