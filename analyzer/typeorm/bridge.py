"""Run the node-based TypeORM front end and read its IR.

ts-plugin is compiled JavaScript; node is needed only for TypeScript scans, and its absence
(or a missing build) is a clear error, never a silent empty scan. Nothing is downloaded.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from .. import ir


class FrontendUnavailable(Exception):
    pass


def plugin_path() -> Path:
    override = os.environ.get("TXSCAN_TS_PLUGIN")
    if override:
        return Path(override)
    here = Path(__file__).resolve()
    # The copy inside the package (scripts/bundle_ts_plugin.py) first, then a source checkout's build.
    for candidate in (here.parent / "_plugin" / "dist" / "cli.js", here.parents[2] / "ts-plugin" / "dist" / "cli.js"):
        if candidate.exists():
            return candidate
    return here.parents[2] / "ts-plugin" / "dist" / "cli.js"


def run(root: Path, depth: int = 6, max_file_bytes: int = 2_000_000, timeout: float = 3600,
        settings: dict | None = None) -> list[dict]:
    """`settings`: further settings as one JSON object (ts-plugin/src/settings.ts), e.g. the
    user's extra `effects` and `statements` from `[tool.txscan]`."""
    node = shutil.which("node")
    if node is None:
        raise FrontendUnavailable("node was not found on PATH; it is needed to scan TypeScript applications")
    cli = plugin_path()
    if not cli.exists():
        raise FrontendUnavailable(f"the TypeScript front end is not built ({cli} is missing); "
                                  "run `npm ci && npm run build --workspace ts-plugin`")
    command = [node, str(cli), str(root), "--depth", str(depth), "--max-file-bytes", str(max_file_bytes)]
    if settings:
        command += ["--settings", json.dumps(settings, sort_keys=True)]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=timeout, encoding="utf-8")
    if completed.returncode != 0:
        raise FrontendUnavailable(f"ts-plugin failed (exit {completed.returncode}): {completed.stderr.strip()[:2000]}")
    return list(ir.loads(completed.stdout))
