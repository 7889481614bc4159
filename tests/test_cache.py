"""The warm cache (.txscan/cache): a scan that reuses an earlier scan's work gives byte for byte
the output of a scan without a cache, after every kind of edit; a changed helper re-walks the
transactions that reach it and only those; a damaged, foreign or unwritable cache is one line,
never a failure."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import background_writers, ir_statements, replace_once

from analyzer.cache import ScanCache, cachefile
from analyzer.config import load
from analyzer.output import json_contract
from analyzer.scan import scan

SAMPLES = Path(__file__).resolve().parents[1] / "corpus" / "samples" / "django"
SHOP = SAMPLES / "shop"
TXSCAN = [sys.executable, "-m", "analyzer.cli"]



def _rechecked(text: str) -> str:
    """A cache file's text with every entry's check made again: the entries as a writer that
    spaced them differently would have written them (the checks see text changed afterwards)."""
    out = []
    for row in text.split("\n"):
        parts = row.split("\t")
        if len(parts) == 4:
            table, key, value, _ = parts
            parts[3] = cachefile.entry_check(json.loads(key) if key else "", value)
        out.append("\t".join(parts))
    return "\n".join(out)


def _outputs(root: Path, cache: ScanCache | None):
    """(JSON contract of both CDA modes, IR, transactions walked) of one scan of `root`."""
    result = scan(root, load(root), cache=cache)
    documents = "".join(json_contract.dumps(json_contract.document(result.analyses[mode], root.name, result.lines,
                                                                   len(result.files))) for mode in ("pk", "auto"))
    return documents, result.ir_text, result.walked


def _copy(tmp_path: Path, sample: Path = SHOP) -> Path:
    root = tmp_path / sample.name
    shutil.copytree(sample, root, ignore=shutil.ignore_patterns(".txscan", "__pycache__", "expected.json"))
    return root


def _edit_helper(root: Path) -> None:
    replace_once(root / "shop" / "helpers.py", "    InventoryReservation.objects.create(order=order,",
                 "    InventoryReservation.objects.get_or_create(order=order,")


def _edit_model(root: Path) -> None:
    replace_once(root / "shop" / "models.py", "code = models.CharField(max_length=24, primary_key=True)",
                 "code = models.CharField(max_length=24, unique=True)")


def _edit_settings(root: Path) -> None:
    replace_once(root / "shop" / "settings.py", '"CONN_MAX_AGE": 60,', '"CONN_MAX_AGE": 60,\n        "ATOMIC_REQUESTS": True,')


def _shift_lines(root: Path) -> None:
    path = root / "shop" / "helpers.py"
    path.write_text("# a comment line moves every definition below it\n" + path.read_text())


def _shift_models(root: Path) -> None:
    path = root / "shop" / "models.py"
    path.write_text("# a comment line moves every model below it\n" + path.read_text())


def _delete_file(root: Path) -> None:
    (root / "shop" / "services" / "coupons.py").unlink()


def _new_file(root: Path) -> None:
    (root / "shop" / "services" / "refunds.py").write_text(
        "from django.db import transaction\n\nfrom shop.helpers import release_stock\n"
        "from shop.models import InventoryReservation\n\n\n"
        "@transaction.atomic\ndef refund(reservation_id):\n"
        "    reservation = InventoryReservation.objects.select_for_update().get(pk=reservation_id)\n"
        "    release_stock(reservation)\n")


def _add_import(root: Path) -> None:
    replace_once(root / "shop" / "services" / "coupons.py", "from django.db.models import F\n",
                 "from django.db.models import F\nfrom django.db.models import Q\n")


def _edit_autocommit_site(root: Path) -> None:
    """An ORM call outside any transaction (an autocommit statement of a view) changes."""
    replace_once(root / "shop" / "views.py", "totals = await StockLevel.objects.filter(product=product).aaggregate(",
                 "totals = await StockLevel.objects.filter(product=product, reserved=0).aaggregate(")


EDITS = {"autocommit site": _edit_autocommit_site, "added import": _add_import, "helper": _edit_helper, "model": _edit_model, "settings": _edit_settings, "moved lines": _shift_lines, "moved models": _shift_models,
         "deleted file": _delete_file, "new file": _new_file}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_warm_scan_after_an_edit_equals_a_cold_scan_of_the_edited_tree(tmp_path, edit):
    root = _copy(tmp_path)
    folder = tmp_path / "cache"
    cold_documents, cold_ir, walked = _outputs(root, ScanCache(folder))
    assert (folder / "django.json").is_file() and walked  # an empty cache: every transaction walked
    EDITS[edit](root)
    warm = _outputs(root, ScanCache(folder))
    fresh = _outputs(root, None)
    assert warm[:2] == fresh[:2]
    assert warm[0] != cold_documents or warm[1] != cold_ir or edit in ("moved lines", "added import")


def test_unchanged_tree_reuses_every_transaction(tmp_path):
    root = _copy(tmp_path)
    folder = tmp_path / "cache"
    cold = _outputs(root, ScanCache(folder))
    warm = _outputs(root, ScanCache(folder))
    assert warm[:2] == cold[:2] == _outputs(root, None)[:2]
    assert warm[2] == []


def test_changed_helper_rewalks_the_transactions_that_reach_it_and_only_those(tmp_path):
    root = _copy(tmp_path)
    folder = tmp_path / "cache"
    _documents, ir_text, _walked = _outputs(root, ScanCache(folder))
    transactions = [json.loads(line) for line in ir_text.splitlines() if '"type": "transaction"' in line]

    def reaches(value) -> bool:  # a step anywhere in the tree (bodies, arms) ran in reserve_stock
        if isinstance(value, dict):
            return "shop.helpers.reserve_stock" in value.get("via", []) or any(reaches(v) for v in value.values())
        return isinstance(value, list) and any(reaches(v) for v in value)

    reaching = sorted(t["id"] for t in transactions if reaches(t["steps"]))
    assert reaching and len(reaching) < len(transactions)
    _edit_helper(root)
    documents, ir_after, walked = _outputs(root, ScanCache(folder))
    assert sorted(walked) == reaching
    assert (documents, ir_after) == _outputs(root, None)[:2]


def test_moved_definitions_are_reused_at_their_new_lines(tmp_path):
    """Lines are part of the IR: a transaction reaching definitions that only moved is reused with
    its locations moved with them, as a walk would find them."""
    root = _copy(tmp_path)
    folder = tmp_path / "cache"
    _documents, before, _walked = _outputs(root, ScanCache(folder))
    _shift_lines(root)
    documents, ir_text, walked = _outputs(root, ScanCache(folder))
    assert walked == []
    assert (documents, ir_text) == _outputs(root, None)[:2]
    assert ir_text != before and '"file": "shop/helpers.py"' in ir_text


def test_changed_and_moved_definitions_rewalk_only_what_reaches_the_change(tmp_path):
    """A line of code added inside one helper moves the helpers below it: the transactions reaching
    the changed helper are walked again, those reaching only moved ones are reused at their new lines."""
    root = _copy(tmp_path)
    folder = tmp_path / "cache"
    _documents, ir_text, _walked = _outputs(root, ScanCache(folder))
    replace_once(root / "shop" / "helpers.py", "def reserve_stock(order, product, warehouse_code, quantity, ttl):\n",
                 "def reserve_stock(order, product, warehouse_code, quantity, ttl):\n    ttl = ttl\n")
    documents, ir_after, walked = _outputs(root, ScanCache(folder))
    transactions = [json.loads(line) for line in ir_text.splitlines() if '"type": "transaction"' in line]

    def reaches(value, name: str) -> bool:
        if isinstance(value, dict):
            return name in value.get("via", []) or any(reaches(v, name) for v in value.values())
        return isinstance(value, list) and any(reaches(v, name) for v in value)

    changed = sorted(t["id"] for t in transactions if reaches(t["steps"], "shop.helpers.reserve_stock"))
    moved_only = [t["id"] for t in transactions
                  if reaches(t["steps"], "shop.helpers.release_stock") and t["id"] not in changed]
    assert changed and moved_only
    assert sorted(walked) == changed
    assert (documents, ir_after) == _outputs(root, None)[:2]


_RESERVE = "def reserve_stock(order, product, warehouse_code, quantity, ttl):\n"
_RESERVE_DOC = '    """Move `quantity` units of `product` from free to reserved stock for `order`."""\n'
_RESERVE_BODY = "    updated = StockLevel.objects"
_LONG_DOC = '    """Move stock.\n\n    Units go from free to reserved.\n    """\n'


def _comment_in_reserve_stock(root: Path) -> None:
    replace_once(root / "shop" / "helpers.py", _RESERVE_BODY, "    # a comment line\n\n" + _RESERVE_BODY)


def _blank_lines_out_of_reserve_stock(root: Path) -> None:
    """The helper's docstring spans lines and a blank line of it goes: text of a string, not trivia."""
    replace_once(root / "shop" / "helpers.py", "    Units go from free to reserved.\n\n", "    Units go from free to reserved.\n")


