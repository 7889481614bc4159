"""The dependencies of one transaction: which earlier steps each step depends on, and how.

`into[dst][src]` is the set of ways step `dst` depends on the earlier step `src`: `data-key` (a
predicate value), `data-value` (a written value or the saved object), `control-branch`,
`control-loop`; one pair of steps can depend in several ways at once. A dependency always goes
from an earlier step to a later one; a reference to a step that is not earlier is ignored (it
can only come from a loop's back edge, which the loop's control dependency already covers). A
`repeat` step's branches and loops also control the steps it repeats (flatten.repeated_steps).

Control dependencies are gathered per branch or loop scope, once (flatten.Scope.merged): a step
takes its innermost scope's sources, which already hold those of every scope around it, so the
work is what the dependencies are, not the depth of the nest times the steps under it.
"""

from __future__ import annotations

from .flatten import FlatStep, Scope, _id_number, dependent_steps, predicate_terms


class Dependencies:
    """The steps of one transaction by id, their positions, and the dependencies between them."""

    __slots__ = ("steps", "order", "into")

    def __init__(self) -> None:
        self.steps: dict[str, dict] = {}
        self.order: dict[str, int] = {}
        self.into: dict[str, dict[str, set]] = {}

    def edges(self):
        """(src, dst, kinds) of every dependency."""
        for dst, sources in self.into.items():
            for src, kinds in sources.items():
                yield src, dst, kinds

    def node(self, sid: str) -> str:
        return self.steps[sid]["node"]

    # The two queries of a directed graph that rewrite verification asks (networkx's names).
    def predecessors(self, sid: str):
        """The steps `sid` depends on."""
        return iter(self.into.get(sid, {}))

    @property
    def nodes(self) -> "_Nodes":
        return _Nodes(self)


class _Nodes:
    """`deps.nodes[sid]`: {"node", "step", "index"} of one step."""

    __slots__ = ("deps",)

    def __init__(self, deps: Dependencies) -> None:
        self.deps = deps

    def __getitem__(self, sid: str) -> dict:
        step = self.deps.steps[sid]
        return {"node": step["node"], "step": step, "index": self.deps.order[sid]}

    def __contains__(self, sid) -> bool:
        return sid in self.deps.steps


def _control_sources(scope: Scope) -> dict[str, frozenset]:
    """The steps deciding whether (or how often) the steps of `scope` run, with how: the
    scope's own condition's and those of every scope around it (computed once per scope)."""
    if scope.merged is not None:
        return scope.merged
    around = _control_sources(scope.parent) if scope.parent is not None else {}
    own = dependent_steps(scope.sources)
    if not own:
        scope.merged = around
        return around
    kind = f"control-{scope.structure}"
    merged = dict(around)
    for src in own:
        kinds = merged.get(src)
        if kinds is None or kind not in kinds:
            merged[src] = (kinds or frozenset()) | {kind}
    scope.merged = merged
    return merged


def build(flat: list[FlatStep]) -> Dependencies:
    deps = Dependencies()
    order, steps, into = deps.order, deps.steps, deps.into
    for index, fs in enumerate(flat):
        sid = fs.step.get("id")
        if sid is not None:
            order[sid] = index
            steps[sid] = fs.step

    for fs in flat:
        step = fs.step
        dst = step.get("id")
        if dst is None:
            continue
        found: dict[str, set] = {}
        if step["node"] == "statement":
            for term in predicate_terms(step.get("predicate")):
                for src in dependent_steps(term["sources"]):
                    found.setdefault(src, set()).add("data-key")
            for value in step.get("values", []):
                for src in dependent_steps(value["sources"]):
                    found.setdefault(src, set()).add("data-value")
        for src in step.get("uses", []):
            found.setdefault(src, set()).add("data-value")
        if fs.scope is not None:
            for src, kinds in _control_sources(fs.scope).items():
                known = found.get(src)
                if known is None:
                    found[src] = set(kinds)
                else:
                    known.update(kinds)
        position = order[dst]
        kept = {src: kinds for src, kinds in found.items() if order.get(src, position) < position}
        if kept:
            into[dst] = kept
    _add_repeats(deps, flat)
    return deps


