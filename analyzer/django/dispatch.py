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

from .folding import UNKNOWN as UNDECIDED
from .folding import literal_value
from .parsing import parse_expression
from .syntax import code
from .values import Val, constant, plain, union, value_sources, replace

# Beyond this many candidates the call is reported unresolved (dynamic-dispatch) instead.
MAX_CANDIDATES = 8
# A value that is one of several (a parameter's arguments at its call sites, an element of a
# dict of querysets): beyond this many the use is reported unresolved instead of fanned out.
MAX_ALTERNATIVES = 48
# Kinds of values worth keeping apart as alternatives; the others merge into one plain value.
_DISTINCT_KINDS = ("alts", "model", "qs", "rows", "instance", "func", "class", "obj", "self", "extobj", "dict", "email")
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


def alternatives(vals, sources=frozenset()) -> Val | None:
    """One value standing for several the walk cannot choose between: `Val("alts")` whose items
    are the candidates (nested alternatives flattened, duplicates dropped); the one candidate
    itself when there is one; a plain value when none of them is an ORM object or a callable."""
    flat = []
    for val in vals:
        if val is None:
            continue
        for candidate in (val.items if val.kind == "alts" else (val,)):
            if candidate not in flat:
                flat.append(candidate)
    if not flat:
        return None
    if len(flat) == 1:
        return flat[0]
    if not any(is_distinct(v) for v in flat):
        return plain(union(flat) | frozenset(sources))
    return Val("alts", union(flat) | frozenset(sources), items=tuple(flat))


def is_distinct(val: Val) -> bool:
    return val.kind in _DISTINCT_KINDS or (val.kind == "plain" and any(is_distinct(i) for i in val.items))


def element_of(val: Val) -> Val | None:
    """What iterating a collection with known members yields: one of its members (an alternative
    of them all); a dict yields its keys. None when the members are not known."""
    if val.kind == "alts":  # any of several collections: any of their members
        members = [element_of(c) for c in val.items]
        return alternatives(members) if members and all(m is not None for m in members) else None
    if val.kind == "dict":
        return _names([k for k, _ in val.attrs]) or alternatives([k for k, _ in val.attrs])
    if val.kind == "plain" and val.items:
        members = [m for m in val.items if m.kind != "plain" or m.items or m.sources]
        if not any(is_distinct(m) for m in members):
            return _names(members)
        return transposed(members) or alternatives(members)
    return None


def is_literal(val: Val) -> bool:
    """A literal constant (None, a flag, a string)."""
    return val.kind == "plain" and bool(val.sources) and all(kind == "constant" for kind, _ in val.sources)


def _names(members: list) -> Val | None:
    """Literal strings (`for name in ("open", "close"):`) kept apart: each may name an attribute."""
    texts = [literal_value(m) for m in members]
    if len(members) < 2 or not all(isinstance(t, str) for t in texts):
        return None
    unique = []
    for member in members:
        if member not in unique:
            unique.append(member)
    return Val("alts", union(unique), items=tuple(unique)) if len(unique) > 1 else unique[0]


def transposed(members) -> Val | None:
    """Members that are tuples of one length (`d.items()`, a dict of `(Model, "name")`) yield a
    tuple whose positions are the alternatives of each position, so `for key, qs in d.items()`
    binds `qs` to every queryset of the dict."""
    members = list(members)
    if not members or any(m.kind != "plain" or len(m.items) != len(members[0].items) or not m.items
                          for m in members):
        return None
    positions = [alternatives([m.items[i] for m in members]) for i in range(len(members[0].items))]
    return Val("plain", union(members), items=tuple(positions))


