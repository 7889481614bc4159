#!/usr/bin/env python3
"""Copy the built TypeScript front end into the Python package (analyzer/typeorm/_plugin/).

After `npm ci && npm run build --workspace ts-plugin`, this makes the package self-contained:
the compiled plugin, its declaration stubs and the pinned `typescript` module it loads at run
time (and rewrite-check.js, which analyzer/rewrite uses to parse-check TypeScript). A wheel ships
both front ends; node is the only thing TypeScript scans need at run time. scripts/setup.sh runs
it, and so does setup.py when a wheel is built from a source tree without the bundle.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "analyzer" / "typeorm" / "_plugin"


def main() -> int:
    dist = ROOT / "ts-plugin" / "dist"
    typescript = ROOT / "node_modules" / "typescript"
    if not (dist / "cli.js").is_file() or not (typescript / "package.json").is_file():
        print("bundle_ts_plugin: build ts-plugin first (npm ci && npm run build --workspace ts-plugin)",
              file=sys.stderr)
        return 1
    if TARGET.exists():
        shutil.rmtree(TARGET)
    shutil.copytree(dist, TARGET / "dist")
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
