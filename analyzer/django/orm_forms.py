"""Forms and serializers in the walk: `ModelForm.save()`, DRF `serializer.save()` and model
formsets write the model named in their `Meta.model`, through the application's own
`create()`/`update()` overrides when it has them. Views reach them through their
`serializer_class`/`form_class` and DRF's hooks (perform_create, perform_update, perform_destroy)."""

from __future__ import annotations

import libcst as cst


from .values import UNKNOWN, QuerySet, Val, ir_sources, plain, step_ids, union, value_sources, replace
from .walk_helpers import _term

_NO_VALUE = Val("plain", frozenset())
# What the serializer passed to a DRF hook does on save().
_HOOK_MODE = {"perform_create": "create", "perform_update": "update"}
# The class attribute of a view that names its form or serializer class.
VIEW_FORM_ATTRIBUTES = ("serializer_class", "form_class")
# Django's generic delete views: super().<method>() deletes the view's object.
DELETE_VIEWS = {"DeleteView", "BaseDeleteView", "DeletionMixin"}
DELETE_VIEW_METHODS = {"delete", "form_valid", "post"}
# Attributes of a generic view that stand for its model's rows.
GENERIC_VIEW_ROWS = ("queryset", "model", "object")
# Formset factories: the model is their first argument (inline: the second).
FORMSET_FACTORIES = {"modelformset_factory": 0, "inlineformset_factory": 1}


