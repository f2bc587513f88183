#!/usr/bin/env bash
#! Key sequences in big apps, per step, against the app's own reaction: LibreOffice Calc and
#! Writer driven by `gui_action` (4 key steps: Calc "1 Tab 2 Return", Writer "a b c Return") as
#! an agent sends them (the official Python SDK against the release binary), beside an
#! independent observer (pyatspi in its own process) timing `xdotool key` to the app's first
#! text-changed event for a digit, and to its first event that shows a change for each key of
#! the same four (Tab and Return make Calc commit a cell: it reacts later than to a digit).
#! Prints one JSON line per app with the per-step time and both ratios.
# Usage: scripts/bench/steps-bench.sh [REPS]   (starts and stops its own desktop on :66)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
REPS="${1:-5}"; N=66
bench_bin
bench_desktop $N
export MCP_CU_SESSIONS_DIR="/tmp/deskenv-$N/sessions" MCP_CU_AUTOSTART_OLLAMA=0 MCP_CU_MODEL=none
declare -A KEYS=([lo-calc]="1 Tab 2 Return" [lo-writer]="a b c Return")
for app in lo-calc lo-writer; do
  bench_launch "$app"
  react="$(/usr/bin/python3 scripts/bench/reaction.py "${PID[$app]}" "$REPS")"
  # shellcheck disable=SC2086 # the keys are words
  react_steps="$(/usr/bin/python3 scripts/bench/reaction.py "${PID[$app]}" "$REPS" ${KEYS[$app]})"
  "$PY" scripts/bench/steps_bench.py "$BIN" "$REPS" "$app" "${PID[$app]}" "$react" "$react_steps"
  kill "${PID[$app]}" 2>/dev/null || true
done