class DispatchMixin:
    """Mixed into Walker (walker.py); uses call_function, emit_* and context."""

    def registry(self, ref: str | None) -> Val | None:
        """A module-level `HANDLERS = {"a": handle_a, ...}`: the functions it holds."""
        if not ref or "." not in ref:
            return None
        module_name, _, name = ref.rpartition(".")
        info = self.ctx.index.modules.get(module_name)
        text = (info.assigns.get(name) or "").strip() if info is not None else ""
        literal = _dict_literal(text)
        if literal is None:
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
        results = self.in_arms(node, label, functions, chooser,
                               lambda fn: self.call_function(node, fn, positional, keywords, self_val))
        return plain(union(results))

    def in_arms(self, node, label: str, candidates: list, chooser, run) -> list:
        """`run(candidate)` for each candidate, each run's steps in an arm of a branch on the
        sources that choose it, `via` recording `<dispatch LABEL: N candidates>`; the results."""
        marker = f"<dispatch {label}: {len(candidates)} candidates>"
        arms, results = [], []
        saved_out, saved_via = self.out, self.via
        try:
            for candidate in candidates:
                self.out, self.via = [], saved_via + (marker,)
                results.append(run(candidate))
                arms.append(self.out)
        finally:
            self.out, self.via = saved_out, saved_via
        self._structure(node, "branch", chooser, arms=arms)
        return results

    def each_alternative(self, node, value: Val, run) -> Val:
        """Use a value that is one of several (`Val("alts")`): `run(candidate)` for each, every
        run in an arm of a branch on what chose it, `via` saying how many candidates there were.
        The result is the alternative of the runs' results."""
        candidates = [c for c in value.items if not is_literal(c)] or list(value.items)  # None has no methods
        if len(candidates) == 1:
            return run(candidates[0])
        label = value.text or " ".join(code(getattr(node, "func", node)).split())[:60]
        if len(candidates) > MAX_ALTERNATIVES:
            self.emit_unresolved(node, label, "dynamic-dispatch", f"{len(candidates)} candidates")
            return plain(value_sources(value))
        results = self.in_arms(node, label, candidates, value.sources, run)
        result = alternatives(results, value.sources) or plain(value.sources)
        return replace(result, text=value.text) if result.kind == "alts" else result

    def item_of(self, node, candidate: Val, index_sources) -> Val:
        """`x[i]` on one candidate collection."""
        if candidate.kind == "dict":
            return self.dict_item(candidate, plain(index_sources))
        if candidate.kind == "qs":
            return self.evaluate_qs(candidate.qs, node, "index", one=True)
        if candidate.kind == "rows":
            return self._iterated(candidate, node)
        return element_of(candidate) or plain(value_sources(candidate) | index_sources)

    def method_of_alternatives(self, node: cst.Call, func: cst.Attribute, receiver: Val) -> Val:
        """`instance.save()` where `instance` is one of several values: the method on each. A
        candidate the method changes (a saved instance) comes back as that candidate, changed."""
        name = _dotted(func.value)
        held = self.env.get(name) if name else None
        after = []

        def run(candidate: Val) -> Val:
            if held is not None:
                self.env[name] = candidate
            result = self.method_on(node, func, candidate)
            if held is not None:
                after.append(self.env.get(name))
            return result

        result = self.each_alternative(node, receiver, run)
        if held is not None:
            self.env[name] = alternatives(after) or held
        return result

    def bound_method(self, base: Val, attr: str) -> Val | None:
        """`self.post_save` used as a value (a callback): the method, bound to the object."""
        fn = self.ctx.index.find_method(base.ref, attr) if base.ref else None
        if fn is None or any(d.split("(")[0].endswith("property") for d in fn.decorators):
            return None
        return Val("func", base.sources, ref=fn.qualname, attrs=(("__self__", base),))

    def getattr_value(self, node: cst.Call, obj: Val, name: Val) -> Val | None:
        """`getattr(obj, "save")`, or with a name that is one of known literals (a loop over a
        tuple of names, a dict's keys): the attribute, or the alternative of those attributes."""
        names = [literal_value(v) for v in (name.items if name.kind == "alts" else (name,))]
        if not names or not all(isinstance(n, str) and n.isidentifier() for n in names):
            return None
        values = [self.attribute_of(node, obj, n) for n in names]
        return alternatives(values)

    @staticmethod
    def members_through(ref: str, positional: list) -> Val | None:
        """Builtins that hand a collection's members on: `list(x)`, `sorted(x)`, `reversed(x)`
        keep them; `zip(a, b)` pairs them; `enumerate(x)` pairs them with a counter. None when
        no argument's members are known."""
        name = ref.removeprefix("builtins.")
        if name not in ("list", "tuple", "sorted", "reversed", "iter", "set", "zip", "enumerate") or not positional:
            return None
        elements = [element_of(v) for v in positional]
        if not any(e is not None and is_distinct(e) for e in elements):
            return None
        sources = union(positional)
        if name in ("zip", "enumerate"):
            parts = [e or plain(value_sources(v)) for e, v in zip(elements, positional)]
            if name == "enumerate":
                parts = [plain(sources)] + parts[:1]
            return Val("plain", sources, items=(Val("plain", sources, items=tuple(parts)),))
        first = positional[0]
        return first if first.kind in ("plain", "alts") else None

    def subclass_rows(self, view: str, attr: str) -> Val | None:
        """A generic view that leaves its model to subclasses: `self.queryset` is any of the
        models they declare (class-hierarchy analysis), an alternative used per candidate."""
        entities = []
        for sub in self.ctx.index.subclasses(view):
            entity = self.declared_view_entity(sub)
            if entity is not None and entity not in entities:
                entities.append(entity)
        if not entities or len(entities) > MAX_ALTERNATIVES:
            return None
        chosen = alternatives([self.view_rows(entity, attr) for entity in entities])
        return replace(chosen, text=f"self.{attr}") if chosen.kind == "alts" else chosen

    def _e_Dict(self, node: cst.Dict) -> Val:
        """A dict literal: kept as `Val("dict")` (literal keys with their values) when a value is
        an ORM object or a callable, so indexing it or looping over it yields those values."""
        pairs, sources = [], set()
        for element in node.elements:
            if not isinstance(element, cst.DictElement):
                sources |= value_sources(self.eval(element.value))
                continue
            key, value = self.eval(element.key), self.eval(element.value)
            sources |= value_sources(key) | value_sources(value)
            pairs.append((key, value))
        if not any(is_distinct(v) for _, v in pairs):
            return plain(sources or {("constant", "{}")})
        return Val("dict", frozenset(sources), attrs=tuple(pairs))

    def dict_item(self, base: Val, key: Val) -> Val:
        """`d[key]` / `d.get(key)`: the value of a literal key, else any of the dict's values."""
        literal = literal_value(key)
        if literal is not UNDECIDED:
            for known, value in base.attrs:
                if literal_value(known) == literal:
                    return value
        values = alternatives([v for _, v in base.attrs], value_sources(key))
        return values or plain(value_sources(key))

    def dict_method(self, node: cst.Call, base: Val, method: str) -> Val:
        positional, _k, _d, _q = self.call_arguments(node)
        if method in ("get", "pop") and positional:
            literal = literal_value(positional[0])
            if literal is not UNDECIDED and base.attrs and \
                    all(literal_value(known) not in (UNDECIDED, literal) for known, _ in base.attrs):
                # A key the dict does not hold (`kwargs.get("module")` when only `device=` was
                # passed): the default.
                return positional[1] if len(positional) > 1 else constant("None")
            return self.dict_item(base, positional[0])
        if method == "values":
            return Val("plain", base.sources, items=tuple(v for _, v in base.attrs))
        if method == "keys":
            return Val("plain", base.sources, items=tuple(k for k, _ in base.attrs))
        if method == "items":
            return Val("plain", base.sources, items=tuple(Val("plain", union(pair), items=pair) for pair in base.attrs))
        return plain(base.sources | union(positional))

    def loop_over_members(self, node, iterable: Val) -> bool:
        """`for qs in querysets.values():` / `for instance in instances:` where the collection's
        members are known (a literal dict or list, the arguments a parameter receives at its call
        sites): the loop variable is any of them (an alternative), used by each-candidate dispatch."""
        if iterable.kind == "alts":
            elements = []
            for candidate in iterable.items:
                if candidate.kind in ("qs", "rows"):
                    elements.append(None)  # evaluated below, in its own arm
                else:
                    elements.append(element_of(candidate) or plain(value_sources(candidate)))
            if any(e is None for e in elements):
                element = self.each_alternative(node.iter, iterable, lambda c: self._iterated(c, node.iter))
            else:
                element = alternatives(elements)
        else:
            element = element_of(iterable)
        if element is None:
            return False
        self.assign(node.target, element, None)
        self._structure(node, "loop", value_sources(iterable), body=self.walk_loop_body(node.body))
        if node.orelse is not None:
            self.out.extend(self.walk_block(node.orelse.body))
        return True

    def _iterated(self, candidate: Val, where) -> Val:
        """One element of iterating a candidate collection (a queryset is evaluated here)."""
        if candidate.kind == "qs":
            candidate = self.evaluate_qs(candidate.qs, where, "iterate")
        if candidate.kind == "rows":
            return Val("instance", candidate.sources, entity=candidate.entity, origin=candidate.origin,
                       key=frozenset({("result", candidate.origin)}) if candidate.origin else frozenset())
        return element_of(candidate) or plain(value_sources(candidate))

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
        if text[:1] == "{" and text[-1:] == "}":
            return self.module_level_dict(info, text)
        if text[:1] in "([" and text[-1:] in ")]":
            try:
                literal = parse_expression(text)
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

    def module_level_dict(self, info, text: str) -> Val | None:
        """A module-level dict whose values name models (`{"Product": (ProductValue, "product")}`):
        kept as `Val("dict")`, so `.get(kind)` is any of its values. Dicts of functions only
        stay handler registries (registry())."""
        literal = _dict_literal(text)
        if literal is None:
            return None
        pairs = []
        for element in literal.elements:
            if not isinstance(element, cst.DictElement):
                return None
            key = _static_value(self, info, element.key)
            value = _static_value(self, info, element.value)
            if key is None or value is None:
                return None
            pairs.append((key, value))
        if not any(v.kind == "model" or any(i.kind == "model" for i in v.items) for _, v in pairs):
            return None
        return Val("dict", frozenset({("constant", "dict")}), attrs=tuple(pairs))

    def relation_descriptor(self, model: Val, attr: str) -> Val | None:
        """`Channel.warehouses` (a many-to-many field or its reverse) in a function: its
        `.through` is the table behind it."""
        entity = self.ctx.entities.get(model.entity or "")
        if entity is None:
            return None
        m2m = any(r["attribute"] == attr and r["kind"] == "m2m" for r in entity.relations)
        reverse = self.ctx.reverse.get(entity.name, {}).get(attr)
        if not m2m and not (reverse is not None and reverse[3]):
            return None
        return Val("m2mfield", frozenset({("constant", f"{entity.name}.{attr}")}), entity=entity.name, ref=attr)

    def through_of(self, descriptor: Val) -> Val | None:
        entity = self.ctx.entities[descriptor.entity]
        for relation in entity.relations:
            if relation["attribute"] == descriptor.ref and relation["kind"] == "m2m":
                through = relation.get("through") or f"{entity.name}.{descriptor.ref}"
                return Val("model", entity=through) if through in self.ctx.entities else None
        reverse = self.ctx.reverse.get(entity.name, {}).get(descriptor.ref)
        if reverse is not None and reverse[3] in self.ctx.entities:
            return Val("model", entity=reverse[3])
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


def _dict_literal(text: str) -> cst.Dict | None:
    """The module-level text of a dict literal, parsed; None for anything else."""
    if not text.startswith("{"):
        return None
    try:
        literal = parse_expression(text)
    except cst.ParserSyntaxError:
        return None
    return literal if isinstance(literal, cst.Dict) else None


def _static_value(walker, info, node) -> Val | None:
    """A literal of a module-level dict: a string, a model, or a tuple of those; None otherwise."""
    if isinstance(node, cst.SimpleString):
        return Val("plain", frozenset({("constant", node.value[:40])}), text=node.value)
    if isinstance(node, (cst.Tuple, cst.List)):
        items = [_static_value(walker, info, e.value) for e in node.elements]
        return None if any(i is None for i in items) else Val("plain", union(items), items=tuple(items))
    written = _dotted(node)
    if not written:
        return None
    qualname = walker.ctx.index.resolve(info.name, written)
    entity = walker.ctx.entity_for_class(qualname)
    if entity is not None:
        return Val("model", frozenset({("constant", entity.name)}), entity=entity.name, ref=qualname)
    return Val("plain", frozenset({("constant", written)}), text=written)


def _dotted(node) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr.value}" if head else ""
    return ""