class FormsMixin:
    """Mixed into Walker (walker.py); uses its emit_* methods, env and context."""

    def meta_model(self, class_qualname: str | None) -> str | None:
        """The entity of a ModelForm/ModelSerializer: `class Meta: model = Order` along its bases."""
        if not class_qualname:
            return None
        for info in self.ctx.index.mro(class_qualname):
            meta = info.inner.get("Meta")
            text = meta.assigns.get("model", "").strip() if meta is not None else ""
            if text:
                entity = self.ctx.entity_for_class(self.ctx.index.resolve(info.module, text))
                if entity is None and text.startswith("get_user_model"):
                    entity = self.ctx.entities.get(self.ctx.auth_user)
                return entity.name if entity is not None else None
        return None

    def view_form_class(self, view_qualname: str | None) -> str | None:
        """The form or serializer class a view declares (`serializer_class = OrderSerializer`)."""
        if not view_qualname:
            return None
        for info in self.ctx.index.mro(view_qualname):
            for attr in VIEW_FORM_ATTRIBUTES:
                text = info.assigns.get(attr, "").strip()
                if text and text.replace(".", "").replace("_", "").isalnum():
                    qualname = self.ctx.index.resolve(info.module, text)
                    if qualname in self.ctx.index.classes:
                        return qualname
        return None

    def form_object(self, form_class: str, mode: str = "") -> Val:
        """A form/serializer instance; `mode` is "update" when built with an instance, "create"
        when built without one, "" when the walk does not know."""
        if not mode:
            function = self.env.get("__qualname__")
            mode = _HOOK_MODE.get((function.ref or "").rsplit(".", 1)[-1], "") if function else ""
        return Val("obj", frozenset({("input", "form")}), ref=form_class, text=mode)

    def validate_unique(self, node, entity_name: str | None, sources) -> None:
        """full_clean()/validate_unique() and a ModelForm's or serializer's is_valid(): one read
        per unique attribute set of the model, checking that no other row holds the values."""
        entity = self.ctx.entities.get(entity_name or "")
        if entity is None:
            return
        for unique in entity.unique:
            terms = [_term(attr, attr, "eq", sources or {("input", attr)}) for attr in unique]
            predicate = terms[0] if len(terms) == 1 else {"bool": "and", "args": terms}
            self.emit_statement(node, entity.name, "read", "validate_unique", predicate)

    def form_save(self, node: cst.Call, form_class: str, form: Val, keywords) -> Val:
        """`form.save()` / `serializer.save(**extra)`: the app's create()/update() when it has
        them, otherwise an insert or update of `Meta.model`; both when the walk cannot tell."""
        entity = self.meta_model(form_class)
        extra = [(k, v) for k, v in keywords if k != "commit"]
        modes = [form.text] if form.text in ("create", "update") else ["create", "update"]
        arms = []
        result: Val = _NO_VALUE
        for mode in modes:
            saved, self.out = self.out, []
            try:
                result = self._save_one(node, form_class, entity, mode, form, extra)
            finally:
                arm, self.out = self.out, saved
            arms.append(arm)
        if len(arms) == 1:
            self.out.extend(arms[0])
        else:
            self.out.append({**self._base(node, "branch"), "uses": [], "arms": arms})
        return result

    def _save_one(self, node, form_class: str, entity: str | None, mode: str, form: Val, extra,
                  follow_override: bool = True) -> Val:
        override = self.ctx.index.find_method(form_class, mode) if follow_override else None
        validated = plain(value_sources(form) | union(v for _, v in extra), "validated_data")
        if override is not None and override.qualname not in self.stack:
            instance = form.attr_map().get("instance")
            if instance is None:
                instance = (Val("instance", frozenset({("input", "instance")}), entity=entity,
                                key=frozenset({("input", "instance.pk")})) if entity else plain({("input", "instance")}))
            args = [validated] if mode == "create" else [instance, validated]
            return self.call_function(node, override, args, [], form)
        if entity is None:
            self.emit_unresolved(node, f"{form_class}.save", "unresolved-receiver",
                                 "form or serializer without Meta.model")
            return plain(UNKNOWN)
        values = [{"attribute": self.normalise(entity, k)[0], "sources": ir_sources(value_sources(v))}
                  for k, v in extra]
        uses = step_ids(value_sources(form) | union(v for _, v in extra))
        if mode == "create":
            sid = self.emit_statement(node, entity, "insert", "form.save", None, values=values, uses=uses)
            return Val("instance", frozenset({("generated", sid)}), entity=entity, origin=sid,
                       key=frozenset({("generated", sid)}))
        instance = form.attr_map().get("instance")
        if instance is not None and instance.kind == "instance" and instance.entity == entity:
            # ModelForm(data, instance=order): the row read earlier is written back.
            self.instance_statement(node, instance, None, "save", "form.save", extra)
            return instance
        sid = self.emit_statement(node, entity, "write", "form.save",
                                  _term("pk", "pk", "eq", {("input", "instance.pk")}), values=values, uses=uses)
        return Val("instance", frozenset({("input", "instance")}), entity=entity,
                   key=frozenset({("input", "instance.pk")}))

    def view_object(self, node, form_class: str) -> Val | None:
        """DRF's get_object() in update/destroy: the row of the serializer's model named by the URL."""
        entity = self.meta_model(form_class)
        if entity is None:
            return None
        key = frozenset({("input", "kwargs.pk")})
        sid = self.emit_statement(node, entity, "read", "get_object", _term("pk", "pk", "eq", key))
        return Val("instance", frozenset({("result", sid)}), entity=entity, origin=sid, key=key)

    def view_model_object(self, node, view_qualname: str) -> Val | None:
        """Django's SingleObjectMixin.get_object() / DRF's GenericAPIView.get_object() when the
        view does not define it: the row of its `model`, `queryset` or serializer's model by the URL."""
        entity = self.declared_view_entity(view_qualname)
        if entity is None:
            return None
        key = frozenset({("input", "kwargs.pk")})
        sid = self.emit_statement(node, entity, "read", "get_object", _term("pk", "pk", "eq", key))
        return Val("instance", frozenset({("result", sid)}), entity=entity, origin=sid, key=key)

    def declared_view_entity(self, view_qualname: str) -> str | None:
        """The model a view declares: `model = X`, `queryset = X.objects...`, or its form's or
        serializer's Meta.model."""
        declared = self.class_attribute(view_qualname, "model")
        if declared is not None and declared.entity:
            return declared.entity
        for info in self.ctx.index.mro(view_qualname):
            text = info.assigns.get("queryset", "")
            head = text.split(".objects", 1)[0].strip() if ".objects" in text else ""
            found = self.ctx.entity_for_class(self.ctx.index.resolve(info.module, head)) if head else None
            if found is not None:
                return found.name
        return self.meta_model(self.view_form_class(view_qualname))

    def hook_argument(self, node, hook: str, form_class: str) -> Val:
        """What DRF passes to perform_create/perform_update/perform_destroy (and Django's
        FormView to form_valid): a serializer (with the object it updates) or the object itself."""
        if hook == "perform_create":
            return self.form_object(form_class, "create")
        if hook in ("perform_update", "perform_destroy"):
            instance = self.view_object(node, form_class)
            if hook == "perform_destroy":
                return instance or plain({("input", "instance")})
            form = self.form_object(form_class, "update")
            return replace(form, attrs=(("instance", instance),)) if instance is not None else form
        return self.form_object(form_class, "")

    def framework_default_hook(self, node, hook: str, this: Val | None) -> Val | None:
        """DRF's own perform_create/perform_update/perform_destroy, when the view does not
        override them: save or delete through the view's serializer class."""
        form_class = self.view_form_class(self.cls)
        if form_class is None or hook not in ("perform_create", "perform_update", "perform_destroy"):
            return None
        argument = self.hook_argument(node, hook, form_class)
        if hook == "perform_destroy":
            if argument.kind == "instance":
                self.instance_statement(node, argument, None, "delete", "instance.delete", [])
            return _NO_VALUE
        return self.form_save(node, form_class, argument, [])

    def framework_delete(self, node, method: str, this: Val | None) -> Val | None:
        """`super().delete()` (DeletionMixin.delete) or `super().form_valid()`/`super().post()`
        (Django 4+ BaseDeleteView) in a DeleteView: `self.object = self.get_object()`, then
        `self.get_success_url()` (the view's own, followed), then `self.object.delete()`."""
        if not self.cls or method not in DELETE_VIEW_METHODS or this is None or this.kind != "self":
            return None
        bases = self.ctx.index.linearization(self.cls)
        if not any(b.startswith("django.views") and b.rsplit(".", 1)[-1] in DELETE_VIEWS for b in bases):
            return None
        own = self.ctx.index.find_method(self.cls, "get_object")
        obj = self.call_function(node, own, [], [], this) if own is not None else \
            self.view_model_object(node, self.cls)
        if obj is None or obj.kind != "instance":
            self.emit_unresolved(node, "self.object.delete", "unresolved-receiver",
                                 "the delete view's model is not known here")
            return _NO_VALUE
        this = replace(this, attrs=tuple(a for a in this.attrs if a[0] != "object") + (("object", obj),))
        self.env["self"] = this
        success = self.ctx.index.find_method(self.cls, "get_success_url")
        if success is not None and success.qualname not in self.stack:
            self.call_function(node, success, [], [], this)
        self.instance_statement(node, obj, None, "delete", "delete", [])
        return _NO_VALUE

    def generic_view_rows(self, node, this: Val, attr: str) -> Val | None:
        """`self.queryset` / `self.model` / `self.object` in a view class: those of the model it
        declares, or, when it leaves them to its subclasses (`queryset = None`), rows of a model the walk cannot name. Its statements are reported
        without an entity, and the transaction is incomplete (unresolved-receiver)."""
        if attr not in GENERIC_VIEW_ROWS or this.kind != "self" or not this.ref:
            return None
        bases = self.ctx.index.linearization(this.ref)
        if not any(b.startswith(("django.views", "rest_framework.")) for b in bases):
            return None
        entity = self.declared_view_entity(this.ref)
        if entity is not None:
            return self.view_rows(entity, attr)
        chosen = self.subclass_rows(this.ref, attr)  # any of the models its subclasses declare
        if chosen is not None:
            return chosen
        self.emit_unresolved(node, f"self.{attr}", "unresolved-receiver",
                             "a generic view's model, chosen by its subclasses")
        if attr == "model":
            return Val("model", frozenset({("input", "self.model")}))
        if attr == "object":
            return Val("instance", frozenset({("input", "self.object")}), key=frozenset({("input", "self.object.pk")}))
        return Val("qs", frozenset({("input", "self.queryset")}), qs=QuerySet(None))

    def view_rows(self, entity: str, attr: str) -> Val:
        """`self.queryset` / `self.model` / `self.object` of a view whose model is `entity`."""
        target = self.ctx.entities.get(entity)
        providers = tuple(target.queryset_classes) if target else ()
        if attr == "object":  # set by the view's dispatch/get_object: the row named by the URL
            return Val("instance", frozenset({("input", "self.object")}), entity=entity,
                       key=frozenset({("input", "self.object.pk")}))
        return Val("model", entity=entity) if attr == "model" else \
            Val("qs", qs=QuerySet(entity, provider_classes=providers))

    def formset(self, ref: str, positional: list[Val], keywords=()) -> Val | None:
        """`modelformset_factory(Model, ...)` / `modelformset_factory(model=Model)`: a formset
        class over that model."""
        position = FORMSET_FACTORIES.get(ref.rsplit(".", 1)[-1])
        if position is None:
            return None
        model = positional[position] if len(positional) > position else dict(keywords).get("model")
        if model is None or model.kind != "model":
            return None
        return Val("formset", entity=model.entity, ref=ref)

    def formset_save(self, node, formset: Val, keywords=()) -> Val:
        """A model formset's save(): per form, an insert (new), an update (changed) or a delete.
        `save(commit=False)` runs nothing and returns the unsaved instances."""
        entity = formset.entity
        commit = dict(keywords).get("commit")
        if commit is not None and commit.text == "False":
            return Val("rows", frozenset({("input", "formset")}), entity=entity)
        saved, self.out = self.out, []
        try:
            self.emit_statement(node, entity, "insert", "formset.save", None)
            self.emit_statement(node, entity, "write", "formset.save", _term("pk", "pk", "eq", {("input", "form.pk")}))
            self.emit_statement(node, entity, "delete", "formset.save", _term("pk", "pk", "eq", {("input", "form.pk")}))
        finally:
            body, self.out = self.out, saved
        self.out.append({**self._base(node, "loop"), "uses": [], "body": body})
        return plain({("input", "formset")})

    def framework_save(self, node, method: str, this: Val | None, keywords) -> Val | None:
        """`super().save()` in a form/serializer's own save(), `super().create(data)` /
        `super().update(instance, data)` in its create()/update(): the framework's default."""
        entity = self.meta_model(self.cls)
        if entity is None:
            return None
        form = this if this is not None and this.kind == "obj" else self.form_object(self.cls)
        if method == "save":
            return self.form_save(node, self.cls, form, keywords)
        if method in ("create", "update"):
            return self._save_one(node, self.cls, entity, method, form, keywords, follow_override=False)
        return None
