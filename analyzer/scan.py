"""One application end to end: front end -> IR -> core (both CDA modes) -> store."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import __version__, forked, ir, timing
from .process import acyclic_phase, large_heap_pace, short_lived
from .cache import ScanCache, default_for
from .config import Config
from .django.files import display_path, glob_matcher, read_bytes

TYPE_CHECKING = False  # (typing itself is imported later, past the scan's first fork, by what needs it)
if TYPE_CHECKING:
    from .typeorm import bridge

CDA_MODES = ("pk", "auto")


@dataclass
class ScanResult:
    root: Path
    frontend: str
    records: list[dict]
    analyses: dict[str, dict]
    files: list[dict] = field(default_factory=list)
    lines: int = 0
    seconds: float = 0.0
    rewrites: list = field(default_factory=list)  # analyzer.rewrite candidates, verified during the scan
    cache: ScanCache | None = None  # what this scan found, for re-analysis of rewritten copies
    walked: list[str] | None = None  # transactions walked by this scan (the others reused); None: no cache
    ir_written: str | None = field(default=None, repr=False)  # ir.dumps(records), kept from the round trip
    record_digests: dict | None = field(default=None, repr=False)  # id(record) -> (record, digest of its IR line)
    context: object = field(default=None, repr=False)  # Django: the front end's Context, shared with re-analysis of rewrites
    outlines_ahead: object = field(default=None, repr=False)  # Django: rewrite.outline_ahead.OutlinesAhead, taken by the rewrites
    # TypeScript: the scan's ts-plugin process (typeorm.bridge.Run), re-analysing rewritten files
    # and answering the rewrites' syntax questions until the scan ends; None: a rewrite is
    # re-analysed in a scan of an edited copy (and rewrite-check.js answers)
    served: object = field(default=None, repr=False)

    @property
    def ir_text(self) -> str:
        if self.ir_written is None:
            self.ir_written = ir.dumps(self.records)
        return self.ir_written


def detect_frontend(root: Path) -> str:
    """Django when the tree looks like a Django project, TypeORM when it uses TypeORM.

    Many Django projects carry a package.json for front-end tooling, and TypeScript back
    ends carry Python scripts, so neither file alone decides: Django markers (manage.py,
    a settings module, `django` imports) are looked for first, then `typeorm` in a
    package.json, then which language has more source files.
    """
    counts = {"py": 0, "ts": 0}
    typeorm = False
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS and not d.startswith(".")]
        depth = len(Path(dirpath).relative_to(root).parts)
        for name in filenames:
            if name == "manage.py" and depth <= 3:
                return "django"
            if name.endswith(".py"):
                counts["py"] += 1
            elif name.endswith((".ts", ".tsx")) and not name.endswith(".d.ts"):
                counts["ts"] += 1
            elif name == "package.json" and depth <= 3 and not typeorm:
                content = read_bytes(Path(dirpath) / name, _PACKAGE_JSON_BYTES)
                typeorm = not isinstance(content, tuple) and b'"typeorm"' in content
    if typeorm or counts["ts"] > counts["py"]:
        return "typeorm"
    return "django"


_PACKAGE_JSON_BYTES = 1_000_000
_SKIP_DIRS = {"node_modules", "dist", "build", "venv", ".venv", "site-packages", "__pycache__"}
_TS_SUFFIXES = (".ts", ".tsx", ".mts", ".cts")
# ts-plugin's default scope (ts-plugin/src/scope.ts, docs/SCOPE.md): tests, migrations, seeds and
# build output are not part of the application's files.
_TS_DEFAULT_SKIP_DIRS = ("__tests__", "__mocks__", "__fixtures__", "test", "tests", "e2e", "migration", "migrations", "seed",
                         "seeds", "seeder", "seeders", "out", "coverage")
_TS_DEFAULT_SKIP_FILES = ("*.spec.ts", "*.test.ts", "*.e2e-spec.ts", "*.e2e.ts", "*.spec.tsx", "*.test.tsx", "*.seed.ts",
                          "*.seeder.ts")
_TS_COMPILED = (".js", ".cjs", ".mjs", ".d.ts", ".js.map")


def _typescript_files(root: Path, config: Config) -> list[dict]:
    """The TypeScript sources of a scan with their line counts (for the store and reports).

    The same file set as ts-plugin's (excludes, regular files only, size limit); what cannot be
    read keeps the diagnostic code as its status.
    """
    files = []
    excluded = tuple(_SKIP_DIRS) + _TS_DEFAULT_SKIP_DIRS + _TS_DEFAULT_SKIP_FILES + tuple(config.exclude)
    # one expression for every pattern: asked of every name, one fnmatch call per pattern took
    # 0.1 CPU s on vendure's core
    skipped = glob_matcher(excluded)

    def compiled_lib(folder: Path) -> bool:
        try:
            names = os.listdir(folder)
        except OSError:
            return False
        return any(n.endswith(_TS_COMPILED) for n in names) and not any(
            n.endswith(_TS_SUFFIXES) and not n.endswith(".d.ts") for n in names)

    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not skipped(d) and not d.startswith(".")
                             and not (d == "lib" and compiled_lib(Path(dirpath) / d)))
        for name in sorted(filenames):
            if name.endswith(_TS_SUFFIXES) and not name.endswith(".d.ts") and not skipped(name):
                path = Path(dirpath) / name
                content = read_bytes(path, config.max_file_bytes)
                if not isinstance(content, tuple) and _MIGRATION.search(content):
                    continue
                status, count = (content[0], 0) if isinstance(content, tuple) else ("ok", _line_count(content))
                files.append({"path": display_path(path, root), "lines": count, "status": status})
    return files


_MIGRATION = re.compile(rb"\bimplements\s+(?:[\w$]+\.)?MigrationInterface\b")


def _line_count(content: bytes) -> int:
    return content.count(b"\n") + (1 if content and not content.endswith(b"\n") else 0)


# How deep calls into the application are followed when the project does not say: no bound
# (None) for both front ends; `depth = N` in [tool.txscan] sets one. The Django walk stays
# bounded in what it keeps rather than in depth: a helper's walk is a summary per calling context
# (django/summaries.py), a call that would give an earlier call's steps again in the same
# transaction is one `repeat` step (also where the helper read foreign keys that the later call
# finds cached), and the core gives per-scope control dependencies (core/graph.py). Saleor
# unbounded: no depth-limit site, 0.70 GB peak, about the CPU of its former depth-6 scan (the
# call budget, walker.CALL_BUDGET, is the remaining safety net). The TypeScript walk replays
# helpers walked before in the same context (ts-plugin/src/walk-memo.ts) and is bounded only by
# recursion and its node budget.
DEFAULT_DEPTH: dict[str, int | None] = {"django": None, "typeorm": None}


def effective_depth(config: Config, frontend: str) -> int | None:
    return config.depth or DEFAULT_DEPTH.get(frontend, DEFAULT_DEPTH["django"])


def django_options(config: Config, autocommit: bool = True):
    """The Django front end's options for a scan with `config` (re-analysis of rewrites too)."""
    from .django import frontend as django_frontend

    return django_frontend.Options(
        excludes=django_frontend.DEFAULT_EXCLUDES + tuple(config.exclude),
        max_file_bytes=config.max_file_bytes, max_depth=effective_depth(config, "django"),
        extra_effects=config.extra_effects, extra_statements=config.extra_statements, autocommit=autocommit)


