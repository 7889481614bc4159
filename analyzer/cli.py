"""The `txscan` command line (typer)."""

from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path

import typer

from . import __version__, process

# Modules a command needs are imported inside it (the store and sqlite3, the configuration,
# rich for tables, libcst and the front ends for scans, jinja2/matplotlib for reports):
# `txscan --version`, `--help` and a JSON scan do not pay for what they do not use
# (tests/test_startup.py).

def _options_without_pydantic() -> None:
    """Convert the values of path, string, flag and enum options without pydantic.

    typer 0.2x converts each option of the command it runs with a pydantic TypeAdapter, built on
    every run: importing pydantic and building the adapters is 0.1 s of CPU, a tenth of a scan of
    a 17k-line project (and of a lint, whose rule lists and paths are lists of these). These
    options need typer's own checks only (choices, path checks), which are plain functions of
    typer, applied to each item of a list; other annotations (numbers) keep typer's conversion.
    Messages are the ones typer gives. A typer without this machinery is left as it is."""
    try:
        from typer import _coercion, core
        from typer._click.exceptions import BadParameter
        from typer._param_types import coerce_cli_choice, coerce_cli_path
    except ImportError:
        return
    if not hasattr(core, "build_runtime_param") or not hasattr(_coercion, "RuntimeParam"):
        return
    typer_build = core.build_runtime_param

    class PlainRuntimeParam(_coercion.RuntimeParam):
        def _coerce_value(self, value, param, ctx):
            info = self.parameter_info
            if isinstance(self.annotation, type) and issubclass(self.annotation, Enum):
                try:
                    return coerce_cli_choice(value, choices=list(self.annotation), case_sensitive=info.case_sensitive,
                                             ctx=ctx)
                except ValueError as exc:
                    raise BadParameter(f"Value error, {exc}", ctx=ctx, param=param) from exc
            if self.annotation is Path and isinstance(value, str):
                return coerce_cli_path(Path(value), info, path_type=Path, param=param, ctx=ctx)
            if (self.annotation is str and isinstance(value, str)) or (self.annotation is bool and isinstance(value, bool)):
                return value
            item = _list_item(self.annotation)
            if item is not None and isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
                # typer gives a list (click collects a tuple); each path is checked as a single one is
                return [v if item is str else coerce_cli_path(Path(v), info, path_type=Path, param=param, ctx=ctx)
                        for v in value]
            return typer_build(_coercion.TypeDescriptor(self.annotation, info, None))._coerce_value(value, param, ctx)

    PlainRuntimeParam.__abstractmethods__ = frozenset()

    def build_runtime_param(descriptor):
        annotation, info = descriptor.annotation, descriptor.parameter_info
        plain = annotation in (str, bool, Path) or (isinstance(annotation, type) and issubclass(annotation, Enum)) \
            or _list_item(annotation) is not None
        if plain and descriptor.file_annotation is None and getattr(info, "parser", None) is None \
                and getattr(info, "click_type", None) is None:
            return PlainRuntimeParam(parameter_info=info, annotation=annotation)
        return typer_build(descriptor)

    core.build_runtime_param = build_runtime_param


def _list_item(annotation) -> type | None:
    """str or Path for an option annotated `list[str]` or `list[Path]` (typer drops `| None`), else None."""
    if getattr(annotation, "__origin__", None) is list and getattr(annotation, "__args__", ()) in ((str,), (Path,)):
        return annotation.__args__[0]
    return None


_options_without_pydantic()

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="Static analysis of database transactions in Django and TypeORM applications.")
USAGE_ERROR = 2
# Set by commands that leave a large heap behind (scan, lint): their process ends without the
# interpreter freeing it object by object (analyzer/process.py).
_leave_at_once = False


class Format(str, Enum):
    table = "table"
    json = "json"


class CdaMode(str, Enum):
    pk = "pk"
    auto = "auto"


class Frontend(str, Enum):
    django = "django"
    typeorm = "typeorm"


def _fail(message: str) -> None:
    # Plain text: error messages must not be wrapped or styled (scripts grep them).
    print(f"txscan: error: {message}", file=sys.stderr)
    raise typer.Exit(USAGE_ERROR)


