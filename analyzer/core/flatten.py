"""Flatten a transaction's structured steps into execution order, with control context.

Branches and loops are kept in the IR; the rules want a flat list in which each step knows
the sources that decide whether (and how often) it runs.

A `repeat` step (docs/IR.md) stands for the steps of an earlier instance of the same call, run
again where the repeat is. It stays one flat step; `repeated_steps` says which steps it stands
for and `occurrences` how many times each step runs counting repeats, so that the core decides
as it would on the copies without expanding them (the number of copies can be exponential).
"""

from __future__ import annotations

from dataclasses import dataclass

DEPENDENT_KINDS = ("result", "generated", "external")


class Scope:
    """One branch or loop around steps: its kind, the sources of its condition, the scope around
    it. Steps under the same scope share it, so a deep nest costs one object per branch, not a
    copy of the whole nest per step."""

    __slots__ = ("parent", "structure", "sources", "depth", "merged")

    def __init__(self, parent: "Scope | None", structure: str, sources: list[dict]) -> None:
        self.parent = parent
        self.structure = structure
        self.sources = sources
        self.depth = parent.depth + 1 if parent is not None else 1
        self.merged: dict | None = None  # graph.py: the control sources of this scope and those around it


@dataclass(slots=True)
class FlatStep:
    step: dict
    # The innermost branch/loop around the step (None: none).
    scope: Scope | None = None

    @property
    def id(self) -> str | None:
        return self.step.get("id")

    @property
    def node(self) -> str:
        return self.step["node"]

    @property
    def controls(self) -> list[tuple[str, list[dict]]]:
        """(structure kind, sources) of every enclosing branch/loop, outermost first."""
        out = []
        scope = self.scope
        while scope is not None:
            out.append((scope.structure, scope.sources))
            scope = scope.parent
        out.reverse()
        return out


def flatten(steps: list[dict]) -> list[FlatStep]:
    out: list[FlatStep] = []
    _walk(steps, None, out)
    return out


def _walk(steps: list[dict], scope: Scope | None, out: list[FlatStep]) -> None:
    for step in steps:
        node = step["node"]
        if node == "branch":
            inner = Scope(scope, "branch", step.get("uses", []))
            for arm in step.get("arms", []):
                _walk(arm, inner, out)
        elif node == "loop":
            _walk(step.get("body", []), Scope(scope, "loop", step.get("uses", [])), out)
        else:
            out.append(FlatStep(step, scope))


def repeated_steps(flat: list[FlatStep]) -> dict[str, list[str]]:
    """For each `repeat` step, the ids of the statements and effects it stands for, through
    repeats of repeats, in order of first appearance."""
    kinds = {fs.id: fs.node for fs in flat if fs.id}
    out: dict[str, list[str]] = {}
    # A repeat names only steps allocated before it: in id order, the repeats it names are done.
    for fs in sorted((f for f in flat if f.node == "repeat" and f.id), key=lambda f: _id_number(f.id)):
        seen: dict[str, None] = {}
        for sid in fs.step.get("same_as", []):
            if kinds.get(sid) == "repeat":
                seen.update(dict.fromkeys(out.get(sid, ())))
            elif sid in kinds:
                seen[sid] = None
        out[fs.id] = list(seen)
    return out


def occurrences(flat: list[FlatStep]) -> dict[str, int]:
    """How many times each step with an id appears once repeats are counted as copies."""
    count = {fs.id: 1 for fs in flat if fs.id}
    repeats = [fs for fs in flat if fs.node == "repeat" and fs.id]
    # A repeat comes after every step it names, so later repeats are settled first.
    for fs in sorted(repeats, key=lambda f: _id_number(f.id), reverse=True):
        for sid in fs.step.get("same_as", []):
            if sid in count:
                count[sid] += count[fs.id]
    return count


def _id_number(sid: str) -> int:
    digits = sid.lstrip("s")
    return int(digits) if digits.isdigit() else 0


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
