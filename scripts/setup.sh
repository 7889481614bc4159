#!/usr/bin/env bash
# Installs txscan into .venv (Python >= 3.11) and builds the TypeScript front end with npm.
# Everything comes from PyPI (compatible ranges, pyproject.toml) and the npm registry (package-lock.json)
# by name; nothing else is downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[test,report]'
# libcst's dataclass methods and the front end's node constructors, compiled once (analyzer/generated_code.py)
.venv/bin/python -m analyzer.generated_code >/dev/null
if [ -f package.json ]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "setup: npm not found; the TypeScript front end is not built (Django scans still work)" >&2
  else
    npm ci --no-audit --no-fund --loglevel=error
    npm run --silent build --workspace ts-plugin
    .venv/bin/python scripts/bundle_ts_plugin.py
  fi
fi