def _check_output_file(path: Path, option: str) -> None:
    """An output file must be a file (or not exist yet) in a folder that exists and is writable."""
    if path.is_dir():
        _fail(f"{option} {path} is a folder; give a file name")
    if path.exists() and not os.access(path, os.W_OK):
        _fail(f"{option} {path} is not writable")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        _fail(f"{option} {path}: folder {parent} does not exist")
    if not path.exists() and not os.access(parent, os.W_OK | os.X_OK):
        _fail(f"{option} {path}: folder {parent} is not writable")


def _version(value: bool) -> None:
    if value:
        print(f"txscan {__version__}")
        raise typer.Exit(0)


@app.callback()
def main_callback(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                               help="Print the version and exit.")) -> None:
    pass


@app.command()
def scan(
    path: Path = typer.Argument(..., help="The application's root folder."),
    format: Format = typer.Option(Format.table, "--format", "-f", help="table (readable) or json (the contract)."),
    db: Path | None = typer.Option(None, "--db", help="SQLite store to write (default PATH/.txscan/txscan.db)."),
    cda: CdaMode | None = typer.Option(None, "--cda", help="Conflict detection attribute mode (default pk)."),
    frontend: Frontend | None = typer.Option(None, "--frontend", help="Force a front end (default: detect)."),
    ir_out: Path | None = typer.Option(None, "--ir", help="Also write the IR (JSON lines) to this file."),
    config_file: Path | None = typer.Option(None, "--config", help="pyproject.toml with [tool.txscan]."),
    no_db: bool = typer.Option(False, "--no-db", help="Do not write a store."),
    no_autocommit: bool = typer.Option(False, "--no-autocommit",
                                       help="Report explicit transactions only, not the statements outside them."),
    cache_dir: Path | None = typer.Option(None, "--cache-dir", help="Folder of the warm cache "
                                          "(default PATH/.txscan/cache; none when PATH is read-only)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the warm cache."),
) -> None:
    """Find, follow and classify every transaction of one application."""
    global _leave_at_once
    from . import config as config_mod
    from .cache import ScanCache, location
    from .output import json_contract
    from .scan import app_row
    from .scan import scan as run_scan
    from .typeorm.bridge import FrontendUnavailable

    if not path.exists():
        _fail(f"{path} does not exist")
    if not path.is_dir():
        _fail(f"{path} is not a folder")
    try:
        next(path.iterdir(), None)
    except OSError as exc:
        _fail(f"cannot read {path}: {exc.strerror}")
    try:
        config = config_mod.load(path, config_file)
    except config_mod.ConfigError as exc:
        _fail(str(exc))
    mode = cda.value if cda else config.cda
    if ir_out is not None:
        _check_output_file(ir_out, "--ir")
    db_path = None if no_db else (db or (path / ".txscan" / "txscan.db"))
    connection = None
    if db_path is not None:
        from . import store

        # Opened (and refused if not a txscan store) before the scan, not after minutes of work.
        try:
            connection = store.connect(db_path)
        except store.StoreError as exc:
            _fail(f"cannot write the store: {exc}")
    if no_cache and cache_dir is not None:
        _fail("--cache-dir and --no-cache exclude each other")
    try:
        folder = None if no_cache else (location.explicit_cache(cache_dir) if cache_dir is not None
                                        else location.project_cache(path))
    except location.CacheDirError as exc:
        _fail(str(exc))
    _leave_at_once = True
    if _owns_process():
        process.one_large_job()
    try:
        result = run_scan(path, config, frontend.value if frontend else None,
                          cache=ScanCache(folder) if folder is not None else None,
                          autocommit=not no_autocommit)
    except FrontendUnavailable as exc:
        _fail(str(exc))
    analysis = result.analyses[mode]
    if connection is not None:
        try:
            store.write_app(connection, app_row(path.resolve().name, result, config), result.files,
                            result.ir_text, result.analyses, result.seconds)
            connection.close()
        except store.StoreError as exc:
            _fail(f"cannot write the store: {exc}")
    if ir_out is not None:
        try:
            ir_out.write_text(result.ir_text, encoding="utf-8")
        except OSError as exc:
            _fail(f"cannot write --ir {ir_out}: {exc.strerror or exc}")
    if format is Format.json:
        doc = json_contract.document(analysis, path.resolve().name, result.lines, len(result.files))
        sys.stdout.write(json_contract.dumps(doc))
    else:
        from rich.console import Console

        from .output import terminal

        terminal.render(analysis, str(path), result.lines, Console(), str(db_path) if db_path else None)


