"""Where transactions start: every form of TAXONOMY.md, found on libcst trees.

A boundary is found by *resolving* names (aliases, `from django.db.transaction import atomic
as a`, the app's own wrappers), never by matching the text `atomic`. Only the outermost
atomic block is a transaction; inner blocks are savepoints of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst

from . import orm_catalog as orm
from .context import Context, ParsedModule
from .index import FunctionInfo, RepoIndex
from .node_types import kinds
from .syntax import code as _code
from .syntax import dotted as _dotted


@dataclass
class Boundary:
    kind: str                    # atomic-decorator | atomic-context | method-decorator | atomic-requests | manual
    line: int
    function: str                # qualified name of the enclosing function
    function_node: cst.FunctionDef | None
    body_node: cst.CSTNode | None    # With node (context), marker statement (manual), None (whole function)
    cls: str | None = None
    wrapper: str | None = None
    options: dict = field(default_factory=dict)
    handlers: list[tuple[str, cst.FunctionDef]] = field(default_factory=list)  # CBV dispatch: HTTP methods
    end_line: int = 0
    parsed: "ParsedModule | None" = None    # the parsed definition the boundary sits in

    @property
    def handler_functions(self) -> tuple[str, ...]:
        """Qualified names of the handlers a class-level method_decorator covers."""
        return tuple(f"{self.cls}.{name}" for name, _node in self.handlers)


def find_wrappers(index: RepoIndex, uses: ModuleUses | None = None) -> dict[str, str]:
    """The application's own functions that enter `atomic` for their callers.

    - context wrappers: a @contextmanager whose body (or a nested def) enters atomic, or a
      function that returns `atomic(...)`;
    - decorator wrappers: a function whose nested def enters atomic (or is decorated with it)
      and that returns that nested def (decorator factories nest twice).
    Wrappers of wrappers are found by iterating to a fixed point. `uses`: the index's
    ModuleUses, where the caller shares it with candidates().
    """
    atomic_names = set(orm.ATOMIC)
    wrappers: dict[str, str] = {}
    uses = uses or ModuleUses(index)
    changed = True
    while changed:
        changed = False
        names = atomic_names | set(wrappers)
        for fn in index.functions.values():
            if fn.qualname in wrappers or fn.parent is not None:
                continue
            if not uses.may_use(fn, names, nested=True):
                continue  # (_wrapper_kind's cheap exit, taken for a whole module at once)
            kind = _wrapper_kind(index, fn, names)
            if kind:
                wrappers[fn.qualname] = kind
                names = atomic_names | set(wrappers)
                changed = True
    return wrappers


class ModuleUses:
    """Which functions' calls or decorators can resolve to some names, told from the texts
    written in each module, each text resolved once: the boundaries' passes ask of every function
    of the project whether it uses atomic or a wrapper, and resolving every call of every function
    to answer was most of their time (the 300k-line synthetic project has 130k calls in 37k
    functions, 9k texts once repeats within a module count once). A function is then looked at
    (its calls resolved) only if a text it holds resolves to one of the names.

    A text resolves the same way in every function of a module (RepoIndex.resolve), except under
    a function's own imports (resolve_in): the functions of a module holding such a function are
    always looked at."""

    def __init__(self, index: RepoIndex) -> None:
        self._index = index
        texts: dict[str, set[str]] = {}
        self._own_imports: set[str] = set()
        for fn in index.functions.values():
            found = texts.get(fn.module)
            if found is None:
                found = texts[fn.module] = set()
            found.update(fn.calls)
            found.update(fn.decorators)
            if fn.imports:
                self._own_imports.add(fn.module)
        # per name, the (module, text) pairs resolving to it (call_targets and decorator_targets
        # resolve a text without its arguments)
        self._written: dict[str, list[tuple[str, str]]] = {}
        for module, found in texts.items():
            for text in found:
                self._written.setdefault(index.resolve(module, text.partition("(")[0]), []).append((module, text))
        self._relevant: tuple[frozenset, dict[str, set[str]]] = (frozenset(), {})

    def may_use(self, fn: FunctionInfo, names: set[str], nested: bool = False) -> bool:
        """False when neither `fn`'s calls nor its decorators (nor, with `nested`, those of the
        functions defined in it) can resolve to one of `names`."""
        if self._holds(fn, names):
            return True
        functions = self._index.functions
        return nested and bool(fn.nested) and any(self._holds(functions[q], names)
                                                  for q in _all_nested(self._index, fn) if q in functions)

    def _holds(self, fn: FunctionInfo, names: set[str]) -> bool:
        if fn.module in self._own_imports:
            return True
        texts = self._texts_resolving_to(names).get(fn.module)
        return bool(texts) and not (texts.isdisjoint(fn.calls) and texts.isdisjoint(fn.decorators))

    def _texts_resolving_to(self, names: set[str]) -> dict[str, set[str]]:
        """Per module, its texts that resolve to one of `names` (kept for the last names asked)."""
        if self._relevant[0] != names:
            relevant: dict[str, set[str]] = {}
            for name in names:
                for module, text in self._written.get(name, ()):
                    relevant.setdefault(module, set()).add(text)
            self._relevant = (frozenset(names), relevant)
        return self._relevant[1]


def _uses_atomic(index: RepoIndex, fn: FunctionInfo, names: set[str]) -> bool:
    return bool(index.call_targets(fn) & names or index.decorator_targets(fn) & names)


def _wrapper_kind(index: RepoIndex, fn: FunctionInfo, names: set[str]) -> str | None:
    decorators = index.decorator_targets(fn)
    if decorators & names:
        return None  # an atomic function, not a wrapper
    calls = index.call_targets(fn)
    if not calls & names and not any(_uses_atomic(index, index.functions[q], names)
                                     for q in _all_nested(index, fn) if q in index.functions):
        return None  # nothing in it enters a transaction: the cheap, common exit
    text = index.modules[fn.module].source.lines_between(fn.def_line, fn.end_line)
    if decorators & orm.CONTEXTMANAGER and calls & names:
        return "context"
    nested = [index.functions[q] for q in _all_nested(index, fn) if q in index.functions]
    nested_enters = any(_uses_atomic(index, n, names) for n in nested)
    if "return" not in text:  # both forms below return something (a plain `in` first: the regexes are slow)
        return None
    if nested and nested_enters and any(n.name in text and re.search(rf"\breturn\s+{re.escape(n.name)}\b", text)
                                        for n in nested):
        return "decorator"
    if not calls & names or nested:
        return None
    for name in names:
        short = name.rsplit(".", 1)[-1]
        if f"{short}(" in text and re.search(rf"\breturn\s+[\w.]*\b{re.escape(short)}\(", text):
            return "context"
    return None


def _all_nested(index: RepoIndex, fn: FunctionInfo) -> list[str]:
    out, queue = [], list(fn.nested)
    while queue:
        q = queue.pop()
        out.append(q)
        if q in index.functions:
            queue.extend(index.functions[q].nested)
    return out


class _BoundaryFinder(cst.CSTVisitor):
    def __init__(self, ctx: Context, parsed: ParsedModule, owner: str, cls: str | None) -> None:
        self.ctx = ctx
        self.parsed = parsed
        self.index = ctx.index
        self.module = parsed.info.name
        self.names: list[str] = owner.split(".") if owner else []
        self.functions: list[cst.FunctionDef] = []
        self.classes: list[str] = [cls] if cls else []
        self.atomic_depth = 0          # >0 while inside an outer transaction or a wrapper body
        self.found: list[Boundary] = []
        self._pushed: list[bool] = []

    # -- resolution ------------------------------------------------------------------
    def resolve(self, expr) -> tuple[str | None, cst.Call | None]:
        """(what this decorator / with item names, the call if it is called)."""
        call = expr if isinstance(expr, cst.Call) else None
        target = call.func if call is not None else expr
        dotted = _dotted(target)
        if dotted is None:
            return None, call
        function = ".".join(self.names) if self.functions else None
        return self.index.resolve_in(function, self.module, dotted), call

    def classify(self, expr) -> tuple[str | None, str | None, dict]:
        """('atomic'|'wrapper'|'method'|None, wrapper name, options)."""
        name, call = self.resolve(expr)
        if name is None:
            return None, None, {}
        options = {}
        if call is not None:
            for arg in call.args:
                if arg.keyword is not None:
                    options[arg.keyword.value] = _code(arg.value)
        if name in orm.ATOMIC:
            return "atomic", None, options
        if name in self.ctx.wrappers:
            return "wrapper", name, options
        if name in orm.METHOD_DECORATOR and call is not None and call.args:
            first = call.args[0].value
            # method_decorator takes one decorator or a list/tuple of them.
            candidates = [e.value for e in first.elements] if isinstance(first, (cst.List, cst.Tuple)) else [first]
            for candidate in candidates:
                inner, _ = self.resolve(candidate)
                if inner in orm.ATOMIC or inner in self.ctx.wrappers:
                    return "method", inner if inner in self.ctx.wrappers else None, options
        return None, None, {}

    # -- traversal ---------------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.names.append(node.name.value)
        self.classes.append(".".join(self.names))
        for decorator in node.decorators:
            kind, wrapper, options = self.classify(decorator.decorator)
            if kind != "method":
                continue
            method = options.get("name", "'dispatch'").strip("'\"")
            methods = {s.name.value: s for s in node.body.body if isinstance(s, cst.FunctionDef)}
            qualname = ".".join(self.names + [method])
            if method in methods:
                handlers = [(method, methods[method])]
            else:
                handlers = [(m, methods[m]) for m in ("get", "post", "put", "patch", "delete") if m in methods]
            self.found.append(Boundary("method-decorator", self.parsed.line(decorator), qualname,
                                       methods.get(method), None, cls=".".join(self.names), wrapper=wrapper,
                                       options={k: v for k, v in options.items() if k != "name"},
                                       handlers=handlers, end_line=self.parsed.end_line(node)))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.names.pop()
        self.classes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.names.append(node.name.value)
        qualname = ".".join(self.names)
        pushed = False
        if qualname in self.ctx.wrappers:
            self.atomic_depth += 1  # the wrapper's own atomic is its callers' transaction
            pushed = True
        else:
            for decorator in node.decorators:
                kind, wrapper, options = self.classify(decorator.decorator)
                if kind is None:
                    continue
                if self.atomic_depth == 0:
                    cls = self.classes[-1] if self.classes and self.names[-2] == self.classes[-1].rsplit(".", 1)[-1] else None
                    self.found.append(Boundary(
                        "method-decorator" if kind == "method" else "atomic-decorator",
                        self.parsed.line(decorator), qualname, node, None, cls=cls, wrapper=wrapper,
                        options=options, end_line=self.parsed.end_line(node)))
                self.atomic_depth += 1
                pushed = True
                break
        self._pushed.append(pushed)
        self.functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        if self._pushed.pop():
            self.atomic_depth -= 1
        self.functions.pop()
        self.names.pop()

    def visit_With(self, node: cst.With) -> None:
        entered = None
        for item in node.items:
            kind, wrapper, options = self.classify(item.item)
            if kind in ("atomic", "wrapper"):
                entered = (wrapper, options)
                break
        if entered is None:
            self._pushed.append(False)
            return
        if self.atomic_depth == 0:
            function = self.functions[-1] if self.functions else None
            qualname = ".".join(self.names)
            cls = self.classes[-1] if self.classes and function is not None and len(self.names) >= 2 and \
                self.classes[-1] == ".".join(self.names[:-1]) else None
            self.found.append(Boundary("atomic-context", self.parsed.line(node), qualname, function, node, cls=cls,
                                       wrapper=entered[0], options=entered[1], end_line=self.parsed.end_line(node)))
        self.atomic_depth += 1
        self._pushed.append(True)

    def leave_With(self, original_node: cst.With) -> None:
        if self._pushed.pop():
            self.atomic_depth -= 1

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        for small in node.body:
            if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                name, call = self.resolve(small.value)
                if name in orm.SET_AUTOCOMMIT and call.args and _dotted(call.args[0].value) == "False" \
                        and self.atomic_depth == 0:
                    function = self.functions[-1] if self.functions else None
                    self.found.append(Boundary("manual", self.parsed.line(node), ".".join(self.names), function,
                                               node, cls=None, end_line=self.parsed.end_line(function or node)))


def candidates(ctx: Context, uses: ModuleUses | None = None) -> list[tuple[str, str, int, int, str | None]]:
    """Definitions that can open a transaction, found on the index without parsing anything.

    (qualname, module, first line, last line, enclosing class) of every top-level function
    or method whose decorators or calls resolve to atomic, a wrapper, method_decorator or
    set_autocommit, and of every class decorated with method_decorator. `uses`: the index's
    ModuleUses, where find_wrappers() made it already.
    """
    index = ctx.index
    names = orm.ATOMIC | orm.SET_AUTOCOMMIT | set(ctx.wrappers)
    uses = uses or ModuleUses(index)
    either = names | orm.METHOD_DECORATOR
    found = []
    for fn in index.functions.values():
        if fn.parent is not None or fn.qualname in ctx.wrappers or not uses.may_use(fn, either):
            continue
        used = index.call_targets(fn) | index.decorator_targets(fn)
        if used & names or (used & orm.METHOD_DECORATOR and any("atomic" in d or any(
                w.rsplit(".", 1)[-1] in d for w in ctx.wrappers) for d in fn.decorators)):
            found.append((fn.qualname, fn.module, fn.line, fn.end_line, fn.cls))
    for cls in index.classes.values():
        if any("method_decorator" in d for d in cls.decorators):
            owner = cls.qualname.rsplit(".", 1)[0]
            found.append((cls.qualname, cls.module, cls.line, cls.end_line, None if owner == cls.module else owner))
    return sorted(found, key=lambda c: (c[1], c[2], c[0]))


def find_boundaries(ctx: Context, parsed: ParsedModule, qualname: str, cls: str | None) -> list[Boundary]:
    finder = _BoundaryFinder(ctx, parsed, qualname.rsplit(".", 1)[0], cls)
    _visit_statements(parsed.node, finder)
    for boundary in finder.found:
        boundary.parsed = parsed
    return finder.found


# What can hold a statement (a definition, a `with` block, a line of small statements): the
# only nodes _BoundaryFinder looks at. Expressions, decorators, parameters and `with` items hold
# none, and are most of a definition's nodes.
_HOLDS_STATEMENTS = kinds(cst.BaseStatement, cst.BaseSuite, cst.Else, cst.ExceptHandler, cst.ExceptStarHandler,
                          cst.Finally, cst.MatchCase)


def _visit_statements(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """node.visit(visitor) for a read-only visitor of statements: the same visit_ and leave_ calls,
    in the same order, for every statement, without entering what holds none."""
    if visitor.on_visit(node):
        for child in node.children:
            if type(child) in _HOLDS_STATEMENTS:
                _visit_statements(child, visitor)
    visitor.on_leave(node)


_ATOMIC_REQUESTS_IN_DATABASES = re.compile(r"['\"]ATOMIC_REQUESTS['\"]\s*:\s*True")
_ATOMIC_REQUESTS_ITEM = re.compile(r"DATABASES\s*\[[^\]]+\]\s*\[\s*['\"]ATOMIC_REQUESTS['\"]\s*\]\s*=\s*True")
_TOP_LEVEL = re.compile(r"^ATOMIC_REQUESTS\s*=\s*True", re.M)


def atomic_requests_settings(index: RepoIndex) -> tuple[list[str], list[tuple[str, int]]]:
    """Settings modules that turn ATOMIC_REQUESTS on (inside DATABASES), and ignored top-level uses."""
    enabled, ignored = [], []
    for name in sorted(index.modules):
        info = index.modules[name]
        if "settings" not in info.rel.rsplit("/", 2)[-1] and "/settings/" not in "/" + info.rel:
            continue
        if info.name != name:
            continue
        databases = info.assigns.get("DATABASES", "")
        if _ATOMIC_REQUESTS_IN_DATABASES.search(databases) or _ATOMIC_REQUESTS_ITEM.search(info.source.text):
            enabled.append(info.rel)
        for match in _TOP_LEVEL.finditer(info.source.text):
            ignored.append((info.rel, info.source.text.count("\n", 0, match.start()) + 1))
    return enabled, ignored


VIEW_BASE_HINTS = ("View", "ViewSet", "APIView", "Mixin")
# Methods the request handler calls first (one request, one transaction).
REQUEST_HANDLERS = ("get", "post", "put", "patch", "delete", "create", "update", "destroy", "partial_update",
                    "list", "retrieve")
# Hooks the framework's own handler calls; a view that defines the handler itself reaches the
# hook through it (walked from there), so the hook is a transaction of its own only otherwise.
HOOK_HANDLERS = {"form_valid": ("post", "put"), "perform_create": ("create", "post"),
                 "perform_update": ("update", "partial_update", "put", "patch"),
                 "perform_destroy": ("destroy", "delete")}


def _entry_hook(name: str, cls) -> bool:
    return name in HOOK_HANDLERS and not any(h in cls.methods for h in HOOK_HANDLERS[name])


def is_view_module(rel: str) -> bool:
    parts = rel[:-3].split("/")
    return "views" in parts or parts[-1].endswith("views") or parts[-1] in ("viewsets", "api")


def view_functions(ctx: Context, module: str) -> list[Boundary]:
    """Views covered by ATOMIC_REQUESTS: function views taking `request`, and CBV handlers."""
    found = []
    info = ctx.index.modules[module]
    for fn in sorted(info.functions.values(), key=lambda f: f.line):
        qualname = fn.qualname
        owner = qualname.rsplit(".", 1)[0]
        if fn.parent is not None:
            continue
        decorators = {ctx.index.resolve(module, d.split("(")[0]) for d in fn.decorators}
        if decorators & orm.NON_ATOMIC_REQUESTS:
            continue
        cls = ctx.index.cls(owner)
        if cls is not None:
            if fn.name not in REQUEST_HANDLERS and not _entry_hook(fn.name, cls):
                continue
            if not any(hint in base for base in cls.bases for hint in VIEW_BASE_HINTS):
                continue
        elif owner != module or not fn.params or fn.params[0] != "request":
            continue
        parsed = ctx.def_node(fn)
        if parsed is None:
            continue
        found.append(Boundary("atomic-requests", fn.def_line, qualname, parsed[1], None,
                              cls=owner if cls is not None else None, end_line=fn.end_line, parsed=parsed[0]))
    return found
