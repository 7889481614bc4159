"""Kept cache entries decoded without collector passes (process.kept_loads, used by the Django warm
cache outside the walks): what is decoded leaves the collector's view at once, garbage the scan
made before is collected rather than frozen, a warm scan decodes through it and freezes no
garbage of its own, and its outputs are those of a scan decoding with json.loads."""

from __future__ import annotations

import gc
import json
import shutil
import weakref

import pytest
from conftest import SAMPLES

from analyzer import forked, process
from analyzer.cache import ScanCache
from analyzer.process import KEPT_LOADS_SINCE, kept_loads, large_heap_pace
from analyzer.scan import scan


class Node:
    pass


def _in_view(obj) -> bool:
    return any(o is obj for o in gc.get_objects())


# Each test starts and ends with the cyclic collector on (conftest.collector_on).
pytestmark = pytest.mark.usefixtures("collector_on")


def test_a_kept_entry_is_decoded_without_a_pass_and_frozen():
    passes = []

    def counted(phase, info):
        if phase == "start":
            passes.append(info["generation"])

    text = json.dumps([[n, {"k": [n]}] for n in range(200_000)])  # far more than a young pass's allocations
    with large_heap_pace():
        gc.collect()
        gc.callbacks.append(counted)
        try:
            value = kept_loads(text)
        finally:
            gc.callbacks.remove(counted)
        assert passes == [] and not _in_view(value) and not _in_view(value[-1][1]["k"])
        assert value == json.loads(text)
    assert _in_view(value)  # the outermost scan's end gives the frozen heap back


def test_garbage_made_before_is_collected_not_frozen():
    with large_heap_pace():
        gc.collect()
        node = Node()
        node.self = node
        dropped = weakref.ref(node)
        kept = [[n] for n in range(KEPT_LOADS_SINCE + 1)]  # more than a few bookkeeping objects
        del node
        kept_loads("[1]")
        assert dropped() is None and not _in_view(kept)


def test_outside_a_scans_pace_it_is_json_loads():
    value = kept_loads('{"a": [1]}')
    assert value == {"a": [1]} and _in_view(value)


def _warm_scan(project, monkeypatch, loads):
    monkeypatch.setattr(process, "kept_loads", loads)
    import analyzer.cache.django as cache_django

    monkeypatch.setattr(cache_django, "kept_loads", loads)
    return scan(project, cache=ScanCache(project / ".txscan" / "cache"), rewrites=False)


def test_a_warm_scan_decodes_through_it_freezes_no_garbage_and_gives_the_same_outputs(monkeypatch, tmp_path):
    monkeypatch.setenv(forked.ENV, "0")
    outputs, frozen_garbage, decoded = {}, {}, {}
    for name, real in (("kept", kept_loads), ("plain", json.loads)):
        project = tmp_path / name / "shop"
        shutil.copytree(SAMPLES / "django" / "shop", project, ignore=shutil.ignore_patterns(".txscan"))
        scan(project, cache=ScanCache(project / ".txscan" / "cache"), rewrites=False)
        helpers = project / "shop" / "models.py"
        helpers.write_text(helpers.read_text() + "\n\ndef added():\n    return 1\n")
        calls = []

        def counted(text, real=real, calls=calls):
            calls.append(len(text))
            return real(text)

        garbage = []
        unfreeze = gc.unfreeze

        def looked_at_first(garbage=garbage, unfreeze=unfreeze):  # the scan's end: what was frozen as garbage is found before it is given back
            gc.set_debug(gc.DEBUG_SAVEALL)
            try:
                unfreeze()
                gc.collect()
                garbage.extend(type(o).__name__ for o in gc.garbage)
                gc.garbage.clear()
            finally:
                gc.set_debug(0)

        monkeypatch.setattr(gc, "unfreeze", looked_at_first)
        try:
            result = _warm_scan(project, monkeypatch, counted)
        finally:
            monkeypatch.setattr(gc, "unfreeze", unfreeze)
        outputs[name] = (result.ir_text, result.analyses)
        frozen_garbage[name], decoded[name] = sorted(garbage), calls
    assert outputs["kept"] == outputs["plain"]
    assert len(decoded["kept"]) > 10  # index facts, transactions, autocommit walks
    assert len(frozen_garbage["kept"]) <= len(frozen_garbage["plain"])
