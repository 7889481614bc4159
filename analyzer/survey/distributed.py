"""Surveys on a Dask distributed cluster: one task per application (`txscan survey --scheduler`).

Each task runs analyzer.survey.isolate.run_isolated on the worker's machine, the same isolated
process as a local survey, so a crash there is one application's failure. The client (the
`txscan survey` process) receives results as they complete and writes them into its store,
exactly as a local survey does. Checkouts must be at the same path on every worker
(docs/SURVEY.md); a worker that lacks one, or holds different sources, fails that application.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Iterator

from ..config import Config
from .isolate import Limits, failure, run_isolated
from .manifest import App

class DaskUnavailable(Exception):
    """--scheduler was given but dask.distributed is missing or the scheduler cannot be reached."""


def connect(scheduler: str):
    """A client of the scheduler at tcp://HOST:PORT (before the survey opens its store)."""
    try:
        from dask.distributed import Client
    except ImportError as exc:
        raise DaskUnavailable("--scheduler needs dask.distributed, which is not installed; "
                              "install it with: pip install 'txscan[dask]'") from exc
    try:
        # How long to try: Dask's own setting (distributed.comm.timeouts.connect, 30 s by default;
        # environment: DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=10s).
        return Client(scheduler, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise DaskUnavailable(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from exc


def cluster_results(client, pending: list[tuple[App, Path, dict[str, str]]], config: Config,
                    limits: Limits) -> Iterator[tuple[tuple[App, Path, dict[str, str]], dict]]:
    """Results of one Dask task per application, in the order they finish."""
    from dask.distributed import as_completed

    run = uuid.uuid4().hex[:8]  # task keys unique per survey run, so a re-run never reuses old results
    futures = {}
    try:
        for job in pending:
            app, folder, hashes = job
            # Workers run elsewhere, in another folder: they get the absolute path.
            future = client.submit(run_isolated, app, str(Path(folder).resolve()), config, hashes, limits, True,
                                   key=f"txscan-{app.name}-{run}", pure=False, retries=0)
            futures[future] = job
        for future in as_completed(futures, loop=client.loop):
            job = futures[future]
            try:
                payload = future.result()
            except Exception as exc:  # noqa: BLE001 - a lost worker or task is that application's failure
                payload = failure(f"Dask task failed: {type(exc).__name__}: {exc}", job[2])
            yield job, payload
    finally:
        client.cancel(list(futures))  # interrupted: the cluster stops working for this survey
