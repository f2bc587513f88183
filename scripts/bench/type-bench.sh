#!/usr/bin/env bash
#! Typing speed where it matters: a 4-row table (tabs and line breaks, 49 characters) typed into
#! LibreOffice Calc with one `gui_action` `type` step, and prose with line breaks into Writer and
#! Mousepad, as an agent sends them (the official Python SDK against the binary), REPS times
#! each; the typed text is checked through the tools afterwards. Prints one JSON line per app
#! with milliseconds a character (target: 15) and the share of the time the app's own moves took.
# Usage: scripts/bench/type-bench.sh [REPS]   (starts and stops its own desktop on :67)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
REPS="${1:-3}"; N=67
bench_bin
bench_desktop $N
export MCP_CU_SESSIONS_DIR="/tmp/deskenv-$N/sessions" MCP_CU_AUTOSTART_OLLAMA=0 MCP_CU_MODEL=none
for app in lo-calc lo-writer mousepad; do
  bench_launch "$app"
  "$PY" scripts/bench/type_bench.py "$BIN" "$REPS" "$app" "${PID[$app]}"
  kill "${PID[$app]}" 2>/dev/null || true
done
