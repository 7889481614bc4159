"""Every suggestion `scan` prints for the bundled samples is either code from a verified rewrite
or prose saying why there is no code; every verified rewrite parses once applied."""

from __future__ import annotations

import pytest

from analyzer.config import Config
from analyzer.rewrite import apply, checks, typescript_syntax, verified_candidates
from analyzer.rewrite.edits import edits_by_path
from conftest import SAMPLES, scan_cached

DJANGO = ["shop", "ledger", "forum"]
TYPEORM = ["nest-shop", "express-ledger"]
# Verified rewrites per sample and kind (the rest of the suggestions are prose).
EXPECTED_VERIFIED = {
    "shop": {"on-commit": 8},  # with api.replace_picture: the old file deleted after commit (its save() stays)
    "ledger": {"on-commit": 2},
    "forum": {"on-commit": 3},
    "nest-shop": {"ts-manager": 1},
    "express-ledger": {"ts-manager": 2},
}


def _folder(name: str):
    return SAMPLES / ("django" if name in DJANGO else "typeorm") / name


@pytest.mark.parametrize("name", DJANGO + TYPEORM)
def test_every_suggestion_is_verified_code_or_prose(name):
    result = scan_cached(str(_folder(name)))
    suggestions = [s for a in result.analyses.values() for t in a["transactions"] for s in t["suggestions"]]
    assert suggestions
    for s in suggestions:
        if s["code"]:
            assert s["verified"] and s["claim"] and not s["claim"].startswith("no code shown")
            assert "..." not in s["code"] and "/*" not in s["code"]
        else:
            assert not s["verified"] and not s["makes_one_shot"] and not s["makes_inferable"]
            assert s["claim"].startswith("no code shown: ") and s["explanation"]


@pytest.mark.parametrize("name", DJANGO + TYPEORM)
def test_verified_rewrites_apply_and_parse(name):
    root = _folder(name)
    result = scan_cached(str(root))
    counts: dict[str, int] = {}
    for candidate in verified_candidates(root, result, Config()):
        if candidate.rewrite is None:
            assert candidate.refused
            continue
        assert candidate.rewrite.verified, candidate.refused
        counts[candidate.rewrite.kind] = counts.get(candidate.rewrite.kind, 0) + 1
        for path, edits in edits_by_path(candidate.rewrite.edits).items():
            text = apply((root / path).read_text("utf-8"), edits)
            if path.endswith(".py"):
                assert checks.python_parses(path, text) is None
            else:
                assert typescript_syntax.parse_errors(path, text) == []
    assert counts == EXPECTED_VERIFIED[name]


def test_rewrites_for_returns_what_the_scan_verified():
    from analyzer.rewrite import rewrites_for

    root = _folder("express-ledger")
    result = scan_cached(str(root))
    assert result.rewrites  # verified during the scan: rewrites_for does not scan again
    [rewrite] = rewrites_for(root, result, "src/services/legacy-admin.ts:15")
    assert rewrite.kind == "ts-manager" and rewrite.verified
    text = (root / "src/services/legacy-admin.ts").read_text("utf-8")
    assert "const existing = await m.findOneBy(Webhook, { owner, event });" in apply(text, rewrite.edits)