@app.command()
def lint(
    paths: list[Path] = typer.Argument(None, help="Files or folders (default: the current folder); the whole "
                                       "project holding them is analysed, findings are reported for them."),
    output_format: str = typer.Option("concise", "--format", "-f",
                                      help="concise, full, json, sarif or github."),
    select: list[str] | None = typer.Option(None, "--select", help="Rule codes or prefixes to run (replaces the default set)."),
    extend_select: list[str] | None = typer.Option(None, "--extend-select", help="Rule codes or prefixes to add."),
    ignore: list[str] | None = typer.Option(None, "--ignore", help="Rule codes or prefixes to leave out."),
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even when there are findings."),
    config_file: Path | None = typer.Option(None, "--config", help="Settings file ([tool.txscan.lint] or txscan.toml)."),
    baseline: Path | None = typer.Option(None, "--baseline", help="Do not report the findings recorded in this file."),
    write_baseline: Path | None = typer.Option(None, "--write-baseline", help="Record the current findings here and exit 0."),
    frontend: Frontend | None = typer.Option(None, "--frontend", help="Force a front end (default: detect)."),
    fix: bool = typer.Option(False, "--fix", help="Apply the verified fixes, then report what is left."),
    diff: bool = typer.Option(False, "--diff", help="Show the verified fixes as a unified diff; write nothing."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the warm cache "
                                  "(default: the project's .txscan/cache)."),
) -> None:
    """Report transaction bugs with rule codes (exit 0 clean, 1 findings, 2 errors); see docs/rules/."""
    global _leave_at_once
    from .lint import command
    from .lint.formats import FORMATS

    if output_format not in FORMATS:
        _fail(f"--format must be one of {', '.join(FORMATS)}, not {output_format!r}")
    _leave_at_once = True
    if _owns_process():
        process.one_large_job()
    raise typer.Exit(command.main(paths or [], output_format, select, extend_select, ignore, exit_zero, config_file,
                                  baseline, write_baseline, frontend.value if frontend else None, fix, diff,
                                  cache=not no_cache))


