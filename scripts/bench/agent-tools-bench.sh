#!/usr/bin/env bash
#! What gui_wait, expect, since_state_id and query save an agent, in calls and tokens, against
#! polling gui_state, on a page that answers after 2 s (tests/fixtures/delayed.html in Chromium).
# Usage: scripts/bench/agent-tools-bench.sh     (starts and stops its own desktop on :97)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
[ -n "${MCP_CU_BIN:-}" ] || cargo build -q --release
BIN="${MCP_CU_BIN:-${CARGO_TARGET_DIR:-target}/release/mcp-computer-use}"
PY="${MCP_CU_VENV:-/var/tmp/mcp-cu-venv}/bin/python"
bench_desktop 97
bench_launch chromium-delayed
export MCP_CU_SESSIONS_DIR="$(mktemp -d)" MCP_CU_AUTOSTART_OLLAMA=0
for _ in $(seq 1 100); do
  LIST=$("$BIN" list 2>/dev/null || true)
  WID=$(bench_wid "${PID[chromium-delayed]}" 2>/dev/null | cut -f1) && [ -n "$WID" ] && break
  sleep 0.2
done
"$PY" scripts/bench/agent_tools_bench.py "$BIN" "$WID"
