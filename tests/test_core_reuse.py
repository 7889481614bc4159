"""The core's verdicts kept by IR line (analyzer/core/reuse.py): a verdict is reused only when
its transaction's IR line and the project-wide facts it reads (CDAs, entities' unique sets,
front end) are today's, and then it is the verdict the core computes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from analyzer import ir
from analyzer.cache import ScanCache, cachefile
from analyzer.config import load
from analyzer.core import Settings, analyze
from analyzer.core.reuse import CoreReuse
from analyzer.output import json_contract
from analyzer.scan import scan

SHOP = Path(__file__).resolve().parents[1] / "corpus" / "samples" / "django" / "shop"


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    shutil.copytree(SHOP, root, ignore=shutil.ignore_patterns(".txscan", "__pycache__", "expected.json"))
    return root


def _ir(root: Path) -> tuple[str, list[dict]]:
    text = scan(root, load(root), rewrites=False).ir_text
    return text, list(ir.loads(text))


def _analyses(text: str, records: list[dict], tables: dict | None, cda_entities: dict | None = None):
    """Both CDA modes' analyses, and the CoreReuse used (None: no cache)."""
    reuse = CoreReuse(tables, text, records, "django") if tables is not None else None
    shared: dict = {}
    out = {mode: analyze(records, Settings(mode, cda_entities or {}), shared, reuse) for mode in ("pk", "auto")}
    return json.dumps(out, sort_keys=True), reuse


def _written(reuse: CoreReuse, folder: Path) -> dict:
    """The tables as the next scan reads them: written to the cache file and loaded from it."""
    cachefile.save(folder, "core", reuse.written)
    return cachefile.load(folder, "core")


def test_changed_helper_recomputes_exactly_the_transactions_whose_ir_changed(tmp_path):
    root = _copy(tmp_path)
    text, records = _ir(root)
    cold, first = _analyses(text, records, {})
    assert first.reused == 0
    helpers = root / "shop" / "helpers.py"
    helpers.write_text(helpers.read_text().replace("    InventoryReservation.objects.create(order=order,",
                                                   "    InventoryReservation.objects.get_or_create(order=order,", 1))
    after, after_records = _ir(root)
    lines_before = {r["id"]: line for r, line in zip(records, text.splitlines()) if r["type"] == "transaction"}
    unchanged = [r["id"] for r, line in zip(after_records, after.splitlines())
                 if r["type"] == "transaction" and lines_before.get(r["id"]) == line]
    transactions = [r for r in after_records if r["type"] == "transaction"]
    assert 0 < len(unchanged) < len(transactions)
    warm, second = _analyses(after, after_records, _written(first, tmp_path))
    fresh, _ = _analyses(after, after_records, None)
    assert warm == fresh  # reused verdicts equal the computed ones, byte for byte
    assert warm != cold
    assert second.reused == 2 * len(unchanged)  # both CDA modes of every unchanged transaction, no other


def test_unchanged_ir_reuses_every_verdict(tmp_path):
    root = _copy(tmp_path)
    text, records = _ir(root)
    cold, first = _analyses(text, records, {})
    warm, second = _analyses(text, records, _written(first, tmp_path))
    assert warm == cold
    assert second.reused == 2 * sum(r["type"] == "transaction" for r in records)


def test_changed_cda_setting_recomputes_verdicts_but_keeps_interactivity(tmp_path):
    """A configured CDA changes the context of every verdict: none is reused, and the result is
    that of a scan without a cache (interactivity, which no CDA reads, is still taken)."""
    root = _copy(tmp_path)
    text, records = _ir(root)
    _cold, first = _analyses(text, records, {})
    entity = next(r["name"] for r in records if r["type"] == "entity")
    configured = {entity: ["code"]}
    warm, second = _analyses(text, records, _written(first, tmp_path), configured)
    assert second.reused == 0
    assert warm == _analyses(text, records, None, configured)[0]


def test_verdicts_kept_in_memory_are_not_reused(tmp_path):
    """Only the cache file's entries are reused: tables a scan kept in memory hold the verdicts it
    went on to change (excerpts, rewrites)."""
    root = _copy(tmp_path)
    text, records = _ir(root)
    _cold, first = _analyses(text, records, {})
    _warm, second = _analyses(text, records, first.written)
    assert second.reused == 0


