"""Statements that Django's contrib apps and common libraries run inside a call: the content
type and site caches, tree libraries (django-mptt, django-treebeard), django-taggit's tag
managers, django-guardian's shortcuts, and a FieldFile's save(). What each call runs is data in
orm_catalog.py (LIBRARY_MANAGER_CALLS, TREE_CALLS, TAGGIT_CALLS, GUARDIAN_CALLS); this module
turns a template into statements of the walk."""

from __future__ import annotations


import libcst as cst

from . import orm_catalog as orm
from .syntax import code as _code
from .values import QuerySet, Val, plain, step_ids, union, value_sources, replace
from .walk_helpers import _term

_NO_VALUE = Val("plain", frozenset())


class LibraryMixin:
    """Mixed into Walker (walker.py); uses its emit_* methods, env and context."""

    # ------------------------------------------------------------------ templates
    def library_statements(self, node, entity: str | None, templates, key_sources, api: str, uses=()) -> list[str]:
        """Emit one statement per (kind, attribute, op) template; returns their ids. Each later
        statement depends on the reads before it (the library uses what it read)."""
        ids: list[str] = []
        for kind, attribute, op in templates:
            reads = [i for i in ids if self._kind_of(i) in ("read", "lock")]
            predicate = None
            if kind != "insert":
                predicate = {"bool": "and", "args": []} if attribute == "*" else \
                    _term(attribute, attribute, op, key_sources)
            ids.append(self.emit_statement(node, entity, kind, api, predicate, uses=sorted(set(uses) | set(reads))))
        return ids

    def _kind_of(self, sid: str) -> str:
        for step in reversed(self.out):
            if step.get("id") == sid:
                return step.get("kind", "")
        return ""

    def _shaped(self, entity: str | None, ids: list[str], shape: str, key_sources) -> Val:
        if shape == "instance" and ids:
            last = ids[-1]
            return Val("instance", frozenset({("result", last)}), entity=entity, origin=last,
                       key=frozenset({("result", last)}))
        if shape == "rows" and ids:
            return Val("rows", frozenset({("result", ids[-1])}), entity=entity, origin=ids[-1])
        if shape == "value" and ids:
            return plain({("result", ids[-1])})
        return _NO_VALUE

    # ------------------------------------------------------------------ managers of library models
    def library_manager_call(self, node, qs: QuerySet, method: str, positional, keywords) -> Val | None:
        """`ContentType.objects.get_for_model(M)`, `Site.objects.get_current()`, ...; None when
        the catalog has no row for this entity and method."""
        entity = self.ctx.entities.get(qs.entity or "")
        name = entity.qualname.rsplit(".", 1)[-1] if entity is not None else (qs.entity or "")
        row = orm.LIBRARY_MANAGER_CALLS.get((name, method))
        if row is None:
            return None
        templates, shape = row
        args = union(positional) | union(v for _, v in keywords)
        key = args or frozenset({("constant", method)})
        ids = self.library_statements(node, qs.entity, templates, key, f"{method}", uses=step_ids(args))
        return self._shaped(qs.entity, ids, shape, key)

    # ------------------------------------------------------------------ trees
    def tree_family(self, entity_name: str | None) -> str | None:
        entity = self.ctx.entities.get(entity_name or "")
        if entity is None:
            return None
        for qualname in self.ctx.index.linearization(entity.qualname):
            family = orm.TREE_BASES.get(qualname)
            if family is not None:
                return family
        return None

    def tree_manager_call(self, node, qs: QuerySet, method: str, positional, keywords) -> Val | None:
        """`Category.add_root(...)`, `Category.objects.rebuild()`: a tree library's class-level call."""
        return self.tree_call(node, qs.entity, method, frozenset(), sorted(qs.uses), manager=True,
                              evaluated=(positional, keywords))

    def tree_call(self, node, entity: str, method: str, key_sources, uses, manager: bool = False,
                  evaluated=None) -> Val | None:
        """A tree library's method on a node (or, `manager`, on its model or manager)."""
        family = self.tree_family(entity)
        if family is None:
            return None
        row = orm.TREE_CALLS.get((family, f"manager:{method}" if manager else method))
        if row is None:
            return None
        if evaluated is None:
            positional, keywords, _d, _q = self.call_arguments(node)
        else:
            positional, keywords = evaluated
        args = union(positional) | union(v for _, v in keywords)
        templates, shape = row
        target = self.ctx.entities.get(entity)
        if shape == "queryset":
            predicate = _term("tree", "tree", "range", key_sources or frozenset({("constant", method)}))
            return Val("qs", qs=QuerySet(entity, predicates=(predicate,), uses=frozenset(uses), chain=(method,),
                                         provider_classes=tuple(target.queryset_classes) if target else ()))
        ids = self.library_statements(node, entity, templates, key_sources | args, f"{family}.{method}",
                                      uses=list(uses) + step_ids(args))
        return self._shaped(entity, ids, shape, key_sources)

    # ------------------------------------------------------------------ annotations
    def annotated_value(self, annotation, target, value: Val) -> Val:
        """`address: models.Address | None = data.get("address")`: a value of unknown type whose
        annotation names a model is an instance of it (its key is the value itself)."""
        if value.kind != "plain" or not isinstance(target, cst.Name):
            return value
        text = _code(annotation.annotation).strip("'\"")
        text = text.split("|")[0].strip().removeprefix("Optional[").removesuffix("]").strip("'\" ")
        current = self.env.get("__qualname__")
        qualname = self.ctx.index.resolve_in(current.ref if current is not None else None, self.module.name, text)
        entity = self.ctx.entity_for_class(qualname)
        if entity is None:
            return value
        sources = value_sources(value)
        key = {("input", f"{target.value}.pk") if kind == "input" else (kind, name) for kind, name in sources}
        return Val("instance", sources, entity=entity.name, key=frozenset(key or {("input", f"{target.value}.pk")}))

    # ------------------------------------------------------------------ taggit
    def is_tag_manager(self, inst: Val, attr: str) -> bool:
        entity = self.ctx.entities.get(inst.entity or "")
        return entity is not None and entity.field_types.get(attr, "").endswith(orm.TAGGIT_MANAGER_CLASS)

    def tag_manager(self, inst: Val, attr: str) -> Val:
        """`post.tags`: a TaggableManager; its methods are TAGGIT_CALLS."""
        return Val("tags", inst.sources, entity=inst.entity, key=inst.key or self._row_sources(inst),
                   ref=f"{inst.entity}.{attr}", origin=inst.origin)

    def tag_call(self, node, manager: Val, method: str) -> Val:
        positional, keywords, _d, _q = self.call_arguments(node)
        row = orm.TAGGIT_CALLS.get(method)
        if row is None:
            return plain(value_sources(manager) | union(positional))
        args = union(positional) | union(v for _, v in keywords)
        uses = [manager.origin] if manager.origin and manager.origin != "new" and not manager.key else []
        ids: list[str] = []
        for entity, kind, attribute, op in row[0]:
            reads = [i for i in ids if self._kind_of(i) == "read"]
            sources = args if attribute == "name" else manager.key
            predicate = None if kind == "insert" else (
                {"bool": "and", "args": []} if attribute == "*" else _term(attribute, attribute, op, sources))
            ids.append(self.emit_statement(node, self._library_entity(entity), kind, f"{manager.ref}.{method}",
                                           predicate, uses=sorted(set(uses) | set(reads) | set(step_ids(args)))))
        return self._shaped(self._library_entity("Tag"), ids, row[1], manager.key)

    def _library_entity(self, name: str) -> str:
        """The entity name under which a library model is known (its qualified name when the
        application has a model of the same class name)."""
        for entity in self.ctx.entities.values():
            if entity.qualname.endswith(f".models.{name}") and entity.file.startswith("<"):
                return entity.name
        return name

    # ------------------------------------------------------------------ guardian
    def guardian_call(self, node, ref: str, positional, keywords) -> Val | None:
        row = orm.GUARDIAN_CALLS.get(ref)
        if row is None:
            return None
        args = union(positional) | union(v for _, v in keywords)
        ids: list[str] = []
        for entity, kind, attribute, op in row:
            reads = [i for i in ids if self._kind_of(i) == "read"]
            predicate = None if kind == "insert" else _term(attribute, attribute, op, args or {("unknown", "")})
            ids.append(self.emit_statement(node, self._library_entity(entity), kind, ref.rsplit(".", 1)[-1],
                                           predicate, uses=sorted(set(reads) | set(step_ids(args)))))
        if ref.endswith("get_objects_for_user"):
            klass = positional[2] if len(positional) > 2 else dict(keywords).get("klass")
            if klass is not None and klass.kind in ("model", "qs"):
                entity = klass.entity if klass.kind == "model" else klass.qs.entity
                qs = klass.qs if klass.kind == "qs" else QuerySet(entity)
                predicate = _term("pk", "pk__in", "in", {("result", ids[-1])})
                return Val("qs", qs=replace(qs, predicates=qs.predicates + (predicate,),
                                            uses=qs.uses | {ids[-1]}))
        return plain({("result", ids[-1])}) if ids else _NO_VALUE

    # ------------------------------------------------------------------ files
    def field_file_call(self, node, field: Val, method: str, positional, keywords) -> Val:
        """`instance.<FileField>.save(name, content, save=True)`: the storage write, then (unless
        `save=False`) the instance's save(); `delete(save=True)` likewise."""
        args = positional + [v for _, v in keywords]
        effect = self.emit_effect(node, field.category or "storage", f"{field.ref}.{method}", args)
        options = dict(keywords)
        saves = options.get("save")
        if method in ("save", "delete") and (saves is None or saves.text != "False"):
            inst = field.attr_map().get("instance")
            if inst is not None and inst.kind == "instance":
                self.instance_statement(node, inst, None, "save", "FieldFile." + method, [])
        return effect
