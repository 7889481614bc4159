"""Compare a scan with an expected.json (format: docs/SAMPLES.md) and explain every difference."""

from __future__ import annotations

from collections import Counter


def _statement_key(s: dict) -> tuple:
    return (s["file"], s["line"], s.get("entity"), s["kind"], s["inferability"])


def differences(analysis: dict, expected: dict) -> list[str]:
    problems: list[str] = []
    found = {(t["file"], t["line"]): t for t in analysis["transactions"]}
    wanted = {(t["file"], t["line"]): t for t in expected.get("transactions", [])}
    for key in sorted(wanted.keys() - found.keys()):
        problems.append(f"missing transaction {key[0]}:{key[1]} ({wanted[key].get('function')})")
    for key in sorted(found.keys() - wanted.keys()):
        problems.append(f"unexpected transaction {key[0]}:{key[1]} ({found[key]['function']}, {found[key]['boundary']})")
    for key in sorted(wanted.keys() & found.keys()):
        want, got = wanted[key], found[key]
        where = f"{key[0]}:{key[1]} {want.get('function', '')}"
        for field in ("function", "boundary", "interactivity", "rw_inferable", "complete"):
            if field in want and want[field] != got[field]:
                problems.append(f"{where}: {field} is {got[field]!r}, expected {want[field]!r}")
        if "reasons" in want:
            got_reasons = sorted({r["category"] for r in got["reasons"]})
            if sorted(set(want["reasons"])) != got_reasons:
                problems.append(f"{where}: reasons are {got_reasons}, expected {sorted(set(want['reasons']))}")
        if "incomplete" in want:
            got_sites = sorted((i["file"], i["line"], i["reason"]) for i in got.get("incomplete", []))
            want_sites = sorted((i["file"], i["line"], i["reason"]) for i in want["incomplete"])
            if got_sites != want_sites:
                problems.append(f"{where}: incomplete sites are {got_sites}, expected {want_sites}")
        if "statements" in want:
            got_statements = Counter(_statement_key(s) for s in got["statements"])
            want_statements = Counter(_statement_key(s) for s in want["statements"])
            for extra in sorted((got_statements - want_statements).elements(), key=str):
                problems.append(f"{where}: unexpected statement {extra}")
            for missing in sorted((want_statements - got_statements).elements(), key=str):
                problems.append(f"{where}: missing statement {missing}")
    entities = {e["name"]: e for e in analysis["entities"] if not e["abstract"]}
    for want in expected.get("entities", []):
        got = entities.get(want["name"])
        if got is None:
            problems.append(f"missing entity {want['name']}")
            continue
        if "pk" in want and sorted(want["pk"]) != sorted(got["pk"]):
            problems.append(f"entity {want['name']}: pk {got['pk']}, expected {want['pk']}")
        if "unique" in want:
            got_unique = sorted(sorted(u) for u in got["unique"])
            want_unique = sorted(sorted(u) for u in want["unique"])
            if got_unique != want_unique:
                problems.append(f"entity {want['name']}: unique {got_unique}, expected {want_unique}")
    reported = {(d["file"], d["code"]) for d in analysis["diagnostics"]}
    for want in expected.get("diagnostics", []):
        if (want["file"], want["code"]) not in reported:
            problems.append(f"missing diagnostic {want['code']} in {want['file']}")
    return problems
