"""Rule docs are generated from the rules: docs/rules/ must match, and every rule is documented."""

from __future__ import annotations

from pathlib import Path

from analyzer.lint import docs
from analyzer.lint.rules import REGISTRY

REPO = Path(__file__).resolve().parents[2]


def test_docs_rules_is_up_to_date():
    stale = docs.stale(REPO / "docs" / "rules")
    assert not stale, f"stale: {stale}; run `python -m analyzer.lint.docs`"


def test_stale_docs_are_detected(tmp_path):
    docs.write(tmp_path)
    assert docs.stale(tmp_path) == []
    (tmp_path / "lost-update.md").write_text("edited by hand\n", encoding="utf-8")
    (tmp_path / "old-rule.md").write_text("removed rule\n", encoding="utf-8")
    assert docs.stale(tmp_path) == ["lost-update.md", "old-rule.md"]


def test_registry_codes_and_names():
    for code, rule in REGISTRY.items():
        assert code == rule.code and len(code) == 5 and code.startswith("TX")
        assert rule.name == rule.name.lower() and " " not in rule.name
        module = REPO / "analyzer" / "lint" / "rules" / f"{rule.module_name}.py"
        assert module.is_file(), f"{code} must live in rules/{rule.module_name}.py"
        for section in ("what", "why", "example", "use_instead", "fix"):
            assert getattr(rule.doc, section).strip(), f"{code} has no {section}"
        if not rule.enabled_by_default:
            assert rule.doc.default_reason, f"{code} is off by default and must say why"
    assert len({r.name for r in REGISTRY.values()}) == len(REGISTRY)
