"""The Python side of the TypeScript front end: the packaged plugin, node, and clear errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from analyzer import ir
from analyzer.config import Config
from analyzer.scan import detect_frontend, scan
from analyzer.typeorm import bridge
from conftest import ROOT, SAMPLES, sample_apps

NEST_SHOP = SAMPLES / "typeorm" / "nest-shop"


def test_the_package_carries_the_built_plugin():
    path = bridge.plugin_path()
    assert path.is_file(), "run scripts/setup.sh: it builds ts-plugin and copies it into the package"
    assert path.parent.parent.name == "_plugin", f"the packaged copy is preferred, got {path}"
    assert (path.parent.parent / "node_modules" / "typescript" / "lib" / "typescript.js").is_file()


def test_the_packaged_compiler_has_a_code_cache_node_takes_under_the_scans_flags(tmp_path):
    """setup made the compiler's code cache in the package (scripts/bundle_ts_plugin.py), and a node
    started as the bridge starts ts-plugin takes it (V8 refuses a cache made under other flags)."""
    dist = bridge.plugin_path().parent
    assert (dist / "typescript.code-cache").is_file()
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import bundle_ts_plugin
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    assert bundle_ts_plugin.NODE_FLAGS == bridge.NODE_FLAGS
    probe = (f"const c = require({json.dumps(str(dist / 'code-cache.js'))}); c.installCodeCache();"
             f"require({json.dumps(str(dist.parent / 'node_modules' / 'typescript'))});"
             "process.stdout.write(c.codeCacheState());")
    states = {}
    for name, flags in (("scan", bridge.NODE_FLAGS), ("other", ())):
        completed = subprocess.run(["node", *flags, "-e", probe], capture_output=True, text=True, cwd=tmp_path)
        assert completed.returncode == 0, completed.stderr
        states[name] = completed.stdout
    assert states == {"scan": "accepted", "other": "rejected"}


def test_packaged_plugin_runs_outside_the_repository(tmp_path):
    completed = subprocess.run(["node", str(bridge.plugin_path()), str(NEST_SHOP)], capture_output=True,
                               text=True, cwd=tmp_path, env={"PATH": os.environ["PATH"]})
    assert completed.returncode == 0, completed.stderr
    records = list(ir.loads(completed.stdout))
    assert any(r["type"] == "transaction" for r in records)


def test_missing_node_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(bridge.FrontendUnavailable, match="node was not found"):
        bridge.run(NEST_SHOP)


def test_cli_reports_missing_node_as_usage_error():
    env = {**os.environ, "PATH": "/nonexistent"}
    completed = subprocess.run([sys.executable, "-m", "analyzer.cli", "scan", str(NEST_SHOP), "--no-db", "--no-cache"],
                               capture_output=True, text=True, env=env)
    assert completed.returncode == 2 and "node was not found" in completed.stderr


@pytest.mark.parametrize("app", sample_apps("typeorm"), ids=lambda p: p.name)
def test_frontend_is_detected(app):
    assert detect_frontend(app) == "typeorm"


def test_typeorm_ir_validates_and_is_location_independent(tmp_path):
    import shutil
    copy = tmp_path / NEST_SHOP.name
    shutil.copytree(NEST_SHOP, copy)
    first = scan(NEST_SHOP, Config(), "typeorm")
    second = scan(copy, Config(), "typeorm")
    assert first.ir_text == second.ir_text
    problems = [e for r in first.records for e in ir.validation_errors(r)]
    assert not problems, problems[:5]
    assert first.lines > 0 and first.files


def test_json_contract_for_a_typeorm_app():
    completed = subprocess.run([sys.executable, "-m", "analyzer.cli", "scan", str(NEST_SHOP), "--no-db",
                                "--no-cache", "--format", "json"], capture_output=True, text=True, cwd=ROOT)
    assert completed.returncode == 0, completed.stderr
    doc = json.loads(completed.stdout)
    assert doc["frontend"] == "typeorm" and doc["transactions"]
    boundaries = {t["boundary"] for t in doc["transactions"]}
    assert {"transaction-callback", "transactional-decorator", "transaction-decorator"} <= boundaries


def test_typescript_walk_is_depth_bounded_only_when_the_project_sets_depth(tmp_path):
    from analyzer.config import from_table
    assert Config().depth is None
    assert "depth" not in json.loads(bridge.settings_argument(None, 1000))
    chosen = from_table({"depth": 3}, tmp_path / "pyproject.toml")
    assert chosen.depth == 3
    assert json.loads(bridge.settings_argument(chosen.depth, 1000))["depth"] == 3


def test_a_scan_without_autocommit_asks_the_typescript_front_end_for_explicit_transactions_only():
    default = [r for r in scan(NEST_SHOP, Config(), "typeorm", rewrites=False).records if r["type"] == "transaction"]
    explicit = [r for r in scan(NEST_SHOP, Config(), "typeorm", rewrites=False, autocommit=False).records
                if r["type"] == "transaction"]
    assert any(r["boundary"] == "autocommit" for r in default)
    assert explicit == [r for r in default if r["boundary"] != "autocommit"]
    assert json.loads(bridge.settings_argument(None, 1000, autocommit=False))["autocommit"] is False


def _front_end_recording_its_arenas(tmp_path):
    """The real front end, started through a script that first writes down node's MALLOC_ARENA_MAX."""
    seen = tmp_path / "arenas.txt"
    script = tmp_path / "recording-cli.js"
    script.write_text(f"require('fs').writeFileSync({json.dumps(str(seen))}, process.env.MALLOC_ARENA_MAX ?? 'unset');\n"
                      f"require({json.dumps(str(bridge.plugin_path()))});\n")
    return script, seen


