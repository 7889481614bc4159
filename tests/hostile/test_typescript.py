"""The TypeScript side: settings reach it and are honoured; every way node can fail is one line."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from hostile_inputs import assert_clean, diagnostics_by_file, run, scan_json, typeorm_app

from analyzer.typeorm import bridge


@pytest.fixture(scope="module")
def ledger(tmp_path_factory):
    return typeorm_app(tmp_path_factory.mktemp("ts") / "ledger")


def test_exclude_and_max_file_bytes_are_honoured(tmp_path):
    root = typeorm_app(tmp_path / "ledger")
    (root / "pyproject.toml").write_text('[tool.txscan]\nexclude = ["routes", "outbound*"]\nmax-file-bytes = 1200\n')
    doc = scan_json(root)
    files = {t["file"] for t in doc["transactions"]}
    assert not any(f.startswith("src/routes/") or "outbound" in f for f in files), files
    assert not any(d.startswith("src/routes/") or "outbound" in d for d in diagnostics_by_file(doc))
    sizes = {p.relative_to(root).as_posix(): p.stat().st_size for p in (root / "src").rglob("*.ts")}
    too_large = {f for f, codes in diagnostics_by_file(doc).items() if "too-large" in codes}
    assert too_large == {f for f, size in sizes.items() if size > 1200 and not f.startswith("src/routes/")
                         and "outbound" not in f}
    assert too_large and not files & too_large


def test_settings_argument_is_one_extensible_json_object():
    text = bridge.settings_argument(4, 1000, ["legacy"], extra_effects={"acme.notify": "email"})
    assert json.loads(text) == {"depth": 4, "maxFileBytes": 1000, "exclude": ["legacy"],
                                "extra_effects": {"acme.notify": "email"}}


FAKE_NODES = {
    "prints-garbage": "echo 'Welcome to node'",
    "prints-half-a-record": "printf '{\"ir\": 1, \"type\": \"meta\"'",
    "prints-json-not-ir": "echo '{\"ir\": 1, \"type\": \"banana\"}'",
    "prints-a-list": "echo '[1, 2]'",
    "prints-bytes": "printf '\\377\\376\\n'",
    "exits-1": "echo 'Error: something broke' >&2; echo '    at Object.<anonymous> (x.js:1:1)' >&2; exit 1",
    "killed": "kill -9 $$",
    "usage-error": "echo 'txscan-ts: unknown option --settings' >&2; exit 2",
}


@pytest.mark.parametrize("behaviour", sorted(FAKE_NODES))
def test_broken_node_is_one_line(tmp_path, ledger, behaviour):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "node"
    fake.write_text(f"#!/bin/sh\n{FAKE_NODES[behaviour]}\n")
    fake.chmod(0o755)
    result = run("scan", ledger, "--no-db", "--frontend", "typeorm", env={"PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin"})
    assert_clean(result, 2)
    assert len(result.stderr.strip().splitlines()) == 1 and "TypeScript front end" in result.stderr, result.stderr


def test_missing_node_is_one_line(tmp_path, ledger):
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run("scan", ledger, "--no-db", "--frontend", "typeorm", env={"PATH": str(empty)})
    assert_clean(result, 2)
    assert "node was not found" in result.stderr


def test_unbuilt_plugin_is_one_line(tmp_path, ledger):
    result = run("scan", ledger, "--no-db", "--frontend", "typeorm", env={"TXSCAN_TS_PLUGIN": str(tmp_path / "cli.js")})
    assert_clean(result, 2)
    assert "not built" in result.stderr


def test_plugin_cli_rejects_bad_settings_in_one_line(ledger):
    import subprocess

    node = shutil.which("node")
    for settings in ("[1]", "{not json", '{"depth": -1}', '{"exclude": "legacy"}'):
        done = subprocess.run([node, str(bridge.plugin_path()), "--settings", settings, str(ledger)],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and done.stderr.startswith("txscan-ts: --settings"), done.stderr


def test_odd_typescript_file_names_survive(tmp_path):
    root = typeorm_app(tmp_path / "ledger")
    services = root / "src" / "services"
    os.rename(services / "interest.ts", services / "inter\u2028est.ts")
    with open(os.path.join(os.fsencode(services), b"caf\xe9.ts"), "w") as handle:
        handle.write("export const x = 1;\n")
    doc = scan_json(root)
    assert "src/services/inter\u2028est.ts" in {t["file"] for t in doc["transactions"]}
    assert diagnostics_by_file(doc)["src/services/caf\\xe9.ts"] == {"unreadable"}
