"""What a lint rule is, and what it reports: rules, their docs, findings and locations."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Location:
    path: str          # relative to the project root, "/" separators
    line: int          # 1-based
    col: int = 1       # 1-based
    label: str = ""    # what happens here (for call chains and related locations)


@dataclass(frozen=True)
class Finding:
    code: str
    location: Location
    message: str
    function: str = ""                       # enclosing function (qualified name), for the baseline
    boundary: Location | None = None         # the transaction's boundary, when about a transaction
    chain: tuple[Location, ...] = ()         # from the boundary to the offending call
    fix: str = ""                            # how to fix it, in prose or code
    transaction: str = ""                    # transaction id (file:line) for --fix

    @property
    def sort_key(self) -> tuple:
        loc = self.location
        return (loc.path, loc.line, loc.col, self.code, self.message)


@dataclass(frozen=True)
class RuleDoc:
    what: str            # What it does
    why: str             # Why is this bad?
    example: str         # code that fires
    use_instead: str     # code that does not
    fix: str             # how to fix (and whether --fix can)
    language: str = "python"   # of the example code blocks
    example_typeorm: str = ""
    use_instead_typeorm: str = ""
    default_reason: str = ""   # why the rule is off by default, when it is


@dataclass(frozen=True)
class Rule:
    code: str                   # TXnnn, never reused
    name: str                   # kebab-case, the file and doc name
    summary: str                # one line
    doc: RuleDoc
    check: Callable[..., Iterable[Finding]]
    frontends: tuple[str, ...] = ("django", "typeorm")
    enabled_by_default: bool = True
    precision: str = "high"     # SARIF precision: very-high, high, medium, low
    level: str = "warning"      # SARIF default level: error, warning, note
    tags: tuple[str, ...] = field(default_factory=tuple)
    fix_kinds: tuple[str, ...] = ()   # kinds of analyzer.rewrite rewrites that --fix may apply for it

    @property
    def fixable(self) -> bool:
        return bool(self.fix_kinds)

    @property
    def module_name(self) -> str:
        return self.name.replace("-", "_")
