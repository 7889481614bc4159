"""The deep pass: walk a transaction's code and report its steps as IR.

This module holds the walker's core (steps, statements, control flow, expressions, following
calls into the application); calls.py, orm_querysets.py and orm_instances.py hold what calls,
querysets and model instances do, as mixins of the same Walker.

The walker is an abstract interpreter over libcst nodes. For every name it tracks a `Val`
(values.py): where the data came from and what ORM object it is. Expressions that reach
the database become `statement` steps, calls that reach outside become `effect` steps,
`if`/`for`/`while` keep their structure, and calls into the application's own functions are
followed (bounded depth, cycle safe) with the call chain recorded in `via`.
"""

from __future__ import annotations

import re

import libcst as cst

from ..ir import diagnostic
from .context import Context, ParsedModule
from .syntax import code as _code
from .syntax import dotted as _dotted
from .index import FunctionInfo
from .calls import CallsMixin
from .dispatch import DispatchMixin, alternatives, element_of, is_distinct, transposed
from .orm_deletion import DeletionMixin
from .thread_memo import request_primed
from .node_types import ATTRIBUTE, ELSE, IF, INDEX, NAME, SIMPLE_STATEMENT_LINE, SLICE, STARRED_ELEMENT, TUPLE_OR_LIST
from .orm_forms import FormsMixin
from .parameters import Signature, parameter_entity, signature_of
from .orm_instances import InstancesMixin
from .orm_library import LibraryMixin
from .tasks import TasksMixin
from .orm_querysets import QuerySetsMixin
from .folding import UNKNOWN as UNDECIDED
from .folding import fold, literal_value
from .registries import registered_models
from .walk_helpers import _exits, _merge, _raises, _statements, _text
from .summaries import (
    CallContext, Entry, FkCache, Frame, InstanceTable, StackView, SummaryStore, Uncacheable, close_frame,
    fk_dependencies,
    Relabel, bindings, instance_key, instantiate, make_summary, step_ids_in,
)
from .values import (
    UNKNOWN, QuerySet, Val, constant, ir_sources, plain, step_ids, union, value_sources, replace,
)

HTTP_METHODS = ("get", "post", "put", "patch", "delete", "head", "options")
_NO_VALUE = Val("plain", frozenset())
# The category of a literal the walk computed (a registry membership), not wrote: a branch on
# it folds like one on a literal argument.
DECIDED = "decided"


_GET_MODEL = re.compile(r"""^[\w.]*get_model\(\s*['"](\w+)['"]\s*,\s*['"](\w+)['"]\s*\)$""", re.I)
_GET_MODEL_DOTTED = re.compile(r"""^[\w.]*get_model\(\s*['"]\w+\.(\w+)['"]\s*\)$""")


class HandlerTable(dict):
    """A walker class's handlers of node types (`_s_If`, `_e_Call`; None where it has none), by
    node class: looked up by name once, not at each of the walk's hundreds of thousands of nodes
    (so a handler replaced on the class after its first use is not seen; nothing does that).
    Each walker class has its own tables (Walker.__init_subclass__); a hit is one dict lookup."""

    __slots__ = ("walker_class", "prefix")

    def __init__(self, walker_class: type, prefix: str) -> None:
        super().__init__()
        self.walker_class = walker_class
        self.prefix = prefix

    def __missing__(self, node_class: type):
        found = self[node_class] = getattr(self.walker_class, self.prefix + node_class.__name__, None)
        return found


class StopWalk(Exception):
    """Raised when the pre-walk reaches the transaction's boundary."""


# Calls followed per transaction before giving up: a safety net. A helper's walk is a summary
# computed once per calling context (summaries.py) and a call that would repeat an earlier
# instance is one `repeat` step (counted as one call).
CALL_BUDGET = 15000


