"""One application end to end: front end -> IR -> core (both CDA modes) -> store."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import __version__, ir, timing
from .config import Config
from .core import Settings, analyze
from .django import frontend as django_frontend
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

    @property
    def ir_text(self) -> str:
        return ir.dumps(self.records)


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
                try:
                    typeorm = '"typeorm"' in (Path(dirpath) / name).read_text("utf-8", "replace")
                except OSError:
                    pass
    if typeorm or counts["ts"] > counts["py"]:
        return "typeorm"
    return "django"


_SKIP_DIRS = {"node_modules", "dist", "build", "venv", ".venv", "site-packages", "__pycache__"}
_TS_SUFFIXES = (".ts", ".tsx", ".mts", ".cts")


def _typescript_files(root: Path, config: Config) -> list[dict]:
    """The TypeScript sources of a scan with their line counts (for the store and reports)."""
    files = []
    skipped = _SKIP_DIRS | set(config.exclude)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in skipped and not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(_TS_SUFFIXES) and not name.endswith(".d.ts"):
                path = Path(dirpath) / name
                try:
                    with path.open("rb") as handle:
                        count = sum(1 for _ in handle)
                except OSError:
                    continue
                files.append({"path": path.relative_to(root).as_posix(), "lines": count, "status": "ok"})
    return files


def scan(root: Path, config: Config = Config(), frontend: str | None = None) -> ScanResult:
    started = time.perf_counter()
    frontend = frontend or detect_frontend(root)
    if frontend == "typeorm":
        with timing.phase("typescript"):
            records = bridge.run(root, depth=config.depth)
        files = _typescript_files(root, config)
        lines = sum(f["lines"] for f in files)
    else:
        options = django_frontend.Options(
            excludes=django_frontend.DEFAULT_EXCLUDES + tuple(config.exclude),
            max_file_bytes=config.max_file_bytes, max_depth=config.depth)
        result = django_frontend.scan(root, options)
        records, files, lines = result.records, result.files, result.lines
    # The same input gives the same IR wherever it is checked out: the root is named, not located.
    for record in records:
        if record["type"] == "meta":
            record["root"] = root.resolve().name
    # The IR is the contract: round-trip it so the core sees exactly what is stored.
    records = list(ir.loads(ir.dumps(records)))
    with timing.phase("core"):
        analyses = {mode: analyze(records, Settings(mode, config.cda_entities)) for mode in CDA_MODES}
        add_excerpts(root, analyses)
    return ScanResult(root, frontend, records, analyses, files, lines, time.perf_counter() - started)


EXCERPT_LINES = 14


def add_excerpts(root: Path, analyses: dict[str, dict]) -> None:
    """Attach the first lines of each transaction's code, for reports that outlive the checkout."""
    cache: dict[str, list[str]] = {}
    for analysis in analyses.values():
        for txn in analysis["transactions"]:
            if txn["file"] not in cache:
                try:
                    cache[txn["file"]] = (root / txn["file"]).read_text("utf-8", "replace").splitlines()
                except OSError:
                    cache[txn["file"]] = []
            lines = cache[txn["file"]]
            end = min(txn.get("end_line") or txn["line"], txn["line"] + EXCERPT_LINES - 1)
            txn["excerpt"] = "\n".join(lines[txn["line"] - 1:end])


def app_row(name: str, result: ScanResult, config: Config, extra: dict | None = None) -> dict:
    return {
        "name": name, "root": str(result.root), "frontend": result.frontend, "tool_version": __version__,
        "settings": {"cda_entities": config.cda_entities, "exclude": config.exclude, "depth": config.depth},
        **(extra or {}),
    }