def _comment_into_a_string_of_reserve_stock(root: Path) -> None:
    replace_once(root / "shop" / "helpers.py", "    Units go from free to reserved.\n", "    Units go from free to reserved.\n    # not a comment\n")


def _long_docstring(root: Path) -> None:
    replace_once(root / "shop" / "helpers.py", _RESERVE + _RESERVE_DOC,
                 _RESERVE + _LONG_DOC.replace("reserved.\n", "reserved.\n\n"))


@pytest.mark.parametrize("lint", [False, True], ids=["scan", "lint"])
def test_a_helper_changed_only_in_comment_and_blank_lines_is_not_walked_again(tmp_path, lint):
    """The walks of the transactions reaching a helper whose code lines are the same are moved
    line by line to where each code line is today (cache/trivia.py), giving what a scan without a
    cache gives; the transactions reaching it are in the IR at their helper's new lines."""
    outputs = _lint_outputs if lint else _outputs
    root = _copy(tmp_path)
    folder = tmp_path / "cache"
    _documents, before, walked = outputs(root, ScanCache(folder))
    assert walked
    _comment_in_reserve_stock(root)
    documents, ir_text, walked = outputs(root, ScanCache(folder))
    assert walked == []
    assert (documents, ir_text) == outputs(root, None)[:2]
    assert ir_text != before
    # the moved entries describe today's text: the next scan reuses them as they are
    assert outputs(root, ScanCache(folder))[2] == []


