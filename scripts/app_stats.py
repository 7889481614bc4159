#!/usr/bin/env python3
"""Per-application figures of txscan scans: the before/after table of real applications.

    # 1. scan and benchmark every application of a manifest found under --checkouts, one at a
    #    time, with a given txscan installation (its worktree's scripts/benchmark.py measures)
    .venv/bin/python scripts/app_stats.py collect --manifest corpus/real.toml --checkouts /work/real \\
        --txscan /work/wt/base/.venv/bin/txscan --out /tmp/before
    # 2. print the table from the scan JSON (and benchmark JSON) files in that folder
    .venv/bin/python scripts/app_stats.py table /tmp/before            # Markdown
    .venv/bin/python scripts/app_stats.py table /tmp/before --json

`collect` writes <app>.json (`txscan scan PATH --format json --no-db --no-cache`) and <app>.bench.json
(`scripts/benchmark.py PATH --repeat 1 --json` of the same installation: wall time and peak
memory in a fresh process). `table` reads every <app>.json of the folder and prints, per
application: transactions, one-shot / non-strict / strict, transactions with no statement,
the unresolved-receiver and depth-limit diagnostics, wall time and peak memory; then the
diagnostics of every code per application. A scan or benchmark file that is missing shows
as `-`; an unreadable one is an error (one line, exit status 2).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

from score_labels import AUTOCOMMIT, InputError, read_json  # the sibling script: same input errors

VERDICTS = ("one-shot", "interactive-nonstrict", "interactive-strict")
HIGHLIGHTED_CODES = ("unresolved-receiver", "depth-limit")
TIMEOUT_SECONDS = 3600


# ---------------------------------------------------------------- table

def app_row(scan: dict, bench: dict | None) -> dict:
    # Autocommit statements (one transaction per ORM call site outside explicit transactions) are
    # counted apart: the verdict columns are about explicit transactions, as in earlier tables.
    transactions = [t for t in scan["transactions"] if t.get("boundary") != AUTOCOMMIT]
    verdicts = Counter(t["interactivity"] for t in transactions)
    codes = Counter(d.get("code", "?") for d in scan.get("diagnostics", []))
    return {
        "transactions": len(transactions),
        "autocommit": len(scan["transactions"]) - len(transactions),
        "one-shot": verdicts["one-shot"],
        "non-strict": verdicts["interactive-nonstrict"],
        "strict": verdicts["interactive-strict"],
        "zero-statement": sum(1 for t in transactions if not t["statements"]),
        "statements": sum(len(t["statements"]) for t in transactions),
        "diagnostics": dict(sorted(codes.items())),
        "seconds": round(bench["seconds"], 1) if bench and "seconds" in bench else None,
        "peak_mib": round(bench["peak_mib"]) if bench and "peak_mib" in bench else None,
        "lines": (bench or {}).get("lines"),
    }


def load_folder(folder: Path) -> dict[str, dict]:
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder")
    rows = {}
    for path in sorted(folder.glob("*.json")):
        if path.name.endswith(".bench.json"):
            continue
        scan = read_json(path, "scan", "scan JSON")
        if not isinstance(scan, dict) or not isinstance(scan.get("transactions"), list):
            raise InputError(f"{path}: not scan JSON (no 'transactions' list)")
        name = path.name[: -len(".json")]
        bench_path = folder / f"{name}.bench.json"
        bench = None
        if bench_path.exists():
            measured = read_json(bench_path, "benchmark", "benchmark JSON")
            bench = measured[0] if isinstance(measured, list) and measured else measured
            if not isinstance(bench, dict):
                raise InputError(f"{bench_path}: not benchmark JSON")
            if "error" in bench:
                bench = None
        rows[name] = app_row(scan, bench)
    if not rows:
        raise InputError(f"{folder}: no scan JSON (<app>.json) in it")
    return rows


def render_markdown(rows: dict[str, dict]) -> str:
    def cell(value):
        return "-" if value is None else str(value)
    head = ["application", "transactions", "autocommit", "one-shot", "non-strict", "strict", "zero-statement",
            *HIGHLIGHTED_CODES, "wall s", "peak MiB"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, row in rows.items():
        values = [name, row["transactions"], row.get("autocommit", 0), row["one-shot"], row["non-strict"], row["strict"], row["zero-statement"],
                  *(row["diagnostics"].get(code, 0) for code in HIGHLIGHTED_CODES), row["seconds"], row["peak_mib"]]
        lines.append("| " + " | ".join(cell(v) for v in values) + " |")
    codes = sorted({code for row in rows.values() for code in row["diagnostics"]})
    if not codes:
        return "\n".join([*lines, "", "Diagnostics by code: none."]) + "\n"
    lines += ["", "Diagnostics by code:", "", "| application | " + " | ".join(codes) + " |",
              "|" + "---|" * (len(codes) + 1)]
    for name, row in rows.items():
        lines.append(f"| {name} | " + " | ".join(str(row["diagnostics"].get(code, 0)) for code in codes) + " |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- collect

def manifest_apps(manifest: Path, checkouts: Path, only: list[str] | None) -> list[tuple[str, Path]]:
    try:
        apps = tomllib.loads(manifest.read_text("utf-8")).get("app", [])
    except OSError as error:
        raise InputError(f"{manifest}: cannot read ({error.strerror or error})") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise InputError(f"{manifest}: not a TOML manifest ({error})") from None
    found = []
    for app in apps:
        name = app.get("name")
        if only and name not in only:
            continue
        for folder in (checkouts / name, checkouts / app.get("checkout", name)):
            root = folder / app.get("subdir", ".")
            if folder.is_dir() and root.is_dir():
                found.append((name, root))
                break
        else:
            if only:
                raise InputError(f"{checkouts / name}: checkout of {name} missing")
    missing = set(only or []) - {name for name, _ in found}
    if missing:
        raise InputError(f"{manifest}: no application named {', '.join(sorted(missing))}")
    return found


def collect(apps: list[tuple[str, Path]], txscan: Path, out: Path) -> None:
    if not txscan.exists():
        raise InputError(f"{txscan}: no such program")
    python = txscan.parent / "python"
    benchmark = txscan.resolve().parents[2] / "scripts" / "benchmark.py" if len(txscan.resolve().parents) > 2 else None
    if not python.exists() or benchmark is None or not benchmark.exists():
        raise InputError(f"{txscan}: not the txscan of a worktree's .venv (no python or scripts/benchmark.py beside it)")
    out.mkdir(parents=True, exist_ok=True)
    for name, root in apps:  # one at a time: the measured wall time must not share the cores
        scan = subprocess.run([str(txscan), "scan", str(root), "--format", "json", "--no-db", "--no-cache"],
                              capture_output=True, text=True, timeout=TIMEOUT_SECONDS, check=False)
        if scan.returncode != 0:
            last = (scan.stderr.strip().splitlines() or ["no message"])[-1]
            raise InputError(f"{root}: scan failed with status {scan.returncode}: {last}")
        (out / f"{name}.json").write_text(scan.stdout)
        bench = subprocess.run([str(python), str(benchmark), str(root), "--repeat", "1", "--json"],
                               capture_output=True, text=True, timeout=TIMEOUT_SECONDS, check=False)
        if bench.returncode != 0:
            last = (bench.stderr.strip().splitlines() or ["no message"])[-1]
            raise InputError(f"{root}: benchmark failed with status {bench.returncode}: {last}")
        (out / f"{name}.bench.json").write_text(bench.stdout)
        if sys.stderr.isatty():
            print(f"{name}: done", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    table = commands.add_parser("table", help="print the per-application table of a folder of scans")
    table.add_argument("folder", type=Path)
    table.add_argument("--json", action="store_true")
    gather = commands.add_parser("collect", help="scan and benchmark the applications of a manifest")
    gather.add_argument("--manifest", type=Path, required=True)
    gather.add_argument("--checkouts", type=Path, required=True)
    gather.add_argument("--txscan", type=Path, required=True, help="txscan in a worktree's .venv/bin")
    gather.add_argument("--out", type=Path, required=True)
    gather.add_argument("--apps", help="comma-separated names (default: every checkout present)")
    args = parser.parse_args(argv)
    try:
        if args.command == "collect":
            only = [name for name in (args.apps or "").split(",") if name] or None
            collect(manifest_apps(args.manifest, args.checkouts, only), args.txscan, args.out)
            return 0
        rows = load_folder(args.folder)
    except InputError as error:
        print(f"app_stats: {error}", file=sys.stderr)
        return 2
    print(json.dumps(rows, indent=1, sort_keys=True) if args.json else render_markdown(rows), end="" if not args.json
          else "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
