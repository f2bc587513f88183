#!/usr/bin/env bash
#! Soak: MINUTES (default 60) of observe -> act -> observe loops through ONE server process (the
#! release binary over stdio, driven by the official MCP SDK) on the Qt 6 fixture, toggling its
#! check box by element id and checking each toggle landed. Prints the server's RSS and open file
#! descriptors every minute, one JSON line each, and a summary: both must stay flat.
# Usage: [SOAK_PAUSE=SECONDS] scripts/bench/soak.sh [MINUTES]   (its own desktop on :62)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$ROOT"
MINUTES="${1:-60}"; N=62
scripts/install-deps.sh >/dev/null
cargo build -q --release
BIN="${CARGO_TARGET_DIR:-target}/release/mcp-computer-use"
scripts/desktop/start-desktop.sh $N >/dev/null
trap 'scripts/desktop/stop-desktop.sh $N --purge >/dev/null 2>&1' EXIT
set -a; . /tmp/deskenv-$N/env; set +a
export MCP_CU_SESSIONS_DIR="/tmp/deskenv-$N/sessions" MCP_CU_MODEL=none
PID=$(scripts/desktop/launch-apps.sh $N qt6 | sed -n 's/^qt6=//p')
"${MCP_CU_VENV:-/var/tmp/mcp-cu-venv}/bin/python" scripts/bench/soak.py "$MINUTES" "$PID" "$BIN"
