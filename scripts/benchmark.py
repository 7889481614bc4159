#!/usr/bin/env python3
"""Measure txscan scans: cold and warm wall time, per-phase times, peak memory, and the ratio to
a bare parse of the same files, measured in the same run.

    .venv/bin/python scripts/benchmark.py PATH [PATH ...] [--repeat 3] [--json]
    .venv/bin/python scripts/benchmark.py --manifest corpus/real.toml --checkouts /work/real [--only saleor,vendure]

Per application, in fresh processes, interleaved and repeated (--repeat; the minimum is kept):
- bare parse: tree-sitter over the .py files (Django) or the TypeScript parser over the .ts
  files (TypeORM) that a scan reads, and nothing else;
- cold: a scan of a temporary copy of the application (so nothing is written next to the
  checkout) with its store written, as `txscan scan` does;
- warm: one source file of the copy changed, then scanned again with the warm cache the cold
  scan left in the copy's `.txscan/cache` (as `txscan scan` does): a statement is inserted in
  the first transaction's function (scripts/benchmark_edits.py: code, never a comment, which
  both warm caches treat as trivia), so that transaction and what follows it in the file are
  changed (the transactions reaching them are walked again). `walked` counts the transactions
  the warm scan walked again (the others were reused).
- lint: `txscan lint FILE --format json` after a one-line change, with the warm cache a lint of
  the copy left (one lint first, not counted): `lint tx` inserts a statement after the first
  explicit transaction's first line and lints its file; `lint helper` inserts one after a
  statement's line in the first file a transaction's statement runs in that holds no explicit
  transaction, and lints that file. Each is quoted as a ratio of its CPU seconds to the cold
  scan's (`txscan lint` must stay under 20% of a cold scan). The project lint analyses is the
  copy: an empty `txscan.toml` marks its root when nothing else does.
Wall time is start-up included (the process is started by this script); CPU seconds count the
node child too. Phases come from analyzer/timing.py (Django: index, models, boundaries, walk;
TypeScript: ts-program, ts-entities-boundaries, ts-walk; both: start-up (the interpreter),
imports (of the scan's modules, also those imported when first needed), detect (finding the
front end), ir (the IR's JSON round trip), core, rewrites, cache (writing the warm cache),
store, exit (the process's end after its last line); other is what none of them counts).

This is a measuring tool, not a test: quote its figures, never assert on them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmark_edits import insert_statement, typescript_module

_SCAN = r"""
import os, time
began = time.time()
import json, sys
from pathlib import Path
from analyzer import timing
from analyzer.config import load
from analyzer.scan import app_row, scan
from analyzer import store
from analyzer.cache import ScanCache
from analyzer import process
root = Path(sys.argv[1])
imported = time.time()
process.one_large_job()  # as `txscan scan` runs
config = load(root)
result = scan(root, config, cache=ScanCache(root / ".txscan" / "cache"))
with timing.phase("store"):
    db = store.connect(root / ".txscan" / "txscan.db")
    store.write_app(db, app_row(root.name, result, config), result.files, result.ir_text, result.analyses)
    db.close()
# The interpreter's start-up (launch to the first line) and the imports of the scan's modules.
timing.add("start-up", max(0.0, began - float(os.environ["TXSCAN_BENCH_LAUNCHED"])))
timing.add("imports", imported - began)
timing.write_if_asked()
analysis = result.analyses["pk"]
explicit = [t for t in analysis["transactions"] if t["boundary"] != "autocommit"]
txn_files = {t["file"] for t in explicit}
summary = {
    "lines": result.lines, "files": len(result.files), "frontend": result.frontend,
    "transactions": len(analysis["transactions"]),
    "statements": sum(len(t["statements"]) for t in analysis["transactions"]),
    "diagnostics": len(analysis["diagnostics"]),
    "first_file": analysis["transactions"][0]["file"] if analysis["transactions"] else
                  (result.files[0]["path"] if result.files else None),
    "first_line": analysis["transactions"][0]["line"] if analysis["transactions"] else 0,
    "walked": None if result.walked is None else len(result.walked),
    # lint: the file of the first explicit transaction, and the first file a transaction's
    # statement runs in that holds none (a helper module)
    "lint_file": explicit[0]["file"] if explicit else None,
    "lint_line": explicit[0]["line"] if explicit else 0,
    "helper": next(([s["file"], s["line"]] for t in explicit for s in t["statements"] if s["file"] not in txn_files),
                   None),
    "finished": time.time(),
}
print(json.dumps(summary))
process.leave(0)  # as `txscan scan` ends
"""

_BARE_PY = r"""
import sys
from pathlib import Path
import tree_sitter as ts, tree_sitter_python as tsp
from analyzer.django.files import DEFAULT_EXCLUDES, iter_python_files
parser = ts.Parser(ts.Language(tsp.language()))
n = 0
for path in iter_python_files(Path(sys.argv[1]), DEFAULT_EXCLUDES):
    parser.parse(path.read_bytes()); n += 1
