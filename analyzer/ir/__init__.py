"""The IR: the contract between front ends and the core (see docs/IR.md).

Records are plain JSON-ready dicts. This module writes them deterministically, reads them
back and validates them against `schema.json`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache

IR_VERSION = 1

_RECORD_ORDER = {"meta": 0, "entity": 1, "transaction": 2, "diagnostic": 3}


def diagnostic(file: str, line: int, code: str, message: str, severity: str = "error") -> dict:
    """A `diagnostic` record (docs/IR.md): what went wrong where, for a front end to report."""
    return {"ir": IR_VERSION, "type": "diagnostic", "file": file, "line": line, "code": code,
            "severity": severity, "message": message}


def sort_key(record: dict) -> tuple:
    """Canonical order of records in an IR file (docs/IR.md)."""
    kind = record["type"]
    if kind == "entity":
        detail: tuple = (record["name"],)
    elif kind == "transaction":
        # Autocommit statements (one per ORM call site) come after the explicit transactions.
        detail = (record["boundary"] == "autocommit", record["file"], record["line"], record["function"], record["id"])
    elif kind == "diagnostic":
        detail = (record["file"], record["line"], record["code"], record["message"])
    else:
        detail = ()
    return (_RECORD_ORDER[kind], detail)


def line(record: dict) -> str:
    """One record's canonical line (without its newline)."""
    return json.dumps(record, sort_keys=True, ensure_ascii=False)


def dumps(records: Iterable[dict], known: Mapping[int, tuple[dict, str]] | None = None) -> str:
    """Serialise records as canonical JSON lines (sorted records, sorted keys). `known`:
    id(record) -> (record, its line) of records read from their line (the warm cache), not
    encoded again."""
    ordered = sorted(records, key=sort_key)
    if not known:
        return "".join(line(r) + "\n" for r in ordered)
    out = []
    for r in ordered:
        hit = known.get(id(r))
        out.append((hit[1] if hit is not None and hit[0] is r else line(r)) + "\n")
    return "".join(out)


def loads(text: str, known: Mapping[int, tuple[dict, str]] | None = None) -> Iterator[dict]:
    """The records of an IR text. `known` (as for dumps): a line that is the line of one of these
    records gives that record, decoded from this very text before, instead of decoding it again."""
    by_line = {line: record for record, line in known.values()} if known else {}
    # Only "\n" ends a record: str.splitlines() would also split at U+2028 or U+0085 inside a
    # JSON string (a file name, a literal), which json.dumps leaves unescaped.
    for number, line in enumerate(text.split("\n"), 1):
        line = line.strip()
        if not line:
            continue
        record = by_line.pop(line, None) if by_line else None
        if record is not None and record.get("ir") == IR_VERSION:
            yield record
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"IR line {number} is not JSON: {exc}") from exc
        if record.get("ir") != IR_VERSION:
            raise ValueError(f"IR line {number}: unsupported IR version {record.get('ir')!r}")
        yield record


@lru_cache(maxsize=1)
def schema() -> dict:
    from importlib import resources  # (imported when the schema is read: a scan never reads it)

    return json.loads(resources.files(__package__).joinpath("schema.json").read_text("utf-8"))


def validation_errors(record: dict) -> list[str]:
    """Schema violations of one record (empty when valid). Needs the `jsonschema` package."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema())
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(record)]
