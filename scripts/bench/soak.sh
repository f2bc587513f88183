#!/usr/bin/env bash
#! Soak: MINUTES (default 60) of observe -> act -> observe loops through ONE server process (the
#! release binary over stdio, driven by the official MCP SDK) on the Qt 6 fixture, toggling its
#! check box by element id and checking each toggle landed. Prints the server's RSS and open file
#! descriptors every minute, one JSON line each, and a summary: both must stay flat.
# Usage: [SOAK_PAUSE=SECONDS] scripts/bench/soak.sh [MINUTES]   (its own desktop on :62)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
MINUTES="${1:-60}"; N=62
scripts/install-deps.sh >/dev/null
cargo build -q --release
BIN="${CARGO_TARGET_DIR:-target}/release/mcp-computer-use"
bench_desktop $N
export MCP_CU_SESSIONS_DIR="/tmp/deskenv-$N/sessions" MCP_CU_MODEL=none
bench_launch qt6
"${MCP_CU_VENV:-/var/tmp/mcp-cu-venv}/bin/python" scripts/bench/soak.py "$MINUTES" "${PID[qt6]}" "$BIN"