print(n)
"""

_BARE_TS = r"""
const fs = require("fs"), path = require("path");
const ts = require(process.argv[1]);
const skip = new Set(["node_modules", "dist", "build", "venv", ".venv", "site-packages", "__pycache__"]);
let n = 0;
(function walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name < b.name ? -1 : 1)) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) { if (!skip.has(e.name) && !e.name.startsWith(".")) walk(p); }
    else if (/\.(ts|tsx|mts|cts)$/.test(e.name) && !e.name.endsWith(".d.ts")) {
      ts.createSourceFile(p, fs.readFileSync(p, "utf8"), ts.ScriptTarget.Latest, true); n++;
    }
  }
})(process.argv[2]);
console.log(n);
"""


def _run(command: list[str], env: dict | None = None, cwd: Path | None = None) -> tuple[float, float, float, str]:
    """Run a child to completion: (wall s, CPU s of it and its children, peak MiB, stdout)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        child = subprocess.Popen(command, stdout=out, stderr=err, env=env, cwd=cwd)
        # wait4 gives this child's own usage (its reaped children included: the node process
        # of a TypeScript scan), so the peak is this run's, not the largest of the benchmark so far.
        _pid, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    if child.returncode != 0:
        tail = (stderr.strip().splitlines() or ["(no output)"])[-1]
        raise RuntimeError(f"{' '.join(command[:3])}: exit {child.returncode}: {tail}")
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 1024, stdout


