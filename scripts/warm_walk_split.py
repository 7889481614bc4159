#!/usr/bin/env python3
"""Where a warm `txscan lint` spends its walks after a helper edit: a measuring tool for the leads
of issue #12's helper-lint cell (keep summaries across scans, early cutoff).

    TXSCAN_HELPERS=1 .venv/bin/python scripts/warm_walk_split.py /work/real/saleor/saleor --checkout /work/real/saleor

The application is copied, scanned cold and linted as scripts/benchmark.py does up to its `lint
helper` measure (the same edits, scripts/benchmark_edits.py); that last lint is then run in this
process with the walker watched. Every callee walk a re-walked transaction makes is classed:
- reaching: its walk reached a definition the edit changed (one the cache finds neither unchanged
  nor only moved): it has to be walked again;
- unchanged: it reached none; only the outermost such walks are counted (the walks inside them are
  part of their time).
A summary kept from the last scan could stand for an unchanged walk only where the walk was
cacheable at all (summaries.make_summary: it did not use a foreign-key read done before the call,
nor repeat an instance begun before it, nor was cut): `unchanged_cacheable` counts the outermost
of those, inside an uncacheable unchanged walk too: the most kept summaries could save.
Seconds are wall seconds of this process (quote them as shares, with the profiler's overhead
absent but the watching's present); counts do not move with machine load. A measuring tool, not a
test: quote its figures, never assert on them.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


class WalkWatch:
    """Records each callee walk of the transactions walked while installed (its time, what it
    reached, whether a summary of it could be kept) and which transactions were walked."""

    def __init__(self) -> None:
        self.walks: list[dict] = []      # id, parent (0: the transaction's own body), seconds, ...
        self.transactions = 0
        self.transaction_seconds = 0.0
        self.reuse = None                # the scan's DjangoReuse (which definitions changed)
        self._ids = itertools.count(1)
        self._open = [0]

    def install(self) -> None:
        from analyzer.cache import django as cache_django
        from analyzer.django import transactions, walker

        watch = self
        walk_callee = walker.Walker._walk_callee
        walk_transaction = transactions.walk_transaction
        transaction = cache_django.DjangoReuse.transaction

        def watched_callee(self, found, fn, *args, **kwargs):
            frame = self.rec.frames[-1]
            me, parent = next(watch._ids), watch._open[-1]
            watch._open.append(me)
            started = time.perf_counter()
            try:
                return walk_callee(self, found, fn, *args, **kwargs)
            finally:
                watch._open.pop()
                watch.walks.append({
                    "id": me, "parent": parent, "seconds": time.perf_counter() - started,
                    "function": fn.qualname, "reached": frozenset(frame.reached),
                    "calls": self.rec.calls - frame.calls,
                    "cacheable": not (frame.fk_external or frame.repeats_outside or frame.cut),
                })

        def watched_transaction(*args, **kwargs):
            watch._open[:] = [0]
            started = time.perf_counter()
            try:
                return walk_transaction(*args, **kwargs)
            finally:
                watch.transactions += 1
                watch.transaction_seconds += time.perf_counter() - started

        def seen_transaction(self, *args, **kwargs):
            watch.reuse = self
            return transaction(self, *args, **kwargs)

        walker.Walker._walk_callee = watched_callee
        transactions.walk_transaction = watched_transaction
        cache_django.DjangoReuse.transaction = seen_transaction
        self._restore = lambda: (setattr(walker.Walker, "_walk_callee", walk_callee),
                                 setattr(transactions, "walk_transaction", walk_transaction),
                                 setattr(cache_django.DjangoReuse, "transaction", transaction))

    def uninstall(self) -> None:
        self._restore()

    def changed(self) -> set[str]:
        """Definitions a kept transaction read that are neither unchanged nor only moved now."""
        reuse = self.reuse
        if reuse is None:
            return set()
        out = set()
        for entry in reuse.old.get("transactions", {}).values():
            for row in (entry.get("reach") or []) if isinstance(entry, dict) else []:
                if not reuse._unchanged(*row) and reuse._moved_by(*row) is None:
                    out.add(row[1])
        return out

    def split(self) -> dict:
        changed = self.changed()
        reaching = {w["id"] for w in self.walks if w["reached"] & changed}
        # outermost walks reaching no changed definition: their parent reached one (or is the body)
        outermost = [w for w in self.walks if w["id"] not in reaching and (w["parent"] == 0 or w["parent"] in reaching)]
        # what kept summaries could stand for: the outermost cacheable walks reaching no changed
        # definition, also those inside an unchanged walk that was not cacheable itself
        by_id = {w["id"]: w for w in self.walks}

        def servable(w) -> bool:
            return w["id"] not in reaching and w["cacheable"]

        def under_servable(w) -> bool:
            parent = by_id.get(w["parent"])
            while parent is not None:
                if servable(parent):
                    return True
                parent = by_id.get(parent["parent"])
            return False

        cacheable = [w for w in self.walks if servable(w) and not under_servable(w)]
        return {
            "changed": sorted(changed),
            "transactions_walked": self.transactions,
            "reuse_walked": len(self.reuse.walked) if self.reuse is not None else 0,  # the cache's own count
            "walk_seconds": round(self.transaction_seconds, 3),
            "walks": len(self.walks),
            "walks_reaching_changed": len(reaching),
            "changed_walks": [{"function": w["function"], "calls": w["calls"], "cacheable": w["cacheable"]}
                              for w in self.walks if w["function"] in changed],
            "unchanged_outermost": _totals(outermost),
            "unchanged_cacheable": _totals(cacheable),
            "unchanged_outermost_top": [
                {"function": f, "seconds": round(s, 3)} for f, s in sorted(
                    _by_function(outermost).items(), key=lambda item: -item[1])[:10]],
        }


def _totals(walks: list[dict]) -> dict:
    return {"count": len(walks), "functions": len({w["function"] for w in walks}),
            "seconds": round(sum(w["seconds"] for w in walks), 3)}


def _by_function(walks: list[dict]) -> dict[str, float]:
    out: dict[str, float] = {}
    for w in walks:
        out[w["function"]] = out.get(w["function"], 0.0) + w["seconds"]
    return out


def lint_watched(copy: Path, rel: str) -> dict:
    """`txscan lint REL` of the copy in this process, its callee walks watched: the split."""
    from analyzer.cache import project_caches
    from analyzer.lint.runner import LintOptions, run

    watch = WalkWatch()
    watch.install()
    here = Path.cwd()
    try:
        os.chdir(copy)
        with project_caches():  # the project's own warm cache, as `txscan lint` uses it
            run(LintOptions(paths=[Path(rel)]))
    finally:
        os.chdir(here)
        watch.uninstall()
    return watch.split()


def prepare(app: Path, checkout: Path | None, scratch: Path) -> tuple[Path, str]:
    """A copy of `app` as scripts/benchmark.py leaves it just before its `lint helper` measure:
    (the copy, the helper file, edited, that the lint is given)."""
    import benchmark as bench

    copy = bench._copy_app(app, checkout, scratch / app.name)
    timings = scratch / "timings.json"
    cold = bench._scan_once(copy, timings)
    bench._touch(copy, cold.get("first_file"), cold.get("first_line", 0))
    bench._scan_once(copy, timings)
    rel, helper = cold.get("lint_file"), cold.get("helper")
    if not rel or not helper or not bench._lint_root_marked(copy, rel):
        raise SystemExit(f"{app}: no explicit transaction or no helper file to edit")
    bench._lint_once(copy, rel, timings)
    bench._touch(copy, rel, cold.get("lint_line", 0))
    bench._lint_once(copy, rel, timings)
    bench._touch(copy, helper[0], helper[1])
    return copy, helper[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("app", type=Path)
    parser.add_argument("--checkout", type=Path, default=None, help="the checkout holding APP (copied as the benchmark does)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="txscan-split-") as scratch:
        copy, rel = prepare(args.app.resolve(), args.checkout.resolve() if args.checkout else None, Path(scratch))
        print(json.dumps({"app": str(args.app), "file": rel, **lint_watched(copy, rel)}, indent=1))


if __name__ == "__main__":
    main()
