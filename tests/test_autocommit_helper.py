"""Helper processes of a scan (analyzer/forked.py). The explicit transactions and the autocommit
phase's walks shared with a helper (analyzer/django/autocommit_parallel.py): the scan's output
(and warm cache) is the one a scan without the helper gives, the scan walks what the helper did
not, and a helper that fails, hangs or sends damaged data changes nothing but the time taken. The warm cache's file written in the
background is the file written in the scan's process, there when the scan returns."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest
from conftest import SAMPLES, background_writers, django_project

from analyzer import forked, ir
from analyzer.cache import ScanCache, cachefile
from analyzer.cache.django import DjangoReuse
from analyzer.config import load
from analyzer.django import autocommit, autocommit_parallel, boundaries, entry_points, frontend, orm_evidence
from analyzer.scan import scan

DJANGO_SAMPLES = sorted(p for p in (SAMPLES / "django").iterdir() if (p / "manage.py").is_file())
ENV = forked.ENV

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the helper runs on Linux only")


def _frontend_scan(root, reuse: DjangoReuse):
    """frontend.scan(), then the helpers it killed reaped, as analyzer.scan.scan() does as it ends."""
    try:
        return frontend.scan(root, frontend.Options(), reuse)
    finally:
        forked.reap_stopped()


def _scan(root, setting: str, monkeypatch) -> tuple[str, list[str]]:
    """(the IR text, the functions and modules whose autocommit sites the scan itself walked)."""
    monkeypatch.setenv(ENV, setting)
    reuse = DjangoReuse({})
    result = _frontend_scan(root, reuse)
    return ir.dumps(result.records), list(reuse.sites_walked)


@pytest.mark.parametrize("root", DJANGO_SAMPLES, ids=lambda p: p.name)
def test_walks_made_by_the_helper_give_the_output_of_a_scan_without_it(root, monkeypatch):
    alone, walked_alone = _scan(root, "0", monkeypatch)
    shared, walked_shared = _scan(root, "wait", monkeypatch)
    assert '"boundary": "autocommit"' in alone  # the sample has autocommit statements to walk
    assert shared == alone
    # The helper walked the functions (and module-level code): the scan walked fewer of them.
    functions_alone = [k for k in walked_alone if not k.startswith("module ")]
    functions_shared = [k for k in walked_shared if not k.startswith("module ")]
    assert functions_alone and len(functions_shared) < len(functions_alone)


@pytest.mark.parametrize("root", DJANGO_SAMPLES, ids=lambda p: p.name)
def test_the_scan_takes_what_the_helper_read_off_the_code_and_keeps_what_it_would_read(root, monkeypatch):
    worked_out = []  # (fact, function or module) this process read itself, not taken from the helper
    holds_orm, static_callees = orm_evidence.OrmEvidence.holds_orm, entry_points.StaticCallees.__call__
    module_orm = autocommit._Autocommit._module_level_orm_text

    def orm_recorded(self, fn, owner):
        worked_out.append(("holds ORM", fn.qualname))
        return holds_orm(self, fn, owner)

    def callees_recorded(self, fn, owner):
        worked_out.append(("callees", fn.qualname))
        return static_callees(self, fn, owner)

    def module_orm_recorded(self, module):
        worked_out.append(("module-level ORM", module))
        return module_orm(self, module)

    monkeypatch.setattr(orm_evidence.OrmEvidence, "holds_orm", orm_recorded)
    monkeypatch.setattr(entry_points.StaticCallees, "__call__", callees_recorded)
    monkeypatch.setattr(autocommit._Autocommit, "_module_level_orm_text", module_orm_recorded)
    monkeypatch.setenv(ENV, "0")
    reuse_alone = DjangoReuse({})
    alone = ir.dumps(frontend.scan(root, frontend.Options(), reuse_alone).records)
    worked_out_alone, worked_out[:] = {fact for fact, _ in worked_out}, []
    monkeypatch.setenv(ENV, "wait")
    reuse_shared = DjangoReuse({})
    shared = ir.dumps(frontend.scan(root, frontend.Options(), reuse_shared).records)
    assert worked_out_alone == {"holds ORM", "callees", "module-level ORM"} and not worked_out  # all the helper's
    assert shared == alone
    # the facts are those the scan reads alone, kept for the same functions and modules in the warm cache
    assert reuse_shared.written["autocommit_facts"] == reuse_alone.written["autocommit_facts"]


def test_module_level_code_walked_by_the_helper_is_taken_by_the_scan(tmp_path, monkeypatch):
    root = django_project(tmp_path / "project", "app", "Item", {
        "settings_cache.py": "from app.models import Item\n\nKNOWN = list(Item.objects.filter(name='a'))\n"
                             "for item in Item.objects.all():\n    item.save()\n",
        "services.py": "from app.models import Item\n\n\ndef rename(item_id):\n"
                       "    Item.objects.filter(pk=item_id).update(name='b')\n"})
    alone, walked_alone = _scan(root, "0", monkeypatch)
    shared, walked_shared = _scan(root, "wait", monkeypatch)
    assert "app/settings_cache.py" in alone  # module-level statements, in autocommit
    assert shared == alone
    assert "module app.settings_cache" in walked_alone and walked_shared == []  # the helper walked them all


def test_the_command_prints_the_same_json_with_and_without_the_helper(tmp_path):
    shop = SAMPLES / "django" / "shop"
    outputs = []
    for setting in ("0", "wait", "1"):
        done = subprocess.run([sys.executable, "-m", "analyzer.cli", "scan", str(shop), "--format", "json", "--no-db",
                               "--no-cache", "--ir", str(tmp_path / f"{setting}.ir")], check=False, capture_output=True,
                              text=True,
                              env={**os.environ, ENV: setting})
        assert done.returncode == 0, done.stderr[-2000:]
        outputs.append((done.stdout, (tmp_path / f"{setting}.ir").read_text("utf-8")))
    assert outputs[0] == outputs[1] == outputs[2]


def _failing(*_args):
    raise RuntimeError("the helper fails")


def _hanging(*_args):
    time.sleep(3600)


def _damaging(_ctx, _boundaries, _reuse, channel, _position):
    os.write(channel, autocommit_parallel._LENGTH.pack(9) + b"not a pk!")


@pytest.mark.parametrize("helper", [_failing, _damaging], ids=["fails", "sends-damaged-data"])
def test_a_helper_that_fails_leaves_every_walk_to_the_scan(helper, monkeypatch):
    root = SAMPLES / "django" / "shop"
    alone, walked_alone = _scan(root, "0", monkeypatch)
    monkeypatch.setattr(autocommit_parallel, "_walk_all", helper)
    shared, walked_shared = _scan(root, "wait", monkeypatch)
    assert shared == alone
    assert walked_shared == walked_alone


def _recording_starts(monkeypatch) -> list:
    """The helpers autocommit_parallel.start() starts from now on, each with its `started_pid`
    (stop() clears `pid`)."""
    started = []
    start = autocommit_parallel.start

    def recording_start(*args):
        helper = start(*args)
        if helper is not None:
            started.append(helper)
            helper.started_pid = helper.pid
        return helper

    monkeypatch.setattr(autocommit_parallel, "start", recording_start)
    return started


def test_a_helper_that_hangs_is_stopped_when_the_phase_ends(monkeypatch):
    root = SAMPLES / "django" / "shop"
    alone, _ = _scan(root, "0", monkeypatch)
    monkeypatch.setattr(autocommit_parallel, "_walk_all", _hanging)
    started = _recording_starts(monkeypatch)
    began = time.monotonic()
    shared, _ = _scan(root, "1", monkeypatch)
    assert shared == alone
    assert time.monotonic() - began < 60
    assert len(started) == 1
    with pytest.raises(ChildProcessError):  # killed and reaped: no process left behind
        os.waitpid(started[0].started_pid, os.WNOHANG)


def test_the_scan_does_not_wait_for_the_helper_it_killed_until_it_ends(monkeypatch):
    """The helper is killed when the autocommit phase ends and reaped when scan() ends: the front
    end returns without waiting for the system to free the helper's memory."""
    monkeypatch.setenv(ENV, "1")
    started = _recording_starts(monkeypatch)
    root = SAMPLES / "django" / "shop"
    try:
        frontend.scan(root, frontend.Options(), DjangoReuse({}))
        assert len(started) == 1 and started[0].started_pid in forked._stopped  # killed, not waited for
    finally:
        forked.reap_stopped()
    started.clear()
    scan(root, load(root), rewrites=False, cache=ScanCache())
    assert len(started) == 1 and not forked._stopped
    with pytest.raises(ChildProcessError):  # reaped as scan() ended
        os.waitpid(started[0].started_pid, os.WNOHANG)


