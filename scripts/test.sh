#!/usr/bin/env bash
# Runs every test of the workspace from nothing: installs (pnpm, packages, Debian's Chromium and Redis), builds,
# type-checks, lints, looks for unused files, exports and dependencies (knip), then one vitest run over all
# projects. A failed check does not stop the tests (their results are worth having) but fails the command,
# and is written to $CHECKS_REPORT when set.
# Extra arguments go to vitest (for example --reporter=json --outputFile=results.json).
set -euo pipefail
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 TURBO_NO_UPDATE_NOTIFIER=1
export npm_config_nodedir="${npm_config_nodedir:-$(dirname "$(dirname "$(command -v node)")")}"
cd "$(dirname "$0")/.."
bash scripts/ensure-tools.sh --browser
pnpm run build >&2

failed_checks=()
pnpm run typecheck >&2 || failed_checks+=("typecheck")
pnpm exec biome check . >&2 || failed_checks+=("lint")
pnpm exec knip --no-progress >&2 || failed_checks+=("knip")
if [[ -n "${CHECKS_REPORT:-}" ]]; then printf '%s\n' "${failed_checks[@]}" > "$CHECKS_REPORT"; fi

status=0
pnpm exec vitest run "$@" || status=$?
if [[ ${#failed_checks[@]} -gt 0 ]]; then
  echo "failed checks: ${failed_checks[*]}" >&2
  exit 1
fi
exit $status
