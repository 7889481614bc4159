#!/usr/bin/env python3
"""Measure txscan scans: lines per second, wall time and peak memory per application.

    .venv/bin/python scripts/benchmark.py PATH [PATH ...] [--repeat 3] [--json]
    .venv/bin/python scripts/benchmark.py --manifest corpus/real.toml --checkouts /work/real

Each scan runs in a fresh process (so peak memory is that scan's alone), on one core, and
the best of --repeat runs is reported. This is a measuring tool, not a test: quote its
figures, do not assert on them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

_RUNNER = r"""
import json, resource, sys, time
from pathlib import Path
from analyzer.config import load
from analyzer.scan import scan
root = Path(sys.argv[1])
started = time.perf_counter()
result = scan(root, load(root))
seconds = time.perf_counter() - started
analysis = result.analyses["pk"]
print(json.dumps({
    "seconds": seconds,
    # The TypeScript front end runs in a node child process: count the larger of the two.
    "peak_mib": max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                    resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024,
    "lines": result.lines, "files": len(result.files), "frontend": result.frontend,
    "transactions": len(analysis["transactions"]),
    "statements": sum(len(t["statements"]) for t in analysis["transactions"]),
    "diagnostics": len(analysis["diagnostics"]),
}))
"""


def measure(path: Path, repeat: int) -> dict:
    runs = []
    for _ in range(repeat):
        completed = subprocess.run([sys.executable, "-c", _RUNNER, str(path)], capture_output=True, text=True,
                                   env={"PYTHONHASHSEED": "0", "PATH": "/usr/bin:/bin:/usr/local/bin"})
        if completed.returncode != 0:
            return {"path": str(path), "error": completed.stderr.strip().splitlines()[-1:]}
        runs.append(json.loads(completed.stdout))
    best = min(runs, key=lambda r: r["seconds"])
    best["path"] = str(path)
    best["lines_per_second"] = round(best["lines"] / best["seconds"]) if best["seconds"] else 0
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--manifest", type=Path, help="a corpus manifest (TOML) to take applications from")
    parser.add_argument("--checkouts", type=Path, help="folder holding the manifest's checkouts, one per name")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    paths = list(args.paths)
    if args.manifest:
        from analyzer.survey import manifest

        for app in manifest.load(args.manifest):
            folder = app.folder(args.checkouts or Path("."))
            if folder.exists():
                paths.append(folder)
    if not paths:
        parser.error("give at least one path or a manifest")
    results = [measure(p, args.repeat) for p in paths]
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{'application':<44} {'lines':>8} {'files':>6} {'txns':>5} {'diag':>5} {'wall s':>7} "
          f"{'lines/s':>8} {'peak MiB':>9}")
    for r in results:
        if "error" in r:
            print(f"{r['path']:<44} error: {r['error']}")
            continue
        print(f"{r['path'][-44:]:<44} {r['lines']:>8} {r['files']:>6} {r['transactions']:>5} {r['diagnostics']:>5} "
              f"{r['seconds']:>7.2f} {r['lines_per_second']:>8} {r['peak_mib']:>9.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