def _env(timings: Path) -> dict:
    env = {"PYTHONHASHSEED": "0", "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "TXSCAN_TIMINGS_FILE": str(timings), "TXSCAN_TS_TIMINGS_FILE": str(timings) + ".ts"}
    if "TXSCAN_HELPERS" in os.environ:  # helper processes forced on or off (analyzer/forked.py)
        env["TXSCAN_HELPERS"] = os.environ["TXSCAN_HELPERS"]
    return env


def _phases(timings: Path) -> dict:
    phases = {}
    for path in (timings, Path(str(timings) + ".ts")):
        if path.exists():
            phases.update(json.loads(path.read_text()))
            path.unlink()
    return phases


def _scan_once(copy: Path, timings: Path) -> dict:
    env = _env(timings)
    env["TXSCAN_BENCH_LAUNCHED"] = repr(time.time())
    wall, cpu, peak, out = _run([sys.executable, "-c", _SCAN, str(copy)], env)
    ended = time.time()
    phases = _phases(timings)
    summary = json.loads(out)
    # The process's end (exit functions, freeing what is left) after its last line.
    phases["exit"] = max(0.0, ended - summary.pop("finished"))
    # What no phase counts: reading the configuration, the glue between phases.
    phases["other"] = max(0.0, wall - sum(v for k, v in phases.items() if not k.startswith("ts-")))
    return {"seconds": wall, "cpu_seconds": cpu, "peak_mib": peak, "phases": phases, **summary}


def _lint_once(copy: Path, rel: str, timings: Path) -> dict:
    """`txscan lint REL --format json` run in the copy, as a user runs it (start-up included)."""
    wall, cpu, peak, out = _run([sys.executable, "-m", "analyzer.cli", "lint", rel, "--format", "json", "--exit-zero"],
                                _env(timings), cwd=copy)
    phases = _phases(timings)
    phases["other"] = max(0.0, wall - sum(v for k, v in phases.items() if not k.startswith("ts-")))
    return {"seconds": wall, "cpu_seconds": cpu, "peak_mib": peak, "phases": phases, "file": rel,
            "findings": len(json.loads(out).get("findings", []))}


def _lint_root_marked(copy: Path, rel: str) -> bool:
    """Whether `txscan lint` of `rel` analyses the copy (marked with an empty txscan.toml when
    no file marks the root there)."""
    from analyzer.lint.project import find_root

    if find_root(copy / rel) != copy.resolve():
        (copy / "txscan.toml").write_text("", "utf-8")
    return find_root(copy / rel) == copy.resolve()


def _measure_lint(copy: Path, cold: dict, timings: Path) -> dict:
    """The two lint measures of one copy (module docstring); {} when the copy has no transaction."""
    rel = cold.get("lint_file")
    if not rel or not _lint_root_marked(copy, rel):
        return {}
    _lint_once(copy, rel, timings)  # the lint's own outputs in the warm cache (not counted)
    _touch(copy, rel, cold.get("lint_line", 0))
    out = {"tx": _lint_once(copy, rel, timings)}
    helper = cold.get("helper")
    if helper:
        _touch(copy, helper[0], helper[1])
        out["helper"] = _lint_once(copy, helper[0], timings)
    for measure in out.values():
        measure["ratio"] = measure["cpu_seconds"] / cold["cpu_seconds"] if cold["cpu_seconds"] else None
    return out


def _bare_once(path: Path, frontend: str) -> float:
    if frontend == "typeorm":
        command = ["node", "-e", _BARE_TS, typescript_module(), str(path)]
    else:
        command = [sys.executable, "-c", _BARE_PY, str(path)]
    return _run(command, {"PATH": os.environ.get("PATH", ""), "PYTHONHASHSEED": "0"})[0]


def _startup_once() -> tuple[float, float]:
    """Wall and CPU seconds of `txscan --version`: the interpreter and the command line alone."""
    wall, cpu, _peak, _out = _run([sys.executable, "-m", "analyzer.cli", "--version"],
                                  {"PATH": os.environ.get("PATH", ""), "PYTHONHASHSEED": "0"})
    return wall, cpu


def _touch(copy: Path, rel: str | None, line: int) -> None:
    """A one-line code change of `rel`: a statement in the function that holds `line`
    (scripts/benchmark_edits.py)."""
    if not rel:
        return
    target = copy / rel
    insert_statement(target, line, None if target.suffix == ".py" else typescript_module())


def _copy_app(path: Path, checkout: Path | None, into: Path) -> Path:
    """A copy of `path` to scan in `into`, where it is in its checkout: with the files (not the
    folders) of each folder between the checkout's root and it, which a scan of the checkout reads
    too (a tsconfig that `extends` one above it, a package.json). Without them the copy of
    vendure's packages/core lost its libraries setting, parsed the DOM's declarations (2.4 MB of
    libraries against 0.4) and named other globals than a scan of the checkout."""
    ignore = shutil.ignore_patterns("node_modules", ".git", ".txscan", "*.pyc")
    if checkout is None or path == checkout or checkout not in path.parents:
        shutil.copytree(path, into, ignore=ignore, symlinks=True)
        return into
    rel = path.relative_to(checkout)
    for folder in [checkout, *reversed(path.parents[: len(rel.parts) - 1])]:
        target = into / folder.relative_to(checkout)
        target.mkdir(parents=True, exist_ok=True)
        for entry in sorted(folder.iterdir()):
            if entry.is_file() and not entry.is_symlink():
                shutil.copyfile(entry, target / entry.name)
    copy = into / rel
    shutil.copytree(path, copy, ignore=ignore, symlinks=True)
    return copy


def measure(path: Path, repeat: int, scratch: Path, checkout: Path | None = None) -> dict:
    best: dict = {}
    bare = []
    warm = []
    startup = []
    lints: dict[str, list[dict]] = {}
    for attempt in range(repeat):
        into = scratch / f"{path.name}-{attempt}"
        copy = _copy_app(path, checkout, into)
        timings = scratch / "timings.json"
        cold = _scan_once(copy, timings)
        bare.append(_bare_once(copy, cold["frontend"]))
        _touch(copy, cold.get("first_file"), cold.get("first_line", 0))
        warm.append(_scan_once(copy, timings))
        startup.append(_startup_once())
        lint = _measure_lint(copy, cold, timings)
        for kind, measure in lint.items():
            lints.setdefault(kind, []).append(measure)
        if not best or cold["seconds"] < best["seconds"]:
            best = cold
        shutil.rmtree(into, ignore_errors=True)
    best_warm = min(warm, key=lambda r: r["seconds"])
    for key in ("first_file", "first_line", "lint_file", "lint_line", "helper"):
        best.pop(key, None)
    best.update({
        "warm_cpu_seconds": best_warm["cpu_seconds"],
        "startup_seconds": min(w for w, _ in startup),
        "startup_cpu_seconds": min(c for _, c in startup),
        "warm_walked": best_warm["walked"],
        "path": str(path),
        "warm_seconds": best_warm["seconds"],
        "warm_phases": best_warm["phases"],
        "warm_ratio": best_warm["seconds"] / best["seconds"] if best["seconds"] else None,
        # each lint measure: the run of least CPU, its ratio to the cold scan of the same attempt
        "lint": {kind: min(runs, key=lambda r: r["cpu_seconds"]) for kind, runs in lints.items()},
        "bare_parse_seconds": min(bare),
        "ratio_to_bare_parse": best["seconds"] / min(bare) if min(bare) else None,
        "lines_per_second": round(best["lines"] / best["seconds"]) if best["seconds"] else 0,
    })
    return best


def _paths(args) -> list[tuple[Path, Path | None]]:
    """(application folder, its checkout's root when a manifest names it)."""
    paths: list[tuple[Path, Path | None]] = [(path, None) for path in args.paths]
    if args.manifest:
        from analyzer.survey import manifest

        only = set(args.only.split(",")) if args.only else None
        for app in manifest.load(args.manifest):
            if only and app.name not in only:
                continue
            folder = app.folder(args.checkouts or Path("."))
            if folder.exists():
                paths.append((folder, (args.checkouts or Path(".")) / (app.checkout or app.name)))
            else:
                print(f"benchmark: {app.name}: no checkout at {folder}", file=sys.stderr)
    return paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--manifest", type=Path, help="a corpus manifest (TOML) to take applications from")
    parser.add_argument("--checkouts", type=Path, help="folder holding the manifest's checkouts, one per name")
    parser.add_argument("--only", help="comma-separated application names of the manifest")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    paths = _paths(args)
    if not paths:
        parser.error("give at least one path or a manifest")
    results = []
    with tempfile.TemporaryDirectory(prefix="txscan-bench-") as scratch:
        for path, checkout in paths:
            try:
                results.append(measure(path, max(1, args.repeat), Path(scratch), checkout))
            except (RuntimeError, OSError) as exc:
                results.append({"path": str(path), "error": str(exc)})
    if args.json:
        print(json.dumps(results, indent=2, sort_keys=True))
        return 0
    print(f"{'application':<34} {'lines':>7} {'txns':>5} {'cold s':>7} {'cpu s':>6} {'warm s':>7} {'cpu s':>6} "
          f"{'walked':>6} {'warm/cold':>9} "
          f"{'bare s':>7} {'x bare':>7} {'peak MiB':>8}  phases (cold)")
    for r in results:
        if "error" in r:
            print(f"{r['path'][-34:]:<34} error: {r['error']}")
            continue
        phases = " ".join(f"{k}={v:.2f}" for k, v in sorted(r["phases"].items()))
        print(f"{r['path'][-34:]:<34} {r['lines']:>7} {r['transactions']:>5} {r['seconds']:>7.2f} "
              f"{r['cpu_seconds']:>6.2f} {r['warm_seconds']:>7.2f} {r['warm_cpu_seconds']:>6.2f} "
              f"{r['warm_walked'] if r['warm_walked'] is not None else '-':>6} {r['warm_ratio']:>9.2f} "
              f"{r['bare_parse_seconds']:>7.2f} {r['ratio_to_bare_parse']:>7.1f} {r['peak_mib']:>8.0f}  {phases}")
        warm_phases = " ".join(f"{k}={v:.2f}" for k, v in sorted(r["warm_phases"].items()))
        print(f"{'':<34} start-up {r['startup_seconds']:.2f} s (cpu {r['startup_cpu_seconds']:.2f})  "
              f"phases (warm) {warm_phases}")
        for kind, lint in sorted(r["lint"].items()):
            lint_phases = " ".join(f"{k}={v:.2f}" for k, v in sorted(lint["phases"].items()))
            print(f"{'':<34} lint {kind} {lint['file']}: {lint['seconds']:.2f} s (cpu {lint['cpu_seconds']:.2f}, "
                  f"{lint['ratio']:.2f} of cold cpu, {lint['findings']} findings)  phases {lint_phases}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
