"""Querysets in the walk: lookups to predicate terms, lazy chains, the call that evaluates them,
writes through querysets, raw SQL and cursors."""

from __future__ import annotations


import libcst as cst

from . import orm_catalog as orm
from . import sql as sqlparse
from .orm_inheritance import InheritanceMixin
from .orm_prefetch import PrefetchMixin
from .values import UNKNOWN, QuerySet, Val, ir_sources, plain, step_ids, union, value_sources, replace
from .walk_helpers import (
    _api, _literal_string, _predicate, _source_tuple, _term,
)

_NO_VALUE = Val("plain", frozenset())


class QuerySetsMixin(PrefetchMixin, InheritanceMixin):
    """Mixed into Walker (walker.py); uses its emit_* methods, env and context."""

    def normalise(self, entity_name: str | None, lookup: str) -> tuple[str, str]:
        """(attribute, op) of a keyword lookup such as `customer__email__iexact`."""
        parts = lookup.split("__")
        op = "eq"
        if len(parts) > 1 and parts[-1] in orm.LOOKUP_OPS:
            op = orm.LOOKUP_OPS[parts[-1]]
            parts = parts[:-1]
        head = parts[0]
        entity = self.ctx.entities.get(entity_name or "")
        if entity is None:
            return ("pk" if head in ("pk", "id") else head), op
        relations = {r["attribute"] for r in entity.relations}
        if head == "pk" or head in entity.pk:
            return "pk", op
        if head.endswith("_id") and head[:-3] in relations:
            return head[:-3], op
        return head, op

    def terms_from_kwargs(self, entity: str | None, keywords: list[tuple[str, Val]]) -> list[dict]:
        terms = []
        for lookup, value in keywords:
            attribute, op = self.normalise(entity, lookup)
            sources = value_sources(value)
            if value.kind == "qs":
                op = "other"
                sources = UNKNOWN
            if op == "eq" and value.kind == "plain" and value.items and len(value.items) > 1:
                op = "in"
            term = _term(attribute, lookup, op, sources)
            across = self.tables_across(entity, lookup)
            if across:
                term["across"] = across
            terms.append(term)
        return terms

    def tables_across(self, entity_name: str | None, lookup: str) -> list[dict]:
        """The tables a lookup joins past `entity_name` and the attribute it selects at each:
        `tags__name` reads the through table `Post.tags` by `tag` and Tag by `name`;
        `customer__email` reads Customer by `email`; `customer__id` joins nothing."""
        parts = lookup.split("__")
        if len(parts) > 1 and parts[-1] in orm.LOOKUP_OPS:
            parts = parts[:-1]
        across: list[dict] = []
        entity = self.ctx.entities.get(entity_name or "")
        head = next((r for r in entity.relations if r["attribute"] == parts[0]), None) if entity else None
        if len(parts) == 1 and head is not None and head["kind"] == "m2m":  # tags=5: the through table only
            return [{"entity": f"{entity.name}.{parts[0]}", "attribute": (head["target"] or "").lower()}]
        for index, name in enumerate(parts[:-1]):
            if entity is None:
                break
            relation = next((r for r in entity.relations if r["attribute"] == name), None)
            reverse = self.ctx.reverse.get(entity.name, {}).get(name)
            nxt = parts[index + 1]
            if relation is not None and relation["kind"] == "m2m":
                target = relation["target"]
                across.append({"entity": f"{entity.name}.{name}", "attribute": (target or "").lower()})
            elif reverse is not None and reverse[2] == "m2m":
                target = reverse[0]
                across.append({"entity": reverse[3], "attribute": entity.name.lower()})
            elif relation is not None:
                target = relation["target"]
            elif reverse is not None:
                target = reverse[0]
            else:
                break
            related = self.ctx.entities.get(target or "")
            if related is None:
                break
            attribute, _op = self.normalise(related.name, nxt)
            if attribute == "pk" and index + 1 == len(parts) - 1 and relation is not None and relation["kind"] != "m2m":
                break  # customer__id: the foreign key column itself, no join
            across.append({"entity": related.name, "attribute": attribute})
            entity = related
        return across

    def q_object(self, positional: list[Val], keywords, dynamic: bool) -> Val:
        args = [v.predicate for v in positional if v.kind == "q" and v.predicate]
        # The entity is not known yet; terms are normalised when the Q is applied.
        args += [{"__lookup__": k, "__value__": v} for k, v in keywords]
        return Val("q", union(positional), predicate={"bool": "and", "args": args, "__dynamic__": dynamic})

    def shortcut(self, node, ref: str, positional: list[Val], keywords, dynamic: bool) -> Val:
        kind, shape = orm.SHORTCUTS[ref]
        target = positional[0] if positional else None
        if target is None or target.kind not in ("model", "qs"):
            self.diagnostic(node, "unknown-orm-pattern", f"{ref} on a value that is not a model or queryset")
            return plain(UNKNOWN)
        qs = target.qs if target.kind == "qs" else QuerySet(target.entity)
        qs = self.apply_filter(qs, positional[1:], keywords, dynamic, negate=False)
        return self.evaluate_qs(qs, node, ref.rsplit(".", 1)[-1], one=(shape == "instance"))

    def cursor_method(self, node: cst.Call, method: str) -> Val:
        positional, keywords, _d, _q = self.call_arguments(node)
        if method not in ("execute", "executemany", "callproc"):
            return plain(union(positional))
        sql_node = node.args[0].value if node.args else None
        text = _literal_string(sql_node)
        params = positional[1] if len(positional) > 1 else None
        return self.raw_statement(node, f"cursor.{method}", text, params, procedure=(method == "callproc"))

    def raw_statement(self, node, api: str, text: str | None, params: Val | None, procedure: bool = False,
                      entity_hint: str | None = None) -> Val:
        parsed = sqlparse.parse(text) if text is not None and not procedure else None
        entity = entity_hint
        predicate = None
        if parsed is not None:
            entity = self._entity_for_table(parsed.table) or entity_hint or parsed.table
            param_sources = list(params.items) if params is not None and params.items else []
            terms = []
            for index, (column, op) in enumerate(parsed.where, start=parsed.set_placeholders):
                value = param_sources[index] if index < len(param_sources) else params
                sources = value_sources(value) if value is not None else frozenset({("constant", "")})
                attribute, _ = self.normalise(entity, column)
                terms.append(_term(attribute, column, op, sources or UNKNOWN))
            predicate = {"bool": "and", "args": terms} if parsed.has_where else {"bool": "and", "args": []}
            if parsed.kind == "insert":
                predicate = None
        sid = self.emit_statement(node, entity, "raw", api, predicate, dynamic=parsed is None,
                                  uses=step_ids(value_sources(params)) if params is not None else [],
                                  sql=text if text is not None else "<dynamic>")
        if parsed is not None and parsed.kind == "insert":
            self.out[-1]["kind"] = "insert"
        return Val("rows", frozenset({("result", sid)}), entity=entity, origin=sid)

    def _entity_for_table(self, table: str | None) -> str | None:
        if not table:
            return None
        for entity in self.ctx.entities.values():
            if entity.table == table or entity.name.lower() == table.lower():
                return entity.name
        return None

    def apply_filter(self, qs: QuerySet, positional: list[Val], keywords, dynamic: bool, negate: bool) -> QuerySet:
        args = []
        for value in positional:
            if value.kind == "q" and value.predicate:
                args.append(self._resolve_q(qs.entity, value.predicate))
                dynamic = dynamic or value.predicate.get("__dynamic__", False)
            else:
                dynamic = True  # a Q built elsewhere (in a loop, by a helper): its terms are not known here
        args.extend(self.terms_from_kwargs(qs.entity, keywords))
        uses = set(qs.uses)
        if not args and not dynamic:
            return replace(qs, dynamic=qs.dynamic)
        predicate = args[0] if len(args) == 1 else {"bool": "and", "args": args}
        if negate:
            predicate = {"bool": "not", "args": [predicate]}
        return replace(qs, predicates=qs.predicates + (predicate,), dynamic=qs.dynamic or dynamic,
                       uses=frozenset(uses))

    def _resolve_q(self, entity: str, predicate: dict) -> dict:
        args = []
        for arg in predicate["args"]:
            if "__lookup__" in arg:
                args.extend(self.terms_from_kwargs(entity, [(arg["__lookup__"], arg["__value__"])]))
            elif "bool" in arg:
                args.append(self._resolve_q(entity, arg))
            else:
                args.append(arg)
        if predicate["bool"] == "and" and len(args) == 1:
            return args[0]
        return {"bool": predicate["bool"], "args": args}

    def queryset_method(self, node: cst.Call, qs: QuerySet, method: str, evaluated=None) -> Val:
        if evaluated is None:
            positional, keywords, dynamic, _q = self.call_arguments(node)
        else:
            (positional, keywords), dynamic = evaluated, False
        method = orm.ASYNC.get(method, method)
        chain = qs.chain + (method,)
        if not (method == "all" and qs.owner is not None):  # a prefetched related manager keeps its rows
            qs = replace(qs, cached=None)
        if qs.through is not None and method in orm.RELATED_WRITE:
            kind = orm.RELATED_WRITE[method]
            owner_sources = qs.owner.key if qs.owner is not None and qs.owner.key else frozenset()
            values = [{"attribute": qs.owner_attr or "owner", "sources": ir_sources(owner_sources)}] + [
                {"attribute": (qs.entity or "").lower(), "sources": ir_sources(value_sources(v))} for v in positional]
            predicate = None if kind == "insert" else qs.predicates[0] if qs.predicates else None
            if method in ("remove", "aremove") and predicate is not None and positional:
                target = (qs.entity or "").lower()
                predicate = {"bool": "and", "args": [predicate, _term(target, target, "in", union(positional))]}
            uses = step_ids(union(positional)) + sorted(qs.uses)
            api = f"{qs.through.split('.')[-1]}.{method}"
            if method in ("add", "aadd", "set", "aset"):
                # Django reads the pairs already in the through table, then inserts the missing
                # ones (set: and deletes the ones no longer wanted).
                owner = qs.predicates[0] if qs.predicates else None
                existing = self.emit_statement(node, qs.through, "read", f"{api}.existing", owner, uses=uses)
                saved, self.out = self.out, []
                try:
                    if method in ("set", "aset"):
                        self.emit_statement(node, qs.through, "delete", api, owner, uses=[existing])
                    self.emit_statement(node, qs.through, "insert", api, None, values=values, uses=uses)
                finally:
                    arm, self.out = self.out, saved
                self._structure(node, "branch", {("result", existing)}, arms=[arm, []])
            else:
                self.emit_statement(node, qs.through, kind, api, predicate, values=values, uses=uses)
            self.fire_m2m(node, qs)
            return _NO_VALUE
        if method in orm.LAZY:
            if method in ("filter", "exclude", "complex_filter"):
                return Val("qs", qs=self.apply_filter(replace(qs, chain=chain), positional, keywords, dynamic,
                                                      negate=(method == "exclude")))
            if method == "select_for_update":
                return Val("qs", qs=replace(qs, lock=True, chain=chain))
            if method == "select_related":
                names = frozenset(v.text.strip("'\"").split("__")[0] for v in positional)
                return Val("qs", qs=replace(qs, chain=chain, select_related=qs.select_related | names))
            if method == "prefetch_related":
                return Val("qs", qs=self.prefetch_related(node, replace(qs, chain=chain), positional))
            return Val("qs", qs=replace(qs, chain=chain))
        if method in orm.EVALUATING:
            return self.queryset_evaluating(node, qs, method, positional, keywords, dynamic)
        # A custom QuerySet/Manager method of the application.
        for provider in qs.provider_classes:
            fn = self.ctx.index.find_method(provider, method)
            if fn is not None and fn.qualname not in self.stack:
                return self.call_function(node, fn, positional, keywords, Val("qs", qs=qs))
        library = self.library_manager_call(node, qs, method, positional, keywords)
        if library is None and self.tree_family(qs.entity) is not None:
            library = self.tree_manager_call(node, qs, method, positional, keywords)
        if library is not None:
            return library
        if method in ("as_manager", "get_queryset", "iterator_lazy") or method in orm.MANAGER_PASSTHROUGH:
            return Val("qs", qs=qs)
        self.diagnostic(node, "unknown-orm-pattern", f"unknown queryset method {method}() on {qs.entity}",
                        severity="info")
        return Val("qs", qs=replace(qs, chain=chain))

    def queryset_evaluating(self, node, qs: QuerySet, method: str, positional, keywords, dynamic) -> Val:
        _kind, shape = orm.EVALUATING[method]
        if method == "get":
            qs = self.apply_filter(qs, positional, keywords, dynamic, negate=False)
            return self.evaluate_qs(qs, node, "get", one=True)
        if method in ("first", "last", "earliest", "latest", "exists", "count", "aggregate", "iterator", "explain",
                      "contains"):
            value = self.evaluate_qs(qs, node, method, one=(shape == "instance"))
            if shape == "value":
                return plain(value.sources, method)
            return value
        if method == "in_bulk":
            ids = positional[0] if positional else dict(keywords).get("id_list")
            field = dict(keywords).get("field_name")
            lookup = (field.text.strip("'\"") if field is not None and field.text else "pk")
            attribute = self.normalise(qs.entity, lookup)[0]
            predicate = _term(attribute, f"{lookup}__in", "in", value_sources(ids)) if ids is not None else None
            qs2 = replace(qs, predicates=qs.predicates + ((predicate,) if predicate else ()))
            return self.evaluate_qs(qs2, node, "in_bulk")
        if method == "update":
            values = [{"attribute": self.normalise(qs.entity, k)[0], "sources": ir_sources(value_sources(v)),
                       "text": v.text} for k, v in keywords]
            uses = sorted(qs.uses) + step_ids(union(v for _, v in keywords))
            sid = self.emit_statement(node, qs.entity, "write", _api(qs.chain, "update"), _predicate(qs.predicates),
                                      dynamic=qs.dynamic or dynamic, values=values, uses=uses)
            return plain({("result", sid)}, "rowcount")
        if method == "delete":
            if qs.entity and self._has_dependents(qs.entity):
                # The collector reads the rows first, then what points at them, then deletes by pk.
                rows = self.emit_statement(node, qs.entity, "read", _api(qs.chain, "delete.collect"),
                                           _predicate(qs.predicates), dynamic=qs.dynamic, uses=sorted(qs.uses))
                key = _pk_sources(qs.predicates) or {("result", rows)}
                if key == {("result", rows)}:  # rows known only by the read: everything below uses it
                    self.collect_related(node, qs.entity, key, uses=[rows])
                    delete_uses = [rows]
                    sid = self.emit_statement(node, qs.entity, "delete", _api(qs.chain, "delete"),
                                              _term("pk", "pk__in", "in", key), uses=delete_uses)
                else:  # filter(pk=...).delete(): the keys are the inputs
                    self.collect_related(node, qs.entity, key)
                    delete_uses = sorted(qs.uses)
                    sid = self.emit_statement(node, qs.entity, "delete", _api(qs.chain, "delete"),
                                              _predicate(qs.predicates), uses=delete_uses)
                self.parent_deletes(node, qs.entity, _term("pk", "pk__in", "in", key), uses=delete_uses)
                return plain({("result", sid)}, "rowcount")
            sid = self.emit_statement(node, qs.entity, "delete", _api(qs.chain, "delete"), _predicate(qs.predicates),
                                      dynamic=qs.dynamic, uses=sorted(qs.uses))
            return plain({("result", sid)}, "rowcount")
        if method == "create":
            assigned = [(self.normalise(qs.entity, k)[0], value_sources(v), v.text) for k, v in keywords]
            if qs.owner is not None and qs.owner_attr:
                assigned.append((qs.owner_attr, qs.owner.key or self._row_sources(qs.owner), ""))
            entity = self.ctx.entities.get(qs.entity)
            override = self.ctx.index.find_method(entity.qualname, "save") if entity else None
            if override is not None:
                # create() is save(force_insert=True): the model's own save() runs, and its
                # super().save() is the insert, reported at this call site.
                fresh = Val("instance", union(v for _, v in keywords), entity=qs.entity, origin="new",
                            assigned=tuple(assigned))
                self.call_function(node, override, [], [], fresh,
                                   call_site=(self.module.rel, self._line(node), self.via, _api(qs.chain, "create")))
                return self.last_self if self.last_self is not None and self.last_self.kind == "instance" else fresh
            values = [{"attribute": a, "sources": ir_sources(s), "text": t} for a, s, t in assigned]
            uses = sorted(qs.uses) + step_ids(frozenset().union(*[s for _, s, _t in assigned]) if assigned else frozenset())
            parents = self.parent_saves(node, qs.entity, "insert", None, uses)
            sid = self.emit_statement(node, qs.entity, "insert", _api(qs.chain, "create"), None,
                                      dynamic=dynamic, values=values, uses=uses + parents)
            inst = Val("instance", frozenset({("generated", sid)}), entity=qs.entity, origin=sid,
                       key=frozenset({("generated", sid)}), assigned=tuple((a, s, t) for a, s, t in assigned))
            self.fire_signals(node, "save", inst, created=True)
            return inst
        if method == "bulk_create":
            objects = positional[0] if positional else plain()
            sid = self.emit_statement(node, qs.entity, "insert", "bulk_create", None,
                                      uses=step_ids(value_sources(objects)))
            return Val("rows", frozenset({("generated", sid)}), entity=qs.entity, origin=sid)
        if method == "bulk_update":
            objects = positional[0] if positional else plain()
            fields = positional[1] if len(positional) > 1 else dict(keywords).get("fields")
            values = [{"attribute": v.text.strip("'\""), "sources": ir_sources(value_sources(objects))}
                      for v in (fields.items if fields is not None else ())]
            self.emit_statement(node, qs.entity, "write", "bulk_update",
                                _term("pk", "pk__in", "in", value_sources(objects)), values=values,
                                uses=step_ids(value_sources(objects)))
            return plain({("constant", "rowcount")})
        if method in ("get_or_create", "update_or_create"):
            lookups = [(k, v) for k, v in keywords if k not in ("defaults", "create_defaults")]
            defaults = [v for k, v in keywords if k in ("defaults", "create_defaults")]
            qs2 = self.apply_filter(qs, positional, lookups, dynamic, negate=False)
            values = [{"attribute": self.normalise(qs.entity, k)[0], "sources": ir_sources(value_sources(v))}
                      for k, v in lookups]
            values += [{"attribute": "defaults", "sources": ir_sources(value_sources(d))} for d in defaults]
            # Django reads first (update_or_create under select_for_update), then inserts when
            # nothing matched, or (update_or_create) writes the row it found.
            locked = qs.lock or method == "update_or_create"
            sid = self.emit_statement(node, qs.entity, "lock" if locked else "read", f"{method}.get",
                                      _predicate(qs2.predicates), dynamic=qs2.dynamic, uses=sorted(qs2.uses))
            value_uses = step_ids(union(defaults))
            saved, self.out = self.out, []
            try:
                created = self.emit_statement(node, qs.entity, "insert", f"{method}.create", None,
                                              values=values, uses=value_uses)
                arms = [self.out]
                if method == "update_or_create":
                    self.out = []
                    self.emit_statement(node, qs.entity, "write", f"{method}.update",
                                        _term("pk", "pk", "eq", self._key_of(qs2.predicates, sid)),
                                        values=values[len(lookups):], uses=value_uses)
                    arms.append(self.out)
            finally:
                self.out = saved
            self._structure(node, "branch", {("result", sid)}, arms=arms if len(arms) == 2 else arms + [[]])
            inst = Val("instance", frozenset({("result", sid), ("generated", created)}), entity=qs.entity,
                       origin=sid, key=frozenset({("result", sid)}))
            return Val("pair", inst.sources, items=(inst, plain({("result", sid)})))
        if method == "raw":
            text = _literal_string(node.args[0].value) if node.args else None
            params = positional[1] if len(positional) > 1 else None
            return self.raw_statement(node, "raw", text, params, entity_hint=qs.entity)
        return plain()

    def evaluate_qs(self, qs: QuerySet, node, api: str, one: bool = False) -> Val:
        if qs.cached is not None and not one:
            return Val("rows", frozenset({("result", qs.cached)}), entity=qs.entity, origin=qs.cached,
                       prefetched=qs.select_related)
        kind = "lock" if qs.lock else "read"
        sid = self.emit_statement(node, qs.entity, kind, _api(qs.chain, api), _predicate(qs.predicates),
                                  dynamic=qs.dynamic, uses=sorted(qs.uses))
        fetched = qs.select_related
        if api not in ("exists", "count", "aggregate", "contains", "explain"):
            self.polymorphic_reads(node, qs, sid)
            if qs.prefetch:
                fetched = fetched | self.run_prefetches(node, qs, sid)
        if one:
            key = self._key_of(qs.predicates, sid)
            return Val("instance", frozenset({("result", sid)}), entity=qs.entity, origin=sid, key=key,
                       prefetched=fetched)
        return Val("rows", frozenset({("result", sid)}), entity=qs.entity, origin=sid, prefetched=fetched)

    @staticmethod
    def _key_of(predicates: tuple, sid: str) -> frozenset:
        """A row fetched by primary key has that key; otherwise its key is only known from the result."""
        for predicate in predicates:
            if "bool" not in predicate and predicate["attribute"] == "pk" and predicate["op"] == "eq":
                return frozenset(_source_tuple(s) for s in predicate["sources"])
            if predicate.get("bool") == "and":
                for arg in predicate["args"]:
                    if "bool" not in arg and arg["attribute"] == "pk" and arg["op"] == "eq":
                        return frozenset(_source_tuple(s) for s in arg["sources"])
        return frozenset({("result", sid)})

    def fire_m2m(self, node, qs: QuerySet) -> None:
        owner = qs.owner
        if owner is not None and owner.entity:
            for receiver in self.ctx.signals.get(("m2m", owner.entity), []) + \
                    self.ctx.signals.get(("m2m", qs.through or ""), []):
                fn = self.ctx.index.function(receiver)
                if fn is not None:
                    self.call_function(node, fn, [], [("instance", owner)], None)


def _pk_sources(predicates: tuple) -> frozenset | None:
    """The sources of a primary-key equality or in-list term the predicates are ANDed with."""
    terms = []
    for predicate in predicates:
        terms.extend(predicate.get("args", []) if predicate.get("bool") == "and" else [predicate])
    for term in terms:
        if "bool" not in term and term["attribute"] == "pk" and term["op"] in ("eq", "in"):
            return frozenset(_source_tuple(s) for s in term["sources"])
    return None
