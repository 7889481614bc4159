"""The cost of finding what a transaction's callers pass (analyzer/django/caller_arguments.py).

Each caller is walked to its call with its own helpers followed CALLER_DEPTH levels. Two things
keep those walks few and short without changing any result:
- a helper whose walk was cut by that depth limit is reused from its summary in the next caller
  walk at the same depth left (its steps are thrown away there, only its values count);
- a parameter the function never reads does not send the walk to the function's callers.
Each test compares the scan's records with the path switched off.
"""

from __future__ import annotations

import json
from pathlib import Path

from analyzer.config import Config
from analyzer.django import caller_arguments, summaries
from analyzer.django.summaries import Relabel
from analyzer.django.walker import Walker
from analyzer.scan import scan
from test_summaries import make_app as make_bank

# `save_one` takes the row its callers pass. Each caller gets it from `build`, whose own helper
# chain runs past the callers' depth limit: `build`'s walk in a caller walk is cut.
CUT_HELPERS = """\
from django.db import transaction

from .models import Account, Entry


def level2(pk):
    return Entry.objects.filter(account_id=pk).count()


def level1(pk):
    return level2(pk)


def build(pk):
    level1(pk)
    return Account.objects.get(pk=pk)


@transaction.atomic
def save_one(row):
    row.save()
    Entry.objects.create(account=row, amount=1)


def caller_a(pk):
    account = build(pk)
    save_one(account)


def caller_b(pk):
    account = build(pk)
    save_one(account)
"""

# `touch` never reads `unused`; `stamp` reads `flag`. Their callers' own callers pass literals.
READS = """\
from django.db import transaction

from .models import Account, Entry


@transaction.atomic
def touch(unused):
    Account.objects.filter(pk=1).update(balance=0)


@transaction.atomic
def stamp(flag):
    if flag:
        Entry.objects.create(account_id=1, amount=0)
    Account.objects.filter(pk=1).update(balance=1)


def forward(value):
    touch(value)
    stamp(value)


def outer():
    forward(True)
"""


def make_app(root: Path, services: str) -> Path:
    return make_bank(root, {"services.py": services})


def records_text(result) -> str:
    return "".join(json.dumps(r, sort_keys=True) + "\n" for r in result.records)


def transaction_named(result, name: str) -> dict:
    return next(t for t in result.analyses["pk"]["transactions"] if t["function"] == name)


def counting_walks(monkeypatch) -> list[str]:
    walked: list[str] = []
    original = Walker._walk_callee

    def counting(self, found, fn, *args):
        walked.append(fn.qualname)
        return original(self, found, fn, *args)

    monkeypatch.setattr(Walker, "_walk_callee", counting)
    return walked


def recording_callers(monkeypatch) -> list[tuple[str, str]]:
    """(caller, function) of every caller walked to its call to the function."""
    asked: list[tuple[str, str]] = []
    original = caller_arguments._arguments_at_calls

    def recording(ctx, caller, fn, *args):
        asked.append((caller.qualname, fn.qualname))
        return original(ctx, caller, fn, *args)

    monkeypatch.setattr(caller_arguments, "_arguments_at_calls", recording)
    return asked


def test_a_helper_cut_in_one_caller_walk_is_reused_in_the_next(tmp_path, monkeypatch):
    app = make_app(tmp_path, CUT_HELPERS)
    walked = counting_walks(monkeypatch)
    reused = scan(app, Config(), "django", rewrites=False)
    # Walked in the first caller's walk only, instantiated in the second one's.
    assert walked.count("bank.services.build") == 1
    txn = transaction_named(reused, "bank.services.save_one")
    assert {(s["entity"], s["kind"]) for s in txn["statements"]} == {("Account", "write"), ("Entry", "insert")}

    walked.clear()
    monkeypatch.setattr(summaries, "REUSE", False)
    walked_again = scan(app, Config(), "django", rewrites=False)
    assert walked.count("bank.services.build") == 2
    assert records_text(walked_again) == records_text(reused)


def test_a_cut_summary_is_not_used_where_the_steps_are_kept(tmp_path, monkeypatch):
    """A transaction's own walk (a depth bound given) walks a cut helper at every call: which
    cuts it reports depends on the path. Only the caller walk reuses it."""
    app = make_app(tmp_path, CUT_HELPERS.replace("def caller_a", "@transaction.atomic\ndef caller_a")
                   .replace("def caller_b", "@transaction.atomic\ndef caller_b"))
    walked = counting_walks(monkeypatch)
    result = scan(app, Config(depth=2), "django", rewrites=False)
    # Once in the first caller walk for save_one, then once in each of the two transactions.
    assert walked.count("bank.services.build") == 3
    for name in ("bank.services.caller_a", "bank.services.caller_b"):
        assert any(i["reason"] == "depth-limit" for i in transaction_named(result, name)["incomplete"])
    monkeypatch.setattr(summaries, "REUSE", False)
    assert records_text(scan(app, Config(depth=2), "django", rewrites=False)) == records_text(result)


