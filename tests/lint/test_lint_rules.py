"""Every rule against its fixtures, the way typescript-eslint's RuleTester and ruff's fixtures work.

tests/lint/fixtures/<rule-name>/{django,typeorm}/ is a small project whose lines carry their
expectations: `# error: TX101` where the rule must report (on that line), `# ok: TX101` on
code it must leave alone. The rule runs alone (`--select` its code) on the whole project.
"""

from __future__ import annotations

import pytest
from lintkit import FIXTURES, expectations, lint

from analyzer.lint.rules import REGISTRY, by_name

# Unused suppressions are judged for enabled rules only: the fixture's suppressions name TX101.
ALSO_SELECTED = {"unused-suppression": ("TX101",)}
CASES = sorted(p for p in FIXTURES.glob("*/*") if p.is_dir() and p.name in ("django", "typeorm"))


def test_every_rule_has_fixtures_for_each_front_end_it_supports():
    present = {(p.parent.name, p.name) for p in CASES}
    missing = [(rule.name, fe) for rule in REGISTRY.values() for fe in rule.frontends if (rule.name, fe) not in present]
    assert not missing


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_rule_fixture(case):
    rule = by_name(case.parent.name)
    assert rule is not None, f"no rule named {case.parent.name}"
    errors, oks = expectations(case)
    assert errors, "a fixture needs invalid cases (# error: ...)"
    assert oks, "a fixture needs valid cases (# ok: ...)"
    outcome = lint(case, select=(rule.code, *ALSO_SELECTED.get(rule.name, ())))
    reported = {(f.location.path, f.location.line, f.code) for f in outcome.findings if f.code == rule.code}
    assert not (reported & oks), f"reported on valid lines: {sorted(reported & oks)}"
    assert reported == errors, f"missing {sorted(errors - reported)}, unexpected {sorted(reported - errors)}"
