"""Source files: only regular files are read, sizes are checked first, every unreadable input is
named in a diagnostic, odd names and valid-but-unusual files survive into the IR and JSON."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3

import pytest
from hostile_inputs import (
    SERVICE,
    assert_clean,
    diagnostics_by_file,
    django_app,
    functions,
    run,
    run_process,
    scan_json,
    unprivileged,
    world_readable_tmp,
)


def test_special_files_are_diagnostics_and_never_read(tmp_path):
    """A FIFO named x.py would block a reader forever; a link to /dev/zero would never end."""
    root = django_app(tmp_path)
    os.mkfifo(root / "app" / "fifo.py")
    os.symlink("/dev/zero", root / "app" / "zero.py")
    os.symlink(root / "nowhere.py", root / "app" / "dangling.py")
    doc = scan_json(root, process=True)   # a process: a hang or MemoryError would show as a failure here
    found = diagnostics_by_file(doc)
    for name in ("fifo.py", "zero.py", "dangling.py"):
        assert found.get(f"app/{name}") == {"unreadable"}, found
    assert functions(doc) == ["app.services.touch"]


def test_size_is_checked_before_reading(tmp_path):
    root = django_app(tmp_path, {"big.py": "x = 1\n" * 40_000})
    (root / "pyproject.toml").write_text("[tool.txscan]\nmax-file-bytes = 100000\n")
    doc = scan_json(root)
    assert diagnostics_by_file(doc)["app/big.py"] == {"too-large"}
    assert functions(doc) == ["app.services.touch"]


def test_unreadable_file_and_folder_are_named(tmp_path):
    base = world_readable_tmp()
    try:
        root = django_app(base / "proj", {"locked.py": SERVICE.replace("touch", "hidden"),
                                          "private/__init__.py": "", "private/svc.py": SERVICE})
        for path in (base, base / "proj", root / "app"):
            path.chmod(0o755)
        (root / "app" / "locked.py").chmod(0o000)
        (root / "app" / "private").chmod(0o000)
        doc = scan_json(root, process=True, prefix=unprivileged())
        found = diagnostics_by_file(doc)
        assert found.get("app/locked.py") == {"unreadable"}, found
        assert found.get("app/private") == {"unreadable"}, found
        assert functions(doc) == ["app.services.touch"]
    finally:
        (root / "app" / "private").chmod(0o755)
        shutil.rmtree(base)


def test_unreadable_typescript_file_and_folder_are_named(tmp_path):
    from hostile_inputs import typeorm_app

    base = world_readable_tmp()
    try:
        root = typeorm_app(base / "ledger")
        os.system(f"chmod -R a+rX {base}")
        (root / "src" / "services" / "ledger.ts").chmod(0o000)
        (root / "src" / "routes").chmod(0o000)
        doc = scan_json(root, process=True, prefix=unprivileged())
        found = diagnostics_by_file(doc)
        assert found.get("src/services/ledger.ts") == {"unreadable"}, found
        assert found.get("src/routes") == {"unreadable"}, found
        assert not any(t["file"].startswith(("src/routes/", "src/services/ledger.ts")) for t in doc["transactions"])
        assert any(t["file"] == "src/services/outbound.ts" for t in doc["transactions"])
    finally:
        (root / "src" / "routes").chmod(0o755)
        shutil.rmtree(base)


@pytest.mark.parametrize("name,shown", [
    (b"caf\xe9.py", "app/caf\\xe9.py"), ("line\u2028sep.py".encode(), "app/line\u2028sep.py"),
    (b"tab\tand\nnewline.py", "app/tab\tand\nnewline.py")])
def test_odd_file_names_survive_into_ir_json_and_store(tmp_path, name, shown):
    root = django_app(tmp_path / "src")
    with open(os.path.join(os.fsencode(root / "app"), name), "w") as handle:
        handle.write(SERVICE.replace("touch", "odd"))
    ir_path, db = tmp_path / "out.jsonl", tmp_path / "out.db"
    result = run("scan", root, "--format", "json", "--db", db, "--ir", ir_path)
    assert_clean(result, 0)
    doc = json.loads(result.stdout)
    assert sorted(t["file"] for t in doc["transactions"]) == sorted(["app/services.py", shown])
    records = [json.loads(line) for line in ir_path.read_text("utf-8").split("\n") if line]
    assert shown in {r.get("file") for r in records}
    assert_clean(run("report", db, "--out", tmp_path / "report"), 0)


GOOD_CR = SERVICE.replace("touch", "cr_only").replace("\n", "\r")
GOOD_CRLF = SERVICE.replace("touch", "crlf").replace("\n", "\r\n")
GOOD_FF = SERVICE.replace("touch", "form_feed").replace("\n\n@", "\n\x0c\n@")
GOOD_LS = SERVICE.replace("touch", "line_sep").replace(
    "    Account.objects", "    note = 'a\u2028b\u2029c\x85d'\n    Account.objects")


@pytest.mark.parametrize("name,text,line", [
    ("cr_only.py", GOOD_CR, 6), ("crlf.py", GOOD_CRLF, 6), ("form_feed.py", GOOD_FF, 6), ("line_sep.py", GOOD_LS, 6)])
def test_valid_files_are_not_rejected_and_keep_their_lines(tmp_path, name, text, line):
    doc = scan_json(django_app(tmp_path, {name: text}))
    assert f"app/{name}" not in diagnostics_by_file(doc)
    txn = next(t for t in doc["transactions"] if t["file"] == f"app/{name}")
    assert txn["line"] == line
    assert txn["statements"][0]["line"] == txn["line"] + 2 + (name == "line_sep.py")


@pytest.mark.parametrize("codec", ["rot13", "hex", "base64", "zlib", "undefined", "utf-16", "bogus", "latin-1"])
def test_declared_encodings_never_crash(tmp_path, codec):
    name = "declared.py"
    doc = scan_json(django_app(tmp_path, {name: f"# -*- coding: {codec} -*-\nx = 1\n".encode()}))
    assert diagnostics_by_file(doc).get(f"app/{name}", {"decode-error"}) == {"decode-error"}
    assert functions(doc) == ["app.services.touch"]


def test_survey_hashes_sources_the_way_a_scan_reads_them(tmp_path):
    """The survey's re-use check hashes every source file first: a FIFO or a link to /dev/zero
    named like a source file must not hang it or exhaust its memory, and an undecodable file
    name must not break it. The app is still surveyed and re-used on the second run."""
    checkouts = tmp_path / "checkouts"
    root = django_app(checkouts / "odd")
    os.mkfifo(root / "app" / "fifo.py")
    os.symlink("/dev/zero", root / "app" / "zero.py")
    (root / "app" / os.fsdecode(b"caf\xe9.py")).write_text("x = 1\n")
    manifest = tmp_path / "manifest.toml"
    manifest.write_text('[[app]]\nname = "odd"\norm = "django"\n')
    db = tmp_path / "survey.db"
    first = run_process("survey", manifest, "--checkouts", checkouts, "--db", db, "-j", "1", timeout=120)
    assert_clean(first, 0)
    second = run_process("survey", manifest, "--checkouts", checkouts, "--db", db, "-j", "1", timeout=120)
    assert_clean(second, 0)
    assert "odd" in second.stdout + second.stderr
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        assert connection.execute("SELECT status FROM apps WHERE name = 'odd'").fetchone() == ("ok",)


_NOT_LINE_BREAKS = "\v\f\x1c\x1d\x1e\x85\u2028\u2029"


@pytest.mark.parametrize("text", [
    *(f"x = 'a{c}b'\n" for c in _NOT_LINE_BREAKS),       # each character, in an ASCII, Latin-1 or wider text
    *(f"x = '\U0001f600{c}'\n" for c in _NOT_LINE_BREAKS),  # in a text of four-byte characters
    "x = 'caf\u00e9'\n", "x = '\u2027\u202a'\n", "x = 1\n", "", "\u2029",
])
def test_normalise_replaces_exactly_the_characters_a_character_class_finds(text):
    import re

    from analyzer.django.files import has_not_line_break, normalise

    found = bool(re.search(f"[{_NOT_LINE_BREAKS}]", text))
    assert has_not_line_break(text) == found
    assert normalise(text) == (text.translate({ord(c): " " for c in _NOT_LINE_BREAKS}) if found else text)
