"""Per-function summaries in the Django walk (analyzer/django/summaries.py).

A helper is walked once per calling context and its summary instantiated at every call with
that context; the IR must be exactly what walking it again at each call gives, while keeping
what call-site inlining sees: literal arguments folding branches, the model class passed as an
argument, the caller's reads flowing into the helper's filters.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyzer import config
from analyzer.config import Config
from analyzer.django import summaries
from analyzer.django.walker import Walker
from analyzer.scan import scan
from conftest import FIXTURES

MODELS = """\
from django.db import models


class Account(models.Model):
    balance = models.IntegerField(default=0)


class Entry(models.Model):
    account = models.ForeignKey(Account, on_delete=models.CASCADE)
    amount = models.IntegerField(default=0)


class Audit(models.Model):
    note = models.CharField(max_length=50)
"""

SERVICES = """\
from django.db import transaction

from .models import Account, Audit, Entry


def record(account, amount, audited):
    Entry.objects.create(account=account, amount=amount)
    if audited:
        Audit.objects.create(note="entry")


def bump(model, pk):
    model.objects.filter(pk=pk).update(balance=1)


def balance_of(entry):
    return Entry.objects.filter(account=entry.account).count()


@transaction.atomic
def transfer(source_id, target_id, amount):
    source = Account.objects.get(pk=source_id)
    target = Account.objects.get(pk=target_id)
    record(source, amount, True)
    record(target, amount, False)
    bump(Account, source_id)
    bump(Audit, target_id)


@transaction.atomic
def review(entry_id):
    entry = Entry.objects.get(pk=entry_id)
    first = balance_of(entry)
    again = Entry.objects.get(pk=first)
    balance_of(again)
"""

RECURSIVE = """\
from django.db import transaction

from .models import Account


def down(pk, left):
    Account.objects.filter(pk=pk).update(balance=left)
    if left:
        up(pk, left)


def up(pk, left):
    down(pk, left)


@transaction.atomic
def spin(pk, left):
    down(pk, left)


@transaction.atomic
def spin_up(pk, left):
    up(pk, left)