@pytest.mark.parametrize("edit", [_blank_lines_out_of_reserve_stock, _comment_into_a_string_of_reserve_stock],
                         ids=["blank line out of a string", "comment-like line into a string"])
def test_a_comment_or_blank_line_inside_a_string_is_a_change_of_code(tmp_path, edit):
    """A line that looks like a comment or is blank is text where a string spans it, then or now:
    the transactions reaching the helper are walked again."""
    root = _copy(tmp_path)
    _long_docstring(root)
    folder = tmp_path / "cache"
    _documents, ir_text, _walked = _outputs(root, ScanCache(folder))
    edit(root)
    documents, ir_after, walked = _outputs(root, ScanCache(folder))
    transactions = [json.loads(line) for line in ir_text.splitlines() if '"type": "transaction"' in line]
    reaching = sorted(t["id"] for t in transactions if "shop.helpers.reserve_stock" in json.dumps(t["steps"]))
    assert reaching and sorted(walked) == reaching
    assert (documents, ir_after) == _outputs(root, None)[:2]


def _recorded_reuses(monkeypatch) -> list:
    """The DjangoReuse objects (re-analysis's included) made from here on, in order."""
    from analyzer.cache import django as django_cache

    made: list = []
    init = django_cache.DjangoReuse.__init__

    def recording(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(django_cache.DjangoReuse, "__init__", recording)
    return made


def _lint_outputs(root: Path, cache: ScanCache | None) -> tuple:
    """(JSON contract, IR, transactions walked) of the scan `txscan lint` makes: no autocommit
    statements, the project's CDA mode, no rewrites, no excerpts."""
    result = scan(root, load(root), rewrites=False, cache=cache, autocommit=False, cda_modes=("pk",), excerpts=False)
    document = json_contract.dumps(json_contract.document(result.analyses["pk"], root.name, result.lines,
                                                          len(result.files)))
    return document, result.ir_text, result.walked


def test_lint_decodes_the_records_it_takes_before_its_walks_and_gives_what_a_cold_lint_gives(tmp_path, monkeypatch):
    """A lint's scan decodes every kept transaction's record it can take (kept, or only moved)
    before its first walk, so that no full collection runs between walks (cache/django.py); the
    records it takes are those, and its outputs those of a lint without a cache. Scans with
    autocommit statements, and re-analysis of rewrites, decode a record as they take it."""
    root = _copy(tmp_path)
    folder = tmp_path / "cache"
    _outputs(root, ScanCache(folder))
    replace_once(root / "shop" / "helpers.py", "def reserve_stock(order, product, warehouse_code, quantity, ttl):\n",
                 "def reserve_stock(order, product, warehouse_code, quantity, ttl):\n    ttl = ttl\n")
    made = _recorded_reuses(monkeypatch)
    document, ir_text, walked = _lint_outputs(root, ScanCache(folder))
    assert (document, ir_text) == _lint_outputs(root, None)[:2]
    lint = made[0]
    transactions = ir_text.count('"type": "transaction"')
    assert walked and len(walked) < transactions
    # every transaction not walked again (kept at its lines, or moved) was taken from a record decoded ahead
    assert lint.records_decoded_ahead == lint.records_taken_ahead == transactions - len(walked)
    made.clear()
    _outputs(root, ScanCache(folder))  # a warm scan
    _outputs(root, None)  # a scan whose rewrites are verified by re-analysis, over its tables in memory
    assert len(made) > 2
    assert all(reuse.records_decoded_ahead == reuse.records_taken_ahead == 0 for reuse in made)


def _damage_record_lines(folder: Path) -> int:
    """Every kept record's IR line (transactions' `line`, autocommit walks' `record_lines`) made
    text that does not decode, the entries themselves left well formed; how many were."""
    path = folder / "django.json"
    damaged, out = 0, []
    for row in path.read_text().split("\n"):
        table, tab, rest = row.partition("\t")
        if tab and table in ("transactions", "autocommit"):
            key, _, text = rest.partition("\t")
            entry = json.loads(text.rsplit("\t", 1)[0])
            for walk in (entry if isinstance(entry, list) else [entry]):
                if isinstance(walk.get("line"), str):
                    walk["line"], damaged = "{not json", damaged + 1
                if isinstance(walk.get("record_lines"), list) and walk["record_lines"]:
                    walk["record_lines"][-1], damaged = "[1,", damaged + 1
            row = "\t".join((table, key, json.dumps(entry), ""))
        out.append(row)
    path.write_text(_rechecked("\n".join(out)))
    return damaged


@pytest.mark.parametrize("change", [None, _shift_lines, _edit_helper], ids=["unchanged", "moved", "helper-edit"])
def test_a_record_line_that_does_not_decode_is_made_again(tmp_path, change):
    """A kept entry whose record line is damaged is not reused: its transaction or walk is made
    again (kept at its lines, moved, or decoded ahead by a lint), and the outputs are a cold scan's."""
    root = _copy(tmp_path)
    folder = tmp_path / "cache"
    _outputs(root, ScanCache(folder))
    assert _damage_record_lines(folder) > 2
    if change is not None:
        change(root)
    documents, ir_text, walked = _outputs(root, ScanCache(folder))
    assert (documents, ir_text) == _outputs(root, None)[:2]
    assert len(walked) == ir_text.count('"type": "transaction"') - ir_text.count('"boundary": "autocommit"')
    _damage_record_lines(folder)
    assert _lint_outputs(root, ScanCache(folder))[:2] == _lint_outputs(root, None)[:2]


def test_import_seen_by_no_other_module_rewalks_only_the_transactions_reaching_its_module(tmp_path):
    root = _copy(tmp_path)
    folder = tmp_path / "cache"
    _documents, ir_text, _walked = _outputs(root, ScanCache(folder))
    total = ir_text.count('"type": "transaction"')
    _add_import(root)
    documents, ir_after, walked = _outputs(root, ScanCache(folder))
    assert walked and len(walked) < total
    assert any(w.startswith("shop/services/coupons.py:") for w in walked)
    assert (documents, ir_after) == _outputs(root, None)[:2]


@pytest.mark.parametrize("content, says", [
    ("{not json", "is damaged"),
    ('{"format": "something else", "tables": {}}', "is not a txscan cache"),
    ("[1, 2, 3]", "is not a txscan cache"),
])
def test_damaged_or_foreign_cache_is_one_line_and_rebuilt(tmp_path, content, says):
    root = _copy(tmp_path)
    expected = subprocess.run([*TXSCAN, "scan", str(root), "--format", "json", "--no-db", "--no-cache"],
                              capture_output=True, text=True, check=True).stdout
    folder = root / ".txscan" / "cache"
    folder.mkdir(parents=True)
    (folder / "django.json").write_text(content)
    run = subprocess.run([*TXSCAN, "scan", str(root), "--format", "json", "--no-db"], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout == expected
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0] and "django.json" in lines[0]
    assert cachefile.load(folder, "django")  # rebuilt: the next scan reads it without a word
    again = subprocess.run([*TXSCAN, "scan", str(root), "--format", "json", "--no-db"], capture_output=True, text=True)
    assert again.stdout == expected and again.stderr == ""


def test_cache_of_other_code_is_not_used(tmp_path):
    root = _copy(tmp_path)
    folder = tmp_path / "cache"
    _outputs(root, ScanCache(folder))
    header, _, rest = (folder / "django.json").read_text().partition("\n")
    document = json.loads(header)
    document["code"] = "0" * 32
    (folder / "django.json").write_text(json.dumps(document) + "\n" + rest)
    assert cachefile.load(folder, "django") == {}
    assert _outputs(root, ScanCache(folder))[2]  # walked again


def test_no_cache_writes_nothing_and_cache_dir_is_used(tmp_path):
    root = _copy(tmp_path)
    subprocess.run([*TXSCAN, "scan", str(root), "--format", "json", "--no-db", "--no-cache"], check=True,
                   capture_output=True)
    assert not (root / ".txscan").exists()
    elsewhere = tmp_path / "elsewhere"
    subprocess.run([*TXSCAN, "scan", str(root), "--format", "json", "--no-db", "--cache-dir", str(elsewhere)],
                   check=True, capture_output=True)
    assert (elsewhere / "django.json").is_file() and not (root / ".txscan").exists()
    subprocess.run([*TXSCAN, "scan", str(root), "--format", "json", "--no-db"], check=True, capture_output=True)
    assert (root / ".txscan" / "cache" / "django.json").is_file()


def test_cache_dir_that_is_a_file_is_a_usage_error(tmp_path):
    root = _copy(tmp_path)
    (tmp_path / "file").write_text("x")
    run = subprocess.run([*TXSCAN, "scan", str(root), "--no-db", "--cache-dir", str(tmp_path / "file")],
                         capture_output=True, text=True)
    assert run.returncode == 2 and "--cache-dir" in run.stderr and "not a folder" in run.stderr


def test_txscan_that_is_not_a_folder_is_left_alone(tmp_path):
    root = _copy(tmp_path)
    (root / ".txscan").write_text("somebody else's file\n")
    run = subprocess.run([*TXSCAN, "scan", str(root), "--format", "json", "--no-db"], capture_output=True, text=True)
    assert run.returncode == 0 and json.loads(run.stdout)["transactions"]
    assert run.stderr.strip().splitlines() == [f"txscan: info: {root / '.txscan'} is not txscan's folder; "
                                               "scanning without a cache"]
    assert (root / ".txscan").read_text() == "somebody else's file\n"


def test_read_only_project_is_scanned_without_a_cache(tmp_path):
    from hostile.hostile_inputs import unprivileged, world_readable_tmp

    prefix = unprivileged()
    base = world_readable_tmp()
    try:
        root = _copy(base)
        for folder, _dirs, _files in os.walk(root):
            Path(folder).chmod(0o555)
        run = subprocess.run([*prefix, *TXSCAN, "scan", str(root), "--format", "json", "--no-db"],
                             capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1],
                             env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout)["transactions"]
        assert run.stderr.strip().splitlines() == [f"txscan: info: {root} is read-only; scanning without a cache"]
        assert not (root / ".txscan").exists()
    finally:
        for folder, _dirs, _files in os.walk(base):
            Path(folder).chmod(0o755)
        shutil.rmtree(base, ignore_errors=True)


