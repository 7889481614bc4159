"""What a command imports, and how its process ends: `txscan --version`, `--help` and a JSON
scan load only what they use (the real entry point, its imports listed by `python -X importtime`),
and a scan's process ends with its output and exit status intact."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import SAMPLES

SHOP = SAMPLES / "django" / "shop"
# Never needed by a scan printing JSON: reports (jinja2, matplotlib), tables (rich), the survey's
# cluster (dask), schema validation of the IR (jsonschema), a graph library (networkx).
NOT_FOR_A_JSON_SCAN = {"rich", "jinja2", "matplotlib", "dask", "distributed", "pandas", "jsonschema", "networkx",
                       "analyzer.report", "analyzer.survey", "analyzer.lint", "analyzer.output.terminal"}
# Not even for parsing the command line: the store, the configuration, the parsers, the scan.
NOT_FOR_VERSION = NOT_FOR_A_JSON_SCAN | {"sqlite3", "tomllib", "tree_sitter", "libcst", "analyzer.scan",
                                         "analyzer.store", "analyzer.django", "analyzer.cache"}


def imported(*args: str, cwd: Path | None = None) -> tuple[set[str], subprocess.CompletedProcess]:
    """The modules `txscan ARGS` imports, and how it ended."""
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "analyzer.cli", *args],
                            capture_output=True, text=True, cwd=cwd)
    modules = {line.split("|")[-1].strip() for line in result.stderr.splitlines() if line.startswith("import time:")}
    modules.discard("imported package")
    return modules, result


def test_version_imports_neither_the_scan_nor_the_store():
    modules, result = imported("--version")
    assert result.returncode == 0 and result.stdout.startswith("txscan ")
    assert "typer" in modules  # the listing works: the command line library is there
    assert not modules & NOT_FOR_VERSION, sorted(modules & NOT_FOR_VERSION)


# What a scan imports before it forks its first helper is on every scan's critical path (the
# first imports of `txscan scan`, the benchmark and a library caller; for a Django scan also the
# front end's index, whose tree-sitter packages import typing, tempfile and importlib.resources
# themselves): modules only a later step or another command needs are imported where needed.
FIRST_IMPORTS = "import analyzer.config, analyzer.store, analyzer.cache, analyzer.process, analyzer.timing, analyzer.scan"
NOT_IN_THE_FIRST_IMPORTS = {"typing", "_hashlib", "hashlib", "tempfile", "importlib.resources"}
DJANGO_BEFORE_THE_FIRST_FORK = ("from analyzer.core import Settings, analyze; from analyzer.cache.django import "
                                "DjangoReuse; from analyzer.django import frontend")


def imported_by(code: str) -> set[str]:
    result = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    return {line.split("|")[-1].strip() for line in result.stderr.splitlines() if line.startswith("import time:")}


def test_the_scan_modules_import_nothing_before_the_first_fork_that_a_later_step_needs():
    modules = imported_by(FIRST_IMPORTS)
    assert {"analyzer.scan", "analyzer.store", "sqlite3"} <= modules  # the listing works
    assert not modules & NOT_IN_THE_FIRST_IMPORTS, sorted(modules & NOT_IN_THE_FIRST_IMPORTS)
    django = imported_by(f"{FIRST_IMPORTS}; {DJANGO_BEFORE_THE_FIRST_FORK}")
    assert {"analyzer.django.index", "tree_sitter"} <= django
    assert not django & {"_hashlib", "hashlib"}  # (OpenSSL's module: analyzer/digests.py)


def test_the_digest_without_hashlib_is_hashlibs_blake2b():
    """analyzer/digests.py: the warm cache's, the store's and the generated code table's keys are
    the digests hashlib's blake2b gives (files written before stay readable)."""
    import hashlib

    from analyzer.digests import blake2b

    for data in (b"", b"txscan", bytes(range(256)) * 40):
        for size in (16, 32):
            assert blake2b(data, digest_size=size).hexdigest() == hashlib.blake2b(data, digest_size=size).hexdigest()
    streamed = blake2b(digest_size=16)
    streamed.update(b"tx")
    streamed.update(b"scan")
    assert streamed.digest() == hashlib.blake2b(b"txscan", digest_size=16).digest()


def test_json_scan_of_an_empty_project_imports_no_report_table_or_store_modules(tmp_path):
    modules, result = imported("scan", str(tmp_path), "--format", "json", "--no-db", "--no-cache")
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout)["files"] == 0
    assert "analyzer.scan" in modules
    # --no-db: no store is opened; no pyproject.toml: no TOML parser
    unwanted = NOT_FOR_A_JSON_SCAN | {"sqlite3", "tomllib"}
    assert not modules & unwanted, sorted(modules & unwanted)


def test_json_scan_of_a_sample_imports_no_report_or_table_modules(tmp_path):
    modules, result = imported("scan", str(SHOP), "--format", "json", "--db", str(tmp_path / "s.db"), "--no-cache")
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout)["transactions"]
    assert {"libcst", "sqlite3"} <= modules  # what the scan and its store need is there
    assert not modules & NOT_FOR_A_JSON_SCAN, sorted(modules & NOT_FOR_A_JSON_SCAN)


# The Django front end's parsers and walk: a TypeScript scan (ts-plugin walks it) needs none of them.
PYTHON_ANALYSIS = {"libcst", "tree_sitter", "tree_sitter_python", "analyzer.django.frontend", "analyzer.django.walker",
                   "analyzer.django.nesting", "analyzer.rewrite.python_syntax"}


