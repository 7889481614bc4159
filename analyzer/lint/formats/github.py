"""`--format github`: workflow commands that annotate the pull request, plus a step summary.

`::warning file=…,line=…,col=…,title=TX101::message` per finding (error and note rules use
`::error` and `::notice`); when `GITHUB_STEP_SUMMARY` names a file, a Markdown table of the
findings is appended to it (GitHub shows it on the run's page).
"""

from __future__ import annotations

import os
from collections import Counter

from .common import display_path, rule_of, summary_line

_COMMAND = {"error": "error", "warning": "warning", "note": "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(outcome, stream, colour: bool) -> None:
    for f in outcome.findings:
        rule = rule_of(f)
        loc = f.location
        props = (f"file={_escape_property(display_path(outcome, loc.path))},line={loc.line},col={loc.col},"
                 f"title={_escape_property(f.code + ' ' + rule.name)}")
        stream.write(f"::{_COMMAND[rule.level]} {props}::{_escape_data(f.code + ' ' + f.message)}\n")
    for note in outcome.notes:
        stream.write(f"::notice title=txscan::{_escape_data(note)}\n")
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary_file:
        with open(summary_file, "a", encoding="utf-8") as handle:
            handle.write(step_summary(outcome))


def step_summary(outcome) -> str:
    lines = ["## txscan lint", "", summary_line(outcome), ""]
    if outcome.findings:
        counts = Counter(f.code for f in outcome.findings)
        lines += ["| rule | findings |", "|---|---:|"]
        lines += [f"| {code} {rule_of_code(code)} | {n} |" for code, n in sorted(counts.items())]
        lines += ["", "| location | rule | message |", "|---|---|---|"]
        for f in outcome.findings:
            loc = f.location
            message = f.message.replace("|", "\\|")
            lines.append(f"| `{display_path(outcome, loc.path)}:{loc.line}:{loc.col}` | {f.code} | {message} |")
    for note in outcome.notes:
        lines.append(f"\n> note: {note}")
    return "\n".join(lines) + "\n\n"


def rule_of_code(code: str) -> str:
    from ..rules import REGISTRY
    return REGISTRY[code].name
