"""Run a survey: scan each application of a manifest in its own process, into one store.

Each application runs isolated (analyzer/survey/isolate.py), N at a time on this machine or one
task each on a Dask cluster (analyzer/survey/distributed.py). The main process is the only
writer of the store and writes each result as it arrives, one SQLite transaction per
application, so an interrupted survey (Ctrl-C, SIGTERM, kill -9) leaves a consistent store and
a re-run skips what is already there and unchanged.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from .. import __version__, store
from ..config import Config
from .fingerprint import fingerprint, source_hashes
from .isolate import Children, Limits, failure, run_isolated
from .manifest import App


@dataclass
class Outcome:
    name: str
    status: str          # scanned | unchanged | missing | failed
    detail: str = ""
    seconds: float = 0.0
    transactions: int = 0
    rewrite_seconds: float = 0.0  # of `seconds`, spent verifying suggested rewrites (a re-scan of an edited copy)

    @property
    def summary(self) -> str:
        """The detail on one line (a front end's error can span many; the store keeps all of it)."""
        lines = self.detail.strip().splitlines() or [""]
        return lines[0][:300] + (" [...]" if len(lines) > 1 or len(lines[0]) > 300 else "")


class Interrupted(Exception):
    """SIGINT or SIGTERM reached the survey; every worker has been killed, the store is consistent."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


Job = tuple[App, Path, dict[str, str]]


def _settings(config: Config) -> dict:
    return {"cda_entities": config.cda_entities, "exclude": config.exclude, "depth": config.depth}


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
            line += (f" ({outcome.transactions} transactions, {outcome.seconds:.1f} s, of which rewrite"
                     f" verification {outcome.rewrite_seconds:.1f} s)")
        if outcome.detail:
            line += f" - {outcome.summary}"
        if self.progress is not None:
            self.progress.update(self.task, advance=1, last=f"{outcome.name}: {outcome.status}")
            if outcome.status in ("missing", "failed"):
                self.progress.console.print(line, markup=False, highlight=False)
        else:
            print(line, file=self.stream, flush=True)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()


def local_results(pending: list[Job], config: Config, limits: Limits, jobs: int,
                  children: Children) -> Iterator[tuple[Job, dict]]:
    """Results of isolated workers on this machine, `jobs` at a time, in the order they finish."""
    with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="txscan-survey") as threads:
        futures = {threads.submit(run_isolated, app, str(folder), config, hashes, limits, False, children):
                   (app, folder, hashes) for app, folder, hashes in pending}
        try:
            for future in as_completed(futures):
                job = futures[future]
                try:
                    payload = future.result()
                except Exception as exc:  # noqa: BLE001 - run_isolated turns failures into results; this is a bug's net
                    payload = failure(f"{type(exc).__name__}: {exc}", job[2])
                yield job, payload
        finally:
            children.kill_all()  # interrupted: nothing may go on running once the survey stops


def run(apps: list[App], checkouts: Path, db_path: Path, config: Config, jobs: int = 1,
        reporter: Reporter | None = None, limits: Limits = Limits(), scheduler: str | None = None) -> list[Outcome]:
    """Survey `apps`; with `scheduler` (tcp://HOST:PORT) on a Dask cluster, else `jobs` local workers."""
    client = None
    if scheduler:
        from .distributed import connect  # DaskUnavailable is raised before the store is touched

        client = connect(scheduler)
    children = Children()
    connection = None
    reporter = reporter or Reporter(len(apps))
    try:
        with _signals_interrupt():
            connection = store.connect(db_path)
            outcomes, pending = _plan(apps, checkouts, connection, config)
            for outcome in outcomes:
                reporter.update(outcome)
            if client is not None:
                from .distributed import cluster_results

                results = cluster_results(client, pending, config, limits)
            else:
                results = local_results(pending, config, limits, jobs, children)
            try:
                for (app, folder, _hashes), payload in results:
                    outcome = _record(connection, app, folder, config, payload)
                    outcomes.append(outcome)
                    reporter.update(outcome)
            finally:
                results.close()
    finally:
        children.kill_all()
        reporter.close()
        if connection is not None:
            connection.close()
        if client is not None:
            client.close()
    return outcomes


def _plan(apps: list[App], checkouts: Path, connection, config: Config) -> tuple[list[Outcome], list[Job]]:
    """What needs no scan (missing checkouts, unchanged applications) and what does."""
    outcomes: list[Outcome] = []
    pending: list[Job] = []
    for app in apps:
        folder = app.folder(checkouts)
        if not folder.is_dir():
            outcomes.append(Outcome(app.name, "missing",
                                    f"no checkout at {folder}; run: {app.clone_command(checkouts)}"))
            continue
        stored = store.stored_fingerprint(connection, app.name)
        hashes = source_hashes(folder)
        same = (stored[0] == fingerprint(hashes) and stored[1] == __version__
                and stored[2] == json.dumps(_settings(config), sort_keys=True) and stored[3] == "ok")
        if same:
            outcomes.append(Outcome(app.name, "unchanged", "no source file changed since the stored scan"))
        else:
            pending.append((app, folder, hashes))
    return outcomes, pending


def _record(connection, app: App, folder: Path, config: Config, payload: dict) -> Outcome:
    """Store one application's result (one SQLite transaction) as soon as it arrives."""
    row = _app_row(app, folder, config, payload)
    if payload["ok"]:
        try:
            store.write_app(connection, row, payload["files"], payload["ir"], payload["analyses"], payload["seconds"])
            return Outcome(app.name, "scanned", seconds=payload["seconds"],
                           transactions=len(payload["analyses"]["pk"]["transactions"]),
                           rewrite_seconds=payload.get("rewrite_seconds", 0.0))
        except Exception as exc:  # noqa: BLE001 - recorded as a failed application; the survey goes on
            payload = failure(f"storing failed: {type(exc).__name__}: {exc}", payload["hashes"], payload["seconds"])
            row = _app_row(app, folder, config, payload)
    files = [{"path": p, "lines": 0, "status": "unscanned", "sha256": h} for p, h in sorted(payload["hashes"].items())]
    store.write_app(connection, row, files, "", {}, payload["seconds"])
    return Outcome(app.name, "failed", payload["error"], payload["seconds"])


class _signals_interrupt:
    """SIGTERM and SIGINT raise Interrupted in the main thread (the store writer), so the
    generators' cleanup kills every worker and the open store transaction rolls back."""

    def __enter__(self):
        self.previous = {}
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGTERM, signal.SIGINT):
                self.previous[signum] = signal.signal(signum, self._raise)
        return self

    @staticmethod
    def _raise(signum, _frame):
        raise Interrupted(signum)

    def __exit__(self, *_exc):
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)
        return False
