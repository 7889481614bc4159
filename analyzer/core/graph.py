"""The dependency graph of one transaction: steps as nodes, data and control edges.

Edge attribute `kinds` is the set of ways the later step depends on the earlier one:
`data-key` (a predicate value), `data-value` (a written value or the saved object),
`control-branch`, `control-loop`; one pair of steps can depend in several ways at once. Edges always go from an
earlier step to a later one; a reference to a step that is not earlier is ignored (it can
only come from a loop's back edge, which the loop's control edge already covers).
"""

from __future__ import annotations

import networkx as nx

from .flatten import FlatStep, dependent_steps, predicate_terms


def build(flat: list[FlatStep]) -> nx.DiGraph:
    graph = nx.DiGraph()
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
    return graph
