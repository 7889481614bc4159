"""Shared test vectors: the same small program in Django and in TypeORM gives the same verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import scan_cached

VECTORS = sorted(p.parent for p in (Path(__file__).parent / "vectors").glob("*/expected.json"))


def verdicts(folder: Path, frontend: str) -> list[dict]:
    analysis = scan_cached(str(folder), frontend).analyses["pk"]
    out = []
    for txn in analysis["transactions"]:
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


@pytest.mark.parametrize("vector", VECTORS, ids=lambda p: p.name)
@pytest.mark.parametrize("frontend", ["django", "typeorm"])
def test_vector(vector, frontend):
    expected = json.loads((vector / "expected.json").read_text())["transactions"]
    found = verdicts(vector / frontend, frontend)
    assert len(found) == len(expected), found
    for want, got in zip(expected, sorted(found, key=lambda t: [w["function_suffix"] for w in expected].index(
            next((w["function_suffix"] for w in expected if t["function"].endswith(w["function_suffix"])),
                 expected[0]["function_suffix"])))):
        assert got["function"].endswith(want["function_suffix"]), (got["function"], want["function_suffix"])
        for field in ("interactivity", "rw_inferable", "statements"):
            assert got[field] == want[field], (field, got)
        assert got["reasons"] == sorted(want["reasons"]), got