def test_lint_after_a_one_file_change_uses_the_cache(tmp_path):
    from analyzer.lint import command

    root = _copy(tmp_path)
    target = root / "shop" / "helpers.py"
    outputs = []
    for cache in (True, True, False):
        if len(outputs) == 1:
            _edit_helper(root)
        stream = _Stream()
        status = command.main([target], "json", stream=stream, cache=cache)
        outputs.append((status, stream.text))
    assert (root / ".txscan" / "cache" / "django.json").is_file()
    assert outputs[1] == outputs[2]


class _Stream:
    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def isatty(self) -> bool:
        return False

    def flush(self) -> None:
        pass


def test_typescript_records_are_reused_while_no_file_ts_plugin_reads_changed(tmp_path):
    # ts-plugin keeps its own cache file in the folder (tests/test_typescript_warm.py has each edit)
    root = _copy(tmp_path, SAMPLES.parent / "typeorm" / "nest-shop")
    folder = tmp_path / "cache"
    cold = scan(root, load(root), rewrites=False, cache=ScanCache(folder))
    warm = scan(root, load(root), rewrites=False, cache=ScanCache(folder))
    assert warm.ir_text == cold.ir_text and warm.analyses == cold.analyses
    assert cold.walked and warm.walked == []
    source = next(p for p in sorted(root.rglob("*.ts")) if "node_modules" not in p.parts)
    source.write_text(source.read_text() + "\n// changed\n")
    after = scan(root, load(root), rewrites=False, cache=ScanCache(folder))
    assert after.ir_text == scan(root, load(root), rewrites=False).ir_text and after.walked == []


