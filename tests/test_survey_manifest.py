"""Manifest validation: every bad manifest is one line (file, entry, reason) and exit status 2,
before anything is scanned or any store is created."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from analyzer.survey import manifest
from test_survey import TXSCAN


def fifo(path: Path) -> None:
    os.mkfifo(path)  # reading it would block for ever


CASES = {
    "folder": (lambda p: p.mkdir(), "is a folder, not a manifest file"),
    "fifo": (fifo, "is not a regular file"),
    "device": (lambda p: p.symlink_to("/dev/zero"), "is not a regular file"),
    "dangling": (lambda p: p.symlink_to(p.parent / "nowhere"), "no such manifest"),
    "binary": (lambda p: p.write_bytes(b"[[app]]\nname = \"\xff\"\n"), "not UTF-8 text (byte 16)"),
    # A regular file whose reading fails even for root (EIO at offset 0).
    "unreadable": (lambda p: p.symlink_to("/proc/self/mem"), "cannot read the manifest: Input/output error"),
    "bad-toml": (lambda p: p.write_text('[[app]\nname = "a"\n'), "not valid TOML: "),
    "empty": (lambda p: p.write_text("# nothing\n"), "no [[app]] entries"),
    "app-string": (lambda p: p.write_text('app = "shop"\n'), "`app` must be an array of tables ([[app]]), not a string"),
    "app-not-table": (lambda p: p.write_text("app = [1, 2]\n"), "[[app]] #1: must be a table, not an integer"),
    "no-name": (lambda p: p.write_text('[[app]]\norm = "django"\n'), "[[app]] #1: has no name"),
    "name-int": (lambda p: p.write_text("[[app]]\nname = 5\n"), "[[app]] #1: name must be a string, not an integer"),
    "name-slash": (lambda p: p.write_text('[[app]]\nname = "a/b"\n'),
                   "[[app]] #1 ('a/b'): name must be a non-empty name without slashes, not 'a/b'"),
    "orm": (lambda p: p.write_text('[[app]]\nname = "x"\norm = "rails"\n'),
            "[[app]] #1 ('x'): orm must be 'django' or 'typeorm', not 'rails'"),
    "subdir-type": (lambda p: p.write_text('[[app]]\nname = "x"\nsubdir = ["a"]\n'),
                    "[[app]] #1 ('x'): subdir must be a string, not an array"),
    "commit-type": (lambda p: p.write_text('[[app]]\nname = "x"\ncommit = 1234\n'),
                    "[[app]] #1 ('x'): commit must be a string, not an integer"),
    "checkout-escapes": (lambda p: p.write_text('[[app]]\nname = "x"\ncheckout = "../../etc"\n'),
                         "[[app]] #1 ('x'): checkout must be a relative path inside the checkouts, not '../../etc'"),
    "subdir-absolute": (lambda p: p.write_text('[[app]]\nname = "x"\nsubdir = "/etc"\n'),
                        "[[app]] #1 ('x'): subdir must be a relative path inside the checkouts, not '/etc'"),
    "twice": (lambda p: p.write_text('[[app]]\nname = "a"\n[[app]]\nname = "b"\n[[app]]\nname = "a"\n'),
              "[[app]] #3 ('a'): the name 'a' is listed twice"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_manifest_is_one_line_and_exit_2(case, tmp_path):
    make, reason = CASES[case]
    path = tmp_path / "corpus.toml"
    make(path)
    with pytest.raises(manifest.ManifestError) as raised:
        manifest.load(path)
    assert str(raised.value).startswith(f"{path}: {reason}")
    result = subprocess.run([*TXSCAN, "survey", str(path), "--checkouts", str(tmp_path), "--db",
                             str(tmp_path / "s.db")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.startswith(f"txscan: error: {path}: {reason}")
    assert result.stderr.count("\n") == 1 and result.stdout == ""
    assert not (tmp_path / "s.db").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_unreadable_manifest(tmp_path):
    path = tmp_path / "corpus.toml"
    path.write_text('[[app]]\nname = "a"\n')
    path.chmod(0)
    with pytest.raises(manifest.ManifestError, match="cannot read the manifest: Permission denied"):
        manifest.load(path)


def test_valid_manifest_keeps_information_keys(tmp_path):
    path = tmp_path / "corpus.toml"
    path.write_text('[[app]]\nname = "a"\norm = "typeorm"\nsubdir = "src"\nfiles = 12\ndescription = "d"\n')
    [app] = manifest.load(path)
    assert (app.name, app.orm, app.subdir, app.checkout) == ("a", "typeorm", "src", None)
    assert app.extra == {"files": 12, "description": "d"}
    assert app.folder(tmp_path) == tmp_path / "a" / "src"
