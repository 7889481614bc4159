"""A scan's phase boundaries (analyzer/process.py): what is alive at a boundary leaves the cyclic
collector's view without a pass first, phases that make no cycles run without passes,
and a caller's own collector settings are left alone."""

from __future__ import annotations

import gc
import shutil
import weakref
from contextlib import contextmanager

import pytest

from analyzer import forked
from analyzer import process
from analyzer import scan as scan_module
from analyzer.cache import ScanCache
from analyzer.django import frontend as django_frontend
from analyzer.process import (
    LARGE_HEAP_THRESHOLDS, WALK_THRESHOLDS, acyclic_phase, large_heap_pace, modules_imported, phase_boundary,
    short_lived,
)
from analyzer.scan import scan
from conftest import SAMPLES


class Node:
    pass


def in_view(obj) -> bool:
    """Whether the collector's passes still look at `obj` (frozen objects are not listed)."""
    return any(o is obj for o in gc.get_objects())


def young_cycle() -> weakref.ref:
    node = Node()
    node.self = node
    return weakref.ref(node)


# Each test starts and ends with the cyclic collector on (conftest.collector_on).
pytestmark = pytest.mark.usefixtures("collector_on")


def test_a_boundary_freezes_what_is_alive_without_a_pass():
    frozen, pace = gc.get_freeze_count(), gc.get_threshold()
    passes = []

    def counting(phase, info):
        if phase == "start":
            passes.append(info["generation"])

    gc.callbacks.append(counting)
    try:
        with large_heap_pace():
            kept = [[n] for n in range(10)]
            dropped = young_cycle()
            assert in_view(kept)
            phase_boundary()
            assert passes == []  # no pass on the scan's critical path: frozen as it is
            assert not in_view(kept) and gc.is_tracked(kept)
            assert dropped() is not None  # a young cycle is frozen with the rest, not collected
            later = [[1]]
            assert in_view(later)  # made after the boundary: the next phases' passes see it
    finally:
        gc.callbacks.remove(counting)
    assert in_view(kept)  # the outermost scan's end gives the frozen heap back
    assert gc.get_freeze_count() == frozen and gc.get_threshold() == pace
    gc.collect()
    assert dropped() is None  # and the next passes free what the boundary froze as garbage


def test_the_older_generations_wait_while_transactions_are_walked(monkeypatch):
    monkeypatch.setenv(forked.ENV, "0")
    pace = gc.get_threshold()
    with large_heap_pace():
        phase_boundary(walks=True)
        assert gc.get_threshold() == WALK_THRESHOLDS
        phase_boundary()
        assert gc.get_threshold() == LARGE_HEAP_THRESHOLDS
    assert gc.get_threshold() == pace
    seen = []
    walk = django_frontend._walk

    def observed(*args, **kwargs):
        seen.append(gc.get_threshold())
        return walk(*args, **kwargs)

    monkeypatch.setattr(django_frontend, "_walk", observed)
    inner = scan_module._core_reuse

    def core_reuse(*args, **kwargs):  # as the core starts
        seen.append(gc.get_threshold())
        return inner(*args, **kwargs)

    monkeypatch.setattr(scan_module, "_core_reuse", core_reuse)
    scan(SAMPLES / "django" / "shop", rewrites=False)
    assert len(seen) > 2 and set(seen[:-1]) == {WALK_THRESHOLDS} and seen[-1] == LARGE_HEAP_THRESHOLDS
    assert gc.get_threshold() == pace


def test_an_acyclic_phase_runs_without_passes_and_freezes_what_it_built():
    with large_heap_pace():
        before = [[0]]
        with acyclic_phase():
            assert not gc.isenabled()
            assert not in_view(before)  # swept and frozen as the phase starts
            built = {"records": [[n] for n in range(10)]}
        assert gc.isenabled()
        assert not in_view(built)


def test_modules_imported_in_a_scan_are_frozen_without_a_pass():
    with large_heap_pace():
        collections = gc.get_stats()[0]["collections"]
        imported = [[n] for n in range(10)]
        modules_imported()
        assert not in_view(imported) and gc.get_stats()[0]["collections"] == collections
    assert in_view(imported)
    made = [[0]]
    modules_imported()  # no scan running: the caller's heap is left as it is
    assert in_view(made)