def test_cache_file_entries_decoded_on_use_and_written_back_as_read(tmp_path, capsys):
    folder = tmp_path / "cache"
    tables = {"files": {"a.py": ["x", 1], "b.py": {"k": [1, 2]}, "c\tname": "tab in a key"}, "digest": "d1",
              "records": [{"line": 3}]}
    cachefile.save(folder, "django", tables)
    loaded = cachefile.load(folder, "django")
    assert isinstance(loaded["files"], cachefile.Entries) and loaded["digest"] == "d1"
    assert {k: loaded["files"][k] for k in loaded["files"]} == tables["files"] and loaded["records"] == [{"line": 3}]

    # An entry given back as it was decoded is written as the text it was read from (here a
    # spacing json.dumps would not make); an entry made again is encoded anew.
    path = folder / "django.json"
    path.write_text(_rechecked(path.read_text().replace('{"k":[1,2]}', '{"k": [1,  2]}')))
    loaded = cachefile.load(folder, "django")
    kept = loaded["files"]["b.py"]
    cachefile.save(folder, "django", {"files": {"b.py": kept, "a.py": ["x", 1]}, "digest": "d2"}, loaded)
    text = path.read_text()
    assert '{"k": [1,  2]}' in text and '["x",1]' in text and "c\\tname" not in text
    assert cachefile.load(folder, "django")["files"]["b.py"] == {"k": [1, 2]}

    # A new list of the values decoded for the same key (walks gathered again) keeps the text too;
    # one without all of them does not.
    cachefile.save(folder, "django", {"autocommit": {"f": [{"a": 1}, {"b": 2}], "g": [{"c": 3}, {"d": 4}]}})
    path.write_text(_rechecked(path.read_text().replace('[{"a":1},{"b":2}]', '[{"a": 1}, {"b": 2}]')
                               .replace('[{"c":3},{"d":4}]', '[{"c": 3}, {"d": 4}]')))
    loaded = cachefile.load(folder, "django")
    gathered = {key: [walk for walk in loaded["autocommit"][key]] for key in ("f", "g")}
    gathered["g"].pop()
    cachefile.save(folder, "django", {"autocommit": gathered}, loaded)
    assert '[{"a": 1}, {"b": 2}]' in path.read_text() and '[{"c":3}]' in path.read_text()
    assert capsys.readouterr().err == ""