class _TypeScriptRecords:
    """ts-plugin's records for one scan, asked for when the scan starts and taken when needed:
    node runs while this process prepares its own work (imports, the list of files)."""

    def __init__(self, run: bridge.Run | None = None, done: list[dict] | None = None,
                 finish: Callable[[list[dict]], list[str] | None] = lambda records: None, kept: bool = False) -> None:
        self._run, self._done, self._finish, self._kept = run, done, finish, kept
        #: the records were decoded from ts-plugin's output by this scan and are held nowhere
        #: else, their keys in the order a JSON round trip in Python gives (analyzer/typeorm/bridge.py)
        self.as_round_tripped = False

    def served(self) -> bridge.Run | None:
        """The process, when it answers requests after its records (bridge.start(serve=True))."""
        return self._run if self._run is not None and self._run.serving else None

    def take(self) -> tuple[list[dict], list[str] | None]:
        """The records, and the transactions ts-plugin walked (None: no cache)."""
        if self._run is None:
            return self._done, []
        records = self._run.records()
        self.as_round_tripped = self._run.keys_in_python_order and not self._kept
        return records, self._finish(records)

    def finish(self) -> None:
        """Wait for ts-plugin's end, its warm cache file written (after the records were taken)."""
        if self._run is not None:
            self._run.finish()

    def stop(self) -> None:
        if self._run is not None:
            self._run.stop()


