"""Autocommit statements: every ORM call site reached outside any explicit transaction.

TAXONOMY.md: a statement outside any transaction runs in autocommit, a single-statement,
one-shot transaction; surveys count these separately (and together with the explicit ones when
comparing with the study, whose tool counted every ORM call site). Each such call site becomes
one `transaction` record with boundary `autocommit` (docs/IR.md).

A call site counts when some entry point (entry_points.py, or any function no application code
calls) reaches its function along calls that enter no transaction: not into a function that is
itself a transaction (decorated, an ATOMIC_REQUESTS view, a `method_decorator` handler, a
project wrapper), and not from inside an `atomic` block or a manual transaction. A helper called
both inside and outside transactions counts in both. Each function is walked once, without
following its calls (call_sites.py); reachability is a plain graph search over its call edges,
to which the explicit transactions' walks add the calls the index does not see of the functions
they reach (a handler handed to a helper as a value), see entry_points() below.
"""

from __future__ import annotations

import copy
import re
from collections import deque
from dataclasses import dataclass, field

from . import orm_catalog as orm
from .boundaries import Boundary
from .call_sites import CallSites, FunctionSites, WalkedFunction
from .context import Context
from .entry_points import StaticCallees, enclosing_class, framework_entry_points
from .index import FunctionInfo
from .orm_evidence import OrmEvidence
from .via_chains import via_chains

BOUNDARY = "autocommit"
# Boundaries whose transaction is the whole function: calling it opens (or joins) a transaction.
_WHOLE_FUNCTION = ("atomic-decorator", "atomic-requests", "method-decorator")
# Module-level code worth parsing: a line that runs a query there and then (a manager's query
# ended by an evaluating method, iterated or listed; a shortcut; a cursor). A class attribute
# `queryset = Order.objects.all()` is lazy and runs nothing.
_MODULE_LEVEL_ORM = re.compile(
    r"\.objects\b.*\.(?:" + "|".join(sorted(orm.EVALUATING)) + r")\("
    r"|^\s*for\b.*\bin\b.*\.objects\b|\b(?:list|len|tuple|set|sorted|dict)\([^)]*\.objects\b"
    r"|get_object_or_404\(|\.cursor\(\)")
_ORM_NAME = re.compile(r"\.objects\b|get_object_or_404\(|\.cursor\(\)")


def autocommit_transactions(ctx: Context, boundaries: list[Boundary], explicit: list[dict], reuse=None,
                            decided: DecidedFacts | None = None) -> list[dict]:
    """The autocommit transaction records of a scan, in a deterministic order. `reuse`: the warm
    cache (analyzer/cache/django.py), which keeps each function's call sites. `decided`: what
    another process with the same index, models and boundaries read off the functions and
    modules (autocommit_parallel.py; it depends on nothing else), taken instead of read again."""
    if reuse is None:
        from ..cache.django import NoReuse
        reuse = NoReuse()
    return _Autocommit(ctx, boundaries, explicit, reuse, decided).records()


@dataclass
class DecidedFacts:
    """What the autocommit phase reads off the code before walking it (function_facts(),
    _module_level_orm()), as another process over the same index, models and boundaries read it."""
    functions: dict[str, list] = field(default_factory=dict)  # qualname -> [holds ORM code, callees]
    modules: dict[str, bool] = field(default_factory=dict)    # module -> its module-level code runs queries