def test_boundaries_leave_a_callers_heap_alone():
    kept = [[0]]
    phase_boundary()  # no scan running: the caller's pace
    assert in_view(kept)
    gc.disable()
    try:
        with large_heap_pace():  # a caller that paused the collector
            phase_boundary()
            with acyclic_phase():
                pass
            assert in_view(kept) and not gc.isenabled()
    finally:
        gc.enable()
    with large_heap_pace():
        made = [[0]]
        with short_lived():  # re-analysis of a rewritten copy: its structures die before the scan ends
            phase_boundary()
            with acyclic_phase():
                assert gc.isenabled()
            assert in_view(made)
        phase_boundary()
        assert not in_view(made)


def test_a_scans_ir_round_trip_and_core_make_no_cycles_and_start_no_process(monkeypatch, tmp_path):
    """What acyclic_phase() is used for must keep its promise, cold and warm (core verdicts
    reused from the cache), with helper processes allowed."""
    monkeypatch.setenv(forked.ENV, "1")
    phases: list[list[str]] = []
    inside = []
    real_fork = forked.fork

    def fork():
        assert not inside, "a process started inside an acyclic phase"
        return real_fork()

    @contextmanager
    def observed():
        gc.collect()
        gc.disable()
        inside.append(True)
        try:
            yield
        finally:
            inside.pop()
            gc.set_debug(gc.DEBUG_SAVEALL)
            try:
                gc.collect()
                phases.append(sorted(type(o).__name__ for o in gc.garbage))
                gc.garbage.clear()
            finally:
                gc.set_debug(0)
                gc.collect()
                gc.enable()

    monkeypatch.setattr(forked, "fork", fork)
    monkeypatch.setattr(scan_module, "acyclic_phase", observed)
    for sample in ("shop", "ledger", "forum"):
        project = tmp_path / sample
        shutil.copytree(SAMPLES / "django" / sample, project)
        cache = project / ".txscan" / "cache"
        cold = scan(project, cache=ScanCache(cache), rewrites=False)
        (project / "edited_later.py").write_text("X = 1\n", "utf-8")
        warm = scan(project, cache=ScanCache(cache), rewrites=False)
        assert cold.analyses and warm.analyses
    assert len(phases) == 12  # the IR's round trip and the core, of six scans
    assert phases == [[]] * 12


def test_a_django_scans_walks_are_freed_by_reference_counts(monkeypatch, tmp_path):
    """The walks' state (one recorder per transaction, the autocommit phase's call sites) has no
    reference cycle: it is freed as it is dropped, so the front end's end leaves no cycles for
    the boundary before the IR to freeze as garbage."""
    import analyzer.core

    monkeypatch.setenv(forked.ENV, "0")
    analyze = analyzer.core.analyze
    left: list[set[str]] = []

    def first_analyze(*args, **kwargs):
        if not left:  # as the core starts: the garbage the front end left (the collector is off)
            gc.set_debug(gc.DEBUG_SAVEALL)
            try:
                gc.collect()
                left.append({type(o).__name__ for o in gc.garbage})
                gc.garbage.clear()
            finally:
                gc.set_debug(0)
        return analyze(*args, **kwargs)

    monkeypatch.setattr(analyzer.core, "analyze", first_analyze)
    project = tmp_path / "forum"
    shutil.copytree(SAMPLES / "django" / "forum", project)
    gc.collect()
    gc.disable()  # the scan's own passes would free the cycles before they are looked for
    try:
        result = scan(project, cache=ScanCache(project / ".txscan" / "cache"), rewrites=False)
    finally:
        gc.collect()
        gc.enable()
    assert any(t["boundary"] == "autocommit" for t in result.analyses["pk"]["transactions"])
    assert left and not left[0] & {"Recorder", "FkCache", "InstanceTable", "Frame", "CallSites", "_Autocommit",
                                   "Variant", "FunctionSites", "Val"}


def test_a_scan_with_its_boundaries_equals_one_without(monkeypatch):
    monkeypatch.setenv(forked.ENV, "0")
    with_boundaries = scan(SAMPLES / "django" / "forum")
    monkeypatch.setattr(process, "_paced", False)
    monkeypatch.setattr(process, "one_large_job", lambda: gc.set_threshold(*process.LARGE_HEAP_THRESHOLDS))
    without = scan(SAMPLES / "django" / "forum")
    assert with_boundaries.ir_text == without.ir_text and with_boundaries.analyses == without.analyses
