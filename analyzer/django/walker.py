"""The deep pass: walk a transaction's code and report its steps as IR.

The walker is an abstract interpreter over libcst nodes. For every name it tracks a `Val`
(values.py): where the data came from and what ORM object it is. Expressions that reach
the database become `statement` steps, calls that reach outside become `effect` steps,
`if`/`for`/`while` keep their structure, and calls into the application's own functions are
followed (bounded depth, cycle safe) with the call chain recorded in `via`.
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from . import effects_catalog as effects
from . import orm_catalog as orm
from . import sql as sqlparse
from .context import Context, ParsedModule
from .index import FunctionInfo
from .values import (
    UNKNOWN, QuerySet, Val, constant, ir_sources, plain, step_ids, union, value_sources,
)

HTTP_METHODS = ("get", "post", "put", "patch", "delete", "head", "options")
_NO_VALUE = Val("plain", frozenset())


class StopWalk(Exception):
    """Raised when the pre-walk reaches the transaction's boundary."""


class Recorder:
    """State shared by all walkers of one transaction: step ids and diagnostics."""

    def __init__(self) -> None:
        self.counter = 0
        self.diagnostics: list[dict] = []
        self.fk_cache: dict[tuple, Val] = {}

    def next_id(self) -> str:
        self.counter += 1
        return f"s{self.counter}"