class _Autocommit:
    def __init__(self, ctx: Context, boundaries: list[Boundary], explicit: list[dict], reuse,
                 decided: DecidedFacts | None = None) -> None:
        self.ctx = ctx
        self.decided = decided or DecidedFacts()
        self.index = ctx.index
        self.explicit = explicit
        self.whole: set[str] = set()
        self.spans: dict[str, list[tuple[int, int]]] = {}
        for b in boundaries:
            if b.kind in _WHOLE_FUNCTION:
                self.whole.add(b.function)
                self.whole.update(b.handler_functions)
            else:  # atomic-context, manual: a span of the function
                self.spans.setdefault(b.function, []).append((b.line, b.end_line or b.line))
        self.skipped = self.whole | self._wrapper_code()
        self.evidence = OrmEvidence(ctx)
        self.static: dict[str, set[str]] = {}
        self.static_callees = StaticCallees(ctx.index)
        self._walkable: dict[str, bool] = {}
        self.reuse = reuse
        self._facts: dict[str, dict] = {}
        # caller -> functions the explicit transactions' walks found it calls that are entry points
        # only but for those walks (entry_points())
        self.found_callees: dict[str, set[str]] = {}

    def _wrapper_code(self) -> set[str]:
        """The project's transaction wrappers and their nested functions: their statements are
        their callers' transactions'."""
        out, queue = set(), list(self.ctx.wrappers)
        while queue:
            name = queue.pop()
            if name in out:
                continue
            out.add(name)
            fn = self.index.functions.get(name)
            queue.extend(fn.nested if fn is not None else [])
        return out

    # -- which functions hold ORM code ----------------------------------------------------
    def walkable(self, qualname: str) -> bool:
        if qualname not in self._walkable:
            fn = self.index.functions.get(qualname)
            # A Python 2 file is reported once, as such; its functions are not walked one by one.
            self._walkable[qualname] = fn is not None and qualname not in self.skipped \
                and not self.index.modules[fn.module].python2_line \
                and (qualname in self.spans or self._holds_orm(fn))
        return self._walkable[qualname]

    def _holds_orm(self, fn: FunctionInfo) -> bool:
        known = self.function_facts(fn)
        if known[0] is None:
            told = self._told(fn)[0]
            known[0] = told if told is not None else self.evidence.holds_orm(fn, enclosing_class(self.index, fn))
        return known[0]

    def _told(self, fn: FunctionInfo) -> tuple | list:
        """[holds ORM code, callees] of `fn` as another process read them (None: not told)."""
        return self.decided.functions.get(fn.qualname, (None, None))

    def decided_facts(self) -> DecidedFacts:
        """What was read off functions and modules so far (`decided` of another phase over the
        same index, models and boundaries)."""
        return DecidedFacts(
            {qualname: list(known) for facts in self._facts.values() for qualname, known in facts.get("functions", {}).items()},
            {name: self._facts[info.rel]["module_orm"] for name, info in self.index.modules.items()
             if "module_orm" in self._facts.get(info.rel, {})})

    def facts(self, module: str) -> dict:
        """What is read off one module's text alone (ORM evidence, calls by name), kept in the warm
        cache with the file's content."""
        info = self.index.modules[module]
        if info.rel not in self._facts:
            self._facts[info.rel] = self.reuse.module_facts(info)
        return self._facts[info.rel]

    def function_facts(self, fn: FunctionInfo) -> list:
        """[holds ORM code, the functions it calls by name (sorted)] of one function, each None
        until first asked for."""
        return self.facts(fn.module).setdefault("functions", {}).setdefault(fn.qualname, [None, None])

    # -- reachability ------------------------------------------------------------------------
    def callees(self, fn: FunctionInfo) -> set[str]:
        if fn.qualname not in self.static:
            known = self.function_facts(fn)
            if known[1] is None:
                told = self._told(fn)[1]
                known[1] = list(told) if told is not None else \
                    sorted(self.static_callees(fn, enclosing_class(self.index, fn)))
            self.static[fn.qualname] = set(known[1])
        return self.static[fn.qualname]

    def entry_points(self, explicit: list[dict]) -> list[str]:
        called: set[str] = set()
        for fn in self.index.functions.values():
            called |= self.callees(fn) - {fn.qualname}
        in_transactions: set[str] = set()
        callers: dict[str, set[str]] = {}
        for txn in explicit:  # helpers the explicit transactions reach are called by the application
            functions, pairs = self.reuse.via_chains(txn) or via_chains(txn["steps"])
            in_transactions.update(functions)
            for caller, callee in pairs:
                callers.setdefault(callee, set()).add(caller)
        receivers = {r for names in self.ctx.signals.values() for r in names}
        always, hooks = framework_entry_points(self.index, receivers, self.evidence.row_classes)
        candidates = hooks | (set(self.index.functions) - called)
        entries = always | (candidates - in_transactions)
        # A hook or uncalled function that a transaction's walk reaches is no entry point of its
        # own: it runs where the application calls it, which the walk showed. Where the walk
        # found its caller (a helper handed it as a value, a method of an inferred receiver) and
        # no index edge says so, that call is an edge of the search below: it runs outside
        # transactions too when its caller does.
        for name in (candidates & in_transactions) - always:
            for caller in callers.get(name, ()):
                if caller not in self.spans:  # the call could be inside the caller's own atomic block
                    self.found_callees.setdefault(caller, set()).add(name)
        return sorted(q for q in entries - self.skipped if q in self.index.functions)

    def reachable(self, entries: list[str], module_walks: list[FunctionSites]) -> list[str]:
        """Functions reached from the entry points (and module-level code) outside transactions,
        in the order found (breadth first from sorted entry points: deterministic)."""
        order: list[str] = []
        seen = set(entries)
        queue = deque(entries)
        for walked in module_walks:
            for callee in sorted({c for c, _line in walked.edges}):
                if callee not in seen and callee not in self.skipped and callee in self.index.functions:
                    seen.add(callee)
                    queue.append(callee)
        while queue:
            name = queue.popleft()
            order.append(name)
            for callee in sorted(self.successors(name)):
                if callee not in seen and callee not in self.skipped and callee in self.index.functions:
                    seen.add(callee)
                    queue.append(callee)
        return order

    def successors(self, name: str) -> set[str]:
        fn = self.index.functions[name]
        walked = self.walks.function(fn) if self.walkable(name) else None
        if walked is None:
            return self.callees(fn) | self.found_callees.get(name, set())
        out = {callee for callee, line in walked.edges if name not in self.spans or not self.in_span(name, line)}
        if name not in self.spans:  # the index's calls have no lines: usable only without atomic blocks
            out |= self.callees(fn)
        return out | self.found_callees.get(name, set())

    def in_span(self, function: str, line: int) -> bool:
        return any(first <= line <= last for first, last in self.spans.get(function, ()))

    # -- records ---------------------------------------------------------------------------
    def module_walks(self) -> list[FunctionSites]:
        out = []
        for name in self.module_level_orm():
            walked = self.walks.module_code(name)
            if walked is not None:
                out.append(walked)
        return out

    def module_level_orm(self) -> list[str]:
        """The modules whose module-level code runs queries, by name."""
        return [name for name in sorted(n for n, info in self.index.modules.items() if info.name == n)
                if self._module_level_orm(name)]

    def _module_level_orm(self, module: str) -> bool:
        facts = self.facts(module)
        if "module_orm" not in facts:
            told = self.decided.modules.get(module)
            facts["module_orm"] = told if told is not None else self._module_level_orm_text(module)
        return facts["module_orm"]

    def _module_level_orm_text(self, module: str) -> bool:
        info = self.index.modules[module]
        text = info.source.text
        spans = None
        line, counted = 1, 0  # lines counted from the previous match on, not from the top each time
        for match in _ORM_NAME.finditer(text):
            if spans is None:
                spans = [(f.line, f.end_line) for f in info.functions.values() if f.parent is None]
            line += text.count("\n", counted, match.start())
            counted = match.start()
            if any(first <= line <= last for first, last in spans):
                continue
            start, end = text.rfind("\n", 0, match.start()) + 1, text.find("\n", match.end())
            if _MODULE_LEVEL_ORM.search(text[start:end if end >= 0 else len(text)]):
                return True
        return False

    def site_records(self, walked: WalkedFunction) -> list[dict]:
        return _site_records(walked, self.in_span)

    def records(self) -> list[dict]:
        entries = self.entry_points(self.explicit)
        self.walks = CallSites(self.ctx, self.walkable, self.site_records, self.reuse)
        try:
            modules = self.module_walks()
            walked = [self.walks.function(self.index.functions[name]) if self.walkable(name) else None
                      for name in self.reachable(entries, modules)]
        finally:
            # The walks hold this object's bound methods: without the cycle they are freed as
            # the phase ends, by their reference counts (analyzer/process.py).
            self.walks = None
        out: dict[str, dict] = {}
        for function in [w for w in walked if w is not None] + modules:
            for record in function.records:
                out.setdefault(record["id"], record)
        return sorted(out.values(), key=lambda r: (r["file"], r["line"], _column_of(r["id"]), r["function"]))


