"""The Django front end: a repository in, IR records out (docs/IR.md).

Pipeline: read files (files.py) -> tree-sitter index of every module (index.py) ->
entities (models.py) and project facts (project.py) -> boundaries on the definitions that can
hold one (boundaries.py) -> a walk of each transaction (transactions.py, walker.py). Only the
definitions a transaction reaches are parsed with libcst.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .. import forked, timing
from ..ir import diagnostic
from ..process import modules_imported, phase_boundary
from . import autocommit_parallel
from .files import DEFAULT_EXCLUDES, DEFAULT_MAX_BYTES, FileProblem, python_sources
from .index import RepoIndex

if TYPE_CHECKING:
    from collections.abc import Callable

    from .boundaries import Boundary
    from .context import Context

# The modules past the index (models, boundaries, walks) read libcst, whose import is about 0.1 s
# of CPU: they are imported by scan(), after the process that indexes ahead is forked
# (autocommit_parallel.index_ahead), so that the index is made while they are imported. So are
# the other modules the index does not read (summaries.py, the autocommit phase's): whatever the
# scan imports before that fork, the process ahead waits for.


@dataclass
class Options:
    excludes: tuple[str, ...] = DEFAULT_EXCLUDES
    max_file_bytes: int = DEFAULT_MAX_BYTES
    max_depth: int = 6
    extra_effects: dict = field(default_factory=dict)      # [tool.txscan.effects]
    extra_statements: dict = field(default_factory=dict)   # [tool.txscan.statements]
    autocommit: bool = True    # also report ORM call sites outside transactions (boundary `autocommit`)


@dataclass
class FrontendResult:
    records: list[dict]
    files: list[dict] = field(default_factory=list)   # {"path", "lines", "sha256"...} for the store
    lines: int = 0


def _source_roots(rels: list[str]) -> list[str]:
    roots = set()
    for rel in rels:
        parts = rel.split("/")
        if parts[-1] == "manage.py" and len(parts) > 1:
            roots.add("/".join(parts[:-1]))
        if "src" in parts[:-1]:
            roots.add("/".join(parts[: parts.index("src") + 1]))
    return sorted(roots)


def _package_prefix(root: Path) -> str:
    """`saleor` when the scanned folder is itself the package `saleor/` (it has __init__.py):
    absolute imports inside it (`from saleor.core import x`) then resolve.

    Module names start where Python's import path does: the folder holding manage.py is on
    sys.path (its own `__init__.py` does not make its name part of module names), and a folder
    whose name is not an identifier (`bk-sops`) cannot be imported as a package."""
    parts: list[str] = []
    current = root
    while (current / "__init__.py").is_file() and current.parent != current \
            and not (current / "manage.py").is_file() and current.name.isidentifier():
        parts.insert(0, current.name)
        current = current.parent
    return ".".join(parts)


def scan(root: Path, options: Options = Options(), reuse=None, read_already: dict | None = None,
         walked: Callable[[list[dict]], None] | None = None) -> FrontendResult:
    """`reuse` (analyzer.cache.django.DjangoReuse) takes what an earlier scan found where nothing
    it depends on changed; without it every step is done. `read_already`: files read before
    (files.python_sources), not read again. `walked` is given the explicit transactions' records
    as soon as they are walked (the rewrites start work for later on the other core)."""
    from ..cache.django import NoReuse

    reuse = reuse or NoReuse()
    root = root.resolve()
    lap = time.perf_counter()
    sources = list(python_sources(root, options.excludes, options.max_file_bytes, read_already))
    prefix = _package_prefix(root)
    # Where there is a second core (autocommit_parallel.py): a process forked before libcst is
    # imported indexes the files from the last while this one imports it; a second one, forked
    # once it is imported, takes that index too, then makes the autocommit walks and walks
    # transactions from the last.
    ahead = autocommit_parallel.index_ahead(reuse, sources, prefix) if options.autocommit else None
    try:
        lap = _import_analysis(lap, options.autocommit)
        early = autocommit_parallel.before_index(reuse, sources, prefix, ahead) if options.autocommit else None
    except BaseException:
        if ahead is not None:
            ahead.close()
        raise
    if early is not None and early.in_helper:  # pragma: no cover - the helper process
        forked.run_and_exit(lambda: _scan_sources(root, options, reuse, sources, prefix, lap, early))
    try:
        return _scan_sources(root, options, reuse, sources, prefix, lap, early, walked)
    finally:
        if early is not None:
            early.stop()


def _import_analysis(lap: float, autocommit: bool = True) -> float:
    """Import the modules past the index, counted as imports: the start of the index's lap moved
    past them."""
    started = time.perf_counter()
    with timing.phase("imports"):
        from ..generated_code import dataclasses_compiled_ahead

        with dataclasses_compiled_ahead():  # libcst's node classes: their methods compiled once, at set-up
            import_analysis_modules(autocommit)
    modules_imported()
    return lap + (time.perf_counter() - started)


def import_analysis_modules(autocommit: bool = True) -> None:
    """The modules the analysis past the index reads (libcst among them). `autocommit`: also the
    autocommit phase's, imported here rather than when the phase starts: the helper forked after
    these imports (autocommit_parallel.before_index) then has them too, instead of importing them
    before its first walk, and the scan imports them while the process ahead indexes."""
    from . import boundaries, context, library_models, models, project, summaries, transactions  # noqa: F401
    if autocommit:
        from . import autocommit as autocommit_phase, call_sites  # noqa: F401


def _scan_sources(root: Path, options: Options, reuse, sources: list, prefix: str, lap: float,
                  early: autocommit_parallel.Helper | None, walked=None) -> FrontendResult:
    from . import library_models, project
    from .boundaries import (
        ModuleUses,
        atomic_requests_settings,
        candidates,
        find_boundaries,
        find_wrappers,
        is_view_module,
        view_functions,
    )
    from .context import Context
    from .models import ModelExtractor

    diagnostics: list[dict] = []
    index = RepoIndex(prefix)
    files: list[dict] = []
    total_lines = 0
    for number, source in enumerate(sources):
        if isinstance(source, FileProblem):
            diagnostics.append(diagnostic(source.rel, 0, source.code, source.message))
            files.append({"path": source.rel, "lines": 0, "status": source.code})
            continue
        total_lines += source.lines
        try:
            info = reuse.index_add(index, source) if early is None else early.index_add(number, index, source)
        except RecursionError:
            diagnostics.append(diagnostic(source.rel, 0, "parse-error", "nesting too deep to parse"))
            continue
        files.append({"path": source.rel, "lines": source.lines, "status": "ok"})
        if info.python2_line:
            diagnostics.append(diagnostic(source.rel, info.python2_line, "parse-error",
                                     "Python 2 syntax (print/exec statement); this file is not Python 3"))
        elif info.has_error:
            diagnostics.append(diagnostic(source.rel, _first_error_line(index, source.text), "parse-error",
                                     "syntax error (not Python 3 syntax?); definitions before the error are still used"))
    index.add_source_root_aliases(_source_roots([f["path"] for f in files]))
    lap = timing.lap("index", lap)

    auth_user = project.auth_user(index)
    reuse.prime_targets(index)  # the warm cache's resolved calls of unchanged files (cache/targets.py)
    entities = reuse.entities(index, auth_user, lambda: ModelExtractor(index, auth_user).extract())
    concrete = [e for e in entities if not e.abstract]
    if auth_user not in {e.name for e in concrete} and any(
            r["target"] == auth_user for e in concrete for r in e.relations):
        concrete.append(project.django_user(auth_user))
        entities.append(concrete[-1])
    # Parameters are typed by the application's own model names only, not by library models
    # (`session`, `site` and `group` are rarely those rows).
    param_names = project.param_names(concrete, auth_user)
    extra = library_models.referenced_library_entities(index, {e.name for e in entities})
    extra += library_models.through_entities(concrete)
    concrete += extra
    entities += extra
    uses = ModuleUses(index)  # (which functions can use atomic: for wrappers, then boundaries)
    ctx = Context(
        index=index,
        entities={e.name: e for e in concrete},
        entity_by_qualname={e.qualname: e for e in concrete},
        reverse=project.reverse_accessors(concrete),
        signals=project.signals(index),
        wrappers=find_wrappers(index, uses),
        max_depth=options.max_depth,
        auth_user=auth_user,
        extra_effects=dict(options.extra_effects),
        extra_statements=dict(options.extra_statements),
    )
    ctx.entity_by_param_name = param_names
    lap = timing.lap("models", lap)
    enabled, ignored = atomic_requests_settings(index)
    for rel, line in ignored:
        diagnostics.append(diagnostic(rel, line, "ignored-setting", "ATOMIC_REQUESTS at the top level of settings is "
                                 "ignored by Django; it only counts inside DATABASES[alias]", "info"))
    reuse.begin(ctx, options, enabled)
    boundaries: list[Boundary] = []
    listed = candidates(ctx, uses)
    if early is not None and early.in_helper:  # pragma: no cover - the helper process
        early.boundary_share(ctx, listed, find_boundaries)  # from the last (autocommit_parallel.py)
    for number, (qualname, module, first, last, cls) in enumerate(listed):
        def find(parsed, qualname=qualname, cls=cls):
            return find_boundaries(ctx, parsed, qualname, cls)

        info = index.modules[module]
        boundaries.extend(reuse.boundaries(ctx, info, qualname, first, last, cls, find) if early is None
                          else early.boundaries(number, ctx, info, qualname, first, last, cls, find))
    if enabled:
        views = [v for name in sorted(n for n, i in index.modules.items() if i.name == n)
                 if is_view_module(index.modules[name].rel)
                 for v in reuse.views(ctx, name, lambda module: view_functions(ctx, module))]
        view_names = {v.function for v in views}
        boundaries = [b for b in boundaries if b.function not in view_names or b.kind == "atomic-context"]
        boundaries = _drop_nested_in_views(boundaries, views) + views
    reuse.keep_targets()
    index.forget_targets()  # (the boundaries' passes were their only reader)
    lap = timing.lap("boundaries", lap)
    phase_boundary(walks=True)  # the index, the models and the boundaries live to the scan's end
    transactions = []
    unique: dict[tuple, Boundary] = {}
    for boundary in boundaries:
        # A class decorated with method_decorator is parsed whole, and its methods on their own
        # too: the same boundary can be found twice.
        unique.setdefault((boundary.parsed.info.rel, boundary.line), boundary)
    ordered = sorted(unique.values(), key=lambda b: (b.parsed.info.rel, b.line, b.function))

    def walk_one(boundary):
        return reuse.transaction(ctx, boundary, _walk, find_boundaries, view_functions)

    # A second process, where there is a second core (autocommit_parallel.py), makes the
    # autocommit phase's walks, then walks the transactions from the last while this one walks
    # them from the first; what it made is taken here, the rest is walked here.
    helper = autocommit_parallel.start(ctx, list(unique.values()), reuse, ordered, walk_one, early) \
        if options.autocommit else None
    try:
        for number, boundary in enumerate(ordered):
            taken = helper.transaction(number, ctx, reuse) if helper is not None else None
            txn, txn_diagnostics, problems = walk_one(boundary) if taken is None else taken
            if txn is not None:
                transactions.append((txn, txn_diagnostics))
            diagnostics.extend(problems)
        lap = timing.lap("walk", lap)
        if walked is not None:
            walked([txn for txn, _ in transactions])
        if options.autocommit:
            phase_boundary(walks=True)  # the transactions' walks live to the scan's end
            from .autocommit import autocommit_transactions  # not imported by scans without them (lint)

            shared = reuse if helper is None else helper.shared(reuse)
            transactions += [(txn, []) for txn in autocommit_transactions(
                ctx, list(unique.values()), [txn for txn, _ in transactions], shared,
                None if helper is None else helper.decided_facts())]
            timing.lap("autocommit", lap)
    finally:
        if helper is not None:
            helper.stop()
    release_summaries(ctx)
    diagnostics.extend(ctx.diagnostics)
    records = [{"ir": 1, "type": "meta", "frontend": "django", "root": root.name}]
    records += [e.ir() for e in entities]
    for txn, txn_diagnostics in transactions:
        records.append(txn)
        diagnostics.extend(txn_diagnostics)
    records += _dedupe(diagnostics)
    return FrontendResult(records, files, total_lines)


def release_summaries(ctx: Context) -> None:
    """summaries.release(): imported when the walks are done, not with this module (see the
    imports' comment above)."""
    from .summaries import release

    release(ctx)


def _walk(ctx: Context, boundary: Boundary) -> tuple[dict | None, list[dict], list[dict], frozenset[str]]:
    """(transaction, its diagnostics, front-end diagnostics, qualified names of the definitions
    its walk reached, summaries included) of one boundary."""
    from .transactions import walk_transaction

    parsed = boundary.parsed
    try:
        txn, txn_diagnostics, reached = walk_transaction(ctx, parsed, boundary)
        return txn, txn_diagnostics, [], reached
    except RecursionError:
        return (None, [], [diagnostic(parsed.info.rel, boundary.line, "internal-error", "recursion limit while walking")],
                frozenset())
    except Exception as exc:  # noqa: BLE001 - one bad transaction must not end the scan
        return (None, [], [diagnostic(parsed.info.rel, boundary.line, "internal-error", f"{type(exc).__name__}: {exc}")],
                frozenset())


def _drop_nested_in_views(boundaries: list[Boundary], views: list[Boundary]) -> list[Boundary]:
    """Under ATOMIC_REQUESTS an atomic block inside a view is a savepoint of the request's transaction."""
    spans = [(v.function, v.line, v.end_line) for v in views]
    kept = []
    for b in boundaries:
        if b.kind != "atomic-requests" and any(b.function.startswith(f) and s <= b.line <= e for f, s, e in spans):
            continue
        kept.append(b)
    return kept


def _dedupe(diagnostics: list[dict]) -> list[dict]:
    seen, out = set(), []
    for d in diagnostics:
        key = (d["file"], d["line"], d["code"], d["message"])
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def _first_error_line(index: RepoIndex, text: str) -> int:
    tree = index._parser.parse(text.encode("utf-8"))
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            return node.start_point[0] + 1
        stack.extend(reversed(node.children))
    return 0


