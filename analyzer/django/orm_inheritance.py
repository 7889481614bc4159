"""Multi-table inheritance and django-polymorphic in the walk.

A model that extends a concrete model (not abstract, not a proxy) has its own table holding a
one-to-one key to its parent's row (models.Entity.parents). Django then:
- saves the parents' rows before the child's (`_save_parents`: root first), for an insert as
  for an update by the shared primary key;
- deletes the parents' rows after the child's (the collector collects concrete parents), and a
  parent's delete collects its children's rows (`<parent>_ptr` cascades);
- reads a child with a join: one statement.
A django-polymorphic model's query reads the base rows, then each child model's table by the
primary keys just read (one dependent read per child model), unless `non_polymorphic()`.
"""

from __future__ import annotations

from .values import QuerySet
from .walk_helpers import _term


class InheritanceMixin:
    """Mixed into Walker through QuerySetsMixin; uses emit_statement and the context."""

    def parent_saves(self, node, entity: str | None, kind: str, predicate: dict | None, uses,
                     at_call_site: bool = False) -> list[str]:
        """The statements on the parents' tables that precede a child's insert or update."""
        model = self.ctx.entities.get(entity or "")
        if model is None:
            return []
        return [self.emit_statement(node, parent, kind, f"parent:{parent}", predicate, uses=list(uses),
                                    at_call_site=at_call_site)
                for parent in reversed(model.parents)]

    def parent_deletes(self, node, entity: str | None, predicate: dict | None, uses, at_call_site: bool = False):
        """The parents' rows, deleted after the child's by the same primary key."""
        model = self.ctx.entities.get(entity or "")
        for parent in model.parents if model is not None else ():
            self.emit_statement(node, parent, "delete", f"parent:{parent}", predicate, uses=list(uses),
                                at_call_site=at_call_site)

    def polymorphic_reads(self, node, qs: QuerySet, read: str) -> None:
        """django-polymorphic: each child model's rows, by the primary keys of the base rows."""
        model = self.ctx.entities.get(qs.entity or "")
        if model is None or not model.polymorphic or "non_polymorphic" in qs.chain:
            return
        by_pk = _term("pk", "pk__in", "in", {("result", read)})
        for child in self.inheriting(model.name):
            self.emit_statement(node, child, "read", f"polymorphic:{child}", by_pk)  # keyed by the read

    def inheriting(self, entity: str) -> list[str]:
        """Models whose parents include `entity` (every level below it)."""
        return list(self.ctx.model_answer("inheriting", entity, lambda: tuple(sorted(
            e.name for e in self.ctx.entities.values() if entity in e.parents))))

    def child_links(self, entity: str) -> list[tuple]:
        """(child, parent link attribute, "o2o", None) for the models directly extending `entity`:
        deleting a parent row deletes its children's rows."""
        return list(self.ctx.model_answer("child_links", entity, lambda: tuple(sorted(
            (e.name, f"{entity.lower()}_ptr", "o2o", None)
            for e in self.ctx.entities.values() if e.parents[:1] == [entity]))))