def test_node_runs_with_one_malloc_arena(tmp_path, monkeypatch):
    script, seen = _front_end_recording_its_arenas(tmp_path)
    monkeypatch.setenv("TXSCAN_TS_PLUGIN", str(script))
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    records = bridge.run(NEST_SHOP)
    assert any(r["type"] == "transaction" for r in records)
    assert seen.read_text() == "1"
    assert "MALLOC_ARENA_MAX" not in os.environ, "only node's environment is changed"


def test_a_malloc_arena_count_the_user_set_is_kept(tmp_path, monkeypatch):
    script, seen = _front_end_recording_its_arenas(tmp_path)
    monkeypatch.setenv("TXSCAN_TS_PLUGIN", str(script))
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    bridge.run(NEST_SHOP)
    assert seen.read_text() == "4"


def test_a_stopped_front_end_ends(tmp_path, monkeypatch):
    script = tmp_path / "waiting-cli.js"
    script.write_text("setTimeout(() => {}, 600000);\n")
    monkeypatch.setenv("TXSCAN_TS_PLUGIN", str(script))
    run = bridge.start(NEST_SHOP)
    run.stop()
    assert run._process.returncode is not None


def test_keys_sorted_by_javascript_are_in_pythons_order_unless_a_character_sorts_apart():
    # JavaScript compares UTF-16 code units: a character past U+FFFF (a surrogate pair) comes
    # before one from U+E000 to U+FFFF, where Python puts it after
    keys = ["a", "\uffff", "\U0001f600", "é", "z"]
    js_order = sorted(keys, key=lambda k: k.encode("utf-16-be"))
    assert js_order != sorted(keys)
    assert not bridge.keys_sort_alike(json.dumps(dict.fromkeys(js_order, 1), ensure_ascii=False).encode())
    assert not bridge.keys_sort_alike('{"\ue000": 1}'.encode())
    latin = ["b", "a", "é", "\u0800", "\ud7ff"]
    assert bridge.keys_sort_alike(json.dumps(dict.fromkeys(sorted(latin), 1), ensure_ascii=False).encode())


def _as_round_tripped(records):
    return [json.dumps(r, ensure_ascii=False) for r in ir.loads(ir.dumps(records))]


def test_a_typeorm_scan_hands_the_core_the_records_a_round_trip_gives(tmp_path):
    # the records ts-plugin's output decodes to are not decoded again from the IR text
    # (analyzer/scan.py): they must be equal to a round trip's, key order included
    from analyzer.scan import _typescript_records
    pending = _typescript_records(NEST_SHOP, Config(), None, True)
    pending.take()
    assert pending.as_round_tripped, "ts-plugin's records of a sample are decoded once"
    result = scan(NEST_SHOP, Config(), "typeorm", rewrites=False)
    assert [json.dumps(r, ensure_ascii=False) for r in result.records] == _as_round_tripped(result.records)

    # a character JavaScript sorts apart (here in a file's name) leaves the records to the round trip
    import shutil
    copy = tmp_path / "shop"
    shutil.copytree(NEST_SHOP, copy)
    source = next(p for p in sorted(copy.rglob("*.ts")) if ".transaction(" in p.read_text())
    shutil.copy(source, source.with_name("copy-\U0001f600\uffff.ts"))
    pending = _typescript_records(copy, Config(), None, True)
    pending.take()
    assert not pending.as_round_tripped
    result = scan(copy, Config(), "typeorm", rewrites=False)
    assert [json.dumps(r, ensure_ascii=False) for r in result.records] == _as_round_tripped(result.records)