"""


def chain(depth: int) -> str:
    """A chain of `depth` helpers, each calling the next twice, the last one writing."""
    parts = ["from django.db import transaction\n\nfrom .models import Account\n"]
    for level in range(depth):
        parts.append(f"def h{level}(pk):\n    h{level + 1}(pk)\n    h{level + 1}(pk)\n")
    parts.append(f"def h{depth}(pk):\n    Account.objects.filter(pk=pk).update(balance=0)\n")
    parts.append("@transaction.atomic\ndef deep(pk):\n    h0(pk)\n")
    return "\n\n".join(parts)


def make_app(root: Path, services: dict[str, str]) -> Path:
    (root / "bank").mkdir(parents=True)
    (root / "bank" / "__init__.py").write_text("")
    (root / "bank" / "models.py").write_text(MODELS)
    for name, text in services.items():
        (root / "bank" / name).write_text(text)
    return root


def transactions(result) -> dict:
    return {t["function"]: t for t in result.analyses["pk"]["transactions"]}


def records_text(result) -> str:
    return "".join(json.dumps(r, sort_keys=True) + "\n" for r in result.records)


@pytest.fixture
def no_reuse(monkeypatch):
    monkeypatch.setattr(summaries, "REUSE", False)


def test_literal_arguments_still_fold_branches_in_a_reused_helper(tmp_path):
    found = transactions(scan(make_app(tmp_path, {"services.py": SERVICES}), frontend="django"))
    statements = found["bank.services.transfer"]["statements"]
    inserts = [s["entity"] for s in statements if s["kind"] == "insert"]
    # record(..., True) writes the audit row, record(..., False) does not: two contexts.
    assert inserts == ["Entry", "Audit", "Entry"]
    # The model class passed as an argument decides the entity at each call.
    assert [s["entity"] for s in statements if s["kind"] == "write"] == ["Account", "Audit"]


def test_the_callers_reads_flow_into_a_reused_helper(tmp_path):
    result = scan(make_app(tmp_path, {"services.py": SERVICES}), frontend="django")
    txn = next(r for r in result.records if r.get("function") == "bank.services.review")
    steps = [s for s in txn["steps"] if s["node"] == "statement"]
    reads = [s["id"] for s in steps if s["api"] == "get"]
    fk_reads = [s for s in steps if s["api"] == "fk:account"]
    counts = [s for s in steps if s["api"] == "filter.count"]
    assert len(reads) == 2 and len(fk_reads) == 2 and len(counts) == 2
    # Each instantiation of balance_of depends on the row its own caller read, not the first one's.
    assert [s["uses"] for s in fk_reads] == [[reads[0]], [reads[1]]]
    assert [s["predicate"]["sources"] for s in counts] == [[{"kind": "result", "step": reads[0]}],
                                                           [{"kind": "result", "step": reads[1]}]]


def test_reuse_gives_the_same_ir_as_walking_again(tmp_path, monkeypatch):
    app = make_app(tmp_path, {"services.py": SERVICES, "recursive.py": RECURSIVE, "deep.py": chain(5)})
    reused = records_text(scan(app, Config(depth=12), "django"))
    monkeypatch.setattr(summaries, "REUSE", False)
    walked = records_text(scan(app, Config(depth=12), "django"))
    assert reused == walked


@pytest.mark.parametrize("fixture", sorted(p.parent for p in (FIXTURES / "django").glob("*/expected.json")),
                         ids=lambda p: p.name)
def test_fixtures_give_the_same_ir_without_reuse_and_the_same_verdicts_without_repeats(fixture, monkeypatch):
    settings = config.load(fixture) if (fixture / "pyproject.toml").is_file() else Config()
    result = scan(fixture, settings, "django", rewrites=False)
    monkeypatch.setattr(summaries, "REUSE", False)
    assert records_text(scan(fixture, settings, "django", rewrites=False)) == records_text(result)
    monkeypatch.setattr(summaries, "REUSE", True)
    monkeypatch.setattr(summaries, "REPEAT", False)
    assert _verdicts(scan(fixture, settings, "django", rewrites=False)) == _verdicts(result)


def test_each_helper_is_walked_once_per_calling_context(tmp_path, monkeypatch):
    walked = []
    original = Walker._walk_callee

    def counting(self, found, fn, *args):
        walked.append(fn.qualname)
        return original(self, found, fn, *args)

    monkeypatch.setattr(Walker, "_walk_callee", counting)
    monkeypatch.setattr(summaries, "REPEAT", False)
    found = transactions(scan(make_app(tmp_path, {"deep.py": chain(10)}), Config(depth=20), "django"))
    txn = found["bank.deep.deep"]
    # Copied at every call: 2**10 writes through 2**11 - 1 calls, from 11 walks.
    assert len(txn["statements"]) == 2 ** 10
    assert sorted(walked) == sorted(f"bank.deep.h{level}" for level in range(11))
    assert not txn["incomplete"]


def test_a_call_repeating_an_earlier_instance_is_one_repeat_step(tmp_path):
    """2**40 call paths give one statement and one repeat per level."""
    text = chain(40)
    second_call = text.splitlines().index("def h39(pk):") + 3  # 1-based line of h39's second call
    result = scan(make_app(tmp_path, {"deep.py": text}), Config(depth=60), "django")
    txn = next(r for r in result.records if r.get("function") == "bank.deep.deep")
    steps = txn["steps"]
    assert [s["node"] for s in steps] == ["statement"] + ["repeat"] * 40
    # h40's second call repeats the write, h39's repeats the write and h40's repeat, ...
    assert steps[1] == {"node": "repeat", "id": "s2", "callee": "bank.deep.h40", "same_as": ["s1"],
                        "file": "bank/deep.py", "line": second_call, "via": [f"bank.deep.h{i}" for i in range(40)]}
    assert steps[2]["same_as"] == ["s1", "s2"] and steps[2]["callee"] == "bank.deep.h39"
    verdict = transactions(result)["bank.deep.deep"]
    assert verdict["complete"] and verdict["interactivity"] == "one-shot"
    assert [s["id"] for s in verdict["statements"]] == ["s1"]


def test_a_transaction_alone_or_among_others_gets_the_same_ir(tmp_path):
    """Summaries from other transactions never change a transaction's IR (no order effects)."""
    both = make_app(tmp_path / "both", {"services.py": SERVICES, "recursive.py": RECURSIVE})
    alone = make_app(tmp_path / "alone", {"recursive.py": RECURSIVE.replace("def spin(", "def _spin(")
                                          .replace("@transaction.atomic\ndef _spin", "def _spin")})
    together = {r["function"]: r for r in scan(both, frontend="django", autocommit=False).records if r.get("type") == "transaction"}
    single = {r["function"]: r for r in scan(alone, frontend="django", autocommit=False).records if r.get("type") == "transaction"}
    assert set(single) == {"bank.recursive.spin_up"}
    assert json.dumps(single["bank.recursive.spin_up"]["steps"], sort_keys=True) == \
        json.dumps(together["bank.recursive.spin_up"]["steps"], sort_keys=True)