class Recorder:
    """State shared by all walkers of one transaction: step ids and diagnostics.

    `values_only`: the walk's steps and diagnostics are thrown away, only values are used (a
    caller walked to its call, caller_arguments.py); summaries of walks cut by the depth limit
    are then reusable (summaries.py, SummaryStore.find)."""

    def __init__(self, values_only: bool = False) -> None:
        self.values_only = values_only
        self.counter = 0
        self.calls = 0
        self.diagnostics: list[dict] = []
        # Functions being walked for a summary, innermost last (summaries.py).
        self.frames: list[Frame] = []
        self.fk_cache: dict[tuple, Val] = FkCache(self.frames)
        # Instances a later identical call repeats instead of copying (summaries.py).
        self.instances = InstanceTable(self.frames, self.fk_cache)
        # Limit sites already reported: a helper inlined at many call sites reports its cut once.
        self.limits: set[tuple] = set()
        # Definitions this transaction's walk reached (followed or instantiated from a summary).
        self.reached: set[str] = set()
        # Statements reported at their caller's call site (`super().save()` in an override).
        self.site_steps: set[str] = set()

    def next_id(self) -> str:
        self.counter += 1
        return f"s{self.counter}"


class Walker(CallsMixin, DispatchMixin, FormsMixin, DeletionMixin, InstancesMixin, LibraryMixin, TasksMixin,
             QuerySetsMixin):
    _statement_handlers: HandlerTable
    _expression_handlers: HandlerTable

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls._statement_handlers = HandlerTable(cls, "_s_")
        cls._expression_handlers = HandlerTable(cls, "_e_")

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
        self._stack = frozenset(stack)
        # Stack lookups are recorded: a summary depends on what the walk found on the stack.
        self.stack = StackView(self._stack, recorder)
        self.out: list[dict] = []
        self.returns: list[Val] = []
        self.stop_at: cst.CSTNode | None = None
        # Where `super().save()` in an overridden save() really runs: the caller's call site.
        self.call_site: tuple[str, int, tuple[str, ...], str] | None = None
        # Called on `yield` inside a project's transaction wrapper: walks the caller's with-body.
        self.yield_hook = None
        self.last_self: Val | None = None
        self.pending_guard: frozenset | None = None
        # Sources of conditions on which this function (or a helper it called) raises: the
        # caller's later statements run only when they did not hold.
        self.raise_guards: frozenset = frozenset()
        self.returned = False
        self.loop_depth = 0

    # ------------------------------------------------------------------ emitting steps
    def _line(self, node: cst.CSTNode) -> int:
        return self.parsed.line(node)

    def _base(self, node: cst.CSTNode, kind: str) -> dict:
        return {"node": kind, "file": self.module.rel, "line": self._line(node), "via": list(self.via)}

    def emit_statement(self, node, entity: str | None, kind: str, api: str, predicate: dict | None,
                       dynamic: bool = False, values: list | None = None, uses=(), sql: str | None = None,
                       at_call_site: bool = False) -> str:
        step = self._base(node, "statement")
        sid = self.rec.next_id()
        if at_call_site and self.call_site is not None:
            step["file"], step["line"], via, api = self.call_site
            step["via"] = list(via)
            self.rec.site_steps.add(sid)
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

    def emit_unresolved(self, node, callee: str, reason: str, detail: str = "") -> None:
        """A call the walk cannot follow; `reason` is a code of docs/IR.md (`unresolved-receiver`,
        `dynamic-dispatch`, `no-definition`, `depth-limit`, ...), `detail` says more."""
        step = self._base(node, "unresolved")
        if reason in ("depth-limit", "budget"):
            key = (step["file"], step["line"], callee, reason)
            if key in self.rec.limits:
                return
            self.rec.limits.add(key)
        step.update(callee=callee, reason=reason)
        if detail:
            step["detail"] = detail
        self.out.append(step)

    def diagnostic(self, node, code: str, message: str, severity: str = "warning") -> None:
        self.rec.diagnostics.append(diagnostic(self.module.rel, self._line(node), code, message, severity))

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
            if self.returned:
                return  # a folded branch left the function: nothing after it runs
            self.walk_statement(statement)
            guard, self.pending_guard = self.pending_guard, None
            if guard:
                rest = self.walk_block(statements[index + 1:])
                self._structure(statement, "branch", guard, arms=[rest, []])
                return

    def walk_statement(self, node: cst.CSTNode) -> None:
        if self.stop_at is not None and node is self.stop_at:
            raise StopWalk
        handler = self._statement_handlers[node.__class__]
        if handler is not None:
            handler(self, node)
        elif type(node) in SIMPLE_STATEMENT_LINE:
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
            value = self.annotated_value(node.annotation, node.target, self.eval(node.value))
            self.assign(node.target, value, node.value)

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
        # Not inside loops: the walk sees one iteration, later ones may see other values.
        decided = fold(node.test, self.env) if not self.loop_depth else UNDECIDED
        if decided is not UNDECIDED:
            # The condition is literal at this call site: only the arm it takes runs.
            self._take_arm(node, decided)
            return
        test = self.eval_bool(node.test)
        if test.category == DECIDED and not self.loop_depth and literal_value(test) is not UNDECIDED:
            self._take_arm(node, bool(literal_value(test)))  # `if registry.handler_exists(row):`
            return
        before = dict(self.env)
        arms = [self.walk_block(node.body)]
        after_body = self.env
        self.env = dict(before)
        orelse = node.orelse
        if type(orelse) in IF:
            saved, self.out = self.out, []
            self._s_If(orelse)
            arms.append(self.out)
            self.out = saved
        elif type(orelse) in ELSE:
            arms.append(self.walk_block(orelse.body))
        else:
            arms.append([])
        self.env = _merge(after_body, self.env)
        self._structure(node, "branch", value_sources(test), arms=arms)
        if (_exits(node.body) or (type(orelse) in ELSE and _exits(orelse.body))) and \
                any(kind in ("result", "generated", "external") for kind, _ in value_sources(test)):
            self.pending_guard = value_sources(test)
            if _raises(node.body) or (isinstance(orelse, cst.Else) and _raises(orelse.body)):
                self.raise_guards |= frozenset(s for s in value_sources(test)
                                               if s[0] in ("result", "generated", "external"))

    def _take_arm(self, node: cst.If, decided: bool) -> None:
        taken = node.body if decided else (node.orelse.body if isinstance(node.orelse, cst.Else) else None)
        if isinstance(node.orelse, cst.If) and not decided:
            self._s_If(node.orelse)
        elif taken is not None:
            self.walk_statements(_statements(taken))
            if _exits(taken):
                self.returned = True

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
        if self.loop_over_models(node, iterable):  # for model in (A, B): once per model
            return
        if self.loop_over_members(node, iterable):  # for qs in querysets.values(): any of them
            return
        if iterable.kind == "qs":
            iterable = self.cache_rows(node.iter, self.evaluate_qs(iterable.qs, node.iter, "iterate"))
        self.bind_loop_target(node.target, iterable)
        self._structure(node, "loop", value_sources(iterable), body=self.walk_loop_body(node.body))
        if node.orelse is not None:
            for step in self.walk_block(node.orelse.body):
                self.out.append(step)

    def bind_loop_target(self, target, iterable: Val) -> None:
        if iterable.kind == "rows":
            element = Val("instance", iterable.sources, entity=iterable.entity, origin=iterable.origin,
                          key=frozenset({("result", iterable.origin)}) if iterable.origin else frozenset(),
                          prefetched=iterable.prefetched)
        else:
            element = element_of(iterable) or plain(value_sources(iterable))
        self.assign(target, element, None)

    def _s_While(self, node: cst.While) -> None:
        test = self.eval_bool(node.test)
        self._structure(node, "loop", value_sources(test), body=self.walk_loop_body(node.body))

    def walk_loop_body(self, body) -> list[dict]:
        """One walk of a loop body stands for every iteration: nothing folds inside it, and
        names it rebinds keep both their before-loop and in-loop origins afterwards."""
        before = dict(self.env)
        self.loop_depth += 1
        try:
            steps = self.walk_block(body)
        finally:
            self.loop_depth -= 1
        self.env = _merge(before, self.env)
        return steps

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
        kind = type(target)
        if kind in NAME:
            self.env[target.value] = value
        elif kind in TUPLE_OR_LIST:
            if value.kind == "alts":  # `model, name = MAPPING.get(kind)`: each position's alternatives
                value = transposed(value.items) or plain(value_sources(value))
            elements = [e.value for e in target.elements]
            for index, element in enumerate(elements):
                if type(element) in STARRED_ELEMENT:
                    element = element.value
                if value.items and index < len(value.items):
                    self.assign(element, value.items[index], None)
                elif value.kind == "rows":
                    self.assign(element, Val("instance", value.sources, entity=value.entity, origin=value.origin,
                                             key=frozenset({("result", value.origin)})), None)
                else:
                    self.assign(element, plain(value_sources(value)), None)
        elif kind in ATTRIBUTE:
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
        handler = self._expression_handlers[node.__class__]
        if handler is not None:
            return handler(self, node)
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
        # `rows[0] if rows else None`: either value (an ORM object stays one).
        return alternatives([body, orelse], value_sources(test)) or \
            plain(value_sources(test) | value_sources(body) | value_sources(orelse))

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
        left = self.eval_bool(node.left)
        sources = set(value_sources(left))
        for comparison in node.comparisons:
            sources |= value_sources(self.eval(comparison.comparator))
        membership = self.registry_membership(node, left)
        return membership if membership is not None else plain(sources)

    def registry_membership(self, node: cst.Comparison, left: Val) -> Val | None:
        """`row._meta.model in REGISTRY` (or `.keys()`) for a registry filled at import time
        (registries.py): decided, so the branch it guards folds."""
        if len(node.comparisons) != 1 or left.kind != "model" or not left.entity:
            return None
        operator = node.comparisons[0].operator
        if not isinstance(operator, (cst.In, cst.NotIn)):
            return None
        container = node.comparisons[0].comparator
        if isinstance(container, cst.Call) and not container.args and isinstance(container.func, cst.Attribute) \
                and container.func.attr.value == "keys":
            container = container.func.value
        written = _dotted(container)
        if not written:
            return None
        target = self.eval(container)
        if target.kind != "ref" or not target.ref:
            return None
        models = registered_models(self.ctx, target.ref)
        if models is None:
            return None
        member = (left.entity in models) != isinstance(operator, cst.NotIn)
        return Val("plain", frozenset({("constant", str(member))}), text=str(member), category=DECIDED)

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
        elements = [self.eval(element) for element in element_nodes]
        for element in elements:
            sources |= value_sources(element)
        body, self.out = self.out, saved
        self.env = before
        self._structure(node, "loop", value_sources(iterable), body=body)
        result = plain(sources)
        if iterable.kind == "rows":
            result = replace(iterable, sources=frozenset(sources))
        elif isinstance(node, cst.ListComp) and elements[0].kind in ("instance", "model", "qs", "func"):
            result = Val("plain", frozenset(sources), items=(elements[0],))  # [Task(...) for ...]: Tasks
        return result

    def _e_ListComp(self, node) -> Val:
        return self._comprehension(node, [node.elt])

    _e_SetComp = _e_GeneratorExp = _e_ListComp

    def _e_DictComp(self, node) -> Val:
        return self._comprehension(node, [node.key, node.value])

    def _e_Subscript(self, node: cst.Subscript) -> Val:
        base = self.eval(node.value)
        index_node = node.slice[0].slice if node.slice else None
        is_slice = type(index_node) in SLICE
        index_sources = frozenset()
        if type(index_node) in INDEX:
            index_sources = value_sources(self.eval(index_node.value))
        if base.kind == "dict" and not is_slice:
            return self.dict_item(base, self.eval(index_node.value) if isinstance(index_node, cst.Index) else plain())
        if base.kind == "alts" and not is_slice:  # an item of any of several collections
            return self.each_alternative(node, base, lambda candidate: self.item_of(node, candidate, index_sources))
        if base.kind == "ref" and not is_slice:
            registry = self.registry(base.ref)
            if registry is not None:  # HANDLERS[kind]: one of the functions the dict holds
                return replace(registry, sources=index_sources)
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

    def _e_Attribute(self, node: cst.Attribute) -> Val:
        if node.attr.value == "model" and isinstance(node.value, cst.Attribute) and node.value.attr.value == "_meta":
            owner = self.eval(node.value.value)  # `row._meta.model`: the row's model class
            if owner.kind in ("instance", "model") and owner.entity:
                entity = self.ctx.entities.get(owner.entity)
                return Val("model", frozenset({("constant", owner.entity)}), entity=owner.entity,
                           ref=entity.qualname if entity else None)
            base = self._attribute_of_value(node.value, owner)
        else:
            base = self.eval(node.value)
        return self._attribute_of_value(node, base)

    def _attribute_of_value(self, node: cst.Attribute, base: Val) -> Val:
        if base.kind == "alts":  # one of several objects: the attribute of each
            return self.each_alternative(node, base, lambda candidate: self.attribute_of(node, candidate))
        return self.attribute_of(node, base)

    def attribute_of(self, node, base: Val, attr: str | None = None) -> Val:
        attr = attr or node.attr.value
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
            return self.relation_descriptor(base, attr) or constant(f"{base.entity}.{attr}")
        if kind == "m2mfield":  # Channel.warehouses.through
            return (self.through_of(base) if attr == "through" else None) or constant(f"{base.entity}.{base.ref}.{attr}")
        if kind == "instance":
            return self.instance_attribute(base, attr, node)
        if kind == "qs":
            return Val("model", entity=base.qs.entity) if attr == "model" else constant(attr)
        if kind in ("self", "obj"):
            attrs = base.attr_map()
            if attr in attrs:
                return attrs[attr]
            declared = self.class_attribute(base.ref, attr) if base.ref else None
            if declared is not None:
                return declared
            generic = self.generic_view_rows(node, base, attr)  # self.queryset / self.model of a generic view
            if generic is not None:
                return generic
            row = self.form_instance(base, attr)  # serializer.instance, validator.object
            if row is not None:
                return row
            bound = self.bound_method(base, attr)  # callback=self.post_save: the method, bound
            if bound is not None:
                return bound
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
        if kind == "plain" and base.sources & {("input", "request"), ("input", "self.request")} \
                and attr in self.ctx.entity_by_param_name:
            # request.basket set by the app's middleware: the one model with that name.
            entity = self.ctx.entity_by_param_name[attr]
            return Val("instance", frozenset({("input", f"request.{attr}")}), entity=entity.name,
                       key=frozenset({("input", f"request.{attr}.pk")}))
        if kind == "plain":
            renamed = set()
            for source_kind, name in base.sources:
                if source_kind == "input" and name.count(".") < 2:
                    renamed.add(("input", f"{name}.{attr}"))
                else:
                    renamed.add((source_kind, name))
            return plain(renamed, _text(node))
        return plain(value_sources(base))

    def class_attribute(self, class_qualname: str, attr: str) -> Val | None:
        """A class-level `model = Order` / `product_model = get_model("catalogue", "Product")`."""
        for info in self.ctx.index.mro(class_qualname):
            text = info.assigns.get(attr)
            if text is None:
                continue
            text = text.strip()
            if text.replace(".", "").replace("_", "").isalnum():
                value = self.ctx.index.resolve(info.module, text)
                entity = self.ctx.entity_for_class(value)
                if entity is None and value in self.ctx.index.classes:  # validator_class = OrderValidator
                    return Val("class", frozenset({("constant", text)}), ref=value)
                return Val("model", entity=entity.name) if entity else self.module_level_model(value)
            match = _GET_MODEL.match(text) or _GET_MODEL_DOTTED.match(text)
            entity = self.ctx.entity_named(match.groups()[-1]) if match else None
            return Val("model", entity=entity.name) if entity else None
        return None

    # ------------------------------------------------------------------ interprocedural
    def type_parameters(self, signature: Signature, parsed: ParsedModule, env: dict[str, Val]) -> None:
        """A parameter the caller passed as a plain value is a model instance when its annotation
        names a model, or, without one, when its name is the one model's (`invoice` -> Invoice)."""
        for name, param in signature.typed:
            value = env.get(name)
            if value is None or value.kind != "plain" or name in ("self", "cls") or \
                    all(kind == "constant" for kind, _ in value.sources):
                continue
            entity = parameter_entity(self.ctx, parsed, signature, name, param)
            if entity is not None:
                sources = value_sources(value)
                env[name] = Val("instance", sources, entity=entity.name,
                                key=frozenset(renamed_key(sources, name)))


    def call_function(self, node, fn: FunctionInfo, positional: list[Val], keywords, self_val: Val | None,
                      bind_name: str | None = None, call_site=None, yield_hook=None) -> Val:
        """Follow a call into the application: the callee's summary for this calling context,
        computed by walking it the first time that context is seen in the scan."""
        self.last_self = None
        if fn.qualname in self.stack:
            return plain(union(positional))
        if request_primed(self.ctx, fn.qualname):  # a per-thread copy filled before the view
            return plain({("constant", fn.name)})
        if self.rec.frames:
            frame = self.rec.frames[-1]
            frame.deepest = max(frame.deepest, self.depth)
        if self.ctx.max_depth is not None and self.depth >= self.ctx.max_depth:
            self._cut()
            self.emit_unresolved(node, fn.qualname, "depth-limit",
                                 f"not followed: depth {self.ctx.max_depth} reached")
            return plain(union(positional))
        self.rec.calls += 1
        if self.rec.calls > CALL_BUDGET:
            self._cut()
            self.emit_unresolved(node, fn.qualname, "budget",
                                 f"{CALL_BUDGET} calls followed in this transaction; later calls are not followed")
            return plain(union(positional))
        found = self.ctx.def_node(fn)
        if found is None:
            self.emit_unresolved(node, fn.qualname, "unparsable-definition", "definition could not be parsed")
            return plain(union(positional))
        self.rec.reached.add(fn.qualname)
        store = summary_store(self.ctx)
        context = key = None
        if yield_hook is None:
            # A context wrapper's walk runs the caller's with-body at its yield: not a summary.
            context = CallContext(fn.qualname, positional, keywords, self_val, self.loop_depth > 0,
                                  call_site is not None)
            key = instance_key(context, call_site)
            found_instance = self.rec.instances.lookup(key, context, self.stack, self.depth,
                                                       self.ctx.max_depth) if key else None
            if found_instance is not None:
                return self._repeat(node, fn, *found_instance, bind_name, positional)
            summary = store.find(context, self._stack, self.depth, self.ctx.max_depth, self.rec, CALL_BUDGET)
            if summary is not None:
                store.hits += 1
                base = self.rec.counter
                done = instantiate(summary, context, self.rec, self.via, self.depth, call_site)
                self.out.extend(done.steps)
                # A walk cut by the depth limit registers no instance (see below): nor does its summary.
                fk = fk_dependencies(done.fk_inserted, {}, base, self.rec.counter, done.value, done.self_after,
                                     self.rec.fk_cache) if key and not summary.cut else None
                if fk is not None:
                    self.rec.instances.register(key, Entry(
                        base, bindings(context), step_ids_in(done.steps), done.value, done.self_after, done.raise_guards,
                        summary.on_stack, summary.off_stack, summary.height, summary.reached, *fk))
                return self._returned(done.value, done.self_after, done.raise_guards, bind_name, positional)
        store.walks += 1
        frame = Frame(self._stack, self.depth, self.rec.counter, self.rec.calls, len(self.rec.diagnostics),
                      reached={fn.qualname})
        self.rec.frames.append(frame)
        try:
            steps, value, self_after, guards = self._walk_callee(found, fn, positional, keywords, self_val,
                                                                 call_site, yield_hook)
        finally:
            close_frame(self.rec, frame)
        if context is not None:
            try:
                store.add(context, make_summary(frame, context, self.rec, steps, value, self_after, guards,
                                                self.via, call_site, self.ctx.max_depth, self.depth, CALL_BUDGET))
            except Uncacheable:
                pass
        if yield_hook is None:
            self.out.extend(steps)
        fk = fk_dependencies(frame.fk_inserted, frame.fk_used, frame.counter, self.rec.counter, value, self_after,
                             self.rec.fk_cache) \
            if key and not frame.cut else None
        if fk is not None:
            on_stack = frozenset(q for q in frame.queried if q in frame.base_stack)
            self.rec.instances.register(key, Entry(
                frame.counter, bindings(context), step_ids_in(steps), value, self_after, guards, on_stack,
                frozenset(frame.queried) - on_stack,
                frame.deepest - frame.base_depth if frame.deepest >= 0 else -1, frozenset(frame.reached), *fk))
        return self._returned(value, self_after, guards, bind_name, positional)

    def _repeat(self, node, fn: FunctionInfo, entry: Entry, bind: dict, same_as: tuple, bind_name, positional) -> Val:
        """A call that would be an earlier instance again: one `repeat` step naming the steps it
        runs again (`same_as`: the instance's, less the foreign-key reads it finds cached), and
        the first instance's values with the caller's steps this call binds instead."""
        if same_as:
            step = self._base(node, "repeat")
            step.update(id=self.rec.next_id(), callee=fn.qualname, same_as=list(same_as))
            if bind:
                step["bind"] = dict(bind)
            self.out.append(step)
        self.rec.reached |= entry.reached
        if self.rec.frames:
            frame = self.rec.frames[-1]
            frame.reached |= entry.reached
            if entry.height >= 0:
                frame.deepest = max(frame.deepest, self.depth + entry.height)
        relabel = Relabel(lambda sid: bind.get(sid, sid))
        return self._returned(relabel.value(entry.value), relabel.value(entry.self_after),
                              relabel.sources(entry.raise_guards), bind_name, positional)

    def _cut(self) -> None:
        """A depth or budget cut: every walk in progress now depends on its path."""
        for frame in self.rec.frames:
            frame.cut = True

    def _walk_callee(self, found, fn: FunctionInfo, positional, keywords, self_val, call_site, yield_hook):
        parsed, definition = found
        signature = signature_of(self.ctx, definition, fn)
        env = bind_parameters(signature, positional, keywords, self_val)
        self.type_parameters(signature, parsed, env)
        env["__qualname__"] = Val("ref", ref=fn.qualname)
        cls = fn.cls
        if self_val is not None and self_val.kind == "instance" and self_val.entity:
            entity = self.ctx.entities.get(self_val.entity)
            cls = cls or (entity.qualname if entity else None)
        callee = Walker(self.ctx, parsed, self.rec, env, cls=cls, via=self.via + (fn.qualname,),
                        depth=self.depth + 1, stack=self._stack | {fn.qualname})
        # The callee's steps go to a list of their own (its summary), except through a context
        # wrapper, whose yield hook walks the caller's body into the caller's list.
        callee.out = self.out if yield_hook is not None else []
        callee.call_site = call_site
        callee.yield_hook = yield_hook
        callee.loop_depth = self.loop_depth  # arguments may differ between iterations
        callee.walk_statements(_statements(definition.body))
        if yield_hook is not None:
            self.out = callee.out  # the yield hook may have swapped the list while walking
        return callee.out, _return_value(callee.returns), callee.env.get("self"), callee.raise_guards

    def _returned(self, value: Val | None, self_after: Val | None, guards: frozenset, bind_name, positional) -> Val:
        self.last_self = self_after
        if guards:
            # The helper aborts the transaction on a read's result: what follows depends on it.
            self.raise_guards |= guards
            self.pending_guard = (self.pending_guard or frozenset()) | guards
        # A model method that saved/changed `self` changes the caller's instance too.
        if bind_name and bind_name in self.env and self_after is not None and self_after.kind == "instance":
            self.env[bind_name] = self_after
        return value if value is not None else plain(union(positional))


