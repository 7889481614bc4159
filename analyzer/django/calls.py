"""Calls in the walk: arguments, what a callee resolves to (the application's own function,
an ORM method, an external effect, a client object), and method dispatch on receivers."""

from __future__ import annotations


import libcst as cst

from . import effects_catalog as effects
from . import orm_catalog as orm
from .syntax import code as _code
from .node_types import ATTRIBUTE, CALL, NAME
from .values import UNKNOWN, QuerySet, Val, constant, plain, step_ids, union, value_sources, replace
from .walk_helpers import _is_queryset_class, _term, _text

_NO_VALUE = Val("plain", frozenset())


# The hook a framework handler calls on the view (super().post() -> self.form_valid(form)).
FRAMEWORK_HOOKS = {"post": "form_valid", "put": "form_valid", "create": "perform_create",
                   "update": "perform_update", "partial_update": "perform_update", "destroy": "perform_destroy"}


# Receivers named like these are not model instances (sessions, caches, files, dicts).
_NOT_MODELS = ("session", "cache", "storage", "file", "path", "dict", "list", "redis", "client", "response",
               "request", "logger", "queue", "connection", "cursor")


def _names_rows(written: str) -> bool:
    """`x.objects`, `self.queryset`, `self.model.objects`, `qs`: written like a queryset."""
    tail = written.rsplit(".", 1)[-1].lower()
    return tail in ("objects", "queryset", "qs", "_default_manager", "_base_manager") or \
        written.lower().endswith(("_set", "_qs", "_queryset"))


def _builds_message(category: str | None, ref: str) -> bool:
    """A mail builder's call (djmail's `mail_builder.welcome(to, context)`) returns a message; the
    email goes out when the message's send() is called."""
    client, _, method = ref.rpartition(".")
    return category == "email" and ("MailBuilder" in client or client.startswith("djmail.")) and \
        not method.startswith(("send", "mail", "deliver")) and not method[:1].isupper()


def _could_be_model(written: str) -> bool:
    tail = written.lower().rsplit(".", 1)[-1]
    return bool(tail) and tail.isidentifier() and not any(word in tail for word in _NOT_MODELS)


