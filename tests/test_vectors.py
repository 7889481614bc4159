"""Shared test vectors: the same small program in Django and in TypeORM gives the same verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import scan_cached

VECTORS = sorted(p.parent for p in (Path(__file__).parent / "vectors").glob("*/expected.json"))


PLUGIN = Path(__file__).parents[1] / "analyzer" / "typeorm" / "_plugin" / "dist"


def verdicts(folder: Path, frontend: str, autocommit: bool = False) -> list[dict]:
    """Explicit transactions, or (autocommit=True) the autocommit statements."""
    analysis = scan_cached(str(folder), frontend).analyses["pk"]
    out = []
    for txn in analysis["transactions"]:
        if (txn["boundary"] == "autocommit") != autocommit:
            continue
        out.append({
            "function": txn["function"],
            "interactivity": txn["interactivity"],
            "reasons": sorted({r["category"] for r in txn["reasons"]}),
            "rw_inferable": txn["rw_inferable"],
            "statements": [{k: s[k] for k in ("entity", "kind", "inferability")} for s in txn["statements"]],
        })
    return out


def test_there_are_enough_vectors():
    assert len(VECTORS) >= 6


def _typescript_reports_autocommit() -> bool:
    """Whether the bundled TypeScript front end emits autocommit statements at all (it gains them
    separately from the Django one; until then the cross-ORM comparison of them is skipped)."""
    return any("autocommit" in path.read_text("utf-8") for path in PLUGIN.glob("*.js"))


@pytest.mark.parametrize("vector", VECTORS, ids=lambda p: p.name)
@pytest.mark.parametrize("frontend", ["django", "typeorm"])
@pytest.mark.parametrize("scope", ["transactions", "autocommit"])
def test_vector(vector, frontend, scope):
    expected = json.loads((vector / "expected.json").read_text()).get(scope, [])
    if scope == "autocommit" and frontend == "typeorm" and not _typescript_reports_autocommit():
        pytest.skip("the TypeScript front end does not report autocommit statements yet")
    found = verdicts(vector / frontend, frontend, autocommit=scope == "autocommit")
    if not expected:
        assert found == [], found
        return
    assert len(found) == len(expected), found
    for want, got in zip(expected, sorted(found, key=lambda t: [w["function_suffix"] for w in expected].index(
            next((w["function_suffix"] for w in expected if t["function"].endswith(w["function_suffix"])),
                 expected[0]["function_suffix"])))):
        assert got["function"].endswith(want["function_suffix"]), (got["function"], want["function_suffix"])
        for field in ("interactivity", "rw_inferable", "statements"):
            assert got[field] == want[field], (field, got)
        assert got["reasons"] == sorted(want["reasons"]), got
