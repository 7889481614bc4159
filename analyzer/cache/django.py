"""Reuse of an earlier Django scan's work: index facts per file, boundaries per definition, and
each transaction's IR when nothing it depended on changed.

What a transaction's result depends on, and how each part is checked:
- the project-wide facts the walk consults (every module's shape: its names, bases,
  decorators, parameters and assignments; the imports other modules can see through it; the
  entities; signals, wrappers, the user model, the settings of the scan): one digest; when it
  differs, nothing is reused;
- the definitions its walk parsed (the boundary's own, and every helper it followed): each
  recorded with its qualified name, its lines and a digest of their text, and the imports of
  the modules holding them. A definition that moved, changed or disappeared, or an import
  added to its module, makes the transaction be walked again, and only that one.
A module's imports are its own business (an edit adding `from django.db.models import F` to
one module re-walks only the transactions reaching that module) unless another module can see
them: it imports the module itself or a name the module imported, star-imports it, or the
module's assignments, base classes or decorators (read without parsing its definitions) use
an imported name.
Boundaries are found again in every changed definition (new and removed transactions are
seen); for an unchanged one the boundaries found last time are reused without parsing it.
The walk reports what it reached through Context.parse_definition, which every definition the
walk reads goes through (a summary of a helper, computed once and applied in several
transactions, must be recorded as reached by each of them).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import weakref
from collections.abc import Callable

from .. import ir
from ..django.index import ModuleInfo, RepoIndex
from ..django.thread_memo import primed_memos
from ..django.via_chains import via_chains
from ..process import kept_loads
from . import caller_arguments as kept_callers
from . import index_facts, targets, trivia
from .cachefile import Entries, Verbatim, text_digest


@dataclasses.dataclass
class _Where:
    info: ModuleInfo


@dataclasses.dataclass
class BoundaryStub:
    """What the front end needs of a boundary before walking it (its place, to order and
    de-duplicate); the boundary itself is found again only if its transaction is walked."""

    kind: str
    line: int
    function: str
    end_line: int
    parsed: _Where
    source: list                      # [rel, qualname, first, last] of the definition it was found in
    view_module: str | None = None    # found by view_functions (ATOMIC_REQUESTS) in this module
    cls: str | None = None
    real: object = None               # the Boundary, when found in this scan
    handler_functions: tuple = ()     # method_decorator on a class: the handlers it covers (qualnames)


class DjangoReuse:
    """One scan's use of the cache: reads `tables` (an earlier scan's), writes `written`."""

    def __init__(self, tables: dict) -> None:
        self.old = tables
        for table in tables.values():
            if isinstance(table, Entries):
                table.loads = _KeptLoads(self)
        answers = kept_callers.AnswerTable()
        self.written: dict = {"files": {}, "boundaries": {}, "transactions": kept_callers.TransactionTable(answers),
                              "autocommit": {}, "autocommit_facts": {}, "entities": {}, "call_edges": {},
                              "module_facts": {}, "targets": {}, kept_callers.TABLE: answers}
        self._pid = os.getpid()  # a helper process forked from this scan has another
        self._answers_made: dict = {}  # in a helper: answers its current transaction walk worked out
        self.digest = ""
        self._lines: dict[str, list[str]] = {}
        self._digests: dict[tuple[str, int, int], str] = {}
        self._parse_diagnostics: dict[str, list[dict]] = {}
        self._reach: list[list] | None = None
        self._callers_asked: set[str] | None = None  # functions whose callers' arguments the walk took
        self.walked: list[str] = []   # ids of the transactions walked in this scan (the others were reused)
        self._file: list | None = None  # [file, content digest] a module-level walk read whole
        self.sites_walked: list[str] = []  # functions (and modules) whose autocommit sites were walked
        # id(record) -> (record, its IR line) of the transaction records kept as their line (ir.dumps),
        # and of those among them decoded from it, unchanged since (ir.loads takes them as they are)
        self.lines: dict[int, tuple[dict, str]] = {}
        self.read_lines: dict[int, tuple[dict, str]] = {}
        self._via: dict[int, tuple[dict, list]] = {}  # id(record) -> (record, its via_chains), kept with it
        # id(autocommit entry as the walks read it) -> (that entry, the form the cache keeps)
        self._stored: dict[int, tuple[dict, dict]] = {}
        self._kept_targets: targets.KeptTargets | None = None  # from prime_targets() to keep_targets()
        self._decode_ahead = False  # a lint's first transaction() decodes the records it can take
        self._records_ahead: dict[int, dict] = {}  # id(kept entry) -> its record, decoded then
        self.records_decoded_ahead = 0
        self.records_taken_ahead = 0
        self._layouts: dict[tuple, str | None] = {}  # (rel, first, last) -> trivia.layout
        # the same changed definition is in the reach of many kept transactions: tokenized once
        self._line_maps: dict[tuple, dict[int, int] | None] = {}

    def _loads(self, text: str):
        """A kept entry or record decoded: outside the walks, without collector passes over it
        (process.kept_loads); inside one, as it is (what the walk holds and then drops is not to be
        frozen)."""
        return json.loads(text) if self._reach is not None else kept_loads(text)

    def _decoded(self, text):
        """A kept record decoded from its IR line (_loads), or None when the line does not decode:
        a damaged entry is not reused, its transaction or walk is made again."""
        try:
            return self._loads(text)
        except (ValueError, TypeError):
            return None

    # -- index ---------------------------------------------------------------------------
    def index_add(self, index: RepoIndex, source) -> ModuleInfo:
        content = text_digest(source.text)
        kept = self.old.get("files", {}).get(source.rel)
        if kept and kept[0] == content and kept[1] == index.package_prefix:
            info = index.add_info(index_facts.load(kept[3], source))
            self.written["files"][source.rel] = kept
            return info
        info = index.add(source)
        self.written["files"][source.rel] = [content, index.package_prefix, index_facts.shape(info),
                                             index_facts.dump(info)]
        return info

    def _import_digests(self, index: RepoIndex) -> dict[str, str]:
        """Per module (by file), a digest of its module-level imports."""
        if not hasattr(self, "_imports"):
            self._imports = {info.rel: text_digest(json.dumps(info.imports, sort_keys=True))
                             for info in index.modules.values()}
        return self._imports

    def _module_shapes(self, index: RepoIndex) -> list:
        """Every module's name, file, shape and imports digest (sorted): what the project-wide
        facts of the models and of name resolution are made of."""
        if not hasattr(self, "_shapes"):
            shapes, imports = self.written["files"], self._import_digests(index)
            self._shapes = sorted((name, info.rel, shapes[info.rel][2] if info.rel in shapes else "", imports[info.rel])
                                  for name, info in index.modules.items())
        return self._shapes

    def modules_digest(self, index: RepoIndex) -> str:
        """Digest of every module's name, file, shape and the imports other modules can see
        (_visible_imports): what resolving a name anywhere reads besides the text it is written
        in. Those visible imports are a function of the modules' shapes and imports alone, so the
        digest is kept under theirs and worked out again only when one of them changed (a
        warm scan after an edit inside a function: saleor's _visible_imports, 0.06 s, skipped)."""
        if not hasattr(self, "_modules_digest"):
            key = text_digest(json.dumps([index.package_prefix, self._module_shapes(index)]))
            kept = self.old.get("module_facts", {}).get(key)
            if not isinstance(kept, str):
                # the shapes' rows (sorted by module name, each name once) with the visible
                # imports in place of the imports' digest
                visible = _visible_imports(index)
                kept = text_digest(json.dumps([(name, rel, shape, sorted(visible.get(rel, {}).items()))
                                               for name, rel, shape, _imports in self._module_shapes(index)]))
            self.written["module_facts"][key] = kept
            self._modules_digest = kept
        return self._modules_digest

    # -- what calls and decorators resolve to --------------------------------------------------
    def prime_targets(self, index: RepoIndex) -> None:
        """Give the index what its unchanged files' calls and decorators resolved to in the last
        scan (analyzer/cache/targets.py), before the boundaries' passes ask for them."""
        self._kept_targets = targets.KeptTargets(index, self.old.get("targets", {}), self.written["targets"],
                                                 self.written["files"], self.modules_digest(index))
        self._kept_targets.prime()

    def keep_targets(self) -> None:
        """Keep what the boundaries' passes resolved, per file, for the next scan (before the
        index forgets it)."""
        if self._kept_targets is not None:
            self._kept_targets.keep()
            self._kept_targets = None

    # -- entities ------------------------------------------------------------------------
    def entities(self, index: RepoIndex, auth_user: str, extract: Callable) -> list:
        """The models `extract()` finds, kept from the last scan when no module's shape (names,
        bases, class-level assignments, index_facts.shape) and imports changed and the user
        model is the same: models.py reads nothing else of the index but the class's line,
        which is taken from today's index."""
        from ..django.models import Entity

        facts = [index.package_prefix, auth_user, self._module_shapes(index)]
        key = text_digest(json.dumps(facts))
        kept = self.old.get("entities", {}).get(key)
        if kept is not None:
            self.written["entities"][key] = kept
            return [Entity(**fields, line=index.classes[fields["qualname"]].line) for fields in kept]
        found = extract()
        self.written["entities"][key] = [{k: v for k, v in dataclasses.asdict(e).items() if k != "line"} for e in found]
        return found

    # -- project-wide facts ---------------------------------------------------------------
    def begin(self, ctx, options, atomic_requests: list[str]) -> None:
        """Digest what every transaction depends on; from here on, record what each walk reads."""
        index = ctx.index
        facts = {
            "options": [list(options.excludes), options.max_file_bytes, options.max_depth,
                        sorted(options.extra_effects.items()), sorted(options.extra_statements.items())],
            "prefix": index.package_prefix,
            "modules": self.modules_digest(index),
            "entities": [_digested_fields(e) for _, e in sorted(ctx.entities.items())],
            "reverse": ctx.reverse, "signals": sorted(ctx.signals.items()), "wrappers": ctx.wrappers,
            "user": ctx.auth_user, "params": sorted((k, v.name) for k, v in ctx.entity_by_param_name.items()),
            "atomic_requests": atomic_requests,
            "primed_memos": sorted(primed_memos(ctx)),  # walks stop at these (thread_memo.py)
        }
        self.digest = text_digest(json.dumps(facts, sort_keys=True, default=list))
        self._ctx = ctx
        if not options.autocommit:
            # A scan without autocommit statements (`txscan lint`) leaves their walks as they
            # were, undecoded: the next `txscan scan` checks and reuses them as it would have.
            for table in ("autocommit", "autocommit_facts"):
                self.written[table] = self.old.get(table, {})
            # (not a re-analysis of rewrites: it reads a scan's tables in memory, already decoded,
            # and takes few of their transactions)
            self._decode_ahead = isinstance(self.old.get("transactions"), Entries)
        parse = ctx.parse_definition

        def recording_parse(info, qualname, first_line, end_line):
            fresh = qualname not in ctx._parsed
            before = len(ctx.diagnostics)
            parsed = parse(info, qualname, first_line, end_line)
            if fresh:
                self._parse_diagnostics[qualname] = ctx.diagnostics[before:]
            row = [info.rel, qualname, first_line, end_line]
            if self._reach is not None:
                self._reach.append(row)
            callers_memo.parsed(row)
            return parsed

        ctx.parse_definition = recording_parse
        callers_memo = ctx.caller_arguments = kept_callers.KeptCallerArguments(self)
        kept_callers.carry(self.old, self.written[kept_callers.TABLE], self.digest)
        self._keep_call_edges(index)

    @property
    def context(self):
        """The front end's Context this scan began with (None before begin()): the scan hands
        it to the re-analysis of rewrites, which shares what no edit reaches."""
        return getattr(self, "_ctx", None)

    def _definition_digest(self, rel: str, first: int, last: int) -> str:
        # the same definitions are in the reach of many transactions and autocommit walks
        key = (rel, first, last)
        digest = self._digests.get(key)
        if digest is None:
            digest = self._digests[key] = self._text_digest(rel, first, last)
        return digest

    def _text_digest(self, rel: str, first: int, last: int) -> str:
        return text_digest("".join(self._definition_lines(rel, first, last)))

    def _definition_lines(self, rel: str, first: int, last: int) -> list[str]:
        lines = self._lines.get(rel)
        if lines is None:
            info = self._module_by_rel().get(rel)
            lines = self._lines[rel] = info.source.lines_with_ends if info else []
        return lines[first - 1:last]

    def _layout(self, rel: str, first: int, last: int) -> str | None:
        """The definition's code lines and where its comment and blank lines are (cache/trivia.py)."""
        key = (rel, first, last)
        if key not in self._layouts:
            self._layouts[key] = trivia.layout(self._definition_lines(rel, first, last))
        return self._layouts[key]

    def _module_by_rel(self) -> dict[str, ModuleInfo]:
        if not hasattr(self, "_by_rel"):
            self._by_rel = {info.rel: info for info in self._ctx.index.modules.values()}
        return self._by_rel

    def _unchanged(self, *entry) -> bool:
        # the same definitions are in the reach of many transactions and autocommit walks
        memo = self.__dict__.setdefault("_unchanged_memo", {})
        try:
            found = memo.get(entry)
        except TypeError:  # not an entry this cache writes: checked as it is, not kept
            return self._still_there(*entry)
        if found is None:
            found = memo[entry] = self._still_there(*entry)
        return found

    def _still_there(self, rel: str, qualname: str, first: int, last: int, digest: str, imports: str,
                     _layout: str | None = None) -> bool:
        index = self._ctx.index
        now = index.functions.get(qualname) or index.classes.get(qualname)
        if now is None or (now.line, now.end_line) != (first, last):
            return False
        module = index.modules.get(now.module)
        return (module is not None and module.rel == rel and self._imports.get(rel) == imports
                and self._definition_digest(rel, first, last) == digest)

    # -- boundaries --------------------------------------------------------------------------
    def boundaries(self, ctx, info: ModuleInfo, qualname: str, first: int, last: int, cls: str | None,
                   find: Callable) -> list:
        """The boundaries of one candidate definition: found last time (its text and the project
        facts unchanged), or found now by `find(parsed)`."""
        source = [info.rel, qualname, first, last]
        key = json.dumps([self.digest, *source, cls, self._definition_digest(info.rel, first, last),
                          self._imports.get(info.rel)])
        kept = self.old.get("boundaries", {}).get(key)
        if kept is not None:
            self.written["boundaries"][key] = kept
            stubs, diagnostics = kept
            ctx.diagnostics.extend(diagnostics)
            return [BoundaryStub(*stub[:4], parsed=_Where(info), source=source, cls=cls, handler_functions=tuple(stub[4]))
                    for stub in stubs]
        before = len(ctx.diagnostics)
        parsed = ctx.parse_definition(info, qualname, first, last)
        found = find(parsed) if parsed is not None else []
        self.written["boundaries"][key] = [[[b.kind, b.line, b.function, b.end_line, list(b.handler_functions)]
                                            for b in found],
                                           ctx.diagnostics[before:]]
        return [BoundaryStub(b.kind, b.line, b.function, b.end_line, _Where(info), source, cls=cls, real=b,
                             handler_functions=b.handler_functions) for b in found]

    def views(self, ctx, module: str, find: Callable) -> list:
        """ATOMIC_REQUESTS views of one module (kept per module content and project facts)."""
        info = ctx.index.modules[module]
        key = json.dumps([self.digest, "views", info.rel, self.written["files"][info.rel][0]])
        kept = self.old.get("boundaries", {}).get(key)
        if kept is not None:
            self.written["boundaries"][key] = kept
            stubs, diagnostics = kept
            ctx.diagnostics.extend(diagnostics)
            return [BoundaryStub(kind, line, function, end_line, _Where(info), source, view_module=module, cls=cls)
                    for kind, line, function, end_line, source, cls in stubs]
        before = len(ctx.diagnostics)
        found = find(module)
        out = []
        for b in found:
            fn = ctx.index.functions[b.function]
            out.append(BoundaryStub(b.kind, b.line, b.function, b.end_line, _Where(info),
                                    [info.rel, fn.qualname, fn.line, fn.end_line], module, b.cls, real=b))
        self.written["boundaries"][key] = [[[s.kind, s.line, s.function, s.end_line, s.source, s.cls] for s in out],
                                           ctx.diagnostics[before:]]
        return out

    def _materialize(self, ctx, stub: BoundaryStub, find_boundaries: Callable, view_functions: Callable):
        if stub.real is not None:
            return stub.real
        if stub.view_module is not None:
            found = view_functions(ctx, stub.view_module)
        else:
            rel, qualname, first, last = stub.source
            parsed = ctx.parse_definition(stub.parsed.info, qualname, first, last)
            found = find_boundaries(ctx, parsed, qualname, stub.cls) if parsed is not None else []
        return next(b for b in found if (b.kind, b.line, b.function) == (stub.kind, stub.line, stub.function))

    # -- transactions ------------------------------------------------------------------------
    def transaction(self, ctx, stub: BoundaryStub, walk: Callable, find_boundaries: Callable,
                    view_functions: Callable) -> tuple:
        """(transaction record or None, its diagnostics, front-end diagnostics) of one boundary."""
        if self._decode_ahead:
            self._decode_ahead = False
            self._decode_takeable_records()
        key = json.dumps([stub.parsed.info.rel, stub.line, stub.function, stub.kind])
        kept = self.old.get("transactions", {}).get(key)
        result = self._result(kept) if kept is not None and kept["digest"] == self.digest \
            and all(self._unchanged(*r) for r in kept["reach"]) and self._same_callers(kept.get("callers", ())) else None
        if result is not None:
            self.written["transactions"][key] = kept
            ctx.diagnostics.extend(kept["parse_diagnostics"])
            return self._with_via(kept, result)
        moved = self._moved_entry(stub)
        if moved is not None:
            self.written["transactions"][key] = moved
            ctx.diagnostics.extend(moved["parse_diagnostics"])
            return self._with_via(moved, self._result(moved, made_now=True))
        self._reach, self._callers_asked = [list(stub.source)], set()
        try:
            *walked, reached = walk(ctx, self._materialize(ctx, stub, find_boundaries, view_functions))
            result = tuple(walked)
            # A helper's summary, computed in an earlier transaction of this scan and applied
            # here, parsed nothing now: its definitions are reached all the same.
            self._reach += self._functions(ctx, reached)
        finally:
            reach, self._reach = self._reach, None
            asked, self._callers_asked = self._callers_asked, None
        self.walked.append(f"{stub.parsed.info.rel}:{stub.line}")
        unique = {tuple(r[:2]): r for r in reach}
        entry = self.written["transactions"][key] = self._as_line({
            "digest": self.digest,
            "reach": [[*r, self._definition_digest(r[0], r[2], r[3]), self._imports.get(r[0]),
                       self._layout(r[0], r[2], r[3])] for r in unique.values()],
            "parse_diagnostics": [d for _rel, qualname in unique for d in self._parse_diagnostics.get(qualname, [])],
            "callers": [[qualname, self._callers_digest(qualname)] for qualname in sorted(asked)],
        }, result)
        if self._answers_made:
            entry[kept_callers.HANDED], self._answers_made = self._answers_made, {}
        return result

    # A kept transaction's record is decoded from its IR line when the scan takes it, with
    # process.kept_loads (frozen with what is alive). Between walks, that first collects the last
    # walk's garbage in full: a lint after a helper edit on taiga-back walked 8 transactions and
    # made 9 full collections (0.04 CPU s) decoding the others. So a scan without autocommit
    # statements (`txscan lint`) decodes, before its first walk, every record it can take (kept
    # or only moved). With them, a helper process walks transactions from the last and hands the
    # scan kept ones too: decoding all of them in both processes would decode those twice.
    def _decode_takeable_records(self) -> None:
        table = self.old.get("transactions", {})
        for key in list(table):
            kept = table.get(key)
            if isinstance(kept, dict) and isinstance(kept.get("line"), str) and self._takeable(kept):
                record = self._decoded(kept["line"])
                if record is not None:
                    self._records_ahead[id(kept)] = record
        self.records_decoded_ahead = len(self._records_ahead)

    def _takeable(self, kept: dict) -> bool:
        """Whether a kept entry can give this scan its result, at its lines or moved (the checks of
        transaction() and _moved_entry(), but for the boundary's own line)."""
        try:
            return (kept.get("digest") == self.digest and isinstance(kept.get("reach"), list)
                    and all(self._moved_by(*r) is not None for r in kept["reach"]) and self._same_callers(kept.get("callers", ())))
        except TypeError:  # not an entry this cache writes (it is checked again where it is asked for)
            return False

    # -- call-graph edges ---------------------------------------------------------------------
    # index.call_graph() resolves every call of every function (0.1 s on saleor), for the
    # callers of a function (caller arguments, registries, _callers_digest). What one function's
    # calls resolve to depends on its file's text and on the project-wide facts (self.digest:
    # every module's shape and the imports others can see), as a walk's resolutions do; so each
    # file's edges are kept under (file, content, digest) and taken while those are today's.
    def _keep_call_edges(self, index: RepoIndex) -> None:
        kept = self.old.get("call_edges", {})
        keys: dict[str, str] = {}
        for info in {id(i): i for i in index.modules.values()}.values():
            content = self.written["files"].get(info.rel, [None])[0]
            if content is not None:
                key = keys[info.rel] = json.dumps([info.rel, content, self.digest])
                if _holds(kept, key):  # still true: carried over whether or not this scan builds the graph
                    self.written["call_edges"][key] = _carried(kept, key)
        decoded: dict[str, dict] = {}

        def key_of(fn) -> str | None:
            module = index.modules.get(fn.module)
            return keys.get(module.rel) if module is not None else None

        def kept_edges(fn) -> list[str] | None:
            key = key_of(fn)
            if key is None or not _holds(kept, key):
                return None
            if key not in decoded:
                found = kept.get(key)
                decoded[key] = found.value(key) if isinstance(found, Verbatim) else found
            targets = decoded[key].get(fn.qualname) if isinstance(decoded[key], dict) else None
            return list(targets) if isinstance(targets, list) else None

        def made_edges(fn, targets: list[str]) -> None:
            key = key_of(fn)
            if key is not None and not _holds(kept, key):
                made = self.written["call_edges"].get(key)
                if not isinstance(made, dict):  # none yet, or a damaged entry carried over unread
                    made = self.written["call_edges"][key] = {}
                made[fn.qualname] = list(targets)

        index.kept_edges, index.made_edges = kept_edges, made_edges

    # -- callers whose arguments a transaction took ------------------------------------------
    # A transaction of an untyped helper takes its parameters from what its callers pass
    # (django/caller_arguments.py). The callers it walked are in its reach, but a caller added
    # in another file (or one no longer calling it) is not: so the callers of each function
    # whose callers' arguments the walk took are kept as a digest of their names, and compared
    # with today's call graph before the transaction is reused.
    def _note_callers(self, qualname: str) -> None:
        if self._callers_asked is not None:
            self._callers_asked.add(qualname)

    def _callers_digest(self, qualname: str) -> str:
        digests = self.__dict__.setdefault("_callers_digests", {})
        if qualname not in digests:
            graph = self._ctx.index.call_graph()
            callers = sorted(graph.predecessors(qualname)) if qualname in graph else []
            digests[qualname] = text_digest(json.dumps(callers))
        return digests[qualname]

    def _same_callers(self, pairs) -> bool:
        """Whether each function of `pairs` ((qualname, digest of its callers' names), as kept)
        has those callers today."""
        return all(self._callers_digest(qualname) == digest for qualname, digest in pairs)

    # -- callers' arguments kept across scans (cache/caller_arguments.py) --------------------------
    def kept_caller_arguments(self, qualname: str, levels: int) -> tuple | None:
        """(found, callers, reach rows, functions asked) of the answer kept for the callers of
        `qualname` at `levels`, when everything it read is as it was; else None."""
        key = kept_callers.table_key(self.digest, qualname, levels)
        table = self.old.get(kept_callers.TABLE, {})
        if not _holds(table, key):
            return None
        try:
            kept = table[key]
        except KeyError:  # a damaged entry (said once by the file)
            return None
        if isinstance(kept, Verbatim):
            kept = kept.value(key)
        try:
            # Definitions that only moved (a line added above them) read as they did: what the
            # callers pass holds no line (values name steps by number, sources by name).
            deltas = [self._moved_by(*r[:6]) for r in kept["reach"]]
            if not all(type(d) is int for d in deltas) or not self._same_callers(kept["callers_digests"]):
                return None
            diagnostics = [(q, list(d)) for q, d in kept["parse_diagnostics"]]
            if diagnostics and any(deltas):
                return None  # (a parse error's line would move)
            found = kept_callers.answer(kept)
            rows = [[r[0], r[1], r[2] + d, r[3] + d] for r, d in zip(kept["reach"], deltas)]
            asked = [q for q, _digest in kept["callers_digests"]]
        except (KeyError, TypeError, ValueError):
            return None
        if found is None:
            return None
        if any(deltas):  # kept at today's lines
            moved = dict(kept, reach=[[*row, *r[4:6]] for row, r in zip(rows, kept["reach"])])
            self.written[kept_callers.TABLE][key] = moved
        for q, found_diagnostics in diagnostics:
            # what parsing those definitions in this scan would have said (the walks that
            # parsed them are not made)
            if q not in self._parse_diagnostics:
                self._parse_diagnostics[q] = found_diagnostics
                self._ctx.diagnostics.extend(found_diagnostics)
        return (*found, rows, asked)

    def keep_caller_arguments(self, qualname: str, levels: int, value: tuple, parsed: dict,
                              asked: set) -> tuple[list, list]:
        """Keep an answer worked out now: `parsed`, the definitions read meanwhile by
        (file, qualname); `asked`, the functions whose callers it took. Returns what it read:
        (reach rows, functions asked)."""
        found, callers = value
        rows = dict(parsed)
        for row in self._functions(self._ctx, {qualname} | set(callers)):
            rows.setdefault((row[0], row[1]), row)
        reach = sorted(rows.values())
        asked = sorted(asked)
        entry = kept_callers.entry(
            found, callers,
            [[*r, self._definition_digest(r[0], r[2], r[3]), self._imports.get(r[0])] for r in reach],
            [[q, self._callers_digest(q)] for q in asked],
            [[r[1], self._parse_diagnostics[r[1]]] for r in reach if self._parse_diagnostics.get(r[1])])
        if entry is not None:
            key = kept_callers.table_key(self.digest, qualname, levels)
            self.written[kept_callers.TABLE][key] = entry
            if os.getpid() != self._pid:  # sent to the scan with the transaction (TransactionTable)
                self._answers_made[key] = entry
        return reach, asked

    def answer_read(self, rows, asked) -> None:
        """A walk took an answer of the callers' arguments: it depends on what the answer read."""
        if self._reach is not None:
            self._reach.extend(list(r) for r in rows)
        for q in asked:
            self._note_callers(q)

    # A transaction's record is kept as its IR line (a JSON string in the entry): a reused one is
    # decoded from it once and ir.dumps writes the line as it is instead of encoding the record
    # again (the IR of saleor's explicit transactions is most of its 12 MB).
    def _as_line(self, entry: dict, result: tuple) -> dict:
        """`entry` with `result`, its record as its IR line, known to ir.dumps by it."""
        record = result[0]
        if not isinstance(record, dict):
            entry["result"] = list(result)
            return entry
        if record.get("type") == "transaction":
            entry["via"] = via_chains(record["steps"])
            self._via[id(record)] = (record, entry["via"])
        text = ir.line(record)
        self.lines[id(record)] = (record, text)
        entry["result"] = [None, *result[1:]]
        entry["line"] = text
        return entry

    def _with_via(self, entry: dict, result: tuple) -> tuple:
        record = result[0]
        if isinstance(record, dict) and isinstance(entry.get("via"), list):
            self._via[id(record)] = (record, entry["via"])
        return result

    def via_chains(self, record: dict) -> list | None:
        """The kept via_chains() of a transaction record this scan took or made, else None."""
        found = self._via.get(id(record))
        return found[1] if found is not None and found[0] is record else None

    def take_lines(self) -> tuple[dict, dict]:
        """(lines, read_lines), given once: the records they hold are not kept here past the IR."""
        taken = self.lines, self.read_lines
        self.lines, self.read_lines = {}, {}
        self._records_ahead = {}  # (any decoded and not taken: not kept past the walks)
        return taken

    def _result(self, entry: dict, made_now: bool = False) -> tuple | None:
        """The (record, diagnostics, front-end diagnostics) a kept entry holds, None when its line
        does not decode. `made_now`: an entry this scan made (a kept one moved), its line decoded
        as what a walk makes is: left to the collector's young passes (process.kept_loads would first collect all the walks'
        garbage in full, to freeze one record)."""
        text = entry.get("line")
        if not isinstance(text, str):
            return tuple(entry["result"])
        record = self._records_ahead.pop(id(entry), None)
        if record is not None:
            self.records_taken_ahead += 1
        else:
            record = json.loads(text) if made_now else self._decoded(text)
            if record is None:
                return None
        self.lines[id(record)] = self.read_lines[id(record)] = (record, text)
        return (record, *entry["result"][1:])


    # -- definitions that only moved ------------------------------------------------------------
    # Lines are part of the IR, so a definition that moved (a line added or removed above it)
    # used to make every transaction reaching it be walked again. When every definition a kept
    # transaction read has the same text, imports and module as then, only some at other lines,
    # its result is the old one with each location inside a moved definition moved with it; a
    # location in a file with moved definitions that lies in none of the definitions read (its
    # new line unknown) makes the transaction be walked again.
    def _moved_entry(self, stub: BoundaryStub) -> dict | None:
        """The kept entry of this boundary's transaction, moved to today's lines, or None."""
        rel = stub.parsed.info.rel
        for old_line, old_key in self._kept_by_boundary().get((rel, stub.function, stub.kind), ()):
            kept = self.old["transactions"].get(old_key)
            if kept is None or kept["digest"] != self.digest:
                continue
            spans: dict[str, list[tuple[int, int, int]]] = {}
            reach = []
            for entry in kept["reach"]:
                delta = self._moved_by(*entry)
                if delta is None:
                    break
                spans.setdefault(entry[0], []).append((entry[2], entry[3], delta))
                if isinstance(delta, dict):  # only comment and blank lines changed: today's text and lines
                    reach.append(self._reach_now(*entry[:2]))
                else:
                    reach.append([entry[0], entry[1], entry[2] + delta, entry[3] + delta, *entry[4:]])
            else:
                # the callers last: their digest needs the whole call graph (the reach often rules the entry out)
                if not self._same_callers(kept.get("callers", ())):
                    continue
                moves = {path: found for path, found in spans.items() if any(d for _a, _b, d in found)}
                try:
                    if _new_line(moves, rel, old_line) != stub.line:
                        continue
                    kept_result = self._result(kept)
                    if kept_result is None:
                        continue
                    result = _moved(list(kept_result), moves)
                    diagnostics = _moved(kept["parse_diagnostics"], moves)
                except _Unmovable:
                    return None
                record = result[0]
                if isinstance(record, dict) and record.get("type") == "transaction":
                    record["id"] = f"{record['file']}:{record['line']}"
                return self._as_line({"digest": kept["digest"], "reach": reach, "parse_diagnostics": diagnostics,
                                      "callers": kept.get("callers", [])}, result)
        return None

    def _kept_by_boundary(self) -> dict[tuple[str, str, str], list[tuple[int, str]]]:
        """The kept transactions by (file, function, boundary kind): their old lines and keys."""
        if not hasattr(self, "_by_boundary"):
            self._by_boundary: dict[tuple[str, str, str], list[tuple[int, str]]] = {}
            for key in self.old.get("transactions", {}):
                try:
                    rel, line, function, kind = json.loads(key)
                except (ValueError, TypeError):
                    continue
                self._by_boundary.setdefault((rel, function, kind), []).append((line, key))
        return self._by_boundary

    def _moved_by(self, rel: str, qualname: str, first: int, last: int, digest: str, imports: str,
                  layout: str | None = None) -> int | dict[int, int] | None:
        """How many lines a definition read then moved (0: same place); or, when only its comment
        and blank lines changed, where each of its code lines went (old line -> today's,
        cache/trivia.py); None when it changed."""
        index = self._ctx.index
        now = index.functions.get(qualname) or index.classes.get(qualname)
        if now is None:
            return None
        module = index.modules.get(now.module)
        if module is None or module.rel != rel or self._imports.get(rel) != imports:
            return None
        if now.end_line - now.line == last - first and self._definition_digest(rel, now.line, now.end_line) == digest:
            return now.line - first
        if layout is None:
            return None
        key = (rel, qualname, first, layout, now.line, now.end_line)
        if key not in self._line_maps:
            self._line_maps[key] = trivia.line_map(layout, first, self._definition_lines(rel, now.line, now.end_line),
                                                   now.line)
        return self._line_maps[key]

    def _reach_now(self, rel: str, qualname: str) -> list:
        """The reach entry of a definition as it is today."""
        index = self._ctx.index
        now = index.functions.get(qualname) or index.classes.get(qualname)
        return [rel, qualname, now.line, now.end_line, self._definition_digest(rel, now.line, now.end_line),
                self._imports.get(rel), self._layout(rel, now.line, now.end_line)]

    # -- autocommit call sites ------------------------------------------------------------------
    # Per function (or module's top-level code), by qualified name: the walks made of it, each
    # with its records, call edges and return value (analyzer/django/call_sites.py), what each
    # callee it asked returned then (call_sites.py asks again before reusing it), and the
    # definitions it parsed.
    def sites_kept(self, key: str) -> list[dict]:
        """The walks of `key` made when the project facts and every definition they read were as now."""
        kept = (self._with_records(entry) for entry in self.old.get("autocommit", {}).get(key, []) if self._still(entry))
        return [entry for entry in kept if entry is not None]

    # A walk's autocommit records are kept as their IR lines (`record_lines`), as a transaction's
    # record is: a reused record is decoded from its line once, and ir.dumps writes the line as it
    # is and ir.loads gives the record back instead of encoding and decoding it again (saleor's
    # 1,555 autocommit records, on every warm scan). The walks are given their entries with the
    # records (`records`, as call_sites.py reads them); the cache keeps the form with the lines.
    def _with_records(self, entry: dict) -> dict | None:
        """A kept entry as the walks read it: its records decoded from their lines, each known by
        its line; the entry itself is what sites_keep() keeps. None when a line does not decode."""
        lines = entry.get("record_lines")
        if not isinstance(lines, list):
            return entry  # (kept with its records: by a helper process, or nothing was walked)
        records = [self._decoded(text) for text in lines]
        if any(record is None for record in records):
            return None
        for record, text in zip(records, lines):
            self.lines[id(record)] = self.read_lines[id(record)] = (record, text)
        given = {k: v for k, v in entry.items() if k != "record_lines"}
        given["records"] = records
        self._stored[id(given)] = (given, entry)
        return given

    def _as_stored(self, entry: dict) -> dict:
        """A new walk's entry as the cache keeps it: its records as their IR lines, each known to
        ir.dumps by its line."""
        records = entry.get("records")
        if not isinstance(records, list):
            return entry
        lines = []
        for record in records:
            text = ir.line(record)
            self.lines[id(record)] = (record, text)
            lines.append(text)
        stored = {k: v for k, v in entry.items() if k != "records"}
        stored["record_lines"] = lines
        self._stored[id(entry)] = (entry, stored)
        return stored

    def _still(self, entry: dict) -> bool:
        if entry["digest"] != self.digest:
            return False
        if entry["file"] is not None:
            rel, content = entry["file"]
            now = self.written["files"].get(rel)
            if now is None or now[0] != content:
                return False
        return all(self._unchanged(*r) for r in entry["reach"])

    def module_facts(self, info: ModuleInfo) -> dict:
        """What the autocommit phase read off one module's text before walking anything (whether
        each function holds ORM code, whom it calls by name, whether module-level code runs
        queries), as a dict it fills as it goes: last scan's when the file's content and the
        project facts are the same (they are all these depend on), else an empty one."""
        content = self.written["files"].get(info.rel, [None])[0]
        kept = self.old.get("autocommit_facts", {}).get(info.rel)
        if kept is None or content is None or kept["content"] != content or kept["digest"] != self.digest:
            kept = {"content": content, "digest": self.digest, "facts": {}}
        if content is not None:
            self.written["autocommit_facts"][info.rel] = kept
        return kept["facts"]

    def sites_arrived(self, key: str) -> list[dict]:
        return []  # walks of another process (django/autocommit_parallel.py) come through its SharedReuse

    def sites_keep(self, key: str, entry: dict) -> None:
        given = self._stored.get(id(entry))
        if given is not None and given[0] is entry:
            entry = given[1]  # the form the cache keeps (records as lines)
        else:
            entry = self._as_stored(entry)  # a helper process's walk, or an entry kept with its records
        kept = self.written["autocommit"].setdefault(key, [])
        if not any(e is entry for e in kept):
            kept.append(entry)

    def sites_read_file(self, info: ModuleInfo) -> None:
        """The walk reads a whole file (module-level code), not definitions."""
        self._file = [info.rel, self.written["files"][info.rel][0]] if info.rel in self.written["files"] else None

    def sites_walk(self, key: str, walk: Callable) -> tuple:
        """`walk()` -> (result, entry); an entry to keep gets what the walk read."""
        self.sites_walked.append(key)
        saved, self._reach, self._file = (self._reach, self._file), [], None
        try:
            result, entry = walk()
        finally:
            reach, file, (self._reach, self._file) = self._reach, self._file, saved
        if not entry.get("unkept"):
            unique = {tuple(r[:2]): r for r in reach}
            entry.update({
                "digest": self.digest, "file": file,
                "reach": [[*r, self._definition_digest(r[0], r[2], r[3]), self._imports.get(r[0])]
                          for r in unique.values()],
                "parse_diagnostics": [d for _rel, qualname in unique for d in self._parse_diagnostics.get(qualname, [])],
            })
            self._as_stored(entry)
        return result, entry

    @staticmethod
    def _functions(ctx, qualnames) -> list[list]:
        """Reach entries ([file, qualname, first line, last line]) of application functions."""
        entries = []
        for qualname in sorted(qualnames):
            fn = ctx.index.functions.get(qualname)
            module = ctx.index.modules.get(fn.module) if fn is not None else None
            if module is not None:
                entries.append([module.rel, qualname, fn.line, fn.end_line])
        return entries


class _Unmovable(Exception):
    """A kept location lies in a file whose definitions moved, outside every definition read."""


def _holds(table, key: str) -> bool:
    """Whether a table has `key`, without decoding the entry (`in` on a Mapping decodes it)."""
    return table.text(key) is not None if isinstance(table, Entries) else key in table


def _carried(table, key: str):
    """An entry of a table read from the file (its text, not decoded) or kept in memory, to write as it is."""
    carried = table.carried(key) if isinstance(table, Entries) else None
    return carried if carried is not None else table[key]


def _new_line(moves: dict[str, list[tuple[int, int, int | dict[int, int]]]], path: str, line: int) -> int:
    """Today's line of an old location (`moves`: per file, old spans of definitions and how far
    each moved, or where each of its code lines went; files with nothing moved are absent)."""
    spans = moves.get(path)
    if spans is None:
        return line
    found = {line + delta if isinstance(delta, int) else delta.get(line)
             for first, last, delta in spans if first <= line <= last}
    if len(found) != 1 or None in found:
        raise _Unmovable(path, line)
    return found.pop()


def _moved(value, moves: dict[str, list[tuple[int, int, int]]]):
    """A copy of a kept JSON value with every location (`file` with `line`, `end_line`) moved."""
    if isinstance(value, list):
        return [_moved(v, moves) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: _moved(v, moves) for k, v in value.items()}
    path = value.get("file")
    if isinstance(path, str) and path in moves:
        for field in ("line", "end_line"):
            if isinstance(value.get(field), int):
                out[field] = _new_line(moves, path, value[field])
    return out


def _digested_fields(entity) -> dict:
    """An entity's fields but its line, as project facts to digest: its own containers, not
    copies (dataclasses.asdict copies every list, which took a warm scan 0.1 s on saleor); the
    JSON of both is the same."""
    return {f.name: getattr(entity, f.name) for f in dataclasses.fields(entity) if f.name != "line"}


def _visible_imports(index: RepoIndex) -> dict[str, dict[str, str]]:
    """Per module (by file), the imports other modules can see through it (module docstring)."""
    by_name = {name: info for name, info in index.modules.items()}
    whole: set[str] = set()
    names: dict[str, set[str]] = {}
    prefixes: dict[str, list[tuple[int, ModuleInfo]]] = {}  # an imported name -> its modules, longest first
    for info in {id(i): i for i in index.modules.values()}.values():
        targets = [v for v in info.imports.values() if v] + [t for fn in info.functions.values()
                                                            for t in fn.imports.values() if t]
        for target in targets:
            for part in target.split(";"):
                found = prefixes.get(part)
                if found is None:
                    pieces = part.split(".")
                    found = prefixes[part] = [(cut, by_name[name]) for cut in range(len(pieces), 0, -1)
                                              if (name := ".".join(pieces[:cut])) in by_name]
                for cut, module in found:
                    if module is info:
                        continue
                    if cut == part.count(".") + 1 or info.imports.get("*", "").find(part) >= 0:
                        whole.add(module.rel)
                    else:
                        names.setdefault(module.rel, set()).add(part.split(".")[cut])
                    break
    out: dict[str, dict[str, str]] = {}
    for info in {id(i): i for i in index.modules.values()}.values():
        if info.rel in whole:
            out[info.rel] = dict(info.imports)
            continue
        words = set(re.findall(r"\w+", " ".join(_resolved_texts(info))))
        seen = names.get(info.rel, set()) | words
        out[info.rel] = {k: v for k, v in info.imports.items() if k in seen or k == "*"}
    return out


def _resolved_texts(info: ModuleInfo) -> list[str]:
    """What the analysis resolves in a module's scope without parsing its definitions: module and
    class assignments, base classes, decorators."""
    texts = list(info.assigns.values())
    for fn in info.functions.values():
        texts.extend(fn.decorators)
    stack = list(info.classes.values())
    while stack:
        cls = stack.pop()
        texts.extend([*cls.assigns.values(), *cls.bases, *cls.decorators])
        stack.extend(cls.inner.values())
    return texts


class _KeptLoads:
    """How a table read from the file decodes its entries for a DjangoReuse (its `_loads`), holding
    it weakly: the table outlives a re-analysis's DjangoReuse, which must not be kept alive by it."""

    __slots__ = ("_reuse",)

    def __init__(self, reuse: DjangoReuse) -> None:
        self._reuse = weakref.ref(reuse)

    def __call__(self, text: str):
        reuse = self._reuse()
        return reuse._loads(text) if reuse is not None else json.loads(text)


class NoReuse:
    """A scan without a cache: every step done, nothing recorded."""

    def index_add(self, index: RepoIndex, source) -> ModuleInfo:
        return index.add(source)

    def entities(self, index: RepoIndex, auth_user: str, extract: Callable) -> list:
        return extract()

    def prime_targets(self, index: RepoIndex) -> None:
        pass

    def keep_targets(self) -> None:
        pass

    def begin(self, ctx, options, atomic_requests: list[str]) -> None:
        pass

    def boundaries(self, ctx, info, qualname, first, last, cls, find: Callable) -> list:
        parsed = ctx.parse_definition(info, qualname, first, last)
        return find(parsed) if parsed is not None else []

    def views(self, ctx, module: str, find: Callable) -> list:
        return find(module)

    def transaction(self, ctx, boundary, walk: Callable, find_boundaries: Callable, view_functions: Callable) -> tuple:
        return walk(ctx, boundary)[:3]

    def module_facts(self, info: ModuleInfo) -> dict:
        return {}

    def via_chains(self, record: dict) -> None:
        return None

    def sites_kept(self, key: str) -> list:
        return []

    def sites_arrived(self, key: str) -> list:
        return []

    def sites_keep(self, key: str, entry: dict) -> None:
        pass

    def sites_read_file(self, info: ModuleInfo) -> None:
        pass

    def sites_walk(self, key: str, walk: Callable) -> tuple:
        return walk()
