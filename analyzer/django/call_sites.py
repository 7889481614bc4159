"""The ORM call sites of one function, walked once, without entering the functions it calls.

Autocommit statements (TAXONOMY.md) are counted per call site, and every function of an
application may hold some: walking each one the way a transaction is walked (helpers inlined at
every call) would cost a transaction walk per function. CallSiteWalker is the same abstract
interpreter (walker.py) with one difference: a call into the application's own code is recorded
as a call edge (callee, line) instead of being followed. What the callee returns is still known
when the callee is itself a function with ORM code: it is walked on its own, once, and its return
value reused (a helper returning a queryset makes the caller's loop over it a statement of the
caller, as in a transaction walk).

Each function's result is a function of that function and what it calls, never of the order
functions are reached in, so that it can be kept in the warm cache and reused alone: each walk
has its own step ids and foreign-key cache (a Recorder of its own), and what a callee returns
comes from the callee's own walk one level down (CallSites: a fixed budget of levels instead
of a stack of the functions being walked, whose content depended on who reached whom first).
The callee's step ids in its returned value are renamed to fresh ids of the caller's walk.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from . import ast_convert
from . import orm_catalog as orm
from ..cache.cachefile import text_digest
from ..cache.values import decode, encode, fingerprint
from ..ir import diagnostic
from .context import Context, ParsedModule
from .index import FunctionInfo
from .parsing import parse_module
from .summaries import Relabel, _is_step_id
from .syntax import code
from .transactions import entry_env
from .values import Val, plain, union
from .walker import Recorder, Walker
from .walk_helpers import _statements

# A function's call sites come from its walk at this level: return values are followed through
# at most LEVELS - 1 calls, one inside the other (a helper returning what its helper returns).
LEVELS = 4


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
    """A walk as it ends: its step tree and call sites (turned into records by the caller)."""

    qualname: str
    steps: list[dict]                                      # the walk's step tree (statements only matter)
    sites: dict[str, Site]                                 # step id -> its call site


class FunctionSites:
    """What is kept of one function's (or one module's top-level code's) walk."""

    def __init__(self, records: list[dict], edges: list[tuple[str, int]], returns: Val | None = None,
                 returns_text: str = "", encoded=None) -> None:
        self.records = records                             # its autocommit records
        self.edges = edges                                 # (callee qualname, line of the call)
        self._returns = returns
        self.returns_text = returns_text                   # fingerprint of `returns` ("" for None)
        self._encoded = encoded                            # `returns` as the cache keeps it, until asked for

    @property
    def returns(self) -> Val | None:
        """What the function returns. From the cache it is decoded when first asked for: matching
        a kept walk compares fingerprints only, and most kept values are never used again."""
        if self._returns is None and self._encoded is not None:
            self._returns, self._encoded = decode(self._encoded), None
        return self._returns

    def entry(self) -> dict:
        """The JSON form kept in the cache (TypeError when the returned value cannot be kept)."""
        return {"records": self.records, "edges": [list(e) for e in self.edges],
                "returns": None if self.returns is None else encode(self.returns)}

    @classmethod
    def from_entry(cls, entry: dict) -> "FunctionSites":
        returns = entry["returns"]
        if returns is None:
            return cls(entry["records"], [tuple(e) for e in entry["edges"]])
        text = entry.get("returns_text") or _fingerprint(returns)
        return cls(entry["records"], [tuple(e) for e in entry["edges"]], returns_text=text, encoded=returns)


@dataclass
class Variant:
    """One walk of a function: its result (None when it could not be walked) and what each
    callee it asked returned then, [callee, fingerprint] in the order asked. Another walk of the
    same definition whose callees answer the same is this walk again."""

    sites: FunctionSites | None
    asked: list[list[str]]
    entry: dict | None = None      # its cache entry (None: not kept)
    reported: bool = True          # its diagnostics are in this scan's (False: from the cache, not used yet)


