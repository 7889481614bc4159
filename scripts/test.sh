#!/usr/bin/env bash
# Sets everything up, then runs every test: node's test runner for ts-plugin, pytest for the rest.
# pytest runs on every core (pytest-xdist, a test module per worker so that its fixtures are
# built once) while node's tests run beside it; their output follows pytest's. Arguments go to
# pytest (`-n 0` runs it in one process).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
status=0
node_log=""
if [ -f package.json ]; then
  node_log=$(mktemp)
  trap 'rm -f "$node_log"' EXIT
  npm test --workspace ts-plugin >"$node_log" 2>&1 &
  node_pid=$!
fi
.venv/bin/python -m pytest -n auto --dist loadfile "$@" || status=$?
if [ -n "$node_log" ]; then
  node_status=0
  wait "$node_pid" || node_status=$?
  cat "$node_log"
  [ "$node_status" = 0 ] || { echo "test: ts-plugin's tests failed (exit $node_status)" >&2; status=$node_status; }
fi
exit $status
