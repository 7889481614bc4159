"""An internal error is one line and exit 2; TXSCAN_DEBUG=1 shows the traceback for debugging."""

from __future__ import annotations

from hostile_inputs import assert_clean, run, typeorm_app

# IR that passes the bridge's checks but lacks what the core needs: a bug in a front end.
BROKEN_FRONT_END = """\
process.stdout.write(JSON.stringify({ir: 1, type: "meta", frontend: "typeorm", root: "x"}) + "\\n");
process.stdout.write(JSON.stringify({ir: 1, type: "transaction"}) + "\\n");
"""


def test_internal_error_is_one_line(tmp_path):
    root = typeorm_app(tmp_path / "ledger")
    plugin = tmp_path / "cli.js"
    plugin.write_text(BROKEN_FRONT_END)
    result = run("scan", root, "--no-db", env={"TXSCAN_TS_PLUGIN": str(plugin)})
    assert_clean(result, 2)
    assert result.stderr.startswith("txscan: internal error: ") and len(result.stderr.splitlines()) == 1
    assert "TXSCAN_DEBUG" in result.stderr

    debug = run("scan", root, "--no-db", env={"TXSCAN_TS_PLUGIN": str(plugin), "TXSCAN_DEBUG": "1"})
    assert debug.returncode == 2 and "Traceback (most recent call last)" in debug.stderr


def test_usage_errors_exit_2(tmp_path):
    for args in (("scan",), ("scan", tmp_path, "--format", "yaml"), ("report",), ("nonsense",),
                 ("survey", tmp_path / "missing.toml", "--checkouts", tmp_path, "--db", tmp_path / "s.db")):
        assert_clean(run(*args), 2)
