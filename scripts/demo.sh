#!/usr/bin/env bash
# The main job on the bundled samples: set up, survey corpus/samples.toml into one store, write
# the report to reports/sample/ (open reports/sample/index.html).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
rm -f reports/sample/txscan.db
.venv/bin/txscan survey corpus/samples.toml --checkouts corpus/samples --db reports/sample/txscan.db --jobs 2
.venv/bin/txscan report reports/sample/txscan.db --out reports/sample
