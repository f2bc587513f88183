#!/usr/bin/env bash
#! Click-by-label latency on gnome-calculator, call to observed effect, single click and a
#! 4-step sequence: our `click` tool beside pyatspi walking afresh per step (the predecessor's
#! way) and xdotool at precomputed coordinates, in one run. Prints one JSON line per driver.
# Usage: scripts/bench/click-bench.sh [REPS]   (starts and stops its own desktop on :60)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
REPS="${1:-15}"; N=60
scripts/install-deps.sh
cargo build -q --release
BIN="${CARGO_TARGET_DIR:-target}/release/mcp-computer-use"
bench_desktop $N
export MCP_CU_SESSIONS_DIR="/tmp/deskenv-$N/sessions"
bench_launch calc
sleep 1
/usr/bin/python3 scripts/bench/click_bench.py "$REPS" "${PID[calc]}" "$BIN" "${MCP_CU_VENV:-/var/tmp/mcp-cu-venv}/bin/python"