def test_no_helper_when_turned_off_or_for_a_small_project(monkeypatch):
    monkeypatch.setenv(ENV, "0")
    assert not autocommit_parallel.wanted(100_000)
    monkeypatch.delenv(ENV)
    assert not autocommit_parallel.wanted(autocommit_parallel.MIN_FUNCTIONS - 1)
    monkeypatch.setenv(ENV, "1")
    assert autocommit_parallel.wanted(1)


def _cold_scan_cache_file(root, tmp_path, setting: str, monkeypatch) -> bytes:
    monkeypatch.setenv(ENV, setting)
    folder = tmp_path / f"cache-{setting}"
    result = scan(root, load(root), cache=ScanCache(folder), rewrites=False)
    assert result.records
    return b"".join((folder / name).read_bytes() for name in ("django.json", "core.json") if (folder / name).exists())


def test_the_cache_file_written_in_the_background_is_the_one_written_in_the_scan(tmp_path, monkeypatch):
    root = SAMPLES / "django" / "shop"
    alone = _cold_scan_cache_file(root, tmp_path, "0", monkeypatch)
    with background_writers(monkeypatch) as writers:
        assert _cold_scan_cache_file(root, tmp_path, "1", monkeypatch) == alone
    # the front end's file and the core's, each written by a helper
    assert len(writers) == 2 and all(isinstance(w, forked.Background) for w in writers)
    # a writer that fails: the scan writes the file itself
    scanning = os.getpid()
    save = cachefile.save

    def failing_in_the_helper(*args, **kwargs):
        if os.getpid() != scanning:
            raise RuntimeError("the writer fails")
        save(*args, **kwargs)

    monkeypatch.setattr(cachefile, "save", failing_in_the_helper)
    # the front end's file is written by the scan; the core's is not (its verdicts have been given
    # excerpts and rewrites since), so the next scan computes the verdicts again
    assert alone.startswith(_cold_scan_cache_file(root, tmp_path / "failing", "1", monkeypatch))
    assert not (tmp_path / "failing" / "cache-1" / "core.json").exists()


