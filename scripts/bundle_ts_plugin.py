#!/usr/bin/env python3
"""Copy the built TypeScript front end into the Python package (analyzer/typeorm/_plugin/).

After `npm ci && npm run build --workspace ts-plugin`, this makes the package self-contained:
the compiled plugin, its declaration stubs and the pinned `typescript` module it loads at run
time (and rewrite-check.js, which analyzer/rewrite uses to parse-check TypeScript). A wheel ships
both front ends; node is the only thing TypeScript scans need at run time. scripts/setup.sh runs
it, and so does setup.py when a wheel is built from a source tree without the bundle.

It then makes the compiler's code cache in the bundle (ts-plugin/src/code-cache.ts) by scanning
the bundled TypeORM samples with that bundle's node. Without node, or when that fails, the bundle
has no cache and scans compile the compiler's functions as they run (a note says so).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "analyzer" / "typeorm" / "_plugin"
# The projects scanned to make the code cache: what their scans compile is what it holds.
CODE_CACHE_SAMPLES = ("nest-shop", "express-ledger")
# analyzer/typeorm/bridge.py NODE_FLAGS (not imported: setup.py runs this script before the package
# is installed); tests/test_typeorm_bridge.py checks the two agree
NODE_FLAGS = ("--expose-gc",)


def main() -> int:
    dist = ROOT / "ts-plugin" / "dist"
    typescript = ROOT / "node_modules" / "typescript"
    if not (dist / "cli.js").is_file() or not (typescript / "package.json").is_file():
        print("bundle_ts_plugin: build ts-plugin first (npm ci && npm run build --workspace ts-plugin)",
              file=sys.stderr)
        return 1
    if TARGET.exists():
        shutil.rmtree(TARGET)
    # (a code cache left in the build is made again below, from the bundle's own compiler)
    shutil.copytree(dist, TARGET / "dist", ignore=shutil.ignore_patterns("typescript.code-cache*"))
    shutil.copytree(ROOT / "ts-plugin" / "stubs", TARGET / "stubs")
    shutil.copy2(ROOT / "ts-plugin" / "package.json", TARGET / "package.json")
    module = TARGET / "node_modules" / "typescript"
    (module / "lib").mkdir(parents=True)
    shutil.copy2(typescript / "package.json", module / "package.json")
    shutil.copy2(typescript / "LICENSE.txt", module / "LICENSE.txt")
    for item in (typescript / "lib").iterdir():
        # The compiler itself and the standard library declarations; not tsserver or locales.
        if item.name == "typescript.js" or (item.name.startswith("lib.") and item.name.endswith(".d.ts")):
            shutil.copy2(item, module / "lib" / item.name)
    make_code_cache()
    return 0


def make_code_cache() -> bool:
    """The bundle's code cache, made under the flags analyzer/typeorm/bridge.py runs node with."""
    node = shutil.which("node")
    samples = [ROOT / "corpus" / "samples" / "typeorm" / name for name in CODE_CACHE_SAMPLES]
    if node is None or not all(sample.is_dir() for sample in samples):
        print("bundle_ts_plugin: note: no code cache made (node or the samples are missing)", file=sys.stderr)
        return False
    command = [node, *NODE_FLAGS, str(TARGET / "dist" / "make-code-cache.js"), *map(str, samples)]
    try:
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        print(f"bundle_ts_plugin: note: no code cache made ({exc})", file=sys.stderr)
        return False
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        print(f"bundle_ts_plugin: note: no code cache made ({reason})", file=sys.stderr)
        return False
    return True


if __name__ == "__main__":
    sys.exit(main())
