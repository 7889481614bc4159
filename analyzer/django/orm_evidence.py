"""Which functions may hold an ORM call site, decided from the index and the source text.

The autocommit walk parses and walks (libcst) every function reached outside transactions that
holds ORM code; parsing is most of its cost, so this prefilter decides cheaply which functions
are worth it. It looks for what the walk turns into statements: a manager (`Order.objects`,
custom managers), an instance method of the ORM (`save()`, `refresh_from_db()`), a query
shortcut or cursor, a queryset of a view (`self.get_queryset()`), and, on a value the walk types
as a row (a parameter named like a model, `self` in a model, `request.user`), a relation or an
instance method. A function without any of these gives the walk nothing to report.
"""

from __future__ import annotations

import re
from functools import cached_property

from . import orm_catalog as orm
from .context import Context
from .index import FunctionInfo

# Last names of calls that run (or hand out) statements whatever the receiver is called.
_STATEMENT_CALLS = frozenset({
    *orm.INSTANCE, *orm.VALIDATING, "bulk_create", "bulk_update", "get_or_create", "update_or_create",
    "select_for_update", "in_bulk", "aggregate", "get_object_or_404", "get_list_or_404", "cursor",
    "get_queryset", "get_object", "raw",
})
_MANAGERS = frozenset({"objects", "_default_manager", "_base_manager", "queryset"})
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Every `name.attribute` pair, overlapping (`request.user.profile` gives both pairs: the attribute
# is looked ahead at, not consumed, so it starts the next pair).
_ATTRIBUTE = re.compile(r"\b([A-Za-z_]\w*)\.(?=([A-Za-z_]\w*))")


class OrmEvidence:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.index = ctx.index

    @cached_property
    def managers(self) -> frozenset[str]:
        names = set(_MANAGERS)
        for entity in self.ctx.entities.values():
            names.update(entity.managers)
        return frozenset(names)

    @cached_property
    def calls(self) -> frozenset[str]:
        return _STATEMENT_CALLS | {name.rsplit(".", 1)[-1] for name in self.ctx.extra_statements}

    @cached_property
    def row_attributes(self) -> frozenset[str]:
        """What, on a row, reaches the database: relations, reverse accessors, instance methods."""
        names = set(orm.INSTANCE) | set(orm.VALIDATING)
        for entity in self.ctx.entities.values():
            names.update(r["attribute"] for r in entity.relations)
        for accessors in self.ctx.reverse.values():
            names.update(accessors)
        for entity in self.ctx.entities.values():  # the model's own methods may return rows
            for cls in self.index.mro(entity.qualname):
                names.update(cls.methods)
        return frozenset(names)

    def holds_orm(self, fn: FunctionInfo, owner: str | None) -> bool:
        for text in fn.calls:
            words = _WORD.findall(text.split("(", 1)[0])
            if not self.managers.isdisjoint(words) or (words and words[-1] in self.calls):
                return True
            if owner is not None and words[:1] == ["self"] and self._queryset_class(owner):
                return True  # a custom manager or queryset method: `self` is rows
        # `order.lines`, `self.customer`, `request.user.profile`, `request.project.check_set`: a
        # name the walk types as a row (named like a model, `self` in a model), then what loads.
        text = self._text(fn)
        rows = self.row_attributes
        loading = {name for name, attribute in _ATTRIBUTE.findall(text) if attribute in rows}
        if not loading:
            return False
        if not loading.isdisjoint(self.ctx.entity_by_param_name) or (
                "self" in loading and owner is not None and self._row_class(owner)):
            return True
        # Annotated names (`order: Order`, `obj: "shop.Order"`) are looked for last: the
        # pattern names every model, the slowest search here.
        return self.annotation is not None and not loading.isdisjoint(self.annotation.findall(text))

    @cached_property
    def annotation(self) -> re.Pattern | None:
        # Entity names come from the scanned code (oscar's get_model() names among them): escaped.
        models = sorted({e.name for e in self.ctx.entities.values()})
        if not models:
            return None
        return re.compile(r"\b([A-Za-z_]\w*)\s*:\s*[\"']?(?:[\w.]+\.)?(?:" + "|".join(map(re.escape, models)) + r")\b")

    def _text(self, fn: FunctionInfo) -> str:
        return self.index.modules[fn.module].source.lines_between(fn.def_line, fn.end_line)

    @cached_property
    def row_classes(self) -> frozenset[str]:
        """Models and the application's classes they inherit from (mixins, abstract bases)."""
        return frozenset(c.qualname for e in self.ctx.entities.values() for c in self.index.mro(e.qualname))

    def _row_class(self, qualname: str) -> bool:
        return qualname in self.row_classes

    @cached_property
    def _queryset_classes(self) -> frozenset[str]:
        return frozenset(q for e in self.ctx.entities.values() for q in e.queryset_classes)

    def _queryset_class(self, qualname: str) -> bool:
        return qualname in self._queryset_classes
