"""The dependency graph of one transaction: steps as nodes, data and control edges.

Edge attribute `kinds` is the set of ways the later step depends on the earlier one:
`data-key` (a predicate value), `data-value` (a written value or the saved object),
`control-branch`, `control-loop`; one pair of steps can depend in several ways at once. Edges always go from an
earlier step to a later one; a reference to a step that is not earlier is ignored (it can
only come from a loop's back edge, which the loop's control edge already covers). A `repeat`
step's branches and loops also control the steps it repeats (flatten.repeated_steps).
"""

from __future__ import annotations

from .flatten import FlatStep, _id_number, dependent_steps, predicate_terms


class _Edges:
    def __init__(self, successors: dict[str, dict[str, dict]]) -> None:
        self._successors = successors

    def __call__(self, data: bool = False):
        """(src, dst) or (src, dst, attributes), sources in insertion order, then their targets."""
        for src, targets in self._successors.items():
            for dst, attributes in targets.items():
                yield (src, dst, attributes) if data else (src, dst)

    def __getitem__(self, pair: tuple[str, str]) -> dict:
        return self._successors[pair[0]][pair[1]]


class StepGraph:
    """A directed graph of step ids with node and edge attributes: the few operations the core
    uses, with networkx's DiGraph interface and iteration order (importing networkx costs more
    than analysing a small application)."""

    def __init__(self) -> None:
        self.nodes: dict[str, dict] = {}
        self._successors: dict[str, dict[str, dict]] = {}
        self._predecessors: dict[str, dict[str, dict]] = {}
        self.edges = _Edges(self._successors)

    def add_node(self, step_id: str, /, **attributes) -> None:
        self.nodes.setdefault(step_id, {}).update(attributes)
        self._successors.setdefault(step_id, {})
        self._predecessors.setdefault(step_id, {})

    def add_edge(self, src: str, dst: str, /, **attributes) -> None:
        for node in (src, dst):
            if node not in self.nodes:
                self.add_node(node)
        edge = self._successors[src].setdefault(dst, {})
        edge.update(attributes)
        self._predecessors[dst][src] = edge

    def has_edge(self, src: str, dst: str) -> bool:
        return dst in self._successors.get(src, {})

    def predecessors(self, node: str):
        return iter(self._predecessors[node])

    def successors(self, node: str):
        return iter(self._successors[node])


def build(flat: list[FlatStep]) -> StepGraph:
    graph = StepGraph()
    order: dict[str, int] = {}
    for index, fs in enumerate(flat):
        if fs.id is None:
            continue
        order[fs.id] = index
        graph.add_node(fs.id, index=index, node=fs.node, step=fs.step)

    def add(src: str, dst: str, kind: str) -> None:
        if src not in order or order[src] >= order[dst]:
            return
        if graph.has_edge(src, dst):
            graph.edges[src, dst]["kinds"].add(kind)
        else:
            graph.add_edge(src, dst, kinds={kind})

    for fs in flat:
        if fs.id is None:
            continue
        step = fs.step
        if fs.node == "statement":
            for term in predicate_terms(step.get("predicate")):
                for src in dependent_steps(term["sources"]):
                    add(src, fs.id, "data-key")
            for value in step.get("values", []):
                for src in dependent_steps(value["sources"]):
                    add(src, fs.id, "data-value")
        for src in step.get("uses", []):
            add(src, fs.id, "data-value")
        for structure, sources in fs.controls:
            for src in dependent_steps(sources):
                add(src, fs.id, f"control-{structure}")
    _add_repeats(graph, flat, order)
    return graph


def _add_repeats(graph: StepGraph, flat: list[FlatStep], order: dict[str, int]) -> None:
    """Edges into the steps a `repeat` runs again, as copies of them would have, each to the
    first instance's id: the edges from outside the first instance, with the steps the repeat
    binds instead (`bind`), and the repeat's own branches and loops. Edges between steps of the
    instance are the copy's too, already there. Repeats are taken in id order, so a repeat
    named by another has its edges already (a first instance's ids are consecutive)."""
    repeats = sorted((fs for fs in flat if fs.node == "repeat" and fs.id), key=lambda f: _id_number(f.id))
    added: dict[str, list[tuple[str, str, frozenset]]] = {}  # repeat id -> edges into its copy
    targets_of: dict[str, frozenset] = {}                    # repeat id -> the steps it runs again
    # The edges the IR gives each step, before any repeat adds the edges of its copies.
    into_step = {dst: [(src, frozenset(graph.edges[src, dst]["kinds"])) for src in graph.predecessors(dst)]
                 for dst in graph.nodes} if repeats else {}
    for fs in repeats:
        same = [sid for sid in fs.step.get("same_as", []) if sid in graph.nodes]
        if not same:
            continue
        numbers = [_id_number(sid) for sid in same]
        low, high = min(numbers), max(numbers)
        bind = fs.step.get("bind", {})
        edges: dict[tuple[str, str], set] = {}
        targets: set = set()
        for sid in same:
            if graph.nodes[sid]["node"] == "repeat":
                inner = added.get(sid, ())
                targets |= targets_of.get(sid, frozenset())
            else:
                targets.add(sid)
                inner = [(src, sid, kinds) for src, kinds in into_step[sid]]
            for src, dst, kinds in inner:
                if not low <= _id_number(src) <= high:
                    edges.setdefault((bind.get(src, src), dst), set()).update(kinds)
        for structure, sources in fs.controls:
            for src in dependent_steps(sources):
                for dst in targets:
                    edges.setdefault((src, dst), set()).add(f"control-{structure}")
        limit = order[fs.id]
        kept = []
        for (src, dst), kinds in sorted(edges.items(), key=lambda e: (order.get(e[0][0], -1), order.get(e[0][1], -1))):
            if src == dst or src not in order or order[src] >= limit:
                continue
            kept.append((src, dst, frozenset(kinds)))
            if graph.has_edge(src, dst):
                graph.edges[src, dst]["kinds"].update(kinds)
            else:
                graph.add_edge(src, dst, kinds=set(kinds))
        added[fs.id] = kept
        targets_of[fs.id] = frozenset(targets)
