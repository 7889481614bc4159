"""Dynamic dispatch in the walk: calls whose callee is chosen at run time among candidates the
application defines. Handler registries (a module-level dict of functions indexed at run
time), and methods called on a receiver typed by a base class that subclasses override
(class-hierarchy analysis). Every candidate is walked, each in an arm of a branch on what
chooses it; `via` records the over-approximation as `<dispatch NAME: N candidates>`."""

from __future__ import annotations

import libcst as cst

from .values import Val, plain, union

# Beyond this many candidates the call is reported unresolved (dynamic-dispatch) instead.
MAX_CANDIDATES = 8


class DispatchMixin:
    """Mixed into Walker (walker.py); uses call_function, emit_* and context."""

    def registry(self, ref: str | None) -> Val | None:
        """A module-level `HANDLERS = {"a": handle_a, ...}`: the functions it holds."""
        if not ref or "." not in ref:
            return None
        module_name, _, name = ref.rpartition(".")
        info = self.ctx.index.modules.get(module_name)
        text = (info.assigns.get(name) or "").strip() if info is not None else ""
        if not text.startswith("{"):
            return None
        try:
            literal = cst.parse_expression(text)
        except cst.ParserSyntaxError:
            return None
        if not isinstance(literal, cst.Dict):
            return None
        candidates = []
        for element in literal.elements:
            value = getattr(element, "value", None)
            written = _dotted(value)
            qualname = self.ctx.index.resolve(module_name, written) if written else ""
            if qualname in self.ctx.index.functions:
                candidates.append(Val("func", ref=qualname))
        if not candidates:
            return None
        return Val("dispatch", ref=ref, items=tuple(dict.fromkeys(candidates)))

    def overriding(self, receiver_class: str, fn) -> list:
        """`fn` and the overrides of its method in subclasses of the receiver's class."""
        found = [fn]
        for sub in self.ctx.index.subclasses(receiver_class):
            info = self.ctx.index.classes.get(sub)
            method = info.methods.get(fn.name) if info is not None else None
            if method is not None and method not in found:
                found.append(method)
        return found

    def dispatch_call(self, node, label: str, functions: list, positional, keywords, self_val,
                      chooser=frozenset()) -> Val:
        """Walk every candidate, each in an arm of a branch on the sources that choose it."""
        if len(functions) > MAX_CANDIDATES:
            self.emit_unresolved(node, label, "dynamic-dispatch", f"{len(functions)} candidates")
            return plain(union(positional))
        marker = f"<dispatch {label}: {len(functions)} candidates>"
        arms, results = [], []
        saved_out, saved_via = self.out, self.via
        try:
            for fn in functions:
                self.out, self.via = [], saved_via + (marker,)
                results.append(self.call_function(node, fn, positional, keywords, self_val))
                arms.append(self.out)
        finally:
            self.out, self.via = saved_out, saved_via
        self._structure(node, "branch", chooser, arms=arms)
        return plain(union(results))


def _dotted(node) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr.value}" if head else ""
    return ""
