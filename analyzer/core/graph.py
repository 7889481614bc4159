"""The dependency graph of one transaction: steps as nodes, data and control edges.

Edge attribute `kinds` is the set of ways the later step depends on the earlier one:
`data-key` (a predicate value), `data-value` (a written value or the saved object),
`control-branch`, `control-loop`; one pair of steps can depend in several ways at once. Edges always go from an
earlier step to a later one; a reference to a step that is not earlier is ignored (it can
only come from a loop's back edge, which the loop's control edge already covers). A `repeat`
step's branches and loops also control the steps it repeats (flatten.repeated_steps).
"""

from __future__ import annotations

from .flatten import FlatStep, dependent_steps, predicate_terms, repeated_steps


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
    # A repeat runs the steps it names again, under its own branches and loops: what decides
    # the repeat decides those steps' second run (the edge goes to the first run's id).
    controls_of = {fs.id: fs.controls for fs in flat if fs.node == "repeat"}
    for repeat, targets in repeated_steps(flat).items():
        for structure, sources in controls_of[repeat]:
            for src in dependent_steps(sources):
                if src in order and order[src] < order[repeat]:
                    for dst in targets:
                        if src != dst and not graph.has_edge(src, dst):
                            graph.add_edge(src, dst, kinds={f"control-{structure}"})
                        elif src != dst:
                            graph.edges[src, dst]["kinds"].add(f"control-{structure}")
    return graph
