"""Prefetch queries: `prefetch_related("a", "b__c")` and `Prefetch("x", queryset=...)`.

Nothing runs when prefetch_related() is chained; when the queryset is evaluated Django issues,
after the main read, one read per lookup level: the related rows keyed by the ids of the rows
just fetched (a dependent read). A forward foreign key is read by its primary keys, a reverse
foreign key or a many-to-many by the column pointing back at the parent rows. `select_related`
joins in the main read and runs nothing more. The rows of a prefetched related manager come
from that read: `parent.children.all()` on them runs no query.
"""

from __future__ import annotations


import libcst as cst

from .values import QuerySet, Val, replace
from .walk_helpers import _literal_string, _term


class PrefetchMixin:
    """Mixed into Walker through QuerySetsMixin; uses emit_statement, eval and the context."""

    def prefetch_related(self, node, qs: QuerySet, positional: list[Val]) -> QuerySet:
        """The lookups of a prefetch_related() call, kept on the queryset until it is evaluated."""
        lookups: list[tuple] = []
        args = [a for a in node.args if a.keyword is None] if isinstance(node, cst.Call) else []
        for index, value in enumerate(positional):
            arg = args[index].value if index < len(args) else None
            if isinstance(arg, cst.Call) and _callee_last(arg.func) == "Prefetch":
                inner = [a for a in arg.args if a.keyword is None]
                lookup = _literal_string(inner[0].value) if inner else None
                chosen = next((a.value for a in arg.args if a.keyword is not None
                               and a.keyword.value == "queryset"), None)
                chosen_val = self.eval(chosen) if chosen is not None else None
                predicates = chosen_val.qs.predicates if chosen_val is not None and chosen_val.kind == "qs" else ()
            else:
                lookup = _literal_string(arg) if arg is not None else value.text.strip("'\"") or None
                predicates = ()
            if lookup:
                lookups.append((lookup, predicates))
            else:
                self.diagnostic(node, "unknown-orm-pattern", "prefetch_related() lookup that is not a literal",
                                severity="info")
        return replace(qs, prefetch=qs.prefetch + tuple(lookups))

    def run_prefetches(self, node, qs: QuerySet, read: str) -> frozenset[str]:
        """The reads Django runs after the main read `read`; returns the prefetched accessors."""
        done: dict[str, str] = {"": read}
        for lookup, predicates in qs.prefetch:
            parts = lookup.split("__")
            entity: str | None = qs.entity
            for depth, name in enumerate(parts):
                path = "__".join(parts[:depth + 1])
                parent = done.get("__".join(parts[:depth]))
                target = self._prefetch_target(entity, name)
                if target is None or parent is None:
                    self.diagnostic(node, "unknown-orm-pattern",
                                    f"prefetch_related lookup {lookup} not resolved on {entity}", severity="info")
                    break
                other, attribute = target
                last = depth == len(parts) - 1
                if path not in done:
                    term = _term(attribute, f"{attribute}__in", "in", {("result", parent)})
                    extra = predicates if last else ()
                    predicate = term if not extra else {"bool": "and", "args": [term, *extra]}
                    # Keyed by the rows just read (the predicate says so); no value flows into it.
                    done[path] = self.emit_statement(node, other, "read", f"prefetch:{path}", predicate)
                    if depth == 0:
                        self.rec.fk_cache[(read, "prefetch", name)] = done[path]
                entity = other
        return frozenset(path for path in done if path and "__" not in path)

    def _prefetched_rows(self, inst: Val, accessor: str, manager: Val) -> Val:
        """A related manager of a row whose `accessor` was prefetched holds the prefetch read's rows."""
        read = self.rec.fk_cache.get((inst.origin, "prefetch", accessor)) if accessor in inst.prefetched else None
        if read is None or manager.qs is None:
            return manager
        return replace(manager, qs=replace(manager.qs, cached=read))

    def _prefetch_target(self, entity: str | None, name: str) -> tuple[str, str] | None:
        """(related entity, the attribute its rows are selected by) of accessor `name` on `entity`."""
        model = self.ctx.entities.get(entity or "")
        if model is None:
            return None
        for relation in model.relations:
            if relation["attribute"] != name:
                continue
            if relation["kind"] == "m2m":
                return relation["target"], relation["reverse"] or f"{model.name.lower()}_set"
            return relation["target"], "pk"
        reverse = self.ctx.reverse.get(model.name, {}).get(name)
        if reverse is not None:
            return reverse[0], reverse[1]
        return None


def _callee_last(expr) -> str:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    return ""
