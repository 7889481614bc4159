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
    # django-polymorphic: the query's rows (and which child tables are read after them).
    "non_polymorphic", "instance_of", "not_instance_of",
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
# Classes whose instances are the application's own signals, and their methods that run the
# receivers synchronously (inside the caller's transaction).
SIGNAL_CLASSES = {"django.dispatch.Signal", "django.dispatch.dispatcher.Signal"}
CUSTOM_SIGNAL_SENDS = {"send", "send_robust"}
RECEIVER = {"django.dispatch.receiver", "django.dispatch.dispatcher.receiver"}

# Django's deletion collector, which apps subclass (collect([obj]) then delete()).
COLLECTOR = "django.db.models.deletion.Collector"

# Look-ups of a model class by name: apps.get_model("shop", "Order"), get_model("shop.Order").
GET_MODEL = {"django.apps.apps.get_model", "django.apps.registry.apps.get_model", "django.db.models.get_model",
             "django.db.models.loading.get_model"}
# Database advisory locks: a lock statement whose key is computed at run time.
ADVISORY_LOCKS = {"django_pglocks.advisory_lock", "django_pglocks.advisory_lock.advisory_lock"}

# ---------------------------------------------------------------- statements inside libraries
# What a call into Django's contrib apps or a common third-party library runs, as data. A
# statement template is (kind, attribute, op): the statement's kind, the attribute it selects
# by ("*" for none: a full scan) and the predicate operator. analyzer/django/orm_library.py
# applies them; the result shape is "instance" (one row), "rows", "queryset" (lazy, same
# entity) or "none".

# Manager methods of library models: (entity, method) -> (statements, shape).
# ContentTypeManager and SiteManager cache per process: the first call in a process reads the
# row, later ones do not. txscan reports the read (a cold cache runs it), so a transaction
# whose later statements use the content type's id is not reported one-shot on a guess.
LIBRARY_MANAGER_CALLS = {
    ("ContentType", "get_for_model"): ((("read", "model", "eq"),), "instance"),
    ("ContentType", "get_for_models"): ((("read", "model", "in"),), "rows"),
    ("ContentType", "get_for_id"): ((("read", "pk", "eq"),), "instance"),
    ("ContentType", "get_by_natural_key"): ((("read", "model", "eq"),), "instance"),
    ("Site", "get_current"): ((("read", "pk", "eq"),), "instance"),
    ("Permission", "get_by_natural_key"): ((("read", "codename", "eq"),), "instance"),
    ("Group", "get_by_natural_key"): ((("read", "name", "eq"),), "instance"),
}
# Manager methods that return the same rows bound to another database or manager.
MANAGER_PASSTHROUGH = {"db_manager", "using", "get_queryset", "all"}