def test_the_typescript_file_list_skips_what_each_pattern_matches(tmp_path):
    # analyzer/scan.py matches all skip patterns with one expression: the same names as
    # fnmatch with each pattern, the project's `exclude` included
    import fnmatch
    from analyzer.config import from_table
    from analyzer.scan import _SKIP_DIRS, _TS_DEFAULT_SKIP_DIRS, _TS_DEFAULT_SKIP_FILES, _typescript_files
    config = from_table({"exclude": ["legacy*", "old?.ts", "[ab].ts"]}, tmp_path / "pyproject.toml")
    names = ["main.ts", "user.spec.ts", "legacy.ts", "legacy_x.ts", "old1.ts", "old12.ts", "a.ts", "c.ts", "x.e2e.ts",
             "seed.ts", "db.seed.ts", "la\ntest.ts", "Legacy.ts", "out.ts"]
    folders = ["src", "tests", "e2e", "out", "legacy-code", "outer", "build2", "seeds", "[ab]"]
    for folder in folders:
        for name in names:
            (tmp_path / folder).mkdir(exist_ok=True)
            (tmp_path / folder / name).write_text("export const x = 1;\n")
    patterns = tuple(_SKIP_DIRS) + _TS_DEFAULT_SKIP_DIRS + _TS_DEFAULT_SKIP_FILES + tuple(config.exclude)
    skipped = lambda name: any(fnmatch.fnmatch(name, p) for p in patterns)  # noqa: E731
    expected = sorted(f"{folder}/{name}" for folder in folders for name in names if not skipped(folder) and not skipped(name))
    assert sorted(f["path"] for f in _typescript_files(tmp_path, config)) == expected
    assert "src/main.ts" in expected and "src/la\ntest.ts" in expected and "outer/old12.ts" in expected


def _front_end_that_goes_on_after_its_ir(tmp_path, exit_code):
    """A stand-in for ts-plugin's command line (src/cli.ts): it prints an IR, closes its output,
    then goes on (writing its warm cache there) before it exits with `exit_code`."""
    ir_file = tmp_path / "ir.jsonl"
    ir_file.write_text(ir.dumps(bridge.run(NEST_SHOP)))
    ended = tmp_path / "ended"
    script = tmp_path / "late-cli.js"
    script.write_text(f"""const fs = require("fs");
fs.writeSync(1, fs.readFileSync({json.dumps(str(ir_file))}));
fs.closeSync(1);
setTimeout(() => {{ fs.writeFileSync({json.dumps(str(ended))}, "yes"); process.stderr.write("txscan-ts: info: late\\\\n"); process.exit({exit_code}); }}, 1500);
""")
    return script, ended


def test_the_records_are_taken_while_the_front_end_writes_its_cache(tmp_path, monkeypatch, capsys):
    script, ended = _front_end_that_goes_on_after_its_ir(tmp_path, 0)
    monkeypatch.setenv("TXSCAN_TS_PLUGIN", str(script))
    run = bridge.start(NEST_SHOP)
    records = run.records()
    assert not ended.exists(), "the records are read at the end of the IR, not at node's end"
    assert records == list(ir.loads((tmp_path / "ir.jsonl").read_text()))
    run.finish()
    assert ended.exists()
    assert "txscan: info: late" in capsys.readouterr().err


def test_a_front_end_failing_after_its_ir_fails_the_scan(tmp_path, monkeypatch):
    script, ended = _front_end_that_goes_on_after_its_ir(tmp_path, 3)
    monkeypatch.setenv("TXSCAN_TS_PLUGIN", str(script))
    with pytest.raises(bridge.FrontendUnavailable, match="exit 3"):
        scan(NEST_SHOP, Config(), "typeorm", rewrites=False)
    assert ended.exists()


def test_a_front_end_failing_before_any_output_says_why(tmp_path, monkeypatch):
    # its output ends (at its exit) before this side may see the exit status: that status is waited for
    script = tmp_path / "failing-cli.js"
    script.write_text("process.stderr.write('txscan-ts: internal error: boom\\n'); process.exit(3);\n")
    monkeypatch.setenv("TXSCAN_TS_PLUGIN", str(script))
    for _ in range(5):
        with pytest.raises(bridge.FrontendUnavailable, match="exit 3.*boom"):
            bridge.run(NEST_SHOP)