def test_recursion_is_cut_once_per_cycle(tmp_path):
    found = transactions(scan(make_app(tmp_path, {"recursive.py": RECURSIVE}), frontend="django"))
    for name in ("bank.recursive.spin", "bank.recursive.spin_up"):
        assert [s["kind"] for s in found[name]["statements"]] == ["write"]


SAVING_MODELS = MODELS + '''

class Ledger(models.Model):
    total = models.IntegerField(default=0)

    def save(self, *args, **kwargs):
        self.total = self.total + 1
        super().save(*args, **kwargs)
'''

SAVING = """\
from django.db import transaction

from .models import Ledger


def close(ledger):
    ledger.save()


def close_twice(ledger):
    close(ledger)
    close(ledger)


@transaction.atomic
def settle(pk):
    ledger = Ledger.objects.get(pk=pk)
    close_twice(ledger)
    other = Ledger.objects.get(pk=pk)
    close_twice(other)
"""


def test_an_overridden_save_reports_each_call_site_through_reused_helpers(tmp_path, monkeypatch):
    app = make_app(tmp_path, {"saving.py": SAVING})
    (app / "bank" / "models.py").write_text(SAVING_MODELS)
    monkeypatch.setattr(summaries, "REPEAT", False)  # each call's copy, to see each one's site
    result = scan(app, frontend="django")
    txn = transactions(result)["bank.saving.settle"]
    saves = [(s["line"], s["via"]) for s in txn["statements"] if s["api"] == "save"]
    # super().save() is reported at the caller's `ledger.save()` line, with the caller's chain.
    assert saves == [(7, ["bank.saving.close_twice", "bank.saving.close"])] * 4
    assert not [d for d in result.analyses["pk"]["diagnostics"] if d["code"] == "internal-error"]
    reused = records_text(result)
    monkeypatch.setattr(summaries, "REUSE", False)
    assert records_text(scan(app, frontend="django")) == reused


REPEATED = """\
from django.db import transaction
import requests

from .models import Account, Audit, Entry


def log(note):
    Audit.objects.create(note=note)


def touch(pk):
    Account.objects.filter(pk=pk).update(balance=0)
    log("touched")


def notify(pk):
    touch(pk)
    requests.post("https://example.com/hook", json={"pk": pk})


@transaction.atomic
def conditional(pk):
    touch(pk)
    account = Account.objects.get(pk=pk)
    if account.balance:
        touch(pk)


@transaction.atomic
def looped(pk):
    touch(pk)
    for entry in Entry.objects.filter(account_id=pk):
        touch(pk)
        touch(pk)


@transaction.atomic
def nested(pk):
    touch(pk)
    notify(pk)
    account = Account.objects.get(pk=pk)
    while account.balance:
        notify(pk)


def mark(account):
    Entry.objects.filter(account=account).update(amount=0)
    touch(account.pk)


@transaction.atomic
def rebound(pk, other):
    first = Account.objects.get(pk=pk)
    mark(first)
    second = Account.objects.filter(balance=other).get(pk=pk)
    mark(second)
    for entry in Entry.objects.filter(amount=1):
        mark(entry.account)


@transaction.atomic
def plain(pk):
    touch(pk)
    touch(pk)
    log("done")
"""


