"""The baseline: known findings, recorded once, that later runs do not report again.

Keyed by rule, path, enclosing function and a hash of the finding's line with whitespace
removed: moving code up or down, or re-indenting it, keeps the key; editing the line makes the
finding new again. Several identical keys are counted, so a second copy of a flagged line is new.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

from .model import Finding

VERSION = 1


class BaselineError(Exception):
    pass


def code_hash(line_text: str) -> str:
    return hashlib.sha256("".join(line_text.split()).encode("utf-8")).hexdigest()[:16]


def key(finding: Finding, line_text: str) -> tuple[str, str, str, str]:
    return (finding.code, finding.location.path, finding.function, code_hash(line_text))


def dumps(keys: list[tuple[str, str, str, str]]) -> str:
    entries = [{"rule": r, "path": p, "function": f, "code_hash": h, "count": n}
               for (r, p, f, h), n in sorted(Counter(keys).items())]
    return json.dumps({"txscan_baseline": VERSION, "findings": entries}, indent=2, sort_keys=True) + "\n"


def load(path: Path) -> Counter:
    try:
        data = json.loads(path.read_text("utf-8"))
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read the baseline: {exc.strerror}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BaselineError(f"{path}: not a txscan baseline (invalid JSON)") from exc
    if not isinstance(data, dict) or data.get("txscan_baseline") != VERSION or not isinstance(data.get("findings"), list):
        raise BaselineError(f"{path}: not a txscan baseline (version {VERSION})")
    out: Counter = Counter()
    try:
        for e in data["findings"]:
            out[(e["rule"], e["path"], e["function"], e["code_hash"])] += int(e.get("count", 1))
    except (KeyError, TypeError, ValueError) as exc:
        raise BaselineError(f"{path}: malformed baseline entry") from exc
    return out