def test_a_background_task_that_hangs_is_killed_and_left_to_the_caller(monkeypatch):
    monkeypatch.setenv(ENV, "1")
    writer = forked.in_background(lambda: time.sleep(600))
    assert isinstance(writer, forked.Background)
    began = time.monotonic()
    assert writer.finish(timeout=0.5) is False  # not done in time: the caller writes the file itself
    assert time.monotonic() - began < 30
    with pytest.raises(ChildProcessError):  # killed and reaped
        os.waitpid(writer.pid, os.WNOHANG)
    done = forked.in_background(lambda: None)
    assert done.finish() is True


def test_no_helper_by_default_in_a_process_with_other_threads(monkeypatch):
    """Forking while another thread holds a lock could leave the helper stuck: a scan run in a
    Dask worker's thread or inside another application does its work in its own process."""
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))  # an idle two-core machine
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1})
    threads = [1]
    monkeypatch.setattr(threading, "active_count", lambda: threads[0])
    assert forked.allowed()
    threads[0] = 2
    assert not forked.allowed()
    assert forked.in_background(lambda: None) is None
    monkeypatch.setenv(ENV, "1")  # told to: forks whatever the threads
    assert forked.allowed()


# -- explicit transactions shared with the helper ------------------------------------------------

def _scan_recording(root, setting: str, monkeypatch) -> tuple[str, DjangoReuse, list]:
    """(the IR text, the scan's cache use, the helpers started) of a scan with `setting`."""
    monkeypatch.setenv(ENV, setting)
    started = _recording_starts(monkeypatch)
    reuse = DjangoReuse({})
    result = _frontend_scan(root, reuse)
    return ir.dumps(result.records), reuse, started


