"""The Django ORM surface as data: which calls build querysets, which hit the database.

Adding an API means adding a row here; the walker reads these tables and nothing else
decides what a method does.
"""

from __future__ import annotations

# Queryset methods that return a new lazy queryset (no database access yet).
LAZY = {
    "all", "filter", "exclude", "order_by", "distinct", "select_related", "prefetch_related", "only",
    "defer", "annotate", "alias", "values", "values_list", "using", "none", "reverse", "extra",
    "select_for_update", "dates", "datetimes", "union", "intersection", "difference", "complex_filter",
    "iterator_lazy",
}
# Methods that evaluate the queryset: method -> (kind, result shape)
#   result shape: "instance" (one row), "rows" (many rows), "value" (a computed value),
#   "instance-pair" (get_or_create: (instance, created)), "count" (rows affected)
EVALUATING = {
    "get": ("read", "instance"),
    "first": ("read", "instance"),
    "last": ("read", "instance"),
    "earliest": ("read", "instance"),
    "latest": ("read", "instance"),
    "exists": ("read", "value"),
    "count": ("read", "value"),
    "contains": ("read", "value"),
    "aggregate": ("read", "value"),
    "in_bulk": ("read", "rows"),
    "iterator": ("read", "rows"),
    "explain": ("read", "value"),
    "update": ("write", "count"),
    "delete": ("delete", "count"),
    "create": ("insert", "instance"),
    "bulk_create": ("insert", "rows"),
    "bulk_update": ("write", "count"),
    "get_or_create": ("write", "instance-pair"),
    "update_or_create": ("write", "instance-pair"),
    "raw": ("raw", "rows"),
}
# Async twins (Django 4.1+): `aget` behaves as `get`, and so on.
ASYNC = {"a" + name: name for name in EVALUATING} | {"aiterator": "iterator"}

# Model instance methods that hit the database.
INSTANCE = {
    "save": "save",
    "asave": "save",
    "delete": "delete",
    "adelete": "delete",
    "refresh_from_db": "refresh",
    "arefresh_from_db": "refresh",
}
# Model instance methods that read other rows: uniqueness checks (one read per unique set).
VALIDATING = {"full_clean", "validate_unique", "validate_constraints"}
# Related-manager methods (order.lines.add(...), post.tags.remove(...)).
RELATED_WRITE = {"add": "insert", "remove": "delete", "clear": "delete", "set": "write",
                 "aadd": "insert", "aremove": "delete", "aclear": "delete", "aset": "write"}

# Built-ins that force evaluation of a queryset passed to them.
EVALUATING_BUILTINS = {"list", "len", "bool", "tuple", "set", "sorted", "sum", "any", "all", "max", "min",
                       "enumerate", "dict", "frozenset", "reversed"}

# Shortcuts taking a model or queryset first.
SHORTCUTS = {
    "django.shortcuts.get_object_or_404": ("read", "instance"),
    "django.shortcuts.get_list_or_404": ("read", "rows"),
    "rest_framework.generics.get_object_or_404": ("read", "instance"),
}

# Lookup suffix -> predicate operator (docs/IR.md).
LOOKUP_OPS = {
    "exact": "eq", "in": "in",
    "gt": "range", "gte": "range", "lt": "range", "lte": "range", "range": "range",
    "year": "range", "month": "range", "day": "range", "week": "range", "week_day": "range",
    "quarter": "range", "date": "range", "time": "range", "hour": "range", "minute": "range",
    "second": "range", "iso_year": "range", "iso_week_day": "range",
    "contains": "pattern", "icontains": "pattern", "startswith": "pattern", "istartswith": "pattern",
    "endswith": "pattern", "iendswith": "pattern", "regex": "pattern", "iregex": "pattern",
    "iexact": "pattern", "search": "pattern", "trigram_similar": "pattern", "unaccent": "pattern",
    "isnull": "null",
    "overlap": "other", "contained_by": "other", "has_key": "other", "has_keys": "other",
    "has_any_keys": "other", "len": "other",
}

ATOMIC = {"django.db.transaction.atomic", "django.db.transaction.Atomic"}
METHOD_DECORATOR = {"django.utils.decorators.method_decorator"}
NON_ATOMIC_REQUESTS = {"django.db.transaction.non_atomic_requests"}
ON_COMMIT = {"django.db.transaction.on_commit"}
SET_AUTOCOMMIT = {"django.db.transaction.set_autocommit"}
COMMIT = {"django.db.transaction.commit", "django.db.transaction.rollback"}
CONNECTION = {"django.db.connection", "django.db.connections"}
CONTEXTMANAGER = {"contextlib.contextmanager", "contextlib.asynccontextmanager"}

SIGNALS = {
    "django.db.models.signals.pre_save": "save", "django.db.models.signals.post_save": "save",
    "django.db.models.signals.pre_delete": "delete", "django.db.models.signals.post_delete": "delete",
    "django.db.models.signals.m2m_changed": "m2m",
}
RECEIVER = {"django.dispatch.receiver", "django.dispatch.dispatcher.receiver"}

# Django's deletion collector, which apps subclass (collect([obj]) then delete()).
COLLECTOR = "django.db.models.deletion.Collector"

# Look-ups of a model class by name: apps.get_model("shop", "Order"), get_model("shop.Order").
GET_MODEL = {"django.apps.apps.get_model", "django.apps.registry.apps.get_model", "django.db.models.get_model",
             "django.db.models.loading.get_model"}
# Database advisory locks: a lock statement whose key is computed at run time.
ADVISORY_LOCKS = {"django_pglocks.advisory_lock", "django_pglocks.advisory_lock.advisory_lock"}
