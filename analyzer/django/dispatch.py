"""Dynamic dispatch in the walk: calls whose callee is chosen at run time among candidates the
application defines. Handler registries (a module-level dict of functions indexed at run
time), and methods called on a receiver typed by a base class that subclasses override
(class-hierarchy analysis). Every candidate is walked, each in an arm of a branch on what
chooses it; `via` records the over-approximation as `<dispatch NAME: N candidates>`.

Also values named at module level that stand for model classes: `Order = get_model("order",
"Order")` (Django's apps.get_model and the same helper of app frameworks such as oscar),
`OrderCreator = get_class("order.utils", "OrderCreator")`, `Through = Channel.warehouses.through`,
and tuples or lists of models (`COMPONENT_MODELS = (ConsolePort, PowerPort)`). A loop over such
a tuple runs its body once per model: the walk unrolls it, recording `<each NAME: N models>`."""

from __future__ import annotations

import re

import libcst as cst

from .values import Val, plain, union

# Beyond this many candidates the call is reported unresolved (dynamic-dispatch) instead.
MAX_CANDIDATES = 8
# A loop over a literal tuple of models is unrolled up to this many models.
MAX_UNROLLED_MODELS = 16

_LOOKUP_CALL = re.compile(r"""^([\w.]+)\(\s*['"]([\w.]+)['"]\s*(?:,\s*['"](\w+)['"]\s*)?\)$""")


def receiver_sender(ctx, qualname: str) -> str | None:
    """The one model a signal receiver is connected for (`@receiver(post_save, sender=Location)`):
    its `instance` argument is a row of that model. None for several senders or none."""
    senders = {entity for (_event, entity), receivers in ctx.signals.items() if qualname in receivers}
    if len(senders) == 1:
        (sender,) = senders
        return sender if sender in ctx.entities else None
    return None


