"""Rewrite plans made by the autocommit helper once its walks are done (analyzer/django/plans_ahead.py):
the scan takes them where its own candidate has the same key, plans the rest, and its output and
candidates are those of a scan without the helper; a helper that fails, hangs, sends damaged data
or plans from other records changes nothing but the time taken."""

from __future__ import annotations

import os
import sys
import time

import pytest
from conftest import SAMPLES

from analyzer import forked
from analyzer.django import autocommit_parallel, plans_ahead
from analyzer.output import json_contract
from analyzer.scan import scan

DJANGO_SAMPLES = sorted(p for p in (SAMPLES / "django").iterdir() if (p / "manage.py").is_file())
ENV = forked.ENV

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the helper runs on Linux only")


def _scan(root, setting: str, monkeypatch, rewrites: bool = True) -> tuple[str, list[tuple], list[dict]]:
    """(the JSON output of both CDA modes, every candidate's outcome, what each AheadPlans.work
    took from the helper and planned itself)."""
    monkeypatch.setenv(ENV, setting)
    works: list[dict] = []
    work = plans_ahead.AheadPlans.work

    def recording_work(self, jobs, *args):
        try:
            return work(self, jobs, *args)
        finally:
            works.append({"jobs": len(jobs), "taken": self.taken, "planned": self.planned, "not shared": self.not_shared})

    monkeypatch.setattr(plans_ahead.AheadPlans, "work", recording_work)
    result = scan(root, rewrites=rewrites)
    output = "".join(json_contract.dumps(json_contract.document(result.analyses[mode], root.name, result.lines,
                                                                len(result.files))) for mode in sorted(result.analyses))
    outcomes = [(c.transaction, c.suggestion, c.refused, c.makes_one_shot, c.rewrite, sorted(c.files_read))
                for c in result.rewrites]
    return output, outcomes, works


@pytest.mark.parametrize("root", DJANGO_SAMPLES, ids=lambda p: p.name)
def test_plans_made_by_the_helper_give_the_output_of_a_scan_without_it(root, monkeypatch):
    alone, outcomes_alone, _ = _scan(root, "0", monkeypatch)
    shared, outcomes_shared, works = _scan(root, "wait", monkeypatch)
    assert any(rewrite is not None for *_, rewrite, _files in outcomes_alone)  # the sample has rewrites to plan
    assert shared == alone
    assert outcomes_shared == outcomes_alone
    # The helper planned every candidate (told to wait for it): the scan planned none itself.
    assert len(works) == 1 and works[0]["jobs"] > 0
    assert works[0]["taken"] == works[0]["jobs"] and works[0]["planned"] == 0


@pytest.mark.parametrize("root", DJANGO_SAMPLES, ids=lambda p: p.name)
def test_the_scan_and_the_helper_share_the_plans_without_waiting(root, monkeypatch):
    alone, outcomes_alone, _ = _scan(root, "0", monkeypatch)
    shared, outcomes_shared, works = _scan(root, "1", monkeypatch)
    assert shared == alone
    assert outcomes_shared == outcomes_alone
    for work in works:  # however they met, each plan was taken or made once in the scan
        assert work["taken"] + work["planned"] + work["not shared"] == work["jobs"]


def test_a_scan_without_rewrites_keeps_no_helper_for_them(monkeypatch):
    handed = []
    hand_over = plans_ahead.hand_over

    def recording_hand_over(helper):
        handed.append(hand_over(helper))
        return handed[-1]

    monkeypatch.setattr(plans_ahead, "hand_over", recording_hand_over)
    began = time.monotonic()
    _scan(SAMPLES / "django" / "shop", "wait", monkeypatch, rewrites=False)
    assert handed == [None]
    assert time.monotonic() - began < 60  # (the helper, told there is nothing to plan, ended)


def _failing(_helper):
    raise RuntimeError("the helper fails")


def _hanging(_helper):
    time.sleep(3600)


def _damaging(helper):
    os.write(helper.channel, autocommit_parallel._LENGTH.pack(9) + b"not a pk!")


def _from_other_records(helper):
    """Plans under the scan's keys, for another project (other wrappers): none may be taken."""
    _root, text = helper.wait_for_records()
    keys = [(line.split('"id": "', 1)[1].split('"', 1)[0], ("one-shot", "read-modify-write", f"s{n}"))
            for line in text.splitlines() if '"type": "transaction"' in line for n in range(1, 9)]
    keys = [(txn, *suggestion) for txn, suggestion in keys]
    autocommit_parallel.send(helper.channel, ("plan-keys", None, (keys, frozenset({"another_wrapper"}))))
    for key in keys:
        autocommit_parallel.send(helper.channel, ("plan", key, (None, "planned elsewhere", set(), None)))
    autocommit_parallel.send(helper.channel, ("plans-done", None, None))


@pytest.mark.parametrize("helper", [_failing, _damaging, _from_other_records],
                         ids=["fails", "sends-damaged-data", "plans-other-records"])
def test_a_helper_that_fails_to_plan_leaves_the_plans_to_the_scan(helper, monkeypatch):
    root = SAMPLES / "django" / "shop"
    alone, outcomes_alone, _ = _scan(root, "0", monkeypatch)
    monkeypatch.setattr(plans_ahead, "plan_in_helper", helper)
    shared, outcomes_shared, works = _scan(root, "wait", monkeypatch)
    assert shared == alone
    assert outcomes_shared == outcomes_alone
    assert sum(w["taken"] for w in works) == 0  # (damaged data: the helper's channel is not read on)


def test_a_helper_that_hangs_before_planning_is_stopped_and_its_plans_made_by_the_scan(monkeypatch):
    root = SAMPLES / "django" / "shop"
    alone, outcomes_alone, _ = _scan(root, "0", monkeypatch)
    monkeypatch.setattr(plans_ahead, "plan_in_helper", _hanging)
    stopped = []
    stop = plans_ahead.AheadPlans.stop

    def recording_stop(self):
        stop(self)
        stopped.append(self.helper.pid)

    monkeypatch.setattr(plans_ahead.AheadPlans, "stop", recording_stop)
    began = time.monotonic()
    shared, outcomes_shared, works = _scan(root, "1", monkeypatch)
    assert time.monotonic() - began < 60
    assert shared == alone and outcomes_shared == outcomes_alone
    assert [w["taken"] for w in works] == [0]
    assert stopped and stopped[0] == 0  # killed and reaped: no process left behind


def test_a_plan_the_helper_does_not_finish_is_made_by_the_scan_after_a_bounded_wait(monkeypatch):
    root = SAMPLES / "django" / "shop"
    alone, outcomes_alone, _ = _scan(root, "0", monkeypatch)
    work = plans_ahead._Planning.work

    def stuck_after_two(self, jobs, plan, *args):
        def slow_plan(job, done=[]):  # noqa: B006 - counts the helper's plans
            done.append(job)
            if len(done) > 2:
                time.sleep(3600)
            return plan(job)

        return work(self, jobs, slow_plan, *args)

    monkeypatch.setattr(plans_ahead._Planning, "work", stuck_after_two)
    monkeypatch.setattr(forked, "WAIT_SECONDS", 2.0)
    shared, outcomes_shared, works = _scan(root, "1", monkeypatch)
    assert shared == alone and outcomes_shared == outcomes_alone
    assert len(works) == 1 and works[0]["taken"] + works[0]["planned"] + works[0]["not shared"] == works[0]["jobs"]