def test_damaged_entry_is_absent_and_said_once(tmp_path, capsys):
    folder = tmp_path / "cache"
    cachefile.save(folder, "django", {"files": {"a.py": [1], "b.py": [2], "c.py": [3]}})
    path = folder / "django.json"
    path.write_text(path.read_text().replace("[2]", "[2").replace("[3]", "{3"))
    loaded = cachefile.load(folder, "django")
    assert loaded["files"]["a.py"] == [1]           # read without a word: entries are decoded when asked for
    assert capsys.readouterr().err == ""
    assert loaded["files"].get("b.py") is None and loaded["files"].get("c.py", "absent") == "absent"
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is damaged" in err[0] and "django.json" in err[0]


def test_an_entry_changed_into_other_valid_json_is_absent_and_said_once(tmp_path, capsys):
    """A changed character that leaves valid JSON (a number, a key, a type) is seen by the entry's
    check: the code reading the entry would take it as data of another shape."""
    folder = tmp_path / "cache"
    cachefile.save(folder, "django", {"files": {"a.py": [1], "b.py": [2], "c.py": {"n": 3}}, "digest": "x"})
    path = folder / "django.json"
    path.write_text(path.read_text().replace("[2]", "[7]").replace('{"n":3}', '"n"'))
    loaded = cachefile.load(folder, "django")
    assert loaded["files"]["a.py"] == [1] and loaded["digest"] == "x"
    assert capsys.readouterr().err == ""
    assert loaded["files"].get("b.py") is None and loaded["files"].get("c.py", "absent") == "absent"
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is damaged" in err[0]
    # a value table (not entries) changed so is the whole file damaged
    path.write_text(path.read_text().replace('"x"', '"y"'))
    assert cachefile.load(folder, "django") == {}


def _retype_entries(folder: Path, table: str, value: str) -> int:
    """Every entry of `table` (in whichever cache file holds it) given `value`, its check left as
    it was: valid JSON of another shape, as a changed character can make. How many were."""
    changed = 0
    for path in sorted(folder.glob("*.json")):
        rows = path.read_text().split("\n")
        for number, row in enumerate(rows):
            parts = row.split("\t")
            if len(parts) == 4 and parts[0] == table:
                parts[2], changed = value, changed + 1
                rows[number] = "\t".join(parts)
        path.write_text("\n".join(rows))
    return changed


