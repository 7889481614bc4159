"""Entities: Django model classes, their keys, unique sets, relations and managers.

A class is a model when its bases reach `django.db.models.Model` (directly, through the
app's own abstract bases, or through a known third-party base). Field declarations are read
from the class body as written; the small call expressions are parsed (parsing.parse_expression).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

import libcst as cst

from .index import ClassInfo, RepoIndex
from .parsing import parse_expression

MODEL_ROOTS = {
    "django.db.models.Model", "django.db.models.base.Model",
}
# Third-party bases that are models, with the columns they add.
THIRD_PARTY_BASES: dict[str, dict] = {
    "django.contrib.auth.models.AbstractUser": {"fields": ["username", "email", "first_name", "last_name", "password",
                                                          "is_staff", "is_active", "date_joined", "last_login"],
                                               "unique": [["username"]]},
    "django.contrib.auth.models.AbstractBaseUser": {"fields": ["password", "last_login"]},
    "django.contrib.auth.models.User": {"fields": ["username", "email"], "unique": [["username"]]},
    "django.contrib.auth.base_user.AbstractBaseUser": {"fields": ["password", "last_login"]},
    "django.contrib.auth.models.PermissionsMixin": {"fields": ["is_superuser"]},
    "mptt.models.MPTTModel": {"fields": ["lft", "rght", "tree_id", "level"]},
    "treebeard.mp_tree.MP_Node": {"fields": ["path", "depth", "numchild"], "unique": [["path"]]},
    "treebeard.ns_tree.NS_Node": {"fields": ["lft", "rgt", "tree_id", "depth"]},
    "polymorphic.models.PolymorphicModel": {"fields": ["polymorphic_ctype"]},
    "model_utils.models.TimeStampedModel": {"fields": ["created", "modified"]},
    "model_utils.models.SoftDeletableModel": {"fields": ["is_removed"]},
    "model_utils.models.StatusModel": {"fields": ["status", "status_changed"]},
    "django_extensions.db.models.TimeStampedModel": {"fields": ["created", "modified"]},
    "django_extensions.db.models.TitleSlugDescriptionModel": {"fields": ["title", "slug", "description"]},
    "ordered_model.models.OrderedModel": {"fields": ["order"]},
    "safedelete.models.SafeDeleteModel": {"fields": ["deleted"]},
    "wagtail.models.Page": {"fields": ["title", "slug", "path", "depth"]},
    "wagtail.core.models.Page": {"fields": ["title", "slug", "path", "depth"]},
}
RELATION_FIELDS = {"ForeignKey": "fk", "OneToOneField": "o2o", "ManyToManyField": "m2m",
                   "ParentalKey": "fk", "ParentalManyToManyField": "m2m", "TreeForeignKey": "fk",
                   "TreeOneToOneField": "o2o", "TreeManyToManyField": "m2m"}
NON_COLUMN_FIELDS = {"GenericRelation", "GenericForeignKey"}


@dataclass
class Entity:
    name: str
    qualname: str
    table: str
    file: str
    line: int
    pk: list[str]
    unique: list[list[str]]
    fields: list[str]
    relations: list[dict]
    abstract: bool
    managers: list[str]                              # manager attribute names (objects, published)
    queryset_classes: list[str] = field(default_factory=list)  # classes whose methods a manager offers
    field_types: dict[str, str] = field(default_factory=dict)
    on_delete: dict[str, str] = field(default_factory=dict)     # fk/o2o attribute -> CASCADE, SET_NULL, ...
    # Multi-table inheritance: the concrete models this one extends, nearest first (each has
    # its own table and a row per child row); `polymorphic` for django-polymorphic models.
    parents: list[str] = field(default_factory=list)
    polymorphic: bool = False
    proxy: bool = False

    def ir(self) -> dict:
        return {
            "ir": 1, "type": "entity", "name": self.name, "qualname": self.qualname, "table": self.table,
            "file": self.file, "line": self.line, "pk": self.pk, "unique": self.unique, "fields": self.fields,
            "relations": self.relations, "abstract": self.abstract, "managers": self.managers,
        }


def _callee_name(expr: cst.BaseExpression) -> str:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return f"{_callee_name(expr.value)}.{expr.attr.value}"
    if isinstance(expr, cst.Call):
        return _callee_name(expr.func) + "()"
    return ""


def _literal(expr: cst.BaseExpression):
    """Python value of simple literals (strings, numbers, booleans, lists/tuples of those)."""
    if isinstance(expr, cst.SimpleString):
        return expr.evaluated_value
    if isinstance(expr, cst.ConcatenatedString):
        return expr.evaluated_value
    if isinstance(expr, cst.Name) and expr.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[expr.value]
    if isinstance(expr, cst.Integer):
        return int(expr.value)
    if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
        return [_literal(e.value) for e in expr.elements]
    return None


@functools.lru_cache(maxsize=4096)
def _parse(text: str) -> cst.BaseExpression | None:
    """The expression of a class-level assignment (`models.CharField(max_length=80)`); the same
    field declarations recur across models, and the trees are only read: parsed once each."""
    try:
        return parse_expression(text)
    except Exception:  # noqa: BLE001 - libcst raises several error types for odd text
        return None


def _kwargs(call: cst.Call) -> dict[str, cst.BaseExpression]:
    return {a.keyword.value: a.value for a in call.args if a.keyword is not None}


def _target_name(expr: cst.BaseExpression | None, owner: str, auth_user: str) -> str | None:
    if expr is None:
        return None
    value = _literal(expr)
    if isinstance(value, str):
        if value == "self":
            return owner
        return value.split(".")[-1]
    text = _callee_name(expr)
    if text.endswith("AUTH_USER_MODEL") or text.endswith("get_user_model()"):
        return auth_user
    return text.split(".")[-1] if text else None


class ModelExtractor:
    def __init__(self, index: RepoIndex, auth_user: str = "User") -> None:
        self.index = index
        self.auth_user = auth_user
        self._is_model: dict[str, bool] = {}

    def is_model(self, qualname: str, _stack: frozenset = frozenset()) -> bool:
        if qualname in self._is_model:
            return self._is_model[qualname]
        if qualname in MODEL_ROOTS or qualname in THIRD_PARTY_BASES:
            return True
        info = self.index.cls(qualname)
        result = False
        if info is not None and qualname not in _stack:
            for base in self.index.class_bases(info):
                if self.is_model(base, _stack | {qualname}):
                    result = True
                    break
        elif info is None:
            # Out of the repository: a base from a models module whose name says Model.
            last = qualname.split(".")[-1]
            result = ".models" in qualname and last.endswith("Model") and not last.startswith("Base")
        self._is_model[qualname] = result
        return result

    def extract(self) -> list[Entity]:
        entities: list[Entity] = []
        for qualname in sorted(self.index.classes):
            info = self.index.classes[qualname]
            if "." in qualname[len(info.module) + 1:]:
                continue  # inner classes (Meta) are not models
            if not any(self.is_model(b) for b in self.index.class_bases(info)):
                continue
            entities.append(self._entity(info))
        seen: dict[str, int] = {}
        for entity in entities:
            seen[entity.name] = seen.get(entity.name, 0) + 1
        taken: set[str] = set()
        for entity in sorted(entities, key=lambda e: (e.abstract, e.qualname)):
            if entity.name in taken:
                entity.name = entity.qualname
            taken.add(entity.name)
        self._link_parents(entities)
        return entities

    def _link_parents(self, entities: list[Entity]) -> None:
        """Concrete ancestors of each model (multi-table inheritance; proxies add no table)."""
        by_qualname = {e.qualname: e for e in entities}
        for entity in entities:
            if entity.abstract or entity.proxy:
                continue
            entity.parents = [by_qualname[c.qualname].name for c in self.index.mro(entity.qualname)[1:]
                              if c.qualname in by_qualname and not by_qualname[c.qualname].abstract]

    def _entity(self, info: ClassInfo) -> Entity:
        chain = self.index.mro(info.qualname)
        external = [b for c in chain for b in self.index.class_bases(c) if b in THIRD_PARTY_BASES]
        fields: dict[str, str] = {}
        relations: dict[str, dict] = {}
        unique: list[list[str]] = []
        pk: list[str] = []
        managers: list[str] = []
        qs_classes: list[str] = []
        on_delete: dict[str, str] = {}
        for base in external:
            for name in THIRD_PARTY_BASES[base].get("fields", []):
                fields.setdefault(name, "inherited")
            unique.extend(THIRD_PARTY_BASES[base].get("unique", []))
            if base == "mptt.models.MPTTModel":
                relations.setdefault("parent", {"attribute": "parent", "kind": "fk", "target": info.name,
                                                "reverse": "children"})
        # Nearest class last, so that overrides win.
        for cls in reversed(chain):
            for name, text in cls.assigns.items():
                self._assign(info, cls, name, text, fields, relations, unique, pk, managers, qs_classes, on_delete)
        meta = info.inner.get("Meta")
        abstract = bool(meta and meta.assigns.get("abstract", "").strip() == "True")
        proxy = bool(meta and meta.assigns.get("proxy", "").strip() == "True")
        table = None
        for cls in chain:
            m = cls.inner.get("Meta")
            if m is None:
                continue
            if table is None and "db_table" in m.assigns:
                table = _literal(_parse(m.assigns["db_table"]) or cst.Name("None"))
            for key in ("unique_together",):
                if key in m.assigns:
                    value = _literal(_parse(m.assigns[key]) or cst.Name("None"))
                    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
                        value = [value]
                    for group in value or []:
                        if isinstance(group, list) and all(isinstance(v, str) for v in group):
                            unique.append(group)
            if "constraints" in m.assigns:
                for group in re.findall(r"UniqueConstraint\(([^)]*)\)", m.assigns["constraints"], re.S):
                    match = re.search(r"fields\s*=\s*[\[(]([^\])]*)[\])]", group)
                    if match and "condition" not in group:
                        names = re.findall(r"['\"]([\w]+)['\"]", match.group(1))
                        if names:
                            unique.append(names)
        if not pk:
            pk = ["id"]
            fields = {"id": "AutoField", **fields}
        app_label = self._app_label(info.module)
        normalised_unique = []
        for group in unique:
            names = sorted({self._attr(n, relations) for n in group})
            if names not in normalised_unique and names != sorted(pk):
                normalised_unique.append(names)
        if not managers:
            managers = ["objects"]
        return Entity(
            name=info.name, qualname=info.qualname,
            table=table if isinstance(table, str) else f"{app_label}_{info.name.lower()}",
            file=self.index.modules[info.module].rel, line=info.line, pk=pk, unique=sorted(normalised_unique),
            fields=sorted(fields), relations=[relations[k] for k in sorted(relations)], abstract=abstract,
            managers=sorted(set(managers)), queryset_classes=qs_classes, field_types=fields,
            on_delete=on_delete, polymorphic="polymorphic.models.PolymorphicModel" in external, proxy=proxy,
        )

    @staticmethod
    def _attr(name: str, relations: dict) -> str:
        if name.endswith("_id") and name[:-3] in relations:
            return name[:-3]
        return name

    @staticmethod
    def _app_label(module: str) -> str:
        parts = module.split(".")
        if "models" in parts:
            idx = parts.index("models")
            return parts[idx - 1] if idx > 0 else parts[0]
        return parts[-2] if len(parts) > 1 else parts[0]

    def _assign(self, owner: ClassInfo, cls: ClassInfo, name: str, text: str, fields, relations, unique, pk,
                managers, qs_classes, on_delete) -> None:
        expr = _parse(text)
        if not isinstance(expr, cst.Call):
            return
        callee = _callee_name(expr.func)
        last = callee.rstrip("()").split(".")[-1]
        resolved = self.index.resolve(cls.module, callee.split("(")[0]) if callee else ""
        if last.endswith("TaggableManager"):  # django-taggit: a field whose methods run statements
            fields[name] = last
            return
        if "Manager" in callee or "as_manager" in callee or "from_queryset" in callee:
            managers.append(name)
            self._manager_classes(cls, expr, qs_classes)
            return
        if resolved in self.index.classes and self._is_manager_class(resolved):
            managers.append(name)
            qs_classes.append(resolved)
            return
        if last in NON_COLUMN_FIELDS or not (last.endswith("Field") or last in RELATION_FIELDS or last.endswith("Key")):
            return
        kwargs = _kwargs(expr)
        fields[name] = last
        if _literal(kwargs.get("primary_key", cst.Name("False"))) is True:
            pk[:] = [name]
        if _literal(kwargs.get("unique", cst.Name("False"))) is True:
            unique.append([name])
        if last in RELATION_FIELDS:
            kind = RELATION_FIELDS[last]
            positional = [a.value for a in expr.args if a.keyword is None]
            rule = kwargs.get("on_delete", positional[1] if len(positional) > 1 else None)
            if rule is not None and kind in ("fk", "o2o"):
                on_delete[name] = _callee_name(rule.func if isinstance(rule, cst.Call) else rule).split(".")[-1]
            target = _target_name(kwargs.get("to", positional[0] if positional else None), owner.name, self.auth_user)
            related = kwargs.get("related_name")
            reverse = _literal(related) if related is not None else None
            if isinstance(reverse, str) and "%(" in reverse:
                reverse = reverse.replace("%(class)s", owner.name.lower()).replace("%(app_label)s", "")
            if related is None:
                reverse = owner.name.lower() if kind == "o2o" else f"{owner.name.lower()}_set"
            if reverse == "+" or (isinstance(reverse, str) and reverse.endswith("+")):
                reverse = None
            relations[name] = {"attribute": name, "kind": kind, "target": target,
                               "reverse": reverse if isinstance(reverse, str) else None}
            if kind == "o2o":
                unique.append([name])

    def _is_manager_class(self, qualname: str) -> bool:
        return any("Manager" in b or "QuerySet" in b for c in self.index.mro(qualname) for b in c.bases)

    def _manager_classes(self, cls: ClassInfo, expr: cst.Call, out: list[str]) -> None:
        """Collect the app's classes whose methods the manager exposes."""
        for node in _walk_names(expr):
            resolved = self.index.resolve(cls.module, node)
            if resolved in self.index.classes:
                out.append(resolved)
                # A module-level `XManager = BaseManager.from_queryset(XQuerySet)` alias.
        callee = _callee_name(expr.func).split("(")[0]
        target = self.index.resolve(cls.module, callee)
        module_name, _, alias = target.rpartition(".")
        module = self.index.modules.get(module_name)
        if module and alias in module.assigns:
            inner = _parse(module.assigns[alias])
            if inner is not None:
                for node in _walk_names(inner):
                    resolved = self.index.resolve(module_name, node)
                    if resolved in self.index.classes:
                        out.append(resolved)


def _walk_names(expr: cst.CSTNode) -> list[str]:
    names: list[str] = []

    class Visitor(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> bool:
            text = _callee_name(node)
            if text and "(" not in text:
                names.append(text)
            return True

        def visit_Name(self, node: cst.Name) -> None:
            names.append(node.value)

    expr.visit(Visitor())
    return names
