"""What every format shares: display paths, colour, fingerprints."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..baseline import code_hash
from ..model import Finding, Location
from ..runner import LintOutcome


def display_path(outcome: LintOutcome, path: str, cwd: Path | None = None) -> str:
    """A path as the user typed it: relative to the working folder (ruff prints them so)."""
    cwd = cwd or Path.cwd()
    return os.path.relpath(outcome.root / path, cwd).replace(os.sep, "/")


def use_colour(stream=None) -> bool:
    stream = stream or sys.stdout
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()


class Paint:
    def __init__(self, enabled: bool):
        self.enabled = enabled

    def __call__(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text

    def bold(self, text: str) -> str:
        return self(text, "1")

    def red(self, text: str) -> str:
        return self(text, "1;31")

    def cyan(self, text: str) -> str:
        return self(text, "36")

    def dim(self, text: str) -> str:
        return self(text, "2")


def fingerprints(outcome: LintOutcome) -> list[str]:
    """`primaryLocationLineHash` per finding: the hash of its line's code, and which occurrence it is."""
    seen: dict[tuple[str, str], int] = {}
    out = []
    for finding in outcome.findings:
        digest = code_hash(line_text(outcome, finding.location))
        seen[(finding.location.path, digest)] = seen.get((finding.location.path, digest), 0) + 1
        out.append(f"{digest}:{seen[(finding.location.path, digest)]}")
    return out


def line_text(outcome: LintOutcome, location: Location) -> str:
    return outcome.context.line_text(location.path, location.line) if outcome.context else ""


def summary_line(outcome: LintOutcome) -> str:
    n = len(outcome.findings)
    extra = []
    if outcome.suppressed:
        extra.append(f"{outcome.suppressed} suppressed")
    if outcome.baselined:
        extra.append(f"{outcome.baselined} in the baseline")
    tail = f" ({', '.join(extra)})" if extra else ""
    if not n:
        return f"All checks passed!{tail}"
    return f"Found {n} finding{'s' if n != 1 else ''}{tail}."


def rule_of(finding: Finding):
    from ..rules import REGISTRY
    return REGISTRY[finding.code]