@app.command()
def survey(
    manifest: Path = typer.Argument(..., help="Corpus manifest (TOML) listing the applications."),
    checkouts: Path = typer.Option(..., "--checkouts", help="Folder holding one checkout per application."),
    db: Path = typer.Option(..., "--db", help="SQLite store to fill (created if missing; re-runs resume)."),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Applications scanned at once on this machine."),
    config_file: Path | None = typer.Option(None, "--config", help="pyproject.toml with [tool.txscan]."),
    timeout: float = typer.Option(1800.0, "--timeout", min=0,
                                  help="Wall-time limit per application in seconds (0: none)."),
    memory: int = typer.Option(4096, "--memory", min=0,
                               help="Memory limit per application process in MiB (RLIMIT_DATA; 0: none)."),
    scheduler: str | None = typer.Option(None, "--scheduler",
                                            help="Run on a Dask cluster: the scheduler's tcp://HOST:PORT."),
) -> None:
    """Scan every application of a manifest into one store (isolated, incremental, resumable, parallel).

    Exit status: 0 when every application is stored; 1 when any failed or has no checkout (the
    others are stored); 2 for a usage error; 128+N when stopped by signal N (re-run to resume).
    """
    from . import config as config_mod, store
    from .survey import manifest as manifest_mod, runner
    from .survey.distributed import DaskUnavailable
    from .survey.isolate import Limits

    try:
        apps = manifest_mod.load(manifest)
    except manifest_mod.ManifestError as exc:
        _fail(str(exc))
    if not checkouts.is_dir():
        _fail(f"{checkouts} is not a folder")
    try:
        config = config_mod.load(Path("."), config_file) if config_file else config_mod.Config()
        outcomes = runner.run(apps, checkouts, db, config, jobs, limits=Limits(timeout, memory), scheduler=scheduler)
    except (config_mod.ConfigError, store.StoreError, DaskUnavailable) as exc:
        _fail(str(exc))
    except runner.Interrupted as exc:
        print(f"survey: stopped by {exc}; the store {db} holds every application finished so far, "
              "re-run the same command to resume", file=sys.stderr)
        raise typer.Exit(128 + exc.signum)
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counts[outcome.status] = counts.get(outcome.status, 0) + 1
    print("survey: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + f"; store {db}")
    unfinished = [o for o in outcomes if o.status in ("failed", "missing")]
    for outcome in unfinished:
        print(f"survey: {outcome.name}: {outcome.status}: {outcome.summary}", file=sys.stderr)
    if unfinished:
        raise typer.Exit(1)


@app.command()
def report(
    db: Path = typer.Argument(..., help="A store written by scan or survey."),
    out: Path = typer.Option(..., "--out", help="Folder to write the report into."),
) -> None:
    """Write the HTML report (with figures), a Markdown summary and CSV/JSON metrics."""
    import sqlite3

    from . import store

    try:
        from .report import render
    except ImportError as exc:  # the `report` extra is not installed
        _fail(str(exc))

    if not db.exists():
        _fail(f"{db} does not exist")
    if out.exists() and not out.is_dir():
        _fail(f"--out {out} is a file, not a folder")
    try:
        written = render.write(db, out)
    except store.StoreError as exc:
        _fail(str(exc))
    except sqlite3.Error as exc:
        _fail(f"cannot read the store {db}: {exc}")
    except OSError as exc:
        _fail(f"cannot write the report into {out}: {exc.strerror or exc}" + (f" ({exc.filename})" if exc.filename else ""))
    print(f"report: {len(written)} files in {out} (open {out / 'index.html'})")


@app.command()
def merge(
    target: Path = typer.Argument(..., help="Store to merge into (created if missing)."),
    sources: list[Path] = typer.Argument(..., help="Stores to copy applications from."),
) -> None:
    """Combine stores scanned on different machines into one."""
    import sqlite3

    from . import store

    for source in sources:
        if not source.exists():
            _fail(f"{source} does not exist")
        try:
            store.open_reader(source).close()
        except store.StoreError as exc:
            _fail(str(exc))
        if target.exists() and source.resolve() == target.resolve():
            _fail(f"{source} is the target store itself")
    try:
        connection = store.connect(target)
        for source in sources:
            names = store.merge(connection, source)
            print(f"merge: {len(names)} applications from {source}")
        connection.close()
    except store.StoreError as exc:
        _fail(str(exc))
    except sqlite3.Error as exc:
        _fail(f"merge failed: {exc}")


DEBUG_VARIABLE = "TXSCAN_DEBUG"


def _owns_process() -> bool:
    """Whether this process is the `txscan` program (the console script or `python -m
    analyzer.cli`), not a host that called main() (a test runner): only then may it end at once."""
    program = sys.modules.get("__main__")
    spec = getattr(program, "__spec__", None)
    if spec is not None:
        return spec.name == "analyzer.cli"
    return Path(getattr(program, "__file__", None) or "").name == "txscan"


def main() -> None:
    """Run a command; any internal error is one line and exit 2 (the traceback with TXSCAN_DEBUG=1)."""
    try:
        try:
            app()  # usage errors are handled by typer itself: its message and exit 2
        except SystemExit as exc:
            if _leave_at_once and _owns_process() and (exc.code is None or isinstance(exc.code, int)):
                process.leave(exc.code or 0)
            raise
    except KeyboardInterrupt:
        print("txscan: interrupted", file=sys.stderr)
        sys.exit(USAGE_ERROR)
    except BrokenPipeError:
        # The reader of stdout went away (`| head`): nothing more can be said there.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print("txscan: error: standard output was closed before the output was written", file=sys.stderr)
        sys.exit(USAGE_ERROR)
    except Exception as exc:  # noqa: BLE001 - the last line of defence: errors are data, not tracebacks
        if os.environ.get(DEBUG_VARIABLE):
            import traceback

            traceback.print_exc()
        detail = str(exc).splitlines()[0] if str(exc) else ""
        print(f"txscan: internal error: {type(exc).__name__}: {detail} "
              f"(set {DEBUG_VARIABLE}=1 to see the traceback)", file=sys.stderr)
        sys.exit(USAGE_ERROR)


if __name__ == "__main__":
    main()