def test_json_scan_of_a_typescript_project_imports_no_python_parser_or_walk():
    modules, result = imported("scan", str(SAMPLES / "typeorm" / "nest-shop"), "--format", "json", "--no-db", "--no-cache")
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout)["transactions"]
    assert "analyzer.typeorm.bridge" in modules and "analyzer.django.files" in modules  # the listing works
    assert not modules & PYTHON_ANALYSIS, sorted(modules & PYTHON_ANALYSIS)


def test_table_scan_imports_rich_when_it_prints_a_table(tmp_path):
    modules, result = imported("scan", str(SHOP), "--no-db", "--no-cache")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "rich" in modules and "transactions" in result.stdout


def test_scan_that_ends_without_teardown_keeps_its_whole_output_and_status(tmp_path):
    """The process ends with os._exit after the scan (analyzer/process.py): what it printed is
    all there, a refused option still exits 2, and a closed stdout is still reported."""
    done = subprocess.run([sys.executable, "-m", "analyzer.cli", "scan", str(SHOP), "--format", "json", "--no-db",
                           "--no-cache"], capture_output=True, text=True)
    assert done.returncode == 0
    assert done.stdout.endswith("}\n") and json.loads(done.stdout)["summary"]["transactions"] > 0
    refused = subprocess.run([sys.executable, "-m", "analyzer.cli", "scan", str(SHOP), "--cda", "x"],
                             capture_output=True, text=True)
    assert refused.returncode == 2
    piped = subprocess.run(f"{sys.executable} -m analyzer.cli scan {SHOP} --format json --no-db --no-cache | head -c 1",
                           shell=True, capture_output=True, text=True)
    assert piped.stdout == "{"
    assert "Traceback" not in piped.stderr


def test_lint_ends_with_its_exit_status(tmp_path):
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "app.py").write_text("def f():\n    return 1\n")
    result = subprocess.run([sys.executable, "-m", "analyzer.cli", "lint", str(clean), "--no-cache"],
                            capture_output=True, text=True, cwd=clean)
    assert result.returncode == 0, result.stderr
    findings = subprocess.run([sys.executable, "-m", "analyzer.cli", "lint", str(SHOP), "--no-cache", "--format",
                               "json"], capture_output=True, text=True)
    assert findings.returncode == 1, findings.stderr  # the shop sample has findings
    assert json.loads(findings.stdout)["findings"]


def test_help_is_plain_text_without_rich():
    """Help and usage errors are plain text (rich is not imported for them), and option texts are
    shown as written: `[tool.txscan]` is not taken for markup."""
    modules, result = imported("scan", "--help")
    assert result.returncode == 0
    assert "pyproject.toml with [tool.txscan]." in " ".join(result.stdout.split())
    assert "rich" not in modules
    modules, result = imported("scan", "--cda", "sometimes", str(SHOP))
    assert result.returncode == 2
    assert "Error: Invalid value for '--cda'" in result.stderr and "rich" not in modules


def test_a_host_that_calls_main_survives_a_scan(tmp_path):
    """Only the `txscan` program itself ends without teardown; a host calling main() (a test
    runner, a script) gets SystemExit back and keeps running."""
    code = ("import sys\nfrom analyzer.cli import main\n"
            f"sys.argv = ['txscan', 'scan', {str(SHOP)!r}, '--format', 'json', '--no-db', '--no-cache']\n"
            "try:\n    main()\nexcept SystemExit as exc:\n    print('host still running', exc.code, file=sys.stderr)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0
    assert "host still running 0" in result.stderr


def test_scan_options_are_converted_without_pydantic(tmp_path):
    """typer would build a pydantic adapter per option (analyzer/cli.py): paths, enums and flags
    are converted with typer's own checks, and a refused choice keeps typer's message."""
    modules, result = imported("scan", str(SHOP), "--format", "json", "--no-db", "--no-cache", "--cda", "auto",
                               "--frontend", "django", "--ir", str(tmp_path / "out.ir"))
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout)["cda_mode"] == "auto" and (tmp_path / "out.ir").is_file()
    assert "pydantic" not in modules
    _modules, refused = imported("scan", str(SHOP), "--no-db", "--format", "xml")
    assert refused.returncode == 2
    assert "Invalid value for '--format' / '-f': Value error, 'xml' is not one of 'table', 'json'." in refused.stderr


def test_lint_list_options_are_converted_without_pydantic():
    """A lint's paths and rule lists are lists of plain options: each item is converted as a
    single one is (analyzer/cli.py), without pydantic, and the options still decide the findings."""
    modules, result = imported("lint", str(SHOP / "shop" / "services"), str(SHOP / "shop" / "models.py"),
                               "--select", "TX10", "--ignore", "TX104", "--ignore", "TX101", "--format", "json",
                               "--exit-zero", "--no-cache")
    assert result.returncode == 0, result.stderr[-2000:]
    codes = {finding["code"] for finding in json.loads(result.stdout)["findings"]}
    assert codes and codes.isdisjoint({"TX101", "TX104"}) and all(code.startswith("TX10") for code in codes)
    assert "pydantic" not in modules
    _modules, missing = imported("lint", str(SHOP / "no-such-folder"), "--no-cache")
    assert missing.returncode == 2
    assert "no-such-folder does not exist" in missing.stderr