class CallsMixin:
    """Mixed into Walker (walker.py); uses its emit_* methods, env and context."""

    def call_arguments(self, call: cst.Call) -> tuple[list[Val], list[tuple[str, Val]], bool, list]:
        """Evaluate arguments: positional values, keyword pairs, whether **kwargs appear, and Q values."""
        positional, keywords, dynamic = [], [], False
        for arg in call.args:
            value = self.eval(arg.value)
            if arg.star == "**":
                dynamic = True  # filter(**kwargs): the lookups are built at run time
                continue
            if arg.star == "*":
                positional.append(value)
                continue
            if arg.keyword is not None:
                keywords.append((arg.keyword.value, value))
            else:
                positional.append(value)
        return positional, keywords, dynamic, [v for v in positional if v.kind == "q"]

    def _e_Call(self, node: cst.Call) -> Val:
        func = node.func
        kind = type(func)
        if kind in ATTRIBUTE:
            return self.method_call(node, func)
        if kind in NAME and func.value == "super":
            return Val("super", ref=self.cls)
        callee = self.eval(func) if kind not in NAME or func.value in self.env else None
        if callee is None:
            callee = self.resolve_global(func.value)
        return self.call_value(node, callee, _text(func) or _code(func))

    def call_value(self, node: cst.Call, callee: Val, written: str) -> Val:
        kind, ref = callee.kind, callee.ref or ""
        if ref in orm.ON_COMMIT:
            return _NO_VALUE  # runs after commit: not part of the transaction
        if kind == "alts":  # one of several callables (a callback parameter, a dict of functions)
            return self.each_alternative(node, callee, lambda candidate: self.call_value(node, candidate, written))
        if kind == "func":
            positional, keywords, _dyn, _q = self.call_arguments(node)
            fn = self.ctx.index.function(ref)
            bound = callee.attr_map().get("__self__")  # a bound method passed as a value
            return self.call_function(node, fn, positional, keywords, bound) if fn else plain(union(positional))
        if kind == "model":
            positional, keywords, _dyn, _q = self.call_arguments(node)
            assigned = tuple((self.normalise(callee.entity, k)[0], value_sources(v), "") for k, v in keywords)
            return Val("instance", union([v for _, v in keywords]), entity=callee.entity, origin="new",
                       assigned=assigned)
        if kind == "class" or (kind == "self" and ref in self.ctx.index.classes and written in ("cls", "type(self)")):
            return self.instantiate(node, ref)
        if kind == "lambda":
            self.call_arguments(node)
            return plain(UNKNOWN)
        if kind == "formset":
            self.call_arguments(node)
            return callee
        if kind == "dispatch":
            positional, keywords, _dyn, _q = self.call_arguments(node)
            functions = [self.ctx.index.function(v.ref) for v in callee.items]
            return self.dispatch_call(node, ref, [f for f in functions if f], positional, keywords, None,
                                      chooser=callee.sources)
        if kind == "ref":
            return self.call_external(node, ref, written)
        if kind == "taskref":
            positional, keywords, _d, _q = self.call_arguments(node)
            method = ref.rsplit(".", 1)[-1]
            if method in effects.QUEUE_METHODS:
                return self.emit_effect(node, "queue", ref, positional + [v for _, v in keywords])
            return plain(union(positional))
        if kind == "extobj":
            positional, keywords, _d, _q = self.call_arguments(node)
            if _builds_message(callee.category, ref):
                return Val("email", union(positional) | union(v for _, v in keywords), ref=ref)
            return self.emit_effect(node, callee.category or "http", ref, positional + [v for _, v in keywords])
        positional, keywords, _d, _q = self.call_arguments(node)
        name = written.split(".")[-1]
        if kind == "plain" and name and written in self.env:
            self.emit_unresolved(node, written, "dynamic-dispatch", "callable held in a variable")
        elif kind == "plain" and "[" in written:
            self.emit_unresolved(node, written, "dynamic-dispatch", "callable looked up at run time")
        return plain(union(positional) | union(v for _, v in keywords) | value_sources(callee))

    def instantiate(self, node: cst.Call, qualname: str) -> Val:
        positional, keywords, _d, _q = self.call_arguments(node)
        this = self.env.get("self")
        if this is not None and this.kind == "qs" and _is_queryset_class(self.ctx, qualname):
            # `AccountQuerySet(self.model, using=self._db)` inside a manager: the same rows, with
            # that queryset class's methods available.
            providers = tuple(dict.fromkeys((qualname,) + this.qs.provider_classes))
            return Val("qs", qs=replace(this.qs, provider_classes=providers))
        init = self.ctx.index.find_method(qualname, "__init__")
        obj = Val("obj", union(positional) | union(v for _, v in keywords), ref=qualname)
        if self.meta_model(qualname) is not None:
            # A ModelForm/ModelSerializer: built with an instance it updates, without one it creates.
            updates = any(k == "instance" for k, _ in keywords) or \
                (qualname.endswith("Serializer") and bool(positional))
            instance = dict(keywords).get("instance")
            obj = replace(obj, text="update" if updates else "create",
                          attrs=(("instance", instance),) if instance is not None else ())
        if init is not None:
            self.call_function(node, init, positional, keywords, obj)
        return obj

    def call_external(self, node: cst.Call, ref: str, written: str) -> Val:
        positional, keywords, dynamic, _q = self.call_arguments(node)
        args = positional + [v for _, v in keywords]
        if ref in ("django.db.models.F", "django.db.models.expressions.F"):
            name = positional[0].text.strip("'\"") if positional else "?"
            return plain({("expression", f"F({name})")}, f'F("{name}")')
        if ref in ("django.db.models.Q", "django.db.models.query_utils.Q"):
            return self.q_object(positional, keywords, dynamic)
        if ref in orm.GET_MODEL or (ref.rsplit(".", 1)[-1] == "get_model" and positional
                                    and all(v.kind == "plain" and v.text[:1] in "'\"" for v in positional)):
            # Django's apps.get_model, and the same helper in app frameworks (oscar.core.loading).
            names = [v.text.strip("'\"") for v in positional if v.text]
            entity = self.ctx.entity_named(names[-1].split(".")[-1]) if names else None
            if entity is not None:
                return Val("model", frozenset({("constant", entity.name)}), entity=entity.name)
            if not all(v.text[:1] in "'\"" for v in positional):  # the name is data: some model
                return self.unnamed_model(node, ref, union(positional))
            self.diagnostic(node, "unknown-orm-pattern", f"model looked up by a name that is not known: {names}",
                            severity="info")
            return plain(UNKNOWN)
        if ref in orm.ADVISORY_LOCKS:
            sid = self.emit_statement(node, None, "lock", "advisory_lock", None, dynamic=True,
                                      uses=step_ids(union(args)))
            return plain({("result", sid)})
        if ref in ("django.contrib.auth.get_user_model",):
            return Val("model", entity=self.ctx.auth_user) if self.ctx.auth_user in self.ctx.entities else plain()
        if ref in orm.SHORTCUTS:
            return self.shortcut(node, ref, positional, keywords, dynamic)
        if ref in orm.SET_AUTOCOMMIT or ref in orm.COMMIT or ref in orm.ATOMIC:
            return _NO_VALUE
        if ref in ("django.core.mail.EmailMessage", "django.core.mail.EmailMultiAlternatives",
                   "django.core.mail.message.EmailMessage"):
            return Val("email", union(args), ref=ref)
        if ref.startswith("boto3.") and ref.rsplit(".", 1)[-1] in ("client", "resource"):
            service = positional[0].text.strip("'\"") if positional else ""
            return Val("extobj", ref=f"boto3.{service}", category=effects.BOTO3_SERVICES.get(service, "http"))
        if ref.startswith(("redis.", "django_redis.")):
            return Val("extobj", ref=ref, category="cache")
        if ref in ("requests.Session", "requests.session", "httpx.Client", "httpx.AsyncClient",
                   "aiohttp.ClientSession", "urllib3.PoolManager"):
            return Val("extobj", ref=ref, category="http")
        if ref.rsplit(".", 1)[0] in ("django.db.connection", "django.db.connections[]") and ref.endswith(".cursor"):
            return Val("cursor")
        if ref in ("open", "builtins.open", "io.open", "codecs.open"):
            mode = positional[1].text.strip("'\"") if len(positional) > 1 else dict(keywords).get("mode", constant("r")).text.strip("'\"")
            if any(flag in mode for flag in effects.WRITE_MODES):
                return self.emit_effect(node, "file", "open", args)
            return plain(union(args))
        if ref in ("asgiref.sync.sync_to_async", "channels.db.database_sync_to_async",
                   "asgiref.sync.async_to_sync") and positional:
            return positional[0]
        kind = self.ctx.extra_statements.get(ref)
        if kind is not None:
            # [tool.txscan.statements]: a database call the catalogs do not know.
            sid = self.emit_statement(node, None, kind, ref, None if kind == "insert" else {"bool": "and", "args": []},
                                      dynamic=kind != "insert", uses=step_ids(union(args)))
            return plain({("result", sid)})
        category = effects.category_for(ref, self.ctx.extra_effects)
        if category is not None:
            return self.emit_effect(node, category, ref, args)
        if ref in orm.GUARDIAN_CALLS:
            return self.guardian_call(node, ref, positional, keywords)
        if ref.rsplit(".", 1)[-1] in orm.CUSTOM_SIGNAL_SENDS and self.send_custom_signal(node, ref, positional, keywords):
            return _NO_VALUE
        if ref in ("type", "builtins.type") and positional and positional[0].kind == "instance":
            return Val("model", entity=positional[0].entity)  # type(obj): the instance's model
        formset = self.formset(ref, positional, keywords)
        if formset is not None:
            return formset
        if ref in ("copy.copy", "copy.deepcopy") and positional and positional[0].kind == "instance":
            # `clone = deepcopy(self); clone.id = None; clone.save()`: a copy of the row, saved
            # as a new one.
            return replace(positional[0], origin="new", key=frozenset())
        members = self.members_through(ref, positional)  # zip(rows, values), enumerate(rows), sorted(rows)
        if members is not None:
            return members
        if ref in orm.EVALUATING_BUILTINS and positional and positional[0].kind in ("qs", "rows"):
            first = positional[0]
            if first.kind == "qs":
                rows = self.evaluate_qs(first.qs, node, f"{ref}()")
                return self.cache_rows(node.args[0].value, rows) if ref != "list" else rows
            return first
        if ref == "getattr" and len(positional) >= 2:
            return self.getattr_value(node, positional[0], positional[1]) or \
                Val("plain", union(positional), text="getattr")
        if ref.endswith("[]") and self._looks_internal(ref):
            self.emit_unresolved(node, ref, "dynamic-dispatch", "callable looked up at run time")
        elif self._looks_internal(ref):
            self.emit_unresolved(node, ref, "no-definition", "no definition found in the application")
        return plain(union(args), written)

    def _looks_internal(self, ref: str) -> bool:
        """A call into the application's own module that names nothing defined there."""
        if "." not in ref or ref.split(".")[0] not in self.ctx.index.top_packages():
            return False
        parts = ref.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            info = self.ctx.index.modules.get(".".join(parts[:cut]))
            if info is None:
                continue
            head = parts[cut]
            defined = head in info.assigns or head in info.imports or head in info.classes or \
                f"{info.name}.{head}" in self.ctx.index.functions
            return not defined
        return False

    def method_call(self, node: cst.Call, func: cst.Attribute) -> Val:
        method = func.attr.value
        receiver_node = func.value
        if type(receiver_node) in CALL and type(receiver_node.func) in NAME \
                and receiver_node.func.value == "super":
            return self.super_call(node, method)
        receiver = self.eval(receiver_node)
        if receiver.kind == "alts":  # any of several receivers: the method of each
            return self.method_of_alternatives(node, func, receiver)
        return self.method_on(node, func, receiver)

    def method_on(self, node: cst.Call, func: cst.Attribute, receiver: Val) -> Val:
        method = func.attr.value
        receiver_node = func.value
        kind = receiver.kind
        if kind == "dict":
            return self.dict_method(node, receiver, method)
        if kind == "qs":
            return self.queryset_method(node, receiver.qs, method)
        if kind == "model":
            entity = self.ctx.entities.get(receiver.entity)
            fn = self.ctx.index.find_method(entity.qualname, method) if entity else None
            if fn is not None:
                positional, keywords, _d, _q = self.call_arguments(node)
                return self.call_function(node, fn, positional, keywords, receiver)
            return self.queryset_method(node, QuerySet(receiver.entity), method)
        if kind == "instance":
            return self.instance_method(node, receiver, receiver_node, method)
        if kind == "ref" and method == "get" and self.registry(receiver.ref) is not None:
            positional, _k, _d, _q = self.call_arguments(node)  # HANDLERS.get(kind)
            return replace(self.registry(receiver.ref), sources=union(positional[:1]))
        if kind in ("self", "obj") and receiver.ref:
            fn = self.ctx.index.find_method(receiver.ref, method)
            positional, keywords, _d, _q = self.call_arguments(node)
            if fn is not None:
                candidates = self.overriding(receiver.ref, fn) if kind == "obj" or not self.via else [fn]
                if len(candidates) > 1:
                    # Class-hierarchy analysis: the object may be any subclass that overrides it.
                    return self.dispatch_call(node, f"{receiver.ref}.{method}", candidates, positional, keywords,
                                              receiver)
                return self.call_function(node, fn, positional, keywords, receiver)
            if method == "save" and kind == "obj" and self.meta_model(receiver.ref) is not None:
                return self.form_save(node, receiver.ref, receiver, keywords)
            if method == "collect" and kind == "obj" and orm.COLLECTOR in self.ctx.index.linearization(receiver.ref):
                return self.collector_collect(node, positional)
            if method in ("is_valid", "full_clean") and kind == "obj" and self.meta_model(receiver.ref):
                self.validate_unique(node, self.meta_model(receiver.ref), value_sources(receiver))
                return plain(value_sources(receiver))
            if kind == "self" and method == "get_object":
                found = self.view_model_object(node, receiver.ref)
                if found is not None:
                    return found
            if kind == "self" and method not in ("get_context_data", "get_serializer", "get_queryset"):
                self.emit_unresolved(node, f"self.{method}", "no-definition", "method not defined in the application")
            return plain(union(positional))
        if kind in ("func", "taskref"):
            positional, keywords, _d, _q = self.call_arguments(node)
            if method in effects.QUEUE_METHODS:
                return self.emit_effect(node, "queue", f"{receiver.ref}.{method}", positional + [v for _, v in keywords])
            return plain(union(positional))
        if kind == "email":
            positional, _k, _d, _q = self.call_arguments(node)
            if method in ("send", "send_messages"):
                return self.emit_effect(node, "email", f"{receiver.ref}.send", [receiver] + positional)
            return receiver
        if kind == "cursor":
            return self.cursor_method(node, method)
        if kind == "formset":
            _p, keywords, _d, _q = self.call_arguments(node)
            return self.formset_save(node, receiver, keywords) if method == "save" else plain({("input", "formset")})
        if kind == "tags":
            return self.tag_call(node, receiver, method)
        if kind == "extobj":
            positional, keywords, _d, _q = self.call_arguments(node)
            if receiver.attr_map().get("instance") is not None:  # a model's FieldFile
                return self.field_file_call(node, receiver, method, positional, keywords)
            if _builds_message(receiver.category, f"{receiver.ref}.{method}"):
                return Val("email", union(positional) | union(v for _, v in keywords), ref=f"{receiver.ref}.{method}")
            return self.emit_effect(node, receiver.category or "http", f"{receiver.ref}.{method}",
                                    positional + [v for _, v in keywords])
        if kind in ("ref", "class"):
            return self.call_value(node, self._e_Attribute(func), _text(func) or _code(func))
        return self.plain_method(node, receiver, receiver_node, method)

    def plain_method(self, node: cst.Call, receiver: Val, receiver_node, method: str) -> Val:
        positional, keywords, _d, _q = self.call_arguments(node)
        args = positional + [v for _, v in keywords]
        written = _text(receiver_node) or "<expr>"
        retried = self.bound_task_call(node, written, method, args)  # a bound Celery task's self.retry()
        if retried is not None:
            return retried
        if method in ("delay", "apply_async") :
            return self.emit_effect(node, "queue", f"{written}.{method}", args)
        if method in effects.PATH_WRITES and "path" in written.lower():
            return self.emit_effect(node, "file", f"{written}.{method}", args)
        if method == "save" and any(word in written.lower() for word in ("form", "serializer")):
            form_class = self.view_form_class(self.cls)
            if form_class is not None and self.meta_model(form_class) is not None:
                return self.form_save(node, form_class, self.form_object(form_class), keywords)
            self.emit_unresolved(node, f"{written}.save", "unresolved-receiver",
                                 "a form or serializer whose class is not known here")
            self.emit_statement(node, None, "write", f"{written}.save", None, dynamic=True,
                                uses=step_ids(value_sources(receiver)))
            self.diagnostic(node, "unknown-orm-pattern", f"{written}.save(): a form or serializer writes a model "
                            "that is only known at run time", severity="info")
            return plain(UNKNOWN)
        if method in ("save", "delete") and written.split(".")[-1] in ("file", "image", "avatar", "attachment",
                                                                         "document", "photo", "upload"):
            return self.emit_effect(node, "storage", f"FieldFile.{method}", args)
        if method in ("save", "asave") and any(k == "update_fields" for k, _ in keywords):
            # Only a model instance's save() takes update_fields: a write of a row whose model
            # this walk cannot tell (an untyped parameter, a generic helper).
            return self.unknown_model_write(node, written, method, receiver)
        if (method in orm.EVALUATING or method in orm.LAZY) and receiver.kind == "plain" and \
                _names_rows(written) and not self.via_has_unresolved(node):
            # self.queryset.model.objects.filter(...), self.model.objects.get(...): a queryset of a
            # model chosen by a subclass or at run time.
            self.emit_unresolved(node, f"{written}.{method}", "unresolved-receiver",
                                 "queryset of a model the walk cannot name")
        if method in orm.INSTANCE and receiver.kind == "plain" and _could_be_model(written):
            # obj.save() / obj.delete() on a value of unknown type: statements may be missing here.
            self.emit_unresolved(node, f"{written}.{method}", "unresolved-receiver",
                                 "receiver of unknown type; it may be a model instance")
        if method in ("append", "add", "extend", "update", "insert", "setdefault") and isinstance(receiver_node, cst.Name):
            name = receiver_node.value
            if name in self.env:
                current = self.env[name]
                self.env[name] = replace(current, sources=value_sources(current) | union(args),
                                         items=current.items + tuple(args) if current.items else tuple(args))
        return plain(value_sources(receiver) | union(args))

    def super_call(self, node: cst.Call, method: str) -> Val:
        positional, keywords, _d, _q = self.call_arguments(node)
        this = self.env.get("self")
        following = self.next_in_mro(this, method)
        if following is not None and following.qualname not in self.stack:
            # A mixin between this class and Model (or the framework base) defines it too.
            return self.call_function(node, following, positional, keywords, this, call_site=self.call_site)
        if method == "collect" and self.cls and orm.COLLECTOR in self.ctx.index.linearization(self.cls):
            return self.collector_collect(node, positional)
        if this is not None and this.kind == "instance" and method in orm.INSTANCE:
            return self.instance_statement(node, this, "self", orm.INSTANCE[method], method, keywords,
                                           at_call_site=True)
        if self.cls:
            for base in self.ctx.index.mro(self.cls)[1:]:
                if method in base.methods:
                    return self.call_function(node, base.methods[method], positional, keywords, this)
            saved = self.framework_save(node, method, this, keywords)
            if saved is not None:
                return saved
            hook = FRAMEWORK_HOOKS.get(method)
            own = self.ctx.index.find_method(self.cls, hook) if hook else None
            if own is not None and own.qualname not in self.stack:
                # Django's FormView.post / DRF's create call the view's own hook, with the form
                # or serializer of the view's class.
                form_class = self.view_form_class(self.cls)
                args = [self.hook_argument(node, hook, form_class)] if form_class else []
                return self.call_function(node, own, args, [], this)
            if hook is not None and own is None:
                default = self.framework_default_hook(node, hook, this)
                if default is not None:
                    return default
        deleted = self.framework_delete(node, method, this)  # Django's DeleteView / DeletionMixin
        if deleted is not None:
            return deleted
        if this is not None and this.kind == "qs":
            return self.queryset_method(node, this.qs, method, evaluated=(positional, keywords))
        if this is not None and this.kind == "self" and method in orm.INSTANCE and self.cls \
                and self.ctx.is_model_mixin(self.cls):
            # super().save() in a mixin that models inherit: a write of whichever model uses it.
            return self.unknown_model_write(node, "self", method, this)
        return plain(union(positional))

    def next_in_mro(self, this: Val | None, method: str):
        """The method `super().method()` reaches: the next class after the current one in the MRO
        of the object's own class (a model's, when the walk knows the instance's entity)."""
        if not self.cls:
            return None
        runtime = self.cls
        if this is not None and this.kind == "instance" and this.entity in self.ctx.entities:
            runtime = self.ctx.entities[this.entity].qualname
        elif this is not None and this.kind in ("self", "obj") and this.ref:
            runtime = this.ref
        order = self.ctx.index.linearization(runtime)
        if self.cls not in order:
            return None
        for qualname in order[order.index(self.cls) + 1:]:
            info = self.ctx.index.classes.get(qualname)
            if info is not None and method in info.methods:
                return info.methods[method]
        return None

    def via_has_unresolved(self, node) -> bool:
        """A chained call on the same line already reported this receiver (`qs.filter().first()`)."""
        line = self._line(node)
        return any(s.get("node") == "unresolved" and s["line"] == line and s["file"] == self.module.rel
                   and s.get("reason") == "unresolved-receiver" for s in self.out[-3:])

    def unknown_model_write(self, node, written: str, method: str, receiver: Val) -> Val:
        action = orm.INSTANCE.get(method, "save")
        kind = {"save": "write", "delete": "delete", "refresh": "read"}[action]
        self.emit_statement(node, None, kind, f"{written}.{method}",
                            _term("pk", "pk", "eq", {("input", f"{written}.pk")}),
                            uses=step_ids(value_sources(receiver)))
        self.diagnostic(node, "unknown-orm-pattern", f"{written}.{method}(): a model instance whose model is not "
                        "known here", severity="info")
        return _NO_VALUE

    def resolve_global(self, dotted: str) -> Val:
        current = self.env.get("__qualname__")
        # What a global name stands for depends on the scan's index and models only: worked out
        # once per (function, module, name) of a scan (Vals are immutable, so one is shared).
        key = (current.ref if current is not None else None, self.module.name, dotted)
        memo = self.ctx.globals_memo
        found = memo.get(key)
        if found is None:
            found = memo[key] = self._resolve_global(key[0], dotted)
        return found

    def _resolve_global(self, function: str | None, dotted: str) -> Val:
        # Imports inside the function being walked (or an enclosing one) first, then the module's.
        qualname = self.ctx.index.resolve_in(function, self.module.name, dotted)
        entity = self.ctx.entity_for_class(qualname)
        if entity is not None:
            return Val("model", frozenset({("constant", entity.name)}), entity=entity.name, ref=qualname)
        if qualname in self.ctx.index.functions:
            return Val("func", frozenset({("constant", dotted)}), ref=qualname)
        if qualname in self.ctx.index.classes:
            return Val("class", frozenset({("constant", dotted)}), ref=qualname)
        client = self.module_client(qualname)
        if client is not None:
            return client
        return Val("ref", frozenset({("constant", dotted)}), ref=qualname)

    def module_client(self, qualname: str) -> Val | None:
        """A module-level `s3 = boto3.client("s3")` / `r = redis.Redis()`: an external client object;
        `User = get_user_model()`: the user model."""
        module_name, _, name = qualname.rpartition(".")
        info = self.ctx.index.modules.get(module_name)
        text = info.assigns.get(name) if info is not None else None
        if not text:
            return None
        named = self.module_level_value(info, name, text)  # get_model(...), (ModelA, ModelB), ...
        if named is not None or "(" not in text:
            return named
        head = text.split("(", 1)[0].strip()
        if not head.replace(".", "").replace("_", "").isalnum():
            return None
        callee = self.ctx.index.resolve(info.name, head)
        if callee == "django.contrib.auth.get_user_model" and self.ctx.auth_user in self.ctx.entities:
            return Val("model", frozenset({("constant", name)}), entity=self.ctx.auth_user)
        if callee.startswith("boto3.") and callee.rsplit(".", 1)[-1] in ("client", "resource"):
            service = text.split("(", 1)[1].split(",")[0].strip(" )'\"")
            return Val("extobj", ref=f"boto3.{service}", category=effects.BOTO3_SERVICES.get(service, "http"))
        if callee in effects.QUEUE_APPLICATIONS:  # `app = Celery("proj")`: app.send_task(...) enqueues
            return Val("ref", frozenset({("constant", name)}), ref=effects.QUEUE_APPLICATIONS[callee])
        category = effects.category_for(callee, self.ctx.extra_effects) or self.library_category(callee)
        if category is not None:
            return Val("extobj", ref=callee, category=category)
        return None

    def library_category(self, class_qualname: str) -> str | None:
        """An application class deriving from a library client (`class MailBuilder(
        djmail.template_mail.MagicMailBuilder)`): the library's effect category."""
        if class_qualname not in self.ctx.index.classes:
            return None
        for name in self.ctx.index.linearization(class_qualname):
            if name not in self.ctx.index.classes:
                category = effects.category_for(name, self.ctx.extra_effects)
                if category is not None:
                    return category
        return None