def _dotted(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def _text(node) -> str:
    """Cheap text of a dotted name or of simple arithmetic on names (for suggestions)."""
    dotted = _dotted(node)
    if dotted is not None:
        return dotted
    if isinstance(node, cst.BinaryOperation):
        left, right = _text(node.left), _text(node.right)
        op = {cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/"}.get(type(node.operator))
        if left and right and op:
            return f"{left} {op} {right}"
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
        return node.value
    return ""


def _code(node: cst.CSTNode) -> str:
    try:
        return cst.Module(body=[]).code_for_node(node)
    except Exception:  # noqa: BLE001 - rendering is best effort, for messages only
        return type(node).__name__


class Walker:
    def __init__(self, ctx: Context, parsed: ParsedModule, recorder: Recorder, env: dict[str, Val],
                 cls: str | None = None, via: tuple[str, ...] = (), depth: int = 0,
                 stack: frozenset[str] = frozenset()) -> None:
        self.ctx = ctx
        self.parsed = parsed
        self.module = parsed.info
        self.rec = recorder
        self.env = env
        self.cls = cls
        self.via = via
        self.depth = depth
        self.stack = stack
        self.out: list[dict] = []
        self.returns: list[Val] = []
        self.stop_at: cst.CSTNode | None = None
        # Where `super().save()` in an overridden save() really runs: the caller's call site.
        self.call_site: tuple[str, int, tuple[str, ...], str] | None = None
        # Called on `yield` inside a project's transaction wrapper: walks the caller's with-body.
        self.yield_hook = None
        self.last_self: Val | None = None
        self.pending_guard: frozenset | None = None

    # ------------------------------------------------------------------ emitting steps
    def _line(self, node: cst.CSTNode) -> int:
        return self.parsed.line(node)

    def _base(self, node: cst.CSTNode, kind: str) -> dict:
        return {"node": kind, "file": self.module.rel, "line": self._line(node), "via": list(self.via)}

    def emit_statement(self, node, entity: str | None, kind: str, api: str, predicate: dict | None,
                       dynamic: bool = False, values: list | None = None, uses=(), sql: str | None = None,
                       at_call_site: bool = False) -> str:
        step = self._base(node, "statement")
        if at_call_site and self.call_site is not None:
            step["file"], step["line"], via, api = self.call_site
            step["via"] = list(via)
        sid = self.rec.next_id()
        step.update(id=sid, entity=entity, kind=kind, api=api, predicate=predicate, dynamic=dynamic,
                    values=values or [], uses=sorted(set(uses)))
        if sql is not None:
            step["sql"] = sql[:500]
        self.out.append(step)
        return sid

    def emit_effect(self, node, category: str, callee: str, args: list[Val]) -> Val:
        step = self._base(node, "effect")
        sid = self.rec.next_id()
        step.update(id=sid, category=category, callee=callee, uses=step_ids(union(args)))
        self.out.append(step)
        return Val("plain", frozenset({("external", sid)}))

    def emit_unresolved(self, node, callee: str, reason: str) -> None:
        step = self._base(node, "unresolved")
        step.update(callee=callee, reason=reason)
        self.out.append(step)

    def diagnostic(self, node, code: str, message: str, severity: str = "warning") -> None:
        self.rec.diagnostics.append({"ir": 1, "type": "diagnostic", "file": self.module.rel,
                                     "line": self._line(node), "code": code, "severity": severity,
                                     "message": message})

    # ------------------------------------------------------------------ statements
    def walk_block(self, body) -> list[dict]:
        """Walk statements into a fresh step list and return it."""
        saved, self.out = self.out, []
        try:
            self.walk_statements(_statements(body))
        finally:
            steps, self.out = self.out, saved
        return steps

    def walk_statements(self, statements: list) -> None:
        """Walk statements into the current step list.

        A guard (`if not account.can_cover(amount): raise ...`) decides whether everything
        after it runs: the rest of the block becomes a branch on the guard's sources.
        """
        for index, statement in enumerate(statements):
            self.walk_statement(statement)
            guard, self.pending_guard = self.pending_guard, None
            if guard:
                rest = self.walk_block(statements[index + 1:])
                self._structure(statement, "branch", guard, arms=[rest, []])
                return

    def walk_statement(self, node: cst.CSTNode) -> None:
        if self.stop_at is not None and node is self.stop_at:
            raise StopWalk
        handler = getattr(self, "_s_" + type(node).__name__, None)
        if handler is not None:
            handler(node)
        elif isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                self.walk_statement(small)

    def _s_Expr(self, node: cst.Expr) -> None:
        self.eval(node.value)

    def _s_Assign(self, node: cst.Assign) -> None:
        value = self.eval(node.value)
        for target in node.targets:
            self.assign(target.target, value, node.value)

    def _s_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self.assign(node.target, self.eval(node.value), node.value)

    def _s_AugAssign(self, node: cst.AugAssign) -> None:
        value = self.eval(node.value)
        current = self.eval(node.target)
        combined = plain(value_sources(value) | value_sources(current))
        self.assign(node.target, combined, node)

    def _s_Return(self, node: cst.Return) -> None:
        self.returns.append(self.eval(node.value) if node.value is not None else _NO_VALUE)

    def _s_Raise(self, node: cst.Raise) -> None:
        if node.exc is not None:
            self.eval(node.exc)

    def _s_Assert(self, node: cst.Assert) -> None:
        self.eval(node.test)

    def _s_Del(self, node: cst.Del) -> None:
        pass

    def _s_If(self, node: cst.If) -> None:
        test = self.eval_bool(node.test)
        before = dict(self.env)
        arms = [self.walk_block(node.body)]
        after_body = self.env
        self.env = dict(before)
        orelse = node.orelse
        if isinstance(orelse, cst.If):
            saved, self.out = self.out, []
            self._s_If(orelse)
            arms.append(self.out)
            self.out = saved
        elif isinstance(orelse, cst.Else):
            arms.append(self.walk_block(orelse.body))
        else:
            arms.append([])
        self.env = _merge(after_body, self.env)
        self._structure(node, "branch", value_sources(test), arms=arms)
        if (_exits(node.body) or (isinstance(orelse, cst.Else) and _exits(orelse.body))) and \
                any(kind in ("result", "generated", "external") for kind, _ in value_sources(test)):
            self.pending_guard = value_sources(test)

    def _structure(self, node, kind: str, sources, arms=None, body=None) -> None:
        if arms is not None and not any(arms):
            return
        if body is not None and not body:
            return
        step = self._base(node, kind)
        step["uses"] = ir_sources(sources) if sources else []
        if kind == "branch":
            step["arms"] = arms
        else:
            step["body"] = body
        self.out.append(step)

    def _s_For(self, node: cst.For) -> None:
        iterable = self.eval(node.iter)
        if iterable.kind == "qs":
            iterable = self.cache_rows(node.iter, self.evaluate_qs(iterable.qs, node.iter, "iterate"))
        self.bind_loop_target(node.target, iterable)
        before = dict(self.env)
        body = self.walk_block(node.body)
        self.env = _merge(before, self.env)
        self._structure(node, "loop", value_sources(iterable), body=body)
        if node.orelse is not None:
            for step in self.walk_block(node.orelse.body):
                self.out.append(step)

    def bind_loop_target(self, target, iterable: Val) -> None:
        if iterable.kind == "rows":
            element = Val("instance", iterable.sources, entity=iterable.entity, origin=iterable.origin,
                          key=frozenset({("result", iterable.origin)}) if iterable.origin else frozenset(),
                          prefetched=iterable.prefetched)
        else:
            element = plain(value_sources(iterable))
        self.assign(target, element, None)

    def _s_While(self, node: cst.While) -> None:
        test = self.eval_bool(node.test)
        before = dict(self.env)
        body = self.walk_block(node.body)
        self.env = _merge(before, self.env)
        self._structure(node, "loop", value_sources(test), body=body)

    def _s_Try(self, node) -> None:
        for step in self.walk_block(node.body):
            self.out.append(step)
        arms = []
        for handler in node.handlers:
            if handler.name is not None and isinstance(handler.name.name, cst.Name):
                self.env[handler.name.name.value] = plain(UNKNOWN)
            arms.append(self.walk_block(handler.body))
        if arms:
            self._structure(node, "branch", frozenset(), arms=arms + [[]])
        if node.orelse is not None:
            self.out.extend(self.walk_block(node.orelse.body))
        if node.finalbody is not None:
            self.out.extend(self.walk_block(node.finalbody.body))

    _s_TryStar = _s_Try

    def _s_With(self, node: cst.With) -> None:
        for item in node.items:
            value = self.eval(item.item)
            if item.asname is not None:
                if value.kind == "cursor" or _dotted(item.item.func if isinstance(item.item, cst.Call) else item.item) in ("connection.cursor",):
                    value = Val("cursor")
                self.assign(item.asname.name, value, item.item)
        self.out.extend(self.walk_block(node.body))

    def _s_Match(self, node) -> None:
        subject = self.eval(node.subject)
        arms = [self.walk_block(case.body) for case in node.cases]
        self._structure(node, "branch", value_sources(subject), arms=arms + [[]])

    def _s_FunctionDef(self, node: cst.FunctionDef) -> None:
        # A nested def: calls to it are followed through the index's qualified name.
        owner = self.env.get("__qualname__")
        if owner is not None and owner.ref:
            self.env[node.name.value] = Val("func", ref=f"{owner.ref}.{node.name.value}")

    def _s_ClassDef(self, node: cst.ClassDef) -> None:
        pass

    # ------------------------------------------------------------------ assignment
    def assign(self, target, value: Val, value_node) -> None:
        if isinstance(target, cst.Name):
            self.env[target.value] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = [e.value for e in target.elements]
            for index, element in enumerate(elements):
                if isinstance(element, cst.StarredElement):
                    element = element.value
                if value.items and index < len(value.items):
                    self.assign(element, value.items[index], None)
                elif value.kind == "rows":
                    self.assign(element, Val("instance", value.sources, entity=value.entity, origin=value.origin,
                                             key=frozenset({("result", value.origin)})), None)
                else:
                    self.assign(element, plain(value_sources(value)), None)
        elif isinstance(target, cst.Attribute):
            owner_name = _dotted(target.value)
            owner = self.eval(target.value)
            text = _text(value_node) if value_node is not None else ""
            if owner.kind == "instance" and owner_name in self.env:
                assigned = tuple(a for a in owner.assigned if a[0] != target.attr.value)
                sources = value_sources(value)
                self.env[owner_name] = replace(owner, assigned=assigned + ((target.attr.value, sources, text),))
            elif owner.kind in ("self", "obj") and owner_name in self.env:
                attrs = tuple(a for a in owner.attrs if a[0] != target.attr.value)
                self.env[owner_name] = replace(owner, attrs=attrs + ((target.attr.value, value),))
        elif isinstance(target, cst.Subscript):
            self.eval(target.value)

    # ------------------------------------------------------------------ expressions
    def eval_bool(self, node) -> Val:
        value = self.eval(node)
        if value.kind == "qs":
            return self.cache_rows(node, self.evaluate_qs(value.qs, node, "bool"))
        return value

    def cache_rows(self, node, rows: Val) -> Val:
        """Django caches an evaluated queryset's rows on the queryset object: a variable that
        held the lazy queryset now holds the rows, and iterating it again runs no query."""
        if isinstance(node, cst.Name) and node.value in self.env and self.env[node.value].kind == "qs":
            held = self.env[node.value]
            self.env[node.value] = replace(held, qs=replace(held.qs, cached=rows.origin))
        return rows

    def eval(self, node) -> Val:
        if node is None:
            return _NO_VALUE
        handler = getattr(self, "_e_" + type(node).__name__, None)
        if handler is not None:
            return handler(node)
        return self._e_generic(node)

    def _e_generic(self, node) -> Val:
        sources: set = set()
        for child in node.children:
            if isinstance(child, cst.BaseExpression):
                sources |= value_sources(self.eval(child))
            elif isinstance(child, (cst.Arg, cst.Element, cst.DictElement, cst.StarredDictElement,
                                    cst.FormattedStringExpression, cst.ComparisonTarget)):
                for grandchild in child.children:
                    if isinstance(grandchild, cst.BaseExpression):
                        sources |= value_sources(self.eval(grandchild))
        return plain(sources or {("constant", "")})

    def _e_SimpleString(self, node) -> Val:
        return constant(node.value)

    _e_Integer = _e_Float = _e_Imaginary = _e_SimpleString

    def _e_ConcatenatedString(self, node) -> Val:
        value = node.evaluated_value
        return constant(repr(value) if isinstance(value, str) else _code(node))

    def _e_Ellipsis(self, node) -> Val:
        return constant("...")

    def _e_Lambda(self, node) -> Val:
        return Val("lambda", frozenset({("constant", "lambda")}))

    def _e_Await(self, node) -> Val:
        return self.eval(node.expression)

    def _e_Yield(self, node) -> Val:
        if node.value is not None and not isinstance(node.value, cst.From):
            self.eval(node.value)
        if self.yield_hook is not None:
            hook, self.yield_hook = self.yield_hook, None  # the body runs once
            hook(self.out)
        return plain(UNKNOWN)

    def _e_Tuple(self, node) -> Val:
        items = tuple(self.eval(e.value) for e in node.elements)
        return Val("plain", union(items), items=items)

    def _e_List(self, node) -> Val:
        items = tuple(self.eval(e.value) for e in node.elements)
        return Val("plain", union(items) or frozenset({("constant", "[]")}), items=items)

    _e_Set = _e_List

    def _e_NamedExpr(self, node) -> Val:
        value = self.eval(node.value)
        self.assign(node.target, value, node.value)
        return value

    def _e_IfExp(self, node) -> Val:
        test = self.eval_bool(node.test)
        body, orelse = self.eval(node.body), self.eval(node.orelse)
        return plain(value_sources(test) | value_sources(body) | value_sources(orelse))

    def _e_UnaryOperation(self, node) -> Val:
        operand = self.eval(node.expression)
        if operand.kind == "q" and isinstance(node.operator, cst.BitInvert):
            return Val("q", operand.sources, predicate={"bool": "not", "args": [operand.predicate]})
        if operand.kind == "qs" and isinstance(node.operator, cst.Not):
            return self.evaluate_qs(operand.qs, node, "bool")
        return plain(value_sources(operand))

    def _e_BinaryOperation(self, node) -> Val:
        left, right = self.eval(node.left), self.eval(node.right)
        if left.kind == "q" and right.kind == "q" and isinstance(node.operator, (cst.BitAnd, cst.BitOr)):
            op = "and" if isinstance(node.operator, cst.BitAnd) else "or"
            return Val("q", left.sources | right.sources, predicate={"bool": op, "args": [left.predicate, right.predicate]})
        if left.kind == "qs" and right.kind == "qs":
            return left  # qs1 | qs2: keep the first, predicates are approximate
        return plain(value_sources(left) | value_sources(right), _text(node))

    def _e_BooleanOperation(self, node) -> Val:
        left, right = self.eval_bool(node.left), self.eval_bool(node.right)
        return plain(value_sources(left) | value_sources(right))

    def _e_Comparison(self, node) -> Val:
        sources = set(value_sources(self.eval_bool(node.left)))
        for comparison in node.comparisons:
            sources |= value_sources(self.eval(comparison.comparator))
        return plain(sources)

    def _comprehension(self, node, element_nodes) -> Val:
        generator = node.for_in
        iterable = self.eval(generator.iter)
        if iterable.kind == "qs":
            iterable = self.cache_rows(generator.iter, self.evaluate_qs(iterable.qs, generator.iter, "iterate"))
        before = dict(self.env)
        self.bind_loop_target(generator.target, iterable)
        saved, self.out = self.out, []
        sources = set(value_sources(iterable))
        for condition in generator.ifs:
            sources |= value_sources(self.eval_bool(condition.test))
        for element in element_nodes:
            sources |= value_sources(self.eval(element))
        body, self.out = self.out, saved
        self.env = before
        self._structure(node, "loop", value_sources(iterable), body=body)
        result = plain(sources)
        if iterable.kind == "rows":
            result = replace(iterable, sources=frozenset(sources))
        return result

    def _e_ListComp(self, node) -> Val:
        return self._comprehension(node, [node.elt])

    _e_SetComp = _e_GeneratorExp = _e_ListComp

    def _e_DictComp(self, node) -> Val:
        return self._comprehension(node, [node.key, node.value])

    def _e_Subscript(self, node: cst.Subscript) -> Val:
        base = self.eval(node.value)
        index_node = node.slice[0].slice if node.slice else None
        is_slice = isinstance(index_node, cst.Slice)
        index_sources = frozenset()
        if isinstance(index_node, cst.Index):
            index_sources = value_sources(self.eval(index_node.value))
        if base.kind == "qs":
            if is_slice:
                return replace(base, qs=replace(base.qs, chain=base.qs.chain + ("slice",)))
            return self.evaluate_qs(base.qs, node, "index", one=True)
        if base.kind == "rows" and not is_slice:
            return Val("instance", base.sources, entity=base.entity, origin=base.origin,
                       key=frozenset({("result", base.origin)}) if base.origin else frozenset())
        if base.items and isinstance(index_node, cst.Index) and isinstance(index_node.value, cst.Integer):
            position = int(index_node.value.value)
            if -len(base.items) <= position < len(base.items):
                return base.items[position]
        if base.kind == "ref" and base.ref:
            return replace(base, ref=base.ref + "[]")
        return plain(value_sources(base) | index_sources)

    def _e_Name(self, node: cst.Name) -> Val:
        name = node.value
        if name in self.env:
            return self.env[name]
        if name in ("True", "False", "None"):
            return constant(name)
        return self.resolve_global(name)

    def resolve_global(self, dotted: str) -> Val:
        qualname = self.ctx.index.resolve(self.module.name, dotted)
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
        if not text or "(" not in text:
            return None
        head = text.split("(", 1)[0].strip()
        if not head.replace(".", "").replace("_", "").isalnum():
            return None
        callee = self.ctx.index.resolve(info.name, head)
        if callee == "django.contrib.auth.get_user_model" and self.ctx.auth_user in self.ctx.entities:
            return Val("model", frozenset({("constant", name)}), entity=self.ctx.auth_user)
        if callee.startswith("boto3.") and callee.rsplit(".", 1)[-1] in ("client", "resource"):
            service = text.split("(", 1)[1].split(",")[0].strip(" )'\"")
            return Val("extobj", ref=f"boto3.{service}", category=effects.BOTO3_SERVICES.get(service, "http"))
        category = effects.category_for(callee)
        if category is not None:
            return Val("extobj", ref=callee, category=category)
        return None

    def _e_Attribute(self, node: cst.Attribute) -> Val:
        attr = node.attr.value
        base = self.eval(node.value)
        kind = base.kind
        if kind in ("ref", "class") and base.ref:
            full = f"{base.ref}.{attr}"
            canonical = self.ctx.index.canonical(full)
            entity = self.ctx.entity_for_class(canonical)
            if entity is not None:
                return Val("model", base.sources, entity=entity.name, ref=canonical)
            if canonical in self.ctx.index.functions:
                return Val("func", base.sources, ref=canonical)
            if canonical in self.ctx.index.classes:
                return Val("class", base.sources, ref=canonical)
            if full in ("django.db.connection", "django.db.connections"):
                return Val("ref", base.sources, ref=full)
            return Val("ref", base.sources, ref=canonical)
        if kind == "model":
            entity = self.ctx.entities.get(base.entity)
            if attr in ("objects", "_default_manager", "_base_manager") or (entity and attr in entity.managers):
                manager = Val("qs", base.sources, entity=base.entity, qs=QuerySet(
                    base.entity, provider_classes=tuple(entity.queryset_classes) if entity else ()))
                return self.manager_queryset(manager, node)
            return constant(f"{base.entity}.{attr}")
        if kind == "instance":
            return self.instance_attribute(base, attr, node)
        if kind == "qs":
            return constant(attr)
        if kind in ("self", "obj"):
            attrs = base.attr_map()
            if attr in attrs:
                return attrs[attr]
            if kind == "self":
                return plain({("input", f"self.{attr}")}, f"self.{attr}")
            return plain(value_sources(base))
        if kind == "extobj":
            return replace(base, ref=f"{base.ref}.{attr}")
        if kind == "func":
            return Val("taskref", base.sources, ref=f"{base.ref}.{attr}")
        if kind == "plain" and attr == "user" and base.sources & {("input", "request"), ("input", "self.request")} \
                and self.ctx.auth_user in self.ctx.entities:
            # The authenticated user: a row whose key is an input of the request.
            return Val("instance", frozenset({("input", "request.user")}), entity=self.ctx.auth_user,
                       key=frozenset({("input", "request.user.pk")}))
        if kind == "plain":
            renamed = set()
            for source_kind, name in base.sources:
                if source_kind == "input" and name.count(".") < 2:
                    renamed.add(("input", f"{name}.{attr}"))
                else:
                    renamed.add((source_kind, name))
            return plain(renamed, _text(node))
        return plain(value_sources(base))

    def manager_queryset(self, manager: Val, node) -> Val:
        """`Model.objects` through a manager whose get_queryset() filters (soft deletes, tenants)."""
        for provider in manager.qs.provider_classes:
            fn = self.ctx.index.find_method(provider, "get_queryset")
            if fn is not None and fn.qualname not in self.stack:
                result = self.call_function(node, fn, [], [], manager)
                if result.kind == "qs" and result.qs.entity == manager.qs.entity:
                    providers = tuple(dict.fromkeys(manager.qs.provider_classes + result.qs.provider_classes))
                    return replace(result, qs=replace(result.qs, provider_classes=providers, chain=()))
                break
        return manager

    # ------------------------------------------------------------------ instances
    def instance_attribute(self, inst: Val, attr: str, node) -> Val:
        entity = self.ctx.entities.get(inst.entity or "")
        assigned = inst.assigned_map()
        if entity is None:
            return plain(value_sources(inst))
        if attr == "pk" or attr in entity.pk:
            return plain(inst.key or self._row_sources(inst), f"{inst.entity}.pk")
        relations = {r["attribute"]: r for r in entity.relations}
        if attr.endswith("_id") and attr[:-3] in relations:
            return plain(self._field_sources(inst, attr[:-3], assigned), attr)
        if attr in relations and relations[attr]["kind"] in ("fk", "o2o"):
            return self.load_foreign_key(inst, attr, relations[attr], node, assigned)
        if attr in relations and relations[attr]["kind"] == "m2m":
            target = relations[attr]["target"]
            back = relations[attr]["reverse"] or f"{inst.entity.lower()}_set"
            return self.related_manager(inst, target, back, through=f"{inst.entity}.{attr}")
        reverse = self.ctx.reverse.get(inst.entity or "", {}).get(attr)
        if reverse is not None:
            other, other_attr, kind, through = reverse
            if kind == "o2o":
                return self.load_reverse_one(inst, other, other_attr, node)
            return self.related_manager(inst, other, other_attr, through=through)
        if attr in assigned:
            return plain(assigned[attr][0], assigned[attr][1])
        return plain(self._row_sources(inst), f"{inst.entity}.{attr}")

    @staticmethod
    def _row_sources(inst: Val) -> frozenset:
        if inst.origin and inst.origin != "new":
            return frozenset({("result", inst.origin)})
        return inst.key or inst.sources or UNKNOWN

    def _field_sources(self, inst: Val, attr: str, assigned: dict) -> frozenset:
        if attr in assigned:
            return frozenset(assigned[attr][0])
        if inst.origin and inst.origin != "new":
            return frozenset({("result", inst.origin)})
        renamed = {("input", f"{n}.{attr}") if k == "input" else (k, n) for k, n in (inst.key or inst.sources)}
        return frozenset(renamed) or UNKNOWN

    def load_foreign_key(self, inst: Val, attr: str, relation: dict, node, assigned: dict) -> Val:
        target = relation["target"]
        if attr in assigned and not assigned[attr][0] & {("unknown", "")}:
            sources = assigned[attr][0]
            return Val("instance", sources, entity=target, key=frozenset(sources))
        if attr in inst.prefetched:
            return Val("instance", inst.sources, entity=target, origin=inst.origin,
                       key=frozenset({("result", inst.origin)}) if inst.origin else frozenset())
        cache_key = (inst.origin, tuple(sorted(inst.key)), attr)
        if cache_key in self.rec.fk_cache:
            return self.rec.fk_cache[cache_key]
        key_sources = self._field_sources(inst, attr, assigned)
        predicate = _term("pk", attr, "eq", key_sources)
        uses = [inst.origin] if inst.origin and inst.origin != "new" else []
        sid = self.emit_statement(node, target, "read", f"fk:{attr}", predicate, uses=uses)
        loaded = Val("instance", frozenset({("result", sid)}), entity=target, origin=sid, key=frozenset(key_sources))
        self.rec.fk_cache[cache_key] = loaded
        return loaded

    def load_reverse_one(self, inst: Val, other: str, other_attr: str, node) -> Val:
        predicate = _term(other_attr, other_attr, "eq", inst.key or self._row_sources(inst))
        sid = self.emit_statement(node, other, "read", f"reverse:{other_attr}", predicate)
        return Val("instance", frozenset({("result", sid)}), entity=other, origin=sid,
                   key=frozenset({("result", sid)}))

    def related_manager(self, inst: Val, entity: str, attr: str, through: str | None) -> Val:
        predicate = _term(attr, attr, "eq", inst.key or self._row_sources(inst))
        uses = frozenset({inst.origin}) if inst.origin and inst.origin != "new" and not inst.key else frozenset()
        target = self.ctx.entities.get(entity)
        return Val("qs", inst.sources, entity=entity, qs=QuerySet(
            entity, predicates=(predicate,), uses=uses, through=through, owner=inst, owner_attr=attr,
            provider_classes=tuple(target.queryset_classes) if target else ()))

    # ------------------------------------------------------------------ predicates
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
            terms.append(_term(attribute, lookup, op, sources))
        return terms

    def call_arguments(self, call: cst.Call) -> tuple[list[Val], list[tuple[str, Val]], bool, list]:
        """Evaluate arguments: positional values, keyword pairs, whether **kwargs appear, and Q values."""
        positional, keywords, dynamic = [], [], False
        for arg in call.args:
            value = self.eval(arg.value)
            if arg.star == "**":
                dynamic = True
                if value.kind == "plain" and value.items:
                    pass
                continue
            if arg.star == "*":
                dynamic = dynamic or False
                positional.append(value)
                continue
            if arg.keyword is not None:
                keywords.append((arg.keyword.value, value))
            else:
                positional.append(value)
        return positional, keywords, dynamic, [v for v in positional if v.kind == "q"]

    # ------------------------------------------------------------------ calls
    def _e_Call(self, node: cst.Call) -> Val:
        func = node.func
        if isinstance(func, cst.Attribute):
            return self.method_call(node, func)
        if isinstance(func, cst.Name) and func.value == "super":
            return Val("super", ref=self.cls)
        callee = self.eval(func) if not isinstance(func, cst.Name) or func.value in self.env else None
        if callee is None:
            callee = self.resolve_global(func.value)
        return self.call_value(node, callee, _text(func) or _code(func))

    def call_value(self, node: cst.Call, callee: Val, written: str) -> Val:
        kind, ref = callee.kind, callee.ref or ""
        if ref in orm.ON_COMMIT:
            return _NO_VALUE  # runs after commit: not part of the transaction
        if kind == "func":
            positional, keywords, _dyn, _q = self.call_arguments(node)
            fn = self.ctx.index.function(ref)
            return self.call_function(node, fn, positional, keywords, None) if fn else plain(union(positional))
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
            return self.emit_effect(node, callee.category or "http", ref, positional + [v for _, v in keywords])
        positional, keywords, _d, _q = self.call_arguments(node)
        name = written.split(".")[-1]
        if kind == "plain" and name and written in self.env:
            self.emit_unresolved(node, written, "callable held in a variable")
        elif kind == "plain" and "[" in written:
            self.emit_unresolved(node, written, "callable looked up at run time")
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
        if ref in orm.GET_MODEL:
            names = [v.text.strip("'\"") for v in positional if v.text]
            name = names[-1].split(".")[-1] if names else ""
            if name in self.ctx.entities:
                return Val("model", frozenset({("constant", name)}), entity=name)
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
        category = effects.category_for(ref)
        if category is not None:
            return self.emit_effect(node, category, ref, args)
        if ref in orm.EVALUATING_BUILTINS and positional and positional[0].kind in ("qs", "rows"):
            first = positional[0]
            if first.kind == "qs":
                rows = self.evaluate_qs(first.qs, node, f"{ref}()")
                return self.cache_rows(node.args[0].value, rows) if ref != "list" else rows
            return first
        if ref == "getattr" and len(positional) >= 2:
            return Val("plain", union(positional), text="getattr")
        if self._looks_internal(ref):
            self.emit_unresolved(node, ref, "no definition found in the application")
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

    # ------------------------------------------------------------------ methods
    def method_call(self, node: cst.Call, func: cst.Attribute) -> Val:
        method = func.attr.value
        receiver_node = func.value
        if isinstance(receiver_node, cst.Call) and isinstance(receiver_node.func, cst.Name) \
                and receiver_node.func.value == "super":
            return self.super_call(node, method)
        receiver = self.eval(receiver_node)
        kind = receiver.kind
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
        if kind in ("self", "obj") and receiver.ref:
            fn = self.ctx.index.find_method(receiver.ref, method)
            positional, keywords, _d, _q = self.call_arguments(node)
            if fn is not None:
                return self.call_function(node, fn, positional, keywords, receiver)
            if kind == "self" and method not in ("get_context_data", "get_serializer", "get_queryset"):
                self.emit_unresolved(node, f"self.{method}", "method not defined in the application")
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
        if kind == "extobj":
            positional, keywords, _d, _q = self.call_arguments(node)
            return self.emit_effect(node, receiver.category or "http", f"{receiver.ref}.{method}",
                                    positional + [v for _, v in keywords])
        if kind in ("ref", "class"):
            return self.call_value(node, self._e_Attribute(func), _text(func) or _code(func))
        return self.plain_method(node, receiver, receiver_node, method)

    def plain_method(self, node: cst.Call, receiver: Val, receiver_node, method: str) -> Val:
        positional, keywords, _d, _q = self.call_arguments(node)
        args = positional + [v for _, v in keywords]
        written = _text(receiver_node) or "<expr>"
        if method in ("delay", "apply_async") :
            return self.emit_effect(node, "queue", f"{written}.{method}", args)
        if method in effects.PATH_WRITES and "path" in written.lower():
            return self.emit_effect(node, "file", f"{written}.{method}", args)
        if method == "save" and any(word in written.lower() for word in ("form", "serializer")):
            self.emit_statement(node, None, "write", f"{written}.save", None, dynamic=True,
                                uses=step_ids(value_sources(receiver)))
            self.diagnostic(node, "unknown-orm-pattern", f"{written}.save(): a form or serializer writes a model "
                            "that is only known at run time", severity="info")
            return plain(UNKNOWN)
        if method in ("save", "delete") and written.split(".")[-1] in ("file", "image", "avatar", "attachment",
                                                                         "document", "photo", "upload"):
            return self.emit_effect(node, "storage", f"FieldFile.{method}", args)
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
        if this is not None and this.kind == "instance" and method in orm.INSTANCE:
            return self.instance_statement(node, this, "self", orm.INSTANCE[method], method, keywords,
                                           at_call_site=True)
        if self.cls:
            for base in self.ctx.index.mro(self.cls)[1:]:
                if method in base.methods:
                    return self.call_function(node, base.methods[method], positional, keywords, this)
        if this is not None and this.kind == "qs":
            return self.queryset_method(node, this.qs, method, evaluated=(positional, keywords))
        return plain(union(positional))

    def instance_method(self, node: cst.Call, inst: Val, receiver_node, method: str) -> Val:
        entity = self.ctx.entities.get(inst.entity or "")
        if entity is not None:
            fn = self.ctx.index.find_method(entity.qualname, method)
            if fn is not None:  # an overridden save()/delete() or a custom model method
                positional, keywords, _d, _q = self.call_arguments(node)
                site = (self.module.rel, self._line(node), self.via, method) if method in orm.INSTANCE else None
                return self.call_function(node, fn, positional, keywords, inst, bind_name=_dotted(receiver_node),
                                          call_site=site)
        if method in orm.INSTANCE:
            _p, keywords, _d, _q = self.call_arguments(node)
            return self.instance_statement(node, inst, _dotted(receiver_node), orm.INSTANCE[method], method, keywords)
        positional, keywords, _d, _q = self.call_arguments(node)
        return plain(value_sources(inst) | union(positional))

    def instance_statement(self, node, inst: Val, name: str | None, action: str, method: str, keywords,
                           at_call_site: bool = False) -> Val:
        entity = inst.entity
        options = dict(keywords)
        site = {"at_call_site": at_call_site}
        if action == "save":
            force_insert = "force_insert" in options and options["force_insert"].text == "True"
            values = [{"attribute": attr, "sources": ir_sources(sources), "text": text}
                      for attr, sources, text in inst.assigned]
            if "update_fields" in options and options["update_fields"].items:
                wanted = {v.text.strip("'\"") for v in options["update_fields"].items}
                values = [v for v in values if v["attribute"] in wanted] or \
                         [{"attribute": w, "sources": [{"kind": "unknown"}]} for w in sorted(wanted)]
            if (inst.origin == "new" and not inst.key) or force_insert:
                sid = self.emit_statement(node, entity, "insert", method, None, values=values,
                                          uses=step_ids(union_assigned(inst)), **site)
                updated = replace(inst, origin=sid, key=frozenset({("generated", sid)}),
                                  sources=frozenset({("generated", sid)}))
                if name and name in self.env:
                    self.env[name] = updated
                self.fire_signals(node, "save", updated)
                return _NO_VALUE
            uses = ([inst.origin] if inst.origin and inst.origin != "new" else []) + step_ids(union_assigned(inst))
            sid = self.emit_statement(node, entity, "write", method, _term("pk", "pk", "eq", inst.key or self._row_sources(inst)),
                                      values=values, uses=uses, **site)
            self.fire_signals(node, "save", inst)
            return _NO_VALUE
        if action == "delete":
            # A delete stores nothing: it depends on a read only through its key (the predicate).
            self.fire_signals(node, "delete", inst, pre=True)
            self.emit_statement(node, entity, "delete", method, _term("pk", "pk", "eq", inst.key or self._row_sources(inst)),
                                **site)
            return _NO_VALUE
        sid = self.emit_statement(node, entity, "read", method, _term("pk", "pk", "eq", inst.key or self._row_sources(inst)),
                                  **site)
        if name and name in self.env:
            self.env[name] = replace(inst, origin=sid, assigned=())
        return _NO_VALUE

    def fire_signals(self, node, event: str, inst: Val, pre: bool = False) -> None:
        for receiver in self.ctx.signals.get((event, inst.entity or ""), []):
            fn = self.ctx.index.function(receiver)
            if fn is None:
                continue
            keywords = [("sender", Val("model", entity=inst.entity)), ("instance", inst),
                        ("created", plain({("constant", "created")}))]
            self.call_function(node, fn, [], keywords, None)

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

    # ------------------------------------------------------------------ querysets
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
            self.emit_statement(node, qs.through, kind, f"{qs.through.split('.')[-1]}.{method}", predicate,
                                values=values, uses=uses)
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
            return Val("qs", qs=replace(qs, chain=chain))
        if method in orm.EVALUATING:
            return self.queryset_evaluating(node, qs, method, positional, keywords, dynamic)
        # A custom QuerySet/Manager method of the application.
        for provider in qs.provider_classes:
            fn = self.ctx.index.find_method(provider, method)
            if fn is not None and fn.qualname not in self.stack:
                return self.call_function(node, fn, positional, keywords, Val("qs", qs=qs))
        if method in ("as_manager", "get_queryset", "iterator_lazy"):
            return Val("qs", qs=qs)
        self.diagnostic(node, "unknown-orm-pattern", f"unknown queryset method {method}() on {qs.entity}",
                        severity="info")
        return Val("qs", qs=replace(qs, chain=chain))

    def queryset_evaluating(self, node, qs: QuerySet, method: str, positional, keywords, dynamic) -> Val:
        kind, shape = orm.EVALUATING[method]
        if method in ("get", "in_bulk", "contains") or (method in ("update_or_create", "get_or_create")):
            pass
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
            sid = self.emit_statement(node, qs.entity, "insert", _api(qs.chain, "create"), None,
                                      dynamic=dynamic, values=values, uses=uses)
            inst = Val("instance", frozenset({("generated", sid)}), entity=qs.entity, origin=sid,
                       key=frozenset({("generated", sid)}), assigned=tuple((a, s, t) for a, s, t in assigned))
            self.fire_signals(node, "save", inst)
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
            uses = sorted(qs2.uses) + step_ids(union(defaults))
            sid = self.emit_statement(node, qs.entity, "lock" if qs.lock else "write", method,
                                      _predicate(qs2.predicates), dynamic=qs2.dynamic, values=values, uses=uses)
            inst = Val("instance", frozenset({("result", sid)}), entity=qs.entity, origin=sid,
                       key=frozenset({("result", sid)}))
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
        if one:
            key = self._key_of(qs.predicates, sid)
            return Val("instance", frozenset({("result", sid)}), entity=qs.entity, origin=sid, key=key,
                       prefetched=qs.select_related)
        return Val("rows", frozenset({("result", sid)}), entity=qs.entity, origin=sid, prefetched=qs.select_related)

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

    # ------------------------------------------------------------------ interprocedural
    def call_function(self, node, fn: FunctionInfo, positional: list[Val], keywords, self_val: Val | None,
                      bind_name: str | None = None, call_site=None, yield_hook=None) -> Val:
        self.last_self = None
        if fn.qualname in self.stack:
            return plain(union(positional))
        if self.depth >= self.ctx.max_depth:
            self.diagnostic(node, "depth-limit", f"call to {fn.qualname} not followed: depth {self.ctx.max_depth} reached",
                            severity="info")
            return plain(union(positional))
        found = self.ctx.def_node(fn)
        if found is None:
            self.emit_unresolved(node, fn.qualname, "definition could not be parsed")
            return plain(union(positional))
        parsed, definition = found
        env = bind_parameters(self, definition, fn, positional, keywords, self_val)
        env["__qualname__"] = Val("ref", ref=fn.qualname)
        cls = fn.cls
        if self_val is not None and self_val.kind == "instance" and self_val.entity:
            entity = self.ctx.entities.get(self_val.entity)
            cls = cls or (entity.qualname if entity else None)
        callee = Walker(self.ctx, parsed, self.rec, env, cls=cls, via=self.via + (fn.qualname,),
                        depth=self.depth + 1, stack=self.stack | {fn.qualname})
        callee.out = self.out
        callee.call_site = call_site
        callee.yield_hook = yield_hook
        callee.walk_statements(_statements(definition.body))
        self.out = callee.out  # a yield hook may have swapped the list while walking
        self.last_self = callee.env.get("self")
        # A model method that saved/changed `self` changes the caller's instance too.
        if bind_name and bind_name in self.env and "self" in callee.env and callee.env["self"].kind == "instance":
            self.env[bind_name] = callee.env["self"]
        if not callee.returns:
            return plain(union(positional))
        if len(callee.returns) == 1:
            return callee.returns[0]
        merged = callee.returns[-1]
        for other in callee.returns[:-1]:
            if other.kind != merged.kind:
                return plain(union(callee.returns))
        return merged


def _is_queryset_class(ctx: Context, qualname: str) -> bool:
    return any("QuerySet" in base or "Manager" in base for cls in ctx.index.mro(qualname) for base in cls.bases)


def union_assigned(inst: Val) -> frozenset:
    out: set = set()
    for _attr, sources, _text in inst.assigned:
        out |= set(sources)
    return frozenset(out)


def bind_parameters(walker: Walker, definition: cst.FunctionDef, fn: FunctionInfo, positional: list[Val],
                    keywords, self_val: Val | None) -> dict[str, Val]:
    params = definition.params
    ordered = list(params.posonly_params) + list(params.params)
    env: dict[str, Val] = {}
    is_static = any(d.split("(")[0].endswith("staticmethod") for d in fn.decorators)
    args = list(positional)
    if fn.cls and not is_static and ordered:
        first = ordered.pop(0)
        env[first.name.value] = self_val if self_val is not None else Val("self", ref=fn.cls)
    given = dict(keywords)
    for index, param in enumerate(ordered):
        name = param.name.value
        if index < len(args):
            env[name] = args[index]
        elif name in given:
            env[name] = given.pop(name)
        else:
            env[name] = constant(f"default:{name}")
    if params.star_arg is not None and isinstance(params.star_arg, cst.Param):
        env[params.star_arg.name.value] = Val("plain", union(args[len(ordered):]), items=tuple(args[len(ordered):]))
    for param in params.kwonly_params:
        env[param.name.value] = given.pop(param.name.value, constant(f"default:{param.name.value}"))
    if params.star_kwarg is not None:
        env[params.star_kwarg.name.value] = plain(union(given.values()) or {("constant", "kwargs")})
    return env


def _statements(body) -> list:
    if isinstance(body, (cst.IndentedBlock,)):
        return list(body.body)
    if isinstance(body, cst.SimpleStatementSuite):
        return list(body.body)
    if isinstance(body, (list, tuple)):
        return list(body)
    return []


def _exits(block) -> bool:
    """The block ends by leaving: return, raise, continue or break as its last statement."""
    statements = _statements(block)
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, cst.SimpleStatementLine) and last.body:
        return isinstance(last.body[-1], (cst.Return, cst.Raise, cst.Continue, cst.Break))
    return False


def _merge(a: dict, b: dict) -> dict:
    """Join two environments after a branch: a name bound differently keeps both origins."""
    merged = dict(a)
    for name, value in b.items():
        if name not in merged:
            merged[name] = value
        elif merged[name] is not value and merged[name] != value:
            left = merged[name]
            if left.kind == value.kind and left.kind in ("instance", "qs", "rows", "model"):
                merged[name] = value
            else:
                merged[name] = plain(value_sources(left) | value_sources(value))
    return merged


def _term(attribute: str, lookup: str, op: str, sources) -> dict:
    return {"attribute": attribute, "lookup": lookup, "op": op, "sources": ir_sources(sources)}


def _source_tuple(source: dict) -> tuple[str, str]:
    return (source["kind"], source.get("step") or source.get("name", ""))


def _predicate(predicates: tuple) -> dict:
    if len(predicates) == 1:
        return predicates[0]
    return {"bool": "and", "args": list(predicates)}


def _api(chain: tuple[str, ...], final: str) -> str:
    shown = [m for m in chain if m not in ("all",)]
    return ".".join([*shown[-3:], final]) if shown else final


def _literal_string(node) -> str | None:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None
