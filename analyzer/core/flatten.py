"""Flatten a transaction's structured steps into execution order, with control context.

Branches and loops are kept in the IR; the rules want a flat list in which each step knows
the sources that decide whether (and how often) it runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEPENDENT_KINDS = ("result", "generated", "external")


@dataclass
class FlatStep:
    step: dict
    # (structure kind, sources) of every enclosing branch/loop, outermost first.
    controls: list[tuple[str, list[dict]]] = field(default_factory=list)

    @property
    def id(self) -> str | None:
        return self.step.get("id")

    @property
    def node(self) -> str:
        return self.step["node"]


def flatten(steps: list[dict]) -> list[FlatStep]:
    out: list[FlatStep] = []
    _walk(steps, [], out)
    return out


def _walk(steps: list[dict], controls: list, out: list[FlatStep]) -> None:
    for step in steps:
        node = step["node"]
        if node == "branch":
            inner = controls + [("branch", step.get("uses", []))]
            for arm in step.get("arms", []):
                _walk(arm, inner, out)
        elif node == "loop":
            _walk(step.get("body", []), controls + [("loop", step.get("uses", []))], out)
        else:
            out.append(FlatStep(step, list(controls)))


def predicate_terms(predicate: dict | None) -> list[dict]:
    """All terms of a predicate tree, depth first."""
    if not predicate:
        return []
    if "bool" in predicate:
        terms: list[dict] = []
        for arg in predicate["args"]:
            terms.extend(predicate_terms(arg))
        return terms
    return [predicate]


def dependent_steps(sources: list[dict]) -> list[str]:
    return [s["step"] for s in sources if s["kind"] in DEPENDENT_KINDS and "step" in s]