def _repeat_instance(fs: FlatStep, steps: dict, number: dict) -> tuple[list[str], int, int, dict] | None:
    """The steps of the transaction a repeat runs again (`same_as`), the lowest and highest id
    numbers of that first instance, and what the repeat binds instead; None when it names none."""
    same = [sid for sid in fs.step.get("same_as", []) if sid in steps]
    if not same:
        return None
    numbers = [number[sid] for sid in same]
    return same, min(numbers), max(numbers), fs.step.get("bind", {})


def _add_repeats(deps: Dependencies, flat: list[FlatStep]) -> None:
    """Dependencies of the steps a `repeat` runs again, as copies of them would have, each on
    the first instance's id: those on steps outside the first instance, with the steps the
    repeat binds instead (`bind`), and the repeat's own branches and loops. Dependencies between
    steps of the instance are the copy's too, already there. Repeats are taken in id order, so
    a repeat named by another has its dependencies already (a first instance's ids are
    consecutive)."""
    repeats = sorted((fs for fs in flat if fs.node == "repeat" and fs.id), key=lambda f: _id_number(f.id))
    if not repeats:
        return
    order, steps, into = deps.order, deps.steps, deps.into
    # The dependencies the IR gives each step, before any repeat added those of its copies.
    original: dict[str, dict[str, frozenset]] = {}
    added: dict[str, list[tuple[str, str, frozenset]]] = {}  # repeat id -> dependencies of its copy
    targets_of: dict[str, frozenset] = {}                    # repeat id -> the steps it runs again
    number = {sid: _id_number(sid) for sid in order}
    for fs in repeats:
        instance = _repeat_instance(fs, steps, number)
        if instance is None:
            continue
        same, low, high, bind = instance
        edges: dict[tuple[str, str], set] = {}
        targets: set = set()

        def add(src: str, dst: str, kinds) -> None:
            at = number.get(src)
            if at is None:
                at = _id_number(src)
            if low <= at <= high:
                return
            key = (bind.get(src, src), dst)
            known = edges.get(key)
            if known is None:
                edges[key] = set(kinds)
            else:
                known.update(kinds)

        for sid in same:
            if steps[sid]["node"] == "repeat":
                targets |= targets_of.get(sid, frozenset())
                for src, dst, kinds in added.get(sid, ()):
                    add(src, dst, kinds)
            else:
                targets.add(sid)
                before = original.get(sid)
                if before is None:
                    before = into.get(sid, {})
                for src, kinds in before.items():
                    add(src, sid, kinds)
        limit = order[fs.id]
        if fs.scope is not None:
            # The repeat's branches and loops control every step it runs again: most of the
            # edges (steps x control sources); their kinds are shared, not copied per edge.
            for src, kinds in _control_sources(fs.scope).items():
                if order.get(src, limit) >= limit:
                    continue
                for dst in targets:
                    known = edges.get((src, dst))
                    if known is None:
                        edges[(src, dst)] = kinds
                    elif not kinds <= known:
                        edges[(src, dst)] = known | kinds
        kept = []
        for (src, dst), kinds in edges.items():
            if src == dst or order.get(src, limit) >= limit:
                continue
            kept.append((src, dst, kinds if type(kinds) is frozenset else frozenset(kinds)))
            if dst not in original:
                original[dst] = {s: frozenset(k) for s, k in into.get(dst, {}).items()}
            into.setdefault(dst, {}).setdefault(src, set()).update(kinds)
        added[fs.id] = kept
        targets_of[fs.id] = frozenset(targets)