_TABLES = ["files", "boundaries", "transactions", "autocommit", "autocommit_facts", "entities", "call_edges",
           "module_facts", "targets", "verdicts", "interactivity", "candidates"]


@pytest.mark.parametrize("value", ["3", "[]", '"x"'])
@pytest.mark.parametrize("table", _TABLES)
def test_entries_changed_into_valid_json_of_another_shape_are_not_used(tmp_path, capfd, table, value):
    """Each such change once failed a warm scan with an internal error; the entries' checks make
    them absent, so the outputs are a cold scan's, unchanged or after a helper's edit."""
    root = _copy(tmp_path)
    folder = tmp_path / "cache"
    _outputs(root, ScanCache(folder))
    assert _retype_entries(folder, table, value) > 0
    capfd.readouterr()
    _edit_helper(root)
    assert _outputs(root, ScanCache(folder))[:2] == _outputs(root, None)[:2]
    # the interactivity of a reused verdict is written back as it was read, never decoded
    assert ("is damaged" in capfd.readouterr().err) == (table != "interactivity")


@pytest.mark.parametrize("cut", [
    lambda text: text.rsplit("\n", 2)[0] + "\n",              # the count line is missing
    lambda text: text.replace("\n", "\n" + "stray line\n", 1),  # a line that is no entry
    lambda text: text.replace("\t", " ", 1),                  # an entry without its key
])
def test_cut_or_altered_cache_file_is_damaged(tmp_path, capsys, cut):
    folder = tmp_path / "cache"
    cachefile.save(folder, "django", {"files": {"a.py": [1], "b.py": [2]}, "digest": "x"})
    path = folder / "django.json"
    path.write_text(cut(path.read_text()))
    assert cachefile.load(folder, "django") == {}
    assert "is damaged" in capsys.readouterr().err


def test_models_are_kept_while_the_modules_shapes_stay_and_found_again_when_they_change(tmp_path, monkeypatch):
    from analyzer.django.models import ModelExtractor

    root = _copy(tmp_path)
    folder = tmp_path / "cache"
    _outputs(root, ScanCache(folder))
    extracted = []
    real = ModelExtractor.extract
    monkeypatch.setattr(ModelExtractor, "extract", lambda self: extracted.append(1) or real(self))
    _shift_models(root)   # every model's line moves, nothing else of them
    _edit_helper(root)    # a body changes: not something models are made of
    warm = _outputs(root, ScanCache(folder))
    assert extracted == []
    assert warm[:2] == _outputs(root, None)[:2] and extracted == [1]
    _edit_model(root)     # a field declaration changes: found again
    assert _outputs(root, ScanCache(folder))[:2] == _outputs(root, None)[:2] and extracted == [1, 1, 1]


def _helper_project(root: Path) -> None:
    """A transaction in a generic helper (its parameter untyped) and one caller of it."""
    (root / "app").mkdir(parents=True)
    (root / "manage.py").write_text("")
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "models.py").write_text(
        "from django.db import models\n\n\nclass Order(models.Model):\n    total = models.IntegerField()\n\n\n"
        "class Invoice(models.Model):\n    number = models.IntegerField()\n")
    (root / "app" / "helpers.py").write_text(
        "from django.db import transaction\n\n\n@transaction.atomic\ndef save_all(instances):\n"
        "    for item in instances:\n        item.save()\n")
    (root / "app" / "views.py").write_text(
        "from .helpers import save_all\nfrom .models import Order\n\n\ndef place(request):\n"
        "    save_all([Order(total=1)])\n")
    (root / "app" / "billing.py").write_text(
        "from .models import Invoice\n\n\ndef bill(request):\n    return Invoice(number=2)\n")


