#!/usr/bin/env bash
# Installs what a fresh machine lacks: pnpm 12, the workspace's packages (better-sqlite3 builds from source
# against Node's own headers) and, when asked with --browser, Debian's Chromium for the end-to-end tests.
set -euo pipefail
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 TURBO_NO_UPDATE_NOTIFIER=1
cd "$(dirname "$0")/.."

if ! command -v pnpm >/dev/null 2>&1 || [[ "$(pnpm -v 2>/dev/null)" != 12.* ]]; then
  echo "installing pnpm 12" >&2
  npm i -g pnpm@12 >/dev/null 2>&1 || npm i -g pnpm@12
fi

# node-gyp must build against the installed Node's headers, never download them.
export npm_config_nodedir="${npm_config_nodedir:-$(dirname "$(dirname "$(command -v node)")")}"

if [[ "${1:-}" == "--browser" ]] && ! command -v chromium >/dev/null 2>&1; then
  echo "installing Debian's chromium" >&2
  if [[ "$(id -u)" == 0 ]]; then apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null
  else sudo apt-get update -qq >/dev/null && sudo apt-get install -y -qq chromium >/dev/null; fi
fi

pnpm install --frozen-lockfile=false --reporter=append-only 2>&1 | tail -n 5 >&2
