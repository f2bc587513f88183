#!/usr/bin/env bash
#! Click-by-label latency on gnome-calculator, call to observed effect, single click and a
#! 4-step sequence: our `click` tool beside pyatspi walking afresh per step (the predecessor's
#! way) and xdotool at precomputed coordinates, in one run. Prints one JSON line per driver.
# Usage: scripts/bench/click-bench.sh [REPS]   (starts and stops its own desktop on :60)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$ROOT"
REPS="${1:-15}"; N=60
scripts/install-deps.sh
cargo build -q --release
BIN="${CARGO_TARGET_DIR:-target}/release/mcp-computer-use"
scripts/desktop/start-desktop.sh $N >/dev/null
trap 'scripts/desktop/stop-desktop.sh $N --purge >/dev/null 2>&1' EXIT
set -a; . /tmp/deskenv-$N/env; set +a
export MCP_CU_SESSIONS_DIR="/tmp/deskenv-$N/sessions"
PID=$(scripts/desktop/launch-apps.sh $N calc | sed -n 's/^calc=//p')
sleep 1
/usr/bin/python3 scripts/bench/click_bench.py "$REPS" "$PID" "$BIN" "${MCP_CU_VENV:-/var/tmp/mcp-cu-venv}/bin/python"
