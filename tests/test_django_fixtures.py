"""One small Django app per front-end construct scans exactly as its expected.json says.

Each folder of tests/fixtures/django/ is a tiny application that exercises one construct
(a boundary form, an ORM call, a predicate shape, a model declaration, a call path, an
effect category or a kind of bad input) with firing and non-firing cases side by side.
Its expected.json is written by hand from docs/VERDICTS.md in the format of docs/SAMPLES.md.
"""

from __future__ import annotations

import pytest

from analyzer import config
from analyzer.scan import scan
from conftest import FIXTURES, load_expected, scan_cached
from expectations import differences

DJANGO_FIXTURES = sorted(p.parent for p in (FIXTURES / "django").glob("*/expected.json"))


def test_there_is_a_fixture_per_construct():
    assert len(DJANGO_FIXTURES) >= 40


@pytest.mark.parametrize("fixture", DJANGO_FIXTURES, ids=lambda p: p.name)
def test_django_fixture_matches_expected(fixture):
    if (fixture / "pyproject.toml").is_file():  # the fixture extends the catalogs in [tool.txscan]
        result = scan(fixture, config.load(fixture), "django")
    else:
        result = scan_cached(str(fixture), "django")
    problems = differences(result.analyses["pk"], load_expected(fixture))
    assert not problems, "\n".join(problems)


def test_project_catalog_entries_are_needed_for_unknown_library_calls():
    """Without its [tool.txscan] tables the same fixture sees neither the effect nor the read."""
    fixture = FIXTURES / "django" / "effect_libraries"
    plain = {t["function"]: t for t in scan_cached(str(fixture), "django").analyses["pk"]["transactions"]}
    extended = {t["function"]: t for t in scan(fixture, config.load(fixture), "django").analyses["pk"]["transactions"]}
    name = "docs.services.project_catalog"
    assert plain[name]["interactivity"] == "one-shot" and len(plain[name]["statements"]) == 1
    assert extended[name]["interactivity"] == "interactive-strict"
    assert [s["kind"] for s in extended[name]["statements"]] == ["write", "read"]


@pytest.mark.parametrize("table,text", [("statements", '"a.b" = "select"'), ("effects", '"a.b" = 3')])
def test_bad_catalog_entries_are_a_config_error(tmp_path, table, text):
    (tmp_path / "pyproject.toml").write_text(f"[tool.txscan.{table}]\n{text}\n")
    with pytest.raises(config.ConfigError, match=table):
        config.load(tmp_path)
