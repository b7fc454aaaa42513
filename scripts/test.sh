#!/usr/bin/env bash
# Runs every test of the workspace from nothing: installs, builds, then one vitest run over all projects.
# Extra arguments go to vitest (for example --reporter=json --outputFile=results.json).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-tools.sh --browser
pnpm run build >&2
pnpm exec vitest run "$@"