# Tree libraries: the model's library base (in its MRO) -> family of TREE_CALLS.
TREE_BASES = {
    "mptt.models.MPTTModel": "mptt", "mptt.models.MPTTModelBase": "mptt",
    "treebeard.mp_tree.MP_Node": "treebeard", "treebeard.ns_tree.NS_Node": "treebeard",
    "treebeard.al_tree.AL_Node": "treebeard", "treebeard.models.Node": "treebeard",
}
_TREE_RANGE = ("read", "tree", "range")
_SHIFT = ("write", "tree", "range")
# (family, method) -> (statements, shape). Instance methods, and (marked `manager`) methods of
# the model's manager or class. "tree" stands for the tree columns (lft/rght/tree_id of mptt,
# path/depth of treebeard's materialised path): a range predicate on them.
TREE_CALLS = {
    # django-mptt: querysets over the node's tree columns, evaluated when used.
    ("mptt", "get_descendants"): ((), "queryset"), ("mptt", "get_children"): ((), "queryset"),
    ("mptt", "get_ancestors"): ((), "queryset"), ("mptt", "get_siblings"): ((), "queryset"),
    ("mptt", "get_family"): ((), "queryset"), ("mptt", "get_leafnodes"): ((), "queryset"),
    ("mptt", "get_root"): ((_TREE_RANGE,), "instance"),
    ("mptt", "get_next_sibling"): ((_TREE_RANGE,), "instance"),
    ("mptt", "get_previous_sibling"): ((_TREE_RANGE,), "instance"),
    # move_to/insert_at read the target's position, then shift the tree columns of a range.
    ("mptt", "move_to"): ((("read", "pk", "eq"), _SHIFT), "none"),
    ("mptt", "insert_at"): ((("read", "pk", "eq"), _SHIFT), "none"),
    ("mptt", "manager:insert_node"): ((("read", "pk", "eq"), _SHIFT), "none"),
    ("mptt", "manager:move_node"): ((("read", "pk", "eq"), _SHIFT), "none"),
    ("mptt", "manager:rebuild"): ((("read", "*", "eq"), ("write", "pk", "eq")), "none"),
    ("mptt", "manager:partial_rebuild"): ((_TREE_RANGE, ("write", "pk", "eq")), "none"),
    # django-treebeard.
    ("treebeard", "get_descendants"): ((), "queryset"), ("treebeard", "get_children"): ((), "queryset"),
    ("treebeard", "get_ancestors"): ((), "queryset"), ("treebeard", "get_siblings"): ((), "queryset"),
    ("treebeard", "get_parent"): ((_TREE_RANGE,), "instance"),
    ("treebeard", "get_root"): ((_TREE_RANGE,), "instance"),
    ("treebeard", "get_first_child"): ((_TREE_RANGE,), "instance"),
    ("treebeard", "get_last_child"): ((_TREE_RANGE,), "instance"),
    ("treebeard", "get_descendant_count"): ((_TREE_RANGE,), "value"),
    # add_child reads the last child (its path), inserts the node and bumps the parent's numchild.
    ("treebeard", "add_child"): ((_TREE_RANGE, ("insert", "", ""), ("write", "pk", "eq")), "instance"),
    ("treebeard", "add_sibling"): ((_TREE_RANGE, ("insert", "", ""), ("write", "tree", "range")), "instance"),
    ("treebeard", "move"): ((_TREE_RANGE, _SHIFT), "none"),
    ("treebeard", "manager:add_root"): ((_TREE_RANGE, ("insert", "", "")), "instance"),
    ("treebeard", "manager:get_root_nodes"): ((), "queryset"),
    ("treebeard", "manager:get_tree"): ((_TREE_RANGE,), "rows"),
    ("treebeard", "manager:fix_tree"): ((("read", "*", "eq"), ("write", "pk", "eq")), "none"),
}

# django-taggit: methods of a TaggableManager field (`post.tags`). add() reads the tags by name,
# inserts the missing ones, reads the item's existing tag links and inserts the missing links.
TAGGIT_MANAGER_CLASS = "TaggableManager"
TAGGIT_CALLS = {
    "add": ((("Tag", "read", "name", "in"), ("Tag", "insert", "", ""),
             ("TaggedItem", "read", "object_id", "eq"), ("TaggedItem", "insert", "", "")), "none"),
    "remove": ((("TaggedItem", "delete", "object_id", "eq"),), "none"),
    "clear": ((("TaggedItem", "delete", "object_id", "eq"),), "none"),
    "set": ((("TaggedItem", "read", "object_id", "eq"), ("TaggedItem", "delete", "object_id", "eq"),
             ("Tag", "read", "name", "in"), ("Tag", "insert", "", ""), ("TaggedItem", "insert", "", "")), "none"),
    "all": ((("Tag", "read", "object_id", "eq"),), "rows"),
    "names": ((("Tag", "read", "object_id", "eq"),), "rows"),
    "slugs": ((("Tag", "read", "object_id", "eq"),), "rows"),
    "most_common": ((("Tag", "read", "*", "eq"),), "rows"),
}

# django-guardian shortcuts: qualified name -> statements (entity, kind, attribute, op).
GUARDIAN_CALLS = {
    "guardian.shortcuts.assign_perm": (
        ("Permission", "read", "codename", "eq"), ("UserObjectPermission", "read", "object_pk", "eq"),
        ("UserObjectPermission", "insert", "", "")),
    "guardian.shortcuts.remove_perm": (
        ("Permission", "read", "codename", "eq"), ("UserObjectPermission", "delete", "object_pk", "eq")),
    "guardian.shortcuts.get_perms": (("UserObjectPermission", "read", "object_pk", "eq"),),
    "guardian.shortcuts.get_objects_for_user": (
        ("Permission", "read", "codename", "in"), ("UserObjectPermission", "read", "user", "eq")),
    "guardian.shortcuts.get_users_with_perms": (("UserObjectPermission", "read", "object_pk", "eq"),),
}