def _kept_transactions(reuse: DjangoReuse) -> dict:
    """What the warm cache keeps of each transaction, the definitions it reached as a set (the
    order they were reached in depends on what an earlier transaction of the same process
    summarised)."""
    return {key: {**entry, "reach": sorted(map(tuple, entry["reach"]))}
            for key, entry in reuse.written["transactions"].items()}


@pytest.mark.parametrize("root", DJANGO_SAMPLES, ids=lambda p: p.name)
def test_transactions_walked_by_the_helper_give_the_output_and_cache_of_a_scan_without_it(root, monkeypatch):
    alone, reuse_alone, _ = _scan_recording(root, "0", monkeypatch)
    shared, reuse_shared, started = _scan_recording(root, "wait", monkeypatch)
    assert '"type": "transaction"' in alone and reuse_alone.walked
    assert shared == alone
    # the helper walked every explicit transaction (the scan waited for them): the scan took them all
    assert len(started) == 1 and started[0].taken_transactions == len(reuse_alone.walked)
    assert sorted(reuse_shared.walked) == sorted(reuse_alone.walked)
    assert _kept_transactions(reuse_shared) == _kept_transactions(reuse_alone)


def _failing_transactions(*_args):
    raise RuntimeError("the helper fails")


def _damaging_transactions(_ctx, _reuse, channel, _position, _transactions, _walk):
    os.write(channel, autocommit_parallel._LENGTH.pack(9) + b"not a pk!")


@pytest.mark.parametrize("helper", [_failing_transactions, _damaging_transactions], ids=["fails", "sends-damaged-data"])
def test_a_helper_that_fails_on_transactions_leaves_them_to_the_scan(helper, monkeypatch):
    root = SAMPLES / "django" / "shop"
    alone, reuse_alone, _ = _scan_recording(root, "0", monkeypatch)
    monkeypatch.setattr(autocommit_parallel, "_walk_transactions", helper)
    shared, reuse_shared, started = _scan_recording(root, "wait", monkeypatch)
    assert shared == alone
    assert started[0].taken_transactions == 0
    assert reuse_shared.walked == reuse_alone.walked  # all walked by the scan, in its order
    assert _kept_transactions(reuse_shared) == _kept_transactions(reuse_alone)


def test_a_helper_that_hangs_on_a_transaction_leaves_the_rest_to_the_scan(monkeypatch):
    root = SAMPLES / "django" / "shop"
    alone, reuse_alone, _ = _scan_recording(root, "0", monkeypatch)

    def hanging_after_one(ctx, reuse, channel, position, transactions, walk):
        # the last transaction passed on, then stuck on the one before it
        def walk_or_hang(boundary):
            if boundary is transactions[-2]:
                time.sleep(3600)
            return walk(boundary)
        autocommit_parallel_walk(ctx, reuse, channel, position, transactions, walk_or_hang)

    autocommit_parallel_walk = autocommit_parallel._walk_transactions
    monkeypatch.setattr(autocommit_parallel, "_walk_transactions", hanging_after_one)
    began = time.monotonic()
    shared, reuse_shared, started = _scan_recording(root, "1", monkeypatch)
    assert shared == alone
    assert time.monotonic() - began < 60
    assert started[0].taken_transactions <= 1  # the last one, if it arrived in time
    assert sorted(reuse_shared.walked) == sorted(reuse_alone.walked)
    assert started[0].pid == 0
    with pytest.raises(ChildProcessError):  # killed and reaped when the scan no longer needs it
        os.waitpid(started[0].started_pid, os.WNOHANG)


