"""Deletion in the walk: Django's Collector runs statements on related rows before a delete.

For every foreign key or one-to-one field of another model that points at the deleted model,
its `on_delete` decides (django.db.models.deletion): CASCADE reads the related rows and
deletes them (a single DELETE by the foreign key when those rows have nothing further to
collect), SET_NULL/SET_DEFAULT/SET read them and update them, PROTECT/RESTRICT read them to
refuse, DO_NOTHING runs nothing. CASCADE is followed transitively, as the collector does: the
related rows just read are themselves deleted, so what points at them is collected in turn
(read, then delete or update by their keys). A model already collected on the current path
(a tree's parent key, a cycle of foreign keys) is not collected again: its statements are
already reported with the same entity and kind; past MAX_CASCADE_DEPTH levels a
`delete-cascade-depth` diagnostic says the rest was not followed.
"""

from __future__ import annotations

from .values import Val, plain, union
from .walk_helpers import _term

# on_delete rule -> what the collector does with the related rows.
ON_DELETE = {"CASCADE": "delete", "SET_NULL": "update", "SET_DEFAULT": "update", "SET": "update",
             "PROTECT": "read", "RESTRICT": "read", "DO_NOTHING": None}
# Levels of related models below the deleted one that are collected (Django has no limit).
MAX_CASCADE_DEPTH = 6


class DeletionMixin:
    """Mixed into Walker (walker.py); uses its emit_* methods and context."""

    def collect_related(self, node, entity: str | None, key_sources, uses=(), _path: tuple = ()) -> list[str]:
        """Statements Django's collector runs on rows pointing at the deleted `entity` rows
        selected by `key_sources`; returns the ids of the reads (the delete depends on them)."""
        reads: list[str] = []
        path = _path + (entity,)
        for other, attr, kind, _through in self._dependents(entity):
            related = self.ctx.entities.get(other)
            if kind not in ("fk", "o2o") or related is None:
                continue
            action = ON_DELETE.get(related.on_delete.get(attr, "CASCADE"), "delete")
            if action is None:
                continue
            predicate = _term(attr, attr, "eq", key_sources)
            api = f"collect:{other}.{attr}"
            if action == "delete" and not self._has_dependents(other):
                # Fast delete: nothing to collect below these rows, one DELETE by the foreign key.
                self.emit_statement(node, other, "delete", api, predicate, uses=list(uses))
                continue
            sid = self.emit_statement(node, other, "read", api, predicate, uses=list(uses))
            reads.append(sid)
            by_pk = _term("pk", "pk__in", "in", {("result", sid)})
            if action == "delete":
                self._collect_below(node, other, sid, path)
                self.emit_statement(node, other, "delete", api, by_pk, uses=[sid])
                self.parent_deletes(node, other, by_pk, [sid])
            elif action == "update":
                self.emit_statement(node, other, "write", api, by_pk, values=[
                    {"attribute": attr, "sources": [{"kind": "constant", "name": "NULL"}]}], uses=[sid])
        return reads

    def _collect_below(self, node, entity: str, read: str, path: tuple) -> None:
        """The rows of `entity` just read are deleted too: collect what points at them."""
        if entity in path:
            return  # a cycle (a tree's parent key): the same entities and kinds are already reported
        if len(path) > MAX_CASCADE_DEPTH:
            self.diagnostic(node, "delete-cascade-depth",
                            f"delete cascade below {entity} not followed past {MAX_CASCADE_DEPTH} levels")
            return
        self.collect_related(node, entity, {("result", read)}, uses=[read], _path=path)

    def collector_collect(self, node, positional: list) -> Val:
        """An app's Collector subclass: `collect([obj])` then `delete()` deletes those rows (with
        what points at them); the statements are reported at the collect() call."""
        for item in positional[0].items if positional else ():
            if item.kind == "instance":
                self.instance_statement(node, item, None, "delete", "collector.delete", [])
        return plain(union(positional))

    def _has_dependents(self, entity: str) -> bool:
        """Rows of `entity` cannot be fast-deleted: others point at them, or delete signals listen."""
        if self.ctx.signals.get(("delete", entity)):
            return True
        model = self.ctx.entities.get(entity)
        if model is not None and model.parents:  # the parents' rows go with it: read first
            return True
        return any(kind in ("fk", "o2o") for _o, _a, kind, _t in self._dependents(entity))

    def _dependents(self, entity: str | None) -> list[tuple]:
        """(other entity, attribute, kind, through) of every foreign key pointing at `entity`:
        the reverse accessors, the keys declared without one, and the auto-created many-to-many tables (`Post.tags`), whose rows
        the collector deletes with the row they point at (their foreign keys cascade)."""
        if entity is None:
            return []
        return list(self.ctx.model_answer("dependents", entity, lambda: tuple(self._find_dependents(entity))))

    def _find_dependents(self, entity: str) -> list[tuple]:
        found = set(self.ctx.reverse.get(entity, {}).values()) | set(self.child_links(entity))
        for other in self.ctx.entities.values():
            # Keys without a reverse accessor (related_name="+") are collected all the same.
            for relation in other.relations if not other.abstract else ():
                if relation["kind"] in ("fk", "o2o") and relation["target"] == entity and not relation["reverse"]:
                    found.add((other.name, relation["attribute"], relation["kind"], None))
            if not other.qualname.endswith(".through"):
                continue
            for relation in other.relations:
                if relation["kind"] == "fk" and relation["target"] == entity:
                    found.add((other.name, relation["attribute"], "fk", None))
        return sorted(found)
