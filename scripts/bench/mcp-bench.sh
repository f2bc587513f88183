#!/usr/bin/env bash
#! gui_state through MCP (the official Python SDK against the release binary, timed from the
#! client) beside a pyatspi walk of the same window in the same run, on the fixture apps and the
#! real ones (Firefox, Thunar, kcalc, LibreOffice Writer). LibreOffice Calc's sheet has no end
#! to walk: it is in scripts/bench/bigtree-bench.sh, with the other big trees, at the default
#! outline.
#! Prints a table with the ratio, then the fixed cost of a call. The in-process walk alone is
#! scripts/bench/snapshot-bench.sh.
# Usage: scripts/bench/mcp-bench.sh [REPS]   (starts and stops its own desktop on :62)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
REPS="${1:-5}"; N=62
bench_bin
bench_desktop $N
APPS=(qt6 qt5 calc gtk3 gtk4 mousepad featherpad chromium firefox thunar kcalc lo-writer)
bench_launch "${APPS[@]}"
export MCP_CU_SESSIONS_DIR="$(mktemp -d)" MCP_CU_AUTOSTART_OLLAMA=0 MCP_CU_MODEL=none
args=()
for a in "${APPS[@]}"; do
  for _ in $(seq 1 100); do
    LIST=$("$BIN" list 2>/dev/null || true)
    line=$(bench_wid "${PID[$a]}" 2>/dev/null) && [ -n "$line" ] && break
    sleep 0.2
  done
  IFS=$'\t' read -r id title <<<"$line"
  args+=("$a=${PID[$a]}|$id|$title")
done
"$PY" scripts/bench/mcp_bench.py "$BIN" "$REPS" "${args[@]}"