def test_the_helper_stops_at_the_transaction_the_scan_has_got_to(monkeypatch):
    """The scan's position is read by the helper before each walk: with the scan past every
    transaction, the helper walks none and goes on to the autocommit walks."""
    root = SAMPLES / "django" / "shop"
    alone, _, _ = _scan_recording(root, "0", monkeypatch)
    walk_transactions = autocommit_parallel._walk_transactions
    walked_in_helper = []

    def scan_already_past(ctx, reuse, channel, position, transactions, walk):
        position[:autocommit_parallel._POSITION.size] = autocommit_parallel._POSITION.pack(len(transactions))
        walk_transactions(ctx, reuse, channel, position, transactions, walked_in_helper.append)
        assert not walked_in_helper  # else the helper fails before it says the transactions are done

    monkeypatch.setattr(autocommit_parallel, "_walk_transactions", scan_already_past)
    shared, _, started = _scan_recording(root, "wait", monkeypatch)
    assert shared == alone
    assert started[0].taken_transactions == 0
    assert started[0].transactions_done


def test_a_parse_error_met_by_a_transaction_the_helper_walked_is_reported(tmp_path, monkeypatch):
    """The helper's autocommit walks come first and may parse a definition before its transaction
    walk does: the scan takes the transaction with the parse errors of every definition it reached
    (as from the warm cache), not only with those the helper's transaction walk met first."""
    root = django_project(tmp_path / "project", "app", "Item", {
        "helpers.py": "from app.models import Item\n\n\ndef broken(item_id):\n    value = = 1\n"
                      "    return Item.objects.get(pk=item_id)\n",
        "services.py": "from django.db import transaction\n\nfrom app.helpers import broken\nfrom app.models import Item\n\n\n"
                       "@transaction.atomic\ndef change(item_id):\n    broken(item_id)\n"
                       "    Item.objects.filter(pk=item_id).delete()\n"})
    alone, _, _ = _scan_recording(root, "0", monkeypatch)
    shared, _, started = _scan_recording(root, "wait", monkeypatch)
    assert "app.helpers.broken: syntax error" in alone
    assert started[0].taken_transactions == 1
    assert shared == alone


# -- the index shared with a helper forked before it ----------------------------------------------

_BEFORE_INDEX = autocommit_parallel.before_index

def _scan_indexing(root, setting: str, monkeypatch) -> tuple[str, DjangoReuse, list]:
    """(the IR text, the scan's cache use, the helpers forked before the index) of a scan with `setting`."""
    monkeypatch.setenv(ENV, setting)
    forked_early = []

    def recording(*args):
        helper = _BEFORE_INDEX(*args)
        if helper is not None:
            forked_early.append(helper)
            helper.started_pid = helper.pid
            helper.ahead_pid = helper.ahead.pid if helper.ahead is not None else None
        return helper

    monkeypatch.setattr(autocommit_parallel, "before_index", recording)
    reuse = DjangoReuse({})
    result = _frontend_scan(root, reuse)
    return ir.dumps(result.records), reuse, forked_early


def _indexed_files(root) -> int:
    return sum(1 for _ in root.rglob("*.py"))


@pytest.mark.parametrize("root", DJANGO_SAMPLES, ids=lambda p: p.name)
def test_modules_indexed_by_the_helper_give_the_output_and_cache_of_a_scan_without_it(root, monkeypatch):
    alone, reuse_alone, none = _scan_indexing(root, "0", monkeypatch)
    shared, reuse_shared, forked_early = _scan_indexing(root, "wait", monkeypatch)
    assert not none and len(forked_early) == 1
    # the scan waited for the process indexing ahead: it indexed every file, the scan took them all
    assert forked_early[0].ahead_pid > 0
    assert forked_early[0].taken_modules == forked_early[0].arrived_ahead == _indexed_files(root) > 0
    assert shared == alone
    # the warm cache's index entries, in the same order
    assert list(reuse_shared.written["files"].items()) == list(reuse_alone.written["files"].items())
    assert _kept_transactions(reuse_shared) == _kept_transactions(reuse_alone)


