#!/usr/bin/env bash
# The README's first command: installs what a fresh clone lacks, builds everything, then starts the workbench
# (the embedded reference server, the API and the built web app) on 127.0.0.1 and prints
# "listening on http://127.0.0.1:PORT" as the first line of its output.
# Flags go to `workbench serve` (--port, --host with --token, --data-dir, --reference-port, --no-reference);
# the port also comes from WORKBENCH_PORT (default 8710), the data folder from WORKBENCH_DATA_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-tools.sh >&2
pnpm run build >&2
exec node apps/api/dist/cli/main.js serve "$@"
