"""Rewrites planned on both cores (rewrite/shared_work.py): the helper process plans the
candidates of some files, the scan those of the others, and the result is the one planning in
one process gives; a helper that fails or hangs changes nothing but the time taken."""

from __future__ import annotations

import os
import sys
import time

import pytest
from conftest import SAMPLES

from analyzer import forked
from analyzer.cache import ScanCache
from analyzer.config import load
from analyzer.rewrite import shared_work
from analyzer.scan import scan

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="helpers run on Linux only")

ITEMS = [(f"file{n % 7}.py", n) for n in range(60)]


def _key(item):
    return item[0]


@pytest.fixture
def helpers(monkeypatch):
    monkeypatch.setenv(forked.ENV, "1")
    monkeypatch.setattr(shared_work, "MIN_ITEMS", 1)


def test_the_helper_works_on_whole_keys_and_the_results_come_back_in_order(helpers):
    scan_pid = os.getpid()
    results = shared_work.work_shared(ITEMS, lambda item: (item[1] * 2, os.getpid()), _key)
    assert [value for value, _pid in results] == [n * 2 for _file, n in ITEMS]
    by_key: dict[str, set[int]] = {}
    for (file, _n), (_value, pid) in zip(ITEMS, results):
        by_key.setdefault(file, set()).add(pid)
    assert all(len(pids) == 1 for pids in by_key.values())  # a file's items in one process
    helped = {file for file, pids in by_key.items() if pids != {scan_pid}}
    assert helped and helped != set(by_key)  # both processes worked


def test_without_helpers_everything_is_worked_on_here(monkeypatch):
    monkeypatch.setenv(forked.ENV, "0")
    monkeypatch.setattr(shared_work, "MIN_ITEMS", 1)
    assert {pid for _value, pid in shared_work.work_shared(ITEMS, lambda item: (0, os.getpid()), _key)} \
        == {os.getpid()}


def test_a_helper_that_fails_leaves_its_work_to_the_scan(helpers):
    scan_pid = os.getpid()

    def work(item):
        if os.getpid() != scan_pid:
            raise RuntimeError("the helper fails")
        return item[1]

    assert shared_work.work_shared(ITEMS, work, _key) == [n for _file, n in ITEMS]


def test_a_helper_whose_results_do_not_pickle_leaves_its_work_to_the_scan(helpers):
    scan_pid = os.getpid()
    assert shared_work.work_shared(ITEMS, lambda item: item[1] if os.getpid() == scan_pid else (lambda: 0),
                                   _key) == [n for _file, n in ITEMS]


def test_a_helper_that_hangs_is_stopped_and_its_work_done_by_the_scan(helpers, monkeypatch):
    monkeypatch.setattr(shared_work, "WAIT_SECONDS", 1.0)
    scan_pid = os.getpid()

    def work(item):
        if os.getpid() != scan_pid:
            time.sleep(60)
        return item[1]

    stopped = []
    stop = forked.stop
    monkeypatch.setattr(forked, "stop", lambda pid: (stopped.append(pid), stop(pid)))
    began = time.monotonic()
    assert shared_work.work_shared(ITEMS, work, _key) == [n for _file, n in ITEMS]
    assert time.monotonic() - began < 30
    [pid] = stopped
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # killed and reaped


@pytest.mark.parametrize("sample", ["shop", "ledger", "forum"])
def test_rewrites_planned_on_both_cores_are_those_planned_in_one_process(sample, monkeypatch, tmp_path):
    root = SAMPLES / "django" / sample
    found = {}
    forks = []
    fork = forked.fork

    def counted():
        pid = fork()
        if pid:
            forks.append(pid)
        return pid

    monkeypatch.setattr(forked, "fork", counted)
    for setting in ("0", "1"):
        monkeypatch.setenv(forked.ENV, setting)
        monkeypatch.setattr(shared_work, "MIN_ITEMS", 1)
        result = scan(root, load(root), "django", cache=ScanCache(), autocommit=False)
        found[setting] = [(c.transaction, c.suggestion, c.rewrite, c.refused, c.makes_one_shot) for c in result.rewrites]
    assert any(rewrite is not None and rewrite.verified for _t, _s, rewrite, _r, _o in found["0"])
    assert found["1"] == found["0"]
    assert forks  # planned on both cores