class CallSites:
    """Walks functions (and module-level code) one at a time, each on its own.

    A function's call sites come from its walk at level LEVELS; a call in a walk at level k
    returns what the callee's walk at level k - 1 returns (nothing at level 1, nor for a call of
    the function itself). The walk at a level is a function of the callee and the level alone,
    whatever order functions are reached in, and is walked again only when some callee answers
    differently than in a walk already made (this scan's or the warm cache's, `reuse`)."""

    def __init__(self, ctx: Context, walkable: Callable[[str], bool],
                 to_records: Callable[[WalkedFunction], list[dict]], reuse) -> None:
        self.ctx = ctx
        self.walkable = walkable            # qualname -> bool: has ORM code worth walking
        self.to_records = to_records
        self.reuse = reuse
        self.at: dict[tuple[str, int], Variant] = {}
        self.variants: dict[str, list[Variant]] = {}

    def function(self, fn: FunctionInfo) -> FunctionSites | None:
        return self.walk_at(fn.qualname, LEVELS, lambda level: self._walk_function(fn, level)).sites

    def module_code(self, module: str) -> FunctionSites | None:
        """Module-level code and class bodies (they run at import): every statement that is not a def."""
        return self.walk_at(f"module {module}", LEVELS, lambda level: self._walk_module(module, level)).sites

    def answer(self, level: int, caller: str, fn: FunctionInfo) -> tuple[Val | None, str]:
        """What a call of `fn` returns in a walk of `caller` at `level`, and its fingerprint
        ("" for an unknown value)."""
        sites = self._answering(level, caller, fn)
        if sites is None or not sites.returns_text:
            return None, ""
        return sites.returns, sites.returns_text

    def _answering(self, level: int, caller: str, fn: FunctionInfo) -> FunctionSites | None:
        """The walk of `fn` whose return value a call of it in a walk of `caller` at `level` gets."""
        if level <= 1 or fn.qualname == caller or not self.walkable(fn.qualname):
            return None
        return self.walk_at(fn.qualname, level - 1, lambda below: self._walk_function(fn, below)).sites

    def walk_at(self, key: str, level: int, walk: Callable[[int], tuple]) -> Variant:
        """The walk of `key` at `level`: one already made whose callees answer the same at this
        level, or `walk(level)` now."""
        if (key, level) in self.at:
            return self.at[(key, level)]
        if key not in self.variants:
            self.variants[key] = []
            for entry in self.reuse.sites_kept(key):
                self.variants[key].append(Variant(FunctionSites.from_entry(entry) if entry["walked"] else None,
                                                  entry["asked"], entry, reported=False))
        found = next((v for v in self.variants[key] if self._same_answers(key, level, v.asked)), None)
        if found is None:
            found = self._arrived(key, level)
        if found is None:
            sites, entry = self.reuse.sites_walk(key, lambda: self._unkept_marked(walk(level)))
            found = Variant(sites, entry["asked"], None if entry.get("unkept") else entry)
            self.variants[key].append(found)
        elif not found.reported:
            found.reported = True
            self.ctx.diagnostics.extend(found.entry["diagnostics"] + found.entry["parse_diagnostics"])
        if found.entry is not None:
            self.reuse.sites_keep(key, found.entry)
        self.at[(key, level)] = found
        return found

    def _arrived(self, key: str, level: int) -> Variant | None:
        """A walk of `key` another process made since `key` was first asked for
        (autocommit_parallel.py), checked as a kept one is."""
        for entry in self.reuse.sites_arrived(key):
            variant = Variant(FunctionSites.from_entry(entry) if entry["walked"] else None, entry["asked"], entry,
                              reported=False)
            self.variants[key].append(variant)
            if self._same_answers(key, level, variant.asked):
                return variant
        return None

    @staticmethod
    def _unkept_marked(walked: tuple) -> tuple:
        """A walk that used a value the cache could not keep is not kept either."""
        sites, entry = walked
        if any(text.startswith("?") for _callee, text in entry["asked"]):
            entry["unkept"] = True
        return sites, entry

    def _same_answers(self, key: str, level: int, asked: list[list[str]]) -> bool:
        functions = self.ctx.index.functions
        return all(callee in functions and _text_of(self._answering(level, key, functions[callee])) == text
                   for callee, text in asked)

    # -- walks -------------------------------------------------------------------------------
    def _walk_function(self, fn: FunctionInfo, level: int) -> tuple[FunctionSites | None, dict | None]:
        found = self.ctx.def_node(fn)
        if found is None:
            return None, {"walked": False, "diagnostics": [], "asked": []}
        parsed, node = found
        walker = CallSiteWalker(self, parsed, entry_env(self.ctx, parsed, node, fn.cls, fn.qualname),
                                cls=fn.cls, holder=fn.qualname, level=level)
        walker.stack = frozenset({fn.qualname})
        try:
            steps = walker.walk_block(node.body)
        except RecursionError:
            return self._failed(fn, "recursion limit while walking", walker)
        except Exception as exc:  # noqa: BLE001 - one bad function must not end the scan
            return self._failed(fn, f"{type(exc).__name__}: {exc}", walker)
        kinds = {r.kind for r in walker.returns}
        returns = walker.returns[-1] if len(kinds) == 1 else None
        return self._finish(walker, steps, returns)

    def _walk_module(self, module: str, level: int) -> tuple[FunctionSites | None, dict | None]:
        info = self.ctx.index.modules[module]
        self.reuse.sites_read_file(info)
        parsed = _module_parsed(info)
        if parsed is None:
            return None, {"walked": False, "diagnostics": [], "asked": []}  # the index already reported the file
        tree = parsed.tree
        walker = CallSiteWalker(self, parsed, {"__qualname__": Val("ref", ref=info.name)}, holder=info.name,
                                level=level)
        steps: list[dict] = []
        try:
            _walk_module_level(walker, tree.body, info.name, steps)
        except Exception as exc:  # noqa: BLE001 - RecursionError included: the scan goes on
            problem = diagnostic(info.rel, 0, "internal-error",
                                 f"module-level code: autocommit walk: {type(exc).__name__}: {exc}")
            self.ctx.diagnostics.append(problem)
            return None, {"walked": False, "diagnostics": [problem], "asked": walker.asked}
        return self._finish(walker, steps, None)

    def _finish(self, walker: "CallSiteWalker", steps: list[dict], returns: Val | None):
        walked = WalkedFunction(walker.holder, steps, walker.sites)
        edges = [(callee, walker.parsed.line(node)) for callee, node in walker.edges]
        result = FunctionSites(self.to_records(walked), edges, returns)
        try:
            entry = result.entry()
        except TypeError:
            # Not kept: walked again next time, and so is every walk that used what it returned
            # (its fingerprint, unlike any other, names this very value).
            result.returns_text = f"?{id(returns)}"
            return result, {"walked": True, "asked": walker.asked, "unkept": True}
        result.returns_text = _fingerprint(entry["returns"]) if returns is not None else ""
        return result, {**entry, "returns_text": result.returns_text, "walked": True, "diagnostics": [],
                        "asked": walker.asked}

    def _failed(self, fn: FunctionInfo, reason: str, walker: "CallSiteWalker"):
        info = self.ctx.index.modules[fn.module]
        problem = diagnostic(info.rel, fn.def_line, "internal-error", f"{fn.qualname}: autocommit walk: {reason}")
        self.ctx.diagnostics.append(problem)
        return None, {"walked": False, "diagnostics": [problem], "asked": walker.asked}

    def source_line(self, parsed: ParsedModule, line: int) -> str:
        lines = parsed.info.source.line_texts
        return lines[line - 1] if 0 < line <= len(lines) else ""