def _failing_index(*_args):
    raise RuntimeError("the helper fails")


def _damaging_index(helper, _prefix):
    os.write(helper.channel, autocommit_parallel._LENGTH.pack(9) + b"not a pk!")


def _hanging_index(*_args):
    time.sleep(3600)


@pytest.mark.parametrize("index_share", [_failing_index, _damaging_index, _hanging_index],
                         ids=["fails", "sends-damaged-data", "hangs"])
def test_a_helper_that_fails_to_index_leaves_the_index_to_the_scan(index_share, monkeypatch):
    root = SAMPLES / "django" / "shop"
    alone, reuse_alone, _ = _scan_indexing(root, "0", monkeypatch)
    monkeypatch.setattr(autocommit_parallel.Helper, "index_share", index_share)
    began = time.monotonic()
    shared, reuse_shared, forked_early = _scan_indexing(root, "1", monkeypatch)  # the scan does not wait
    assert time.monotonic() - began < 60
    assert shared == alone
    assert forked_early[0].taken_modules == 0
    assert list(reuse_shared.written["files"].items()) == list(reuse_alone.written["files"].items())
    for pid in (forked_early[0].started_pid, forked_early[0].ahead_pid):
        with pytest.raises(ChildProcessError):  # stopped and reaped when the scan ends
            os.waitpid(pid, os.WNOHANG)


_AHEAD_SEES_LIBCST = """
import sys
from pathlib import Path
import analyzer.cli, analyzer.config, analyzer.output.json_contract, analyzer.typeorm.bridge  # as `txscan scan`
from analyzer.cache import ScanCache
from analyzer.config import load
from analyzer.django import autocommit_parallel
from analyzer.scan import scan

seen = []
index_ahead = autocommit_parallel.index_ahead

def recording(*args):
    seen.append("libcst" in sys.modules)
    return index_ahead(*args)

autocommit_parallel.index_ahead = recording
root = Path(sys.argv[1])
scan(root, load(root), rewrites=False, cache=ScanCache())
print(seen)
"""


def test_the_index_is_made_ahead_while_the_scan_imports_libcst(monkeypatch):
    """The process indexing ahead is forked before `txscan scan` has imported libcst (the time
    it indexes in): an import of libcst moved before it would leave it nothing to overlap."""
    monkeypatch.setenv(ENV, "1")
    done = subprocess.run([sys.executable, "-c", _AHEAD_SEES_LIBCST, str(SAMPLES / "django" / "shop")],
                          capture_output=True, text=True, check=True, cwd=os.path.dirname(os.path.dirname(__file__)))
    assert done.stdout.strip() == "[False]"


_IMPORTED_AT_THE_FORKS = """
import json, sys
from pathlib import Path
import analyzer.cli, analyzer.config, analyzer.output.json_contract, analyzer.typeorm.bridge  # as `txscan scan`
from analyzer.cache import ScanCache
from analyzer.config import load
from analyzer.django import autocommit_parallel
from analyzer.scan import scan

WATCHED = ("analyzer.django.summaries", "analyzer.django.autocommit", "analyzer.django.call_sites")
seen = {}
index_ahead, before_index = autocommit_parallel.index_ahead, autocommit_parallel.before_index

def at(fork, function):
    def recording(*args):
        seen[fork] = [name for name in WATCHED if name in sys.modules]
        return function(*args)
    return recording

autocommit_parallel.index_ahead = at("ahead", index_ahead)
autocommit_parallel.before_index = at("helper", before_index)
root = Path(sys.argv[1])
scan(root, load(root), rewrites=False, cache=ScanCache())
print(json.dumps(seen))
"""