def test_warm_scan_with_cache_folder_equals_a_scan_without_after_a_helper_edit(tmp_path):
    """End to end through scan(): the core's cache file is written beside the front end's and a
    warm scan after an edit gives the JSON of a scan without a cache."""
    root = _copy(tmp_path)
    folder = tmp_path / "cache"
    scan(root, load(root), cache=ScanCache(folder))
    assert (folder / "core.json").is_file()
    helpers = root / "shop" / "helpers.py"
    helpers.write_text(helpers.read_text().replace("    InventoryReservation.objects.create(order=order,",
                                                   "    InventoryReservation.objects.get_or_create(order=order,", 1))

    def documents(result) -> str:
        return "".join(json_contract.dumps(json_contract.document(result.analyses[mode], root.name, result.lines,
                                                                  len(result.files))) for mode in ("pk", "auto"))

    warm = scan(root, load(root), cache=ScanCache(folder))
    fresh = scan(root, load(root))
    assert documents(warm) == documents(fresh)
    assert warm.ir_text == fresh.ir_text


def test_kept_transactions_hold_their_ir_line_and_a_warm_ir_is_the_cold_one(tmp_path):
    """The front end's cache keeps each explicit transaction's record as its IR line, which a warm
    scan writes into the IR as it is; the IR and verdicts equal those of a scan without a cache
    after a helper edit and after lines moved above every definition of a file."""
    root = _copy(tmp_path)
    folder = tmp_path / "cache"
    cold = scan(root, load(root), cache=ScanCache(folder))
    kept = ScanCache(folder).tables("django")["transactions"]
    lines = set(cold.ir_text.splitlines())
    assert kept and all(kept[key]["line"] in lines and kept[key]["result"][0] is None for key in kept)
    helpers = root / "shop" / "helpers.py"
    helpers.write_text("# moves every helper\n" + helpers.read_text().replace(
        "    InventoryReservation.objects.create(order=order,", "    InventoryReservation.objects.get_or_create(order=order,", 1))
    warm = scan(root, load(root), cache=ScanCache(folder))
    fresh = scan(root, load(root))
    assert warm.ir_text == fresh.ir_text != cold.ir_text
    assert json.dumps(warm.analyses, sort_keys=True) == json.dumps(fresh.analyses, sort_keys=True)


def test_auto_verdicts_are_kept_as_their_difference_from_pk_and_rebuilt_exactly(tmp_path):
    """The second CDA mode's verdicts are kept as what differs from the first's; rebuilt from the
    file they are the computed verdicts, field order included (compared without sorting keys),
    and no rebuilt record shares a container with the other mode's."""
    root = _copy(tmp_path)
    text, records = _ir(root)
    _cold, first = _analyses(text, records, {})
    tables = _written(first, tmp_path)
    stored = [tables["verdicts"][key] for key in tables["verdicts"]]
    assert stored and all("like" not in e["pk"] and e["auto"]["like"] == "pk" for e in stored)
    assert any("statements" in e["auto"] for e in stored)  # some statement's inferability differs by mode
    assert all("interactivity" not in e for e in stored) and len(tables["interactivity"]) == len(stored)
    reuse = CoreReuse(tables, text, records, "django")
    shared: dict = {}
    warm = {mode: analyze(records, Settings(mode, {}), shared, reuse) for mode in ("pk", "auto")}
    fresh_shared: dict = {}
    fresh = {mode: analyze(records, Settings(mode, {}), fresh_shared) for mode in ("pk", "auto")}
    assert json.dumps(warm) == json.dumps(fresh)
    assert reuse.reused == 2 * len(stored)
    for pk, auto in zip(warm["pk"]["transactions"], warm["auto"]["transactions"]):
        assert pk is not auto and pk["statements"] is not auto["statements"]
        assert all(a is not b for a, b in zip(pk["statements"], auto["statements"]))
        assert all(a is not b for a, b in zip(pk["suggestions"], auto["suggestions"]))


