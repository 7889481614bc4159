"""One small Django app per front-end construct scans exactly as its expected.json says.

Each folder of tests/fixtures/django/ is a tiny application that exercises one construct
(a boundary form, an ORM call, a predicate shape, a model declaration, a call path, an
effect category or a kind of bad input) with firing and non-firing cases side by side.
Its expected.json is written by hand from docs/VERDICTS.md in the format of docs/SAMPLES.md.
"""

from __future__ import annotations

import pytest

from conftest import FIXTURES, load_expected, scan_cached
from expectations import differences

DJANGO_FIXTURES = sorted(p.parent for p in (FIXTURES / "django").glob("*/expected.json"))


def test_there_is_a_fixture_per_construct():
    assert len(DJANGO_FIXTURES) >= 40


@pytest.mark.parametrize("fixture", DJANGO_FIXTURES, ids=lambda p: p.name)
def test_django_fixture_matches_expected(fixture):
    result = scan_cached(str(fixture), "django")
    problems = differences(result.analyses["pk"], load_expected(fixture))
    assert not problems, "\n".join(problems)
