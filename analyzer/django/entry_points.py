"""Where Django code starts running: the entry points of the autocommit walk.

A statement reached from an entry point along calls that enter no transaction runs in
autocommit (TAXONOMY.md). Entry points are the functions the framework or an import runs:
views and their handlers, forms, serializers, admin and middleware hooks, tasks, management
commands, signal receivers, module-level code, and every function no application code calls
(call-graph roots, decided in autocommit.py). This module names those the framework calls even
when the application calls them too (a model's `save()`, a task called directly): the
framework's calls run outside the application's transactions as well.
"""

from __future__ import annotations

import re

from .boundaries import REQUEST_HANDLERS, is_view_module
from .index import FunctionInfo, RepoIndex

# Methods Django, DRF, Celery, graphene and channels call on the application's subclasses of
# their classes (models, forms, serializers, views, admin, middleware, backends, app configs,
# commands, consumers).
FRAMEWORK_METHODS = frozenset({
    # models and forms
    "save", "delete", "clean", "clean_fields", "validate_unique", "validate_constraints",
    # views and viewsets
    *REQUEST_HANDLERS, "head", "options", "dispatch", "setup", "get_queryset", "get_object", "get_context_data",
    "form_valid", "form_invalid", "get_form_kwargs", "get_initial", "get_success_url", "get_serializer_class",
    "get_serializer_context", "perform_create", "perform_update", "perform_destroy", "initial",
    # serializers
    "validate", "to_representation", "to_internal_value",
    # admin
    "save_model", "delete_model", "save_related", "save_formset", "delete_queryset", "get_search_results",
    # middleware, authentication and permissions
    "__call__", "process_request", "process_view", "process_response", "process_exception",
    "process_template_response", "authenticate", "get_user", "has_permission", "has_object_permission",
    "has_perm",
    # app configs, management commands, task classes
    "ready", "handle", "run",
    # graphene mutations, channels consumers
    "mutate", "perform_mutation", "clean_input", "connect", "disconnect", "receive", "receive_json",
})
# Methods of a model that Django's admin, model forms and serializers call on its rows.
ROW_METHODS = frozenset({"save", "delete"})
# Per-field hooks: `clean_email` (forms), `validate_email` (serializers), `resolve_orders` (graphene).
FRAMEWORK_PREFIXES = ("clean_", "validate_", "resolve_")

# Decorators that hand a function to a task queue's worker or to a signal.
_TASK_DECORATOR = re.compile(r"(^|\.)(shared_task|task|periodic_task|db_task|db_periodic_task|actor|job)\b")
_RECEIVER_DECORATOR = re.compile(r"(^|\.)receiver\(")


def framework_entry_points(index: RepoIndex, receivers: set[str], models: set[str]) -> tuple[set[str], set[str]]:
    """(always, hooks): functions the framework runs.

    `always`: tasks, signal receivers, function views, and `save()`/`delete()` of models (the admin,
    forms and serializers call them too): entry points even when the application calls them.
    `hooks`: framework methods of the application's subclasses of framework classes (a view's
    `get_queryset`, a serializer's `update`); the walks model how a view reaches most of them, so
    one reached only from inside explicit transactions is not an entry point of its own.
    """
    external = _ExternalBases(index)
    always, hooks = set(receivers), set()
    for fn in index.functions.values():
        task = any(_TASK_DECORATOR.search(d.split("(")[0]) or _RECEIVER_DECORATOR.search(d) for d in fn.decorators)
        view = fn.cls is None and fn.parent is None and fn.params[:1] == ["request"] and \
            is_view_module(index.modules[fn.module].rel)
        if task or view or (fn.cls in models and fn.name in ROW_METHODS):
            always.add(fn.qualname)
        elif fn.cls is not None and _framework_name(fn.name) and external(fn.cls):
            hooks.add(fn.qualname)
    return always, hooks


def _framework_name(name: str) -> bool:
    return name in FRAMEWORK_METHODS or name.startswith(FRAMEWORK_PREFIXES)


class _ExternalBases:
    """Whether a class derives from a class outside the application (a framework class)."""

    def __init__(self, index: RepoIndex) -> None:
        self.index = index
        self.known: dict[str, bool] = {}

    def __call__(self, qualname: str) -> bool:
        if qualname not in self.known:
            self.known[qualname] = False  # cycle guard
            info = self.index.classes.get(qualname)
            self.known[qualname] = info is not None and any(
                base not in ("object", "builtins.object") and (base not in self.index.classes or self(base))
                for base in self.index.class_bases(info))
        return self.known[qualname]


class StaticCallees:
    """The application's functions a function calls, read from the index without parsing:
    resolved names, a class's `__init__` for an instantiation, `self.m()`/`cls.m()` on the
    enclosing class `owner` (and the overrides in its subclasses), and nested functions called by
    their bare name. What `self.m()` names is worked out once per class and method: a class's
    methods call each other (and its MRO and subclasses are walked) over and over."""

    def __init__(self, index: RepoIndex) -> None:
        self.index = index
        self._own: dict[tuple[str, str], tuple[str, ...]] = {}

    def __call__(self, fn: FunctionInfo, owner: str | None) -> set[str]:
        index = self.index
        out: set[str] = set()
        nested = {q.rsplit(".", 1)[-1]: q for q in fn.nested}
        for text in fn.calls:
            head = text.split("(", 1)[0]
            if "." not in head and head in nested:
                out.add(nested[head])
                continue
            receiver, _, method = head.partition(".")
            if receiver in ("self", "cls") and owner and method and "." not in method:
                out.update(self._on_owner(owner, method))
                continue
            target = index.resolve_in(fn.qualname, fn.module, head)
            if target in index.functions:
                out.add(target)
            elif target in index.classes:
                init = index.find_method(target, "__init__")
                if init is not None:
                    out.add(init.qualname)
        return out

    def _on_owner(self, owner: str, method: str) -> tuple[str, ...]:
        """`method` as found on `owner`, and its overrides in `owner`'s subclasses (nothing when
        `owner` has no such method)."""
        key = (owner, method)
        if key not in self._own:
            index = self.index
            found = index.find_method(owner, method)
            names: list[str] = []
            if found is not None:
                names.append(found.qualname)
                for sub in index.subclasses(owner):
                    override = index.classes[sub].methods.get(method) if sub in index.classes else None
                    if override is not None:
                        names.append(override.qualname)
            self._own[key] = tuple(names)
        return self._own[key]


def enclosing_class(index: RepoIndex, fn: FunctionInfo) -> str | None:
    """The class whose method `fn` is, or whose method it is nested in (`self` there is that class's)."""
    current = fn
    while current is not None:
        if current.cls is not None:
            return current.cls
        current = index.functions.get(current.parent) if current.parent else None
    return None