def _column_of(txn_id: str) -> int:
    return int(txn_id.rsplit(":", 2)[-2])


def _statement_steps(steps: list[dict], out: dict[str, dict]) -> dict[str, dict]:
    for step in steps:
        if step["node"] == "statement":
            out[step["id"]] = step
        for arm in step.get("arms", []):
            _statement_steps(arm, out)
        _statement_steps(step.get("body", []), out)
    return out


def _site_records(walked: WalkedFunction, in_span) -> list[dict]:
    """One record per call site of a walked function outside its atomic blocks."""
    steps = _statement_steps(walked.steps, {})
    grouped: dict[tuple, list[dict]] = {}
    for sid, site in walked.sites.items():
        step = steps.get(sid)
        if step is None or in_span(site.holder, site.line):
            continue
        grouped.setdefault((site.file, site.line, site.column, site.end_line, site.holder), []).append(step)
    records = []
    for (file, line, column, end_line, holder), statements in grouped.items():
        records.append({
            "ir": 1, "type": "transaction", "id": f"{file}:{line}:{column}:{BOUNDARY}", "file": file, "line": line,
            "end_line": max([end_line] + [s["line"] for s in statements]), "function": holder,
            "boundary": BOUNDARY, "wrapper": None, "options": {}, "steps": _one_shot(statements, steps),
        })
    return records