def test_interactivity_is_carried_over_undecoded_and_still_there_for_a_changed_cda(tmp_path):
    """A warm scan reusing every verdict decodes no interactivity, yet writes it back (as read):
    a later scan whose CDA setting changes every verdict still takes each transaction's
    interactivity from the cache and gives the result of a scan without one."""
    root = _copy(tmp_path)
    text, records = _ir(root)
    _cold, first = _analyses(text, records, {})
    tables = _written(first, tmp_path / "one")
    _warm, second = _analyses(text, records, tables)
    assert second.reused == 2 * len(tables["verdicts"])
    assert all(tables["interactivity"].decoded(key) is None for key in tables["interactivity"])
    again = _written(second, tmp_path / "two")
    assert sorted(again["interactivity"].texts()) == sorted(tables["interactivity"].texts())
    entity = next(r["name"] for r in records if r["type"] == "entity")
    configured = {entity: ["code"]}
    warm, third = _analyses(text, records, again, configured)
    assert third.reused == 0
    assert all(again["interactivity"].decoded(key) is not None for key in again["interactivity"])
    assert warm == _analyses(text, records, None, configured)[0]


def test_a_redecided_pk_verdict_rebases_the_kept_auto_difference(tmp_path):
    """When a transaction's pk verdict is decided again (its context changed) and its auto verdict
    is reused, the auto verdict is kept as its difference from the new pk verdict: the next scan
    rebuilds it exactly. The cache is made as an earlier scan under other pk CDAs would have left
    it: its pk verdicts had auto's statements (so auto was kept as no statement difference)."""
    import copy

    from analyzer.core import reuse as reuse_mod

    root = _copy(tmp_path)
    text, records = _ir(root)
    fresh, first = _analyses(text, records, {})
    changed = 0
    for entry in first.written["verdicts"].values():
        auto = reuse_mod._whole(entry, "auto")
        old_pk = copy.deepcopy(entry["pk"])
        old_pk["context"] = "an earlier scan's pk CDAs"
        changed += old_pk["verdict"]["statements"] != auto["verdict"]["statements"]
        old_pk["verdict"]["statements"] = copy.deepcopy(auto["verdict"]["statements"])
        entry["pk"] = old_pk
        entry["auto"] = reuse_mod._difference(old_pk, auto)
    assert changed
    tables = _written(first, tmp_path / "one")
    warm, second = _analyses(text, records, tables)
    transactions = sum(r["type"] == "transaction" for r in records)
    assert second.reused == transactions  # auto only
    assert warm == fresh
    again, third = _analyses(text, records, _written(second, tmp_path / "two"))
    assert third.reused == 2 * transactions
    assert again == fresh


def test_pk_verdicts_are_reused_whatever_entities_the_other_transactions_use(tmp_path):
    """In the pk mode no entity's CDA has a chain, so a verdict's context does not depend on the
    entities the other transactions use: a scan of part of the transactions (`txscan lint` has
    no autocommit statements) reuses every pk verdict, and it is the one the core computes."""
    root = _copy(tmp_path)
    text, records = _ir(root)
    _, first = _analyses(text, records, {})
    lines = [line for line in text.split("\n") if line.strip()]
    transactions = [r for r in records if r["type"] == "transaction"]
    entities = [{s.get("entity") for s in ir_steps(r)} - {None} for r in transactions]
    # the transactions of one file that leave out some entity the others use
    file = next(r["file"] for r, used in zip(transactions, entities)
                if set().union(*entities) - set().union(*[u for t, u in zip(transactions, entities) if t["file"] == r["file"]]))
    part = [(r, line) for r, line in zip(records, lines) if r["type"] != "transaction" or r["file"] == file]
    part_text = "\n".join(line for _r, line in part) + "\n"
    part_records = list(ir.loads(part_text))
    reuse = CoreReuse(_written(first, tmp_path), part_text, part_records, "django")
    warm = analyze(part_records, Settings("pk", {}), {}, reuse)
    fresh = analyze(part_records, Settings("pk", {}), {}, None)
    assert json.dumps(warm, sort_keys=True) == json.dumps(fresh, sort_keys=True)
    assert set(warm["cda"]) < set().union(*entities)  # fewer entities than the full scan's CDAs
    assert reuse.reused == sum(r["type"] == "transaction" for r in part_records) > 0


def ir_steps(record: dict) -> list[dict]:
    """Every step of a transaction record, nested ones too."""
    out, stack = [], list(record["steps"])
    while stack:
        step = stack.pop()
        out.append(step)
        stack.extend(step.get("body", []))
        for arm in step.get("arms", []):
            stack.extend(arm)
    return out