def _fingerprint(encoded) -> str:
    """What names a returned value in a walk's `asked` list: a digest of its cache text (equal
    values, equal digests), not the text itself, which the cache would otherwise hold once per
    caller that asked."""
    return text_digest(fingerprint(encoded))


def _text_of(sites: FunctionSites | None) -> str:
    return sites.returns_text if sites is not None else ""


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


def _module_parsed(info) -> ParsedModule | None:
    """A whole module, for its module-level code: parsed with `ast` and converted
    (ast_convert.py), as definitions are, or with libcst where the conversion does not reach;
    None when neither parses it. libcst's parse of one 174k-character module of netbox took
    0.25 s of its scan."""
    try:
        tree, starts, ends, _source = ast_convert.convert(info.source.text, 1)
        return ParsedModule(info, tree, tree, 1, (starts, ends))
    except ast_convert.NOT_CONVERTED:
        pass
    try:
        tree = parse_module(info.source.text)
    except (cst.ParserSyntaxError, RecursionError):
        return None
    return ParsedModule(info, tree, tree, 1)


class CallSiteWalker(Walker):
    def __init__(self, sites: CallSites, parsed: ParsedModule, env: dict[str, Val], cls: str | None = None,
                 holder: str = "", level: int = LEVELS) -> None:
        super().__init__(sites.ctx, parsed, Recorder(), env, cls=cls)
        self.call_sites = sites
        self.holder = holder
        self.level = level
        self.sites: dict[str, Site] = {}
        self.edges: list[tuple[str, cst.CSTNode]] = []
        self.asked: list[list[str]] = []   # [callee, fingerprint of what it returned], each once

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
        returned, text = self.call_sites.answer(self.level, self.holder, fn)
        if [fn.qualname, text] not in self.asked:
            self.asked.append([fn.qualname, text])
        if returned is not None and returned.kind in ("qs", "instance", "rows", "model"):
            return self._own_ids(returned)
        return plain(union(positional) | union(v for _, v in keywords))


    def _own_ids(self, returned: Val) -> Val:
        """The callee's value with its step ids renamed to fresh ids of this walk."""
        fresh: dict[str, str] = {}

        def rename(sid):
            if not _is_step_id(sid):
                return sid
            if sid not in fresh:
                fresh[sid] = self.rec.next_id()
            return fresh[sid]

        return Relabel(rename).value(returned)


_IDENTIFIER_OR_DOT = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.")


def _column(source_line: str, node: cst.CSTNode) -> int:
    """1-based column where the call expression starts on its first line: the first place its
    text is found on the source line not right after an identifier character or a dot (the first
    non-blank column when there is none). A plain search, not a regular expression built from the
    text: each call site's text would be a pattern compiled once and never used again."""
    first = code(node).split("\n", 1)[0].strip()
    if first:
        at = source_line.find(first)
        while at >= 0:
            if at == 0 or source_line[at - 1] not in _IDENTIFIER_OR_DOT:
                return at + 1
            at = source_line.find(first, at + 1)
    return len(source_line) - len(source_line.lstrip()) + 1