_DEPENDENT = ("result", "generated", "external")
_REBOUND = ("predicate", "values")   # where results of other statements are named


def _one_shot(statements: list[dict], all_steps: dict[str, dict]) -> list[dict]:
    """The call's statements as a transaction of their own: ids renumbered from s1, and results of
    the function's other statements (separate autocommit transactions) turned into inputs."""
    ids = {s["id"]: f"s{n}" for n, s in enumerate(statements, 1)}
    out = []
    for statement in statements:
        step = {key: _rebind(value, ids, all_steps) if key in _REBOUND and value is not None else _copied(value)
                for key, value in statement.items()}
        step["id"] = ids[statement["id"]]
        step["uses"] = sorted({ids[u] for u in statement.get("uses", []) if u in ids})
        step["via"] = []
        out.append(step)
    return out


_SCALARS = (str, int, float, bool, type(None))


def _copied(value):
    """A copy of a step's JSON tree (what copy.deepcopy gives for dicts, lists and scalars, without
    its bookkeeping of shared objects: a step holds none)."""
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) for item in value]
    return value if isinstance(value, _SCALARS) else copy.deepcopy(value)


def _rebind(value, ids: dict[str, str], all_steps: dict[str, dict]):
    """A copy of `value` whose results of this call's statements name their new ids, and whose
    results of other statements are inputs."""
    if isinstance(value, list):
        return [_rebind(v, ids, all_steps) for v in value]
    if not isinstance(value, dict):
        return _copied(value)
    if value.get("kind") in _DEPENDENT and "step" in value:
        if value["step"] in ids:
            return {k: ids[v] if k == "step" else _copied(v) for k, v in value.items()}
        earlier = all_steps.get(value["step"])
        name = f"result of line {earlier['line']}" if earlier is not None else "result of an earlier call"
        return {"kind": "input", "name": name}
    return {k: _rebind(v, ids, all_steps) for k, v in value.items()}