Walker._statement_handlers = HandlerTable(Walker, "_s_")
Walker._expression_handlers = HandlerTable(Walker, "_e_")


def summary_store(ctx: Context) -> SummaryStore:
    """The scan's summaries, kept with the scan's other shared knowledge."""
    if ctx.summaries is None:
        ctx.summaries = SummaryStore()
    return ctx.summaries


def _return_value(returns: list[Val]) -> Val | None:
    """What a call returns: None when the function has no return statement."""
    if not returns:
        return None
    # `return None` / bare `return` on an early exit (a factory `from_origin()` that finds
    # nothing): where the caller uses the result as an object, it is the other returns' value.
    valued = [value for value in returns if not _is_none(value)]
    returns = valued or returns
    if len(returns) == 1:
        return returns[0]
    merged = returns[-1]
    if any(value.category == DECIDED for value in returns) and any(value != merged for value in returns):
        return plain(union(returns))  # decided on one path only: not a constant of the call
    for other in returns[:-1]:
        if other.kind != merged.kind or (other.kind in ("class", "func", "obj") and other.ref != merged.ref):
            # `return validator_class` / `return serializer_class`: either class may come back.
            return alternatives(returns) or plain(union(returns))
    return merged


def _is_none(value: Val) -> bool:
    return value.kind == "plain" and value.sources in (frozenset(), frozenset({("constant", "None")}))