def _typescript_records(root: Path, config: Config, cache: ScanCache | None, autocommit: bool,
                        walk_files: list[str] | None = None, serve: bool = False) -> _TypeScriptRecords:
    """ts-plugin's records, started now (`take` them), and the transactions it walked (None: no
    cache). With a cache in a folder, ts-plugin reuses what did not change
    (analyzer/cache/typescript.py); with one in memory, the records are reused when no file it
    reads and no setting changed. `serve`: the process goes on to answer the rewrites'
    re-analyses and syntax questions (the scan verifies rewrites) until the scan ends."""
    from .cache import typescript as warm
    from .typeorm import bridge

    settings = dict(depth=effective_depth(config, "typeorm"), max_file_bytes=config.max_file_bytes, exclude=config.exclude,
                    effects=config.extra_effects, statements=config.extra_statements)
    if not autocommit:  # only then: the settings (and the cache digest) of a default scan stay as they were
        settings["autocommit"] = False
    if walk_files is not None:  # only the transactions of these files are walked (ts-plugin/src/scan.ts)
        settings["walkFiles"] = sorted(walk_files)
    if cache is None:
        return _TypeScriptRecords(bridge.start(root, serve=serve, **settings))
    if cache.folder is not None and not cache.frozen and walk_files is None:
        # one cache for scans with and without autocommit transactions (`txscan lint`): ts-plugin keeps both outputs
        shared = {k: v for k, v in settings.items() if k != "autocommit"}
        run = warm.WarmRun(cache.folder, bridge.settings_argument(**shared), bridge.plugin_path())
        return _TypeScriptRecords(bridge.start(root, arguments=run.arguments, serve=serve, **settings),
                                  finish=lambda records: run.walked())
    digest = warm.project_digest(root, bridge.settings_argument(**settings), bridge.plugin_path())
    kept = cache.tables("typeorm")
    if kept.get("digest") == digest and isinstance(kept.get("records"), list):
        return _TypeScriptRecords(done=kept["records"])

    def keep(records: list[dict]) -> None:
        cache.keep("typeorm", {"digest": digest, "records": records})

    return _TypeScriptRecords(bridge.start(root, serve=serve, **settings), finish=keep, kept=True)


def scan(root: Path, config: Config = Config(), frontend: str | None = None, rewrites: bool = True,
         cache: ScanCache | None = None, autocommit: bool = True, walk_files: list[str] | None = None,
         cda_modes: tuple[str, ...] = CDA_MODES, excerpts: bool = True) -> ScanResult:
    """Scan one application. `cache` holds an earlier scan's work (analyzer/cache); without
    one, the work of this scan is still kept in memory when rewrites are verified, so that the
    re-analysis of the rewritten project walks only the transactions the rewrites reach.
    `walk_files` (TypeScript): only the explicit transactions found in these files are walked.
    `cda_modes`: the CDA modes whose verdicts are worked out (`analyses` has these keys only);
    `txscan lint` reads one, and no `excerpts` (the first lines of each transaction's code, for
    stores and reports)."""
    if cache is None:
        cache = default_for(root)
    if cache is None and rewrites:
        cache = ScanCache()
    ending: list[Callable[[], None]] = []  # what the scan waits for before it returns
    with large_heap_pace():
        try:
            return _scan(root, config, frontend, rewrites, cache, autocommit, walk_files, cda_modes, excerpts, ending)
        finally:
            try:
                for end in ending:
                    end()
            finally:
                try:
                    if cache is not None:
                        cache.settle()  # the warm cache's file, written in the background (cache/__init__.py)
                finally:
                    forked.reap_stopped()  # helpers killed when their phase ended (django/autocommit_parallel.py)