def test_the_scan_imports_what_the_index_does_not_read_after_the_process_ahead_and_before_the_helper(monkeypatch):
    """Whatever is imported before the process indexing ahead is forked delays it (summaries.py
    is read from the walks on); the autocommit phase's modules are imported before the helper is
    forked, which then walks without importing them first."""
    monkeypatch.setenv(ENV, "1")
    done = subprocess.run([sys.executable, "-c", _IMPORTED_AT_THE_FORKS, str(SAMPLES / "django" / "shop")],
                          capture_output=True, text=True, check=True, cwd=os.path.dirname(os.path.dirname(__file__)))
    assert json.loads(done.stdout) == {
        "ahead": [],
        "helper": ["analyzer.django.summaries", "analyzer.django.autocommit", "analyzer.django.call_sites"],
    }


def test_the_helper_forked_before_the_index_is_stopped_when_the_project_is_too_small(monkeypatch):
    """Its files are enough to fork it before the index; its functions, once known, are too few for
    the walks to be worth a second process."""
    monkeypatch.setattr(autocommit_parallel, "wanted", lambda _functions: False)
    root = SAMPLES / "django" / "shop"
    alone, _, _ = _scan_indexing(root, "0", monkeypatch)
    shared, _, forked_early = _scan_indexing(root, "1", monkeypatch)
    assert shared == alone
    assert len(forked_early) == 1 and forked_early[0].pid == 0
    with pytest.raises(ChildProcessError):
        os.waitpid(forked_early[0].started_pid, os.WNOHANG)


def test_no_helper_before_the_index_of_a_small_project_or_a_warm_scan(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))  # an idle two-core machine
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1})
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    few = [None] * (autocommit_parallel.MIN_FILES - 1)
    assert autocommit_parallel.before_index(DjangoReuse({}), few, "") is None
    many = [None] * autocommit_parallel.MIN_FILES
    assert autocommit_parallel.before_index(DjangoReuse({"autocommit": {"kept": []}}), many, "") is None
    monkeypatch.setenv(ENV, "0")
    assert autocommit_parallel.before_index(DjangoReuse({}), many, "") is None
    for told in ("1", "wait"):  # told to start helpers: whatever the load and size, not when warm
        monkeypatch.setenv(ENV, told)
        assert autocommit_parallel.before_index(DjangoReuse({"autocommit": {"kept": []}}), many, "") is None
        assert autocommit_parallel._shareable(DjangoReuse({}), large=False)


# -- the boundaries' search shared with the helper forked before the index ------------------------

def _candidates(root) -> int:
    reuse = DjangoReuse({})
    listed = []
    original = boundaries.candidates

    def recording(ctx, uses=None):
        listed.extend(original(ctx, uses))
        return listed

    patched = pytest.MonkeyPatch()
    patched.setenv(ENV, "0")
    patched.setattr(boundaries, "candidates", recording)  # (frontend imports it when it scans)
    try:
        frontend.scan(root, frontend.Options(), reuse)
    finally:
        patched.undo()
    return len(listed)


@pytest.mark.parametrize("root", DJANGO_SAMPLES, ids=lambda p: p.name)
def test_boundaries_found_by_the_helper_give_the_output_and_cache_of_a_scan_without_it(root, monkeypatch):
    alone, reuse_alone, _ = _scan_indexing(root, "0", monkeypatch)
    shared, reuse_shared, forked_early = _scan_indexing(root, "wait", monkeypatch)
    # the scan waited for the helper's share: it searched every candidate, the scan took them all
    assert forked_early[0].taken_candidates == _candidates(root) > 0
    assert shared == alone
    # the warm cache's boundary entries, in the same order
    assert list(reuse_shared.written["boundaries"].items()) == list(reuse_alone.written["boundaries"].items())
    assert _kept_transactions(reuse_shared) == _kept_transactions(reuse_alone)


