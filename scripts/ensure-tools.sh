#!/usr/bin/env bash
# Installs what a fresh machine lacks: the pnpm that package.json's packageManager names, the workspace's
# packages exactly as pnpm-lock.yaml pins them (better-sqlite3 builds from source against Node's own headers)
# and, when asked with --browser, Debian's Chromium (the end-to-end tests) and Redis (the run queue on Redis).
set -euo pipefail
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 TURBO_NO_UPDATE_NOTIFIER=1
cd "$(dirname "$0")/.."

pnpm_version="$(node -p 'require("./package.json").packageManager.replace(/^pnpm@/, "")')"
if ! command -v pnpm >/dev/null 2>&1 || [[ "$(pnpm -v 2>/dev/null)" != "$pnpm_version" ]]; then
  echo "installing pnpm $pnpm_version" >&2
  npm i -g "pnpm@$pnpm_version" >/dev/null 2>&1 || npm i -g "pnpm@$pnpm_version"
fi

# node-gyp must build against the installed Node's headers, never download them.
export npm_config_nodedir="${npm_config_nodedir:-$(dirname "$(dirname "$(command -v node)")")}"

if [[ "${1:-}" == "--browser" ]]; then
  missing=()
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
  if [[ ${#missing[@]} -gt 0 ]]; then
    echo "installing Debian's ${missing[*]}" >&2
    if [[ "$(id -u)" == 0 ]]; then apt-get update -qq >/dev/null && apt-get install -y -qq "${missing[@]}" >/dev/null
    else sudo apt-get update -qq >/dev/null && sudo apt-get install -y -qq "${missing[@]}" >/dev/null; fi
  fi
fi

# a lockfile that does not match the package.json files fails the install instead of being rewritten
pnpm install --frozen-lockfile --reporter=append-only 2>&1 | tail -n 5 >&2
