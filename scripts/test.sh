#!/usr/bin/env bash
# Runs every test of the workspace from nothing: installs (pnpm, packages, Debian's Chromium), builds,
# type-checks and lints, then one vitest run over all projects.
# Extra arguments go to vitest (for example --reporter=json --outputFile=results.json).
set -euo pipefail
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 TURBO_NO_UPDATE_NOTIFIER=1
export npm_config_nodedir="${npm_config_nodedir:-$(dirname "$(dirname "$(command -v node)")")}"
cd "$(dirname "$0")/.."
bash scripts/ensure-tools.sh --browser
pnpm run build >&2
pnpm run typecheck >&2
pnpm exec biome check . >&2
pnpm exec vitest run "$@"
