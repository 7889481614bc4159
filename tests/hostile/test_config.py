"""[tool.txscan] and --config: every wrong type or value is one line naming file and key, exit 2."""

from __future__ import annotations

import pytest
from hostile_inputs import assert_clean, django_app, run, scan_json

from analyzer.config import KEYS, Config, ConfigError, load

BAD = [
    ('depth = "deep"', "depth"),
    ("depth = 0", "depth"),
    ("depth = -3", "depth"),
    ("depth = true", "depth"),
    ("depth = 2.5", "depth"),
    ("max-file-bytes = 0", "max-file-bytes"),
    ("max-file-bytes = -1", "max-file-bytes"),
    ('max-file-bytes = "big"', "max-file-bytes"),
    ("exclude = 5", "exclude"),
    ('exclude = "legacy"', "exclude"),
    ("exclude = [1, 2]", "exclude"),
    ('exclude = [""]', "exclude"),
    ('cda = "sometimes"', "cda"),
    ("cda = 1", "cda"),
    ('cda-entities = "User"', "cda-entities"),
    ('cda-entities = {User = "email"}', "cda-entities.User"),
    ('effects = ["a"]', "effects"),
    ('effects = {"acme.notify" = 3}', "effects"),
    ('statements = {"acme.sync" = ["update"]}', "statements"),
    ("lint = 3", "lint"),
    ('exlude = ["legacy"]', "exlude"),
    ("surprise = 1", "surprise"),
]


@pytest.mark.parametrize("line,key", BAD, ids=[b[0] for b in BAD])
def test_bad_setting_is_one_line_naming_file_and_key(tmp_path, line, key):
    django_app(tmp_path)
    (tmp_path / "pyproject.toml").write_text(f"[tool.txscan]\n{line}\n")
    result = run("scan", tmp_path, "--no-db")
    assert_clean(result, 2)
    assert len(result.stderr.strip().splitlines()) == 1
    assert "pyproject.toml" in result.stderr and f"[tool.txscan] {key} " in result.stderr


@pytest.mark.parametrize("text", ['tool = "txscan"', "[tool]\ntxscan = 3", "[tool.txscan\n", "\xff"])
def test_malformed_file_is_one_line(tmp_path, text):
    django_app(tmp_path)
    (tmp_path / "pyproject.toml").write_bytes(text.encode("latin-1"))
    result = run("scan", tmp_path, "--no-db")   # `tool` not a table, txscan not a table, bad TOML, not UTF-8
    assert_clean(result, 2)
    assert "pyproject.toml" in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("kind", ["missing", "folder"])
def test_explicit_config_must_exist(tmp_path, kind):
    django_app(tmp_path / "app")
    target = tmp_path / "settings.toml"
    if kind == "folder":
        target.mkdir()
    result = run("scan", tmp_path / "app", "--no-db", "--config", target)
    assert_clean(result, 2)
    assert str(target) in result.stderr


def test_every_documented_key_accepted(tmp_path):
    django_app(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.txscan]\ncda = "auto"\nexclude = ["legacy"]\ndepth = 3\nmax-file-bytes = 100000\n'
        '[tool.txscan.cda-entities]\nAccount = ["balance"]\n[tool.txscan.effects]\n"acme.notify" = "email"\n'
        '[tool.txscan.statements]\n"acme.sync" = "write"\n[tool.txscan.lint]\nselect = ["TX1"]\n')
    config = load(tmp_path)
    assert (config.cda, config.exclude, config.depth, config.max_file_bytes) == ("auto", ["legacy"], 3, 100000)
    assert config.extra_effects == {"acme.notify": "email"} and config.extra_statements == {"acme.sync": "write"}
    assert config.lint == {"select": ["TX1"]}
    assert set(KEYS) == {"cda", "exclude", "depth", "max-file-bytes", "cda-entities", "effects", "statements", "lint"}
    assert scan_json(tmp_path)["transactions"]


def test_typed_error_carries_key_and_path(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.txscan]\nexclude = "legacy"\n')
    with pytest.raises(ConfigError) as caught:
        load(tmp_path)
    assert (caught.value.key, caught.value.path, caught.value.got) == ("exclude", tmp_path / "pyproject.toml", "legacy")


def test_no_file_means_defaults(tmp_path):
    assert load(tmp_path) == Config()
