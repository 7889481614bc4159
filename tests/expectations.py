"""Compare a scan with an expected.json (format: docs/SAMPLES.md) and explain every difference."""

from __future__ import annotations

from collections import Counter


def _statement_key(s: dict) -> tuple:
    return (s["file"], s["line"], s.get("entity"), s["kind"], s["inferability"])


AUTOCOMMIT = "autocommit"


def _column(txn: dict) -> int:
    return int(txn["id"].rsplit(":", 2)[-2])


def _unmatched(found: dict, wanted: dict, what: str) -> list[str]:
    """Expected and not found, found and not expected (keys are file, line[, column])."""
    missing = [f"missing {what} {':'.join(map(str, k))} ({wanted[k].get('function')})"
               for k in sorted(wanted.keys() - found.keys())]
    return missing + [f"unexpected {what} {':'.join(map(str, k))} ({found[k]['function']}, {found[k]['boundary']})"
                      for k in sorted(found.keys() - wanted.keys())]


def _fields(where: str, want: dict, got: dict, fields: tuple[str, ...]) -> list[str]:
    return [f"{where}: {f} is {got[f]!r}, expected {want[f]!r}" for f in fields if f in want and want[f] != got[f]]


def autocommit_differences(analysis: dict, expected: dict) -> list[str]:
    """Autocommit statements (one per ORM call site outside explicit transactions), matched on
    file, line and column; compared only when expected.json lists them (`"autocommit": [...]`)."""
    if AUTOCOMMIT not in expected:
        return []
    problems = []
    found = {(t["file"], t["line"], _column(t)): t for t in analysis["transactions"] if t["boundary"] == AUTOCOMMIT}
    wanted = {(t["file"], t["line"], t["column"]): t for t in expected[AUTOCOMMIT]}
    problems += _unmatched(found, wanted, "autocommit statement")
    for key in sorted(wanted.keys() & found.keys()):
        want, got = wanted[key], found[key]
        where = f"autocommit {':'.join(map(str, key))}"
        if got["interactivity"] != "one-shot" or got["suggestions"]:
            problems.append(f"{where}: {got['interactivity']} with {len(got['suggestions'])} suggestions")
        problems += _fields(where, want, got, ("function", "rw_inferable"))
        got_statements = sorted(_statement_key(s) for s in got["statements"])
        if "statements" in want and sorted(_statement_key(s) for s in want["statements"]) != got_statements:
            problems.append(f"{where}: statements are {got_statements}")
    return problems


def differences(analysis: dict, expected: dict) -> list[str]:
    problems: list[str] = autocommit_differences(analysis, expected)
    found = {(t["file"], t["line"]): t for t in analysis["transactions"] if t["boundary"] != AUTOCOMMIT}
    wanted = {(t["file"], t["line"]): t for t in expected.get("transactions", [])}
    problems += _unmatched(found, wanted, "transaction")
    for key in sorted(wanted.keys() & found.keys()):
        want, got = wanted[key], found[key]
        where = f"{key[0]}:{key[1]} {want.get('function', '')}"
        problems += _fields(where, want, got, ("function", "boundary", "interactivity", "rw_inferable", "complete"))
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
