"""Interactivity of one transaction (docs/VERDICTS.md, "Interactivity")."""

from __future__ import annotations

from .flatten import FlatStep
from .graph import Dependencies

ONE_SHOT = "one-shot"
NONSTRICT = "interactive-nonstrict"
STRICT = "interactive-strict"


def _pattern(edge_kind: str, source_step: dict) -> str:
    from_insert = source_step.get("node") == "statement" and source_step.get("kind") == "insert"
    if edge_kind == "control-branch":
        return "conditional"
    if edge_kind == "control-loop":
        return "loop-over-results"
    if from_insert:
        return "generated-key"
    return "dependent-key" if edge_kind == "data-key" else "read-modify-write"


def effect_reasons(flat: list[FlatStep]) -> list[dict] | None:
    """The reasons of a transaction with an effect, strictly interactive whatever its
    dependencies are (sorted, one per effect site); None when it has no effect."""
    effects = [fs.step for fs in flat if fs.node == "effect"]
    if not effects:
        return None
    reasons = {
        (e["category"], e["callee"], e["file"], e["line"]): {
            "category": e["category"], "callee": e["callee"], "file": e["file"], "line": e["line"],
            # the way from the transaction to the library call (dispatch candidates, where
            # an effect moved to its dispatch call is written: ts-plugin/src/effect-sites.ts)
            "via": e.get("via", []),
        }
        for e in effects
    }
    return [reasons[k] for k in sorted(reasons)]


def classify(flat: list[FlatStep], deps: Dependencies) -> tuple[str, list[dict]]:
    """Return (verdict, reasons). Reasons are sorted and deduplicated, one per cause."""
    strict = effect_reasons(flat)
    if strict is not None:
        return STRICT, strict

    reasons: dict[tuple, dict] = {}
    steps = deps.steps
    for dst, sources in deps.into.items():
        target_step = steps[dst]
        if target_step.get("node") != "statement":
            continue
        for src, kinds in sources.items():
            source_step = steps[src]
            if source_step.get("node") != "statement":
                continue
            for kind in sorted(kinds):
                category = _pattern(kind, source_step)
                key = (category, target_step["file"], target_step["line"], src, dst)
                reasons[key] = {
                    "category": category,
                    "callee": target_step.get("api", ""),
                    "file": target_step["file"],
                    "line": target_step["line"],
                    "depends_on": src,
                    "statement": dst,
                }
    if reasons:
        return NONSTRICT, [reasons[k] for k in sorted(reasons)]
    return ONE_SHOT, []