class DispatchMixin:
    """Mixed into Walker (walker.py); uses call_function, emit_* and context."""

    def registry(self, ref: str | None) -> Val | None:
        """A module-level `HANDLERS = {"a": handle_a, ...}`: the functions it holds."""
        if not ref or "." not in ref:
            return None
        module_name, _, name = ref.rpartition(".")
        info = self.ctx.index.modules.get(module_name)
        text = (info.assigns.get(name) or "").strip() if info is not None else ""
        if not text.startswith("{"):
            return None
        try:
            literal = cst.parse_expression(text)
        except cst.ParserSyntaxError:
            return None
        if not isinstance(literal, cst.Dict):
            return None
        candidates = []
        for element in literal.elements:
            value = getattr(element, "value", None)
            written = _dotted(value)
            qualname = self.ctx.index.resolve(module_name, written) if written else ""
            if qualname in self.ctx.index.functions:
                candidates.append(Val("func", ref=qualname))
        if not candidates:
            return None
        return Val("dispatch", ref=ref, items=tuple(dict.fromkeys(candidates)))

    def overriding(self, receiver_class: str, fn) -> list:
        """`fn` and the overrides of its method in subclasses of the receiver's class."""
        found = [fn]
        for sub in self.ctx.index.subclasses(receiver_class):
            info = self.ctx.index.classes.get(sub)
            method = info.methods.get(fn.name) if info is not None else None
            if method is not None and method not in found:
                found.append(method)
        return found

    def dispatch_call(self, node, label: str, functions: list, positional, keywords, self_val,
                      chooser=frozenset()) -> Val:
        """Walk every candidate, each in an arm of a branch on the sources that choose it."""
        if len(functions) > MAX_CANDIDATES:
            self.emit_unresolved(node, label, "dynamic-dispatch", f"{len(functions)} candidates")
            return plain(union(positional))
        marker = f"<dispatch {label}: {len(functions)} candidates>"
        arms, results = [], []
        saved_out, saved_via = self.out, self.via
        try:
            for fn in functions:
                self.out, self.via = [], saved_via + (marker,)
                results.append(self.call_function(node, fn, positional, keywords, self_val))
                arms.append(self.out)
        finally:
            self.out, self.via = saved_out, saved_via
        self._structure(node, "branch", chooser, arms=arms)
        return plain(union(results))

    # ------------------------------------------------------------------ module-level models
    def module_level_value(self, info, name: str, text: str) -> Val | None:
        """What a module-level `name = text` stands for when it names model classes (or an
        app class looked up by name); None otherwise."""
        text = " ".join(text.split())
        match = _LOOKUP_CALL.match(text)
        if match is not None:
            callee = self.ctx.index.resolve(info.name, match.group(1))
            return self.looked_up_class(callee, match.group(2), match.group(3))
        if text.endswith(".through"):
            return self.through_model(info, text[:-len(".through")])
        if text[:1] in "([" and text[-1:] in ")]":
            try:
                literal = cst.parse_expression(text)
            except cst.ParserSyntaxError:
                return None
            if not isinstance(literal, (cst.Tuple, cst.List)) or not literal.elements:
                return None
            items = []
            for element in literal.elements:
                qualname = self.ctx.index.resolve(info.name, _dotted(element.value))
                entity = self.ctx.entity_for_class(qualname)
                if entity is None:
                    return None
                items.append(Val("model", frozenset({("constant", entity.name)}), entity=entity.name, ref=qualname))
            return Val("plain", frozenset({("constant", name)}), items=tuple(items))
        return None

    def module_level_model(self, qualname: str) -> Val | None:
        """The model a module-level name stands for (`Voucher = get_model("voucher", "Voucher")`)."""
        module_name, _, name = qualname.rpartition(".")
        info = self.ctx.index.modules.get(module_name)
        text = info.assigns.get(name) if info is not None else None
        value = self.module_level_value(info, name, text) if text else None
        return value if value is not None and value.kind == "model" else None

    def looked_up_class(self, callee: str, first: str, second: str | None) -> Val | None:
        """`get_model("order", "Order")` / `get_model("order.Order")`: the model; `get_class(
        "order.utils", "OrderCreator")`: the application's class (or function) of that name in
        a module whose name ends with the given one."""
        method = callee.rsplit(".", 1)[-1]
        if method == "get_model":
            entity = self.ctx.entity_named((second or first).split(".")[-1])
            return Val("model", frozenset({("constant", entity.name)}), entity=entity.name,
                       ref=entity.qualname) if entity else None
        if method in ("get_class", "get_classes") and second:
            suffix = f"{first}.{second}"
            for qualname in sorted(self.ctx.index.classes):
                if qualname == suffix or qualname.endswith("." + suffix):
                    entity = self.ctx.entity_for_class(qualname)
                    if entity is not None:
                        return Val("model", entity=entity.name, ref=qualname)
                    return Val("class", frozenset({("constant", second)}), ref=qualname)
            for qualname in sorted(self.ctx.index.functions):
                if qualname == suffix or qualname.endswith("." + suffix):
                    return Val("func", frozenset({("constant", second)}), ref=qualname)
        return None

    def through_model(self, info, written: str) -> Val | None:
        """`Channel.warehouses.through`: the many-to-many table behind a field or its reverse."""
        owner_name, _, attr = written.rpartition(".")
        entity = self.ctx.entity_for_class(self.ctx.index.resolve(info.name, owner_name)) if owner_name else None
        if entity is None:
            return None
        for relation in entity.relations:
            if relation["attribute"] == attr and relation["kind"] == "m2m":
                through = relation.get("through") or f"{entity.name}.{attr}"
                return Val("model", entity=through) if through in self.ctx.entities else None
        reverse = self.ctx.reverse.get(entity.name, {}).get(attr)
        if reverse is not None and reverse[3] and reverse[3] in self.ctx.entities:
            return Val("model", entity=reverse[3])
        return None

    def send_custom_signal(self, node, ref: str, positional, keywords) -> bool:
        """`order_paid.send(sender=Order, instance=order)` on the application's own Signal():
        its receivers run now, inside the transaction. False when `ref` is no such signal."""
        signal, _, _method = ref.rpartition(".")
        event = f"custom:{signal}"
        if not any(key[0] == event for key in self.ctx.signals):
            return False
        sender = dict(keywords).get("sender", positional[0] if positional else None)
        entity = sender.entity if sender is not None and sender.kind == "model" else None
        receivers = self.ctx.signals.get((event, entity or ""), []) + self.ctx.signals.get((event, "*"), [])
        if entity is None:  # sender not known here: every receiver of the signal may run
            receivers = sorted({r for key, found in self.ctx.signals.items() if key[0] == event for r in found})
        arguments = [(k, v) for k, v in keywords if k != "sender"] + ([("sender", sender)] if sender else [])
        for receiver in dict.fromkeys(receivers):
            fn = self.ctx.index.function(receiver)
            if fn is not None and fn.qualname not in self.stack:
                self.call_function(node, fn, [], arguments, None)
        return True

    def unnamed_model(self, node, callee: str, sources) -> Val:
        """A model class chosen at run time (`apps.get_model(name)` with a computed name): its
        statements are reported without an entity, and the transaction is incomplete."""
        self.emit_unresolved(node, callee, "unresolved-receiver", "a model looked up by a name computed at run time")
        return Val("model", frozenset(sources))

    def loop_over_models(self, node, iterable: Val) -> bool:
        """`for model in (Prefix, Cluster):` runs the body once per model: unrolled."""
        items = iterable.items
        if not items or len(items) > MAX_UNROLLED_MODELS or any(v.kind != "model" for v in items):
            return False
        label = _dotted(node.iter) or "models"
        saved_via = self.via
        self.via = saved_via + (f"<each {label}: {len(items)} models>",)
        try:
            for model in items:
                self.assign(node.target, model, None)
                self.out.extend(self.walk_loop_body(node.body))
        finally:
            self.via = saved_via
        return True


def _dotted(node) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr.value}" if head else ""
    return ""