def test_a_caller_added_or_removed_in_another_file_rewalks_the_transaction_taking_its_arguments(tmp_path):
    """The transaction saves what its callers pass: a new caller in a file its walk never read
    changes it, as does a caller that stops calling it."""
    root = tmp_path / "project"
    _helper_project(root)
    folder = tmp_path / "cache"

    def saved_entities(ir_text: str) -> list[str]:
        txn = next(json.loads(line) for line in ir_text.splitlines() if '"app/helpers.py:' in line
                   and '"type": "transaction"' in line)
        return sorted({s["entity"] for s in ir_statements(txn["steps"])})

    cold = _outputs(root, ScanCache(folder))
    assert saved_entities(cold[1]) == ["Order"]
    replace_once(root / "app" / "billing.py", "from .models import Invoice\n",
                 "from .helpers import save_all\nfrom .models import Invoice\n")
    replace_once(root / "app" / "billing.py", "    return Invoice(number=2)", "    save_all([Invoice(number=2)])")
    warm = _outputs(root, ScanCache(folder))
    assert warm[:2] == _outputs(root, None)[:2]
    assert saved_entities(warm[1]) == ["Invoice", "Order"] and "app/helpers.py:4" in warm[2]
    replace_once(root / "app" / "views.py", "    save_all([Order(total=1)])", "    return Order(total=1)")
    again = _outputs(root, ScanCache(folder))
    assert again[:2] == _outputs(root, None)[:2]
    assert saved_entities(again[1]) == ["Invoice"]


def test_a_kept_transaction_keeps_the_functions_on_its_call_chains(tmp_path):
    """What the autocommit phase reads off each explicit transaction's steps is kept with its
    record, and is what reading the record gives."""
    from analyzer.django.via_chains import via_chains

    root = _copy(tmp_path)
    folder = tmp_path / "cache"
    _outputs(root, ScanCache(folder))
    entries = cachefile.load(folder, "django")["transactions"]
    kept = [entries[key] for key in entries]
    assert kept and all(entry["via"] == via_chains(json.loads(entry["line"])["steps"]) for entry in kept)
    assert any(pairs for _functions, pairs in (entry["via"] for entry in kept))
    assert _outputs(root, ScanCache(folder))[:2] == _outputs(root, None)[:2]


def test_cache_files_are_ascii_and_non_ascii_text_reads_back_the_same(tmp_path):
    # ASCII only: one non-ASCII character made the whole file's text wide when read (cachefile._encode)
    folder = tmp_path / "tables"
    tables = {"files": {"caf\u00e9.py": ["\u2019 \u3012 \U0001f600", "lone \udc80 surrogate"]}, "digest": "\u00e9"}
    cachefile.save(folder, "django", tables)
    assert (folder / "django.json").read_bytes().isascii()
    loaded = cachefile.load(folder, "django")
    assert dict(loaded["files"]) == tables["files"] and loaded["digest"] == "\u00e9"

    # a project whose code holds non-ASCII text: its cache is ASCII, a warm scan after an edit the cold one
    root = _copy(tmp_path)
    path = root / "shop" / "helpers.py"
    path.write_text(path.read_text() + '\nLABEL = "r\u00e9serve \u2019 \u3012"\n')
    folder = tmp_path / "cache"
    _outputs(root, ScanCache(folder))
    assert all(path.read_bytes().isascii() for path in folder.iterdir())
    assert "\\u00e9" in (folder / "django.json").read_text()
    _edit_helper(root)
    assert _outputs(root, ScanCache(folder))[:2] == _outputs(root, None)[:2]


def _warm_cache_files(root: Path, folder: Path, monkeypatch) -> tuple[bytes, int]:
    """(the cache files a scan with helpers leaves, how many background writers it started)."""
    from analyzer import forked

    monkeypatch.setenv(forked.ENV, "1")
    with background_writers(monkeypatch) as writers:
        _outputs(root, ScanCache(folder))
    assert all(isinstance(w, forked.Background) for w in writers)
    return b"".join((folder / name).read_bytes() for name in ("django.json", "core.json")), len(writers)


def test_a_cache_mostly_written_as_read_is_written_by_the_scan_itself_and_the_same(tmp_path, monkeypatch):
    root = _copy(tmp_path)
    folder = tmp_path / "cache"
    assert _warm_cache_files(root, folder, monkeypatch)[1] == 2  # cold: every entry encoded, each file forked
    shutil.copytree(folder, tmp_path / "cold")
    _edit_helper(root)
    written, writers = _warm_cache_files(root, folder, monkeypatch)
    assert writers == 0  # most entries are written as the text they were read as: no process forked
    monkeypatch.setattr(cachefile, "worth_a_process", lambda tables, read: True)
    forced = tmp_path / "forced"
    shutil.copytree(tmp_path / "cold", forced)
    assert _warm_cache_files(root, forced, monkeypatch) == (written, 2)  # the same bytes as a forked writer's
    monkeypatch.undo()
    # a project-wide change (every transaction walked again, every verdict kept anew): forked again
    _edit_settings(root)
    assert _warm_cache_files(root, folder, monkeypatch)[1] == 2
    assert _outputs(root, ScanCache(folder))[:2] == _outputs(root, None)[:2]
