"""`--fix` and `--diff`: the verified rewrites of analyzer.rewrite for the findings whose rule has one.

Only rewrites the rewrite library verified (the result parses, names real fields, and
re-analysis confirmed the claim) are used; a rewrite is matched to a finding by kind, file and
line; rewrites whose edits overlap ones already chosen are left for the next run.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from .model import Finding
from .rules import REGISTRY
from .runner import LintOutcome


@dataclass
class FixPlan:
    texts: dict[str, tuple[str, str]] = field(default_factory=dict)   # path -> (old text, new text)
    fixed: list[Finding] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)

    @property
    def changed(self) -> list[str]:
        return sorted(p for p, (old, new) in self.texts.items() if old != new)


def plan(outcome: LintOutcome) -> FixPlan:
    from ..rewrite import apply, rewrites_for

    ctx = outcome.context
    result = FixPlan()
    candidates = [f for f in outcome.findings if REGISTRY[f.code].fixable and f.transaction]
    cache: dict[str, list] = {}
    chosen: dict[str, list] = {}
    for finding in candidates:
        if finding.transaction not in cache:
            cache[finding.transaction] = rewrites_for(ctx.root, ctx.result, finding.transaction)
        kinds = REGISTRY[finding.code].fix_kinds
        for rewrite in cache[finding.transaction]:
            if not rewrite.verified or rewrite.kind not in kinds or rewrite.step_line != finding.location.line:
                continue
            if not any(edit.path == finding.location.path for edit in rewrite.edits):
                continue
            if any(_overlaps(edit, other) for edit in rewrite.edits for other in chosen.get(edit.path, [])):
                continue
            for edit in rewrite.edits:
                chosen.setdefault(edit.path, []).append(edit)
            result.fixed.append(finding)
            result.titles.append(f"{finding.location.path}:{finding.location.line}: {finding.code} {rewrite.title}")
            break
    for path, edits in sorted(chosen.items()):
        old = (ctx.root / path).read_text("utf-8")
        result.texts[path] = (old, apply(old, edits))
    return result


def _overlaps(a, b) -> bool:
    return a.start < b.end and b.start < a.end or (a.start == b.start)


def unified_diff(fix_plan: FixPlan) -> str:
    out = []
    for path in fix_plan.changed:
        old, new = fix_plan.texts[path]
        out.extend(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=f"a/{path}", tofile=f"b/{path}"))
    return "".join(out)


def write(outcome: LintOutcome, fix_plan: FixPlan) -> None:
    for path in fix_plan.changed:
        (outcome.root / path).write_text(fix_plan.texts[path][1], encoding="utf-8")