def _normalised(verdict: dict) -> dict:
    """A verdict without step ids: what a repeat must leave as copying gives it."""
    import re

    def ids(text):
        return re.sub(r"@s\d+", "@s", text)

    return {
        "interactivity": verdict["interactivity"],
        "complete": verdict["complete"],
        "incomplete": verdict["incomplete"],
        "rw_inferable": verdict["rw_inferable"],
        "reasons": sorted({(r["category"], r.get("callee", ""), r["file"], r["line"]) for r in verdict["reasons"]}),
        "statements": sorted({(s["file"], s["line"], s["entity"], s["kind"], s["api"], tuple(s["attributes"]),
                               s["inferability"], tuple(s["flags"])) for s in verdict["statements"]}),
        "read_set": sorted({ids(x) for x in verdict["read_set"]}),
        "write_set": sorted({ids(x) for x in verdict["write_set"]}),
        "suggestions": sorted({(x["kind"], x["pattern"] or "", x["file"], x["line"]) for x in verdict["suggestions"]}),
    }


def _verdicts(result) -> dict:
    return {(v["id"], mode): _normalised(v) for mode, analysis in result.analyses.items()
            for v in analysis["transactions"]}


def test_repeats_give_the_verdicts_copying_gives(tmp_path, monkeypatch):
    app = make_app(tmp_path, {"repeated.py": REPEATED, "services.py": SERVICES, "deep.py": chain(6)})
    result = scan(app, Config(), "django")
    kinds = {r["function"]: {s["node"] for s in summaries_steps(r["steps"])}
             for r in result.records if r.get("type") == "transaction"}
    assert "repeat" in kinds["bank.repeated.conditional"] and "repeat" in kinds["bank.repeated.nested"]
    found = transactions(result)
    # The repeat under `if account.balance` is what makes `conditional` interactive.
    assert found["bank.repeated.conditional"]["interactivity"] == "interactive-nonstrict"
    assert {r["category"] for r in found["bank.repeated.conditional"]["reasons"]} == {"conditional"}
    assert {r["category"] for r in found["bank.repeated.looped"]["reasons"]} == {"loop-over-results"}
    # mark(second) is mark(first) with the second read bound instead of the first.
    rebound = next(r for r in result.records if r.get("function") == "bank.repeated.rebound")
    assert [sorted(s["bind"].values()) for s in summaries_steps(rebound["steps"]) if s["node"] == "repeat"][:1] == [["s5"]]
    monkeypatch.setattr(summaries, "REPEAT", False)
    copied = scan(app, Config(), "django")
    assert not any('"node": "repeat"' in json.dumps(r) for r in copied.records if r.get("type") == "transaction")
    assert _verdicts(result) == _verdicts(copied)


def summaries_steps(steps: list) -> list:
    out = []
    for step in steps:
        out.append(step)
        for arm in step.get("arms", []):
            out.extend(summaries_steps(arm))
        out.extend(summaries_steps(step.get("body", [])))
    return out


PREFETCHING = """\
from django.db import transaction

from .models import Account


def load(pk):
    return Account.objects.prefetch_related("entry_set").get(pk=pk)


@transaction.atomic
def first(pk):
    account = load(pk)
    for entry in account.entry_set.all():
        entry.save()


@transaction.atomic
def second(pk):
    account = load(pk)
    for entry in account.entry_set.all():
        entry.save()
"""


def test_a_reused_helpers_prefetch_still_serves_the_related_manager(tmp_path, monkeypatch):
    """`second` reuses `load`'s summary from `first`: the prefetch it entered in the cache is keyed
    by its kind, not by sources, and must be found again (no extra read of the related rows)."""
    app = make_app(tmp_path, {"services.py": PREFETCHING})
    reused = scan(app, frontend="django")
    apis = {r["function"]: [s["api"] for s in r["steps"] if s.get("node") == "statement"]
            for r in reused.records if r.get("function")}
    assert apis["bank.services.first"] == apis["bank.services.second"] == ["prefetch_related.get",
                                                                          "prefetch:entry_set"]
    monkeypatch.setattr(summaries, "REUSE", False)
    assert records_text(scan(app, frontend="django")) == records_text(reused)
