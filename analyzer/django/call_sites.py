"""The ORM call sites of one function, walked once, without entering the functions it calls.

Autocommit statements (TAXONOMY.md) are counted per call site, and every function of an
application may hold some: walking each one the way a transaction is walked (helpers inlined at
every call) would cost a transaction walk per function. CallSiteWalker is the same abstract
interpreter (walker.py) with one difference: a call into the application's own code is recorded
as a call edge (callee, line) instead of being followed. What the callee returns is still known
when the callee is itself a function with ORM code: it is walked on its own, once, and its return
value reused (a helper returning a queryset makes the caller's loop over it a statement of the
caller, as in a transaction walk).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst

from . import orm_catalog as orm
from ..ir import diagnostic
from .context import Context, ParsedModule
from .index import FunctionInfo
from .parsing import parse_module
from .syntax import code
from .transactions import entry_env
from .values import Val, plain, union
from .walker import Recorder, Walker
from .walk_helpers import _statements

# How many callees may be walked for their return values inside one another before a call
# simply returns an unknown value (each is still walked on its own later).
RETURN_DEPTH = 4


@dataclass
class Site:
    """One ORM call site: where it is, which function holds it, the statements it issues."""

    file: str
    line: int
    end_line: int
    column: int
    holder: str
    statements: list[str] = field(default_factory=list)   # step ids, in emission order


@dataclass
class WalkedFunction:
    qualname: str
    steps: list[dict]                                      # the walk's step tree (statements only matter)
    sites: dict[str, Site]                                 # step id -> its call site
    edges: list[tuple[str, cst.CSTNode]]                   # (callee qualname, the call)
    parsed: ParsedModule
    returns: Val | None = None

    def line(self, node: cst.CSTNode) -> int:
        return self.parsed.line(node)


class CallSites:
    """Walks functions (and module-level code) one at a time, each once, sharing step ids."""

    def __init__(self, ctx: Context, walkable) -> None:
        self.ctx = ctx
        self.recorder = Recorder()
        self.walkable = walkable            # qualname -> bool: has ORM code worth walking
        self.done: dict[str, WalkedFunction | None] = {}
        self._active: list[str] = []

    def function(self, fn: FunctionInfo) -> WalkedFunction | None:
        if fn.qualname in self.done:
            return self.done[fn.qualname]
        found = self.ctx.def_node(fn)
        if found is None:
            self.done[fn.qualname] = None
            return None
        parsed, node = found
        self._active.append(fn.qualname)
        try:
            walker = CallSiteWalker(self, parsed, entry_env(self.ctx, parsed, node, fn.cls, fn.qualname),
                                    cls=fn.cls, holder=fn.qualname)
            walker.stack = frozenset({fn.qualname})
            steps = walker.walk_block(node.body)
        except RecursionError:
            return self._failed(fn, "recursion limit while walking")
        except Exception as exc:  # noqa: BLE001 - one bad function must not end the scan
            return self._failed(fn, f"{type(exc).__name__}: {exc}")
        finally:
            self._active.pop()
        kinds = {r.kind for r in walker.returns}
        returns = walker.returns[-1] if len(kinds) == 1 else None
        walked = WalkedFunction(fn.qualname, steps, walker.sites, walker.edges, parsed, returns)
        self.done[fn.qualname] = walked
        return walked

    def _failed(self, fn: FunctionInfo, reason: str) -> None:
        info = self.ctx.index.modules[fn.module]
        self.ctx.diagnostics.append(diagnostic(info.rel, fn.def_line, "internal-error",
                                               f"{fn.qualname}: autocommit walk: {reason}"))
        self.done[fn.qualname] = None
        return None

    def module_code(self, module: str) -> WalkedFunction | None:
        """Module-level code and class bodies (they run at import): every statement that is not a def."""
        info = self.ctx.index.modules[module]
        try:
            tree = parse_module(info.source.text)
        except (cst.ParserSyntaxError, RecursionError):
            return None  # the index already reported the file
        parsed = ParsedModule(info, tree, tree, 1)
        walker = CallSiteWalker(self, parsed, {"__qualname__": Val("ref", ref=info.name)}, holder=info.name)
        steps: list[dict] = []
        try:
            _walk_module_level(walker, tree.body, info.name, steps)
        except Exception as exc:  # noqa: BLE001 - RecursionError included: the scan goes on
            self.ctx.diagnostics.append(diagnostic(info.rel, 0, "internal-error",
                                                   f"module-level code: autocommit walk: {type(exc).__name__}: {exc}"))
            return None
        return WalkedFunction(info.name, steps, walker.sites, walker.edges, parsed)

    def returned(self, fn: FunctionInfo) -> Val | None:
        """What `fn` returns, when it is worth walking and not already being walked."""
        if fn.qualname in self._active or len(self._active) > RETURN_DEPTH or not self.walkable(fn.qualname):
            return None
        walked = self.function(fn)
        return walked.returns if walked is not None else None

    def source_line(self, parsed: ParsedModule, line: int) -> str:
        lines = parsed.info.source.line_texts
        return lines[line - 1] if 0 < line <= len(lines) else ""


def _walk_module_level(walker: "CallSiteWalker", body, holder: str, steps: list[dict]) -> None:
    for statement in body:
        if isinstance(statement, cst.FunctionDef):
            continue
        if isinstance(statement, cst.ClassDef):
            name = f"{holder}.{statement.name.value}"
            saved = walker.holder, dict(walker.env)
            walker.holder = name
            _walk_module_level(walker, _statements(statement.body), name, steps)
            walker.holder, walker.env = saved
            continue
        steps.extend(walker.walk_block([statement]))


class CallSiteWalker(Walker):
    def __init__(self, sites: CallSites, parsed: ParsedModule, env: dict[str, Val], cls: str | None = None,
                 holder: str = "") -> None:
        super().__init__(sites.ctx, parsed, sites.recorder, env, cls=cls)
        self.call_sites = sites
        self.holder = holder
        self.sites: dict[str, Site] = {}
        self.edges: list[tuple[str, cst.CSTNode]] = []

    # Only statements make call sites: effects, unresolved calls and diagnostics are left to the
    # transaction walks (and cost no line numbering here).
    def emit_effect(self, node, category: str, callee: str, args: list[Val]) -> Val:
        return Val("plain", frozenset({("external", self.rec.next_id())}))

    def emit_unresolved(self, node, callee: str, reason: str, detail: str = "") -> None:
        pass

    def diagnostic(self, node, code: str, message: str, severity: str = "warning") -> None:
        pass

    def emit_statement(self, node, entity, kind, api, predicate, dynamic=False, values=None, uses=(), sql=None,
                       at_call_site=False) -> str:
        sid = super().emit_statement(node, entity, kind, api, predicate, dynamic=dynamic, values=values, uses=uses,
                                     sql=sql, at_call_site=at_call_site)
        line = self._line(node)
        self.sites[sid] = Site(self.module.rel, line, self.parsed.end_line(node) or line,
                               _column(self.call_sites.source_line(self.parsed, line), node), self.holder)
        return sid

    def call_function(self, node, fn: FunctionInfo, positional: list[Val], keywords, self_val: Val | None,
                      bind_name: str | None = None, call_site=None, yield_hook=None) -> Val:
        self.last_self = None
        self.edges.append((fn.qualname, node))
        if call_site is not None and self_val is not None and self_val.kind == "instance" \
                and fn.name in orm.INSTANCE:
            # save()/delete()/create() of a model that overrides save(): the statement Django runs
            # in the end is this call's (the transaction walk reports it here too, through super()).
            self.instance_statement(node, self_val, bind_name, orm.INSTANCE[fn.name], call_site[3], keywords)
            return plain(union(positional))
        returned = self.call_sites.returned(fn)
        if returned is not None and returned.kind in ("qs", "instance", "rows", "model"):
            return returned
        return plain(union(positional) | union(v for _, v in keywords))


_NOT_IDENTIFIER_BEFORE = r"(?<![A-Za-z0-9_.])"


def _column(source_line: str, node: cst.CSTNode) -> int:
    """1-based column where the call expression starts on its first line (its text found on the
    source line; the first non-blank column when it cannot be)."""
    first = code(node).split("\n", 1)[0].strip()
    if first:
        match = re.search(_NOT_IDENTIFIER_BEFORE + re.escape(first), source_line)
        if match:
            return match.start() + 1
    return len(source_line) - len(source_line.lstrip()) + 1
