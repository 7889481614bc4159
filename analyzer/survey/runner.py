"""Run a survey: scan each application of a manifest in worker processes, into one store.

The main process is the only writer of the store; each application is written in one
SQLite transaction, so an interrupted survey (Ctrl-C, kill) leaves a consistent store and a
re-run skips what is already there and unchanged.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from .. import __version__, store
from ..config import Config
from .fingerprint import fingerprint, source_hashes
from .manifest import App


@dataclass
class Outcome:
    name: str
    status: str          # scanned | unchanged | missing | failed
    detail: str = ""
    seconds: float = 0.0
    transactions: int = 0


def _settings(config: Config) -> dict:
    return {"cda_entities": config.cda_entities, "exclude": config.exclude, "depth": config.depth}


def scan_one(app: App, folder: str, config: Config, hashes: dict[str, str]) -> dict:
    """Worker: scan one application; never raises (a failure is a result). `hashes` are the
    source hashes the main process computed to decide that this application needs a scan."""
    from ..scan import scan

    started = time.perf_counter()
    try:
        result = scan(Path(folder), config, app.orm)
    except Exception as exc:  # noqa: BLE001 - a failing application is recorded and the survey goes on
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc(limit=5),
                "hashes": hashes, "seconds": time.perf_counter() - started}
    files = result.files or [{"path": p, "lines": 0, "status": "ok"} for p in sorted(hashes)]
    for entry in files:
        entry["sha256"] = hashes.get(entry["path"])
    return {"ok": True, "frontend": result.frontend, "files": files, "lines": result.lines, "ir": result.ir_text,
            "analyses": result.analyses, "hashes": hashes, "seconds": time.perf_counter() - started}


def _app_row(app: App, folder: Path, config: Config, payload: dict) -> dict:
    return {
        "name": app.name, "root": str(folder), "frontend": payload.get("frontend", app.orm), "url": app.url,
        "commit": app.commit, "subdir": app.subdir, "tool_version": __version__, "settings": _settings(config),
        "status": "ok" if payload["ok"] else "failed", "error": payload.get("error"),
        "fingerprint": fingerprint(payload["hashes"]), "lines": payload.get("lines", 0),
    }


class Reporter:
    """Progress on a terminal (rich), plain log lines otherwise (CI logs, pipes)."""

    def __init__(self, total: int, stream=None) -> None:
        self.stream = stream or sys.stderr
        self.total = total
        self.done = 0
        self.progress = None
        if self.stream.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.progress = Progress(TextColumn("[bold]survey"), BarColumn(), MofNCompleteColumn(),
                                     TextColumn("{task.fields[last]}"), TimeRemainingColumn(),
                                     console=Console(file=self.stream))
            self.task = self.progress.add_task("survey", total=total, last="")
            self.progress.start()

    def update(self, outcome: Outcome) -> None:
        self.done += 1
        line = f"[{self.done}/{self.total}] {outcome.name}: {outcome.status}"
        if outcome.status == "scanned":
            line += f" ({outcome.transactions} transactions, {outcome.seconds:.1f} s)"
        if outcome.detail:
            line += f" - {outcome.detail}"
        if self.progress is not None:
            self.progress.update(self.task, advance=1, last=f"{outcome.name}: {outcome.status}")
            if outcome.status in ("missing", "failed"):
                self.progress.console.print(line, markup=False, highlight=False)
        else:
            print(line, file=self.stream, flush=True)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()


def run(apps: list[App], checkouts: Path, db_path: Path, config: Config, jobs: int = 1,
        reporter: Reporter | None = None) -> list[Outcome]:
    connection = store.connect(db_path)
    reporter = reporter or Reporter(len(apps))
    outcomes: list[Outcome] = []
    pending: list[tuple[App, Path, dict[str, str]]] = []
    for app in apps:
        folder = app.folder(checkouts)
        if not folder.is_dir():
            outcome = Outcome(app.name, "missing", f"no checkout at {folder}; run: {app.clone_command(checkouts)}")
        else:
            stored = store.stored_fingerprint(connection, app.name)
            hashes = source_hashes(folder)
            same = (stored[0] == fingerprint(hashes) and stored[1] == __version__
                    and stored[2] == json.dumps(_settings(config), sort_keys=True) and stored[3] == "ok")
            if same:
                outcome = Outcome(app.name, "unchanged", "no source file changed since the stored scan")
            else:
                pending.append((app, folder, hashes))
                continue
        outcomes.append(outcome)
        reporter.update(outcome)

    def record(app: App, folder: Path, payload: dict) -> None:
        row = _app_row(app, folder, config, payload)
        if payload["ok"]:
            try:
                store.write_app(connection, row, payload["files"], payload["ir"], payload["analyses"],
                                payload["seconds"])
            except Exception as exc:  # noqa: BLE001 - recorded as a failed application; the survey goes on
                payload = {**payload, "ok": False, "error": f"storing failed: {type(exc).__name__}: {exc}"}
                row = _app_row(app, folder, config, payload)
        if payload["ok"]:
            outcome = Outcome(app.name, "scanned", seconds=payload["seconds"],
                              transactions=len(payload["analyses"]["pk"]["transactions"]))
        else:
            files = [{"path": p, "lines": 0, "status": "unscanned", "sha256": h} for p, h in payload["hashes"].items()]
            store.write_app(connection, row, files, "", {}, payload["seconds"])
            outcome = Outcome(app.name, "failed", payload["error"], payload["seconds"])
        outcomes.append(outcome)
        reporter.update(outcome)

    try:
        if jobs <= 1 or len(pending) <= 1:
            for app, folder, hashes in pending:
                record(app, folder, scan_one(app, str(folder), config, hashes))
        else:
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                futures = {pool.submit(scan_one, app, str(folder), config, hashes): (app, folder)
                           for app, folder, hashes in pending}
                while futures:
                    done, _ = wait(futures, return_when=FIRST_COMPLETED)
                    for future in done:
                        app, folder = futures.pop(future)
                        try:
                            payload = future.result()
                        except Exception as exc:  # noqa: BLE001 - a worker that died is a failed application
                            payload = {"ok": False, "error": f"worker died: {exc}", "hashes": {}, "seconds": 0.0}
                        record(app, folder, payload)
    finally:
        reporter.close()
        connection.close()
    return outcomes
