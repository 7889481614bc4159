"""Model instances in the walk: attribute reads (lazy foreign-key loads, related managers),
instance methods (save, delete, refresh_from_db, overridden ones) and the signals they fire."""

from __future__ import annotations


import libcst as cst

from . import effects_catalog as effects
from . import orm_catalog as orm
from .syntax import dotted as _dotted
from .values import UNKNOWN, QuerySet, Val, constant, ir_sources, plain, step_ids, union, value_sources, replace
from .walk_helpers import (
    _term, union_assigned,
)

_NO_VALUE = Val("plain", frozenset())


def _source_tuples(sources: list[dict]) -> frozenset:
    return frozenset((s["kind"], s.get("step") or s.get("name", "")) for s in sources)


class InstancesMixin:
    """Mixed into Walker (walker.py); uses its emit_* methods, env and context."""

    def manager_queryset(self, manager: Val, node) -> Val:
        """`Model.objects` through a manager whose get_queryset() filters (soft deletes, tenants)."""
        for provider in manager.qs.provider_classes:
            fn = self.ctx.index.find_method(provider, "get_queryset")
            if fn is not None and fn.qualname not in self.stack:
                result = self.call_function(node, fn, [], [], manager)
                if result.kind == "qs" and result.qs.entity == manager.qs.entity:
                    providers = tuple(dict.fromkeys(manager.qs.provider_classes + result.qs.provider_classes))
                    return replace(result, qs=replace(result.qs, provider_classes=providers, chain=()))
                break
        return manager

    def form_instance(self, form: Val, attr: str) -> Val | None:
        """`serializer.instance` / `form.instance` / `validator.object` of a ModelForm or a
        (Model)Serializer with `Meta.model`: the row it updates, or the new row it creates."""
        if form.kind != "obj" or attr not in ("instance", "object") or not form.ref:
            return None
        entity = self.meta_model(form.ref)
        if entity is None:
            return None
        if form.text == "create":
            return Val("instance", form.sources, entity=entity, origin="new")
        return Val("instance", form.sources, entity=entity, key=frozenset({("input", f"{attr}.pk")}))

    def instance_attribute(self, inst: Val, attr: str, node) -> Val:
        entity = self.ctx.entities.get(inst.entity or "")
        assigned = inst.assigned_map()
        if entity is None:
            return plain(value_sources(inst))
        if attr == "__class__":  # self.__class__.objects: the instance's model
            return Val("model", entity=inst.entity)
        if attr == "pk" or attr in entity.pk:
            return plain(inst.key or self._row_sources(inst), f"{inst.entity}.pk")
        relations = {r["attribute"]: r for r in entity.relations}
        if attr.endswith("_id") and attr[:-3] in relations:
            return plain(self._field_sources(inst, attr[:-3], assigned), attr)
        if attr in relations and relations[attr]["kind"] in ("fk", "o2o"):
            return self.load_foreign_key(inst, attr, relations[attr], node, assigned)
        if attr in relations and relations[attr]["kind"] == "m2m":
            target = relations[attr]["target"]
            back = relations[attr]["reverse"] or f"{inst.entity.lower()}_set"
            return self._prefetched_rows(inst, attr, self.related_manager(inst, target, back,
                                                                        through=f"{inst.entity}.{attr}"))
        reverse = self.ctx.reverse.get(inst.entity or "", {}).get(attr)
        if reverse is not None:
            other, other_attr, kind, through = reverse
            if kind == "o2o":
                return self.load_reverse_one(inst, other, other_attr, node)
            return self._prefetched_rows(inst, attr, self.related_manager(inst, other, other_attr, through=through))
        if attr in assigned:
            return plain(assigned[attr][0], assigned[attr][1])
        if entity.field_types.get(attr, "").endswith(effects.FILE_FIELD_SUFFIXES):
            # A FieldFile: save()/delete()/open() on it reach the storage backend (and its
            # save()/delete() save the instance too: orm_library.field_file_call).
            return Val("extobj", self._row_sources(inst), ref=f"{inst.entity}.{attr}", category="storage",
                       attrs=(("instance", inst),))
        if self.is_tag_manager(inst, attr):
            return self.tag_manager(inst, attr)
        return plain(self._row_sources(inst), f"{inst.entity}.{attr}")

    @staticmethod
    def _row_sources(inst: Val) -> frozenset:
        if inst.origin and inst.origin != "new":
            return frozenset({("result", inst.origin)})
        return inst.key or inst.sources or UNKNOWN

    def _field_sources(self, inst: Val, attr: str, assigned: dict) -> frozenset:
        if attr in assigned:
            return frozenset(assigned[attr][0])
        if inst.origin and inst.origin != "new":
            return frozenset({("result", inst.origin)})
        renamed = {("input", f"{n}.{attr}") if k == "input" else (k, n) for k, n in (inst.key or inst.sources)}
        return frozenset(renamed) or UNKNOWN

    def load_foreign_key(self, inst: Val, attr: str, relation: dict, node, assigned: dict) -> Val:
        target = relation["target"]
        if attr in assigned and not assigned[attr][0] & {("unknown", "")}:
            sources = assigned[attr][0]
            return Val("instance", sources, entity=target, key=frozenset(sources))
        if attr in inst.prefetched:
            return Val("instance", inst.sources, entity=target, origin=inst.origin,
                       key=frozenset({("result", inst.origin)}) if inst.origin else frozenset())
        cache_key = (inst.origin, tuple(sorted(inst.key)), attr)
        if cache_key in self.rec.fk_cache:
            return self.rec.fk_cache[cache_key]
        key_sources = self._field_sources(inst, attr, assigned)
        predicate = _term("pk", attr, "eq", key_sources)
        uses = [inst.origin] if inst.origin and inst.origin != "new" else []
        sid = self.emit_statement(node, target, "read", f"fk:{attr}", predicate, uses=uses)
        loaded = Val("instance", frozenset({("result", sid)}), entity=target, origin=sid, key=frozenset(key_sources))
        self.rec.fk_cache[cache_key] = loaded
        return loaded

    def load_reverse_one(self, inst: Val, other: str, other_attr: str, node) -> Val:
        predicate = _term(other_attr, other_attr, "eq", inst.key or self._row_sources(inst))
        sid = self.emit_statement(node, other, "read", f"reverse:{other_attr}", predicate)
        return Val("instance", frozenset({("result", sid)}), entity=other, origin=sid,
                   key=frozenset({("result", sid)}))

    def related_manager(self, inst: Val, entity: str, attr: str, through: str | None) -> Val:
        predicate = _term(attr, attr, "eq", inst.key or self._row_sources(inst))
        uses = frozenset({inst.origin}) if inst.origin and inst.origin != "new" and not inst.key else frozenset()
        target = self.ctx.entities.get(entity)
        return Val("qs", inst.sources, entity=entity, qs=QuerySet(
            entity, predicates=(predicate,), uses=uses, through=through, owner=inst, owner_attr=attr,
            provider_classes=tuple(target.queryset_classes) if target else ()))

    def instance_method(self, node: cst.Call, inst: Val, receiver_node, method: str) -> Val:
        entity = self.ctx.entities.get(inst.entity or "")
        if entity is not None:
            fn = self.ctx.index.find_method(entity.qualname, method)
            if fn is not None:  # an overridden save()/delete() or a custom model method
                positional, keywords, _d, _q = self.call_arguments(node)
                site = (self.module.rel, self._line(node), self.via, method) if method in orm.INSTANCE else None
                return self.call_function(node, fn, positional, keywords, inst, bind_name=_dotted(receiver_node),
                                          call_site=site)
        # A tree library's node method uses the node's tree columns as read: the row's values.
        tree = self.tree_call(node, inst.entity, method, self._row_sources(inst),
                              [inst.origin] if inst.origin and inst.origin != "new" else [])
        if tree is not None:  # django-mptt / django-treebeard node methods
            return tree
        if entity is not None and (method in self.ctx.reverse.get(entity.name, {}) or any(
                r["attribute"] == method and r["kind"] == "m2m" for r in entity.relations)):
            # `event.questions(manager="all_objects")`: the related manager through another
            # manager of the related model, over the same rows.
            self.call_arguments(node)
            return self.instance_attribute(inst, method, node)
        if method in orm.VALIDATING:
            self.call_arguments(node)
            self.validate_unique(node, inst.entity, value_sources(inst))
            return _NO_VALUE
        if method in orm.INSTANCE:
            _p, keywords, _d, _q = self.call_arguments(node)
            return self.instance_statement(node, inst, _dotted(receiver_node), orm.INSTANCE[method], method, keywords)
        positional, keywords, _d, _q = self.call_arguments(node)
        return plain(value_sources(inst) | union(positional))

    def instance_statement(self, node, inst: Val, name: str | None, action: str, method: str, keywords,
                           at_call_site: bool = False) -> Val:
        entity = inst.entity
        options = dict(keywords)
        site = {"at_call_site": at_call_site}
        if action == "save":
            force_insert = "force_insert" in options and options["force_insert"].text == "True"
            values = [{"attribute": attr, "sources": ir_sources(sources), "text": text}
                      for attr, sources, text in inst.assigned]
            if "update_fields" in options and options["update_fields"].items:
                wanted = {v.text.strip("'\"") for v in options["update_fields"].items}
                values = [v for v in values if v["attribute"] in wanted] or \
                         [{"attribute": w, "sources": [{"kind": "unknown"}]} for w in sorted(wanted)]
            if (inst.origin == "new" and not inst.key) or force_insert:
                parents = self.parent_saves(node, entity, "insert", None, step_ids(union_assigned(inst)), **site)
                sid = self.emit_statement(node, entity, "insert", method, None, values=values,
                                          uses=step_ids(union_assigned(inst)) + parents, **site)
                updated = replace(inst, origin=sid, key=frozenset({("generated", sid)}),
                                  sources=frozenset({("generated", sid)}))
                if name and name in self.env:
                    self.env[name] = updated
                self.fire_signals(node, "save", updated, created=True)
                return _NO_VALUE
            # save() without update_fields writes every column back, read ones included: the
            # row read earlier flows into this write. With update_fields only those values do.
            whole_row = "update_fields" not in options and inst.origin and inst.origin != "new"
            uses = ([inst.origin] if whole_row else []) + step_ids(frozenset().union(
                *[_source_tuples(v["sources"]) for v in values]) if values else frozenset())
            self.parent_saves(node, entity, "write", _term("pk", "pk", "eq", inst.key or self._row_sources(inst)), uses,
                              **site)
            sid = self.emit_statement(node, entity, "write", method, _term("pk", "pk", "eq", inst.key or self._row_sources(inst)),
                                      values=values, uses=uses, **site)
            self.fire_signals(node, "save", inst, created=False)
            return _NO_VALUE
        if action == "delete":
            # A delete stores nothing: it depends on a read only through its key (the predicate).
            self.fire_signals(node, "delete", inst)
            self.collect_related(node, entity, inst.key or self._row_sources(inst))
            self.emit_statement(node, entity, "delete", method, _term("pk", "pk", "eq", inst.key or self._row_sources(inst)),
                                **site)
            self.parent_deletes(node, entity, _term("pk", "pk", "eq", inst.key or self._row_sources(inst)), [], **site)
            return _NO_VALUE
        sid = self.emit_statement(node, entity, "read", method, _term("pk", "pk", "eq", inst.key or self._row_sources(inst)),
                                  **site)
        if name and name in self.env:
            self.env[name] = replace(inst, origin=sid, assigned=())
        return _NO_VALUE

    def fire_signals(self, node, event: str, inst: Val, created: bool | None = None) -> None:
        """Walk the receivers of `event` for this instance; `created` is what post_save passes
        (True after an insert, False after an update), so `if created:` folds in the receiver."""
        # Receivers connected with this model as sender, then those connected without a sender
        # (they run for every model's signal).
        receivers = self.ctx.signals.get((event, inst.entity or ""), []) + [
            r for r in self.ctx.signals.get((event, "*"), []) if r not in self.stack]
        for receiver in receivers:
            fn = self.ctx.index.function(receiver)
            if fn is None:
                continue
            keywords = [("sender", Val("model", entity=inst.entity)), ("instance", inst),
                        ("created", plain({("constant", "created")}) if created is None else
                         constant("True" if created else "False"))]
            self.call_function(node, fn, [], keywords, None)
