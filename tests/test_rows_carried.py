"""The rows an instance's values carry out (summaries.rows_carried): an instance that allocated
no step is not searched, and must get what searching its values gives."""

from __future__ import annotations

import pytest

from analyzer.config import Config
from analyzer.django import summaries
from analyzer.django.values import Val
from analyzer.scan import scan
from conftest import SAMPLES, django_projects, record_calls

@pytest.mark.parametrize("project", django_projects(), ids=lambda p: p.name)
def test_rows_carried_equals_searching_the_values(project, monkeypatch):
    for values, base, end, found in record_calls(monkeypatch, summaries, "rows_carried", [project]):
        assert found == summaries._rows_searched(values, base, end)


def test_the_samples_instances_mostly_allocate_no_step(monkeypatch):
    ends: list[bool] = []
    original = summaries.rows_carried
    monkeypatch.setattr(summaries, "rows_carried",
                        lambda values, base, end: ends.append(base == end) or original(values, base, end))
    scan(SAMPLES / "django" / "shop", Config(), "django", rewrites=False)
    assert any(ends) and not all(ends)


def test_a_row_from_before_the_instance_is_not_its_own():
    before = Val("instance", frozenset({("result", "s2")}), entity="Account", origin="s2")
    own = Val("instance", frozenset({("result", "s7")}), entity="Account", origin="s7")
    assert summaries.rows_carried((before, None), 5, 5) == frozenset() == summaries._rows_searched((before, None), 5, 5)
    assert summaries.rows_carried((before, own), 5, 8) == frozenset({"s7"})