def _scan(root: Path, config: Config, frontend: str | None, rewrites: bool, cache: ScanCache | None,
          autocommit: bool, walk_files: list[str] | None, cda_modes: tuple[str, ...], excerpts: bool,
          ending: list[Callable[[], None]]) -> ScanResult:
    started = time.perf_counter()
    with timing.phase("detect"):
        frontend = frontend or detect_frontend(root)
    walked = context = outlines_ahead = served = None
    known_lines = read_lines = None  # id(record) -> (record, its IR line), of records the warm cache held as lines
    round_tripped = False  # the records are those a JSON round trip of their IR text would give back
    if frontend == "typeorm":
        with timing.phase("typescript"):
            pending = _typescript_records(root, config, cache, autocommit, walk_files, serve=rewrites)
        try:
            # node runs from here on: this process prepares its own part meanwhile, on the other core
            with timing.phase("imports"):
                from .core import Settings, analyze
                if rewrites:
                    from .rewrite import attach as _  # noqa: F401 (imported now, used after the core)
            files = _typescript_files(root, config)
            with timing.phase("typescript"):
                records, walked = pending.take()
        except BaseException:
            pending.stop()
            raise
        # node writes its warm cache file after the IR: the scan goes on meanwhile, and waits for it at its end
        ending.append(pending.finish)
        served = pending.served()
        round_tripped = pending.as_round_tripped
        lines = sum(f["lines"] for f in files)
    else:
        with timing.phase("imports"):
            from .core import Settings, analyze
            from .cache.django import DjangoReuse
            from .django import frontend as django_frontend

        options = django_options(config, autocommit)
        reuse = DjangoReuse(cache.tables("django")) if cache is not None else None
        ahead = _OutlinesAhead(root, ending, reuse) if rewrites else None
        result = django_frontend.scan(root, options, reuse, walked=ahead.start if ahead is not None else None)
        outlines_ahead = ahead.started if ahead is not None else None
        if reuse is not None:
            with timing.phase("cache"):
                cache.keep_in_background("django", reuse.written)  # written while the scan goes on
        records, files, lines = result.records, result.files, result.lines
        walked = reuse.walked if reuse is not None else None
        known_lines, read_lines = reuse.take_lines() if reuse is not None else (None, None)
        context = reuse.context if reuse is not None else None  # shared with rewrites' re-analysis
    # The same input gives the same IR wherever it is checked out: the root is named, not located.
    for record in records:
        if record["type"] == "meta":
            record["root"] = root.resolve().name
    # The IR is the contract: round-trip it so the core sees exactly what is stored (and keep
    # the text: it is what the store and --ir write).
    # The IR's round trip and the core make no reference cycles: no collector passes there, and
    # what is alive as they start (the front end's index and context, kept for the cache and
    # the rewrites) is frozen (process.py).
    with timing.phase("ir"), acyclic_phase():
        ir_text = ir.dumps(records, known_lines)
        if round_tripped:
            # decoded from ts-plugin's JSON by this scan, held nowhere else and with their keys in
            # sorted order: decoding the text again would give them back equal (vendure's core:
            # 11 MB of IR, about 0.1 CPU s), in the text's order
            records = sorted(records, key=ir.sort_key)
        else:
            records = result = None  # the front end's copy is not needed past here (peak memory)
            records = list(ir.loads(ir_text, read_lines))  # a record decoded from its line is that line's record
        known_lines = read_lines = None
    with timing.phase("core"):
        with acyclic_phase():
            shared: dict = {}  # what both CDA modes share (core/classify.py)
            core_reuse = _core_reuse(cache, ir_text, records, frontend)
            analyses = {mode: analyze(records, Settings(mode, config.cda_entities), shared, core_reuse)
                        for mode in cda_modes}
            del shared
        # kept before excerpts and rewrites are added to the verdicts; only by a full scan, whose
        # verdicts are those of every mode (a lint's leave the file as the last scan wrote it)
        if core_reuse is not None and autocommit and cda_modes == CDA_MODES:
            cache.keep_in_background("core", core_reuse.written, redo=False)
        if excerpts:
            add_excerpts(root, analyses, config.max_file_bytes)
    result = ScanResult(root, frontend, records, analyses, files, lines, time.perf_counter() - started, cache=cache,
                        walked=walked, ir_written=ir_text, record_digests=core_reuse.by_record if core_reuse is not None else None,
                        context=context, outlines_ahead=outlines_ahead, served=served)
    if rewrites:
        # Code is shown only for rewrites that re-analysis of the rewritten project confirmed.
        with timing.phase("imports"):
            attach = import_rewrites(frontend)

        with timing.phase("rewrites"), timing.muted(), short_lived():
            attach(result, config)
        result.context = result.served = None  # (the caller keeps the result, not the front end's work)
        result.seconds = time.perf_counter() - started
    return result