def effects_used_later(flat: list[FlatStep]) -> set[str]:
    """The effect steps some later step depends on: the sources of `build(flat)`'s edges that are
    effects, found without building the graph.

    A transaction with an effect is strictly interactive whatever else depends on what, so this
    is all its verdict needs of the dependencies (the on-commit suggestions: suggestions.on_commit),
    and the graph is the core's largest piece of work (a 1,700-step transaction of saleor: about
    0.2 CPU s). Edges are followed as build() makes them, but only those whose source is an effect
    or a step some repeat's `bind` turns into one (through binds of binds): a repeat copies its
    instance's edges with their sources bound, so only those can give an effect a new edge.
    tests/core/test_effects_used_later.py compares the answer with the graph's."""
    order: dict[str, int] = {}
    steps: dict[str, dict] = {}
    for index, fs in enumerate(flat):
        sid = fs.step.get("id")
        if sid is not None:
            order[sid] = index
            steps[sid] = fs.step
    effects = {sid for sid, step in steps.items() if step["node"] == "effect"}
    if not effects:
        return set()
    repeats = sorted((fs for fs in flat if fs.node == "repeat" and fs.id), key=lambda f: _id_number(f.id))
    # the steps that are effects or are bound to one (a bound source's edge gets the step bound to it)
    relevant = set(effects)
    binds = [fs.step.get("bind", {}) for fs in repeats]
    grown = True
    while grown:
        grown = False
        for bind in binds:
            for src, bound in bind.items():
                if bound in relevant and src not in relevant:
                    relevant.add(src)
                    grown = True
    into: dict[str, list[str]] = {}  # step -> its own (the IR's) kept sources among the relevant ones
    scope_sources: dict[int, list[str]] = {}  # id(scope) -> its relevant control sources

    def control(scope: Scope) -> list[str]:
        known = scope_sources.get(id(scope))
        if known is None:
            known = scope_sources[id(scope)] = [src for src in _control_sources(scope) if src in relevant]
        return known

    for fs in flat:
        step = fs.step
        dst = step.get("id")
        if dst is None:
            continue
        found: list[str] = []
        if step["node"] == "statement":
            for term in predicate_terms(step.get("predicate")):
                found += dependent_steps(term["sources"])
            for value in step.get("values", []):
                found += dependent_steps(value["sources"])
        found += step.get("uses", [])
        if fs.scope is not None:
            found += control(fs.scope)
        position = order[dst]
        kept = [src for src in found if order.get(src, position) < position]
        if kept:  # (a later step of the same id replaces them, as in build())
            into[dst] = [src for src in kept if src in relevant]
    used = {src for sources in into.values() for src in sources if src in effects}
    if not repeats:
        return used
    number = {sid: _id_number(sid) for sid in order}
    added: dict[str, list[tuple[str, str]]] = {}
    targets_of: dict[str, frozenset] = {}
    for fs in repeats:
        instance = _repeat_instance(fs, steps, number)
        if instance is None:
            continue
        same, low, high, bind = instance
        targets: set = set()
        copied: list[tuple[str, str]] = []  # the instance's edges, as build's `add` is given them
        for sid in same:
            if steps[sid]["node"] == "repeat":
                targets |= targets_of.get(sid, frozenset())
                copied += added.get(sid, ())
            else:
                targets.add(sid)
                copied += [(src, sid) for src in into.get(sid, ())]
        edges: set[tuple[str, str]] = set()
        for src, dst in copied:
            at = number.get(src)
            if at is None:
                at = _id_number(src)
            if not low <= at <= high:  # a source inside the instance is the copy's own
                edges.add((bind.get(src, src), dst))
        limit = order[fs.id]
        if fs.scope is not None:
            for src in control(fs.scope):
                if order.get(src, limit) < limit:
                    edges.update((src, dst) for dst in targets)
        kept = [(src, dst) for src, dst in edges if src != dst and order.get(src, limit) < limit]
        used.update(src for src, _dst in kept if src in effects)
        added[fs.id] = kept
        targets_of[fs.id] = frozenset(targets)
    return used