def test_callers_are_not_walked_for_a_parameter_the_function_never_reads(tmp_path, monkeypatch):
    app = make_app(tmp_path, READS)
    asked = recording_callers(monkeypatch)
    result = scan(app, Config(), "django", rewrites=False)
    # `stamp` reads `flag`: its caller is walked, and the caller's caller for `value`, which
    # `forward` reads. `touch` never reads `unused`: nobody is walked for it.
    assert sorted(set(asked)) == [("bank.services.forward", "bank.services.stamp"),
                                  ("bank.services.outer", "bank.services.forward")]
    # The literal the outer caller passes folds `if flag:` in `stamp`.
    stamp = transaction_named(result, "bank.services.stamp")
    assert {(s["entity"], s["kind"]) for s in stamp["statements"]} == {("Entry", "insert"), ("Account", "write")}

    monkeypatch.setattr(caller_arguments, "_read", lambda ctx, qualname, name: True)
    asked.clear()
    every_parameter = scan(app, Config(), "django", rewrites=False)
    assert ("bank.services.forward", "bank.services.touch") in asked
    assert records_text(every_parameter) == records_text(result)


def test_a_mention_in_a_string_counts_as_a_read(tmp_path, monkeypatch):
    """The word count errs towards walking: a parameter named in a string or comment of the body
    is taken as read."""
    app = make_app(tmp_path, READS.replace('def touch(unused):\n', 'def touch(unused):\n    """Ignores unused."""\n'))
    asked = recording_callers(monkeypatch)
    scan(app, Config(), "django", rewrites=False)
    assert ("bank.services.forward", "bank.services.touch") in asked


def test_relabelling_numbers_placeholders_in_id_order_for_sets_seen_before():
    sources = frozenset({("result", "s10"), ("input", "pk"), ("result", "s9"), ("generated", "s2")})
    for _ in range(2):  # the second time from the memo
        names: dict[str, str] = {}
        relabel = Relabel(lambda sid: names.setdefault(sid, f"#{len(names)}"))
        assert relabel.sources(sources) == frozenset(
            {("generated", "#0"), ("result", "#1"), ("result", "#2"), ("input", "pk")})
        assert names == {"s2": "#0", "s9": "#1", "s10": "#2"}
    assert Relabel(lambda sid: sid + "!").sources(frozenset({("input", "pk")})) == frozenset({("input", "pk")})


# `store` and `audit` are transactions taking an untyped row. `audit`'s caller `store` passes its
# own parameter, so `store`'s callers are asked for twice: for `store`'s transaction (3 levels
# up) and for `audit`'s (2 levels up). `open_account` has no caller of its own: both walks of
# it have the same inputs.
SAME_CALLER_TWICE = """\
from django.db import transaction

from .models import Account, Entry


@transaction.atomic
def store(row):
    row.save()
    audit(row)


@transaction.atomic
def audit(row):
    Entry.objects.create(account=row, amount=0)


def open_account(pk):
    account = Account.objects.get(pk=pk)
    store(account)
"""

# A chain one level deeper, with a literal from the top: `outer` -> `open_account(pk, flag)` ->
# the transactions `store(row, flag)` -> `audit(row, flag)` -> `note(row, flag)`. Asked for
# `store` 3 and 2 levels up, `open_account` has `flag` = True from `outer`; asked 1 level up (for
# `note`), no level is left to ask `outer` and `flag` is an input: two different walks, and
# `note`'s `if flag:` stays open (taking the first walk's True would fold it).
OUTER_CALLER = """\
from django.db import transaction

from .models import Account, Entry


@transaction.atomic
def store(row, flag):
    row.save()
    audit(row, flag)


@transaction.atomic
def audit(row, flag):
    Entry.objects.create(account=row, amount=0)
    note(row, flag)


@transaction.atomic
def note(row, flag):
    if flag:
        Entry.objects.filter(account=row).update(amount=1)
    Account.objects.filter(pk=2).update(balance=0)


def open_account(pk, flag):
    account = Account.objects.get(pk=pk)
    store(account, flag)


def outer():
    open_account(5, True)
"""