def bind_parameters(signature: Signature, positional: list[Val], keywords, self_val: Val | None) -> dict[str, Val]:
    """The callee's environment at a call: the arguments bound to its parameters (signature_of)."""
    env: dict[str, Val] = {}
    args = list(positional)
    if signature.receiver is not None:
        env[signature.receiver] = self_val if self_val is not None else Val("self", ref=signature.receiver_class)
    given = dict(keywords)
    for index, (name, default) in enumerate(signature.ordered):
        if index < len(args):
            env[name] = args[index]
        elif name in given:
            env[name] = given.pop(name)
        else:
            env[name] = default
    if signature.star_arg is not None:
        rest = args[len(signature.ordered):]
        env[signature.star_arg] = Val("plain", union(rest), items=tuple(rest))
    for name, default in signature.keyword_only:
        env[name] = given.pop(name, default)
    if signature.star_kwarg is not None:
        sources = union(given.values()) or {("constant", "kwargs")}
        if any(is_distinct(value) for value in given.values()):
            # `def receiver(**kwargs): instance = kwargs.get("instance")`: the row the signal sends.
            env[signature.star_kwarg] = Val("dict", frozenset(sources), attrs=tuple(
                (constant(repr(name)), value) for name, value in given.items()))
        else:
            env[signature.star_kwarg] = plain(sources)
    return env


def renamed_key(sources, name: str) -> set:
    """The key of an instance passed as a plain value: `<input>.pk` for inputs, the value's own
    sources otherwise (a read's result stays dependent)."""
    out = set()
    for kind, what in sources:
        out.add(("input", f"{what}.pk") if kind == "input" else (kind, what))
    return out or {("input", "pk")}
