#!/usr/bin/env bash
# Sets everything up, then runs every test: node's test runner for ts-plugin, pytest for the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
status=0
if [ -f package.json ]; then
  npm test --workspace ts-plugin || status=$?
fi
.venv/bin/python -m pytest "$@" || status=$?
exit $status
