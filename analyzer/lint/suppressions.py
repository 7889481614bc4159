"""Inline suppressions, and which of them were used.

Python: `# noqa: TX101[, TX102]` (ruff users add `lint.external = ["TX"]`) and
`# txscan: ignore[TX101, TX102]` on the finding's line. TypeScript: a trailing
`// txscan-ignore TX101` on the line, or `// txscan-ignore-next-line TX101` on the line before.
Only TX codes count: a `# noqa: E501` is someone else's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .model import Finding, Location

_CODE = r"TX\d{3}"
_PY_NOQA = re.compile(r"#\s*noqa\s*:\s*((?:[A-Z]+\d+[\s,]*)+)", re.IGNORECASE)
_PY_IGNORE = re.compile(r"#\s*txscan\s*:\s*ignore\[([^\]]*)\]")
_TS_SAME = re.compile(r"//\s*txscan-ignore(?!-next-line)\s+((?:TX\d+[\s,]*)+)")
_TS_NEXT = re.compile(r"//\s*txscan-ignore-next-line\s+((?:TX\d+[\s,]*)+)")


@dataclass
class Suppression:
    path: str
    comment_line: int        # where the comment is
    target_line: int         # the line it silences
    col: int
    codes: tuple[str, ...]
    used: set[str] = field(default_factory=set)


def _codes(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(c.upper() for c in re.findall(r"[A-Za-z]+\d+", text) if re.fullmatch(_CODE, c.upper())))


def parse(path: str, lines: list[str]) -> list[Suppression]:
    out = []
    python = path.endswith(".py")
    for number, text in enumerate(lines, 1):
        if python:
            if "#" not in text:
                continue
            patterns = ((_PY_NOQA, 0), (_PY_IGNORE, 0))
        else:
            if "txscan-ignore" not in text:
                continue
            patterns = ((_TS_SAME, 0), (_TS_NEXT, 1))
        for pattern, offset in patterns:
            match = pattern.search(text)
            if match:
                codes = _codes(match.group(1))
                if codes:
                    out.append(Suppression(path, number, number + offset, match.start() + 1, codes))
    return out


class Suppressions:
    def __init__(self, lines_of):
        self._lines_of = lines_of
        self._by_file: dict[str, list[Suppression]] = {}

    def of(self, path: str) -> list[Suppression]:
        if path not in self._by_file:
            self._by_file[path] = parse(path, self._lines_of(path))
        return self._by_file[path]

    def silences(self, finding: Finding) -> bool:
        hit = False
        for s in self.of(finding.location.path):
            if s.target_line == finding.location.line and finding.code in s.codes:
                s.used.add(finding.code)
                hit = True
        return hit

    def unused(self, paths: list[str], known: set[str], enabled_for) -> list[Finding]:
        """TX900 findings: codes that do not exist, or enabled rules that matched nothing there."""
        out = []
        for path in paths:
            for s in self.of(path):
                unknown = [c for c in s.codes if c not in known]
                stale = [c for c in s.codes if c in known and c not in s.used and c in enabled_for(path)]
                if unknown:
                    out.append(Finding("TX900", Location(path, s.comment_line, s.col),
                                       f"suppression names unknown rule code {', '.join(unknown)}",
                                       fix="Remove the unknown code from the comment."))
                if stale:
                    out.append(Finding("TX900", Location(path, s.comment_line, s.col),
                                       f"unused suppression: {', '.join(stale)} reports nothing on line {s.target_line}",
                                       fix="Remove the stale code from the comment."))
        return out