def counting_caller_walks(monkeypatch) -> list[tuple[str, str]]:
    """(caller, function) of every caller walk actually made (not taken from the scan's memo)."""
    made: list[tuple[str, str]] = []

    class Counting(caller_arguments.ToTheCall):
        def walk_statements(self, statements):
            if not self.walking:
                made.append((self.ctx_caller, self.target[0].qualname))
            self.walking += 1
            try:
                return super().walk_statements(statements)
            finally:
                self.walking -= 1

        def __init__(self, ctx, parsed, *args, **kwargs):
            super().__init__(ctx, parsed, *args, **kwargs)
            self.walking = 0
            self.ctx_caller = parsed.node.name.value

    monkeypatch.setattr(caller_arguments, "ToTheCall", Counting)
    return made


def reached_by_transaction(monkeypatch) -> dict[str, frozenset[str]]:
    """The definitions each transaction's walk reached (what the warm cache checks)."""
    from analyzer.django import transactions

    found: dict[str, frozenset[str]] = {}
    original = transactions.walk_transaction  # (the front end imports it where it walks)

    def recording(ctx, parsed, boundary):
        txn, diagnostics, reached = original(ctx, parsed, boundary)
        found[boundary.function] = reached
        return txn, diagnostics, reached

    monkeypatch.setattr(transactions, "walk_transaction", recording)
    return found


def test_a_caller_walked_again_with_the_same_inputs_is_taken_from_the_first_walk(tmp_path, monkeypatch):
    app = make_app(tmp_path, SAME_CALLER_TWICE)
    asked = recording_callers(monkeypatch)
    made = counting_caller_walks(monkeypatch)
    reached = reached_by_transaction(monkeypatch)
    reused = scan(app, Config(), "django", rewrites=False)
    assert asked.count(("bank.services.open_account", "bank.services.store")) == 2
    assert made.count(("open_account", "bank.services.store")) == 1
    # What `open_account` passes reaches `audit` through `store`: the row it read.
    audit = transaction_named(reused, "bank.services.audit")
    assert [(s["entity"], s["kind"]) for s in audit["statements"]] == [("Entry", "insert")]
    reached_reused = dict(reached)

    made.clear()
    reached.clear()
    monkeypatch.setattr(caller_arguments, "REUSE_WALKS", False)
    walked = scan(app, Config(), "django", rewrites=False)
    assert made.count(("open_account", "bank.services.store")) == 2
    assert records_text(walked) == records_text(reused)
    assert reached == reached_reused
    assert "bank.services.open_account" in reached["bank.services.audit"]


def test_a_caller_whose_inputs_differ_is_walked_again(tmp_path, monkeypatch):
    app = make_app(tmp_path, OUTER_CALLER)
    made = counting_caller_walks(monkeypatch)
    reached = reached_by_transaction(monkeypatch)
    reused = scan(app, Config(), "django", rewrites=False)
    made_reusing, reached_reused = list(made), dict(reached)
    made.clear()
    monkeypatch.setattr(caller_arguments, "REUSE_WALKS", False)
    walked = scan(app, Config(), "django", rewrites=False)
    assert records_text(walked) == records_text(reused)
    assert reached == reached_reused
    assert made.count(("open_account", "bank.services.store")) == 3
    assert made_reusing.count(("open_account", "bank.services.store")) == 2
    note = transaction_named(reused, "bank.services.note")
    assert [s["kind"] for s in note["statements"]] == ["write", "write"]


def test_reads_counted_by_words_agree_with_matching_the_name(monkeypatch):
    """caller_arguments._read counts a definition's words once; every (function, parameter) the
    fixtures and samples ask about gets what matching the parameter as a whole word gives."""
    import re

    from conftest import django_projects, record_calls

    asked = record_calls(monkeypatch, caller_arguments, "_read", django_projects())
    assert len({(q, n) for _c, q, n, _f in asked}) > 20
    for ctx, qualname, name, found in asked:
        text = caller_arguments._definition_text(ctx, qualname)
        assert found == (text is None or len(re.findall(rf"(?<!\w){re.escape(name)}(?!\w)", text)) != 1)


def test_a_name_inside_a_longer_word_is_not_a_read(monkeypatch):
    from types import SimpleNamespace

    texts = {"app.pay": "def pay(amount, ámount2):\n    amount_due = 1\n    return 'amount_x' + ámount2\n"}
    monkeypatch.setattr(caller_arguments, "_definition_text", lambda _ctx, qualname: texts.get(qualname))
    ctx = SimpleNamespace(parameter_reads={}, definition_words={})
    assert caller_arguments._read(ctx, "app.pay", "amount") is False
    assert caller_arguments._read(ctx, "app.pay", "ámount2") is True
    assert caller_arguments._read(ctx, "app.other", "x") is True  # no text: errs towards walking