def test_a_parse_error_in_a_candidate_the_helper_searched_is_reported_where_the_scan_reports_it(tmp_path, monkeypatch):
    """The helper's entry carries the definition's diagnostics: the scan reports them at the
    candidate's place, and the walk that parses the definition again adds nothing twice."""
    root = django_project(tmp_path / "project", "app", "Item", {
        "a_services.py": "from django.db import transaction\n\nfrom app.models import Item\n\n\n"
                         "def first(item_id):\n    with transaction.atomic():\n        value = = 1\n"
                         "        Item.objects.filter(pk=item_id).delete()\n",
        "b_services.py": "from django.db import transaction\n\nfrom app.models import Item\n\n\n"
                         "@transaction.atomic\ndef second(item_id):\n    Item.objects.filter(pk=item_id).update(name='x')\n"})
    alone, reuse_alone, _ = _scan_indexing(root, "0", monkeypatch)
    shared, reuse_shared, forked_early = _scan_indexing(root, "wait", monkeypatch)
    assert "app.a_services.first: syntax error" in alone
    assert forked_early[0].taken_candidates == 2
    assert shared == alone
    assert list(reuse_shared.written["boundaries"].items()) == list(reuse_alone.written["boundaries"].items())


def _failing_boundaries(*_args):
    raise RuntimeError("the helper fails")


def test_a_helper_that_fails_to_search_boundaries_leaves_them_to_the_scan(monkeypatch):
    root = SAMPLES / "django" / "shop"
    alone, reuse_alone, _ = _scan_indexing(root, "0", monkeypatch)
    monkeypatch.setattr(autocommit_parallel.Helper, "boundary_share", _failing_boundaries)
    shared, reuse_shared, forked_early = _scan_indexing(root, "1", monkeypatch)  # the scan does not wait
    assert shared == alone
    assert forked_early[0].taken_candidates == 0
    assert list(reuse_shared.written["boundaries"].items()) == list(reuse_alone.written["boundaries"].items())


def test_facts_the_helper_sends_after_the_phase_began_are_taken_from_then_on(monkeypatch):
    """The helper's facts (which functions hold ORM code, whom each calls, which modules run
    queries at module level) arriving while the scan's autocommit phase reads them: those read
    before are the scan's own, the rest the helper's, and the output is a scan alone's."""
    root = SAMPLES / "django" / "shop"
    monkeypatch.setenv(ENV, "0")
    read_alone = []  # the facts of a scan alone, as the helper would send them
    records = autocommit._Autocommit.records

    def keeping_facts(self):
        made = records(self)
        read_alone.append(self.decided_facts())
        return made

    monkeypatch.setattr(autocommit._Autocommit, "records", keeping_facts)
    alone = ir.dumps(frontend.scan(root, frontend.Options(), DjangoReuse({})).records)
    monkeypatch.setattr(autocommit._Autocommit, "records", records)
    facts = read_alone[0]
    assert len(facts.functions) > 3

    channel = autocommit_parallel._channel()
    helper = autocommit_parallel.Helper(0, channel)  # the scan's side; the frame below is what the helper writes
    monkeypatch.setattr(autocommit_parallel, "FACTS_LOOK_SECONDS", 0.0)
    read_here = []
    holds_orm = orm_evidence.OrmEvidence.holds_orm

    def arriving_after_two(self, fn, owner):
        read_here.append(fn.qualname)
        if len(read_here) == 2:
            autocommit_parallel._send(channel, (autocommit_parallel._DECIDED_FACTS, None, facts))
        return holds_orm(self, fn, owner)

    monkeypatch.setattr(orm_evidence.OrmEvidence, "holds_orm", arriving_after_two)
    phase = autocommit.autocommit_transactions
    monkeypatch.setattr(autocommit, "autocommit_transactions",
                        lambda ctx, boundaries, explicit, reuse, _decided: phase(ctx, boundaries, explicit, reuse,
                                                                                 helper.decided_facts()))
    try:
        told = ir.dumps(frontend.scan(root, frontend.Options(), DjangoReuse({})).records)
    finally:
        helper.stop()
    assert told == alone
    assert len(read_here) == 2  # the two read before the facts arrived; every later one was told
