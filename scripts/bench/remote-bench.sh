#!/usr/bin/env bash
#! Remote worker benchmark: gui_state locally vs through a worker (median, p99), screenshot bytes
#! on the wire, and parallel gui_state across three workers (throughput, p99). Needs root.
# Usage: scripts/bench/remote-bench.sh [REPS]   (desktops :81-:84, namespaces cuw11-cuw13)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
scripts/install-deps.sh
cargo build -q --release --features tls
export MCP_CU_BIN="${CARGO_TARGET_DIR:-target}/release/mcp-computer-use"
"${MCP_CU_VENV:-/var/tmp/mcp-cu-venv}/bin/python" scripts/bench/remote_bench.py "${1:-30}"
