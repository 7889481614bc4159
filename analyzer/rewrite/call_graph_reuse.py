"""The scan's call graph, taken by the re-analysis of a round's edits where building it again
would give the same graph (django_reanalysis.py): building it goes over every call of every
function of the project (0.1 CPU s of each round on the 300k-line synthetic project), while the
edits of on-commit and f-expression rewrites change a few function bodies and, as a rule, none
of the edges.

The graph is the same when
- the two indexes name the same modules, functions (in the same order: callers are listed in
  the order they were indexed) and classes;
- every module of the edited files holds the same facts that resolving a name reads (its
  imports, the names it defines, its `__all__`, its classes' bases and methods), so that every
  name resolves as it did in the scan, and a function whose calls are written as they were has
  the edges it had (the other modules' facts are the scan's own objects);
- each function of the edited files whose calls are written otherwise resolves them to the same
  edges.
Anything else is None, and the re-analysis builds its graph as a scan does.
"""

from __future__ import annotations

from ..django.index import CallGraph, ClassInfo, ModuleInfo, RepoIndex


def same_call_graph(scan: RepoIndex, index: RepoIndex) -> CallGraph | None:
    """The scan's call graph (built already) when `index` (the scan's, with some modules replaced
    by their edited files' facts) would build the same one; else None."""
    graph = scan.built_call_graph()
    if graph is None or list(scan.modules) != list(index.modules) or list(scan.functions) != list(index.functions) \
            or list(scan.classes) != list(index.classes):
        return None
    replaced = [(scan.modules[name], info) for name, info in index.modules.items() if scan.modules[name] is not info]
    if any(_resolution_facts(old) != _resolution_facts(new) for old, new in replaced):
        return None
    for old, new in replaced:
        for qualname, fn in new.functions.items():
            before = old.functions[qualname]
            if before.calls != fn.calls and scan.edge_targets(before) != index.edge_targets(fn):
                return None
    return graph


def _resolution_facts(info: ModuleInfo) -> tuple:
    """What RepoIndex.resolve and canonical read of a module (and find_method of its classes)."""
    return (info.name, info.is_package, info.imports, list(info.functions), sorted(info.assigns),
            info.assigns.get("__all__"), [_class_facts(cls) for cls in info.classes.values()])


def _class_facts(cls: ClassInfo) -> tuple:
    return (cls.qualname, cls.bases, list(cls.methods), [_class_facts(inner) for inner in cls.inner.values()])
