"""The bundled sample applications scan exactly as their expected.json says."""

from __future__ import annotations

import pytest

from conftest import load_expected, sample_apps, scan_cached
from expectations import differences

DJANGO_APPS = sample_apps("django")
TYPEORM_APPS = sample_apps("typeorm")


def test_there_are_django_samples_with_enough_transactions():
    assert len(DJANGO_APPS) >= 3
    total = sum(len(load_expected(app)["transactions"]) for app in DJANGO_APPS)
    assert total >= 50


@pytest.mark.parametrize("app", DJANGO_APPS, ids=lambda p: p.name)
def test_django_sample_matches_expected(app):
    result = scan_cached(str(app), "django")
    problems = differences(result.analyses["pk"], load_expected(app))
    assert not problems, "\n".join(problems)


def test_there_are_typeorm_samples_with_enough_transactions():
    assert len(TYPEORM_APPS) >= 2
    assert sum(len(load_expected(app)["transactions"]) for app in TYPEORM_APPS) >= 40


@pytest.mark.parametrize("app", TYPEORM_APPS, ids=lambda p: p.name)
def test_typeorm_sample_matches_expected(app):
    result = scan_cached(str(app), "typeorm")
    problems = differences(result.analyses["pk"], load_expected(app))
    assert not problems, "\n".join(problems)