class _OutlinesAhead:
    """Django: the rewrites' outlines worked out on the other core once the walks end
    (rewrite/outline_ahead.py). Nothing of the rewrites is imported before then: the process
    indexing ahead is forked after the scan's imports."""

    def __init__(self, root: Path, ending: list[Callable[[], None]], reuse) -> None:
        self._root = root
        self._ending = ending
        self._reuse = reuse  # (DjangoReuse) which transactions this scan walked
        self.started = None  # the OutlinesAhead, once the walks have ended

    def start(self, transactions: list[dict]) -> None:
        with timing.phase("imports"):
            import_rewrites("django")  # (with the generated code table; not again when the rewrites start)
        from .rewrite.outline_ahead import OutlinesAhead

        if self._reuse is not None:
            # a transaction the warm cache gave back has its rewrites' plans kept there too
            # (cache/rewrites.py): nothing of it is outlined
            walked = set(self._reuse.walked)
            transactions = [txn for txn in transactions if txn["id"] in walked]
        self.started = OutlinesAhead(self._root)
        self._ending.append(self.started.stop)
        self.started.start(transactions)


def import_rewrites(frontend: str):
    """rewrite.attach, with the builders of `frontend`'s rewrites imported: their dataclasses'
    generated methods come from the generated code table (generated_code.py), as the front end's
    do (healthchecks: 51 methods, about 4 ms of its rewrites phase)."""
    from .generated_code import dataclasses_compiled_ahead

    with dataclasses_compiled_ahead():
        from .rewrite.attach import attach
        from .rewrite.plan import import_builders

        import_builders(frontend)
    return attach


def _core_reuse(cache: ScanCache | None, ir_text: str, records: list[dict], frontend: str):
    """The core's verdicts kept by IR line (core/reuse.py). A scan without autocommit
    transactions (`txscan lint`) reads them but leaves the cache as the last full scan wrote it."""
    if cache is None or cache.folder is None:
        return None
    from .core.reuse import CoreReuse

    return CoreReuse(cache.tables("core"), ir_text, records, frontend)


EXCERPT_LINES = 14


def add_excerpts(root: Path, analyses: dict[str, dict], max_bytes: int = Config().max_file_bytes) -> None:
    """Attach the first lines of each transaction's code, for reports that outlive the checkout."""
    cache: dict[str, list[str]] = {}
    for analysis in analyses.values():
        for txn in analysis["transactions"]:
            if txn["file"] not in cache:
                content = read_bytes(root / txn["file"], max_bytes)
                cache[txn["file"]] = [] if isinstance(content, tuple) else \
                    content.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n").split("\n")
            lines = cache[txn["file"]]
            end = min(txn.get("end_line") or txn["line"], txn["line"] + EXCERPT_LINES - 1)
            txn["excerpt"] = "\n".join(lines[txn["line"] - 1:end])


def app_row(name: str, result: ScanResult, config: Config, extra: dict | None = None) -> dict:
    return {
        "name": name, "root": str(result.root), "frontend": result.frontend, "tool_version": __version__,
        "settings": {"cda_entities": config.cda_entities, "exclude": config.exclude,
                     "depth": effective_depth(config, result.frontend)},
        **(extra or {}),
    }
